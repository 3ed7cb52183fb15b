/* SPDX-License-Identifier: MIT */
/* Node program for the flow_control tests: a sleeping receiver, incast, traffic both ways. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: fc_traffic MODE K [NAP_MS NAPS]
 *   sleepy  node 0 sends K messages to node 1, which sleeps NAPS times NAP_MS
 *           spread over its receives;
 *   incast  every other node sends K messages to node 0 (receives from any
 *           source, per-source order checked), which naps as above;
 *   bidir   every node sends K messages to every other node while receiving
 *           theirs, 8 outstanding each way per peer.
 * Sizes are random (seeded per message) from 0 to 3 MTU + 1, so messages of
 * one to four frames mix.  Every message is checked (size, source, pattern)
 * and per-source order holds.  Each node ends with
 *   "fc counters: node <i> bp_stalls <a> bp_drops <b>"
 * and the receiver(s) with "fc_traffic ok: ...".
 */
static size_t fc_len(int src, int dst, unsigned i)
{
	uint64_t s = lc_ex_seed((uint64_t)src * 65537u + (uint64_t)dst, i) | 1;

	return (size_t)(lc_tp_rand(&s) % (3 * (uint64_t)LC_MTU + 2));
}

static uint64_t fc_seed(int src, int dst, unsigned i, size_t len)
{
	return lc_ex_seed(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ i, len);
}

static void fc_nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static void fc_counters(lc_node *node, int me)
{
	uint64_t c[LC_STAT_COUNT];

	LC_TP_OK(node, lc_stats(node, c));
	printf("fc counters: node %d bp_stalls %llu bp_drops %llu\n", me,
	       (unsigned long long)c[LC_STAT_bp_stalls], (unsigned long long)c[LC_STAT_bp_drops]);
}

static void fc_send(lc_node *node, unsigned char *b, int me, int dst, unsigned i)
{
	size_t len = fc_len(me, dst, i);

	lc_ex_fill(b, len, fc_seed(me, dst, i, len));
	LC_TP_OK(node, lc_send(node, dst, b, len));
}

/* Receive K messages from each of the sources in want (from any source), napping as asked. */
static void fc_sink(lc_node *node, int me, int n, unsigned k, long nap_ms, unsigned naps)
{
	unsigned char *b = lc_tp_alloc(3 * (size_t)LC_MTU + 1);
	unsigned *next = calloc((size_t)n, sizeof(unsigned));
	unsigned total = (n - 1) * k, every = naps ? total / naps : 0, napped = 0;

	if (!next)
		lc_tp_fail("out of memory");
	for (unsigned j = 0; j < total; j++) {
		struct lc_status st;
		char what[64];

		if (every && j % every == 0 && napped < naps) {
			fc_nap(nap_ms);
			napped++;
		}
		LC_TP_OK(node, lc_recv(node, LC_ANY_SOURCE, b, 3 * (size_t)LC_MTU + 1, &st));
		if (st.src < 0 || st.src >= n || st.src == me || next[st.src] >= k)
			lc_tp_fail("message %u from unexpected source %d", j, st.src);
		unsigned i = next[st.src]++;
		size_t len = fc_len(st.src, me, i);
		snprintf(what, sizeof what, "message %u from %d", i, st.src);
		lc_tp_expect(b, &st, st.src, len, fc_seed(st.src, me, i, len), what);
	}
	for (int s = 0; s < n; s++)
		if (s != me)
			LC_TP_OK(node, lc_send(node, s, NULL, 0));
	printf("fc_traffic ok: node %d received %u messages from %d nodes in order, %u naps of %ld ms\n",
	       me, total, n - 1, napped, nap_ms);
	free(next);
	free(b);
}

#define FC_WIN 8

static void fc_bidir(lc_node *node, int me, int n, unsigned k)
{
	size_t cap = 3 * (size_t)LC_MTU + 1;
	unsigned peers = (unsigned)n - 1, w;
	unsigned char *sb = lc_tp_alloc(cap * FC_WIN * peers), *rb = lc_tp_alloc(cap * FC_WIN * peers);
	lc_req **sr = calloc(FC_WIN * peers, sizeof(*sr)), **rr = calloc(FC_WIN * peers, sizeof(*rr));

	if (!sr || !rr)
		lc_tp_fail("out of memory");
	for (unsigned i0 = 0; i0 < k; i0 += FC_WIN) {
		unsigned m = k - i0 < FC_WIN ? k - i0 : FC_WIN, p = 0;

		for (int q = 0; q < n; q++) {
			if (q == me)
				continue;
			for (w = 0; w < m; w++) {
				unsigned x = p * FC_WIN + w, i = i0 + w;
				size_t len = fc_len(me, q, i);

				LC_TP_OK(node, lc_irecv(node, q, rb + x * cap, cap, &rr[x]));
				lc_ex_fill(sb + x * cap, len, fc_seed(me, q, i, len));
				LC_TP_OK(node, lc_isend(node, q, sb + x * cap, len, &sr[x]));
			}
			p++;
		}
		p = 0;
		for (int q = 0; q < n; q++) {
			if (q == me)
				continue;
			for (w = 0; w < m; w++) {
				unsigned x = p * FC_WIN + w, i = i0 + w;
				struct lc_status st;
				char what[64];
				size_t len = fc_len(q, me, i);

				LC_TP_OK(node, lc_wait(node, sr[x], NULL));
				LC_TP_OK(node, lc_wait(node, rr[x], &st));
				snprintf(what, sizeof what, "message %u from %d", i, q);
				lc_tp_expect(rb + x * cap, &st, q, len, fc_seed(q, me, i, len), what);
			}
			p++;
		}
	}
	printf("fc_traffic ok: node %d exchanged %u messages each way with %u peers\n", me, k, peers);
	free(sr);
	free(rr);
	free(sb);
	free(rb);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sleepy";
	unsigned k = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	long nap_ms = argc > 3 ? atol(argv[3]) : 0;
	unsigned naps = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	unsigned char *b = lc_tp_alloc(3 * (size_t)LC_MTU + 1);

	if (n < 2)
		lc_tp_fail("needs at least 2 nodes");
	if (!strcmp(mode, "sleepy") || !strcmp(mode, "incast")) {
		int sink = !strcmp(mode, "sleepy") ? 1 : 0;

		if (!strcmp(mode, "sleepy") && n != 2)
			lc_tp_fail("sleepy runs on 2 nodes");
		if (me == sink) {
			fc_sink(node, me, n, k, nap_ms, naps);
		} else {
			struct lc_status st;

			for (unsigned i = 0; i < k; i++)
				fc_send(node, b, me, sink, i);
			LC_TP_OK(node, lc_recv(node, sink, NULL, 0, &st));
		}
	} else if (!strcmp(mode, "bidir")) {
		fc_bidir(node, me, n, k);
	} else {
		lc_tp_fail("unknown mode %s", mode);
	}
	fc_counters(node, me);
	LC_TP_OK(node, lc_close(node));
	free(b);
	return 0;
}
