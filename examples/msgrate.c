/* SPDX-License-Identifier: MIT */
/* msgrate: osu_mbw_mr-style message rate from node 0 to node 1 (window of 64 small messages), every message checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_ex_pattern.h"

/*
 * Usage: commrun -n 2 msgrate [-s min:max] [-i windows] [-w warmup] [--window W]
 *
 * For each size node 0 posts W isends (W = 64 by default) and waits for
 * them; node 1 posted W irecvs, waits for them and answers with a 1-byte
 * ack that ends the window.  Message rate = messages / time (the pair rate
 * of osu_mbw_mr with one pair).  Sizes are meant to be small (default 0 to
 * 8 KiB), so every message is the whole pattern of its sequence number,
 * filled by the sender and checked byte for byte by the receiver, as in
 * pingpong.  Exit status 1 on any mismatch.
 */

static double lc_mr_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int lc_mr_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "msgrate: node %d: %s: %s (%s)\n", lc_rank(node), what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

static void lc_mr_usage(void)
{
	fprintf(stderr, "usage: commrun -n 2 msgrate [-s min:max] [-i windows] [-w warmup] "
			"[--window W]\n"
			"  sizes take K/M suffixes; default -s 0:8K -i 200 -w 20 --window 64\n");
}

int main(int argc, char **argv)
{
	size_t lo = 0, hi = 8u << 10;
	unsigned iters = 200, warmup = 20, window = 64;

	for (int a = 1; a < argc; a++) {
		char *end = NULL;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "msgrate: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
			window = (unsigned)strtoul(argv[++a], &end, 10);
		} else {
			lc_mr_usage();
			return 2;
		}
		if (end && (*end || iters == 0 || window == 0 || window > 4096)) {
			fprintf(stderr, "msgrate: bad number '%s'\n", argv[a]);
			return 2;
		}
	}

	lc_node *node;
	int rc = lc_open(&node);
	if (rc != 0) {
		fprintf(stderr, "msgrate: lc_open: %s\n", lc_strerror(rc));
		return 1;
	}
	int me = lc_rank(node), n = lc_size(node);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "msgrate: needs exactly 2 nodes (commrun -n 2), got %d\n", n);
		lc_close(node);
		return 2;
	}
	size_t slot = hi ? hi : 1;
	unsigned char *bufs = malloc(slot * window);
	lc_req **req = calloc(window, sizeof *req);
	if (!bufs || !req) {
		fprintf(stderr, "msgrate: out of memory for %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0) {
		printf("# libcomm msgrate (config %s, window %u)\n", lc_config_name(), window);
		printf("# Size  Bandwidth (MB/s)  Messages/s\n");
		fflush(stdout);
	}

	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		double t0 = 0;
		for (unsigned w = 0; w < warmup + iters; w++) {
			unsigned char ack = 0;
			if (w == warmup)
				t0 = lc_mr_now_s();
			if (me == 0) {
				for (unsigned j = 0; j < window; j++) {
					unsigned char *b = bufs + j * slot;
					lc_ex_fill(b, size, lc_ex_seed(size, (uint64_t)w * window + j));
					if ((rc = lc_isend(node, 1, b, size, &req[j])) != 0)
						return lc_mr_fail(node, "isend", rc);
				}
				for (unsigned j = 0; j < window; j++)
					if ((rc = lc_wait(node, req[j], NULL)) != 0)
						return lc_mr_fail(node, "wait (send)", rc);
				if ((rc = lc_recv(node, 1, &ack, 1, NULL)) != 0)
					return lc_mr_fail(node, "recv (ack)", rc);
			} else {
				for (unsigned j = 0; j < window; j++)
					if ((rc = lc_irecv(node, 0, bufs + j * slot, size, &req[j])) != 0)
						return lc_mr_fail(node, "irecv", rc);
				for (unsigned j = 0; j < window; j++) {
					struct lc_status st;
					uint64_t seed = lc_ex_seed(size, (uint64_t)w * window + j);
					if ((rc = lc_wait(node, req[j], &st)) != 0)
						return lc_mr_fail(node, "wait (recv)", rc);
					if (st.len != size ||
					    lc_ex_check(bufs + j * slot, size, seed) != size) {
						fprintf(stderr, "msgrate: node 1: size %zu window %u message %u: "
								"wrong payload (%zu bytes)\n", size, w, j, st.len);
						return 1;
					}
				}
				if ((rc = lc_send(node, 0, &ack, 1)) != 0)
					return lc_mr_fail(node, "send (ack)", rc);
			}
		}
		double dt = lc_mr_now_s() - t0;
		if (me == 0) {
			double msgs = (double)iters * window;
			printf("%-12zu%16.2f%14.0f\n", size, (double)size * msgs / dt / 1e6, msgs / dt);
			fflush(stdout);
		}
		if (size == hi)
			break;
	}
	free(bufs);
	free(req);
	rc = lc_close(node);
	if (rc != 0) {
		fprintf(stderr, "msgrate: lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return 0;
}
