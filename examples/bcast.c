/* SPDX-License-Identifier: MIT */
/* bcast: OSU osu_bcast-style broadcast latency from node 0 to every other node, payload verified. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#define LC_EX_PROG "bcast"
#include "lc_ex_common.h"
#include "lc_config.h"

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

static const char lc_bc_usage[] =
	"usage: commrun -n N bcast [-s min:max] [-i iters] [-w warmup]\n"
	"  sizes take K/M suffixes; default -s 0:1M -i 1000 -w 100\n";

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 1u << 20, .iters = 1000, .warmup = 100 };
	int rc = lc_ex_options(argc, argv, LC_EX_OPT_COUNTS, &o, lc_bc_usage);
	if (rc != 0)
		return rc;
	size_t lo = o.lo, hi = o.hi;

	lc_node *node;
	if ((rc = lc_ex_open(&node, 0)) != 0)
		return rc;
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
	for (size_t size = lo; size <= hi; size = lc_ex_sweep_next(size, lo, hi)) {
		struct lc_ex_lat l = lc_ex_lat(&o, size);
		for (unsigned it = 0; lc_ex_lat_more(&l, it); it++) {
			uint64_t seed = lc_ex_seed(size, it);
			struct lc_status st;
			if (me == 0) {
				lc_ex_fill(buf, size, seed);
				if ((rc = lc_bc_send(node, n, buf, size)) != 0)
					return lc_ex_fail(node, "broadcast", rc);
				for (int i = 1; i < n; i++)
					if ((rc = lc_recv(node, LC_ANY_SOURCE, NULL, 0, &st)) != 0)
						return lc_ex_fail(node, "ack", rc);
				continue;
			}
			if ((rc = lc_recv(node, 0, buf, size, &st)) != 0)
				return lc_ex_fail(node, "recv", rc);
			if (lc_ex_expect(me, buf, st.len, size, seed, it) != 0)
				return 1;
			if ((rc = lc_send(node, 0, NULL, 0)) != 0)
				return lc_ex_fail(node, "ack", rc);
		}
		if (me == 0)
			lc_ex_row(size, (lc_ex_now_us() - l.t0) / l.timed);
	}
	free(buf);
	return lc_ex_close(node);
}
