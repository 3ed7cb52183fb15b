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
 * Match word: the context id in the high half, the tag in the low half.
 * A communicator owns two context ids: ctx (point-to-point) and ctx + 1
 * (its collectives).  MPI_ANY_TAG masks the low half out.
 */
#define LCMPI_TAG_BITS 32
#define LCMPI_MASK_CTX (~(uint64_t)0 << LCMPI_TAG_BITS)
static inline uint64_t lcmpi_match(uint32_t ctx, int tag)
{
	return ((uint64_t)ctx << LCMPI_TAG_BITS) | (uint32_t)tag;
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

struct lcmpi_request {
	lc_req *lr;             /* NULL: completed at post (MPI_PROC_NULL) */
	enum lcmpi_req_kind kind;
	MPI_Comm comm;
	int cancelled;          /* MPI_Cancel took it */
	struct lcmpi_request *next;     /* free list */
};

struct lcmpi_state {
	lc_node *node;
	int initialized, finalized;
	int nodes;
	struct lcmpi_comm **comms;      /* [MPI_Comm], NULL when free */
	int ncomms;
	uint32_t next_ctx;              /* lowest context id this process never used */
	struct lcmpi_request *free_reqs;
	struct lcmpi_request **orphans; /* MPI_Request_free'd while pending */
	int norphans, cap_orphans;
};

extern struct lcmpi_state lcmpi;

static inline struct lcmpi_comm *lcmpi_comm(MPI_Comm c)
{
	return (c > 0 && c < lcmpi.ncomms) ? lcmpi.comms[c] : NULL;
}

/*
 * Errors: lcmpi_err(comm, code, "MPI_Send", fmt...) applies comm's error
 * handler: ERRORS_ARE_FATAL prints "MPI_Send: <class text>: <detail>" and
 * exits 1; ERRORS_RETURN returns code.  MPI_SUCCESS passes through.
 */
LCMPI_FUNC int lcmpi_err(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* MPI error class of a libcomm error (0 -> MPI_SUCCESS). */
LCMPI_FUNC int lcmpi_err_of_lc(int lcerr);
/* Calls before MPI_Init / after MPI_Finalize: fatal (no communicator to ask). */
LCMPI_FUNC int lcmpi_not_ready(const char *fn);

#define LCMPI_READY(fn)                                              \
	do {                                                        \
		if (!lcmpi.initialized || lcmpi.finalized)          \
			return lcmpi_not_ready(fn);                 \
	} while (0)

/* Bytes of count elements of a predefined datatype, or -1 (bad type). */
LCMPI_FUNC int lcmpi_type_size(MPI_Datatype dt);
/* inout[i] = inout[i] op in[i]; MPI_ERR_OP when op does not apply to dt. */
LCMPI_FUNC int lcmpi_reduce_local(void *inout, const void *in, int count, MPI_Datatype dt,
				  MPI_Op op);

/*
 * Common argument checks; each returns MPI_SUCCESS or the error class
 * (already given to the handler of comm by lcmpi_err).
 */
LCMPI_FUNC int lcmpi_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count,
			       MPI_Datatype dt, size_t *bytes);

/* Status of a completed libcomm receive, in comm's ranks. */
static inline void lcmpi_status_set(MPI_Status *s, const struct lcmpi_comm *c,
				    const struct lc_status *ls)
{
	if (!s)
		return;
	s->MPI_SOURCE = c->rank_of[ls->src];
	s->MPI_TAG = (int)(uint32_t)ls->match;
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

/* Requests (request.c). */
LCMPI_FUNC struct lcmpi_request *lcmpi_req_new(enum lcmpi_req_kind kind, MPI_Comm comm);
LCMPI_FUNC void lcmpi_req_free(struct lcmpi_request *r);
/* Complete the orphans (MPI_Request_free of pending requests) that are done; all with wait=1. */
LCMPI_FUNC void lcmpi_reap_orphans(int wait);

/* Point-to-point cores without the MPI argument checks (for the collectives). */
LCMPI_FUNC int lcmpi_send_ctx(const struct lcmpi_comm *c, uint32_t ctx, int dest, int tag,
			      const void *buf, size_t len);
LCMPI_FUNC int lcmpi_recv_ctx(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
			      void *buf, size_t len);

/* Communicators (comm.c). */
LCMPI_FUNC int lcmpi_comm_add(struct lcmpi_comm *c);   /* handle or -1 */
LCMPI_FUNC void lcmpi_comm_destroy(struct lcmpi_comm *c);

#endif /* LCMPI_IMPL_H */
