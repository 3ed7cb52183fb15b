/* SPDX-License-Identifier: MIT */
/* Node receive (seed section 7 "Receive"): the one receiving thread, non-blocking and blocking forms. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>

#include "atlas_impl.h"

int atlas_recv_check(atlas_factory *f, const char *fn)
{
	pthread_t self = pthread_self();
	/* acquire: pairs with the release store below; receiver is set before it */
	if (!atomic_load_explicit(&f->recv_claimed, memory_order_acquire)) {
		pthread_mutex_lock(&f->lock);
		if (!atomic_load_explicit(&f->recv_claimed, memory_order_relaxed)) {
			f->receiver = self;
			/* release: receiver written before the flag (acquire above pairs) */
			atomic_store_explicit(&f->recv_claimed, 1, memory_order_release);
		}
		pthread_mutex_unlock(&f->lock);
	}
	if (!pthread_equal(f->receiver, self))
		return atlas_fail(ATLAS_ERR_THREAD, "%s: another thread of this process receives "
				  "(the first that called a receive)", fn);
	return 0;
}

/*
 * Steps 2-4 for one node: has a message from it arrived (lc_iprobe, one
 * progress step)?  Then a buffer of its size takes it.  Only the receiving
 * thread gets here, so the probed message is the one received.
 */
int atlas_recv_one(atlas_node *n, atlas_buffer **out)
{
	atlas_factory *f = n->f;
	struct lc_status st;
	int flag = 0;
	int lrc = lc_iprobe(f->lc, n->id, ATLAS_MATCH, ATLAS_MASK, &flag, &st);
	if (lrc != 0)
		return atlas_fail_lc(f, lrc, "atlas receive: lc_iprobe");
	if (!flag)
		return 0;
	atlas_buffer *b = atlas_buffer_heap(f, st.len);
	if (!b)
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas receive: %zu bytes from node %d", st.len,
				  n->id);
	lrc = lc_recv_match(f->lc, n->id, ATLAS_MATCH, ATLAS_MASK, b->data, st.len, &st);
	if (lrc != 0) {
		atlas_buffer_free(f, b);
		return atlas_fail_lc(f, lrc, "atlas receive: lc_recv_match");
	}
	*out = b;
	return 1;
}

int atlas_node_try_recv(atlas_node *n, atlas_buffer **out)
{
#if ATLAS_PARAM_CHECK
	if (!n || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_node_try_recv: %s is NULL", n ? "out" : "n");
	*out = NULL;
#endif
	int rc = atlas_recv_check(n->f, "atlas_node_try_recv");
	if (rc != 0)
		return rc;
	/* 1) flush the send queues (a sender holding a lock flushes that one itself) */
	rc = atlas_flush_all(n->f, 0);
	if (rc < 0)
		return rc;
	return atlas_recv_one(n, out);
}

int atlas_node_recv(atlas_node *n, atlas_buffer **out)
{
	unsigned spins = 0;
	int rc;
	while ((rc = atlas_node_try_recv(n, out)) == 0)
		(void)lc_idle(n->f->lc, &spins, 1);
	return rc < 0 ? rc : 0;
}
