/* SPDX-License-Identifier: MIT */
/* Node program: a non-blocking send of several frames completes at its receiver's ack, a blocking one when its frames left. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: relhold (2 nodes)
 * Node 1 takes an 8-byte "go", then makes no library call for LC_RH_NAP_MS
 * (inline MCP: its NIC acknowledges nothing meanwhile), then receives two
 * messages of LC_RH_LEN bytes (two frames each) and checks them.  Node 0,
 * after "go": a blocking lc_send of LC_RH_LEN, then an lc_isend of
 * LC_RH_LEN that it tests until it completes.  Both messages fit node 1's
 * Receive Ring, so nothing but an ack can keep either from completing.
 * Node 0 prints
 *   "relhold: blocking send <ms> ms, non-blocking send pending <ms> ms, nap <ms> ms, rc <name>"
 * (the times from the "go"), node 1 "relhold: node 1 got both messages intact".
 */
#define LC_RH_LEN (2u * LC_MTU)
#define LC_RH_NAP_MS 300u

static uint64_t rh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int main(void)
{
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	unsigned char *a = lc_tp_alloc(LC_RH_LEN), *b = lc_tp_alloc(LC_RH_LEN);
	struct lc_status st;
	uint64_t t0, t_block, t_done;
	lc_req *r;
	int rc, done = 0;

	if (n != 2)
		lc_tp_fail("relhold runs on 2 nodes, not %d", n);
	if (me == 1) {
		struct timespec nap = { LC_RH_NAP_MS / 1000u, (long)(LC_RH_NAP_MS % 1000u) * 1000000L };

		LC_TP_OK(node, lc_recv(node, 0, a, 8, &st));
		nanosleep(&nap, NULL);
		LC_TP_OK(node, lc_recv(node, 0, a, LC_RH_LEN, &st));
		lc_tp_expect(a, &st, 0, LC_RH_LEN, 1, "blocking send's message");
		LC_TP_OK(node, lc_recv(node, 0, b, LC_RH_LEN, &st));
		lc_tp_expect(b, &st, 0, LC_RH_LEN, 2, "non-blocking send's message");
		printf("relhold: node 1 got both messages intact\n");
		fflush(stdout);
		lc_close(node);
		free(a);
		free(b);
		return 0;
	}
	lc_ex_fill(a, LC_RH_LEN, 1);
	lc_ex_fill(b, LC_RH_LEN, 2);
	LC_TP_OK(node, lc_send(node, 1, a, 8));
	t0 = rh_now_ms();
	LC_TP_OK(node, lc_send(node, 1, a, LC_RH_LEN));
	t_block = rh_now_ms();
	LC_TP_OK(node, lc_isend(node, 1, b, LC_RH_LEN, &r));
	while (!done) {
		rc = lc_test(node, r, &done, NULL);
		if (rc != 0 && rc != LC_ERR_AGAIN)
			break;
		rc = 0;
	}
	t_done = rh_now_ms();
	printf("relhold: blocking send %llu ms, non-blocking send pending %llu ms, nap %u ms, rc %s\n",
	       (unsigned long long)(t_block - t0), (unsigned long long)(t_done - t0), LC_RH_NAP_MS,
	       rc ? lc_tp_errname(rc) : "0");
	fflush(stdout);
	lc_close(node);
	free(a);
	free(b);
	return 0;
}
