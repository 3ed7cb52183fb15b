/* SPDX-License-Identifier: MIT */
/* MPI personality internals: the node, communicators, requests, argument checks, error dispatch. */
#ifndef LCMPI_IMPL_H
#define LCMPI_IMPL_H

#include <stdint.h>

#include "comm.h"
#include "mpi.h"

/* Argument checks (STYLE 14): 1 always; the guarded blocks keep them apart from the call. */
#define LCMPI_PARAM_CHECK 1

#define LCMPI_FUNC __attribute__((visibility("hidden")))

/*
 * Match word (64 bits): context id (16) | rendezvous cookie (16) | RTS flag (1) | tag (31).
 * A communicator owns two context ids: ctx (point-to-point) and ctx + 1
 * (its collectives).  Receives compare the context and the tag, never the
 * cookie or the flag, so one receive takes an eager message or the request
 * to send of a rendezvous alike; MPI_ANY_TAG compares the context only.
 * Context 0 is lc_bcast's (multicast protocol), 1 the rendezvous' own
 * clear-to-send and data messages (p2p.c), 2.. the communicators'.
 */
#define LCMPI_CTX_SHIFT 48
#define LCMPI_CTX_MAX 0xffffu
#define LCMPI_COOKIE_SHIFT 32
#define LCMPI_RTS_FLAG ((uint64_t)1 << 31)
#define LCMPI_TAG_MASK ((uint64_t)MPI_TAG_UB_VALUE)
#define LCMPI_MASK_CTX ((uint64_t)LCMPI_CTX_MAX << LCMPI_CTX_SHIFT)
#define LCMPI_MASK_TAG (LCMPI_MASK_CTX | LCMPI_TAG_MASK)
#define LCMPI_CTX_RDV 1u
#define LCMPI_CTX_FIRST 2u
static inline uint64_t lcmpi_match(uint32_t ctx, int tag)
{
	return ((uint64_t)ctx << LCMPI_CTX_SHIFT) | ((uint64_t)(uint32_t)tag & LCMPI_TAG_MASK);
}

struct lcmpi_comm {
	uint32_t ctx;           /* point-to-point context id; ctx + 1: collectives */
	int rank, size;
	int *node_of;           /* [rank] -> node */
	int *rank_of;           /* [node] -> rank, or -1 (lc_size entries) */
	MPI_Errhandler eh;
};

/* Request kinds: what completion reports. */
enum lcmpi_req_kind { LCMPI_REQ_SEND, LCMPI_REQ_RECV };

/*
 * Where a request is (p2p.c).  Eager: one libcomm request decides.  A
 * message above the eager limit goes by rendezvous: the sender posts the
 * request to send (RTS: the match word with its cookie and the flag, 8
 * bytes of length) and a receive for the clear-to-send (CTS: the bytes the
 * receiver takes); the receiver, once a receive took the RTS, posts the
 * data receive straight into the user's buffer and sends the CTS; the data
 * then always meets a posted receive, so a large message never waits in the
 * receiver's unexpected budget (and never blocks its NIC: docs/internals.md,
 * head-of-line limit).
 */
enum lcmpi_step {
	LCMPI_ST_EAGER,         /* send: the message / recv: the receive (it may take an RTS) */
	LCMPI_ST_RTS,           /* send: lr[0] the RTS, lr[1] the CTS receive */
	LCMPI_ST_DATA,          /* send: lr[0] the data / recv: lr[0] the data, lr[1] the CTS */
	LCMPI_ST_DONE,
	LCMPI_ST_FREE,          /* on the free list */
};

