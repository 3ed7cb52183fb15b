/* SPDX-License-Identifier: MIT */
/* MPI_Recv, Irecv, Sendrecv, Iprobe, Probe: argument checks over the point-to-point engine (p2p.c). */
#include <stdlib.h>

#include "mpi_impl.h"

static inline int lcmpi_recv_check(const char *fn, const void *buf, int count, MPI_Datatype dt,
				   int src, int tag, MPI_Comm comm, const struct lcmpi_comm *c,
				   size_t *cap)
{
	if (!c)
		return lcmpi_err(comm, MPI_ERR_COMM, fn, "comm %d", comm);
	int rc = lcmpi_check_buf(comm, fn, buf, count, dt, cap);
	if (rc != MPI_SUCCESS)
		return rc;
	if (tag < 0 && tag != MPI_ANY_TAG)
		return lcmpi_err(comm, MPI_ERR_TAG, fn, "tag %d: 0 .. %d or MPI_ANY_TAG", tag,
				 MPI_TAG_UB_VALUE);
	if (src != MPI_PROC_NULL && src != MPI_ANY_SOURCE && (src < 0 || src >= c->size))
		return lcmpi_err(comm, MPI_ERR_RANK, fn, "source %d out of 0 .. %d", src,
				 c->size - 1);
	return MPI_SUCCESS;
}

/*
 * Is a receive the hot path's: arguments that pass lcmpi_recv_check (c:
 * lcmpi_comm's, not NULL) naming one rank and one tag, and one libcomm
 * receive (lcmpi_recv_eager: nothing else pending, at least 8 bytes)?  A
 * wildcard or MPI_PROC_NULL takes the general path (the former body of
 * MPI_Recv, out of line): without them the tag and source checks are a
 * sign test, with the type's size (a bad type's is -1) and the count, and
 * one compare, and the match word and mask need no branch.  With 8 bytes
 * at least the buffer check is a NULL test and both bounds of cap one
 * compare.  It is the argument checks too (not under LCMPI_PARAM_CHECK):
 * a receive it refuses is checked, and reported, by lcmpi_recv_general.
 */
static inline int lcmpi_recv_hot(const struct lcmpi_comm *c, const void *buf, int count,
				 MPI_Datatype dt, int src, int tag, size_t cap)
{
	return (lcmpi_type_size(dt) | count | tag | src) >= 0 &&
	       cap - sizeof(uint64_t) <= LC_MAX_MSG - sizeof(uint64_t) && buf &&
	       src < c->size && lcmpi_recv_eager(cap);
}

/* MPI_Recv's result rc (*ls: the receive's status when it is read): the status, or the report. */
static int lcmpi_recv_end(const struct lcmpi_comm *c, MPI_Comm comm, int source, int tag,
			  size_t cap, int rc, const struct lc_status *ls, MPI_Status *status)
{
	if (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE)
		lcmpi_status_set(status, c, ls);
	if (rc != MPI_SUCCESS)
		return lcmpi_err(comm, rc, "MPI_Recv",
				 "from source %d, tag %d: %zu bytes arrived for %zu: %s", source, tag,
				 rc == MPI_ERR_TRUNCATE ? ls->len : 0, cap, lc_last_error(lcmpi.node));
	return MPI_SUCCESS;
}

/* The general blocking receive: readiness, the checks in order with their report, every case. */
static __attribute__((noinline)) int lcmpi_recv_general(void *buf, int count,
							MPI_Datatype datatype, int source,
							int tag, MPI_Comm comm,
							MPI_Status *status)
{
	LCMPI_READY("MPI_Recv");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t cap = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_recv_check("MPI_Recv", buf, count, datatype, source, tag, comm, c,
					  &cap);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	if (source == MPI_PROC_NULL) {
		lcmpi_status_empty(status);
		return MPI_SUCCESS;
	}
	struct lc_status ls;
	int rc = lcmpi_recv_ctx(c, c->ctx, source, tag, buf, cap, &ls);
	return lcmpi_recv_end(c, comm, source, tag, cap, rc, &ls, status);
}

