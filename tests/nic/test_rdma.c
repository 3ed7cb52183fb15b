/* SPDX-License-Identifier: MIT */
/* Registered memory and RDMA frames (nic/rdma.c): placement, every refusal, the table's life cycle. */
#include <stdlib.h>

#include "nic_test.h"

/* msg_len of the next frame rdma_send makes (where its transfer ends), 0: off + len. */
static uint32_t send_end;

/* Node 1 writes an RDMA frame into node 0's region: rkey, region offset off, len bytes of pattern seq. */
static void rdma_send(struct lc_nic *from, uint32_t dst, uint32_t rkey, uint32_t off, uint32_t len,
		      uint32_t seq, int dma, uint8_t *buf)
{
	struct lc_frame_hdr *h;
	uint32_t ticket = 0;

	while (!(h = lc_nic_tx_slot(from)))
		lct_step_all();
	memset(h, 0, sizeof(*h));
	h->magic = LC_FRAME_MAGIC;
	h->type = LC_FT_RDMA;
	h->src = (uint16_t)lc_nic_node(from);
	h->dst = (uint16_t)dst;
	h->len = len;
	h->rkey = rkey;
	h->off = off;
	h->msg_len = send_end ? send_end : off + len;
	send_end = 0;
	for (uint32_t i = 0; i < len; i++)
		buf[i] = lct_byte(h->src, seq, i);
	if (dma) {
		ticket = lc_nic_tx_post_dma(from, buf, len);
		(void)ticket;
	} else {
		memcpy(h + 1, buf, len);
		lc_nic_tx_post_pio(from);
	}
}

static uint8_t *region;          /* node 0's registered memory, with canaries around it */
#define REGION 4096u
#define CANARY 64u

static void region_init(void)
{
	region = malloc(REGION + 2 * CANARY);
	cr_assert_not_null(region);
	memset(region, 0xa5, REGION + 2 * CANARY);
}

/* Every byte of the region outside [off, off + len), and the canaries, still 0xa5. */
static void region_untouched_but(uint32_t off, uint32_t len)
{
	for (uint32_t i = 0; i < REGION + 2 * CANARY; i++) {
		if (i >= CANARY + off && i < CANARY + off + len)
			continue;
		cr_assert_eq(region[i], 0xa5, "byte %u of the region (canary %u) was written", i, CANARY);
	}
}

static void fini(void)
{
	lct_fini();
	free(region);
	region = NULL;
}

TestSuite(rdma, .fini = fini, .timeout = 60);

/*
 * These tests inject raw RDMA frames.  A composed protocol that checks every
 * RDMA frame's CRC in Net-Recv (checksum, reliability: their nic_rx) rightly
 * refuses them, so there the suite's tests are reported skipped.
 */
#define LCT_RDMA_RUNS (!LC_PROTO_CHECKSUM && !LC_PROTO_RELIABILITY)
#define LCT_RDMA_WHY "a composed protocol checks each RDMA frame's CRC in Net-Recv and these raw " \
	"frames carry none (LC_PROTO_CHECKSUM || LC_PROTO_RELIABILITY)"

/*
 * A frame that fails a check: refused, counted at the receiver and for its
 * sender as kind (the other kind's counters unmoved), nothing written.
 */
