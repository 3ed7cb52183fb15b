/* SPDX-License-Identifier: MIT */
/* rndv_dies: a peer that dies in the middle of a rendezvous; the survivor's call fails, it does not hang. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <unistd.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: commrun -n 2 rndv_dies receiver|sender [BYTES]
 *   receiver  node 0 sends BYTES (default 1 MiB); node 1 sees the message
 *             announced (lc_probe) and exits without receiving it: node 0's
 *             lc_send fails with LC_ERR_PEER_DEAD (the clear-to-send never comes)
 *   sender    node 0 starts the send and exits at once; node 1 receives late:
 *             its lc_recv fails with LC_ERR_PEER_DEAD (the data never comes)
 * The survivor prints "rndv_dies <mode>: survivor failed as it should (<ms> ms)".
 */

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int me, n, rc;
	const char *mode = argc > 1 ? argv[1] : "";
	size_t len = argc > 2 ? strtoull(argv[2], NULL, 0) : (1u << 20);
	lc_node *node = lc_tp_open(&me, &n);
	unsigned char *buf = lc_tp_alloc(len);
	struct lc_status st;
	lc_req *r;
	double t0;
	int receiver = !strcmp(mode, "receiver");

	if (n != 2 || (!receiver && strcmp(mode, "sender")))
		lc_tp_fail("usage: commrun -n 2 rndv_dies receiver|sender [BYTES]");
	lc_ex_fill(buf, len, 1);
	if (receiver && me == 1) {
		LC_TP_OK(node, lc_probe(node, 0, 0, LC_MATCH_ALL, &st));
		_exit(0);       /* dies with the message announced, not received */
	}
	if (!receiver && me == 0) {
		LC_TP_OK(node, lc_isend(node, 1, buf, len, &r));
		_exit(0);       /* dies with its send started */
	}
	t0 = ms_now();
	if (receiver) {
		rc = lc_send(node, 1, buf, len);
	} else {
		struct timespec nap = { 0, 50 * 1000000L };

		nanosleep(&nap, NULL);  /* the sender is gone before the receive is posted */
		rc = lc_recv(node, 0, buf, len, &st);
	}
	if (rc != LC_ERR_PEER_DEAD)
		lc_tp_fail("%s: the survivor's call returned %s, expected LC_ERR_PEER_DEAD (%s)", mode,
			   lc_tp_errname(rc), lc_last_error(node));
	printf("rndv_dies %s: survivor failed as it should (%.0f ms)\n", mode, ms_now() - t0);
	lc_close(node);
	return 0;
}
