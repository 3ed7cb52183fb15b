/* SPDX-License-Identifier: MIT */
/* Node program: every boundary size and random sizes around a ring of nodes, payload checked. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: sizes [--big | --big-mib M] [--random N] [--seed S]
 * Node i sends each size to i+1 and receives it from i-1 (isend, recv, wait),
 * so 2, 3 and 8 nodes all run.  Boundaries: 0, 1, MTU-1, MTU, MTU+1, PIO
 * threshold -1/0/+1, 2 MTU +-1, many MTUs, 1 MiB + 3; --big adds 64 MiB,
 * --big-mib M adds M MiB.
 * Then N random sizes (seeded; the same list on every node).
 * Prints "sizes ok: node <i> checked <k> messages, largest <bytes>".
 */
#define LC_TP_MAX_SIZES 4096

int main(int argc, char **argv)
{
	size_t big = 0;
	unsigned nrand = 0;
	uint64_t seed = 1;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--big") == 0)
			big = (size_t)64 << 20;
		else if (strcmp(argv[a], "--big-mib") == 0 && a + 1 < argc)
			big = (size_t)strtoul(argv[++a], NULL, 10) << 20;
		else if (strcmp(argv[a], "--random") == 0 && a + 1 < argc)
			nrand = (unsigned)strtoul(argv[++a], NULL, 10);
		else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 10) | 1;
		else
			lc_tp_fail("unknown argument '%s'", argv[a]);
	}
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	if (n < 2)
		lc_tp_fail("needs 2 nodes or more");

	static size_t sizes[LC_TP_MAX_SIZES];
	size_t k = 0, largest = 0;
	const long mtu = LC_MTU, pio = LC_PIO_THRESHOLD;
	const long fixed[] = { 0, 1, mtu - 1, mtu, mtu + 1, pio - 1, pio, pio + 1,
			       2 * mtu - 1, 2 * mtu, 2 * mtu + 1, 37 * mtu + 5, (1 << 20) + 3 };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (fixed[i] >= 0)
			sizes[k++] = (size_t)fixed[i];
	if (big)
		sizes[k++] = big;
	for (unsigned i = 0; i < nrand && k < LC_TP_MAX_SIZES; i++) {
		uint64_t r = lc_tp_rand(&seed);
		/* half small (up to 4 frames), half up to 2 MiB */
		sizes[k++] = (i & 1) ? (size_t)(r % (4 * (uint64_t)mtu + 1)) : (size_t)(r % (2u << 20));
	}
	for (size_t i = 0; i < k; i++)
		if (sizes[i] > largest)
			largest = sizes[i];

	unsigned char *sbuf = lc_tp_alloc(largest), *rbuf = lc_tp_alloc(largest);
	int dst = (me + 1) % n, src = (me + n - 1) % n;
	for (size_t i = 0; i < k; i++) {
		lc_req *sr;
		struct lc_status st;
		char what[64];
		lc_ex_fill(sbuf, sizes[i], lc_ex_seed((uint64_t)me << 32 | i, sizes[i]));
		memset(rbuf, 0xA5, sizes[i]);
		LC_TP_OK(node, lc_isend(node, dst, sbuf, sizes[i], &sr));
		LC_TP_OK(node, lc_recv(node, src, rbuf, sizes[i], &st));
		LC_TP_OK(node, lc_wait(node, sr, NULL));
		snprintf(what, sizeof what, "message %zu (%zu bytes)", i, sizes[i]);
		lc_tp_expect(rbuf, &st, src, sizes[i], lc_ex_seed((uint64_t)src << 32 | i, sizes[i]), what);
	}
	printf("sizes ok: node %d checked %zu messages, largest %zu\n", me, k, largest);
	LC_TP_OK(node, lc_close(node));
	free(sbuf);
	free(rbuf);
	return 0;
}
