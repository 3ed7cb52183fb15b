/* SPDX-License-Identifier: MIT */
/* VipPostSend, VipPostRecv and the completion engine: descriptors onto libcomm requests. */
#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

/*
 * A send descriptor gathers its data segments into one message (one
 * segment: sent from where it is; several: copied into a bounce buffer
 * first) with match word DATA to the peer VI, the immediate data in the
 * match word.  A receive descriptor is one lc receive of DATA or NOTE to
 * this VI from the peer node, into its one segment or a bounce buffer
 * scattered on completion; receives are armed (their lc receive posted)
 * once the VI is connected, in the order they were posted, so messages
 * take them in that order.  A queue's descriptors complete in the order
 * they were posted: the engine tests the oldest incomplete one and stops
 * at the first not done; completed ones go to the queue's CQ in order.
 */

static unsigned char lcvipl_empty[1];   /* the buffer of a receive with no segment */

/* The queue entry of a free slot (the caller checked the room), cleared. */
static struct lcvipl_wqe *lcvipl_push(struct lcvipl_wq *q, VIP_DESCRIPTOR *d)
{
	struct lcvipl_wqe *e = &q->e[q->tail & (LCVIPL_MAX_QUEUE - 1)];
	/* every field but the staging bytes (small), which a gather or scatter writes before use */
	e->d = d;
	e->req = NULL;
	e->bounce = NULL;
	e->buf = NULL;
	e->cap = 0;
	e->done = false;
	q->tail++;
	return e;
}

/* e is complete with status bits st (DONE is added): the last step, its data in place. */
static inline void lcvipl_status_done(struct lcvipl_wqe *e, VIP_UINT32 st)
{
	e->d->CS.Status = st | VIP_STATUS_DONE;
	e->done = true;
	e->req = NULL;
}

/*
 * Complete e, which has a staging buffer, with status bits st: its first n
 * bytes scattered into the descriptor's data segments first (a receive;
 * n = 0: none), the buffer let go, then the status -- a program may poll
 * the descriptor's Status word.  Out of line: a descriptor without a
 * staging buffer completes in a few stores (lcvipl_complete).
 */
static __attribute__((noinline)) void lcvipl_complete_bounced(struct lcvipl_wqe *e, VIP_UINT32 st, size_t n)
{
	VIP_DESCRIPTOR *d = e->d;
	const uint8_t *b = e->bounce, *p = b;

	for (unsigned k = 0; k < d->CS.SegCount && n > (size_t)(p - b); k++) {
		size_t left = n - (size_t)(p - b);
		size_t c = d->DS[k].Local.Length < left ? d->DS[k].Local.Length : left;
		memcpy(d->DS[k].Local.Data.Address, p, c);
		p += c;
	}
	if (e->bounce != e->small)
		free(e->bounce);
	e->bounce = NULL;
	lcvipl_status_done(e, st);
}

/* Complete e now with status bits st (DONE is added); a send's staging is in the entry or freed. */
static inline void lcvipl_complete(struct lcvipl_wqe *e, VIP_UINT32 st)
{
	if (e->bounce != NULL && e->bounce != e->small) {
		lcvipl_complete_bounced(e, st, 0);
		return;
	}
	e->bounce = NULL;
	lcvipl_status_done(e, st);
}

static void lcvipl_report_full(struct lcvipl_vi *vi, struct lcvipl_wq *q);

/*
 * Queue q's (of vi) completed descriptors, in order, to its CQ
 * (lcvipl_report: when due).  A full CQ leaves the loop for
 * lcvipl_report_full by a tail call, so the common case saves no
 * registers for a call it does not make.
 */
void lcvipl_report_q(struct lcvipl_vi *vi, struct lcvipl_wq *q)
{
	uint32_t rep = q->rep, tail = q->tail;
	struct lcvipl_cq *cq = q->cq >= 0 ? &lcvipl_nic.cqs[q->cq] : NULL;
	const struct lcvipl_cqe ent = {
		.vi = (uint16_t)LCVIPL_VI_SLOT(vi->num), .gen = vi->gen, .recvq = q == &vi->rq };

	for (; rep != tail && q->e[rep & (LCVIPL_MAX_QUEUE - 1)].done; rep++) {
		if (cq == NULL)
			continue;
		if (cq->tail - cq->head == cq->cap) {
			q->rep = rep;
			lcvipl_report_full(vi, q);
			return;
		}
		cq->e[cq->tail++ & (cq->cap - 1)] = ent;
	}
	q->rep = rep;
}

