/* SPDX-License-Identifier: MIT */
/* bcast: OSU osu_bcast-style broadcast latency from node 0 to every other node, payload verified. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_ex_pattern.h"

/*
 * Usage: commrun -n N bcast [-s min:max] [-i iters] [-w warmup]
 * Each iteration node 0 broadcasts one message (lc_bcast: multicast.mode
 * decides whether the host or the NIC makes the copies; a config without
 * the multicast protocol sends one lc_send per node), every other node
 * checks it and answers with a 0-byte ack; node 0 waits for every ack.
 * Latency = time per iteration (broadcast until the last member has it and
 * said so: the ack adds one small message's latency, the same in every
 * config, so ratios between configs stay fair), averaged over the timed
 * iterations.  Iterations shrink above 8 KiB.
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

/* The broadcast itself: lc_bcast with multicast, else one send per node. */
static int lc_bc_send(lc_node *node, int n, const void *buf, size_t len)
{
#if LC_PROTO_MULTICAST
	(void)n;
	return lc_bcast(node, buf, len);
#else
	for (int i = 1; i < n; i++) {
		int rc = lc_send(node, i, buf, len);
		if (rc)
			return rc;
	}
	return 0;
#endif
}

int main(int argc, char **argv)
{
	size_t lo = 0, hi = 1u << 20;
	unsigned iters = 1000, warmup = 100;

	for (int a = 1; a < argc; a++) {
		char *end;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "bcast: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end || iters == 0) {
				fprintf(stderr, "bcast: bad iteration count '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
			if (*end) {
				fprintf(stderr, "bcast: bad warm-up count '%s'\n", argv[a]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: commrun -n N bcast [-s min:max] [-i iters] [-w warmup]\n"
					"  sizes take K/M suffixes; default -s 0:1M -i 1000 -w 100\n");
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
	if (n < 2) {
		fprintf(stderr, "bcast: needs at least 2 nodes\n");
		lc_close(node);
		return 2;
	}
	unsigned char *buf = malloc(hi ? hi : 1);
	if (!buf) {
		fprintf(stderr, "bcast: out of memory for %zu bytes\n", hi);
		return 1;
	}
	if (me == 0) {
		printf("# libcomm bcast (config %s, %d nodes, mode %s)\n", lc_config_name(), n,
#if LC_PROTO_MULTICAST
		       LC_MULTICAST_MODE
#else
		       "sends"
#endif
		);
		printf("# Size  Avg Latency(us)\n");
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
			struct lc_status st;
			if (it == it_warm)
				t0 = lc_bc_now_us();
			if (me == 0) {
				lc_ex_fill(buf, size, seed);
				if ((rc = lc_bc_send(node, n, buf, size)) != 0)
					return lc_bc_fail(node, "broadcast", rc);
				for (int i = 1; i < n; i++)
					if ((rc = lc_recv(node, LC_ANY_SOURCE, NULL, 0, &st)) != 0)
						return lc_bc_fail(node, "ack", rc);
				continue;
			}
			if ((rc = lc_recv(node, 0, buf, size, &st)) != 0)
				return lc_bc_fail(node, "recv", rc);
			size_t bad = st.len != size ? 0 : lc_ex_check(buf, size, seed);
			if (st.len != size || bad != size) {
				fprintf(stderr, "bcast: node %d: payload mismatch: size %zu iteration %u: "
					"got %zu bytes, first bad byte at %zu\n", me, size, it, st.len, bad);
				return 1;
			}
			if ((rc = lc_send(node, 0, NULL, 0)) != 0)
				return lc_bc_fail(node, "ack", rc);
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