struct lcmpi_request {
	lc_req *lr[2];          /* pending libcomm requests (NULL: none) */
	int pidx[2];            /* lr[s] pending: its entry in p2p.c's poll arrays */
	enum lcmpi_req_kind kind;
	enum lcmpi_step step;
	MPI_Comm comm;
	int cancelled;          /* MPI_Cancel took it */
	int orphan;             /* MPI_Request_free'd while pending: freed when done */
	int posted;             /* 0: MPI_PROC_NULL (done at post, empty status) */
	int lrc;                /* done: the libcomm result (first error) */
	struct lc_status st;    /* done: recv: source, true size, match word */
	void *buf;              /* the user's buffer */
	size_t cap;             /* recv: its bytes; send: the message's */
	int peer;               /* node of the rendezvous' other side */
	uint64_t rdv;           /* the rendezvous' match word (context RDV, cookie) */
	uint64_t word;          /* RTS length (send) / CTS bytes (recv) / a small receive's bounce */
	uint64_t cts;           /* send: the CTS received */
	int node;               /* the peer's node (recv: or LC_ANY_SOURCE) */
	uint64_t match, mask;   /* the message's word (send) / the receive's (recv) */
	int sync;               /* send: synchronous */
	int started;            /* its first libcomm requests went (it holds a place in the order) */
	int queued;             /* on lcmpi.waitq: its step waits for room in libcomm's pool */
	struct lcmpi_request *qnext;            /* lcmpi.waitq */
	struct lcmpi_request *next, *prev;      /* active list (pending), or free list */
};

/* A request to send a probe took out of libcomm's unexpected queue (recv.c). */
struct lcmpi_pulled {
	int src;                /* node */
	uint64_t match;         /* its word (the cookie names the rendezvous) */
	uint64_t len;           /* the message's size */
	struct lcmpi_pulled *next;
};

/*
 * The arguments of the blocking MPI_Send or MPI_Recv in progress, for their
 * slow paths (send.c, recv.c).  The hot path stores them here before its
 * one libcomm call instead of keeping them in registers across it: a value
 * live across a call takes a callee-saved register (a push, a move and a
 * pop) where a store is one instruction, and the hot path reads back only
 * the receive's status.  One call at a time: the
 * personality provides MPI_THREAD_SERIALIZED at most.
 */
struct lcmpi_call {
	const void *buf;
	size_t bytes;                   /* send: the message's; recv: the buffer's */
	int peer, tag;                  /* the call's dest or source, and tag */
	MPI_Comm comm;                  /* valid: lcmpi_comm(comm) is its communicator */
	MPI_Status *status;             /* recv */
};

struct lcmpi_state {
	lc_node *node;
	int initialized, finalized;
	int nodes;
	struct lcmpi_comm **comms;      /* [MPI_Comm], NULL when free ([MPI_COMM_NULL] always) */
	int ncomms;                     /* 0 before MPI_Init and after MPI_Finalize (lcmpi_comm) */
	uint32_t next_ctx;              /* lowest context id this process never used */
	size_t eager;                   /* messages above go by rendezvous (LC_MPI_EAGER) */
	uint16_t *cookie;               /* [node]: the next rendezvous cookie towards it */
	struct lcmpi_request *free_reqs;
	struct lcmpi_request active;    /* list head: requests with libcomm requests pending */
	int nactive;
	int poll_lo, poll_n;            /* p2p.c's poll arrays: below lo holes only; n entries */
	struct lcmpi_pulled *pulled;    /* oldest first */
	/*
	 * Room in libcomm's pool of host.max_requests (p2p.c, "Room"): the
	 * libcomm requests the personality holds, those of receives waiting
	 * for their message, and the requests whose next step waits for room
	 * (oldest first; lcmpi.waitq_tail: the last one's qnext, or &waitq).
	 */
	int held, held_recv;
	struct lcmpi_request *waitq, **waitq_tail;
	struct lcmpi_call call;
};

extern struct lcmpi_state lcmpi;

/*
 * The communicator of handle c, or NULL: an invalid handle, and every handle
 * outside MPI_Init .. MPI_Finalize (lcmpi.ncomms is 0 then: init.c), so the
 * blocking calls' hot path tests readiness and the handle at once and
 * decides which error it was only on the slow path (send.c, recv.c).
 * One unsigned compare: MPI_COMM_NULL (0) is never a table entry.
 */
