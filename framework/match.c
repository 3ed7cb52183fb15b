/* SPDX-License-Identifier: MIT */
/* The matching envelope's calls beside comm.c: probe, cancel, and test/wait of several requests. */
#define _GNU_SOURCE

#include <sched.h>
#include <string.h>

#include "lc_marks.h"
#include "lc_proto.h"
#include "node.h"

/*
 * What a receive (src, match, mask) would take now, without taking it: the
 * oldest matching unexpected message, else a matching parked first frame
 * (pipeline.c: a message held back at the unexpected budget, newer than
 * every message of its source in the queue).  1 and *st filled, or 0.  Lock
 * held.
 */
static int lc_probe_locked(struct lc_node *node, int src, uint64_t match, uint64_t mask,
			   struct lc_status *st)
{
	struct lc_rmsg *m;

	for (m = node->uq_head; m; m = m->next)
		if ((src == LC_ANY_SOURCE || (uint32_t)src == m->src) && !((m->match ^ match) & mask)) {
			*st = (struct lc_status){ .src = (int)m->src, .len = m->len, .match = m->match };
			return 1;
		}
	for (uint32_t s = 0; s < node->size && node->holding; s++) {
		const struct lc_frame_hdr *h;
		uint64_t w;

		if (!node->rx[s].held || (src != LC_ANY_SOURCE && (uint32_t)src != s))
			continue;
		h = (const struct lc_frame_hdr *)(const void *)node->rx[s].held->frame;
		w = (uint64_t)h->match_hi << 32 | h->match_lo;
		if (!((w ^ match) & mask)) {
			*st = (struct lc_status){ .src = h->src, .len = h->msg_len, .match = w };
			return 1;
		}
	}
	return 0;
}

static int lc_probe_args(lc_node *node, int src, const void *st, const char *fn)
{
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (!st)
		return lc_fail(LC_ERR_INVAL, "%s: st is NULL", fn);
	if (src != LC_ANY_SOURCE && (src < 0 || (uint32_t)src >= node->size))
		return lc_fail(LC_ERR_RANGE, "%s: node %d out of range 0..%u", fn, src,
			       node->size - 1);
	return 0;
}

int lc_iprobe(lc_node *node, int src, uint64_t match, uint64_t mask, int *flag,
	      struct lc_status *st)
{
	int rc = lc_probe_args(node, src, st, "lc_iprobe");

	if (rc)
		return rc;
	if (!flag)
		return lc_fail(LC_ERR_INVAL, "lc_iprobe: flag is NULL");
	*flag = 0;
	if ((rc = lc_lock_open(node, "lc_iprobe")))
		return rc;
	lc_progress_locked(node);
	*flag = lc_probe_locked(node, src, match, mask, st);
	lc_unlock(node);
	return 0;
}

/* 1 when src (for LC_ANY_SOURCE: every node but this one) is dead. */
static int lc_src_dead(struct lc_node *node, int src)
{
	if (src != LC_ANY_SOURCE)
		return !lc_nic_peer_alive(node->nic, (uint32_t)src);
	for (uint32_t i = 0; i < node->size; i++)
		if (i != node->rank && lc_nic_peer_alive(node->nic, i))
			return 0;
	return node->size > 1;
}

int lc_probe(lc_node *node, int src, uint64_t match, uint64_t mask, struct lc_status *st)
{
	uint64_t dead_since = 0, now;
	unsigned spins = 0, polls = 0;
	int rc = lc_probe_args(node, src, st, "lc_probe");

	if (rc)
		return rc;
	if ((rc = lc_lock_open(node, "lc_probe")))
		return rc;
	for (;;) {
		if (lc_progress_locked(node))
			spins = 0;
		if (lc_probe_locked(node, src, match, mask, st))
			break;
		if ((++polls & 1023) == 0) {
			/* as a receive: give up once src has been dead for the backpressure limit */
			if (!lc_src_dead(node, src)) {
				dead_since = 0;
			} else if (!dead_since) {
				dead_since = lc_now_ns();
			} else if ((now = lc_now_ns()) - dead_since >=
				   node->limit_ns) {
				lc_unlock(node);
				st->err = LC_ERR_PEER_DEAD;
				return lc_fail(LC_ERR_PEER_DEAD, "lc_probe: %s%d: %s",
					       src == LC_ANY_SOURCE ? "any node, last " : "node ",
					       src, lc_strerror(LC_ERR_PEER_DEAD));
			}
		}
		lc_unlock(node);
		lc_idle_round(node, &spins);
		if ((rc = lc_lock_open(node, "lc_probe")))
			return rc;
	}
	lc_unlock(node);
	return 0;
}

