/* SPDX-License-Identifier: MIT */
/*
 * The point-to-point engine: eager messages and the rendezvous above the
 * eager limit (mpi_impl.h, enum lcmpi_step), and the progress of every
 * pending request.  A step of one request may need another's (a node that
 * waits for its own send's CTS must still answer its peer's RTS with a
 * CTS), so every wait drives every pending request: lcmpi_progress waits
 * on all their libcomm requests at once (lc_waitsome) and moves those
 * that completed to their next steps.
 */
#include <stdlib.h>
#include <string.h>

#include "lc_config.h"
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
 * Room.  Every libcomm request comes from the pool of host.max_requests
 * (LC_ERR_AGAIN when all are in use), and a program may have more MPI
 * requests pending than that (a window of 64 nonblocking sends).  A step
 * that finds no room waits on lcmpi.waitq and is tried again whenever a
 * libcomm request of the personality completes (lcmpi_drain); the MPI call
 * that posted it returns at once.  Each step posts all of its libcomm
 * requests or none.  So that two nodes whose receives fill their pools can
 * still send, and a started rendezvous can always take its next step, a
 * first post (a new send or receive) leaves LCMPI_STEP_RESERVE requests to
 * the steps of started ones, and receives take at most half of the rest.
 * First posts keep their order per kind (MPI's non-overtaking rule: a new
 * send never passes a waiting send, a new receive never a waiting receive);
 * steps of started requests go first, in any order.
 */
#define LCMPI_STEP_RESERVE (LC_HOST_MAX_REQUESTS > 2 ? 2 : 0)
#define LCMPI_POST_MAX (LC_HOST_MAX_REQUESTS - LCMPI_STEP_RESERVE)
#define LCMPI_RECV_MAX (LCMPI_POST_MAX / 2 > 0 ? LCMPI_POST_MAX / 2 : 1)

/*
 * The poll arrays: every libcomm request the personality holds, in the
 * order it was posted, with the request and slot it belongs to -- what
 * lcmpi_progress hands lc_waitsome.  An entry is added when a post holds
 * a libcomm request (lcmpi_hold) and becomes a hole (NULL) when it
 * completes or is taken back (lcmpi_unhold, from lcmpi_step or a step's undo).  The
 * scan starts past the leading holes (poll_lo: completions come mostly in
 * the order of the posts), and the holes are squeezed out
 * (lcmpi_poll_compact) once they outnumber the held entries after it, so a
 * scan is at most twice the held ones and each entry moves O(1) times; with
 * none held they start over.  At most LC_HOST_MAX_REQUESTS are held (each is
 * one of libcomm's pool), so twice that is room for all with the holes a
 * compaction leaves.  Kept between calls: rebuilt from the active list in
 * every call, they cost msgrate's MPI twin's receiver about 100 Ir a message.
 */
#define LCMPI_POLL_CAP (2 * LC_HOST_MAX_REQUESTS)
static lc_req *lcmpi_poll_lr[LCMPI_POLL_CAP];
static struct lcmpi_request *lcmpi_poll_owner[LCMPI_POLL_CAP];
static unsigned char lcmpi_poll_slot[LCMPI_POLL_CAP];
static int lcmpi_poll_idx[LCMPI_POLL_CAP];              /* lc_waitsome's indices and statuses */
static struct lc_status lcmpi_poll_st[LCMPI_POLL_CAP];
static struct lcmpi_request *lcmpi_took[LCMPI_POLL_CAP]; /* the completions' owners and slots */
static unsigned char lcmpi_took_slot[LCMPI_POLL_CAP];

static void lcmpi_poll_compact(void)
{
	int n = 0;
	for (int i = lcmpi.poll_lo; i < lcmpi.poll_n; i++)
		if (lcmpi_poll_lr[i]) {
			struct lcmpi_request *r = lcmpi_poll_owner[i];
			lcmpi_poll_lr[n] = lcmpi_poll_lr[i];
			lcmpi_poll_owner[n] = r;
			lcmpi_poll_slot[n] = lcmpi_poll_slot[i];
			r->pidx[lcmpi_poll_slot[i]] = n++;
		}
	lcmpi.poll_lo = 0;
	lcmpi.poll_n = n;
}

