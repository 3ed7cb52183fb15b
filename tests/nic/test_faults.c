/* SPDX-License-Identifier: MIT */
/* The fault injector: parsing, determinism for a seed, every kind counted, corruption of header and payload. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "nic_test.h"

TestSuite(faults, .fini = lct_fini, .timeout = 60);

/* Set the faults of the test's segment from spec (before anyone attaches). */
static void set_faults(const char *spec)
{
	struct lc_fault_cfg cfg;
	char err[256] = "";

	cr_assert_eq(lc_faults_parse(spec, &cfg, err, sizeof(err)), 0, "%s: %s", spec, err);
	cr_assert_eq(lc_seg_set_faults(lct_name, &cfg), 0);
}

static uint64_t fault_count(struct lc_nic *nic, uint32_t dst, enum lc_fault f)
{
	return atomic_load_explicit(&nic->fault_stats[(size_t)dst * LC_FAULT_COUNT + f], memory_order_relaxed);
}

/* What node 1 saw of a run: per received frame its seq and whether it was intact. */
struct trace {
	uint32_t n;                 /* frames delivered to the host */
	uint32_t bad;               /* dropped by the receiving NIC (damaged header) */
	uint32_t damaged;           /* delivered with a header field or a payload byte changed */
	uint32_t dups;              /* delivered a second time */
	uint32_t late;              /* delivered after a frame sent later */
	uint64_t sum;               /* order-free digest of (seq, intact) of the delivered frames */
	uint64_t faults[LC_FAULT_COUNT];
};

static int intact(const struct lc_frame_hdr *h, uint32_t len)
{
	const uint8_t *p = (const uint8_t *)(h + 1);

	if (h->magic != LC_FRAME_MAGIC || h->src != 0 || h->dst != 1 || h->len != len || h->off || h->flags)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != lct_byte(0, h->seq, i))
			return 0;
	return 1;
}

/* Frame i of a run is (seq i, len_of(i) bytes): mostly small, some full. */
static uint32_t len_of(uint32_t i, uint32_t mtu)
{
	return i % 17 == 0 ? mtu : (i * 37u) % 200u;
}

/*
 * How a run is paced: every nap-th round the thread sleeps past
 * LC_FAULT_HOLD_NS (a held frame's wait runs out), and node 1 drains its
 * Receive Ring only every drain-th round (it fills).  0: never.
 */
struct pace {
	uint32_t nap, drain;
};

/*
 * Send frames 0 .. n-1 from node 0 to node 1 under spec (as fast as the Send
 * Ring takes them; one thread steps both NICs) and receive everything that
 * arrives.  The run ends when every frame that reached node 1's Receive Ring
 * (n - drops + dups) was delivered or dropped there as bad.
 */
static struct trace run_paced(const char *tag, const char *spec, uint32_t n, struct pace pace)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1000 });
	struct trace t = { 0 };
	uint8_t *seen = calloc(n, 1), buf[1000];
	uint64_t deadline = lc_nic_now_ns() + 30ull * 1000000000ull;
	uint32_t sent = 0, maxseq = 0, round = 0;
	struct lc_nic *r;

	cr_assert_not_null(seen);
	lct_create(&g, tag);
	set_faults(spec);
	lct_attach(&g, 0);
	r = lct_attach(&g, 1);
	for (;;) {
		struct lc_frame_hdr *h;
		uint64_t arrived;

		while (sent < n && lct_send(lct_nic[0], 1, sent, len_of(sent, g.mtu), 0, buf, NULL) == 0)
			sent++;
		round++;
		if (pace.nap && round % pace.nap == 0)
			usleep(2 * LC_FAULT_HOLD_NS / 1000);
		lct_step_all();
		while ((!pace.drain || round % pace.drain == 0) && (h = lc_nic_rx_peek(r))) {
			int ok = intact(h, h->seq < n ? len_of(h->seq, g.mtu) : ~0u);

			t.n++;
			if (!ok) {
				t.damaged++;
			} else {
				if (seen[h->seq])
					t.dups++;
				else if (h->seq < maxseq)
					t.late++;
				seen[h->seq] = 1;
				if (h->seq > maxseq)
					maxseq = h->seq;
			}
			t.sum += (uint64_t)(h->seq * 2654435761u + (uint32_t)ok) * 0x9e3779b97f4a7c15ull;
			lc_nic_rx_release(r);
		}
		for (int f = 0; f < LC_FAULT_COUNT; f++)
			t.faults[f] = fault_count(lct_nic[0], 1, (enum lc_fault)f);
		/* a damaged frame is dropped as bad, or, when its type byte now reads RDMA, refused */
		t.bad = (uint32_t)(lct_stat(r, LC_NIC_STAT_nic_drops_bad) + lct_stat(r, LC_NIC_STAT_rdma_denied));
		arrived = (uint64_t)t.n + t.bad;
		if (sent == n && arrived == n - t.faults[LC_FAULT_drop] + t.faults[LC_FAULT_dup])
			break;
		cr_assert_lt(lc_nic_now_ns(), deadline, "run %s stalled: sent %u, arrived %lu", spec, sent,
			     (unsigned long)arrived);
	}
	free(seen);
	lct_fini();
	return t;
}

