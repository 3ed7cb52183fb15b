/* SPDX-License-Identifier: MIT */
/* Node program: node 0 receives from any source; status names the sender, per-source order holds. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: anysrc [R]   (default 50 messages per sending node)
 * Nodes 1..n-1 send R messages each to node 0 (index in the first 4 bytes,
 * sizes around the MTU); node 0 posts some receives early with irecv and
 * the rest as blocking receives, all LC_ANY_SOURCE, and checks st.src, the
 * payload, and that each source's indexes come in order.
 * Prints "anysrc ok: node 0 received <k> messages from <s> sources".
 */
static size_t lc_tp_any_size(int src, unsigned i)
{
	const size_t s[] = { 4, (size_t)LC_MTU, (size_t)LC_MTU + 3, 100 };
	return s[(i + (unsigned)src) % 4];
}

static void lc_tp_any_check(const unsigned char *b, const struct lc_status *st, int n, unsigned *next)
{
	unsigned idx;
	if (st->src < 1 || st->src >= n || st->len < 4)
		lc_tp_fail("status src %d len %zu", st->src, st->len);
	memcpy(&idx, b, 4);
	if (idx != next[st->src])
		lc_tp_fail("from node %d: message %u, expected %u (order)", st->src, idx, next[st->src]);
	if (st->len != lc_tp_any_size(st->src, idx) ||
	    lc_ex_check(b + 4, st->len - 4, lc_ex_seed((uint64_t)st->src << 32 | idx, st->len)) != st->len - 4)
		lc_tp_fail("from node %d: message %u has bad length or payload", st->src, idx);
	next[st->src]++;
}

int main(int argc, char **argv)
{
	unsigned r = argc > 1 ? (unsigned)atoi(argv[1]) : 50;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	size_t cap = (size_t)LC_MTU + 3;
	if (me != 0) {
		unsigned char *b = lc_tp_alloc(cap);
		for (unsigned i = 0; i < r; i++) {
			size_t len = lc_tp_any_size(me, i);
			memcpy(b, &i, 4);
			lc_ex_fill(b + 4, len - 4, lc_ex_seed((uint64_t)me << 32 | i, len));
			LC_TP_OK(node, lc_send(node, 0, b, len));
		}
		printf("anysrc ok: node %d sent %u messages\n", me, r);
		free(b);
	} else {
		unsigned *next = calloc((size_t)n, sizeof *next);
		enum { EARLY = 8 };
		unsigned char *b = lc_tp_alloc(cap * (EARLY + 1));
		lc_req *early[EARLY];
		unsigned total = r * (unsigned)(n - 1), got = 0;
		unsigned ne = total < EARLY ? total : EARLY;
		if (ne > LC_HOST_MAX_REQUESTS / 2)
			ne = LC_HOST_MAX_REQUESTS / 2;
		if (!next)
			lc_tp_fail("out of memory");
		for (unsigned i = 0; i < ne; i++)
			LC_TP_OK(node, lc_irecv(node, LC_ANY_SOURCE, b + cap * (i + 1), cap, &early[i]));
		for (unsigned i = 0; i < ne; i++) {
			struct lc_status st;
			LC_TP_OK(node, lc_wait(node, early[i], &st));
			lc_tp_any_check(b + cap * (i + 1), &st, n, next);
			got++;
		}
		while (got < total) {
			struct lc_status st;
			LC_TP_OK(node, lc_recv(node, LC_ANY_SOURCE, b, cap, &st));
			lc_tp_any_check(b, &st, n, next);
			got++;
		}
		for (int s = 1; s < n; s++)
			if (next[s] != r)
				lc_tp_fail("node %d: %u messages, expected %u", s, next[s], r);
		printf("anysrc ok: node 0 received %u messages from %d sources\n", got, n - 1);
		free(next);
		free(b);
	}
	LC_TP_OK(node, lc_close(node));
	return 0;
}