/* r's slot holds a libcomm request now: counted in lcmpi.held, polled by lcmpi_progress. */
static inline void lcmpi_hold(struct lcmpi_request *r, int slot)
{
	if (lcmpi.held == 0)            /* every entry is a hole */
		lcmpi.poll_lo = lcmpi.poll_n = 0;
	else if (lcmpi.poll_n == LCMPI_POLL_CAP)
		lcmpi_poll_compact();
	int i = lcmpi.poll_n++;
	lcmpi_poll_lr[i] = r->lr[slot];
	lcmpi_poll_owner[i] = r;
	lcmpi_poll_slot[i] = (unsigned char)slot;
	r->pidx[slot] = i;
	lcmpi.held++;
}

/* r's slot holds none any more (it completed or was taken back): its entry a hole. */
static inline void lcmpi_unhold(struct lcmpi_request *r, int slot)
{
	lcmpi_poll_lr[r->pidx[slot]] = NULL;    /* lc_waitsome's completions are NULL already */
	r->lr[slot] = NULL;
	lcmpi.held--;
}

/* libcomm posts for r's slot, held (lcmpi_hold) when they succeed. */
static int lcmpi_lc_send(struct lcmpi_request *r, int slot, uint64_t match, const void *buf,
			 size_t len, int sync)
{
	int lrc = sync ? lc_issend(lcmpi.node, r->peer, match, buf, len, &r->lr[slot])
		       : lc_isend_match(lcmpi.node, r->peer, match, buf, len, &r->lr[slot]);
	if (lrc == 0)
		lcmpi_hold(r, slot);
	return lrc;
}

static int lcmpi_lc_recv(struct lcmpi_request *r, int slot, int node, uint64_t match,
			 uint64_t mask, void *buf, size_t cap)
{
	int lrc = lc_irecv_match(lcmpi.node, node, match, mask, buf, cap, &r->lr[slot]);
	if (lrc == 0)
		lcmpi_hold(r, slot);
	return lrc;
}

/* Take back the receive in r's slot that no message met yet (the other half of a step failed). */
static void lcmpi_lc_unpost(struct lcmpi_request *r, int slot)
{
	lc_cancel(lcmpi.node, r->lr[slot]);
	lc_wait(lcmpi.node, r->lr[slot], NULL);
	lcmpi_unhold(r, slot);
}

/*
 * A receive r takes the RTS of a message (src, match; len: its size, 0
 * when unknown): its data step comes next.  The data receive takes the
 * whole buffer and the sender sends the whole message (libcomm keeps the
 * prefix that fits and reports the true size): the RTS's own 8 bytes
 * landed in the user's buffer, which pending receives may share (a
 * benchmark's window of receives into one buffer), so the size is never
 * read back from there.
 */
static void lcmpi_rdv_taken(struct lcmpi_request *r, int src, uint64_t match, uint64_t len)
{
	r->st.src = src;
	r->st.match = match & LCMPI_MASK_TAG;
	r->st.len = (size_t)len;
	r->st.err = 0;
	r->peer = src;
	r->rdv = lcmpi_cookie_of(match);
	r->word = r->cap;       /* the CTS: the bytes the receiver takes */
	r->step = LCMPI_ST_DATA;
	r->started = 1;
}

/* 1 when a first post of `need` libcomm requests (a receive: recv) fits its share of the pool. */
static inline int lcmpi_first_fits(int need, int recv)
{
	return lcmpi.held == 0 || (lcmpi.held + need <= LCMPI_POST_MAX &&
				   (!recv || lcmpi.held_recv + 1 <= LCMPI_RECV_MAX));
}

/*
 * Post the libcomm requests of r's current step, all or none: 0,
 * LC_ERR_AGAIN (no room: nothing posted), or another libcomm error.  now:
 * a first post from the MPI call itself (lcmpi_post_first), whose eager
 * standard-mode send may leave at once without a libcomm request
 * (lc_isend_now): then r->lr[0] stays NULL, r->st is the send's, and the
 * caller completes r (a queued step's caller would still hold r on the wait
 * queue, so it never asks for that).
 */
