/* SPDX-License-Identifier: MIT */
/* Helpers of the NIC unit tests: tiny geometries, unique segments, frame exchange. */
#ifndef LC_NIC_TEST_H
#define LC_NIC_TEST_H

#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nic_impl.h"
#include "../pipeline/lc_skip.h"   /* LC_T_SKIPPED, LC_T_TEST_IF */

#define LCT_MAX_NICS 16
#define LCT_SCRATCH 4096u     /* spare SRAM after the six buffers (DMA chain tests) */
#define LCT_NO_REG 0xffffffffu  /* lct_shape.reg: a NIC without a registration table */

/* The segment of the running test (Criterion runs each test in its own process). */
static char lct_name[64];
static struct lc_nic *lct_nic[LCT_MAX_NICS];

/* A geometry laid out as the generator does: ctrl, the six buffers, each 64-aligned. */
struct lct_shape {
	uint32_t nodes, mtu, send_ring, recv_ring, tx_dma, rx_dma, tx_fifo, rx_fifo, staging, ports;
	uint32_t reg;           /* registration entries (0: the default 8; LCT_NO_REG: none) */
	uint32_t per_nic;       /* endpoints per NIC (0: 1) */
	uint64_t timeout_ns;
	int thread;
	int pull;               /* nic.link_engine "either": a receiving NIC may pull the DMA frames */
	uint32_t link_mbps, hop_ns;     /* the timed network (0, 0: untimed) */
};

static inline uint32_t lct_align(uint32_t v)
{
	return (v + 63u) & ~63u;
}

static inline struct lc_nic_geom lct_geom(struct lct_shape s)
{
	struct lc_nic_geom g;
	uint32_t o;

	memset(&g, 0, sizeof(g));
	g.nodes = s.nodes ? s.nodes : 2;
	g.per_nic = s.per_nic ? s.per_nic : 1;
	g.mtu = s.mtu ? s.mtu : 256;
	g.hdr_bytes = sizeof(struct lc_frame_hdr);
	g.recv_word_bytes = LC_NIC_RECV_WORD_BYTES;
	g.slot_bytes = lct_align(LC_NIC_RECV_WORD_BYTES + g.hdr_bytes + g.mtu);
	g.send_ring = s.send_ring ? s.send_ring : 8;
	g.recv_ring = s.recv_ring ? s.recv_ring : 8;
	g.tx_dma = s.tx_dma ? s.tx_dma : 8;
	g.rx_dma = s.rx_dma ? s.rx_dma : 8;
	g.tx_fifo = s.tx_fifo ? s.tx_fifo : 16;
	g.rx_fifo = s.rx_fifo ? s.rx_fifo : 16;
	g.staging_slots = s.staging ? s.staging : 8;
	g.switch_ports = s.ports ? s.ports : 16;
	g.backpressure_timeout_ns = s.timeout_ns ? s.timeout_ns : 60ull * 1000000000ull;
	g.fingerprint = 0x5eed0000c0ffee00ull;
	g.mcp_thread = (uint16_t)s.thread;
	g.pull = (uint16_t)s.pull;
	g.link_mbps = s.link_mbps;
	g.hop_ns = s.hop_ns;
	o = 0;
	g.off_ctrl = o;
	o = lct_align(o + (uint32_t)sizeof(struct lc_nic_ctrl));
	g.off_send_ring = o;
	o = lct_align(o + g.send_ring * g.slot_bytes);
	g.off_recv_ring = o;
	o = lct_align(o + g.recv_ring * g.slot_bytes);
	g.off_tx_dma = o;
	o = lct_align(o + g.tx_dma * 32u);
	g.off_rx_dma = o;
	o = lct_align(o + g.rx_dma * 32u);
	/* the doorbell region: whole pages (nic_impl.h, struct lc_nic_doorbell) */
	g.off_tx_fifo = o = (o + LC_PAGE - 1) / LC_PAGE * LC_PAGE;
	g.db_bytes = ((uint32_t)sizeof(struct lc_nic_doorbell) + g.tx_fifo * 16u + LC_PAGE - 1) / LC_PAGE * LC_PAGE;
	o += g.db_bytes;
	g.off_rx_fifo = o;
	o = lct_align(o + g.rx_fifo * 16u);
	g.reg_entries = s.reg == LCT_NO_REG ? 0 : s.reg ? s.reg : 8;
	g.off_reg = o;
	o = lct_align(o + g.reg_entries * LC_NIC_REG_ENTRY_BYTES);
	g.sram_bytes = o + LCT_SCRATCH;
	return g;
}

/* SRAM offset of the spare area the tests may use. */
static inline uint32_t lct_scratch(const struct lc_nic_geom *g)
{
	return g->sram_bytes - LCT_SCRATCH;
}

/* Create the test's segment for g. */
static inline void lct_create(const struct lc_nic_geom *g, const char *tag)
{
	char err[256] = "";
	int rc;

	snprintf(lct_name, sizeof(lct_name), "/lc.test.%d.%s", (int)getpid(), tag);
	rc = lc_seg_create(lct_name, g, err, sizeof(err));
	cr_assert_eq(rc, 0, "lc_seg_create: %d %s", rc, err);
}

