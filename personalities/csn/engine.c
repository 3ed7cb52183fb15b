/* SPDX-License-Identifier: MIT */
/* The CSN progress engine: descriptors, posting, completion onto the done queue, waiting. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include "csn_impl.h"

/*
 * A transport's pending operations are pend[0..npend) in post order, their
 * libcomm requests beside them in reqs[] for lc_testany.  One poll drives
 * progress and moves every operation that completed off the pending list:
 * a non-blocking one to the tail of the done queue (so the queue is in
 * completion order, and receives that arriving messages matched complete in
 * post order), a blocking one (csn_tx, csn_rx) only marked done for its
 * waiter.  Nothing is reported twice: csn_test unlinks what it returns.
 */

struct csn_desc *csn_desc_new(struct csn_tr *tr)
{
	struct csn_desc *d = tr->free;
	if (d)
		tr->free = d->next;
	else if (!(d = malloc(sizeof *d)))
		return NULL;
	*d = (struct csn_desc){ 0 };
	return d;
}

void csn_desc_free(struct csn_tr *tr, struct csn_desc *d)
{
	d->next = tr->free;
	tr->free = d;
}

static csn_status csn_pend(struct csn_tr *tr, struct csn_desc *d, int rc, const char *fn)
{
	if (rc != 0) {
		csn_status s = csn_from_lc(rc);
		csn_fail(s, "%s: %s", fn, lc_last_error(csn_node));
		csn_desc_free(tr, d);
		return s;
	}
	tr->pend[tr->npend] = d;
	tr->reqs[tr->npend++] = d->req;
	return CsnOk;
}

static int csn_full(struct csn_tr *tr, struct csn_desc *d, const char *fn)
{
	if (tr->npend < CSN_MAX_PENDING)
		return 0;
	csn_desc_free(tr, d);
	csn_fail(CsnNoHeap, "%s: %d operations pending on the transport", fn, CSN_MAX_PENDING);
	return 1;
}

csn_status csn_post_tx(struct csn_tr *tr, struct csn_desc *d, const char *fn)
{
	if (csn_full(tr, d, fn))
		return CsnNoHeap;
	d->kind = CsnTxReady;
	int dst = (int)d->peer.ip - 1;
	uint64_t match = csn_match(d->peer.port - 1, tr->id);
	int rc = csn_tx_eager ? lc_isend_match(csn_node, dst, match, d->buf, d->len, &d->req)
			      : lc_issend(csn_node, dst, match, d->buf, d->len, &d->req);
	return csn_pend(tr, d, rc, fn);
}

csn_status csn_post_rx(struct csn_tr *tr, struct csn_desc *d, int src, uint64_t match,
		       uint64_t mask, const char *fn)
{
	if (csn_full(tr, d, fn))
		return CsnNoHeap;
	d->kind = CsnRxReady;
	int rc = lc_irecv_match(csn_node, src, match, mask, d->buf, d->len, &d->req);
	return csn_pend(tr, d, rc, fn);
}

/* d completed with libcomm error rc and status st: record it, queue it unless blocking. */
static void csn_complete(struct csn_tr *tr, struct csn_desc *d, int rc, const struct lc_status *st)
{
	d->req = NULL;
	d->done = 1;
	d->status = csn_from_lc(rc);
	if (d->status != CsnOk && d->status != CsnOverrun && rc != LC_ERR_CANCELED)
		csn_fail(d->status, "%s%s {%u,%u}: %s", d->kind == CsnTxReady ? "csn_tx" : "csn_rx",
			 d->blocking ? "" : "nb", d->peer.ip, d->peer.port, lc_strerror(rc));
	if (d->kind == CsnRxReady) {
		if (rc == 0 || rc == LC_ERR_TRUNC) {
			d->peer = (netid){ (unsigned)st->src + 1, (unsigned)(st->match >> 32) + 1 };
			unsigned n = st->len < d->len ? (unsigned)st->len : d->len;
			if (d->actual)
				*d->actual = n;
			d->len = n;
		} else if (d->actual) {
			*d->actual = 0;
		}
	}
	if (d->blocking)
		return;
	d->next = NULL;
	if (tr->dq_tail)
		tr->dq_tail->next = d;
	else
		tr->dq_head = d;
	tr->dq_tail = d;
}