/*
 * lcvipl_report_q met q's CQ full at q->rep: double the CQ rather than lose
 * a completion, then go on; out of memory, that one completion's entry is
 * lost and reported (VIP_ERROR_CATASTROPHIC).
 */
static __attribute__((noinline, cold)) void lcvipl_report_full(struct lcvipl_vi *vi, struct lcvipl_wq *q)
{
	struct lcvipl_cq *cq = &lcvipl_nic.cqs[q->cq];
	struct lcvipl_cqe *ne = calloc(2u * cq->cap, sizeof *ne);

	if (ne == NULL) {
		lcvipl_async_error(vi, VIP_ERROR_CATASTROPHIC, VIP_RESOURCE_CQ);
		q->rep++;
	} else {
		for (uint32_t k = 0; k < cq->cap; k++)
			ne[k] = cq->e[(cq->head + k) & (cq->cap - 1)];
		free(cq->e);
		cq->e = ne;
		cq->tail = cq->cap;
		cq->head = 0;
		cq->cap *= 2;
	}
	lcvipl_report_q(vi, q);
}

/* The receive's outcome into its descriptor. */
static void lcvipl_recv_done(struct lcvipl_wqe *e, const struct lc_status *st)
{
	VIP_DESCRIPTOR *d = e->d;
	VIP_UINT32 s = VIP_STATUS_OP_RECEIVE;
	bool note = (st->match & LCVIPL_KIND_MASK) == LCVIPL_KIND_NOTE;

	if (st->err == LC_ERR_CANCELED) {
		lcvipl_complete(e, s | VIP_STATUS_DESC_FLUSHED_ERROR);
		return;
	}
	size_t scatter = 0;             /* bytes to scatter from the staging buffer */
	if (note) {
		/* the notice of an RDMA write with immediate data: no bytes land in the descriptor */
		s = VIP_STATUS_OP_REMOTE_RDMA_WRITE;
		d->CS.Length = 0;
	} else {
		size_t got = st->len < e->cap ? st->len : e->cap;
		if (st->err == LC_ERR_TRUNC)
			s |= VIP_STATUS_LENGTH_ERROR;
		else if (st->err != 0)
			s |= VIP_STATUS_TRANSPORT_ERROR;
		if (st->err != LC_ERR_LOST)
			scatter = got;
		d->CS.Length = (VIP_UINT32)got;
	}
	if (st->match & LCVIPL_IMM_BIT) {
		s |= VIP_STATUS_IMMEDIATE;
		d->CS.ImmediateData = (VIP_UINT32)st->match;
	}
	if (e->bounce != NULL)
		lcvipl_complete_bounced(e, s, scatter);
	else
		lcvipl_status_done(e, s);
}

/* A send's (or RDMA write's) outcome. */
static void lcvipl_send_done(struct lcvipl_vi *vi, struct lcvipl_wqe *e, int err)
{
	VIP_UINT32 s = e->d->CS.Status & VIP_STATUS_OP_MASK;

	if (err == LC_ERR_ACCESS)
		s |= VIP_STATUS_RDMA_PROT_ERROR;
	else if (err != 0) {
		s |= VIP_STATUS_TRANSPORT_ERROR;
		if (vi->state == VIP_STATE_CONNECTED && vi->attr.ReliabilityLevel != VIP_SERVICE_UNRELIABLE) {
			vi->state = VIP_STATE_ERROR;
			lcvipl_async_error(vi, VIP_ERROR_CONN_LOST, VIP_RESOURCE_VI);
		}
	}
	lcvipl_complete(e, s);
}

/* The outcome of e's lc request (its status st, or err when it is not ours any more). */
static void lcvipl_req_done(struct lcvipl_vi *vi, struct lcvipl_wq *q, struct lcvipl_wqe *e,
			    const struct lc_status *st)
{
	e->req = NULL;
	lcvipl_nic.reqs--;
	if (q == &vi->rq)
		lcvipl_recv_done(e, st);
	else
		lcvipl_send_done(vi, e, st->err);
}

