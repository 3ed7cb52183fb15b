/* SPDX-License-Identifier: MIT */
/* MPI_Send, Ssend, Rsend, Isend, Issend: argument checks over the point-to-point engine (p2p.c). */
#include "mpi_impl.h"

/* The checks every send makes, in the standard's order; dest PROC_NULL passes. */
static inline int lcmpi_send_check(const char *fn, const void *buf, int count, MPI_Datatype dt,
				   int dest, int tag, MPI_Comm comm, const struct lcmpi_comm *c,
				   size_t *len)
{
	if (!c)
		return lcmpi_err(comm, MPI_ERR_COMM, fn, "comm %d", comm);
	int rc = lcmpi_check_buf(comm, fn, buf, count, dt, len);
	if (rc != MPI_SUCCESS)
		return rc;
	if (tag < 0)    /* MPI_ANY_TAG too: a receive's wildcard, never a send's */
		return lcmpi_err(comm, MPI_ERR_TAG, fn, "tag %d: a send's tag is 0 .. %d", tag,
				 MPI_TAG_UB_VALUE);
	if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size))
		return lcmpi_err(comm, MPI_ERR_RANK, fn, "dest %d out of 0 .. %d", dest,
				 c->size - 1);
	return MPI_SUCCESS;
}

int lcmpi_send_args(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
		    MPI_Comm comm)
{
	size_t len;
	return lcmpi_send_check(fn, buf, count, dt, dest, tag, comm, lcmpi_comm(comm), &len);
}

/*
 * Is a send the hot path's: arguments that pass lcmpi_send_check (c:
 * lcmpi_comm's, not NULL) to a rank, not MPI_PROC_NULL, and the eager path
 * (lcmpi_send_eager)?  The eager limit is at most LC_MAX_MSG (init.c), so
 * lcmpi_buf_ok's size bound is left to it; one sign test for the type's
 * size (a bad type's is -1), the count and the tag.  It is the argument
 * checks too (not under LCMPI_PARAM_CHECK): a send it refuses is checked,
 * and reported, by lcmpi_send_general.
 */
static inline int lcmpi_send_hot(const struct lcmpi_comm *c, const void *buf, int count,
				 MPI_Datatype dt, int dest, int tag, size_t len, int sync)
{
	return (lcmpi_type_size(dt) | count | tag) >= 0 &&
	       (__builtin_expect(buf != NULL, 1) || len == 0) &&
	       (unsigned)dest < (unsigned)c->size && lcmpi_send_eager(dest, len, sync);
}

enum lcmpi_send_mode { LCMPI_STANDARD, LCMPI_SYNC };

/* The general blocking send: readiness, the checks in order with their report, every case. */
static __attribute__((noinline)) int lcmpi_send_general(const char *fn, enum lcmpi_send_mode mode,
							const void *buf, int count,
							MPI_Datatype dt, int dest, int tag,
							MPI_Comm comm)
{
	LCMPI_READY(fn);
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t len = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_send_check(fn, buf, count, dt, dest, tag, comm, c, &len);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int rc = lcmpi_send_ctx(c, c->ctx, dest, tag, buf, len, mode == LCMPI_SYNC);
	if (rc != MPI_SUCCESS)
		return lcmpi_err(comm, rc, fn, "to rank %d: %s", dest, lc_last_error(lcmpi.node));
	return MPI_SUCCESS;
}

/*
 * The hot path's libcomm send (lcmpi.call) returned lrc: no room in the
 * request pool (nothing sent) goes on as lcmpi_send_ctx does; an error is
 * reported.
 */
static __attribute__((noinline, cold)) int lcmpi_send_failed(const char *fn, int lrc)
{
	const struct lcmpi_call *a = &lcmpi.call;
	const struct lcmpi_comm *c = lcmpi_comm(a->comm);
	int rc = lrc != LC_ERR_AGAIN ? lcmpi_err_of_lc(lrc)
				     : lcmpi_send_rest(c, c->ctx, a->peer, a->tag, a->buf, a->bytes, 0);
	if (rc != MPI_SUCCESS)
		return lcmpi_err(a->comm, rc, fn, "to rank %d: %s", a->peer,
				 lc_last_error(lcmpi.node));
	return MPI_SUCCESS;
}

/*
 * The blocking sends.  The hot path is the common case, one libcomm send:
 * valid arguments (one test: lcmpi_comm is NULL also outside MPI_Init ..
 * MPI_Finalize), a standard send to a rank within the eager limit, no send
 * waiting for room.  Every other case, and which check failed, is
 * lcmpi_send_general's.  always_inline: GCC otherwise splits it and calls
 * one shared out-of-line part from every binding, a call per message.
 */
static inline __attribute__((always_inline)) int
lcmpi_send(const char *fn, enum lcmpi_send_mode mode, const void *buf, int count,
	   MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
	const struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t len = lcmpi_bytes(count, dt);
	if (__builtin_expect(!c || !lcmpi_send_hot(c, buf, count, dt, dest, tag, len,
						   mode == LCMPI_SYNC), 0))
		return lcmpi_send_general(fn, mode, buf, count, dt, dest, tag, comm);
	/* what lcmpi_send_failed reads (not .status: a compound literal would zero it) */
	lcmpi.call.buf = buf;
	lcmpi.call.bytes = len;
	lcmpi.call.peer = dest;
	lcmpi.call.tag = tag;
	lcmpi.call.comm = comm;
	int lrc = lc_send_match(lcmpi.node, c->node_of[dest], lcmpi_match(c->ctx, tag), buf, len);
	if (__builtin_expect(lrc != 0, 0))
		return lcmpi_send_failed(fn, lrc);
	return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return lcmpi_send("MPI_Send", LCMPI_STANDARD, buf, count, datatype, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return lcmpi_send("MPI_Ssend", LCMPI_SYNC, buf, count, datatype, dest, tag, comm);
}

/* Ready mode: the receive is posted (the program promises it), so a standard send is right. */
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return lcmpi_send("MPI_Rsend", LCMPI_STANDARD, buf, count, datatype, dest, tag, comm);
}

static int lcmpi_isend(const char *fn, enum lcmpi_send_mode mode, const void *buf, int count,
		       MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	LCMPI_READY(fn);
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t len = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_send_check(fn, buf, count, dt, dest, tag, comm, c, &len);
		if (rc != MPI_SUCCESS)
			return rc;
		if (!request)
			return lcmpi_err(comm, MPI_ERR_REQUEST, fn, "request is NULL");
	}
	struct lcmpi_request *r;
	int rc = lcmpi_post_send(c, c->ctx, dest, tag, buf, len, mode == LCMPI_SYNC, comm, &r);
	if (rc != MPI_SUCCESS)
		return lcmpi_err(comm, rc, fn, "to rank %d: %s", dest,
				 rc == MPI_ERR_NO_MEM ? "out of memory for a request"
						      : lc_last_error(lcmpi.node));
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	return lcmpi_isend("MPI_Isend", LCMPI_STANDARD, buf, count, datatype, dest, tag, comm,
			   request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	       MPI_Request *request)
{
	return lcmpi_isend("MPI_Issend", LCMPI_SYNC, buf, count, datatype, dest, tag, comm, request);
}
