/* SPDX-License-Identifier: MIT */
/* Collectives: binomial trees over point-to-point on the communicator's collective context. */
#include <stdlib.h>
#include <string.h>

#include "lc_config.h"
#include "mpi_impl.h"

/*
 * Every collective message travels on context ctx + 1 of the communicator,
 * so it never matches a user receive (not even MPI_ANY_TAG, which keeps
 * the context bits).  The tag names the collective; the ranks call the
 * collectives in the same order and messages of one source and match word
 * stay in order, so successive collectives never mix.  Trees use the rank
 * relative to the root, vr = (rank - root) mod size.
 */
enum lcmpi_coll_tag {
	LCMPI_TAG_BARRIER = 1,
	LCMPI_TAG_BCAST,
	LCMPI_TAG_REDUCE,
	LCMPI_TAG_GATHER,
	LCMPI_TAG_SCATTER,
	LCMPI_TAG_ALLTOALL,
	LCMPI_TAG_BCAST_READY,
};

/* Relative rank -> rank. */
static inline int lcmpi_abs(int vr, int root, int size)
{
	return (vr + root) % size;
}

static int lcmpi_coll_check(const char *fn, MPI_Comm comm, const struct lcmpi_comm *c, int root)
{
	if (!c)
		return lcmpi_err(comm, MPI_ERR_COMM, fn, "comm %d", comm);
	if (root < 0 || root >= c->size)
		return lcmpi_err(comm, MPI_ERR_ROOT, fn, "root %d out of 0 .. %d", root, c->size - 1);
	return MPI_SUCCESS;
}

/* Binomial broadcast of len bytes from root. */
static int lcmpi_tree_bcast(const struct lcmpi_comm *c, void *buf, size_t len, int root, int tag)
{
	int size = c->size, vr = (c->rank - root + size) % size, mask = 1, rc;
	uint32_t ctx = c->ctx + 1;
	for (; mask < size; mask <<= 1)
		if (vr & mask) {
			rc = lcmpi_recv_ctx(c, ctx, lcmpi_abs(vr - mask, root, size), tag, buf, len, NULL);
			if (rc != MPI_SUCCESS)
				return rc;
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < size) {
			rc = lcmpi_send_ctx(c, ctx, lcmpi_abs(vr + mask, root, size), tag, buf, len, 0);
			if (rc != MPI_SUCCESS)
				return rc;
		}
	return MPI_SUCCESS;
}

/*
 * Binomial reduce of count elements into acc (the caller's contribution on
 * entry; the result at root on return).  tmp: scratch of the same size.
 */
static int lcmpi_tree_reduce(const struct lcmpi_comm *c, void *acc, void *tmp, int count,
			     MPI_Datatype dt, MPI_Op op, int root)
{
	int size = c->size, vr = (c->rank - root + size) % size, rc;
	size_t len = (size_t)count * (size_t)lcmpi_type_size(dt);
	uint32_t ctx = c->ctx + 1;
	for (int mask = 1; mask < size; mask <<= 1) {
		if (vr & mask)
			return lcmpi_send_ctx(c, ctx, lcmpi_abs(vr & ~mask, root, size),
					      LCMPI_TAG_REDUCE, acc, len, 0);
		if ((vr | mask) < size) {
			rc = lcmpi_recv_ctx(c, ctx, lcmpi_abs(vr | mask, root, size),
					    LCMPI_TAG_REDUCE, tmp, len, NULL);
			if (rc == MPI_SUCCESS)
				rc = lcmpi_reduce_local(acc, tmp, count, dt, op);
			if (rc != MPI_SUCCESS)
				return rc;
		}
	}
	return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm)
{
	LCMPI_READY("MPI_Barrier");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK && !c)
		return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Barrier", "comm %d", comm);
	/* fan in (an empty binomial reduce to 0), then fan out (an empty broadcast) */
	int size = c->size, vr = c->rank, rc = MPI_SUCCESS;
	for (int mask = 1; mask < size && rc == MPI_SUCCESS; mask <<= 1) {
		if (vr & mask) {
			rc = lcmpi_send_ctx(c, c->ctx + 1, vr & ~mask, LCMPI_TAG_BARRIER, NULL, 0, 0);
			break;
		}
		if ((vr | mask) < size)
			rc = lcmpi_recv_ctx(c, c->ctx + 1, vr | mask, LCMPI_TAG_BARRIER, NULL, 0, NULL);
	}
	if (rc == MPI_SUCCESS)
		rc = lcmpi_tree_bcast(c, NULL, 0, 0, LCMPI_TAG_BARRIER);
	return lcmpi_err(comm, rc, "MPI_Barrier", "%s", lc_last_error(lcmpi.node));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	LCMPI_READY("MPI_Bcast");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t len = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_coll_check("MPI_Bcast", comm, c, root);
		if (rc == MPI_SUCCESS)
			rc = lcmpi_check_buf(comm, "MPI_Bcast", buffer, count, datatype, &len);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int rc;
