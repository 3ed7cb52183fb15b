/* SPDX-License-Identifier: MIT */
/*
 * The point-to-point engine: eager messages and the rendezvous above the
 * eager limit (mpi_impl.h, enum lcmpi_step), and the progress of every
 * pending request.  A step of one request may need another's (a node that
 * waits for its own send's CTS must still answer its peer's RTS with a
 * CTS), so every wait drives every pending request: lcmpi_progress waits
 * on all their libcomm requests at once (lc_waitany) and moves the one
 * that completed to its next step.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* The rendezvous' own words (context RDV): the data and the CTS of cookie k from one node. */
static inline uint64_t lcmpi_rdv_word(uint64_t cookie, int cts)
{
	return ((uint64_t)LCMPI_CTX_RDV << LCMPI_CTX_SHIFT) | (cookie << LCMPI_COOKIE_SHIFT) |
	       (uint64_t)cts;
}

static inline uint64_t lcmpi_cookie_of(uint64_t match)
{
	return (match >> LCMPI_COOKIE_SHIFT) & 0xffffu;
}

static void lcmpi_active_add(struct lcmpi_request *r)
{
	struct lcmpi_request *h = &lcmpi.active;
	r->next = h;
	r->prev = h->prev;
	h->prev->next = r;
	h->prev = r;
	lcmpi.nactive++;
}

/* r has no libcomm request left and no step to take: done (an orphan is freed). */
static void lcmpi_done(struct lcmpi_request *r)
{
	r->step = LCMPI_ST_DONE;
	r->prev->next = r->next;
	r->next->prev = r->prev;
	r->next = r->prev = NULL;
	lcmpi.nactive--;
	if (r->orphan)
		lcmpi_req_free(r);
}

/* Keep the first error of a request. */
static inline void lcmpi_fail(struct lcmpi_request *r, int lrc)
{
	if (lrc != 0 && (r->lrc == 0 || r->lrc == LC_ERR_TRUNC))
		r->lrc = lrc;
}

/*
 * A libcomm post for r failed with lrc (LC_ERR_AGAIN: the pool of
 * host.max_requests is full).  The request ends with that error once its
 * other libcomm request, if any, completed.
 */
static void lcmpi_post_failed(struct lcmpi_request *r, int lrc)
{
	lcmpi_fail(r, lrc);
	if (!r->lr[0] && !r->lr[1])
		lcmpi_done(r);
}

/* A receive took the RTS of a message of len bytes (src, match): post the data receive and the CTS. */
static void lcmpi_rdv_accept(struct lcmpi_request *r, int src, uint64_t match, uint64_t len)
{
	r->st.src = src;
	r->st.match = match & LCMPI_MASK_TAG;
	r->st.len = (size_t)len;
	r->st.err = 0;
	r->peer = src;
	r->rdv = lcmpi_cookie_of(match);
	r->word = len < r->cap ? len : r->cap;  /* a truncated message: the prefix that fits */
	if (len > r->cap)
		r->lrc = LC_ERR_TRUNC;
	r->step = LCMPI_ST_DATA;
	int lrc = lc_irecv_match(lcmpi.node, src, lcmpi_rdv_word(r->rdv, 0), LC_MATCH_ALL, r->buf,
				 (size_t)r->word, &r->lr[0]);
	if (lrc == 0)
		lrc = lc_isend_match(lcmpi.node, src, lcmpi_rdv_word(r->rdv, 1), &r->word,
				     sizeof r->word, &r->lr[1]);
	if (lrc != 0)
		lcmpi_post_failed(r, lrc);
}

/* The eager receive of r completed (lrc, ls): a message, or the RTS of a rendezvous. */
static void lcmpi_recv_taken(struct lcmpi_request *r, int lrc, const struct lc_status *ls)
{
	void *at = r->cap < sizeof r->word ? (void *)&r->word : r->buf;
	if ((lrc == 0 || lrc == LC_ERR_TRUNC) && (ls->match & LCMPI_RTS_FLAG) &&
	    ls->len == sizeof(uint64_t)) {
		uint64_t len;
		memcpy(&len, at, sizeof len);
		lcmpi_rdv_accept(r, ls->src, ls->match, len);
		return;
	}
	r->st = *ls;
	r->lrc = lrc;
	if (at != r->buf && (lrc == 0 || lrc == LC_ERR_TRUNC)) {       /* bounced */
		memcpy(r->buf, at, ls->len < r->cap ? ls->len : r->cap);
		if (ls->len > r->cap)
			r->lrc = LC_ERR_TRUNC;
	}
	lcmpi_done(r);
}