/*
 * Test the oldest incomplete descriptors of q, in order, until one is not
 * done (each lc_test a progress step): the fallback of a pass whose
 * lc_testany refused its array.
 */
static void lcvipl_progress_q(struct lcvipl_vi *vi, struct lcvipl_wq *q)
{
	for (uint32_t i = q->head; i != q->tail; i++) {
		struct lcvipl_wqe *e = &q->e[i & (LCVIPL_MAX_QUEUE - 1)];
		struct lc_status st;
		int done = 0;
		if (e->done)
			continue;
		if (e->req == NULL)
			return;         /* a receive not armed yet */
		int rc = lc_test(lcvipl_nic.node, e->req, &done, &st);
		if (!done && rc != 0) {
			/* the request is not ours any more (closed node): fail the descriptor */
			st.err = rc;
			done = 1;
			st.len = 0;
			st.match = 0;
		}
		if (!done)
			return;
		lcvipl_req_done(vi, q, e, &st);
	}
}

/*
 * The oldest incomplete descriptor of q, or NULL.  Those before q->rep are
 * complete (reported), so the search starts there.  Descriptors start (get
 * their lc request) in order: when the oldest incomplete one has none, no
 * later one has.
 */
static inline struct lcvipl_wqe *lcvipl_oldest(struct lcvipl_wq *q)
{
	for (uint32_t i = q->rep; i != q->tail; i++) {
		struct lcvipl_wqe *e = &q->e[i & (LCVIPL_MAX_QUEUE - 1)];
		if (!e->done)
			return e;
	}
	return NULL;
}

/*
 * The requests a pass tests: the standing control receive first, then the
 * oldest incomplete descriptor of every queue (lock held: one pass at a time).
 */
static lc_req *lcvipl_pass_req[1 + 2 * LCVIPL_MAX_VI];
static struct lcvipl_pass_who {
	struct lcvipl_vi *vi;
	struct lcvipl_wq *q;
	struct lcvipl_wqe *e;
} lcvipl_pass_who[1 + 2 * LCVIPL_MAX_VI];

/* Start vi's descriptors that wait for a request; report what completed meanwhile. */
static inline void lcvipl_pass_start(struct lcvipl_vi *vi)
{
	if (vi->sq.armed != vi->sq.tail)
		lcvipl_start_sends(vi);
	if (vi->rq.armed != vi->rq.tail)
		lcvipl_arm_recvs(vi);
	lcvipl_report(vi);
}

/* Add the oldest incomplete descriptor of q (of vi) to the pass's array, when it has a request. */
static inline void lcvipl_pass_add(struct lcvipl_vi *vi, struct lcvipl_wq *q, int *n, int *live)
{
	struct lcvipl_wqe *e = lcvipl_oldest(q);
	if (e == NULL || e->req == NULL)
		return;
	lcvipl_pass_req[*n] = e->req;
	lcvipl_pass_who[(*n)++] = (struct lcvipl_pass_who){ vi, q, e };
	++*live;
}

/*
 * A progress pass: start what waits for a request, then test the standing
 * control receive (when ctrl) and the oldest incomplete descriptor of each
 * queue with ONE libcomm progress step for all of them, as a native poll
 * round makes: lc_testany over them (lc_test when there is one).  A
 * completed request is acted on (a control message taken, a descriptor
 * completed and reported to its CQ in order), its queue's next incomplete
 * descriptor takes its place, and the test runs again: it makes no step
 * while a request of the array is complete already, so the pass ends with
 * the step that completed nothing.  It ends earlier when the caller's wait
 * is satisfied: the oldest descriptor of want_q (a queue of want_vi)
 * complete, or an entry in want_cq; what else completed is taken by a
 * later pass.  Control messages keep their arrival order (one receive);
 * each queue completes in posting order (only its oldest is tested).
 *
 * Without ctrl -- the passes of the Done and Wait calls between those with
 * it (LCVIPL_CTRL_POLLS) -- the pass is the wait's own: only want_q, or
 * the queues of the VIs with a queue bound to want_cq, are tested (every
 * queue when none of them has a request yet: one waiting for the pool);
 * control messages wait in the standing receive, which libcomm matches as
 * they arrive all the same.
 * When a single request is tested it is tested up to spin times (steps)
 * while it does not complete, as a native wait polls, without leaving and
 * taking the lock between steps.
 */
