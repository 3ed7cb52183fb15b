/* SPDX-License-Identifier: MIT */
/* Node send (seed section 7 "Send"): the per-node send queue, transfers, flushing, draining. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "atlas_impl.h"

/*
 * Reap the node's completed transfers (lock held), oldest first, stopping at
 * the first that is still pending: one lc_test (one progress step) per
 * completed transfer plus one, not one per outstanding transfer.  Sends to
 * one node complete in order in practice; one that completed early is
 * reaped with the older ones.  Their buffers are released; a transfer that
 * failed leaves its error in n->err, reported once by the next send or flush.
 */
static void atlas_reap_locked(atlas_node *n)
{
	unsigned k = 0;
	while (k < n->outst) {
		int done = 0;
		int lrc = lc_test(n->f->lc, n->req[k], &done, NULL);
		if (!done)
			break;
		if (lrc != 0 && n->err == 0)
			n->err = atlas_fail_lc(n->f, lrc, "atlas send: a transfer");
		atlas_buffer_free(n->f, n->rbuf[k]);
		k++;
	}
	if (k == 0)
		return;
	for (unsigned i = k; i < n->outst; i++) {
		n->req[i - k] = n->req[i];
		n->rbuf[i - k] = n->rbuf[i];
	}
	n->outst -= k;
	atomic_store_explicit(&n->outst_now, n->outst, memory_order_relaxed);
}

/*
 * Try to transfer b (lock held): 1 when it went (a libcomm send started; b
 * is released when it completes), 0 when not possible now (max_outst_buffers
 * outstanding, or no libcomm request free), or a negative atlas_err.
 */
static int atlas_transfer_locked(atlas_node *n, atlas_buffer *b)
{
	atlas_reap_locked(n);
	if (n->outst >= n->f->p.max_outst_buffers)
		return 0;
	lc_req *r;
	int lrc = lc_isend_match(n->f->lc, n->id, ATLAS_MATCH, b->data, b->size, &r);
	if (lrc == LC_ERR_AGAIN)
		return 0;
	if (lrc != 0)
		return atlas_fail_lc(n->f, lrc, "atlas send: lc_isend_match");
	b->state = ATLAS_BUF_SENDING;
	n->req[n->outst] = r;
	n->rbuf[n->outst++] = b;
	atomic_store_explicit(&n->outst_now, n->outst, memory_order_relaxed);
	return 1;
}

static void atlas_queue_pop_locked(atlas_node *n)
{
	n->qhead = n->qhead->next;
	if (!n->qhead)
		n->qtail = NULL;
	n->queued--;
	atomic_store_explicit(&n->queued_now, n->queued, memory_order_relaxed);
}

static void atlas_queue_append_locked(atlas_node *n, atlas_buffer *b)
{
	b->state = ATLAS_BUF_QUEUED;
	b->next = NULL;
	if (n->qtail)
		n->qtail->next = b;
	else
		n->qhead = b;
	n->qtail = b;
	n->queued++;
	atomic_store_explicit(&n->queued_now, n->queued, memory_order_relaxed);
}

/*
 * Flush (lock held): transfer queued buffers one by one, oldest first, while
 * it is possible.  Returns 0 or a negative atlas_err: a queued buffer that
 * failed to go (it is dropped and released), or n->err, reported once.
 */
int atlas_flush_locked(atlas_node *n)
{
	if (!n->qhead)
		atlas_reap_locked(n);
	while (n->qhead) {
		int rc = atlas_transfer_locked(n, n->qhead);
		if (rc < 0) {
			/* it cannot go (the node is gone): dropped, so that a drain ends */
			atlas_buffer *b = n->qhead;
			atlas_queue_pop_locked(n);
			atlas_buffer_free(n->f, b);
			return rc;
		}
		if (rc == 0)
			break;
		atlas_queue_pop_locked(n);
	}
	int err = n->err;
	n->err = 0;
	return err;
}

int atlas_node_send(atlas_node *n, atlas_buffer *buf)
{
#if ATLAS_PARAM_CHECK
	if (!n || !buf)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_node_send: %s is NULL", n ? "buf" : "n");
	if (buf->state != ATLAS_BUF_USER)
		return atlas_fail(ATLAS_ERR_BUSY, "atlas_node_send: the buffer is already being sent");
#endif
	pthread_mutex_lock(&n->lock);
	/* an earlier transfer's error first, reported once; buf is not taken */
	atlas_reap_locked(n);
	int rc = n->err;
	n->err = 0;
	/* 1) a queue that is not empty is flushed first, so that order is kept */
	if (rc == 0 && n->qhead)
		rc = atlas_flush_locked(n);
	if (rc < 0)
		goto out;
	/* 2) an empty queue: try to transfer the new buffer at once */
	if (!n->qhead) {
		rc = atlas_transfer_locked(n, buf);
		if (rc != 0)
			goto out;       /* 1: it went (released once transferred), or an error */
	}
	/* 3) behind the queue (or not transferable now): append, within the bound */
	if (n->queued >= n->f->p.max_queued) {
		/* back-pressure is the fast path: no formatting (STYLE 5) */
		rc = atlas_fail_fast(ATLAS_ERR_AGAIN, "atlas_node_send: the node's send queue holds "
				     "max_queued buffers (back-pressure)");
		goto out;
	}
	atlas_queue_append_locked(n, buf);
out:
	pthread_mutex_unlock(&n->lock);
	return rc > 0 ? 0 : rc;
}

int atlas_node_queued(const atlas_node *n)
{
	if (!n)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_node_queued: n is NULL");
	return (int)atomic_load_explicit(&n->queued_now, memory_order_relaxed);
}

int atlas_node_outstanding(const atlas_node *n)
{
	if (!n)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_node_outstanding: n is NULL");
	return (int)atomic_load_explicit(&n->outst_now, memory_order_relaxed);
}

/*
 * Flush every node's queue.  wait_lock 0 (the receiver's step 1) only tries
 * each lock: a sender that holds it is flushing that queue itself.  Returns
 * the buffers still queued or outstanding, or the first error.
 */
int atlas_flush_all(atlas_factory *f, int wait_lock)
{
	int left = 0, err = 0;
	for (int i = 0; i < f->size; i++) {
		atlas_node *n = atomic_load_explicit(&f->nodes[i], memory_order_acquire);
		if (!n || (!atomic_load_explicit(&n->queued_now, memory_order_relaxed) &&
			   !atomic_load_explicit(&n->outst_now, memory_order_relaxed)))
			continue;
		if (wait_lock)
			pthread_mutex_lock(&n->lock);
		else if (pthread_mutex_trylock(&n->lock) != 0) {
			left++;
			continue;
		}
		int rc = atlas_flush_locked(n);
		if (rc < 0 && err == 0)
			err = rc;
		left += (int)(n->queued + n->outst);
		pthread_mutex_unlock(&n->lock);
	}
	return err ? err : left;
}

/* Flush until every queue is empty and every transfer done (the factory's last release). */
int atlas_drain_all(atlas_factory *f)
{
	int err = 0;
	unsigned spins = 0;
	for (;;) {
		int rc = atlas_flush_all(f, 1);
		if (rc == 0)
			return err;
		if (rc < 0) {
			if (err == 0)
				err = rc;
			continue;
		}
		(void)lc_idle(f->lc, &spins, 1);
	}
}

void atlas_node_free(atlas_node *n)
{
	while (n->qhead) {
		atlas_buffer *b = n->qhead;
		atlas_queue_pop_locked(n);
		atlas_buffer_free(n->f, b);
	}
	pthread_mutex_destroy(&n->lock);
	free(n);
}