static struct trace run(const char *tag, const char *spec, uint32_t n)
{
	return run_paced(tag, spec, n, (struct pace){ 0 });
}

/* The faults two runs drew, and what node 1 received, are the same (but for the order). */
static void expect_same(const struct trace *t1, const struct trace *t2)
{
	for (int f = 0; f < LC_FAULT_COUNT; f++)
		cr_expect_eq(t1->faults[f], t2->faults[f], "%s: %lu vs %lu", lc_fault_name(f),
			     (unsigned long)t1->faults[f], (unsigned long)t2->faults[f]);
	cr_expect_eq(t1->n, t2->n);
	cr_expect_eq(t1->bad, t2->bad);
	cr_expect_eq(t1->damaged, t2->damaged);
	cr_expect_eq(t1->dups, t2->dups);
	cr_expect_eq(t1->sum, t2->sum, "the same frames delivered, the same ones damaged");
}

Test(faults, parse)
{
	struct lc_fault_cfg c;
	char err[256];

	cr_assert_eq(lc_faults_parse("drop=0.05,corrupt=0.01,dup=0.01,reorder=0.02,delay_us=50,seed=7", &c,
				     err, sizeof(err)), 0, "%s", err);
	cr_expect(c.on);
	cr_expect_eq(c.seed, 7);
	cr_expect_eq(c.delay_us, 50);
	cr_expect_eq(c.p32[LC_FAULT_drop], (uint64_t)(0.05 * 4294967296.0));
	cr_assert_eq(lc_faults_parse("drop=1", &c, err, sizeof(err)), 0);
	cr_expect_eq(c.p32[LC_FAULT_drop], 1ull << 32, "certain");
	cr_expect_eq(lc_faults_parse("drop=1.5", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_expect_eq(lc_faults_parse("drop=-0.1", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_expect_eq(lc_faults_parse("lose=0.1", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_expect_eq(lc_faults_parse("drop", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_assert_eq(lc_faults_parse("ber=1e-6", &c, err, sizeof(err)), 0, "%s", err);
	cr_expect(c.on, "a bit error rate alone is a fault");
	cr_expect_eq(c.ber, 1e-6);
	cr_expect_eq(lc_faults_parse("ber=1.5", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_expect_eq(lc_faults_parse("ber=-1e-6", &c, err, sizeof(err)), LC_ERR_INVAL);
	cr_expect_eq(lc_faults_parse("ber=x", &c, err, sizeof(err)), LC_ERR_INVAL);
}

/*
 * A bit error rate damages a frame of n bytes (header and payload) with
 * probability 1 - (1 - ber)^(8 n): the corrupt count of a run is the sum of
 * that over its frames (full ones are damaged about five times as often as
 * the run's small ones at this rate), within the binomial spread.
 */
Test(faults, bit_errors_damage_frames_by_their_length)
{
	const uint32_t n = 3000;
	const double ber = 1e-4;
	double want = 0, var = 0;
	struct trace t = run("ber", "ber=1e-4,seed=5", n);

	for (uint32_t i = 0; i < n; i++) {
		double keep = 1.0;

		for (uint32_t b = 0; b < 8u * ((uint32_t)sizeof(struct lc_frame_hdr) + len_of(i, 1000)); b++)
			keep *= 1.0 - ber;
		want += 1.0 - keep;
		var += (1.0 - keep) * keep;
	}
	/* within 4 standard deviations of the expected count (squared: the tests link no libm) */
	double dev = (double)t.faults[LC_FAULT_corrupt] - want;
	cr_expect(dev * dev < 16.0 * var + 1.0, "%lu frames damaged, expected %.1f (variance %.1f)",
		  (unsigned long)t.faults[LC_FAULT_corrupt], want, var);
	cr_expect_eq(t.faults[LC_FAULT_drop], 0);
	cr_expect_gt(t.damaged + t.bad, 0, "no damaged frame seen");
}

/* The same seed gives the same faults on the same frame sequence; another seed other faults. */
Test(faults, deterministic_for_a_seed)
{
	const char *a = "drop=0.05,corrupt=0.05,dup=0.05,reorder=0.05,seed=7";
	struct trace t1 = run("det1", a, 1500), t2 = run("det2", a, 1500);
	struct trace t3 = run("det3", "drop=0.05,corrupt=0.05,dup=0.05,reorder=0.05,seed=8", 1500);

	expect_same(&t1, &t2);
	cr_expect(t1.sum != t3.sum || t1.faults[LC_FAULT_drop] != t3.faults[LC_FAULT_drop] ||
		  t1.faults[LC_FAULT_corrupt] != t3.faults[LC_FAULT_corrupt], "seed 8 drew the same faults as seed 7");
}

/*
 * Nor do they depend on timing: a held frame whose wait runs out while the
 * sender naps, a receiver that lets its ring fill, change only the order
 * frames arrive in, never which faults a frame draws.
 */
Test(faults, deterministic_whatever_the_timing)
{
	const char *a = "drop=0.05,corrupt=0.05,dup=0.1,reorder=0.1,seed=11";
	struct trace t1 = run("time1", a, 1500);
	struct trace t2 = run_paced("time2", a, 1500, (struct pace){ .nap = 3, .drain = 4 });

	expect_same(&t1, &t2);
	cr_expect_gt(t2.late, 0, "nothing reordered");
}

/* Every kind is injected, counted on its link, and visible to the receiver. */
Test(faults, every_kind_counted)
{
	const uint32_t n = 2000;
	struct trace t = run("kinds", "drop=0.1,corrupt=0.1,dup=0.1,reorder=0.1,delay_us=20,seed=3", n);

	for (int f = 0; f < LC_FAULT_COUNT; f++)
		cr_expect_gt(t.faults[f], 0, "no %s fault in %u frames", lc_fault_name(f), n);
	/* about 10 % each: far from 0 and from all */
	cr_expect(t.faults[LC_FAULT_drop] > n / 20 && t.faults[LC_FAULT_drop] < n / 5);
	cr_expect_gt(t.dups, 0, "no frame delivered twice");
	cr_expect_gt(t.late, 0, "no frame delivered out of order");
	cr_expect_gt(t.damaged + t.bad, 0, "no damaged frame seen");
	cr_expect_leq(t.damaged + t.bad, t.faults[LC_FAULT_corrupt] * 2, "damage without a corrupt fault");
}

/*
 * Corruption: 1..3 bits flipped in the copy in the remote Receive Ring, in the
 * header as well as the payload.  The sender steps alone, so the test reads
 * the slot before node 1's NIC looks at it.
 */
Test(faults, corrupt_flips_header_and_payload_bits)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1000 });
	const uint32_t len = 64, frames = 400;
	uint32_t in_hdr = 0, in_payload = 0, unflipped = 0;
	uint8_t buf[64], sent[sizeof(struct lc_frame_hdr) + 64];
	struct lc_nic *s, *r;

	lct_create(&g, "corrupt");
	set_faults("corrupt=1,seed=11");
	s = lct_attach(&g, 0);
	r = lct_attach(&g, 1);
	for (uint32_t i = 0; i < frames; i++) {
		uint32_t rn = r->ctrl->net_recv.recv_next, flips = 0, fh = 0, fp = 0;
		const uint8_t *slot = lc_recv_slot(r->sram, &g, rn);
		struct lc_frame_hdr *h;

		cr_assert_eq(lct_send(s, 1, i, len, 0, buf, NULL), 0);
		h = (struct lc_frame_hdr *)(void *)sent;
		memset(h, 0, sizeof(*h));
		h->magic = LC_FRAME_MAGIC;
		h->src = 0;
		h->dst = 1;
		h->len = len;
		h->seq = i;
		memcpy(sent + sizeof(*h), buf, len);
		while (atomic_load(&r->ctrl->recv_head.v) == rn)
			lc_nic_step(s);
		cr_assert_eq(lc_recv_wire(r->sram, &g, rn), (int64_t)sizeof(sent), "the wire count is never damaged");
		for (uint32_t b = 0; b < sizeof(sent); b++) {
			uint32_t d = (uint32_t)__builtin_popcount((unsigned)(slot[b] ^ sent[b]));

			flips += d;
			if (b < sizeof(*h))
				fh += d;
			else
				fp += d;
		}
		/* two draws may hit the same bit and cancel: at most 3, rarely 0 */
		cr_assert_leq(flips, 3, "frame %u: %u bits flipped", i, flips);
		unflipped += flips == 0;
		in_hdr += fh != 0;
		in_payload += fp != 0;
		/* node 1 drops it (header) or delivers it damaged; either way the ring drains */
		lc_nic_step(r);
		lct_settle();
		while (lc_nic_rx_peek(r))
			lc_nic_rx_release(r);
	}
	cr_expect_eq(fault_count(s, 1, LC_FAULT_corrupt), frames);
	cr_expect_leq(unflipped, frames / 50, "%u of %u frames left intact by corrupt=1", unflipped, frames);
	cr_expect_gt(in_hdr, 0, "never a header bit");
	cr_expect_gt(in_payload, 0, "never a payload bit");
	cr_expect_gt(lct_stat(r, LC_NIC_STAT_nic_drops_bad), 0, "no damaged header caught by the NIC");
	cr_expect_eq(fault_count(s, 1, LC_FAULT_drop) + fault_count(s, 1, LC_FAULT_dup), 0);
}