void lcvipl_pass(struct lcvipl_vi *want_vi, struct lcvipl_wq *want_q, const struct lcvipl_cq *want_cq,
		 bool ctrl, unsigned spin)
{
	lc_req **reqs = lcvipl_pass_req;
	struct lcvipl_pass_who *who = lcvipl_pass_who;
	int n = 1, live = 0;

	if (lcvipl_nic.node == NULL)
		return;
	lcvipl_arm_due();
	reqs[0] = NULL;
	if (ctrl) {
		lcvipl_ctrl_post();
		if (lcvipl_nic.ctrl_req == NULL)
			lcvipl_dispatch();      /* no standing receive: the probe */
	}
	if (!ctrl && want_q != NULL) {
		lcvipl_pass_start(want_vi);
		lcvipl_pass_add(want_vi, want_q, &n, &live);
	} else if (!ctrl && want_cq != NULL) {
		int cqi = (int)(want_cq - lcvipl_nic.cqs);
		for (unsigned k = 0; k < lcvipl_nic.vi_end; k++) {
			struct lcvipl_vi *vi = lcvipl_nic.vis[k];
			if (vi == NULL || (vi->sq.cq != cqi && vi->rq.cq != cqi) ||
			    (vi->sq.rep == vi->sq.tail && vi->rq.rep == vi->rq.tail))
				continue;
			/* both queues: a send completing meanwhile is taken off the next call's path */
			lcvipl_pass_start(vi);
			lcvipl_pass_add(vi, &vi->sq, &n, &live);
			lcvipl_pass_add(vi, &vi->rq, &n, &live);
		}
	}
	if (live == 0 && !(want_cq != NULL && want_cq->head != want_cq->tail))
		for (unsigned k = 0; k < lcvipl_nic.vi_end; k++) {
			struct lcvipl_vi *vi = lcvipl_nic.vis[k];
			if (vi == NULL || (vi->sq.rep == vi->sq.tail && vi->rq.rep == vi->rq.tail))
				continue;       /* nothing pending */
			lcvipl_pass_start(vi);
			lcvipl_pass_add(vi, &vi->sq, &n, &live);
			lcvipl_pass_add(vi, &vi->rq, &n, &live);
		}
	else if (ctrl)
		for (unsigned k = 0; k < lcvipl_nic.vi_end; k++) {
			struct lcvipl_vi *vi = lcvipl_nic.vis[k];
			if (vi == NULL || (vi->sq.rep == vi->sq.tail && vi->rq.rep == vi->rq.tail))
				continue;
			lcvipl_pass_start(vi);
			lcvipl_pass_add(vi, &vi->sq, &n, &live);
			lcvipl_pass_add(vi, &vi->rq, &n, &live);
		}
	/* the control receive last: starting an RDMA write may have taken adverts (and reposted it) */
	if (ctrl && (reqs[0] = lcvipl_nic.ctrl_req) != NULL)
		live++;
	if ((want_q != NULL && want_q->head != want_q->tail &&
	     want_q->e[want_q->head & (LCVIPL_MAX_QUEUE - 1)].done) ||
	    (want_cq != NULL && want_cq->head != want_cq->tail))
		return;         /* satisfied by what the start reported */
	for (;;) {
		struct lc_status st;
		int idx = -1, done = 0, rc;
		if (live == 0) {
			lc_progress(lcvipl_nic.node);   /* nothing to test: the step of the pass */
			break;
		}
		if (live == 1) {
			/* one request: lc_test_steps, up to spin steps at the price of a native wait's rounds */
			int last = 0;
			while (reqs[last] == NULL)
				last++;
			rc = lc_test_steps(lcvipl_nic.node, reqs[last], spin, &done, &st);
			if (done) {
				idx = last;
				reqs[last] = NULL;
			}
		} else
			rc = lc_testany(lcvipl_nic.node, n, reqs, &idx, &done, &st);
		if (!done) {
			if (rc != 0) {
				/* a request is not ours any more (closed node): test them one by one */
				if (reqs[0] != NULL)
					lcvipl_dispatch();
				for (int i = 1; i < n; i++) {
					if (reqs[i] == NULL)
						continue;
					lcvipl_progress_q(who[i].vi, who[i].q);
					lcvipl_report(who[i].vi);
				}
			}
			break;
		}
		if (idx < 0) {
			lc_progress(lcvipl_nic.node);
			break;
		}
		live--;
		if (idx == 0) {
			lcvipl_ctrl_taken(&st, rc);
			if ((reqs[0] = lcvipl_nic.ctrl_req) != NULL)
				live++;
			continue;
		}
		struct lcvipl_pass_who *w = &who[idx];
		lcvipl_req_done(w->vi, w->q, w->e, &st);
		lcvipl_report_wq(w->vi, w->q);
		/* the wait satisfied: the pass ends (its arrays are built anew by the next) */
		if (want_q != NULL && want_q->head != want_q->tail &&
		    want_q->e[want_q->head & (LCVIPL_MAX_QUEUE - 1)].done)
			break;
		if (want_cq != NULL && want_cq->head != want_cq->tail)
			break;
		w->e = lcvipl_oldest(w->q);
		if ((reqs[idx] = w->e != NULL ? w->e->req : NULL) != NULL)
			live++;
	}
	if (ctrl)
		lcvipl_peers();
}