/* libcomm request `slot` of r completed with lrc, ls: the next step. */
static void lcmpi_step(struct lcmpi_request *r, int slot, int lrc, const struct lc_status *ls)
{
	r->lr[slot] = NULL;
	if (r->step == LCMPI_ST_EAGER) {
		if (r->kind == LCMPI_REQ_RECV) {
			lcmpi_recv_taken(r, lrc, ls);
			return;
		}
		r->lrc = lrc;
		r->st = *ls;
		lcmpi_done(r);
		return;
	}
	if (lrc != 0 && lrc != LC_ERR_TRUNC)
		lcmpi_fail(r, lrc);
	if (r->lr[0] || r->lr[1])
		return;         /* the other half is still pending */
	if (r->step == LCMPI_ST_RTS && r->lrc == 0) {
		/* the CTS arrived: send what the receiver takes */
		size_t n = r->cts < r->cap ? (size_t)r->cts : r->cap;
		r->step = LCMPI_ST_DATA;
		int prc = lc_isend_match(lcmpi.node, r->peer, lcmpi_rdv_word(r->rdv, 0), r->buf, n,
					 &r->lr[0]);
		if (prc != 0)
			lcmpi_post_failed(r, prc);
		return;
	}
	lcmpi_done(r);
}

int lcmpi_progress(int wait)
{
	if (lcmpi.nactive == 0)
		return 0;
	if (2 * lcmpi.nactive > lcmpi.poll_cap) {
		int cap = 4 * lcmpi.nactive;
		lc_req **lr = realloc(lcmpi.poll_lr, (size_t)cap * sizeof *lr);
		if (lr)
			lcmpi.poll_lr = lr;
		struct lcmpi_request **o = realloc(lcmpi.poll_owner, (size_t)cap * sizeof *o);
		if (o)
			lcmpi.poll_owner = o;
		unsigned char *sl = realloc(lcmpi.poll_slot, (size_t)cap);
		if (sl)
			lcmpi.poll_slot = sl;
		if (!lr || !o || !sl)
			return LC_ERR_NOMEM;
		lcmpi.poll_cap = cap;
	}
	int n = 0;
	for (struct lcmpi_request *r = lcmpi.active.next; r != &lcmpi.active; r = r->next)
		for (int s = 0; s < 2; s++)
			if (r->lr[s]) {
				lcmpi.poll_lr[n] = r->lr[s];
				lcmpi.poll_slot[n] = s;
				lcmpi.poll_owner[n++] = r;
			}
	for (;;) {
		int idx = -1, done = 0;
		struct lc_status ls = { 0 };
		int lrc = wait ? lc_waitany(lcmpi.node, n, lcmpi.poll_lr, &idx, &ls)
			       : lc_testany(lcmpi.node, n, lcmpi.poll_lr, &idx, &done, &ls);
		if (idx < 0)
			return lrc;
		lcmpi_step(lcmpi.poll_owner[idx], lcmpi.poll_slot[idx], lrc, &ls);
		if (wait)
			return 0;
		/* test: take every completion there is (new posts wait for the next call) */
	}
}

void lcmpi_wait_done(struct lcmpi_request *r)
{
	while (r->step != LCMPI_ST_DONE)
		if (lcmpi_progress(1) != 0 && r->step != LCMPI_ST_DONE) {
			/* a failure of libcomm itself: end r with it */
			lcmpi_fail(r, LC_ERR_INVAL);
			return;
		}
}

static int lcmpi_post_begin(struct lcmpi_request *r, void *buf, size_t len)
{
	r->buf = buf;
	r->cap = len;
	r->posted = 1;
	r->step = LCMPI_ST_EAGER;
	r->lrc = 0;
	memset(&r->st, 0, sizeof r->st);
	lcmpi_active_add(r);
	return 0;
}

/* A libcomm post failed at once: nothing pending, the request is freed; the MPI class. */
static int lcmpi_post_undo(struct lcmpi_request *r, int lrc)
{
	if (r->lr[0] || r->lr[1]) {     /* the RTS's other half went: end it as a failed request */
		lcmpi_post_failed(r, lrc);
		lcmpi_wait_done(r);
	} else {
		lcmpi_done(r);
	}
	lcmpi_req_free(r);
	return lcmpi_err_of_lc(lrc);
}