static void expect_refused(uint32_t rkey, uint32_t off, uint32_t len, enum lc_nic_nack kind, const char *why)
{
	struct lc_nic *n0 = lct_nic[0], *n1 = lct_nic[1];
	enum lc_nic_nack other = kind == LC_NIC_NACK_STALE ? LC_NIC_NACK_REFUSED : LC_NIC_NACK_STALE;
	uint64_t denied = lct_stat(n0, LC_NIC_STAT_rdma_denied), stale = lct_stat(n0, LC_NIC_STAT_rdma_stale);
	uint32_t nacks = lc_nic_rdma_nacks(n1, 0, kind), others = lc_nic_rdma_nacks(n1, 0, other);
	static uint8_t buf[1024];

	rdma_send(n1, 0, rkey, off, len, 9, 0, buf);
	lct_settle();
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_rdma_denied), denied + 1, "%s: not counted as refused", why);
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_rdma_stale), stale + (kind == LC_NIC_NACK_STALE),
		     "%s: counted as stale %s", why, kind == LC_NIC_NACK_STALE ? "not" : "too");
	cr_assert_eq(lc_nic_rdma_nacks(n1, 0, kind), nacks + 1, "%s: the sender was not told", why);
	cr_assert_eq(lc_nic_rdma_nacks(n1, 0, other), others, "%s: the sender was told the other reason", why);
	/* staged whole and marked, so the host's protocols see it (its number) before it is dropped */
	{
		struct lc_frame_hdr *h = lct_wait_rx(n0);

		cr_assert(h->flags & LC_FF_REFUSED, "%s: the refused frame reached the host unmarked", why);
		cr_assert_eq(h->rkey, rkey);
		cr_assert_eq(h->len, len, "%s: staged whole", why);
		lc_nic_rx_release(n0);
	}
	cr_assert_null(lc_nic_rx_peek(n0), "%s: one frame staged", why);
	region_untouched_but(0, 0);
}

static uint32_t setup_registered(int thread, uint32_t rights)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .thread = thread });
	uint32_t h = 0;

	region_init();
	lct_setup(&g, "rdma");
	cr_assert_eq(lc_nic_reg(lct_nic[0], region + CANARY, REGION, lc_nic_vi_tag(lct_nic[0]), rights, &h), 0);
	return h;
}

static void placed_payload_lands_in_the_region_and_only_the_header_in_staging(int thread, int dma)
{
	uint32_t h = setup_registered(thread, LC_NIC_REG_WRITE);
	struct lc_nic *n0 = lct_nic[0], *n1 = lct_nic[1];
	static uint8_t buf[1024];
	uint64_t to_host = lct_stat(n0, LC_NIC_STAT_dma_to_host_bytes);
	struct lc_frame_hdr *hdr;
	uint8_t *p;

	rdma_send(n1, 0, h, 1000, 1024, 3, dma, buf);
	hdr = lct_wait_rx(n0);
	cr_assert_eq(hdr->type, LC_FT_RDMA);
	cr_assert_eq(hdr->rkey, h);
	cr_assert_eq(hdr->off, 1000);
	cr_assert_eq(hdr->len, 1024);
	p = lc_nic_rdma_payload(n0, hdr);
	cr_assert_eq(p, region + CANARY + 1000, "the payload is where the handle and offset say");
	for (uint32_t i = 0; i < 1024; i++)
		cr_assert_eq(p[i], lct_byte(1, 3, i), "byte %u of the placed payload", i);
	region_untouched_but(1000, 1024);
	/* the DMA engine moved the payload once and the header once: no staging copy of the payload */
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_dma_to_host_bytes) - to_host, 1024 + sizeof(*hdr));
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_rdma_frames), 1);
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_rdma_bytes), 1024);
	lc_nic_rx_release(n0);
	cr_assert_eq(lct_stat(n0, LC_NIC_STAT_rdma_denied), 0);
}

LC_T_TEST_IF(rdma, placed_by_pio_frame, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	placed_payload_lands_in_the_region_and_only_the_header_in_staging(0, 0);
}

LC_T_TEST_IF(rdma, placed_by_dma_frame, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	placed_payload_lands_in_the_region_and_only_the_header_in_staging(0, 1);
}

LC_T_TEST_IF(rdma, placed_with_the_mcp_thread, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	placed_payload_lands_in_the_region_and_only_the_header_in_staging(1, 1);
}

LC_T_TEST_IF(rdma, the_last_byte_of_the_region_is_writable_the_next_is_not,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, LC_NIC_REG_WRITE);
	static uint8_t buf[1024];

	rdma_send(lct_nic[1], 0, h, REGION - 16, 16, 4, 0, buf);
	cr_assert_not_null(lct_wait_rx(lct_nic[0]));
	lc_nic_rx_release(lct_nic[0]);
	region_untouched_but(REGION - 16, 16);
	memset(region + CANARY + REGION - 16, 0xa5, 16);
	expect_refused(h, REGION - 16, 17, LC_NIC_NACK_REFUSED, "one byte past the end");
	expect_refused(h, REGION, 1, LC_NIC_NACK_REFUSED, "at the end");
	expect_refused(h, 0xffffff00u, 512, LC_NIC_NACK_REFUSED, "an offset whose sum with len wraps 32 bits");
	/* a frame inside the region of a transfer that ends beyond it: none of the transfer lands */
	send_end = REGION + 1;
	expect_refused(h, 0, 16, LC_NIC_NACK_REFUSED, "a frame of a transfer that ends past the region");
}