/*
 * The Done and Wait calls' own test: q's oldest descriptor (of vi) alone,
 * lc_test up to spin steps while it does not complete (none when its
 * request completed already).  1: it is complete now; 0: not yet (the
 * steps were made); -1: it has no request yet (a pass must start it).
 */
int lcvipl_poll_head(struct lcvipl_vi *vi, struct lcvipl_wq *q, unsigned spin)
{
	struct lc_status st;
	int done = 0, rc;

	if (q->head == q->tail)
		return -1;
	struct lcvipl_wqe *e = &q->e[q->head & (LCVIPL_MAX_QUEUE - 1)];
	if (e->done)
		return 1;
	if (lcvipl_nic.arm_due)
		return -1;              /* receives to start first: a pass */
	if (e->req == NULL || lcvipl_nic.node == NULL)
		return -1;
	rc = lc_test_steps(lcvipl_nic.node, e->req, spin, &done, &st);
	if (!done) {
		if (rc == 0)
			return 0;
		lcvipl_progress_q(vi, q);       /* not ours any more (closed node): fail it */
	} else
		lcvipl_req_done(vi, q, e, &st);
	lcvipl_report(vi);
	return e->done ? 1 : 0;
}

void lcvipl_progress(void)
{
	lcvipl_pass(NULL, NULL, NULL, true, 1);
}

/* Start the receives VipPostRecv left to the next step (before the step: lock held). */
void lcvipl_arm_due_all(void)
{
	lcvipl_nic.arm_due = false;
	for (unsigned k = 0; k < lcvipl_nic.vi_end; k++) {
		struct lcvipl_vi *vi = lcvipl_nic.vis[k];
		if (vi != NULL && vi->rq.armed != vi->rq.tail) {
			lcvipl_arm_recvs(vi);
			lcvipl_report_wq(vi, &vi->rq);  /* a receive that could not start completed */
		}
	}
}