/* One progress step; move every completed operation off the pending list. 0 or a libcomm error. */
static int csn_poll(struct csn_tr *tr)
{
	if (tr->npend == 0)
		return lc_progress(csn_node) < 0 ? LC_ERR_CLOSED : 0;
	for (;;) {
		int idx, done;
		struct lc_status st = { 0 };
		int rc = lc_testany(csn_node, tr->npend, tr->reqs, &idx, &done, &st);
		if (!done || idx < 0)
			return done ? 0 : rc;
		struct csn_desc *d = tr->pend[idx];
		tr->npend--;
		for (int i = idx; i < tr->npend; i++) {
			tr->pend[i] = tr->pend[i + 1];
			tr->reqs[i] = tr->reqs[i + 1];
		}
		csn_complete(tr, d, rc, &st);
		if (tr->npend == 0)
			return 0;
	}
}

/* In ns: a deadline in truncated us could end a wait up to 1 us short of its timeout. */
static uint64_t csn_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

csn_status csn_wait_desc(struct csn_tr *tr, struct csn_desc *d, netid *peer, unsigned int *actual)
{
	for (unsigned spins = 0; !d->done;) {
		int rc = csn_poll(tr);
		if (rc != 0) {
			/* the layer below failed: the request stays with it, the descriptor too */
			return csn_fail(CsnFailed, "csn wait: %s", lc_last_error(csn_node));
		}
		if (!d->done)
			(void)lc_idle(csn_node, &spins, 1);   /* an empty poll */
	}
	csn_status s = d->status;
	if (peer)
		*peer = d->peer;
	if (actual)
		*actual = d->len;
	if (s == CsnIllegalNetId)
		csn_fail(s, "%s: netid {%u,%u}: its process is gone",
			 d->kind == CsnTxReady ? "csn_tx" : "csn_rx", d->peer.ip, d->peer.port);
	csn_desc_free(tr, d);
	return s;
}

/* The oldest queued operation of a kind in flags, unlinked; or NULL. */
static struct csn_desc *csn_dq_take(struct csn_tr *tr, csn_flags flags)
{
	struct csn_desc **pp = &tr->dq_head, *prev = NULL;
	for (struct csn_desc *d = tr->dq_head; d; prev = d, pp = &d->next, d = d->next) {
		if (flags && !(flags & CSN_FLAG(d->kind)))
			continue;
		*pp = d->next;
		if (tr->dq_tail == d)
			tr->dq_tail = prev;
		return d;
	}
	return NULL;
}

/* Can an operation of a kind in flags still complete?  (one is pending) */
static int csn_may_come(const struct csn_tr *tr, csn_flags flags)
{
	for (int i = 0; i < tr->npend; i++)
		if (!tr->pend[i]->blocking && (!flags || (flags & CSN_FLAG(tr->pend[i]->kind))))
			return 1;
	return 0;
}

struct csn_desc *csn_take_done(struct csn_tr *tr, csn_flags flags, unsigned timeout_us,
			       csn_status *st)
{
	uint64_t deadline = 0;
	if (timeout_us != 0 && timeout_us != CSN_WAIT_FOREVER)
		deadline = csn_now_ns() + (uint64_t)timeout_us * 1000u;
	for (unsigned spins = 0;;) {
		struct csn_desc *d = csn_dq_take(tr, flags);
		if (d)
			return d;
		if (csn_poll(tr) != 0) {
			*st = csn_fail(CsnFailed, "csn_test: %s", lc_last_error(csn_node));
			return NULL;
		}
		if ((d = csn_dq_take(tr, flags)) != NULL)
			return d;
		if (!csn_may_come(tr, flags)) {
			*st = csn_fail(CsnTimeout, "csn_test: no operation of the kinds asked is outstanding");
			return NULL;
		}
		if (timeout_us == 0 || (deadline && csn_now_ns() >= deadline)) {
			*st = csn_fail(CsnTimeout, "csn_test: nothing completed within %u us", timeout_us);
			return NULL;
		}
		(void)lc_idle(csn_node, &spins, 1);   /* an empty poll */
	}
}

void csn_tr_drain(struct csn_tr *tr)
{
	for (int i = 0; i < tr->npend; i++)
		if (tr->pend[i]->kind == CsnRxReady)
			lc_cancel(csn_node, tr->reqs[i]);
	for (unsigned spins = 0; tr->npend > 0;) {
		if (csn_poll(tr) != 0)
			break;          /* the node failed: the requests go with it */
		if (tr->npend > 0)
			(void)lc_idle(csn_node, &spins, 1);   /* an empty poll */
	}
	for (struct csn_desc *d; (d = tr->dq_head) != NULL;) {
		tr->dq_head = d->next;
		csn_desc_free(tr, d);
	}
	tr->dq_tail = NULL;
	for (int i = 0; i < tr->npend; i++)
		csn_desc_free(tr, tr->pend[i]);
	tr->npend = 0;
	for (struct csn_desc *d; (d = tr->free) != NULL;) {
		tr->free = d->next;
		free(d);
	}
}