static int lcmpi_start(struct lcmpi_request *r, int now)
{
	int lrc;
	if (!r->started && r->kind == LCMPI_REQ_RECV && lcmpi.pulled) {
		struct lcmpi_pulled *p = lcmpi_pulled_take(r->node, r->match, r->mask, 1);
		if (p) {        /* a probe pulled its request to send: the data step */
			lcmpi_rdv_taken(r, p->src, p->match, p->len);
			free(p);
		}
	}
	if (!r->started &&      /* a first post: within its share of the pool */
	    !lcmpi_first_fits(r->step == LCMPI_ST_RTS ? 2 : 1, r->kind == LCMPI_REQ_RECV))
		return LC_ERR_AGAIN;
	if (r->kind == LCMPI_REQ_SEND) {
		switch (r->step) {
		case LCMPI_ST_EAGER:
			if (now && !r->sync) {
				lrc = lc_isend_now(lcmpi.node, r->peer, r->match, r->buf, r->cap, &r->lr[0]);
				if (lrc == 0 && r->lr[0])
					lcmpi_hold(r, 0);
				else if (lrc == 0)
					r->st = (struct lc_status){ .src = lc_rank(lcmpi.node), .len = r->cap,
								    .match = r->match };
			} else
				lrc = lcmpi_lc_send(r, 0, r->match, r->buf, r->cap, r->sync);
			break;
		case LCMPI_ST_RTS:      /* the CTS receive first, so the answer always meets it */
			r->rdv = lcmpi.cookie[r->peer]++;
			r->word = r->cap;
			lrc = lcmpi_lc_recv(r, 1, r->peer, lcmpi_rdv_word(r->rdv, 1), LC_MATCH_ALL,
					    &r->cts, sizeof r->cts);
			if (lrc == 0) {
				lrc = lcmpi_lc_send(r, 0, r->match | (r->rdv << LCMPI_COOKIE_SHIFT) |
						       LCMPI_RTS_FLAG, &r->word, sizeof r->word, 0);
				if (lrc != 0)
					lcmpi_lc_unpost(r, 1);  /* no RTS went: nobody answers */
			}
			break;
		default:                /* LCMPI_ST_DATA: the CTS arrived, the data follows */
			lrc = lcmpi_lc_send(r, 0, lcmpi_rdv_word(r->rdv, 0), r->buf, r->cap, 0);
			break;
		}
	} else if (r->step == LCMPI_ST_EAGER) {
		/* a receive below 8 bytes lands in r->word first: an RTS must fit */
		int small = r->cap < sizeof r->word;
		lrc = lcmpi_lc_recv(r, 0, r->node, r->match, r->mask,
				    small ? (void *)&r->word : r->buf, small ? sizeof r->word : r->cap);
		lcmpi.held_recv += lrc == 0;
	} else {                /* LCMPI_ST_DATA: the data receive, then the CTS */
		lrc = lcmpi_lc_recv(r, 0, r->peer, lcmpi_rdv_word(r->rdv, 0), LC_MATCH_ALL, r->buf,
				    r->cap);
		if (lrc == 0) {
			lrc = lcmpi_lc_send(r, 1, lcmpi_rdv_word(r->rdv, 1), &r->word,
					    sizeof r->word, 0);
			if (lrc != 0)
				lcmpi_lc_unpost(r, 0);
		}
	}
	if (lrc == 0)
		r->started = 1;
	return lrc;
}

static void lcmpi_enqueue(struct lcmpi_request *r)
{
	r->queued = 1;
	r->qnext = NULL;
	*lcmpi.waitq_tail = r;
	lcmpi.waitq_tail = &r->qnext;
}

static void lcmpi_unqueue(struct lcmpi_request **pp)
{
	struct lcmpi_request *r = *pp;
	*pp = r->qnext;
	if (lcmpi.waitq_tail == &r->qnext)
		lcmpi.waitq_tail = pp;
	r->queued = 0;
	r->qnext = NULL;
}

/* Is a first post of this kind waiting (a new one must queue behind it)? */
static int lcmpi_first_waiting(enum lcmpi_req_kind kind)
{
	for (struct lcmpi_request *r = lcmpi.waitq; r; r = r->qnext)
		if (!r->started && r->kind == kind)
			return 1;
	return 0;
}

/* The next step of a started request r: posted, waiting for room, or r ends with the error. */
static void lcmpi_continue(struct lcmpi_request *r)
{
	int lrc = lcmpi_start(r, 0);
	if (lrc == LC_ERR_AGAIN && lcmpi.held > 0) {
		lcmpi_enqueue(r);
	} else if (lrc != 0) {
		lcmpi_fail(r, lrc);
		lcmpi_done(r);
	}
}