static inline struct lc_nic *lct_attach(const struct lc_nic_geom *g, uint32_t node)
{
	char err[256] = "";
	int rc = 1;
	struct lc_nic *nic = lc_nic_attach(lct_name, node, g, err, sizeof(err), &rc);

	cr_assert_not_null(nic, "attach node %u: %d %s", node, rc, err);
	cr_assert_eq(rc, 0);
	lct_nic[node] = nic;
	return nic;
}

/* Create a segment and attach nodes 0 .. g->nodes-1. */
static inline void lct_setup(const struct lc_nic_geom *g, const char *tag)
{
	lct_create(g, tag);
	for (uint32_t i = 0; i < g->nodes; i++)
		lct_attach(g, i);
}

/* TestSuite .fini: detach what is attached, remove the segment. */
static inline void lct_fini(void)
{
	for (int i = 0; i < LCT_MAX_NICS; i++) {
		if (lct_nic[i])
			lc_nic_detach(lct_nic[i]);
		lct_nic[i] = NULL;
	}
	if (lct_name[0])
		lc_seg_unlink(lct_name);
	lct_name[0] = 0;
}

static inline uint64_t lct_stat(struct lc_nic *nic, enum lc_nic_stat s)
{
	return atomic_load_explicit(&lc_nic_stats(nic)[s], memory_order_relaxed);
}

/* Step every attached NIC once (inline mode); the work done. */
static inline int lct_step_all(void)
{
	int w = 0;

	for (int i = 0; i < LCT_MAX_NICS; i++)
		if (lct_nic[i])
			w += lc_nic_step(lct_nic[i]);
	return w;
}

/* Step (or, in thread mode, yield) until nothing moves for a while. */
static inline void lct_settle(void)
{
	for (int idle = 0; idle < 64;) {
		if (lct_step_all())
			idle = 0;
		else
			idle++;
		if (lct_nic[0] && lct_nic[0]->thread_on)
			sched_yield();
	}
}

/* Byte i of the payload of frame (src, seq). */
static inline uint8_t lct_byte(uint32_t src, uint32_t seq, uint32_t i)
{
	return (uint8_t)(src * 31u + seq * 7u + i * 13u + (i >> 8));
}

/*
 * Send one frame of len bytes from nic to dst (PIO or DMA, payload from buf).
 * Returns 0, or -1 when the NIC had no room.  The DMA source must stay valid
 * until the ticket is done: callers keep buf alive and check *ticket.
 */
static inline int lct_send(struct lc_nic *nic, uint32_t dst, uint32_t seq, uint32_t len, int dma,
			   uint8_t *buf, uint32_t *ticket)
{
	struct lc_frame_hdr *h = lc_nic_tx_slot(nic);

	if (!h)
		return -1;
	memset(h, 0, sizeof(*h));
	h->magic = LC_FRAME_MAGIC;
	h->src = (uint16_t)lc_nic_node(nic);
	h->dst = (uint16_t)dst;
	h->len = len;
	h->seq = seq;
	for (uint32_t i = 0; i < len; i++)
		buf[i] = lct_byte(h->src, seq, i);
	if (dma) {
		uint32_t t = lc_nic_tx_post_dma(nic, buf, len);

		if (ticket)
			*ticket = t;
	} else {
		memcpy(h + 1, buf, len);
		lc_nic_tx_post_pio(nic);
	}
	return 0;
}

/* Check a received frame against what lct_send sent. */
static inline void lct_check(const struct lc_frame_hdr *h, uint32_t src, uint32_t dst, uint32_t seq,
			     uint32_t len)
{
	const uint8_t *p = (const uint8_t *)(h + 1);

	cr_assert_eq(h->magic, LC_FRAME_MAGIC);
	cr_assert_eq(h->src, src);
	cr_assert_eq(h->dst, dst);
	cr_assert_eq(h->seq, seq, "seq %u, expected %u", h->seq, seq);
	cr_assert_eq(h->len, len, "len %u, expected %u", h->len, len);
	for (uint32_t i = 0; i < len; i++)
		cr_assert_eq(p[i], lct_byte(src, seq, i), "payload byte %u of frame %u", i, seq);
}

/* Wait (stepping in inline mode) for the next frame at nic; bounded by a deadline of seconds. */
static inline struct lc_frame_hdr *lct_wait_rx(struct lc_nic *nic)
{
	uint64_t deadline = lc_nic_now_ns() + 20ull * 1000000000ull;
	struct lc_frame_hdr *h;

	while (!(h = lc_nic_rx_peek(nic))) {
		if (!lct_step_all())
			sched_yield();
		cr_assert_lt(lc_nic_now_ns(), deadline, "no frame arrived");
	}
	return h;
}

#endif /* LC_NIC_TEST_H */
