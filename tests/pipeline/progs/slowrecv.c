/* SPDX-License-Identifier: MIT */
/* Node program: a slow receiver (sleeps between receives) loses no frame in the baseline. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "geom.h"                 /* lc_backpressure_ns */
#include "lc_tprog.h"

/*
 * Usage: slowrecv [K]   (default 300 messages of 2 MTU + 1 bytes from node 0 to node 1)
 * K messages need far more frames than the Receive Ring and host staging
 * hold, so the sender must be held back by link backpressure while node 1
 * sleeps between receives (a sleep well below backpressure_timeout_us, so
 * the time limit is never reached).  Node 1 checks every message; node 0
 * then prints its NIC counters bp_stalls and bp_drops:
 * "slowrecv counters: bp_stalls <a> bp_drops <b>", then "node 0 <counter> <n>" for every
 * counter of node 0 that moved.
 */
int main(int argc, char **argv)
{
	unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 300;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	size_t len = 2 * (size_t)LC_MTU + 1;
	unsigned char *b = lc_tp_alloc(len);
	/* at most 0.5 ms: a frame takes microseconds to send, so any nap holds the sender back;
	 * a longer one only lengthened the run (2 ms: 0.6 s of K naps, the sender polling) */
	long nap_us = (long)(lc_backpressure_ns() / 50000u);
	if (nap_us > 500)
		nap_us = 500;
	if (me == 0) {
		for (unsigned i = 0; i < k; i++) {
			lc_ex_fill(b, len, lc_ex_seed(i, len));
			LC_TP_OK(node, lc_send(node, 1, b, len));
		}
		/* wait for node 1's word that all arrived, then read our counters */
		struct lc_status st;
		LC_TP_OK(node, lc_recv(node, 1, NULL, 0, &st));
		uint64_t c[LC_STAT_COUNT];
		LC_TP_OK(node, lc_stats(node, c));
		printf("slowrecv counters: bp_stalls %llu bp_drops %llu\n",
		       (unsigned long long)c[LC_STAT_bp_stalls], (unsigned long long)c[LC_STAT_bp_drops]);
		/* every other counter that moved, for the reader of a failure */
		for (int i = 0; i < LC_STAT_COUNT; i++)
			if (c[i])
				printf("node 0 %s %llu\n", lc_stat_name(i), (unsigned long long)c[i]);
	} else if (me == 1) {
		struct timespec nap = { 0, nap_us * 1000 };
		for (unsigned i = 0; i < k; i++) {
			struct lc_status st;
			char what[48];
			nanosleep(&nap, NULL);
			LC_TP_OK(node, lc_recv(node, 0, b, len, &st));
			snprintf(what, sizeof what, "message %u", i);
			lc_tp_expect(b, &st, 0, len, lc_ex_seed(i, len), what);
		}
		LC_TP_OK(node, lc_send(node, 0, NULL, 0));
		printf("slowrecv ok: node 1 received %u messages of %zu bytes, sleeping %ld us before each\n",
		       k, len, nap_us);
	}
	LC_TP_OK(node, lc_close(node));
	free(b);
	return 0;
}