LC_T_TEST_IF(rdma, a_forged_or_stale_handle_is_refused, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, LC_NIC_REG_WRITE);

	expect_refused(h ^ 0x10000u, 0, 8, LC_NIC_NACK_STALE, "another generation");
	expect_refused((h & 0xffff0000u) | 7u, 0, 8, LC_NIC_NACK_STALE, "an entry never registered");
	expect_refused((h & 0xffff0000u) | 0xffffu, 0, 8, LC_NIC_NACK_REFUSED, "an entry beyond the table");
	expect_refused(0, 0, 8, LC_NIC_NACK_STALE, "the zero handle");
}

LC_T_TEST_IF(rdma, a_region_without_the_write_right_is_refused, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, 0);

	expect_refused(h, 0, 8, LC_NIC_NACK_REFUSED, "no LC_NIC_REG_WRITE");
}

LC_T_TEST_IF(rdma, memory_registered_under_another_tag_is_refused, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024 });
	uint32_t h = 0;

	region_init();
	lct_setup(&g, "rdma");
	cr_assert_eq(lc_nic_reg(lct_nic[0], region + CANARY, REGION, lc_nic_vi_tag(lct_nic[0]) + 1,
				LC_NIC_REG_WRITE, &h), 0);
	expect_refused(h, 0, 8, LC_NIC_NACK_REFUSED, "a region of another protection tag");
	/* the endpoint taking that tag makes the same handle good */
	cr_assert_eq(lc_nic_set_vi_tag(lct_nic[0], lc_nic_vi_tag(lct_nic[0]) + 1), 0);
	static uint8_t buf[16];
	rdma_send(lct_nic[1], 0, h, 0, 8, 5, 0, buf);
	cr_assert_not_null(lct_wait_rx(lct_nic[0]));
	cr_assert_eq(lc_nic_set_vi_tag(lct_nic[0], 0), LC_ERR_INVAL);
}

/*
 * Three endpoints, two on NIC 0: they share its registration table, each
 * serves its own entries only -- a handle of the other endpoint of the same
 * NIC is refused even under the same protection tag, and it cannot revoke,
 * re-key or resolve the other's entry.
 */
