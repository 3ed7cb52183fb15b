/* SPDX-License-Identifier: MIT */
/* msgrate: osu_mbw_mr-style message rate from node 0 to node 1, or of every pair of a larger run (window of 64 small messages), every message checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#define LC_EX_PROG "msgrate"
#include "lc_ex_common.h"

/*
 * Usage: commrun -n N msgrate [-s min:max] [-i windows] [-w warmup] [--window W] [--pairs K]
 *                             [--phases]
 *
 * For each size node 0 posts W isends (W = 64 by default) and waits for
 * them; node 1 posted W irecvs, waits for them and answers with a 1-byte
 * ack that ends the window.  Message rate = messages / time (the pair rate
 * of osu_mbw_mr with one pair).  Sizes are meant to be small (default 0 to
 * 8 KiB), so every message is the whole pattern of its sequence number,
 * filled by the sender and checked byte for byte by the receiver, as in
 * pingpong.  Exit status 1 on any mismatch.  With N > 2 nodes every pair
 * (0,1), (2,3), ... streams at once (the first K with --pairs K, the other
 * nodes idle), and node 0 prints the sum of the pairs' rates (osu_mbw_mr's
 * aggregate).  --phases: each node of a pair also prints, per size, where
 * its windows' time went (lc_ex_phase: posting, waiting, the rest), in ns a
 * message; the MPI twin prints the same.
 */

static const char lc_mr_usage[] =
	"usage: commrun -n N msgrate [-s min:max] [-i windows] [-w warmup] [--window W] [--pairs K]\n"
	"                            [--phases]\n"
	"  sizes take K/M suffixes; default -s 0:8K -i 200 -w 20 --window 64, every pair of the run;\n"
	"  --phases: per size and node, ns a message spent posting, waiting and in the rest\n";

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 8u << 10, .iters = 200, .warmup = 20, .window = 64 };
	int rc = lc_ex_options(argc, argv, LC_EX_OPT_WINDOW | LC_EX_OPT_PAIRS | LC_EX_OPT_PHASES, &o, lc_mr_usage);
	if (rc != 0)
		return rc;
	unsigned window = o.window;

	lc_node *node;
	int peer;
	if (!lc_ex_open_pair(&node, o.pairs, &peer, &rc))
		return rc;
	int me = lc_rank(node), first = !(me & 1);
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *bufs = malloc(slot * window);
	lc_req **req = calloc(window, sizeof *req);
	struct lc_status *sts = calloc(window, sizeof *sts);
	if (!bufs || !req || !sts) {
		fprintf(stderr, "msgrate: out of memory for %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0)
		lc_ex_header(window, "", "Bandwidth (MB/s)  Messages/s");

	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		struct lc_ex_phases ph = { 0 };
		double t0 = 0;
		for (unsigned w = 0; w < o.warmup + o.iters; w++) {
			unsigned char ack = 0;
			int timed = w >= o.warmup;
			if (w == o.warmup)
				t0 = lc_ex_now_s();
			if (o.phases)
				lc_ex_phase(&ph, 0, w == o.warmup ? t0 : lc_ex_now_s(), timed);
			if (first) {
				for (unsigned j = 0; j < window; j++) {
					unsigned char *b = bufs + j * slot;
					lc_ex_fill(b, size, lc_ex_seed(size, (uint64_t)w * window + j));
					if ((rc = lc_isend(node, peer, b, size, &req[j])) != 0)
						return lc_ex_fail(node, "isend", rc);
				}
				if (o.phases)
					lc_ex_phase(&ph, 1, lc_ex_now_s(), timed);
				if ((rc = lc_ex_wait_all(node, req, window, "wait (send)")) != 0)
					return rc;
				if (o.phases)
					lc_ex_phase(&ph, 2, lc_ex_now_s(), timed);
				if ((rc = lc_recv(node, peer, &ack, 1, NULL)) != 0)
					return lc_ex_fail(node, "recv (ack)", rc);
			} else {
				if ((rc = lc_ex_post_recvs(node, peer, bufs, slot, size, window, req)) != 0)
					return rc;
				if (o.phases)
					lc_ex_phase(&ph, 1, lc_ex_now_s(), timed);
				/* one wait for the window, then every message checked (osu_mbw_mr's MPI_Waitall) */
				if ((rc = lc_waitall(node, (int)window, req, sts)) != 0)
					return lc_ex_fail(node, "wait (recv)", rc);
				if (o.phases)
					lc_ex_phase(&ph, 2, lc_ex_now_s(), timed);
				for (unsigned j = 0; j < window; j++) {
					uint64_t seed = lc_ex_seed(size, (uint64_t)w * window + j);
					if (sts[j].len != size ||
					    lc_ex_check(bufs + j * slot, size, seed) != size) {
						fprintf(stderr, "msgrate: node %d: size %zu window %u message %u: "
								"wrong payload (%zu bytes)\n", me, size, w, j, sts[j].len);
						return 1;
					}
				}
				if ((rc = lc_send(node, peer, &ack, 1)) != 0)
					return lc_ex_fail(node, "send (ack)", rc);
			}
		}
		double t1 = lc_ex_now_s(), dt = t1 - t0, rate;
		if (o.phases) {
			lc_ex_phase(&ph, 0, t1, 0);
			lc_ex_phases_print(&ph, size, window, me, first ? "sender" : "receiver");
		}
		if ((rc = lc_ex_pair_sum(node, o.pairs, (double)o.iters * window / dt, &rate)) != 0)
			return rc;
		if (me == 0)
			lc_ex_row_rate(size, rate, 1.0);
	}
	free(bufs);
	free(req);
	free(sts);
	return lc_ex_close(node);
}