/* Try the waiting steps: those of started requests, then first posts in order per kind. */
static __attribute__((noinline)) void lcmpi_drain_queue(void)
{
	int blocked[2] = { 0, 0 };      /* [kind]: a first post of that kind found no room */
	for (int pass = 0; pass < 2; pass++) {
		struct lcmpi_request **pp = &lcmpi.waitq;
		while (*pp) {
			struct lcmpi_request *r = *pp;
			if (r->started != !pass || blocked[r->kind]) {
				pp = &r->qnext;
				continue;
			}
			int lrc = lcmpi_start(r, 0);
			if (lrc == LC_ERR_AGAIN && (lcmpi.held > 0 || r->started)) {
				if (pass && !r->started)
					blocked[r->kind] = 1;
				pp = &r->qnext;
				continue;
			}
			lcmpi_unqueue(pp);
			if (lrc != 0) {
				lcmpi_fail(r, lrc);
				lcmpi_done(r);
			}
		}
	}
}

/* Every round of a wait calls it: an empty queue costs one test, not a call. */
static inline void lcmpi_drain(void)
{
	if (lcmpi.waitq)
		lcmpi_drain_queue();
}

/* The eager receive of r completed (lrc, ls): a message, or the RTS of a rendezvous. */
static void lcmpi_recv_taken(struct lcmpi_request *r, int lrc, const struct lc_status *ls)
{
	void *at = r->cap < sizeof r->word ? (void *)&r->word : r->buf;
	if ((lrc == 0 || lrc == LC_ERR_TRUNC) && (ls->match & LCMPI_RTS_FLAG) &&
	    ls->len == sizeof(uint64_t)) {
		lcmpi_rdv_taken(r, ls->src, ls->match, 0);
		lcmpi_continue(r);
		return;
	}
	r->st = *ls;
	r->lrc = lrc;
	if (at != r->buf && (lrc == 0 || lrc == LC_ERR_TRUNC)) {       /* bounced */
		size_t n = ls->len < r->cap ? ls->len : r->cap;
		if (n)          /* a NULL buffer of 0 bytes is valid; memcpy's NULL is not */
			memcpy(r->buf, at, n);
		if (ls->len > r->cap)
			r->lrc = LC_ERR_TRUNC;
	}
	lcmpi_done(r);
}

/* libcomm request `slot` of r completed with lrc, ls: the next step. */
static void lcmpi_step(struct lcmpi_request *r, int slot, int lrc, const struct lc_status *ls)
{
	lcmpi_unhold(r, slot);
	if (r->step == LCMPI_ST_EAGER) {
		if (r->kind == LCMPI_REQ_RECV) {
			lcmpi.held_recv--;
			lcmpi_recv_taken(r, lrc, ls);
			return;
		}
		r->lrc = lrc;
		r->st = *ls;
		lcmpi_done(r);
		return;
	}
	if (r->kind == LCMPI_REQ_RECV && slot == 0) {   /* the data: its true size */
		r->st.len = ls->len;
		if (lrc == LC_ERR_TRUNC && r->lrc == 0)
			r->lrc = LC_ERR_TRUNC;
	}
	if (lrc != 0 && lrc != LC_ERR_TRUNC)
		lcmpi_fail(r, lrc);
	if (r->lr[0] || r->lr[1])
		return;         /* the other half is still pending */
	if (r->step == LCMPI_ST_RTS && r->lrc == 0) {
		r->step = LCMPI_ST_DATA;        /* the CTS arrived */
		lcmpi_continue(r);
		return;
	}
	lcmpi_done(r);
}

