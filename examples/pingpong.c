/* SPDX-License-Identifier: MIT */
/* pingpong: OSU-style latency between nodes 0 and 1, payload verified on every iteration. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_ex_pattern.h"

/*
 * Usage: commrun -n 2 pingpong [-s min:max] [-i iters] [-w warmup]
 * Node 0 sends a message of each size, node 1 checks it and sends it back,
 * node 0 checks the echo.  The payload of iteration it of size n is
 * lc_ex_fill(seed(n, it)), so a stale or misplaced frame fails the check.
 * Latency = half the round trip, averaged over the timed iterations.
 * Iterations shrink above 8 KiB so that the big sizes do not take long.
 */

static double lc_pp_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static unsigned lc_pp_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

static int lc_pp_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "pingpong: node %d: %s: %s (%s)\n", lc_rank(node), what,
		lc_strerror(rc), lc_last_error(node));
	return 1;
}

static void lc_pp_usage(void)
{
	fprintf(stderr, "usage: commrun -n 2 pingpong [-s min:max] [-i iters] [-w warmup]\n"
			"  sizes take K/M suffixes; default -s 0:4M -i 1000 -w 100\n");
}

int main(int argc, char **argv)
{
	size_t lo = 0, hi = 4u << 20;
	unsigned iters = 1000, warmup = 100;

	for (int a = 1; a < argc; a++) {
		char *end;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "pingpong: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end || iters == 0) {
				fprintf(stderr, "pingpong: bad iteration count '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end) {
				fprintf(stderr, "pingpong: bad warm-up count '%s'\n", argv[a]);
				return 2;
			}
		} else {
			lc_pp_usage();
			return 2;
		}
	}

	lc_node *node;
	int rc = lc_open(&node);
	if (rc != 0) {
		fprintf(stderr, "pingpong: lc_open: %s\n", lc_strerror(rc));
		return 1;
	}
	int me = lc_rank(node), n = lc_size(node);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "pingpong: needs exactly 2 nodes (commrun -n 2), got %d\n", n);
		lc_close(node);
		return 2;
	}
	int peer = 1 - me;
	unsigned char *sbuf = malloc(hi ? hi : 1), *rbuf = malloc(hi ? hi : 1);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "pingpong: out of memory for %zu bytes\n", hi);
		return 1;
	}
	if (me == 0) {
		printf("# libcomm pingpong (config %s)\n", lc_config_name());
		printf("# Size  Latency (us)\n");
		fflush(stdout);
	}

	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		unsigned it_timed = lc_pp_scaled(iters, size, 10);
		unsigned it_warm = lc_pp_scaled(warmup, size, warmup ? 2 : 0);
		double t0 = 0;
		for (unsigned it = 0; it < it_warm + it_timed; it++) {
			uint64_t seed = lc_ex_seed(size, it);
			struct lc_status st;
			if (it == it_warm)
				t0 = lc_pp_now_us();
			if (me == 0) {
				lc_ex_fill(sbuf, size, seed);
				if ((rc = lc_send(node, peer, sbuf, size)) != 0)
					return lc_pp_fail(node, "send", rc);
				if ((rc = lc_recv(node, peer, rbuf, size, &st)) != 0)
					return lc_pp_fail(node, "recv", rc);
			} else {
				if ((rc = lc_recv(node, peer, rbuf, size, &st)) != 0)
					return lc_pp_fail(node, "recv", rc);
			}
			size_t bad = st.len != size ? 0 : lc_ex_check(rbuf, size, seed);
			if (st.len != size || bad != size) {
				fprintf(stderr,
					"pingpong: node %d: payload mismatch: size %zu iteration %u: "
					"got %zu bytes, first bad byte at %zu\n",
					me, size, it, st.len, bad);
				return 1;
			}
			if (me == 1 && (rc = lc_send(node, peer, rbuf, size)) != 0)
				return lc_pp_fail(node, "send", rc);
		}
		double us = (lc_pp_now_us() - t0) / (2.0 * it_timed);
		if (me == 0) {
			printf("%-12zu%16.2f\n", size, us);
			fflush(stdout);
		}
		if (size == hi)
			break;
	}
	free(sbuf);
	free(rbuf);
	rc = lc_close(node);
	if (rc != 0) {
		fprintf(stderr, "pingpong: lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return 0;
}
