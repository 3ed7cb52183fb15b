/* SPDX-License-Identifier: MIT */
/* Node program: all-to-all, every node sends R messages of mixed sizes to every other node. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: alltoall [R]   (R rounds, default 4)
 * The exchanges (round r, shift k = 1..n-1: send to me+k, receive from me-k)
 * are run in batches as large as the request pool allows (host.max_requests):
 * a batch posts its irecvs, then its isends, then waits for all of them, so
 * every node talks to every other at once.  Receives name their source, so
 * round r from s must land in the r-th receive from s (ordering per pair).
 * Sizes cycle through the boundaries of the config.
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
	if (rounds < 1 || n < 2)
		lc_tp_fail("bad round count or a single node");
	size_t cap = 3 * (size_t)LC_MTU + 7;
	size_t ops = (size_t)rounds * (size_t)(n - 1);
	size_t batch = LC_HOST_MAX_REQUESTS / 2 > 1 ? LC_HOST_MAX_REQUESTS / 2 - 1 : 1;
	if (batch > ops)
		batch = ops;
	unsigned char *sb = lc_tp_alloc(batch * cap), *rb = lc_tp_alloc(batch * cap);
	lc_req **sr = calloc(batch, sizeof *sr), **rr = calloc(batch, sizeof *rr);
	if (!sr || !rr)
		lc_tp_fail("out of memory");

	unsigned got = 0;
	for (size_t o0 = 0; o0 < ops; o0 += batch) {
		size_t nb = ops - o0 < batch ? ops - o0 : batch;
		for (size_t j = 0; j < nb; j++) {
			int r = (int)((o0 + j) / (size_t)(n - 1)), k = (int)((o0 + j) % (size_t)(n - 1)) + 1;
			LC_TP_OK(node, lc_irecv(node, (me + n - k) % n, rb + j * cap, cap, &rr[j]));
			(void)r;
		}
		for (size_t j = 0; j < nb; j++) {
			int r = (int)((o0 + j) / (size_t)(n - 1)), k = (int)((o0 + j) % (size_t)(n - 1)) + 1;
			int dst = (me + k) % n;
			size_t len = lc_tp_a2a_size(me, dst, r);
			lc_ex_fill(sb + j * cap, len, lc_tp_a2a_seed(me, dst, r));
			LC_TP_OK(node, lc_isend(node, dst, sb + j * cap, len, &sr[j]));
		}
		for (size_t j = 0; j < nb; j++) {
			int r = (int)((o0 + j) / (size_t)(n - 1)), k = (int)((o0 + j) % (size_t)(n - 1)) + 1;
			int src = (me + n - k) % n;
			struct lc_status st;
			char what[64];
			LC_TP_OK(node, lc_wait(node, rr[j], &st));
			LC_TP_OK(node, lc_wait(node, sr[j], NULL));
			snprintf(what, sizeof what, "round %d from node %d", r, src);
			lc_tp_expect(rb + j * cap, &st, src, lc_tp_a2a_size(src, me, r),
				     lc_tp_a2a_seed(src, me, r), what);
			got++;
		}
	}
	printf("alltoall ok: node %d received %u messages\n", me, got);
	free(sb);
	free(rb);
	free(sr);
	free(rr);
	LC_TP_OK(node, lc_close(node));
	return 0;
}
