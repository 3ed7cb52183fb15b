/* SPDX-License-Identifier: MIT */
/* MPI_Recv, Irecv, Sendrecv: one libcomm receive with (source node, ctx | tag, mask). */
#include "mpi_impl.h"

static int lcmpi_recv_check(const char *fn, const void *buf, int count, MPI_Datatype dt, int src,
			    int tag, MPI_Comm comm, const struct lcmpi_comm *c, size_t *cap)
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

/* The libcomm receive arguments of (src, tag) on comm c. */
static inline void lcmpi_recv_args(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag,
				   int *node, uint64_t *match, uint64_t *mask)
{
	*node = src == MPI_ANY_SOURCE ? LC_ANY_SOURCE : c->node_of[src];
	*match = lcmpi_match(ctx, tag == MPI_ANY_TAG ? 0 : tag);
	*mask = tag == MPI_ANY_TAG ? LCMPI_MASK_CTX : LC_MATCH_ALL;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
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
	int node;
	uint64_t m, mask;
	lcmpi_recv_args(c, c->ctx, source, tag, &node, &m, &mask);
	struct lc_status ls;
	int lrc = lc_recv_match(lcmpi.node, node, m, mask, buf, cap, &ls);
	if (lrc == 0 || lrc == LC_ERR_TRUNC)
		lcmpi_status_set(status, c, &ls);
	if (lrc != 0)
		return lcmpi_err(comm, lcmpi_err_of_lc(lrc), "MPI_Recv",
				 "from source %d, tag %d: %zu bytes arrived for %zu: %s", source, tag,
				 lrc == LC_ERR_TRUNC ? ls.len : 0, cap, lc_last_error(lcmpi.node));
	return MPI_SUCCESS;
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
	struct lcmpi_request *r = lcmpi_req_new(LCMPI_REQ_RECV, comm);
	if (!r)
		return lcmpi_err(comm, MPI_ERR_NO_MEM, "MPI_Irecv", "out of memory for a request");
	if (source != MPI_PROC_NULL) {
		int node;
		uint64_t m, mask;
		lcmpi_recv_args(c, c->ctx, source, tag, &node, &m, &mask);
		int lrc = lc_irecv_match(lcmpi.node, node, m, mask, buf, cap, &r->lr);
		if (lrc == LC_ERR_AGAIN) {
			lcmpi_reap_orphans(0);
			lrc = lc_irecv_match(lcmpi.node, node, m, mask, buf, cap, &r->lr);
		}
		if (lrc != 0) {
			lcmpi_req_free(r);
			return lcmpi_err(comm, lcmpi_err_of_lc(lrc), "MPI_Irecv", "from %d: %s",
					 source, lc_last_error(lcmpi.node));
		}
	}
	*request = r;
	return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status)
{
	MPI_Request r;
	int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
	int wrc = MPI_Wait(&r, status);
	return rc != MPI_SUCCESS ? rc : wrc;
}

int lcmpi_recv_ctx(const struct lcmpi_comm *c, uint32_t ctx, int src, int tag, void *buf,
		   size_t len)
{
	int node;
	uint64_t m, mask;
	lcmpi_recv_args(c, ctx, src, tag, &node, &m, &mask);
	int lrc = lc_recv_match(lcmpi.node, node, m, mask, buf, len, NULL);
	return lrc ? lcmpi_err_of_lc(lrc) : MPI_SUCCESS;
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
	int node, lrc;
	uint64_t m, mask;
	lcmpi_recv_args(c, c->ctx, source, tag, &node, &m, &mask);
	struct lc_status ls;
	int got = 1;
	if (flag)
		lrc = lc_iprobe(lcmpi.node, node, m, mask, &got, &ls);
	else
		lrc = lc_probe(lcmpi.node, node, m, mask, &ls);
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
