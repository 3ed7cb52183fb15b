/* SPDX-License-Identifier: MIT */
/* pingpong: OSU-style latency between nodes 0 and 1 (or between the pairs of a larger run), payload verified on every iteration. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#define LC_EX_PROG "pingpong"
#include "lc_ex_common.h"

/*
 * Usage: commrun -n N pingpong [-s min:max] [-i iters] [-w warmup] [--pairs K]
 * Node 0 sends a message of each size, node 1 checks it and sends it back,
 * node 0 checks the echo.  With N > 2 nodes the pairs (0,1), (2,3), ... do
 * the same at once (the first K pairs with --pairs K, the other nodes idle)
 * and node 0 prints the mean of the pairs' latencies.  The payload of iteration it of size n is
 * lc_ex_fill(seed(n, it)), so a stale or misplaced frame fails the check.
 * Latency = half the round trip, averaged over the timed iterations.
 * Iterations shrink above 8 KiB so that the big sizes do not take long.
 */

static const char lc_pp_usage[] =
	"usage: commrun -n N pingpong [-s min:max] [-i iters] [-w warmup] [--pairs K]\n"
	"  sizes take K/M suffixes; default -s 0:4M -i 1000 -w 100, every pair of the run\n";

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 4u << 20, .iters = 1000, .warmup = 100 };
	int rc = lc_ex_options(argc, argv, LC_EX_OPT_COUNTS | LC_EX_OPT_PAIRS, &o, lc_pp_usage);
	if (rc != 0)
		return rc;

	lc_node *node;
	int peer;
	if (!lc_ex_open_pair(&node, o.pairs, &peer, &rc))
		return rc;
	int me = lc_rank(node), first = !(me & 1);
	unsigned npairs = o.pairs ? o.pairs : (unsigned)lc_size(node) / 2;
	unsigned char *sbuf = malloc(o.hi ? o.hi : 1), *rbuf = malloc(o.hi ? o.hi : 1);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "pingpong: out of memory for %zu bytes\n", o.hi);
		return 1;
	}
	if (me == 0)
		lc_ex_header(0, "", "Latency (us)");

	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		struct lc_ex_lat l = lc_ex_lat(&o, size);
		for (unsigned it = 0; lc_ex_lat_more(&l, it); it++) {
			uint64_t seed = lc_ex_seed(size, it);
			struct lc_status st;
			if (first) {
				lc_ex_fill(sbuf, size, seed);
				if ((rc = lc_send(node, peer, sbuf, size)) != 0)
					return lc_ex_fail(node, "send", rc);
				if ((rc = lc_recv(node, peer, rbuf, size, &st)) != 0)
					return lc_ex_fail(node, "recv", rc);
			} else {
				if ((rc = lc_recv(node, peer, rbuf, size, &st)) != 0)
					return lc_ex_fail(node, "recv", rc);
			}
			if (lc_ex_expect(me, rbuf, st.len, size, seed, it) != 0)
				return 1;
			if (!first && (rc = lc_send(node, peer, rbuf, size)) != 0)
				return lc_ex_fail(node, "send", rc);
		}
		double us = (lc_ex_now_us() - l.t0) / (2.0 * l.timed), sum;
		if ((rc = lc_ex_pair_sum(node, o.pairs, us, &sum)) != 0)
			return rc;
		if (me == 0)
			lc_ex_row(size, sum / npairs);
	}
	free(sbuf);
	free(rbuf);
	return lc_ex_close(node);
}