#if LC_PROTO_MULTICAST
	/*
	 * MPI_COMM_WORLD: the multicast protocol's lc_bcast reaches every other
	 * node.  Its message carries match word 0 (context 0, which no
	 * communicator owns) and is received with an ordinary receive from the
	 * root; the root never receives its own.
	 */
	if (comm == MPI_COMM_WORLD) {
		/*
		 * Above the eager limit every receiver posts its receive and says
		 * so to the root (an empty message) before the root sends: a
		 * large broadcast never waits in a receiver's unexpected budget.
		 */
		int lrc = 0, big = len > lcmpi.eager;
		rc = MPI_SUCCESS;
		if (c->rank == root) {
			for (int i = 0; big && i < c->size && rc == MPI_SUCCESS; i++)
				if (i != root)
					rc = lcmpi_recv_ctx(c, c->ctx + 1, i, LCMPI_TAG_BCAST_READY,
							    NULL, 0, NULL);
			if (rc == MPI_SUCCESS)
				lrc = lc_bcast(lcmpi.node, buffer, len);
		} else if (big) {
			lc_req *r;
			lrc = lc_irecv_match(lcmpi.node, c->node_of[root], 0, LC_MATCH_ALL, buffer,
					     len, &r);
			if (lrc == 0) {
				rc = lcmpi_send_ctx(c, c->ctx + 1, root, LCMPI_TAG_BCAST_READY, NULL,
						    0, 0);
				lrc = lc_wait(lcmpi.node, r, NULL);
			}
		} else {
			lrc = lc_recv_match(lcmpi.node, c->node_of[root], 0, LC_MATCH_ALL, buffer,
					    len, NULL);
		}
		if (rc == MPI_SUCCESS && lrc)
			rc = lcmpi_err_of_lc(lrc);
	} else
#endif
		rc = lcmpi_tree_bcast(c, buffer, len, root, LCMPI_TAG_BCAST);
	return lcmpi_err(comm, rc, "MPI_Bcast", "%s", lc_last_error(lcmpi.node));
}

