/* SPDX-License-Identifier: MIT */
/* bibw: osu_bibw-style bidirectional bandwidth between nodes 0 and 1, every message stamped and checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_ex_pattern.h"

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

static double lc_bw_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned lc_bw_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

static int lc_bw_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "bibw: node %d: %s: %s (%s)\n", lc_rank(node), what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

/* Seed of the pattern of slot j of the node `from` for this size. */
static uint64_t lc_bw_seed(size_t size, int from, unsigned j)
{
	return lc_ex_seed(size, ((uint64_t)from << 32) | j);
}

static void lc_bw_stamp(unsigned char *b, size_t size, uint32_t seq)
{
	memcpy(b, &seq, 4);
	memcpy(b + size - 4, &seq, 4);
}

/*
 * 0 when message j of window w (sent by `from`) is right, then wipes its
 * stamps.  whole: compare every byte with ref (scratch of size bytes).
 */
static int lc_bw_check(unsigned char *b, size_t got, size_t size, int from, unsigned j,
		       uint32_t seq, int whole, unsigned char *ref)
{
	if (got != size)
		return -1;
	if (size < 8)
		return lc_ex_check(b, size, lc_ex_seed(size, seq)) == size ? 0 : -1;
	uint32_t a, z;
	memcpy(&a, b, 4);
	memcpy(&z, b + size - 4, 4);
	if (a != seq || z != seq)
		return -1;
	if (whole) {
		lc_ex_fill(ref, size, lc_bw_seed(size, from, j));
		lc_bw_stamp(ref, size, seq);
		if (memcmp(ref, b, size) != 0)
			return -1;
	}
	memset(b, 0, 4);
	memset(b + size - 4, 0, 4);
	return 0;
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
	double end = lc_bw_now_s() + (double)us / 1e6;
	struct timespec slice = { 0, 1000000L };

	while (lc_bw_now_s() < end) {
		nanosleep(&slice, NULL);
		lc_progress(node);
	}
}

static void lc_bw_usage(void)
{
	fprintf(stderr, "usage: commrun -n 2 bibw [-s min:max] [-i windows] [-w warmup] "
			"[--window W] [--work-us U]\n"
			"  sizes take K/M suffixes; default -s 1:4M -i 100 -w 10 --window 64\n");
}

int main(int argc, char **argv)
{
	size_t lo = 1, hi = 4u << 20;
	unsigned iters = 100, warmup = 10, window = 64;
	unsigned long work_us = 0;

	for (int a = 1; a < argc; a++) {
		char *end = NULL;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "bibw: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
			window = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--work-us") == 0 && a + 1 < argc) {
			work_us = strtoul(argv[++a], &end, 10);
		} else {
			lc_bw_usage();
			return 2;
		}
		if (end && (*end || iters == 0 || window == 0 || window > 4096)) {
			fprintf(stderr, "bibw: bad number '%s'\n", argv[a]);
			return 2;
		}
	}

	lc_node *node;
	int rc = lc_open(&node);
	if (rc != 0) {
		fprintf(stderr, "bibw: lc_open: %s\n", lc_strerror(rc));
		return 1;
	}
	int me = lc_rank(node), n = lc_size(node);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "bibw: needs exactly 2 nodes (commrun -n 2), got %d\n", n);
		lc_close(node);
		return 2;
	}
	int peer = 1 - me;
	size_t slot = hi ? hi : 1;
	unsigned char *sbufs = malloc(slot * window), *rbufs = malloc(slot * window);
	unsigned char *ref = malloc(slot);
	lc_req **sreq = calloc(window, sizeof *sreq), **rreq = calloc(window, sizeof *rreq);
	if (!sbufs || !rbufs || !ref || !sreq || !rreq) {
		fprintf(stderr, "bibw: out of memory for 2 x %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0) {
		printf("# libcomm bibw (config %s, window %u)\n", lc_config_name(), window);
		printf("# Size  Bandwidth (MB/s)\n");
		fflush(stdout);
	}

	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		/* fewer windows as messages grow (as stream): at 4 MiB a window moves 512 MiB */
		unsigned w_timed = lc_bw_scaled(iters, size, 2);
		unsigned w_warm = lc_bw_scaled(warmup, size, warmup ? 1 : 0);
		unsigned w_all = w_warm + w_timed;
		double t0 = 0;

		lc_bw_fill(node, sbufs, slot, window, size, me);
		if (me == 1 && work_us)
			lc_bw_work(node, work_us);
		for (unsigned w = 0; w < w_all; w++) {
			if (w == w_warm)
				t0 = lc_bw_now_s();
			for (unsigned j = 0; j < window; j++)
				if ((rc = lc_irecv(node, peer, rbufs + j * slot, size, &rreq[j])) != 0)
					return lc_bw_fail(node, "irecv", rc);
			for (unsigned j = 0; j < window; j++) {
				unsigned char *b = sbufs + j * slot;
				uint32_t seq = w * window + j;
				if (size >= 8)
					lc_bw_stamp(b, size, seq);
				else
					lc_ex_fill(b, size, lc_ex_seed(size, seq));
				if ((rc = lc_isend(node, peer, b, size, &sreq[j])) != 0)
					return lc_bw_fail(node, "isend", rc);
			}
			for (unsigned j = 0; j < window; j++) {
				struct lc_status st;
				if ((rc = lc_wait(node, rreq[j], &st)) != 0)
					return lc_bw_fail(node, "wait (recv)", rc);
				if (lc_bw_check(rbufs + j * slot, st.len, size, peer, j, w * window + j,
						w + 1 == w_all, ref) != 0) {
					fprintf(stderr, "bibw: node %d: size %zu window %u message %u: "
							"wrong payload (%zu bytes)\n", me, size, w, j, st.len);
					return 1;
				}
				if (w + 1 == w_all)
					lc_progress(node);   /* the whole check was local work */
			}
			for (unsigned j = 0; j < window; j++)
				if ((rc = lc_wait(node, sreq[j], NULL)) != 0)
					return lc_bw_fail(node, "wait (send)", rc);
		}
		double dt = lc_bw_now_s() - t0;
		if (me == 0) {
			double bytes = 2.0 * (double)size * (double)w_timed * window;
			printf("%-12zu%16.2f\n", size, bytes / dt / 1e6);
			fflush(stdout);
		}
		if (size == hi)
			break;
	}
	free(sbufs);
	free(rbufs);
	free(ref);
	free(sreq);
	free(rreq);
	rc = lc_close(node);
	if (rc != 0) {
		fprintf(stderr, "bibw: lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return 0;
}