static inline struct lcmpi_comm *lcmpi_comm(MPI_Comm c)
{
	return (unsigned)c < (unsigned)lcmpi.ncomms ? lcmpi.comms[c] : NULL;
}

/*
 * Errors: lcmpi_err(comm, code, "MPI_Send", fmt...) applies comm's error
 * handler: ERRORS_ARE_FATAL prints "MPI_Send: <class text>: <detail>" and
 * exits 1; ERRORS_RETURN returns code.  MPI_SUCCESS passes through.
 */
LCMPI_FUNC int lcmpi_err(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * MPI error class of a libcomm error (0 -> MPI_SUCCESS).  Inline: every
 * status is set with it, and a call there would cost the receive's hot path
 * a callee-saved register to keep its result across it.
 */
static inline int lcmpi_err_of_lc(int lcerr)
{
	switch (lcerr) {
	case LC_OK:
	case LC_ERR_CANCELED:
		return MPI_SUCCESS;
	case LC_ERR_TRUNC:
		return MPI_ERR_TRUNCATE;
	case LC_ERR_RANGE:
		return MPI_ERR_RANK;
	case LC_ERR_TOOBIG:
		return MPI_ERR_COUNT;
	case LC_ERR_NOMEM:
		return MPI_ERR_NO_MEM;
	case LC_ERR_INVAL:
		return MPI_ERR_ARG;
	default:        /* peer dead, lost, timeout, again, closed, ... */
		return MPI_ERR_OTHER;
	}
}
/* Calls before MPI_Init / after MPI_Finalize: fatal (no communicator to ask). */
LCMPI_FUNC int lcmpi_not_ready(const char *fn);

#define LCMPI_READY(fn)                                              \
	do {                                                        \
		if (!lcmpi.initialized || lcmpi.finalized)          \
			return lcmpi_not_ready(fn);                 \
	} while (0)

/*
 * Bytes of one element of each predefined datatype, [dt] (datatype.c, from
 * LCMPI_TYPE_LIST), and -1 at [MPI_DATATYPE_NULL].
 */
#define LCMPI_NTYPES (MPI_LONG_DOUBLE + 1)
extern const int lcmpi_type_bytes[LCMPI_NTYPES];

/* Bytes of one element of a predefined datatype, or -1 (bad type). */
static inline int lcmpi_type_size(MPI_Datatype dt)
{
	return (unsigned)dt < LCMPI_NTYPES ? lcmpi_type_bytes[dt] : -1;
}
/* inout[i] = inout[i] op in[i]; MPI_ERR_OP when op does not apply to dt. */
LCMPI_FUNC int lcmpi_reduce_local(void *inout, const void *in, int count, MPI_Datatype dt,
				  MPI_Op op);

/*
 * Common argument checks; each returns MPI_SUCCESS or the error class
 * (already given to the handler of comm by lcmpi_err).  Inline, as they
 * run on every call: only a failing check leaves for the out-of-line
 * report (lcmpi_check_buf_fail, in the standard's order of the checks).
 */
LCMPI_FUNC int lcmpi_check_buf_fail(MPI_Comm comm, const char *fn, const void *buf, int count,
				    MPI_Datatype dt);
/* Bytes of count elements of dt: meaningless, and unused, when lcmpi_buf_ok fails. */
static inline size_t lcmpi_bytes(int count, MPI_Datatype dt)
{
	return (size_t)count * (size_t)lcmpi_type_size(dt);
}
/* Do (buf, count, dt) of bytes pass lcmpi_check_buf?  Only the test: no report. */
static inline int lcmpi_buf_ok(const void *buf, int count, MPI_Datatype dt, size_t bytes)
{
	/*
	 * One sign test for both (a bad type's size is -1).  buf first and
	 * expected: GCC otherwise computes both terms without a branch, 6
	 * instructions where the common case takes 2.
	 */
	return (lcmpi_type_size(dt) | count) >= 0 && bytes <= LC_MAX_MSG &&
	       (__builtin_expect(buf != NULL, 1) || bytes == 0);
}
static inline int lcmpi_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count,
				  MPI_Datatype dt, size_t *bytes)
{
	size_t b = lcmpi_bytes(count, dt);
	if (__builtin_expect(!lcmpi_buf_ok(buf, count, dt, b), 0))
		return lcmpi_check_buf_fail(comm, fn, buf, count, dt);
	*bytes = b;
	return MPI_SUCCESS;
}