static int lcmpi_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
			MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, int all)
{
	LCMPI_READY(fn);
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t len = 0;
	int at_root = c && (all || c->rank == root);
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_coll_check(fn, comm, c, all ? 0 : root);
		if (rc == MPI_SUCCESS)
			rc = lcmpi_check_buf(comm, fn, sendbuf, count, dt, &len);
		if (rc == MPI_SUCCESS && at_root)
			rc = lcmpi_check_buf(comm, fn, recvbuf, count, dt, &len);
		if (rc != MPI_SUCCESS)
			return rc;
		if (lcmpi_reduce_local(NULL, NULL, 0, dt, op) != MPI_SUCCESS)
			return lcmpi_err(comm, MPI_ERR_OP, fn, "op %d on datatype %d", op, dt);
		if (sendbuf == MPI_IN_PLACE && !at_root)
			return lcmpi_err(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE off the root");
	}
	void *acc = malloc(len ? 2 * len : 1);
	if (!acc)
		return lcmpi_err(comm, MPI_ERR_NO_MEM, fn, "%zu bytes", 2 * len);
	if (len)        /* NULL buffers of 0 bytes are valid; memcpy's NULL is not */
		memcpy(acc, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, len);
	int r0 = all ? 0 : root;
	int rc = lcmpi_tree_reduce(c, acc, (char *)acc + len, count, dt, op, r0);
	if (rc == MPI_SUCCESS && all)
		rc = lcmpi_tree_bcast(c, acc, len, 0, LCMPI_TAG_BCAST);
	if (rc == MPI_SUCCESS && at_root && len)
		memcpy(recvbuf, acc, len);
	free(acc);
	return lcmpi_err(comm, rc, fn, "%s", lc_last_error(lcmpi.node));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm)
{
	return lcmpi_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, 0);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		  MPI_Comm comm)
{
	return lcmpi_reduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, 0, comm, 1);
}

/*
 * Binomial gather: node vr holds the blocks of relative ranks vr .. vr+n-1
 * (its subtree) in tmp, in relative order; root un-rotates them into
 * recvbuf.  Scatter runs the same tree the other way.
 */
static int lcmpi_tree_gather(const struct lcmpi_comm *c, char *tmp, size_t blk, int root)
{
	int size = c->size, vr = (c->rank - root + size) % size, rc;
	uint32_t ctx = c->ctx + 1;
	for (int mask = 1; mask < size; mask <<= 1) {
		if (vr & mask) {
			int n = mask < size - vr ? mask : size - vr;
			return lcmpi_send_ctx(c, ctx, lcmpi_abs(vr & ~mask, root, size),
					      LCMPI_TAG_GATHER, tmp, (size_t)n * blk, 0);
		}
		int child = vr | mask;
		if (child < size) {
			int n = mask < size - child ? mask : size - child;
			rc = lcmpi_recv_ctx(c, ctx, lcmpi_abs(child, root, size), LCMPI_TAG_GATHER,
					    tmp + (size_t)mask * blk, (size_t)n * blk, NULL);
			if (rc != MPI_SUCCESS)
				return rc;
		}
	}
	return MPI_SUCCESS;
}

static int lcmpi_tree_scatter(const struct lcmpi_comm *c, char *tmp, size_t blk, int root)
{
	int size = c->size, vr = (c->rank - root + size) % size, mask = 1, rc;
	uint32_t ctx = c->ctx + 1;
	for (; mask < size; mask <<= 1)
		if (vr & mask) {
			int n = mask < size - vr ? mask : size - vr;
			rc = lcmpi_recv_ctx(c, ctx, lcmpi_abs(vr - mask, root, size),
					    LCMPI_TAG_SCATTER, tmp, (size_t)n * blk, NULL);
			if (rc != MPI_SUCCESS)
				return rc;
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		int child = vr + mask;
		if (child < size) {
			int n = mask < size - child ? mask : size - child;
			rc = lcmpi_send_ctx(c, ctx, lcmpi_abs(child, root, size), LCMPI_TAG_SCATTER,
					    tmp + (size_t)mask * blk, (size_t)n * blk, 0);
			if (rc != MPI_SUCCESS)
				return rc;
		}
	}
	return MPI_SUCCESS;
}

