/* SPDX-License-Identifier: MIT */
/* Node program: node 1 kills itself (SIGKILL) in the middle of a transfer; the others must see it. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>

#include "lc_tprog.h"

/*
 * Usage: killed [MiB]   (size of the transfer to node 1, default 16)
 * Node 0 sends MiB to node 1, node 1 posts the receive, drives progress a
 * little (some frames arrive, the rest is stalled in the network) and raises
 * SIGKILL.  Node 0's send and every survivor's receive from node 1 must
 * then fail, not hang; each survivor prints
 *   "node <i>: <call> -> <LC_ERR_...>"
 * for each call and "peer dead reported: node <i>" once one of them returned
 * LC_ERR_PEER_DEAD, then exits 3.  A call that unexpectedly succeeds is
 * reported and the program exits 1.
 */
int main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? atoi(argv[1]) : 16) << 20;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	unsigned char *b = lc_tp_alloc(len);
	int dead = 0, rc;

	if (me == 1) {
		lc_req *r;
		LC_TP_OK(node, lc_irecv(node, 0, b, len, &r));
		for (int i = 0; i < 2000; i++)
			if (lc_progress(node) < 0)
				break;
		printf("node 1: raising SIGKILL mid-transfer\n");
		fflush(stdout);
		raise(SIGKILL);
		return 1;    /* not reached */
	}
	if (me == 0) {
		lc_ex_fill(b, len, lc_ex_seed(0, len));
		rc = lc_send(node, 1, b, len);
		printf("node 0: lc_send(%zu bytes to node 1) -> %s\n", len, lc_tp_errname(rc));
		dead |= rc == LC_ERR_PEER_DEAD;
	}
	/* every survivor waits for a message node 1 will never send */
	struct lc_status st;
	rc = lc_recv(node, 1, b, 16, &st);
	printf("node %d: lc_recv(from node 1) -> %s (%s)\n", me, lc_tp_errname(rc), lc_last_error(node));
	if (rc == 0)
		lc_tp_fail("a receive from the dead node succeeded");
	dead |= rc == LC_ERR_PEER_DEAD;
	if (dead)
		printf("peer dead reported: node %d\n", me);
	fflush(stdout);
	lc_close(node);
	free(b);
	return 3;
}