/* lcmpi_progress, with the number of libcomm requests that completed in *took (-1: none held). */
static int lcmpi_poll(int wait, int *took)
{
	*took = -1;
	lcmpi_drain();
	if (lcmpi.nactive == 0)
		return 0;
	if (lcmpi.held == 0)    /* every pending request waits for room nothing of ours will free */
		return LC_ERR_AGAIN;
	while (!lcmpi_poll_lr[lcmpi.poll_lo])   /* held > 0: an entry is not a hole */
		lcmpi.poll_lo++;
	if (lcmpi.poll_n - lcmpi.poll_lo - lcmpi.held > lcmpi.held)
		lcmpi_poll_compact();
	/*
	 * every completion there is in one call, and one scan of the requests for
	 * all of them: one completion a call (lc_waitany) made a window of 64
	 * receives cost its waiter 64 rebuilds and scans, 2785 Ir a message in
	 * msgrate's receiver against the native API's 680
	 */
	int k = -1, lo = lcmpi.poll_lo, n = lcmpi.poll_n - lo;
	lc_req **lr = lcmpi_poll_lr + lo;
	int lrc = wait ? lc_waitsome(lcmpi.node, n, lr, &k, lcmpi_poll_idx, lcmpi_poll_st)
		       : lc_testsome(lcmpi.node, n, lr, &k, lcmpi_poll_idx, lcmpi_poll_st);
	/* whose they were, before a step's posts add (or compact) entries */
	for (int j = 0; j < k; j++) {
		lcmpi_took[j] = lcmpi_poll_owner[lo + lcmpi_poll_idx[j]];
		lcmpi_took_slot[j] = lcmpi_poll_slot[lo + lcmpi_poll_idx[j]];
	}
	for (int j = 0; j < k; j++)
		lcmpi_step(lcmpi_took[j], lcmpi_took_slot[j], lcmpi_poll_st[j].err, &lcmpi_poll_st[j]);
	lcmpi_drain();
	*took = k;
	return k > 0 ? 0 : lrc;
}

int lcmpi_progress(int wait)
{
	int k;
	return lcmpi_poll(wait, &k);
}

/*
 * A wait for r (MPI_Wait, a blocking call's, MPI_Waitall's first pending
 * request): up to LCMPI_FOCUS_STEPS progress steps on one of r's libcomm
 * requests alone (lc_test_steps: no scan of the others), then one round of
 * every pending request (lcmpi_poll), so that a step another one needs (an
 * RTS to answer with its CTS) waits at most that many steps, and an idle
 * round (lc_idle) when neither moved.  A wait ends when its request is done
 * whatever the others do, and requests complete mostly in the order they
 * were posted: msgrate's MPI twin's receiver, whose every lc_waitsome found
 * one completion among its window's held requests, scanned them all for each
 * message (lc_someof and lc_reqs_check, 215 Ir a message).
 */
#define LCMPI_FOCUS_STEPS 16

int lcmpi_wait_round(struct lcmpi_request *r, unsigned *spins)
{
	int s = r->lr[0] ? 0 : 1, done = 0, k;
	lc_req *q = r->lr[s];
	if (!q)                 /* queued for room (no libcomm request yet): every request */
		return lcmpi_progress(1);
	struct lc_status st;
	int lrc = lc_test_steps(lcmpi.node, q, LCMPI_FOCUS_STEPS, &done, &st);
	if (done) {
		lcmpi_step(r, s, st.err, &st);
		lcmpi_drain();
		*spins = 0;
		return 0;
	}
	if (lrc != 0)
		return lrc;     /* libcomm itself (a closed node) */
	lrc = lcmpi_poll(0, &k);
	if (k > 0)
		*spins = 0;
	else
		(void)lc_idle(lcmpi.node, spins, LCMPI_FOCUS_STEPS + 1);
	return lrc;
}

void lcmpi_wait_done(struct lcmpi_request *r)
{
	unsigned spins = 0;
	while (r->step != LCMPI_ST_DONE) {
		int lrc = lcmpi_wait_round(r, &spins);
		if (lrc != 0 && r->step != LCMPI_ST_DONE) {
			/* a failure of libcomm itself (or no room that anything frees): end r with it */
			if (r->queued)
				for (struct lcmpi_request **pp = &lcmpi.waitq; *pp; pp = &(*pp)->qnext)
					if (*pp == r) {
						lcmpi_unqueue(pp);
						break;
					}
			if (!r->lr[0] && !r->lr[1]) {
				lcmpi_fail(r, lrc);
				lcmpi_done(r);
			}
			return;
		}
	}
}

/* r as lcmpi_req_new made it (zeroed: no result, status or queue yet) becomes a pending post. */
static inline void lcmpi_post_begin(struct lcmpi_request *r, void *buf, size_t len)
{
	r->buf = buf;
	r->cap = len;
	r->posted = 1;
	r->step = LCMPI_ST_EAGER;
	lcmpi_active_add(r);
}