/* Status of a completed libcomm receive, in comm's ranks. */
static inline void lcmpi_status_set(MPI_Status *s, const struct lcmpi_comm *c,
				    const struct lc_status *ls)
{
	if (!s)
		return;
	s->MPI_SOURCE = c->rank_of[ls->src];
	s->MPI_TAG = (int)(ls->match & LCMPI_TAG_MASK);
	s->MPI_ERROR = lcmpi_err_of_lc(ls->err);
	s->lc_cancelled = 0;
	s->lc_count = ls->len;
}

/* The status of a receive from MPI_PROC_NULL (and of an empty one). */
static inline void lcmpi_status_empty(MPI_Status *s)
{
	if (!s)
		return;
	s->MPI_SOURCE = MPI_PROC_NULL;
	s->MPI_TAG = MPI_ANY_TAG;
	s->MPI_ERROR = MPI_SUCCESS;
	s->lc_cancelled = 0;
	s->lc_count = 0;
}

/* A send's argument checks alone (send.c), reported as fn: MPI_SUCCESS or the class. */
LCMPI_FUNC int lcmpi_send_args(const char *fn, const void *buf, int count, MPI_Datatype dt,
			       int dest, int tag, MPI_Comm comm);

/* Requests (request.c). */
LCMPI_FUNC struct lcmpi_request *lcmpi_req_new(enum lcmpi_req_kind kind, MPI_Comm comm);
LCMPI_FUNC void lcmpi_req_free(struct lcmpi_request *r);

/*
 * The point-to-point engine (p2p.c), without the MPI argument checks: the
 * API calls and the collectives share it.  Posts return an MPI error class
 * (not yet given to a handler) and *out (done at once for MPI_PROC_NULL).
 */
LCMPI_FUNC int lcmpi_post_send(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag,
			       const void *buf, size_t len, int sync, MPI_Comm comm,
			       struct lcmpi_request **out);
LCMPI_FUNC int lcmpi_post_recv(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
			       void *buf, size_t cap, MPI_Comm comm, struct lcmpi_request **out);
/*
 * Progress every pending request: wait = 1 blocks until one libcomm request
 * completes, 0 takes what completed.  Returns 0 or a libcomm error that
 * belongs to no request.
 */
LCMPI_FUNC int lcmpi_progress(int wait);
/*
 * One round of a wait for r: steps on one of r's libcomm requests, then a
 * round of every pending request (p2p.c).  *spins: the caller's idle count
 * (0 to start).  Returns 0 or a libcomm error that belongs to no request.
 */
LCMPI_FUNC int lcmpi_wait_round(struct lcmpi_request *r, unsigned *spins);
/* Progress until r is done (r stays allocated). */
LCMPI_FUNC void lcmpi_wait_done(struct lcmpi_request *r);
/* Cancel r if no message matched it yet: 1 cancelled, 0 not, < 0 libcomm error. */
LCMPI_FUNC int lcmpi_cancel(struct lcmpi_request *r);
/* The libcomm receive arguments of (src, tag) on comm c. */
static inline void lcmpi_recv_args(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
				   int *node, uint64_t *match, uint64_t *mask)
{
	*node = src == MPI_ANY_SOURCE ? LC_ANY_SOURCE : c->node_of[src];
	*match = lcmpi_match(ctx, tag == MPI_ANY_TAG ? 0 : tag);
	*mask = tag == MPI_ANY_TAG ? LCMPI_MASK_CTX : LCMPI_MASK_TAG;
}

