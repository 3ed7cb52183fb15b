/* SPDX-License-Identifier: MIT */
/* Node program: all-to-all, every node sends R messages of mixed sizes to every other node. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: alltoall [R]   (R rounds, default 4)
 * Each node posts an irecv per (source, round), then an isend per
 * (destination, round), then waits for everything.  Receives name their
 * source, so round r from s must land in the r-th receive from s (ordering
 * per pair).  Sizes cycle through the boundaries of the config.
 * Prints "alltoall ok: node <i> received <k> messages".
 */
static size_t lc_tp_a2a_size(int src, int dst, int r)
{
	const long mtu = LC_MTU, pio = LC_PIO_THRESHOLD;
	const long s[] = { 0, 1, pio + 1, mtu - 1, mtu + 1, 3 * mtu + 7 };
	long v = s[(size_t)(src * 7 + dst * 3 + r) % (sizeof s / sizeof s[0])];
	return v < 0 ? 0 : (size_t)v;
}

static uint64_t lc_tp_a2a_seed(int src, int dst, int r)
{
	return lc_ex_seed((uint64_t)src << 20 | (uint64_t)dst << 8, (uint64_t)r);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	if (rounds < 1)
		lc_tp_fail("bad round count");
	size_t cap = 3 * (size_t)LC_MTU + 7;
	size_t m = (size_t)n * (size_t)rounds;
	unsigned char *sb = lc_tp_alloc(m * cap), *rb = lc_tp_alloc(m * cap);
	lc_req **sr = calloc(m, sizeof *sr), **rr = calloc(m, sizeof *rr);
	if (!sr || !rr)
		lc_tp_fail("out of memory");

	for (int r = 0; r < rounds; r++)
		for (int p = 0; p < n; p++)
			if (p != me)
				LC_TP_OK(node, lc_irecv(node, p, rb + ((size_t)p * rounds + r) * cap, cap,
							&rr[(size_t)p * rounds + r]));
	for (int r = 0; r < rounds; r++)
		for (int p = 0; p < n; p++) {
			if (p == me)
				continue;
			unsigned char *b = sb + ((size_t)p * rounds + r) * cap;
			size_t len = lc_tp_a2a_size(me, p, r);
			lc_ex_fill(b, len, lc_tp_a2a_seed(me, p, r));
			LC_TP_OK(node, lc_isend(node, p, b, len, &sr[(size_t)p * rounds + r]));
		}
	unsigned got = 0;
	for (int p = 0; p < n; p++)
		for (int r = 0; r < rounds && p != me; r++) {
			size_t i = (size_t)p * rounds + r;
			struct lc_status st;
			char what[64];
			LC_TP_OK(node, lc_wait(node, rr[i], &st));
			LC_TP_OK(node, lc_wait(node, sr[i], NULL));
			snprintf(what, sizeof what, "round %d from node %d", r, p);
			lc_tp_expect(rb + i * cap, &st, p, lc_tp_a2a_size(p, me, r),
				     lc_tp_a2a_seed(p, me, r), what);
			got++;
		}
	printf("alltoall ok: node %d received %u messages\n", me, got);
	LC_TP_OK(node, lc_close(node));
	return 0;
}