int lc_cancel(lc_node *node, lc_req *req)
{
	struct lc_req *p, *prev = NULL;
	int rc = lc_check(node, "lc_cancel");

	if (rc)
		return rc;
	if (!req)
		return lc_fail(LC_ERR_INVAL, "lc_cancel: req is NULL");
	if ((rc = lc_lock_open(node, "lc_cancel")))
		return rc;
	if (!lc_req_valid(node, req)) {
		lc_unlock(node);
		return lc_fail(LC_ERR_INVAL, "lc_cancel: req is not a pending request");
	}
	/* only a receive still in the posted queue matched nothing: take it out */
	if (req->kind == LC_REQ_RECV && !req->done)
		for (p = node->posted.head; p; prev = p, p = p->next)
			if (p == req) {
				lc_reqq_unlink(&node->posted, prev, req);
				req->m.src = req->src == LC_ANY_SOURCE ? node->rank : (uint32_t)req->src;
				req->m.len = 0;
				req->m.match = req->match;
				lc_req_complete(req, LC_ERR_CANCELED);
				lc_unlock(node);
				return 1;
			}
	lc_unlock(node);
	return 0;
}

/* reqs[i] of a wait on several requests is not a pending request: release the lock, the error with its text. */
static __attribute__((noinline, cold)) int lc_reqs_invalid(struct lc_node *node, int i, const char *fn)
{
	lc_unlock(node);
	return lc_fail(LC_ERR_INVAL, "%s: reqs[%d] is not a pending request", fn, i);
}

/*
 * Check reqs[0..n-1] (lock held): every non-NULL entry a pending request.
 * Returns the number of non-NULL entries, or a negative lc_err (lock released).
 */
static int lc_reqs_check(struct lc_node *node, int n, lc_req **reqs, const char *fn)
{
	int i, active = 0;

	for (i = 0; i < n; i++) {
		if (!reqs[i])
			continue;
		if (!lc_req_valid(node, reqs[i]))
			return lc_reqs_invalid(node, i, fn);
		active++;
	}
	return active;
}

/*
 * One round of a wait on several requests: a progress step, then, every 1024
 * rounds (node->multi_polls, persistent across lc_testall/lc_testany calls as
 * each request's own count is for lc_test), the liveness checks of the
 * pending ones in reqs[from..n).  One count for the node, not one per
 * request: a wait on a window of 64 sends wrote 64 requests a round, a sixth
 * of a sender's instructions per message in msgrate.  Returns the work.
 */
static int lc_reqs_round(struct lc_node *node, int from, int n, lc_req **reqs)
{
	int i, work = lc_progress_locked(node);

	if ((++node->multi_polls & 1023) == 0)
		for (i = from; i < n; i++)
			if (reqs[i] && !reqs[i]->done)
				lc_req_check(node, reqs[i]);
	return work;
}

static int lc_multi_args(lc_node *node, int n, lc_req **reqs, const void *out, const char *fn)
{
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (n < 0)
		return lc_fail(LC_ERR_INVAL, "%s: n is %d", fn, n);
	if (n && !reqs)
		return lc_fail(LC_ERR_INVAL, "%s: reqs is NULL with n %d", fn, n);
	if (!out)
		return lc_fail(LC_ERR_INVAL, "%s: an output pointer is NULL", fn);
	return 0;
}

/*
 * Completed reqs[i] (or NULL, or an entry given twice, whose request the
 * first place freed: kind LC_REQ_FREE): 1 when it is a request to report
 * (into sts[j] when sts is not NULL) and free, its error kept as the first
 * one (*first, *err) when there was none; else 0.  The caller frees it.
 */