LC_T_TEST_IF(rdma, the_endpoints_of_a_nic_share_its_table_and_serve_their_own_entries,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3, .per_nic = 2, .mtu = 1024, .reg = 2 });
	struct lc_nic *a, *b, *c;
	uint32_t ha = 0, hb = 0, h, fence;
	static uint8_t buf[16];
	struct lc_frame_hdr *hdr;

	region_init();
	lct_setup(&g, "rdmavi");
	a = lct_nic[0];
	b = lct_nic[1];
	c = lct_nic[2];
	/* (each attach maps the segment on its own: compare places in it) */
	cr_assert_eq((uint8_t *)a->reg - a->seg, (uint8_t *)b->reg - b->seg, "one table for the NIC");
	cr_assert_neq((uint8_t *)a->reg - a->seg, (uint8_t *)c->reg - c->seg);
	cr_assert_eq(lc_nic_reg(a, region + CANARY, REGION, lc_nic_vi_tag(a), LC_NIC_REG_WRITE, &ha), 0);
	cr_assert_eq(lc_nic_set_vi_tag(b, lc_nic_vi_tag(a)), 0, "the same protection tag");
	cr_assert_eq(lc_nic_reg(b, region + CANARY, REGION, lc_nic_vi_tag(b), LC_NIC_REG_WRITE, &hb), 0);
	cr_assert_neq(ha & 0xffffu, hb & 0xffffu, "two entries of the one table");
	cr_assert_eq(lc_nic_reg(b, region, 8, lc_nic_vi_tag(b), LC_NIC_REG_WRITE, &h), LC_ERR_AGAIN,
		     "the table is full for both");
	/* b cannot touch a's entry */
	cr_assert_eq(lc_nic_dereg(b, ha, &fence), LC_ERR_INVAL);
	h = ha;
	cr_assert_eq(lc_nic_reg_rekey(b, &h, &fence), LC_ERR_INVAL);
	cr_assert_null(lc_nic_reg_addr(b, ha, 0));
	cr_assert_not_null(lc_nic_reg_addr(a, ha, 0));
	/* a frame to b with a's handle is refused at b, as one to a with b's */
	rdma_send(c, 1, ha, 0, 8, 5, 0, buf);
	rdma_send(c, 0, hb, 0, 8, 5, 0, buf);
	lct_settle();
	cr_assert_eq(lct_stat(b, LC_NIC_STAT_rdma_denied), 1);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_rdma_denied), 1);
	cr_assert_eq(lc_nic_rdma_nacks(c, 1, LC_NIC_NACK_REFUSED), 1);
	/* each staged, marked refused */
	hdr = lct_wait_rx(a);
	cr_assert(hdr->flags & LC_FF_REFUSED);
	lc_nic_rx_release(a);
	hdr = lct_wait_rx(b);
	cr_assert(hdr->flags & LC_FF_REFUSED);
	lc_nic_rx_release(b);
	region_untouched_but(0, 0);
	/* each owner's own handle lands */
	rdma_send(c, 0, ha, 0, 8, 5, 0, buf);
	hdr = lct_wait_rx(a);
	cr_assert_eq(hdr->rkey, ha);
	lc_nic_rx_release(a);
	/* a frees its entry: b may take it (a new generation), a's old handle is stale */
	cr_assert_eq(lc_nic_dereg(a, ha, &fence), 0);
	cr_assert_eq(lc_nic_reg(b, region, 8, lc_nic_vi_tag(b), LC_NIC_REG_WRITE, &h), 0);
	cr_assert_eq(h & 0xffffu, ha & 0xffffu);
	cr_assert_neq(h, ha);
}

LC_T_TEST_IF(rdma, rekey_refuses_the_old_handle_and_takes_the_new, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, LC_NIC_REG_WRITE), old = h;
	static uint8_t buf[64];

	cr_assert_eq(lc_nic_reg_rekey(lct_nic[0], &h, NULL), 0);
	cr_assert_neq(h, old);
	cr_assert_eq(h & 0xffffu, old & 0xffffu, "same entry");
	expect_refused(old, 0, 8, LC_NIC_NACK_STALE, "the handle before the re-key");
	rdma_send(lct_nic[1], 0, h, 0, 64, 6, 0, buf);
	cr_assert_not_null(lct_wait_rx(lct_nic[0]));
	cr_assert_eq(lc_nic_reg_rekey(lct_nic[0], &old, NULL), LC_ERR_INVAL);
}

/*
 * A frame checked under a handle before its re-key still lands: the re-key's
 * fence names its block, so whoever re-keys at the end of a transfer waits
 * for it before the bytes are final (a copy sent again that was checked
 * before the re-key would otherwise land in a buffer already handed back).
 */
LC_T_TEST_IF(rdma, a_rekey_fences_the_blocks_posted_under_the_old_handle,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, LC_NIC_REG_WRITE), fence = 0;
	static uint8_t buf[64];

	rdma_send(lct_nic[1], 0, h, 16, 64, 8, 0, buf);
	/* node 0's Net-Recv checks the frame and posts its blocks; its DMA engine has not run */
	while (!lc_nic_net_recv_step(lct_nic[0]))
		lc_nic_step(lct_nic[1]);
	cr_assert_eq(lc_nic_reg_rekey(lct_nic[0], &h, &fence), 0);
	cr_assert_not(lc_nic_rdma_quiet(lct_nic[0], fence), "the old handle's block is not waited for");
	while (!lc_nic_rdma_quiet(lct_nic[0], fence))
		lc_nic_dma_step(lct_nic[0]);
	cr_assert_eq(memcmp(region + CANARY + 16, buf, 64), 0, "the frame checked before the re-key landed");
	region_untouched_but(16, 64);
	/* a re-key with nothing posted under the old handle is quiet at once */
	cr_assert_eq(lc_nic_reg_rekey(lct_nic[0], &h, &fence), 0);
	cr_assert(lc_nic_rdma_quiet(lct_nic[0], fence));
}

