/* SPDX-License-Identifier: MIT */
/* Node program: several threads of every node send at once to node 0; per-thread order checked. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "lc_tprog.h"

/*
 * Usage: threads [T] [M]   (T threads per sending node, default 4; M messages each, default 200)
 * Nodes 1..n-1 start T threads that each send M messages to node 0 through
 * the same lc_node.  A message carries (node, thread, index) in its first
 * 12 bytes and a pattern after; its size varies around the PIO threshold and
 * the MTU.  Node 0 receives them all with LC_ANY_SOURCE and checks that the
 * messages of each (node, thread) come in index order, none lost or doubled.
 * Prints "threads ok: node 0 received <k> messages from <s> senders".
 */
struct lc_tp_thr {
	lc_node *node;
	int me, t, m;
};

static size_t lc_tp_thr_size(int t, int i)
{
	const size_t s[] = { 12, 13, (size_t)LC_PIO_THRESHOLD + 1, (size_t)LC_MTU, (size_t)LC_MTU + 1,
			     2 * (size_t)LC_MTU + 100 };
	size_t v = s[(size_t)(t + i) % (sizeof s / sizeof s[0])];
	return v < 12 ? 12 : v;
}

static void *lc_tp_sender(void *arg)
{
	struct lc_tp_thr *a = arg;
	unsigned char *b = lc_tp_alloc(2 * (size_t)LC_MTU + 100);
	for (int i = 0; i < a->m; i++) {
		uint32_t id[3] = { (uint32_t)a->me, (uint32_t)a->t, (uint32_t)i };
		size_t len = lc_tp_thr_size(a->t, i);
		memcpy(b, id, sizeof id);
		lc_ex_fill(b + 12, len - 12, lc_ex_seed((uint64_t)a->me << 40 | (uint64_t)a->t << 20, (uint64_t)i));
		LC_TP_OK(a->node, lc_send(a->node, 0, b, len));
	}
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	int msgs = argc > 2 ? atoi(argv[2]) : 200;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	if (nt < 1 || nt > 64 || msgs < 1)
		lc_tp_fail("bad arguments");

	if (me != 0) {
		pthread_t th[64];
		struct lc_tp_thr a[64];
		for (int t = 0; t < nt; t++) {
			a[t] = (struct lc_tp_thr){ node, me, t, msgs };
			if (pthread_create(&th[t], NULL, lc_tp_sender, &a[t]) != 0)
				lc_tp_fail("pthread_create");
		}
		for (int t = 0; t < nt; t++)
			pthread_join(th[t], NULL);
		printf("threads ok: node %d sent %d messages from %d threads\n", me, nt * msgs, nt);
	} else {
		int *next = calloc((size_t)n * (size_t)nt, sizeof *next);
		unsigned char *b = lc_tp_alloc(2 * (size_t)LC_MTU + 100);
		long total = (long)(n - 1) * nt * msgs;
		if (!next)
			lc_tp_fail("out of memory");
		for (long k = 0; k < total; k++) {
			struct lc_status st;
			uint32_t id[3];
			LC_TP_OK(node, lc_recv(node, LC_ANY_SOURCE, b, 2 * (size_t)LC_MTU + 100, &st));
			if (st.len < 12)
				lc_tp_fail("message of %zu bytes from %d", st.len, st.src);
			memcpy(id, b, sizeof id);
			if ((int)id[0] != st.src || st.src < 1 || st.src >= n || (int)id[1] >= nt)
				lc_tp_fail("message %ld: header says node %u thread %u, status says node %d",
					   k, id[0], id[1], st.src);
			int *nx = &next[(size_t)st.src * (size_t)nt + id[1]];
			if ((int)id[2] != *nx)
				lc_tp_fail("node %d thread %u: message %u arrived, expected %d (order)",
					   st.src, id[1], id[2], *nx);
			if (st.len != lc_tp_thr_size((int)id[1], (int)id[2]) ||
			    lc_ex_check(b + 12, st.len - 12,
					lc_ex_seed((uint64_t)id[0] << 40 | (uint64_t)id[1] << 20, id[2])) != st.len - 12)
				lc_tp_fail("node %d thread %u message %u: bad payload", st.src, id[1], id[2]);
			(*nx)++;
		}
		printf("threads ok: node 0 received %ld messages from %d senders\n", total,
		       (n - 1) * nt);
		free(next);
		free(b);
	}
	LC_TP_OK(node, lc_close(node));
	return 0;
}