/* Checks of a (send, recv) pair of a rooted collective; blk: the bytes of one rank's block. */
static int lcmpi_pair_check(const char *fn, MPI_Comm comm, const struct lcmpi_comm *c, int root,
			    const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    const void *recvbuf, int recvcount, MPI_Datatype recvtype,
			    int send_is_all, int recv_is_all, size_t *blk)
{
	size_t sb = 0, rb = 0;
	int rc = lcmpi_coll_check(fn, comm, c, root);
	int sall = send_is_all && c, rall = recv_is_all && c;
	if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE && sendcount >= 0)
		rc = lcmpi_check_buf(comm, fn, sendbuf, sall ? sendcount * c->size : sendcount,
				     sendtype, &sb);
	if (rc == MPI_SUCCESS && recvcount >= 0)
		rc = lcmpi_check_buf(comm, fn, recvbuf, rall ? recvcount * c->size : recvcount,
				     recvtype, &rb);
	/* with MPI_IN_PLACE the send count and type are ignored (MPI-3.1 5.5, 5.8) */
	if (rc == MPI_SUCCESS && ((sendbuf != MPI_IN_PLACE && sendcount < 0) || recvcount < 0))
		rc = lcmpi_err(comm, MPI_ERR_COUNT, fn, "count %d / %d", sendcount, recvcount);
	if (rc != MPI_SUCCESS)
		return rc;
	size_t s1 = sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount * (size_t)lcmpi_type_size(sendtype);
	size_t r1 = (size_t)recvcount * (size_t)lcmpi_type_size(recvtype);
	if (sendbuf != MPI_IN_PLACE && s1 != r1)
		return lcmpi_err(comm, MPI_ERR_TRUNCATE, fn, "send block %zu bytes, receive block %zu",
				 s1, r1);
	*blk = r1;
	return MPI_SUCCESS;
}

/*
 * MPI_Gather: on the root the receive arguments count (the send ones
 * elsewhere); every block has the same byte size (predefined types only).
 */
static int lcmpi_gather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
			int all)
{
	LCMPI_READY(fn);
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t blk = 0;
	int at_root = c && (all || c->rank == root);
	if (LCMPI_PARAM_CHECK) {
		int rc;
		if (at_root)
			rc = lcmpi_pair_check(fn, comm, c, all ? 0 : root, sendbuf, sendcount,
					      sendtype, recvbuf, recvcount, recvtype, 0, 1, &blk);
		else
			rc = lcmpi_pair_check(fn, comm, c, root, sendbuf, sendcount, sendtype,
					      sendbuf, sendcount, sendtype, 0, 0, &blk);
		if (rc != MPI_SUCCESS)
			return rc;
		if (sendbuf == MPI_IN_PLACE && !at_root)
			return lcmpi_err(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE off the root");
	}
	int size = c->size, r0 = all ? 0 : root;
	char *tmp = malloc(blk * (size_t)size + 1);
	if (!tmp)
		return lcmpi_err(comm, MPI_ERR_NO_MEM, fn, "%zu bytes", blk * (size_t)size);
	if (blk)        /* NULL buffers of 0 bytes are valid; memcpy's NULL (and NULL + 0) are not */
		memcpy(tmp, sendbuf == MPI_IN_PLACE ? (char *)recvbuf + (size_t)c->rank * blk : sendbuf,
		       blk);
	int rc = lcmpi_tree_gather(c, tmp, blk, r0);
	if (rc == MPI_SUCCESS && c->rank == r0 && blk)
		for (int vr = 0; vr < size; vr++)      /* relative order -> rank order */
			memcpy((char *)recvbuf + (size_t)lcmpi_abs(vr, r0, size) * blk,
			       tmp + (size_t)vr * blk, blk);
	if (rc == MPI_SUCCESS && all)
		rc = lcmpi_tree_bcast(c, recvbuf, blk * (size_t)size, 0, LCMPI_TAG_BCAST);
	free(tmp);
	return lcmpi_err(comm, rc, fn, "%s", lc_last_error(lcmpi.node));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return lcmpi_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
			    recvtype, root, comm, 0);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return lcmpi_gather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
			    recvtype, 0, comm, 1);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	LCMPI_READY("MPI_Scatter");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t blk = 0;
	int at_root = c && c->rank == root;
	if (LCMPI_PARAM_CHECK) {
		int rc;
		/* MPI_IN_PLACE is the receive buffer at the root */
		if (at_root && recvbuf == MPI_IN_PLACE)
			rc = lcmpi_pair_check("MPI_Scatter", comm, c, root, MPI_IN_PLACE, 0, sendtype,
					      sendbuf, sendcount, sendtype, 0, 1, &blk);
		else if (at_root)
			rc = lcmpi_pair_check("MPI_Scatter", comm, c, root, recvbuf, recvcount,
					      recvtype, sendbuf, sendcount, sendtype, 0, 1, &blk);
		else
			rc = lcmpi_pair_check("MPI_Scatter", comm, c, root, recvbuf, recvcount,
					      recvtype, recvbuf, recvcount, recvtype, 0, 0, &blk);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int size = c->size, vr = (c->rank - root + size) % size;
	char *tmp = malloc(blk * (size_t)size + 1);
	if (!tmp)
		return lcmpi_err(comm, MPI_ERR_NO_MEM, "MPI_Scatter", "%zu bytes",
				 blk * (size_t)size);
	if (at_root && blk)     /* NULL buffers of 0 bytes are valid; memcpy's NULL is not */
		for (int v = 0; v < size; v++)         /* rank order -> relative order */
			memcpy(tmp + (size_t)v * blk,
			       (const char *)sendbuf + (size_t)lcmpi_abs(v, root, size) * blk, blk);
	int rc = lcmpi_tree_scatter(c, tmp, blk, root);
	if (rc == MPI_SUCCESS && !(at_root && recvbuf == MPI_IN_PLACE) && blk)
		memcpy(recvbuf, tmp, blk);
	(void)vr;
	free(tmp);
	return lcmpi_err(comm, rc, "MPI_Scatter", "%s", lc_last_error(lcmpi.node));
}