LC_T_TEST_IF(rdma, deregistration_refuses_the_handle_and_a_new_registration_gets_another,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	uint32_t h = setup_registered(0, LC_NIC_REG_WRITE), h2 = 0, fence = 0;

	cr_assert_eq(lc_nic_dereg(lct_nic[0], h, &fence), 0);
	cr_assert(lc_nic_rdma_quiet(lct_nic[0], fence));
	cr_assert_eq(lc_nic_dereg(lct_nic[0], h, &fence), LC_ERR_INVAL, "twice");
	cr_assert_null(lc_nic_reg_addr(lct_nic[0], h, 0));
	expect_refused(h, 0, 8, LC_NIC_NACK_STALE, "a deregistered handle");
	cr_assert_eq(lc_nic_reg(lct_nic[0], region + CANARY, REGION, lc_nic_vi_tag(lct_nic[0]),
				LC_NIC_REG_WRITE, &h2), 0);
	cr_assert_eq(h2 & 0xffffu, h & 0xffffu, "the freed entry is taken again");
	cr_assert_neq(h2, h, "with another generation");
	expect_refused(h, 0, 8, LC_NIC_NACK_STALE, "the old handle of a re-registered entry");
	cr_assert_eq(lc_nic_reg_addr(lct_nic[0], h2, 10), region + CANARY + 10);
	cr_assert_null(lc_nic_reg_addr(lct_nic[0], h2, REGION));
}

LC_T_TEST_IF(rdma, a_full_table_pushes_back_and_bad_arguments_are_refused,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .reg = 4 });
	uint32_t h[5], fence;
	int x;

	lct_setup(&g, "rdma");
	for (int i = 0; i < 4; i++)
		cr_assert_eq(lc_nic_reg(lct_nic[0], &x, sizeof(x), 1, LC_NIC_REG_WRITE, &h[i]), 0);
	cr_assert_eq(lc_nic_reg(lct_nic[0], &x, sizeof(x), 1, LC_NIC_REG_WRITE, &h[4]), LC_ERR_AGAIN);
	cr_assert_eq(lc_nic_dereg(lct_nic[0], h[2], &fence), 0);
	cr_assert_eq(lc_nic_reg(lct_nic[0], &x, sizeof(x), 1, LC_NIC_REG_WRITE, &h[4]), 0);
	cr_assert_eq(h[4] & 0xffffu, 2u);
	cr_assert_eq(lc_nic_reg(lct_nic[0], NULL, 8, 1, LC_NIC_REG_WRITE, &h[4]), LC_ERR_INVAL);
	cr_assert_eq(lc_nic_reg(lct_nic[0], &x, 0, 1, LC_NIC_REG_WRITE, &h[4]), LC_ERR_INVAL);
	cr_assert_eq(lc_nic_reg(lct_nic[0], &x, 4, 1, 0x80, &h[4]), LC_ERR_INVAL);
	cr_assert_eq(lc_nic_reg(lct_nic[0], (void *)(uintptr_t)(UINT64_MAX - 8), 64, 1, 0, &h[4]),
		     LC_ERR_INVAL, "a region that wraps the address space");
}

LC_T_TEST_IF(rdma, a_nic_without_a_table_refuses_every_rdma_frame, LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .reg = LCT_NO_REG });
	int x;
	uint32_t h;

	region_init();
	lct_setup(&g, "rdma");
	cr_assert_eq(lc_nic_reg(lct_nic[0], &x, sizeof(x), 1, LC_NIC_REG_WRITE, &h), LC_ERR_AGAIN);
	expect_refused(1u << 16, 0, 8, LC_NIC_NACK_REFUSED, "no registration table");
}

/*
 * More frames than Receive Ring slots and Rx DMA blocks: the payload block
 * never frees its slot; every index starts at base (just below 2^32: the
 * indices wrap in the middle of the stream).
 */
