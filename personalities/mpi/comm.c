/* SPDX-License-Identifier: MIT */
/* Communicators: MPI_Comm_rank, Comm_size, Comm_dup, Comm_free; the handle table and context ids. */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

int lcmpi_comm_add(struct lcmpi_comm *c)
{
	for (int i = MPI_COMM_SELF + 1; i < lcmpi.ncomms; i++)
		if (!lcmpi.comms[i]) {
			lcmpi.comms[i] = c;
			return i;
		}
	int n = lcmpi.ncomms * 2;
	struct lcmpi_comm **t = realloc(lcmpi.comms, (size_t)n * sizeof *t);
	if (!t)
		return -1;
	memset(t + lcmpi.ncomms, 0, (size_t)(n - lcmpi.ncomms) * sizeof *t);
	lcmpi.comms = t;
	int h = lcmpi.ncomms;
	lcmpi.ncomms = n;
	lcmpi.comms[h] = c;
	return h;
}

void lcmpi_comm_destroy(struct lcmpi_comm *c)
{
	free(c->node_of);
	free(c->rank_of);
	free(c);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	LCMPI_READY("MPI_Comm_rank");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		if (!c)
			return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Comm_rank", "comm %d", comm);
		if (!rank)
			return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
	}
	*rank = c->rank;
	return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	LCMPI_READY("MPI_Comm_size");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		if (!c)
			return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Comm_size", "comm %d", comm);
		if (!size)
			return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
	}
	*size = c->size;
	return MPI_SUCCESS;
}

/*
 * Collective over comm.  The new context id is the largest next_ctx of the
 * members (an Allreduce MAX), so it is one no member uses yet: a process
 * never reuses a context id, and one that is in no common communicator
 * with another may use the same id without harm (they never exchange
 * messages under it).
 */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	LCMPI_READY("MPI_Comm_dup");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		if (!c)
			return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Comm_dup", "comm %d", comm);
		if (!newcomm)
			return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
	}
	unsigned long mine = lcmpi.next_ctx, ctx;
	int rc = MPI_Allreduce(&mine, &ctx, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
	if (rc != MPI_SUCCESS)
		return rc;
	if (ctx > LCMPI_CTX_MAX - 1)
		return lcmpi_err(comm, MPI_ERR_INTERN, "MPI_Comm_dup", "context ids exhausted");
	lcmpi.next_ctx = (uint32_t)ctx + 2;
	struct lcmpi_comm *d = calloc(1, sizeof *d);
	if (d) {
		d->node_of = malloc((size_t)c->size * sizeof(int));
		d->rank_of = malloc((size_t)lcmpi.nodes * sizeof(int));
	}
	int h = -1;
	if (d && d->node_of && d->rank_of) {
		memcpy(d->node_of, c->node_of, (size_t)c->size * sizeof(int));
		memcpy(d->rank_of, c->rank_of, (size_t)lcmpi.nodes * sizeof(int));
		d->ctx = (uint32_t)ctx;
		d->rank = c->rank;
		d->size = c->size;
		d->eh = c->eh;  /* MPI-3 6.4.2: the error handler is duplicated */
		h = lcmpi_comm_add(d);
	}
	if (h < 0) {
		if (d)
			lcmpi_comm_destroy(d);
		return lcmpi_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_dup", "out of memory");
	}
	*newcomm = h;
	return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm)
{
	LCMPI_READY("MPI_Comm_free");
	if (LCMPI_PARAM_CHECK) {
		if (!comm)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_free", "comm is NULL");
		if (!lcmpi_comm(*comm) || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
			return lcmpi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free", "comm %d", *comm);
	}
	lcmpi_comm_destroy(lcmpi.comms[*comm]);
	lcmpi.comms[*comm] = NULL;
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
