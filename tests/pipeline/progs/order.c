/* SPDX-License-Identifier: MIT */
/* Node program: messages between a pair arrive in order, across PIO, DMA and multi-frame sizes. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: order [K]   (default 300 messages)
 * Node 0 keeps up to host.max_requests/2 isends to node 1 in flight (sizes alternate between a
 * many-frame DMA message and PIO-sized ones, so a small message is queued
 * right behind a big one), plus blocking sends in between; node 1 receives
 * each with lc_recv from node 0 and checks the index in its first 4 bytes.
 * Prints "order ok: node 1 received <K> messages in order".
 */
static size_t lc_tp_ord_size(unsigned i)
{
	const long s[] = { 4 * (long)LC_MTU + 9, 4, (long)LC_PIO_THRESHOLD, (long)LC_MTU + 1, 5,
			   (long)LC_PIO_THRESHOLD + 1 };
	long v = s[i % (sizeof s / sizeof s[0])];
	return v < 4 ? 4 : (size_t)v;
}

int main(int argc, char **argv)
{
	unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 300;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	size_t cap = 4 * (size_t)LC_MTU + 9;
	if (k < 1 || k > 900)
		lc_tp_fail("K must be 1..900 (the request pool)");
	if (me == 0) {
		unsigned char *b = lc_tp_alloc(cap * k);
		lc_req **r = calloc(k, sizeof *r);
		if (!r)
			lc_tp_fail("out of memory");
		/* at most half the request pool in flight (host.max_requests may be small) */
		unsigned win = LC_HOST_MAX_REQUESTS / 2 ? LC_HOST_MAX_REQUESTS / 2 : 1;
		for (unsigned i = 0; i < k; i++) {
			unsigned char *m = b + cap * i;
			if (i >= win && r[i - win]) {
				LC_TP_OK(node, lc_wait(node, r[i - win], NULL));
				r[i - win] = NULL;
			}
			size_t len = lc_tp_ord_size(i);
			memcpy(m, &i, 4);
			lc_ex_fill(m + 4, len - 4, lc_ex_seed(i, len));
			if (i % 7 == 3) {
				LC_TP_OK(node, lc_send(node, 1, m, len));
				r[i] = NULL;
			} else {
				LC_TP_OK(node, lc_isend(node, 1, m, len, &r[i]));
			}
		}
		for (unsigned i = 0; i < k; i++)
			if (r[i])
				LC_TP_OK(node, lc_wait(node, r[i], NULL));
		printf("order ok: node 0 sent %u messages\n", k);
		free(r);
		free(b);
	} else if (me == 1) {
		unsigned char *b = lc_tp_alloc(cap);
		for (unsigned i = 0; i < k; i++) {
			struct lc_status st;
			unsigned idx;
			LC_TP_OK(node, lc_recv(node, 0, b, cap, &st));
			memcpy(&idx, b, 4);
			if (idx != i)
				lc_tp_fail("message %u arrived where %u was expected (order)", idx, i);
			if (st.len != lc_tp_ord_size(i) ||
			    lc_ex_check(b + 4, st.len - 4, lc_ex_seed(i, st.len)) != st.len - 4)
				lc_tp_fail("message %u: bad length %zu or payload", i, st.len);
		}
		printf("order ok: node 1 received %u messages in order\n", k);
		free(b);
	}
	LC_TP_OK(node, lc_close(node));
	return 0;
}