/*
 * Blocking send / receive for the API and the collectives: MPI error class.
 * The eager path (a standard send up to the eager limit; a receive with
 * nothing else pending) is inline, one libcomm call; the rest is p2p.c's:
 * lcmpi_send_rest, and lcmpi_recv_rest with the receive's result so far
 * (lrc and *ls of the one libcomm receive, which took a request to send,
 * or lrc = 1 and no ls: nothing taken yet, the receive is to be posted; ls
 * may be st itself: it is read before *st is written).
 */
LCMPI_FUNC int lcmpi_send_rest(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag,
			       const void *buf, size_t len, int sync);
LCMPI_FUNC int lcmpi_recv_rest(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
			       void *buf, size_t cap, struct lc_status *st, int lrc,
			       const struct lc_status *ls);

/* Does a blocking send take the eager path: one libcomm send? */
static inline int lcmpi_send_eager(int dest, size_t len, int sync)
{
	/* a send waiting for room in the request pool (p2p.c, Room) goes first: the slow path */
	return dest != MPI_PROC_NULL && !sync && len <= lcmpi.eager && !lcmpi.waitq;
}

static inline int lcmpi_send_ctx(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag,
				 const void *buf, size_t len, int sync)
{
	if (lcmpi_send_eager(dest, len, sync)) {
		int lrc = lc_send_match(lcmpi.node, c->node_of[dest], lcmpi_match(ctx, tag), buf, len);
		if (lrc != LC_ERR_AGAIN)
			return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
	}
	return lcmpi_send_rest(c, ctx, dest, tag, buf, len, sync);
}

/* May a blocking receive (not from MPI_PROC_NULL) be one libcomm receive? */
static inline int lcmpi_recv_eager(size_t cap)
{
	/* nothing else pending, and a request to send fits in the buffer */
	return lcmpi.nactive == 0 && !lcmpi.pulled && cap >= sizeof(uint64_t);
}

/*
 * The result of that one libcomm receive (lrc, and *ls when lrc is 0 or
 * LC_ERR_TRUNC): done, or the rendezvous whose request to send it took.
 */
static inline int lcmpi_recv_result(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
				    void *buf, size_t cap, struct lc_status *st, int lrc,
				    const struct lc_status *ls)
{
	if ((lrc == 0 || lrc == LC_ERR_TRUNC) && (ls->match & LCMPI_RTS_FLAG))
		return lcmpi_recv_rest(c, ctx, src, tag, buf, cap, st, lrc, ls);
	return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
}

/*
 * *st (or NULL) is set when the result is MPI_SUCCESS or MPI_ERR_TRUNCATE;
 * libcomm writes it straight (lc_finish fills every field whenever the
 * receive ends, and those are the only results that read it), so it is
 * neither zeroed first nor copied through a local.
 */
static inline int lcmpi_recv_ctx(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
				 void *buf, size_t cap, struct lc_status *st)
{
	if (src == MPI_PROC_NULL || !lcmpi_recv_eager(cap))
		return lcmpi_recv_rest(c, ctx, src, tag, buf, cap, st, 1, NULL);
	struct lc_status own;
	struct lc_status *ls = st ? st : &own;
	int node;
	uint64_t m, mask;
	lcmpi_recv_args(c, ctx, src, tag, &node, &m, &mask);
	int lrc = lc_recv_match(lcmpi.node, node, m, mask, buf, cap, ls);
	return lcmpi_recv_result(c, ctx, src, tag, buf, cap, st, lrc, ls);
}

/* The oldest request to send a probe pulled that (node, match, mask) takes, unlinked; or NULL. */
LCMPI_FUNC struct lcmpi_pulled *lcmpi_pulled_take(int node, uint64_t match, uint64_t mask,
						  int unlink);

/* Communicators (comm.c). */
LCMPI_FUNC int lcmpi_comm_add(struct lcmpi_comm *c);   /* handle or -1 */
LCMPI_FUNC void lcmpi_comm_destroy(struct lcmpi_comm *c);

#endif /* LCMPI_IMPL_H */
