/* SPDX-License-Identifier: MIT */
/* bcast: broadcast latency from node 0 to every other node (configs with multicast), payload checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_ex_pattern.h"

/*
 * Usage: commrun -n N bcast [-s min:max] [-i iters] [-w warmup]
 *
 * Built by tools/bench/run.py only for configs whose library has the group
 * API (multicast active).  Each iteration node 0 calls lc_bcast, every
 * other node receives the message, checks it (pattern of size and
 * iteration) and answers with a 1-byte ack; node 0 waits for all the acks.
 * Latency = that time per iteration (broadcast plus the acks' return, as
 * osu_bcast measures with its barrier), node 0 prints pingpong's format.
 */

static double lc_bc_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static unsigned lc_bc_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

static int lc_bc_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "bcast: node %d: %s: %s (%s)\n", lc_rank(node), what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

int main(int argc, char **argv)
{
	size_t lo = 0, hi = 64u << 10;
	unsigned iters = 200, warmup = 20;

	for (int a = 1; a < argc; a++) {
		char *end;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "bcast: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end || iters == 0)
				return 2;
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end)
				return 2;
		} else {
			fprintf(stderr, "usage: commrun -n N bcast [-s min:max] [-i iters] [-w warmup]\n");
			return 2;
		}
	}
	lc_node *node;
	int rc = lc_open(&node);
	if (rc != 0) {
		fprintf(stderr, "bcast: lc_open: %s\n", lc_strerror(rc));
		return 1;
	}
	int me = lc_rank(node), n = lc_size(node);
	unsigned char *buf = malloc(hi ? hi : 1);
	if (!buf || n < 2) {
		fprintf(stderr, "bcast: needs 2 nodes or more and %zu bytes\n", hi);
		return 2;
	}
	if (me == 0) {
		printf("# libcomm bcast (config %s, %d nodes)\n# Size  Latency (us)\n",
		       lc_config_name(), n);
		fflush(stdout);
	}
	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		unsigned it_timed = lc_bc_scaled(iters, size, 10);
		unsigned it_warm = lc_bc_scaled(warmup, size, warmup ? 2 : 0);
		double t0 = 0;
		for (unsigned it = 0; it < it_warm + it_timed; it++) {
			uint64_t seed = lc_ex_seed(size, it);
			unsigned char ack = 0;
			struct lc_status st;
			if (it == it_warm)
				t0 = lc_bc_now_us();
			if (me == 0) {
				lc_ex_fill(buf, size, seed);
				if ((rc = lc_bcast(node, buf, size)) != 0)
					return lc_bc_fail(node, "bcast", rc);
				for (int k = 1; k < n; k++)
					if ((rc = lc_recv(node, LC_ANY_SOURCE, &ack, 1, NULL)) != 0)
						return lc_bc_fail(node, "recv (ack)", rc);
				continue;
			}
			if ((rc = lc_recv(node, 0, buf, size, &st)) != 0)
				return lc_bc_fail(node, "recv", rc);
			if (st.len != size || lc_ex_check(buf, size, seed) != size) {
				fprintf(stderr, "bcast: node %d: size %zu iteration %u: wrong payload "
						"(%zu bytes)\n", me, size, it, st.len);
				return 1;
			}
			if ((rc = lc_send(node, 0, &ack, 1)) != 0)
				return lc_bc_fail(node, "send (ack)", rc);
		}
		if (me == 0) {
			printf("%-12zu%16.2f\n", size, (lc_bc_now_us() - t0) / it_timed);
			fflush(stdout);
		}
		if (size == hi)
			break;
	}
	free(buf);
	rc = lc_close(node);
	if (rc != 0) {
		fprintf(stderr, "bcast: lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return 0;
}