/* Post the lc receives of the connected VI's receive descriptors not yet armed, in order. */
void lcvipl_arm_recvs(struct lcvipl_vi *vi)
{
	struct lcvipl_wq *q = &vi->rq;

	if (vi->state != VIP_STATE_CONNECTED)
		return;
	for (; q->armed != q->tail; q->armed++) {
		struct lcvipl_wqe *e = &q->e[q->armed & (LCVIPL_MAX_QUEUE - 1)];
		VIP_DESCRIPTOR *d = e->d;
		void *buf = lcvipl_empty;
		if (e->done)
			continue;
		if (lcvipl_nic.reqs >= LCVIPL_REQ_DATA)
			return;         /* the pool is spent: later */
		if (d->CS.SegCount == 1)
			buf = d->DS[0].Local.Data.Address;
		else if (d->CS.SegCount > 1) {
			if (e->bounce == NULL && e->cap <= LCVIPL_SMALL)
				e->bounce = e->small;
			if (e->bounce == NULL && (e->bounce = malloc(e->cap ? e->cap : 1)) == NULL) {
				lcvipl_complete(e, VIP_STATUS_OP_RECEIVE | VIP_STATUS_TRANSPORT_ERROR);
				continue;
			}
			buf = e->bounce;
		}
		int rc = lc_irecv_match(lcvipl_nic.node, vi->peer_node, LCVIPL_RX_MATCH(vi->num), LCVIPL_RX_MASK,
					buf, e->cap, &e->req);
		if (rc == LC_ERR_AGAIN)
			return;
		if (rc != 0)
			lcvipl_complete(e, VIP_STATUS_OP_RECEIVE | VIP_STATUS_TRANSPORT_ERROR);
		else
			lcvipl_nic.reqs++;
	}
}

/*
 * Start send queue entry e of the connected VI (a free request checked):
 * an RDMA write, or a send by lc_isend_now -- one that leaves at once
 * completes now, with no lc request to test (8 B ping-pong: no pool
 * request, no lc_test of it, no pass over the send queue).  -1: libcomm
 * has no room now (e stays unstarted); 0: started or completed.
 */
static inline int lcvipl_start_send(struct lcvipl_vi *vi, struct lcvipl_wqe *e)
{
	VIP_DESCRIPTOR *d = e->d;
	VIP_UINT32 sop = d->CS.Status & VIP_STATUS_OP_MASK;
	int rc;

	if (sop == VIP_STATUS_OP_RDMA_WRITE) {
		if ((rc = lcvipl_post_rdma(vi, e, e->buf, e->cap)) < 0)
			return -1;
	} else {
		uint64_t m = LCVIPL_MAGIC | LCVIPL_KIND_DATA | ((uint64_t)vi->peer_vi << LCVIPL_VI_SHIFT);
		if (d->CS.Control & VIP_CONTROL_IMMEDIATE)
			m |= LCVIPL_IMM_BIT | d->CS.ImmediateData;
		rc = lc_isend_now(lcvipl_nic.node, vi->peer_node, m, e->buf, e->cap, &e->req);
		if (rc == LC_ERR_AGAIN)
			return -1;
		if (rc != 0 || e->req == NULL) {
			lcvipl_send_done(vi, e, rc);
			return 0;
		}
	}
	if (rc != 0)
		lcvipl_complete(e, sop | (VIP_UINT32)rc);
	else
		lcvipl_nic.reqs++;
	return 0;
}

/* Start the connected VI's sends and RDMA writes not started yet, in order, while requests are free. */
void lcvipl_start_sends(struct lcvipl_vi *vi)
{
	struct lcvipl_wq *q = &vi->sq;

	if (vi->state != VIP_STATE_CONNECTED)
		return;
	for (; q->armed != q->tail; q->armed++) {
		struct lcvipl_wqe *e = &q->e[q->armed & (LCVIPL_MAX_QUEUE - 1)];
		if (e->done)
			continue;
		if (lcvipl_nic.reqs >= LCVIPL_REQ_DATA || lcvipl_start_send(vi, e) < 0)
			return;
	}
}

/*
 * Flush the VI's queues (VipDisconnect, the NIC's close): receives not
 * matched yet complete with VIP_STATUS_DESC_FLUSHED_ERROR (their lc
 * receives cancelled); receives already matched and sends complete as they
 * do.  Everything reaches the CQs.
 */
void lcvipl_flush(struct lcvipl_vi *vi)
{
	for (int r = 0; r < 2; r++) {
		struct lcvipl_wq *q = r ? &vi->rq : &vi->sq;
		for (uint32_t i = q->head; i != q->tail; i++) {
			struct lcvipl_wqe *e = &q->e[i & (LCVIPL_MAX_QUEUE - 1)];
			struct lc_status st = { 0 };
			if (e->done)
				continue;
			if (e->req == NULL) {
				lcvipl_complete(e, (r ? VIP_STATUS_OP_RECEIVE : (e->d->CS.Status & VIP_STATUS_OP_MASK)) |
						   VIP_STATUS_DESC_FLUSHED_ERROR);
				continue;
			}
			if (r)
				lc_cancel(lcvipl_nic.node, e->req);
			int rc = lc_wait(lcvipl_nic.node, e->req, &st);
			if (rc != 0 && st.err == 0)
				st.err = rc;
			e->req = NULL;
			lcvipl_nic.reqs--;
			if (r)
				lcvipl_recv_done(e, &st);
			else
				lcvipl_send_done(vi, e, st.err);
		}
		q->armed = q->tail;
	}
	lcvipl_report(vi);
}