static inline int lc_reqs_take(struct lc_node *node, lc_req **reqs, int i, struct lc_status *sts,
			       int j, int *first, int *err)
{
	struct lc_req *r = reqs[i];

	if (!r || r->kind == LC_REQ_FREE)
		return 0;
	if (__builtin_expect(r->err != 0, 0) && *first < 0) {
		*first = i;
		*err = r->err;
		/* a branch, not GCC's two conditional moves on every request (5 Ir each) */
		__asm__ volatile("");
	}
	if (sts)
		lc_req_status(node, r, &sts[j]);
	return 1;
}

/* 0, or the first error of a multi-request completion (reqs[first]) with its text. */
static int lc_reqs_failed(int first, int err, const char *fn)
{
	if (first < 0)
		return 0;
	return lc_fail(err, "%s: reqs[%d] (and maybe others): %s", fn, first, lc_strerror(err));
}

/* lc_testany / lc_waitany: one round (wait = 0) or until one completes. */
static int lc_anyof(lc_node *node, int n, lc_req **reqs, int *index, int *done,
		    struct lc_status *st, int wait, const char *fn)
{
	unsigned spins = 0;
	int i, rc = lc_multi_args(node, n, reqs, index, fn);

	if (rc)
		return rc;
	*index = -1;
	if (done)
		*done = 0;
	if ((rc = lc_lock_open(node, fn)))
		return rc;
	if ((rc = lc_reqs_check(node, n, reqs, fn)) <= 0) {
		if (rc == 0) {
			lc_unlock(node);
			if (done)
				*done = 1;
		}
		return rc;
	}
	if (wait)
		lc_poll_clock_due(node);
	for (;;) {
		/* one completed already: no progress step needed */
		for (i = 0; i < n; i++)
			if (reqs[i] && reqs[i]->done)
				break;
		if (i == n) {
			if (lc_reqs_round(node, 0, n, reqs))
				spins = 0;
			for (i = 0; i < n; i++)
				if (reqs[i] && reqs[i]->done)
					break;
		}
		if (i < n) {
			struct lc_req *r = reqs[i];

			LC_PATH_BEGIN();
			reqs[i] = NULL;
			*index = i;
			if (done)
				*done = 1;
			return lc_finish(node, r, st, fn);
		}
		lc_unlock(node);
		if (!wait)
			return 0;
		lc_idle_round(node, &spins);
		if ((rc = lc_lock_open(node, fn)))
			return rc;
	}
}

int lc_testany(lc_node *node, int n, lc_req **reqs, int *index, int *done, struct lc_status *st)
{
	if (!done)
		return lc_fail(LC_ERR_INVAL, "lc_testany: done is NULL");
	return lc_anyof(node, n, reqs, index, done, st, 0, "lc_testany");
}

int lc_waitany(lc_node *node, int n, lc_req **reqs, int *index, struct lc_status *st)
{
	return lc_anyof(node, n, reqs, index, NULL, st, 1, "lc_waitany");
}

/* The indices of the completed entries of reqs[0..n) into idx (lock held); returns how many. */
static int lc_reqs_done(lc_req **reqs, int n, int *idx)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (reqs[i] && reqs[i]->done)
			idx[k++] = i;
	return k;
}

/*
 * lc_testsome / lc_waitsome: one round (wait = 0) or until one completes,
 * then every completed request reported and freed in the same call: a
 * caller that drives many requests at once (the MPI personality's progress
 * engine) scans them once for all the completions there are, not once per
 * completion as with lc_waitany.
 */
static int lc_someof(lc_node *node, int n, lc_req **reqs, int *count, int *indices,
		     struct lc_status *sts, int wait, const char *fn)
{
	unsigned spins = 0;
	int k, m = 0, first = -1, rc = lc_multi_args(node, n, reqs, count, fn);