int lcmpi_post_send(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag, const void *buf,
		    size_t len, int sync, MPI_Comm comm, struct lcmpi_request **out)
{
	struct lcmpi_request *r = lcmpi_req_new(LCMPI_REQ_SEND, comm);
	if (!r)
		return MPI_ERR_NO_MEM;
	*out = r;
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	lcmpi_post_begin(r, (void *)buf, len);
	int node = c->node_of[dest], lrc;
	uint64_t m = lcmpi_match(ctx, tag);
	if (len <= lcmpi.eager) {
		lrc = sync ? lc_issend(lcmpi.node, node, m, buf, len, &r->lr[0])
			   : lc_isend_match(lcmpi.node, node, m, buf, len, &r->lr[0]);
		return lrc ? lcmpi_post_undo(r, lrc) : MPI_SUCCESS;
	}
	/* rendezvous: the CTS receive first, so the answer always meets it */
	r->step = LCMPI_ST_RTS;
	r->peer = node;
	r->rdv = lcmpi.cookie[node]++;
	r->word = len;
	lrc = lc_irecv_match(lcmpi.node, node, lcmpi_rdv_word(r->rdv, 1), LC_MATCH_ALL, &r->cts,
			     sizeof r->cts, &r->lr[1]);
	if (lrc == 0)
		lrc = lc_isend_match(lcmpi.node, node,
				     m | (r->rdv << LCMPI_COOKIE_SHIFT) | LCMPI_RTS_FLAG, &r->word,
				     sizeof r->word, &r->lr[0]);
	if (lrc != 0 && r->lr[1]) {
		lc_cancel(lcmpi.node, r->lr[1]);        /* no RTS went: nobody answers */
		lc_wait(lcmpi.node, r->lr[1], NULL);
		r->lr[1] = NULL;
	}
	return lrc ? lcmpi_post_undo(r, lrc) : MPI_SUCCESS;
}

int lcmpi_post_recv(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag, void *buf,
		    size_t cap, MPI_Comm comm, struct lcmpi_request **out)
{
	struct lcmpi_request *r = lcmpi_req_new(LCMPI_REQ_RECV, comm);
	if (!r)
		return MPI_ERR_NO_MEM;
	*out = r;
	if (src == MPI_PROC_NULL)
		return MPI_SUCCESS;
	lcmpi_post_begin(r, buf, cap);
	int node;
	uint64_t m, mask;
	lcmpi_recv_args(c, ctx, src, tag, &node, &m, &mask);
	struct lcmpi_pulled *p = lcmpi.pulled ? lcmpi_pulled_take(node, m, mask, 1) : NULL;
	if (p) {
		lcmpi_recv_pulled(r, p);
		return MPI_SUCCESS;
	}
	/* a receive below 8 bytes lands in r->word first: an RTS must fit */
	int small = cap < sizeof r->word;
	int lrc = lc_irecv_match(lcmpi.node, node, m, mask, small ? (void *)&r->word : buf,
				 small ? sizeof r->word : cap, &r->lr[0]);
	return lrc ? lcmpi_post_undo(r, lrc) : MPI_SUCCESS;
}

void lcmpi_recv_pulled(struct lcmpi_request *r, struct lcmpi_pulled *p)
{
	lcmpi_rdv_accept(r, p->src, p->match, p->len);
	free(p);
}

int lcmpi_cancel(struct lcmpi_request *r)
{
	if (r->kind != LCMPI_REQ_RECV || r->step != LCMPI_ST_EAGER || !r->lr[0])
		return 0;
	return lc_cancel(lcmpi.node, r->lr[0]);
}

int lcmpi_send_rest(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag, const void *buf,
		    size_t len, int sync)
{
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (len <= lcmpi.eager) {       /* completes locally, no peer step needed */
		uint64_t m = lcmpi_match(ctx, tag);
		int lrc = sync ? lc_ssend(lcmpi.node, c->node_of[dest], m, buf, len)
			       : lc_send_match(lcmpi.node, c->node_of[dest], m, buf, len);
		return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
	}
	struct lcmpi_request *r;
	int rc = lcmpi_post_send(c, ctx, dest, tag, buf, len, sync, MPI_COMM_NULL, &r);
	if (rc != MPI_SUCCESS)
		return rc;
	lcmpi_wait_done(r);
	int lrc = r->lrc;
	lcmpi_req_free(r);
	return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
}

int lcmpi_recv_rest(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag, void *buf,
		    size_t cap, struct lc_status *st, int lrc, const struct lc_status *ls)
{
	if (src == MPI_PROC_NULL) {
		if (st)
			*st = (struct lc_status){ 0 };
		return MPI_SUCCESS;
	}
	struct lcmpi_request *r;
	if (lrc != 1) {
		/* lcmpi_recv_ctx's one libcomm receive took a request to send: the rendezvous as
		 * for a posted receive */
		if (!(r = lcmpi_req_new(LCMPI_REQ_RECV, MPI_COMM_NULL)))
			return MPI_ERR_NO_MEM;
		lcmpi_post_begin(r, buf, cap);
		lcmpi_recv_taken(r, lrc, ls);
	} else {
		int rc = lcmpi_post_recv(c, ctx, src, tag, buf, cap, MPI_COMM_NULL, &r);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	lcmpi_wait_done(r);
	lrc = r->lrc;
	if (st)
		*st = r->st;
	lcmpi_req_free(r);
	return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
}