/*
 * The checks every Post call makes before the descriptor is queued:
 * VIP_INVALID_PARAMETER for a bad handle, a NULL or misaligned descriptor,
 * or one outside the registered region mh; VIP_INVALID_STATE in the Error
 * state; VIP_ERROR_RESOURCE when the queue is full.
 */
static inline VIP_RETURN lcvipl_post_check(struct lcvipl_vi *vi, struct lcvipl_wq *q, VIP_DESCRIPTOR *d,
				    VIP_MEM_HANDLE mh, struct lcvipl_region **dr)
{
	if (vi == NULL || d == NULL || ((uintptr_t)d & (VIP_DESCRIPTOR_ALIGNMENT - 1)) != 0)
		return VIP_INVALID_PARAMETER;
	struct lcvipl_region *r = *dr = lcvipl_region_of(mh);
	if (r == NULL || !lcvipl_region_covers(r, d, sizeof d->CS))
		return VIP_INVALID_PARAMETER;
	if (vi->state == VIP_STATE_ERROR)
		return VIP_INVALID_STATE;
	if (q->tail - q->head == LCVIPL_MAX_QUEUE)
		return VIP_ERROR_RESOURCE;
	return VIP_SUCCESS;
}

/*
 * The data segments from index first: each in a registered region of the
 * VI's tag (else VIP_STATUS_PROTECTION_ERROR); the count within the limit
 * and the descriptor within its region dr, the one lcvipl_post_check found
 * (VIP_STATUS_FORMAT_ERROR).  *total: the bytes.  Returns 0 or the error bit.
 */
static inline VIP_UINT32 lcvipl_segments(const struct lcvipl_vi *vi, VIP_DESCRIPTOR *d, const struct lcvipl_region *dr,
				  unsigned first, size_t *total)
{
	unsigned n = d->CS.SegCount;

	*total = 0;
	if (n < first || n - first > LCVIPL_MAX_SEGS ||
	    !lcvipl_region_covers(dr, d, sizeof d->CS + (size_t)n * sizeof d->DS[0]))
		return VIP_STATUS_FORMAT_ERROR;
	const struct lcvipl_region *r = NULL;
	for (unsigned k = first; k < n; k++) {
		const VIP_DATA_SEGMENT *s = &d->DS[k].Local;
		/* a gather's segments are often in one region: found once, checked against its tag once */
		if (r == NULL || r->handle != s->Handle) {
			r = lcvipl_region_of(s->Handle);
			if (r == NULL || r->ptag != vi->ptag)
				return VIP_STATUS_PROTECTION_ERROR;
		}
		if (!lcvipl_region_covers(r, s->Data.Address, s->Length))
			return VIP_STATUS_PROTECTION_ERROR;
		*total += s->Length;
	}
	return 0;
}

