/* SPDX-License-Identifier: MIT */
/* The examples' libcomm helpers: options, open/close, errors, payload check, header, window loops. */
#ifndef LC_EX_COMMON_H
#define LC_EX_COMMON_H

/*
 * An example defines LC_EX_PROG (its name, the first word of each of its
 * messages) before it includes this header.  What the MPI twins and
 * shm_pingpong share with the examples lives in lc_ex_pattern.h; what is
 * here calls libcomm.
 */
#ifndef LC_EX_PROG
#error "define LC_EX_PROG (the program's name in its messages) before including lc_ex_common.h"
#endif

#include <stdio.h>

#include "comm.h"
#include "lc_ex_pattern.h"

/* Options (lc_ex_parse); usage is printed for an option the program does not take.  0 or 2. */
static inline int lc_ex_options(int argc, char **argv, unsigned flags, struct lc_ex_opts *o,
				const char *usage)
{
	int r = lc_ex_parse(argc, argv, LC_EX_PROG, flags, o);

	if (r == 1)
		fputs(usage, stderr);
	return r ? 2 : 0;
}

/* Report a failed libcomm call; returns the exit status 1. */
static inline int lc_ex_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, LC_EX_PROG ": node %d: %s: %s (%s)\n", lc_rank(node), what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

/*
 * lc_open; with pair, the run must be exactly 2 nodes (node 0 says so,
 * the node is closed again).  0 with *node open, else the exit status
 * (1: lc_open failed, 2: not 2 nodes).
 */
static inline int lc_ex_open(lc_node **node, int pair)
{
	int rc = lc_open(node);

	if (rc != 0) {
		fprintf(stderr, LC_EX_PROG ": lc_open: %s (%s)\n", lc_strerror(rc), lc_last_error(NULL));
		return 1;
	}
	if (pair && lc_size(*node) != 2) {
		if (lc_rank(*node) == 0)
			fprintf(stderr, LC_EX_PROG ": needs exactly 2 nodes (commrun -n 2), got %d\n",
				lc_size(*node));
		lc_close(*node);
		return 2;
	}
	return 0;
}

/*
 * The pairs of a run of N nodes (LC_EX_OPT_PAIRS): node 2k with node 2k+1,
 * the first `pairs` of them (0: all N/2) active.  Sets *peer; 1 when this
 * node exchanges, 0 when it idles (an odd last node, or a pair beyond
 * `pairs`), -1 after printing why the run cannot be paired (node 0 says it).
 */
static inline int lc_ex_pair(lc_node *node, unsigned pairs, int *peer)
{
	int me = lc_rank(node), n = lc_size(node);

	if (pairs == 0)
		pairs = (unsigned)n / 2;
	if (n < 2 || pairs > (unsigned)n / 2) {
		if (me == 0)
			fprintf(stderr, LC_EX_PROG ": %u pairs need %u nodes, the run has %d\n",
				pairs ? pairs : 1, 2 * (pairs ? pairs : 1), n);
		return -1;
	}
	*peer = me ^ 1;
	return (unsigned)me < 2 * pairs;
}

/*
 * The sum over the active pairs' first nodes (even ranks below 2 * pairs)
 * of their figure v, at node 0 (its own included); the others send theirs
 * there.  0 with *sum set (at node 0), else the exit status 1.
 */
static inline int lc_ex_pair_sum(lc_node *node, unsigned pairs, double v, double *sum)
{
	int me = lc_rank(node), rc;

	if (pairs == 0)
		pairs = (unsigned)lc_size(node) / 2;
	*sum = v;
	if (me & 1)
		return 0;
	if (me != 0) {
		rc = lc_send(node, 0, &v, sizeof v);
		return rc ? lc_ex_fail(node, "send (figure to node 0)", rc) : 0;
	}
	for (unsigned k = 1; k < pairs; k++) {
		double x;

		if ((rc = lc_recv(node, (int)(2 * k), &x, sizeof x, NULL)) != 0)
			return lc_ex_fail(node, "recv (figure of a pair)", rc);
		*sum += x;
	}
	return 0;
}

/* lc_close: 0, or the exit status 1 after printing why. */
static inline int lc_ex_close(lc_node *node)
{
	int rc = lc_close(node);

	if (rc != 0) {
		fprintf(stderr, LC_EX_PROG ": lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return 0;
}

/*
 * lc_open, then this node's part in the pairs of the run (lc_ex_pair): 1
 * when it exchanges with *peer; else 0 with *status the program's exit
 * status (lc_open failed 1, the run cannot be paired 2, an idle node closed
 * again 0 or 1).
 */
static inline int lc_ex_open_pair(lc_node **node, unsigned pairs, int *peer, int *status)
{
	int active;

	if ((*status = lc_ex_open(node, 0)) != 0)
		return 0;
	active = lc_ex_pair(*node, pairs, peer);
	if (active < 0) {
		lc_close(*node);
		*status = 2;
		return 0;
	}
	if (!active)
		*status = lc_ex_close(*node);
	return active;
}

/*
 * 0 when the got bytes received (by node me, iteration it) are the pattern
 * seed of size bytes; else the exit status 1 after "<prog>: node N: payload
 * mismatch: ..." with the first byte that differs.
 */
static inline int lc_ex_expect(int me, const void *buf, size_t got, size_t size, uint64_t seed,
			       unsigned it)
{
	size_t bad = got != size ? 0 : lc_ex_check(buf, size, seed);

	if (got == size && bad == size)
		return 0;
	fprintf(stderr, LC_EX_PROG ": node %d: payload mismatch: size %zu iteration %u: "
			"got %zu bytes, first bad byte at %zu\n", me, size, it, got, bad);
	return 1;
}

/*
 * The table's two header lines (node 0):
 *   # libcomm <prog> (config <name>[, window <W>]<more>)
 *   # Size  <columns>
 * window 0 leaves the window out.
 */
static inline void lc_ex_header(unsigned window, const char *more, const char *columns)
{
	printf("# libcomm " LC_EX_PROG " (config %s", lc_config_name());
	if (window)
		printf(", window %u", window);
	printf("%s)\n# Size  %s\n", more, columns);
	fflush(stdout);
}

/* Post window receives of size bytes from src, one per slot of bufs.  0 or the exit status 1. */
static inline int lc_ex_post_recvs(lc_node *node, int src, unsigned char *bufs, size_t slot,
				   size_t size, unsigned window, lc_req **req)
{
	int rc;

	for (unsigned j = 0; j < window; j++)
		if ((rc = lc_irecv(node, src, bufs + j * slot, size, &req[j])) != 0)
			return lc_ex_fail(node, "irecv", rc);
	return 0;
}

/* Wait for window requests, statuses unread (what names them in an error).  0 or exit status 1. */
static inline int lc_ex_wait_all(lc_node *node, lc_req **req, unsigned window, const char *what)
{
	/* one call for the window, as the MPI twins' MPI_Waitall (OSU convention) */
	int rc = lc_waitall(node, (int)window, req, NULL);

	return rc ? lc_ex_fail(node, what, rc) : 0;
}

#endif /* LC_EX_COMMON_H */