/* Pairwise exchange: at step s send to rank+s, receive from rank-s (no tree: every pair talks). */
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	LCMPI_READY("MPI_Alltoall");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	size_t blk = 0;
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_pair_check("MPI_Alltoall", comm, c, 0, sendbuf, sendcount, sendtype,
					  recvbuf, recvcount, recvtype, 1, 1, &blk);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int size = c->size, me = c->rank, rc = MPI_SUCCESS;
	const char *src = sendbuf;
	char *copy = NULL;
	if (sendbuf == MPI_IN_PLACE) {
		if (!(copy = malloc(blk * (size_t)size + 1)))
			return lcmpi_err(comm, MPI_ERR_NO_MEM, "MPI_Alltoall", "out of memory");
		if (blk)
			memcpy(copy, recvbuf, blk * (size_t)size);
		src = copy;
	}
	if (blk)        /* NULL buffers of 0 bytes are valid; memmove's NULL (and NULL + 0) are not */
		memmove((char *)recvbuf + (size_t)me * blk, src + (size_t)me * blk, blk);
	for (int s = 1; s < size && rc == MPI_SUCCESS; s++) {
		int to = (me + s) % size, from = (me - s + size) % size;
		struct lcmpi_request *r;
		rc = lcmpi_post_recv(c, c->ctx + 1, from, LCMPI_TAG_ALLTOALL,
				     (char *)recvbuf + (size_t)from * blk, blk, MPI_COMM_NULL, &r);
		if (rc != MPI_SUCCESS)
			break;
		rc = lcmpi_send_ctx(c, c->ctx + 1, to, LCMPI_TAG_ALLTOALL, src + (size_t)to * blk,
				    blk, 0);
		lcmpi_wait_done(r);
		if (rc == MPI_SUCCESS && r->lrc != 0)
			rc = lcmpi_err_of_lc(r->lrc);
		lcmpi_req_free(r);
	}
	free(copy);
	return lcmpi_err(comm, rc, "MPI_Alltoall", "%s", lc_last_error(lcmpi.node));
}
