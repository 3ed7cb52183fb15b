/* SPDX-License-Identifier: MIT */
/* bibw: osu_bibw-style bidirectional bandwidth between nodes 0 and 1, every message stamped and checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LC_EX_PROG "bibw"
#include "lc_ex_common.h"

/*
 * Usage: commrun -n 2 bibw [-s min:max] [-i windows] [-w warmup] [--window W]
 *                         [--work-us U]
 *
 * For each size both nodes post W irecvs and W isends (W = 64 by default)
 * and wait for all of them; repeated for the warm-up and the timed windows.
 * Bandwidth = bytes moved in both directions / time, as osu_bibw reports it.
 *
 * Checking: every slot's payload is the pattern lc_ex_fill(seed(size, slot))
 * filled once per size; each message carries its sequence number in its
 * first and last 4 bytes (messages of 8 bytes or more), which the receiver
 * checks on every message and then wipes, so a lost, stale, duplicated or
 * misplaced message is seen; messages under 8 bytes are checked whole on
 * every message; the whole payload of every message of the last window is
 * checked against the pattern.  Exit status 1 on any mismatch.
 *
 * Progress while computing: with the inline MCP (the default) a node's NIC
 * runs only inside library calls, so a node that computes longer than
 * backpressure_timeout_us without one leaves its Receive Ring full and the
 * peer's NIC drops the frame it holds (LC_ERR_LOST).  Filling W buffers of
 * 4 MiB (256 MiB, first touch included) takes that long on a loaded machine,
 * so every local phase here (fills, whole checks, --work-us) calls
 * lc_progress between slots.  --work-us U: node 1 also works U microseconds
 * (in 1 ms slices) before each size, so the peer's first window of the size
 * meets a busy node: the regression case of tests/pipeline.
 */

/* Seed of the pattern of slot j of the node `from` for this size. */
static uint64_t lc_bw_seed(size_t size, int from, unsigned j)
{
	return lc_ex_seed(size, ((uint64_t)from << 32) | j);
}

/*
 * 0 when message j of window w (sent by `from`) is right, then its stamps
 * are wiped.  whole: compare every byte with ref (scratch of size bytes).
 */
static int lc_bw_check(unsigned char *b, size_t got, size_t size, int from, unsigned j,
		       uint32_t seq, int whole, unsigned char *ref)
{
	if (got != size)
		return -1;
	if (whole && size >= 8) {
		lc_ex_fill(ref, size, lc_bw_seed(size, from, j));
		lc_ex_stamp(ref, size, seq);
		if (memcmp(ref, b, size) != 0)
			return -1;
	}
	return lc_ex_marked(b, size, seq) ? 0 : -1;
}

/* Fill the window's send buffers for this size, progressing between slots. */
static void lc_bw_fill(lc_node *node, unsigned char *sbufs, size_t slot, unsigned window,
		       size_t size, int me)
{
	for (unsigned j = 0; j < window; j++) {
		lc_ex_fill(sbufs + j * slot, size, lc_bw_seed(size, me, j));
		lc_progress(node);
	}
}

/* Local work of us microseconds in 1 ms slices, progressing between slices. */
static void lc_bw_work(lc_node *node, unsigned long us)
{
	double end = lc_ex_now_s() + (double)us / 1e6;
	struct timespec slice = { 0, 1000000L };

	while (lc_ex_now_s() < end) {
		nanosleep(&slice, NULL);
		lc_progress(node);
	}
}

static const char lc_bw_usage[] =
	"usage: commrun -n 2 bibw [-s min:max] [-i windows] [-w warmup] [--window W] [--work-us U]\n"
	"  sizes take K/M suffixes; default -s 1:4M -i 100 -w 10 --window 64\n";

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 1, .hi = 4u << 20, .iters = 100, .warmup = 10, .window = 64 };
	int rc = lc_ex_options(argc, argv, LC_EX_OPT_WINDOW | LC_EX_OPT_WORK, &o, lc_bw_usage);
	if (rc != 0)
		return rc;
	size_t lo = o.lo, hi = o.hi;
	unsigned iters = o.iters, warmup = o.warmup, window = o.window;

	lc_node *node;
	if ((rc = lc_ex_open(&node, 1)) != 0)
		return rc;
	int me = lc_rank(node);
	int peer = 1 - me;
	size_t slot = hi ? hi : 1;
	unsigned char *sbufs = malloc(slot * window), *rbufs = malloc(slot * window);
	unsigned char *ref = malloc(slot);
	lc_req **sreq = calloc(window, sizeof *sreq), **rreq = calloc(window, sizeof *rreq);
	if (!sbufs || !rbufs || !ref || !sreq || !rreq) {
		fprintf(stderr, "bibw: out of memory for 2 x %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0)
		lc_ex_header(window, "", "Bandwidth (MB/s)");

	for (size_t size = lo; size <= hi; size = lc_ex_sweep_next(size, lo, hi)) {
		/* fewer windows as messages grow (as stream): at 4 MiB a window moves 512 MiB */
		unsigned w_warm, w_timed = lc_ex_rounds(iters, warmup, size, 2, 1, &w_warm);
		unsigned w_all = w_warm + w_timed;
		double t0 = 0;

		lc_bw_fill(node, sbufs, slot, window, size, me);
		if (me == 1 && o.work_us)
			lc_bw_work(node, o.work_us);
		for (unsigned w = 0; w < w_all; w++) {
			if (w == w_warm)
				t0 = lc_ex_now_s();
			if ((rc = lc_ex_post_recvs(node, peer, rbufs, slot, size, window, rreq)) != 0)
				return rc;
			for (unsigned j = 0; j < window; j++) {
				unsigned char *b = sbufs + j * slot;
				lc_ex_mark(b, size, w * window + j);
				if ((rc = lc_isend(node, peer, b, size, &sreq[j])) != 0)
					return lc_ex_fail(node, "isend", rc);
			}
			for (unsigned j = 0; j < window; j++) {
				struct lc_status st;
				if ((rc = lc_wait(node, rreq[j], &st)) != 0)
					return lc_ex_fail(node, "wait (recv)", rc);
				if (lc_bw_check(rbufs + j * slot, st.len, size, peer, j, w * window + j,
						w + 1 == w_all, ref) != 0) {
					fprintf(stderr, "bibw: node %d: size %zu window %u message %u: "
							"wrong payload (%zu bytes)\n", me, size, w, j, st.len);
					return 1;
				}
				if (w + 1 == w_all)
					lc_progress(node);   /* the whole check was local work */
			}
			if ((rc = lc_ex_wait_all(node, sreq, window, "wait (send)")) != 0)
				return rc;
		}
		double dt = lc_ex_now_s() - t0;
		if (me == 0)
			lc_ex_row(size, 2.0 * (double)size * (double)w_timed * window / dt / 1e6);
	}
	free(sbufs);
	free(rbufs);
	free(ref);
	free(sreq);
	free(rreq);
	return lc_ex_close(node);
}