/*
 * The first post of r: at once, or queued behind a waiting one of its kind
 * or for room.  A libcomm error other than no room: r is freed, the MPI class.
 */
static inline int lcmpi_post_first(struct lcmpi_request *r)
{
	int waiting = lcmpi_first_waiting(r->kind);
	int lrc = waiting ? LC_ERR_AGAIN : lcmpi_start(r, 1);
	if (lrc == LC_ERR_AGAIN && (waiting || lcmpi.held > 0)) {
		lcmpi_enqueue(r);
		return MPI_SUCCESS;
	}
	if (lrc == 0) {
		if (r->kind == LCMPI_REQ_SEND && r->step == LCMPI_ST_EAGER && !r->lr[0])
			lcmpi_done(r);  /* it left at once (lc_isend_now): complete */
		return MPI_SUCCESS;
	}
	lcmpi_done(r);
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
	/*
	 * An eager standard send with no first post waiting and room in the
	 * first posts' share is tried at once, before r joins the active list:
	 * one that left (lc_isend_now, no libcomm request) is complete as
	 * lcmpi_req_new made it -- step done, a zero status -- and never was on
	 * the list; one queued by libcomm holds its request as lcmpi_start's
	 * would.  Without the list's add and unlink, the waiting scan,
	 * lcmpi_start's checks and its status (lc_rank), msgrate's MPI twin's
	 * sender paid about 300 Ir a message above the native API's.
	 */
	lc_req *lr = NULL;
	int lrc = LC_ERR_AGAIN;
	if (len <= lcmpi.eager && !sync && !lcmpi.waitq && lcmpi_first_fits(1, 0)) {
		lrc = lc_isend_now(lcmpi.node, c->node_of[dest], lcmpi_match(ctx, tag), buf, len, &lr);
		if (lrc == 0 && !lr) {
			r->posted = 1;
			return MPI_SUCCESS;
		}
		if (lrc != 0 && lrc != LC_ERR_AGAIN) {
			lcmpi_req_free(r);
			return lcmpi_err_of_lc(lrc);
		}
	}
	lcmpi_post_begin(r, (void *)buf, len);
	r->peer = r->node = c->node_of[dest];
	r->match = lcmpi_match(ctx, tag);
	r->sync = sync;
	if (len > lcmpi.eager)
		r->step = LCMPI_ST_RTS;         /* rendezvous */
	if (lrc == 0) {         /* queued by libcomm: r holds its request */
		r->lr[0] = lr;
		lcmpi_hold(r, 0);
		r->started = 1;
		return MPI_SUCCESS;
	}
	/* no room in libcomm's pool, or not tried: a first post as any */
	return lcmpi_post_first(r);
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
	lcmpi_recv_args(c, ctx, src, tag, &r->node, &r->match, &r->mask);
	return lcmpi_post_first(r);
}

int lcmpi_cancel(struct lcmpi_request *r)
{
	if (r->kind != LCMPI_REQ_RECV || r->step != LCMPI_ST_EAGER)
		return 0;
	if (r->queued && !r->started) {         /* still waiting for room: nothing to take back */
		for (struct lcmpi_request **pp = &lcmpi.waitq; *pp; pp = &(*pp)->qnext)
			if (*pp == r) {
				lcmpi_unqueue(pp);
				break;
			}
		r->lrc = r->st.err = LC_ERR_CANCELED;
		lcmpi_done(r);
		return 1;
	}
	return r->lr[0] ? lc_cancel(lcmpi.node, r->lr[0]) : 0;
}

int lcmpi_send_rest(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag, const void *buf,
		    size_t len, int sync)
{
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (len <= lcmpi.eager && !lcmpi_first_waiting(LCMPI_REQ_SEND)) {
		/* completes locally, no peer step needed (or the pool is full: post it) */
		uint64_t m = lcmpi_match(ctx, tag);
		int lrc = sync ? lc_ssend(lcmpi.node, c->node_of[dest], m, buf, len)
			       : lc_send_match(lcmpi.node, c->node_of[dest], m, buf, len);
		if (lrc != LC_ERR_AGAIN)
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
		r->started = 1;
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