static void stream(uint32_t base)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 256, .recv_ring = 2, .rx_dma = 4 });
	uint32_t h = 0;
	static uint8_t buf[64][256];
	int got = 0;

	region_init();
	lct_setup(&g, "rdma");
	if (base) {
		lc_nic_debug_set_base(lct_nic[0], base);
		lc_nic_debug_set_base(lct_nic[1], base);
	}
	cr_assert_eq(lc_nic_reg(lct_nic[0], region + CANARY, REGION, lc_nic_vi_tag(lct_nic[0]),
				LC_NIC_REG_WRITE, &h), 0);
	for (uint32_t f = 0; f < REGION / 256; f++) {
		struct lc_frame_hdr *hdr;

		rdma_send(lct_nic[1], 0, h, f * 256, 256, f, (int)(f & 1), buf[f]);
		while ((hdr = lc_nic_rx_peek(lct_nic[0])) != NULL) {
			cr_assert_eq(hdr->off, (uint32_t)got * 256);
			lc_nic_rx_release(lct_nic[0]);
			got++;
		}
		lct_step_all();
	}
	while (got < (int)(REGION / 256)) {
		struct lc_frame_hdr *hdr = lct_wait_rx(lct_nic[0]);

		cr_assert_eq(hdr->off, (uint32_t)got * 256);
		lc_nic_rx_release(lct_nic[0]);
		got++;
	}
	for (uint32_t f = 0; f < REGION / 256; f++)
		for (uint32_t i = 0; i < 256; i++)
			cr_assert_eq(region[CANARY + f * 256 + i], lct_byte(1, f, i), "frame %u byte %u", f, i);
	region_untouched_but(0, REGION);
}

LC_T_TEST_IF(rdma, a_stream_of_rdma_frames_fills_the_region_in_order_without_freeing_a_slot_early,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	stream(0);
}

LC_T_TEST_IF(rdma, the_same_stream_across_the_wrap_of_every_index_at_2_32,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	stream(UINT32_MAX - 3);
}

/*
 * A payload of LC_DMA_STREAM_MIN bytes or more is written by the engine's
 * non-temporal copy (LC_DMA_STREAM, nic_impl.h): it lands exactly, canaries
 * untouched, and only its payload block carries the flag.
 */
LC_T_TEST_IF(rdma, a_payload_of_a_page_or_more_is_streamed_around_the_caches_and_lands_exactly,
	     LCT_RDMA_RUNS, LCT_RDMA_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = REGION });
	static uint8_t buf[REGION];
	struct lc_nic *n0, *n1;
	struct lc_frame_hdr *hdr;
	uint32_t h = 0, streamed = 0;
	uint8_t *p;

	cr_assert_geq(REGION, LC_DMA_STREAM_MIN);
	region_init();
	lct_setup(&g, "rdmast");
	n0 = lct_nic[0];
	n1 = lct_nic[1];
	cr_assert_eq(lc_nic_reg(n0, region + CANARY, REGION, lc_nic_vi_tag(n0), LC_NIC_REG_WRITE, &h), 0);
	rdma_send(n1, 0, h, 0, REGION, 7, 1, buf);
	hdr = lct_wait_rx(n0);
	cr_assert_eq(hdr->type, LC_FT_RDMA);
	p = lc_nic_rdma_payload(n0, hdr);
	cr_assert_eq(p, region + CANARY);
	for (uint32_t i = 0; i < REGION; i++)
		cr_assert_eq(p[i], lct_byte(1, 7, i), "byte %u of the streamed payload", i);
	region_untouched_but(0, REGION);
	for (uint32_t i = 0; i <= n0->chain[0].mask; i++) {
		const struct lc_nic_dma_block *b = &n0->chain[0].blocks[i];

		if (b->status == LC_DMA_DONE && (b->flags & LC_DMA_STREAM)) {
			cr_assert_eq(b->len, REGION, "only the payload block is streamed");
			streamed++;
		}
	}
	cr_assert_eq(streamed, 1, "the payload block carried LC_DMA_STREAM");
	lc_nic_rx_release(n0);
}