	if (rc)
		return rc;
	if (n && !indices)
		return lc_fail(LC_ERR_INVAL, "%s: indices is NULL with n %d", fn, n);
	*count = -1;
	if ((rc = lc_lock_open(node, fn)))
		return rc;
	if ((rc = lc_reqs_check(node, n, reqs, fn)) <= 0) {
		if (rc == 0)
			lc_unlock(node);
		return rc;
	}
	if (wait)
		lc_poll_clock_due(node);
	/* completed already: no progress step needed */
	while (!(k = lc_reqs_done(reqs, n, indices))) {
		if (lc_reqs_round(node, 0, n, reqs))
			spins = 0;
		if ((k = lc_reqs_done(reqs, n, indices)))
			break;
		lc_unlock(node);
		if (!wait) {
			*count = 0;
			return 0;
		}
		lc_idle_round(node, &spins);
		if ((rc = lc_lock_open(node, fn)))
			return rc;
	}
	LC_PATH_BEGIN();
	for (int j = 0; j < k; j++) {
		int i = indices[j];

		if (lc_reqs_take(node, reqs, i, sts, m, &first, &rc)) {
			lc_req_free(node, reqs[i]);
			indices[m++] = i;
		}
		reqs[i] = NULL;
	}
	lc_unlock(node);
	*count = m;
	return lc_reqs_failed(first, rc, fn);
}

int lc_testsome(lc_node *node, int n, lc_req **reqs, int *count, int *indices, struct lc_status *sts)
{
	return lc_someof(node, n, reqs, count, indices, sts, 0, "lc_testsome");
}

int lc_waitsome(lc_node *node, int n, lc_req **reqs, int *count, int *indices, struct lc_status *sts)
{
	return lc_someof(node, n, reqs, count, indices, sts, 1, "lc_waitsome");
}

/*
 * The first index of reqs[0..n) from i on whose request is pending (n when
 * none is): reqs[0..i) are done, and a request stays done until lc_allof
 * frees it, so each round of a wait scans on from there, not from 0.
 */
static inline int lc_reqs_pending(lc_req **reqs, int i, int n)
{
	while (i < n && (!reqs[i] || reqs[i]->done))
		i++;
	return i;
}

/*
 * lc_testall / lc_waitall: one round (wait = 0) or until all completed.
 * Every entry is checked (lc_req_valid) before any is read, in the same pass
 * that finds the first pending one; the final pass reports and frees them.
 * msgrate's window of 64 on each node: the check, the scan and the final
 * pass were 19 + 9 + 41 Ir a request as three loops.
 */
static int lc_allof(lc_node *node, int n, lc_req **reqs, int *done, struct lc_status *sts,
		    int wait, const char *fn)
{
	unsigned spins = 0;
	int i, first = -1, rc = lc_multi_args(node, n, reqs, done, fn);

	if (rc)
		return rc;
	*done = 0;
	if ((rc = lc_lock_open(node, fn)))
		return rc;
	/* the done ones up to the first pending one, then the rest: each checked once */
	for (i = 0; i < n; i++) {
		if (!reqs[i])
			continue;
		if (!lc_req_valid(node, reqs[i]))
			return lc_reqs_invalid(node, i, fn);
		if (!reqs[i]->done)
			break;
	}
	for (int k = i + 1; k < n; k++)
		if (reqs[k] && !lc_req_valid(node, reqs[k]))
			return lc_reqs_invalid(node, k, fn);
	if (wait)
		lc_poll_clock_due(node);
	while (i < n) {
		if (lc_reqs_round(node, i, n, reqs))
			spins = 0;
		if ((i = lc_reqs_pending(reqs, i, n)) == n)
			break;
		lc_unlock(node);
		if (!wait)
			return 0;
		lc_idle_round(node, &spins);
		if ((rc = lc_lock_open(node, fn)))
			return rc;
		i = lc_reqs_pending(reqs, i, n);
	}
	LC_PATH_BEGIN();
	for (i = 0; i < n; i++) {
		if (lc_reqs_take(node, reqs, i, sts, i, &first, &rc))
			lc_req_free(node, reqs[i]);
		reqs[i] = NULL;
	}
	lc_unlock(node);
	*done = 1;
	return lc_reqs_failed(first, rc, fn);
}

int lc_testall(lc_node *node, int n, lc_req **reqs, int *done, struct lc_status *sts)
{
	return lc_allof(node, n, reqs, done, sts, 0, "lc_testall");
}

int lc_waitall(lc_node *node, int n, lc_req **reqs, struct lc_status *sts)
{
	int done;

	return lc_allof(node, n, reqs, &done, sts, 1, "lc_waitall");
}