/*
 * The hot path's libcomm receive (lcmpi.call) returned lrc, not 0, or took
 * a request to send: on as lcmpi_recv_ctx goes, then the status or the report.
 */
static __attribute__((noinline, cold)) int lcmpi_recv_taken(int lrc, struct lc_status *ls)
{
	const struct lcmpi_call *a = &lcmpi.call;
	const struct lcmpi_comm *c = lcmpi_comm(a->comm);
	int rc = lcmpi_recv_result(c, c->ctx, a->peer, a->tag, (void *)a->buf, a->bytes, ls, lrc,
				   ls);
	return lcmpi_recv_end(c, a->comm, a->peer, a->tag, a->bytes, rc, ls, a->status);
}

/*
 * The hot path is the common case, one libcomm receive whose status is
 * written straight: valid arguments from one rank with one tag (one test:
 * lcmpi_comm is NULL also outside MPI_Init .. MPI_Finalize), nothing else
 * pending.  Every other case, and which check failed, is lcmpi_recv_general's.
 */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	const struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t cap = lcmpi_bytes(count, datatype);
	if (__builtin_expect(!c || !lcmpi_recv_hot(c, buf, count, datatype, source, tag, cap), 0))
		return lcmpi_recv_general(buf, count, datatype, source, tag, comm, status);
	lcmpi.call = (struct lcmpi_call){ .buf = buf, .bytes = cap, .peer = source, .tag = tag,
					  .comm = comm, .status = status };
	struct lc_status ls;
	int lrc = lc_recv_match(lcmpi.node, c->node_of[source], lcmpi_match(c->ctx, tag),
				LCMPI_MASK_TAG, buf, cap, &ls);
	if (__builtin_expect(lrc == 0 && !(ls.match & LCMPI_RTS_FLAG), 1)) {
		MPI_Status *st = lcmpi.call.status;
		if (st)         /* c again from the handle: cheaper than keeping it across the call */
			lcmpi_status_set(st, lcmpi_comm(lcmpi.call.comm), &ls);
		return MPI_SUCCESS;
	}
	return lcmpi_recv_taken(lrc, &ls);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	LCMPI_READY("MPI_Irecv");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t cap = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_recv_check("MPI_Irecv", buf, count, datatype, source, tag, comm, c,
					  &cap);
		if (rc != MPI_SUCCESS)
			return rc;
		if (!request)
			return lcmpi_err(comm, MPI_ERR_REQUEST, "MPI_Irecv", "request is NULL");
	}
	struct lcmpi_request *r;
	int rc = lcmpi_post_recv(c, c->ctx, source, tag, buf, cap, comm, &r);
	if (rc != MPI_SUCCESS)
		return lcmpi_err(comm, rc, "MPI_Irecv", "from %d: %s", source,
				 rc == MPI_ERR_NO_MEM ? "out of memory for a request"
						      : lc_last_error(lcmpi.node));
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status)
{
	LCMPI_READY("MPI_Sendrecv");
	if (LCMPI_PARAM_CHECK) {
		/*
		 * Both halves before anything is posted: a send refused once the
		 * receive is posted would leave it pending, and the wait for it
		 * would never return (MPI_ERRORS_RETURN).
		 */
		size_t cap;
		int rc = lcmpi_recv_check("MPI_Sendrecv", recvbuf, recvcount, recvtype, source,
					  recvtag, comm, lcmpi_comm(comm), &cap);
		if (rc == MPI_SUCCESS)
			rc = lcmpi_send_args("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest,
					     sendtag, comm);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	MPI_Request r;
	int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
	int wrc = MPI_Wait(&r, status);
	return rc != MPI_SUCCESS ? rc : wrc;
}

struct lcmpi_pulled *lcmpi_pulled_take(int node, uint64_t match, uint64_t mask, int unlink)
{
	for (struct lcmpi_pulled **pp = &lcmpi.pulled; *pp; pp = &(*pp)->next) {
		struct lcmpi_pulled *p = *pp;
		if ((node == LC_ANY_SOURCE || node == p->src) && !((p->match ^ match) & mask)) {
			if (unlink)
				*pp = p->next;
			return p;
		}
	}
	return NULL;
}

/*
 * A probe that finds a request to send takes it out of libcomm's queue
 * (its exact word names it: the cookie) to learn the message's true size;
 * the next receive that matches it takes it from lcmpi.pulled, which is
 * older than anything still queued from that source.
 */
static int lcmpi_pull(const struct lc_status *ls, struct lcmpi_pulled **out)
{
	struct lcmpi_pulled *p = malloc(sizeof *p);
	if (!p)
		return LC_ERR_NOMEM;
	uint64_t len = 0;
	int lrc;
	/* it has arrived: the receive only needs a request of the pool (progress frees one) */
	while ((lrc = lc_recv_match(lcmpi.node, ls->src, ls->match, LC_MATCH_ALL, &len,
				    sizeof len, NULL)) == LC_ERR_AGAIN &&
	       lcmpi.held > 0)
		lcmpi_progress(1);
	if (lrc != 0) {
		free(p);
		return lrc;
	}
	p->src = ls->src;
	p->match = ls->match;
	p->len = len;
	p->next = NULL;
	struct lcmpi_pulled **pp = &lcmpi.pulled;
	while (*pp)
		pp = &(*pp)->next;
	*pp = p;
	*out = p;
	return 0;
}

/*
 * MPI_Iprobe / MPI_Probe: libcomm's probe with the same arguments as the
 * receive, so a receive with the probed source and tag takes that message.
 */
static int lcmpi_probe(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
		       MPI_Status *status)
{
	LCMPI_READY(fn);
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		size_t cap;
		int rc = lcmpi_recv_check(fn, NULL, 0, MPI_BYTE, source, tag, comm, c, &cap);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	if (source == MPI_PROC_NULL) {
		if (flag)
			*flag = 1;
		lcmpi_status_empty(status);
		return MPI_SUCCESS;
	}
	int node, lrc = 0;
	uint64_t m, mask;
	lcmpi_recv_args(c, c->ctx, source, tag, &node, &m, &mask);
	struct lc_status ls = { 0 };
	int got = 1;
	struct lcmpi_pulled *p = lcmpi.pulled ? lcmpi_pulled_take(node, m, mask, 0) : NULL;
	if (!p) {
		/* pending requests move on meanwhile (an RTS of ours may wait for a CTS) */
		lcmpi_progress(0);
		if (flag || lcmpi.nactive == 0) {
			lrc = flag ? lc_iprobe(lcmpi.node, node, m, mask, &got, &ls)
				   : lc_probe(lcmpi.node, node, m, mask, &ls);
		} else {
			while ((lrc = lc_iprobe(lcmpi.node, node, m, mask, &got, &ls)) == 0 && !got)
				lcmpi_progress(0);
		}
		if (lrc == 0 && got && (ls.match & LCMPI_RTS_FLAG) && ls.len == sizeof(uint64_t))
			lrc = lcmpi_pull(&ls, &p);
	}
	if (p) {
		ls.src = p->src;
		ls.match = p->match;
		ls.len = (size_t)p->len;
		ls.err = 0;
	}
	if (lrc != 0)
		return lcmpi_err(comm, lcmpi_err_of_lc(lrc), fn, "source %d: %s", source,
				 lc_last_error(lcmpi.node));
	if (flag)
		*flag = got;
	if (got)
		lcmpi_status_set(status, c, &ls);
	return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	if (LCMPI_PARAM_CHECK && !flag)
		return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
	return lcmpi_probe("MPI_Iprobe", source, tag, comm, flag, status);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	return lcmpi_probe("MPI_Probe", source, tag, comm, NULL, status);
}