VIP_RETURN VipPostSend(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr, VIP_MEM_HANDLE MemoryHandle)
{
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	struct lcvipl_region *dr;
	VIP_RETURN r = lcvipl_post_check(vi, vi ? &vi->sq : NULL, DescriptorPtr, MemoryHandle, &dr);
	if (r != VIP_SUCCESS) {
		lcvipl_unlock();
		return r;
	}
	VIP_DESCRIPTOR *d = DescriptorPtr;
	unsigned op = d->CS.Control & VIP_CONTROL_OP_MASK;
	if (op == VIP_CONTROL_OP_RDMAWRITE && !lcvipl_rdma_available()) {
		lcvipl_unlock();
		return VIP_ERROR_NOT_SUPPORTED;         /* libcomm without lc_iput (rdma.c) */
	}
	VIP_UINT32 sop = op == VIP_CONTROL_OP_RDMAWRITE ? VIP_STATUS_OP_RDMA_WRITE :
			 op == VIP_CONTROL_OP_RDMAREAD ? VIP_STATUS_OP_RDMA_READ : VIP_STATUS_OP_SEND;
	struct lcvipl_wqe *e = lcvipl_push(&vi->sq, d);
	size_t total = 0;
	VIP_UINT32 err = 0;

	d->CS.Status = sop;     /* the op field, until completion adds the rest */
	if (op == VIP_CONTROL_OP_RDMAREAD || op == VIP_CONTROL_OP_RESERVED ||
	    (d->CS.Control & VIP_CONTROL_RESERVED))
		err = VIP_STATUS_FORMAT_ERROR;
	else if ((err = lcvipl_segments(vi, d, dr, op == VIP_CONTROL_OP_RDMAWRITE, &total)) != 0)
		;
	else if (total != d->CS.Length)
		err = VIP_STATUS_FORMAT_ERROR;
	else if (total > vi->attr.MaxTransferSize)
		err = VIP_STATUS_LENGTH_ERROR;
	else if (vi->state != VIP_STATE_CONNECTED)
		err = VIP_STATUS_DESC_FLUSHED_ERROR;
	if (err != 0) {
		lcvipl_complete(e, sop | err);
		lcvipl_report(vi);
		lcvipl_unlock();
		return VIP_SUCCESS;
	}

	/* gather: one segment is sent from where it is, several through a bounce buffer */
	unsigned first = op == VIP_CONTROL_OP_RDMAWRITE, nseg = d->CS.SegCount - first;
	const void *buf = lcvipl_empty;
	if (nseg == 1)
		buf = d->DS[first].Local.Data.Address;
	else if (nseg > 1) {
		uint8_t *p = total <= LCVIPL_SMALL ? (uint8_t *)e->small : malloc(total ? total : 1);
		if (p == NULL) {
			lcvipl_complete(e, sop | VIP_STATUS_TRANSPORT_ERROR);
			lcvipl_report(vi);
			lcvipl_unlock();
			return VIP_SUCCESS;
		}
		e->bounce = p;
		for (unsigned k = first; k < d->CS.SegCount; k++) {
			memcpy(p, d->DS[k].Local.Data.Address, d->DS[k].Local.Length);
			p += d->DS[k].Local.Length;
		}
		buf = e->bounce;
	}
	e->buf = buf;
	e->cap = total;
	lcvipl_start_sends(vi);
	lcvipl_report_wq(vi, &vi->sq);
	lcvipl_unlock();
	return VIP_SUCCESS;
}

VIP_RETURN VipPostRecv(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR *DescriptorPtr, VIP_MEM_HANDLE MemoryHandle)
{
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	struct lcvipl_region *dr;
	VIP_RETURN r = lcvipl_post_check(vi, vi ? &vi->rq : NULL, DescriptorPtr, MemoryHandle, &dr);
	if (r != VIP_SUCCESS) {
		lcvipl_unlock();
		return r;
	}
	VIP_DESCRIPTOR *d = DescriptorPtr;
	struct lcvipl_wqe *e = lcvipl_push(&vi->rq, d);
	size_t total = 0;
	VIP_UINT32 err = 0;

	d->CS.Status = VIP_STATUS_OP_RECEIVE;
	if ((d->CS.Control & VIP_CONTROL_OP_MASK) != VIP_CONTROL_OP_SENDRECV ||
	    (d->CS.Control & VIP_CONTROL_RESERVED))
		err = VIP_STATUS_FORMAT_ERROR;
	else
		err = lcvipl_segments(vi, d, dr, 0, &total);
	if (err != 0) {
		lcvipl_complete(e, VIP_STATUS_OP_RECEIVE | err);
		lcvipl_report(vi);
	} else {
		/*
		 * started (lc_irecv_match) by the next progress step's pass, before
		 * the step: no message is matched before a step, so it is the same
		 * receive, posted off the path between this call and the program's
		 * next send (lcvipl_arm_due)
		 */
		e->cap = total;
		if (vi->state == VIP_STATE_CONNECTED)
			lcvipl_nic.arm_due = true;
	}
	lcvipl_unlock();
	return VIP_SUCCESS;
}
