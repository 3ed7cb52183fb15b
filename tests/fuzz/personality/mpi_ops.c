/* SPDX-License-Identifier: MIT */
/* The MPI script: calls with fuzzed arguments, self-sends checked against a model of MPI's matching. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "lc_config.h"
#include "mpi.h"
#include "fuzz_personality.h"

/*
 * A session: MPI_Init (LC_MPI_EAGER from the input), MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD and MPI_COMM_SELF, then one call per opcode, then the
 * drain (unmatched receives cancelled, messages in flight received, every
 * request completed, duplicates freed) and MPI_Finalize.
 *
 * Arguments come from tables of valid and invalid values.  The expected
 * result of each call is computed first, in the order of mpi_impl.h's
 * checks (communicator, datatype, count, size, buffer, tag, rank, request);
 * a call expected to fail must fail with that class and change nothing.
 * A valid point-to-point call goes through the model: messages in flight
 * in send order, receives not matched yet in post order; a send matches
 * the oldest posted receive of its communicator and tag (MPI_ANY_TAG takes
 * any), a receive the oldest message in flight -- MPI's non-overtaking
 * rule, one source here.  A blocking call, a wait or a probe is made only
 * when the model says it returns (a standard send up to the eager limit is
 * buffered; a rendezvous or synchronous send needs its receive).  Every
 * completion is checked: the bytes (the prefix that fits), the buffer
 * beyond them and guard bytes untouched, source, tag, MPI_Get_count, the
 * truncation error, a send's buffer unchanged, a cancel.
 */

#define FZ_MAX_REQ 12
#define FZ_MAX_MSG 16
#define FZ_MAX_COMM 6
#define FZ_MAX_BYTES ((size_t)256 << 10)    /* a valid call's message; larger: NULL buffer */
#define FZ_GUARD 16
#define FZ_PREFILL 0x5eedu                  /* the seed of what a receive buffer holds at first */
#define FZ_KEEP 64                          /* buffers of requests freed with MPI_Request_free */

static const int fz_counts[] = { 0, 1, 2, 3, 8, 13, 64, 1000, 4097, 20000, 70000, -1, INT_MAX,
				 INT_MIN };
static const int fz_types[] = { MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE,
				MPI_SHORT, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DATATYPE_NULL,
				-1, MPI_LONG_DOUBLE + 1, 1000 };
static const int fz_tags[] = { 0, 1, 5, 5, 7, MPI_TAG_UB_VALUE, MPI_ANY_TAG, -2, INT_MIN };
static const int fz_ranks[] = { 0, 0, 0, MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT, 1, 255, -100 };
static const int fz_ops[] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_OP_NULL, 5, -1 };
static const int fz_eagers[] = { 8, 100, 4096, 65536 };

struct fz_req {
	int live;
	int recv;               /* 1 a receive, 0 a send */
	MPI_Request r;
	int slot, tag;          /* communicator slot; tag (a receive's may be MPI_ANY_TAG) */
	int sync, proc_null, cancel;
	MPI_Datatype dt;        /* a receive's datatype, for MPI_Get_count */
	size_t bytes;           /* send: the message's; receive: the buffer's */
	uint8_t *buf;           /* send: the payload; receive: bytes + FZ_GUARD, prefilled */
	uint32_t seed;          /* send: the payload's */
	unsigned seq;           /* post order */
	int matched;            /* send: a receive took it; receive: it took message m */
	struct fz_msg {
		int slot, tag, sreq;    /* sreq: the send request's index, -1: a finished send */
		size_t bytes;
		uint32_t seed;
		unsigned seq;           /* send order */
	} m;
};

static struct {
	MPI_Comm comm[FZ_MAX_COMM];     /* slot -> handle, MPI_COMM_NULL: free */
	MPI_Comm stale;                 /* a handle freed by MPI_Comm_free, or MPI_COMM_NULL */
	struct fz_req req[FZ_MAX_REQ];
	struct fz_msg msg[FZ_MAX_MSG];  /* in flight, unmatched, in send order */
	int nmsg;
	size_t eager, msg_bytes;        /* the eager limit; bytes of eager messages in flight */
	unsigned seq;
	uint32_t seed;
	void *keep[FZ_KEEP];            /* buffers the library may still use */
	int nkeep;
} m;

/* ---- arguments ---- */

/* A communicator argument: a live slot's handle (*slot set), or an invalid handle (*slot -1). */
static MPI_Comm fz_comm(struct fz_in *in, int *slot)
{
	unsigned b = fz_byte(in) % 12;

	*slot = -1;
	if (b < FZ_MAX_COMM && m.comm[b] != MPI_COMM_NULL) {
		*slot = (int)b;
		return m.comm[b];
	}
	if (b < 8) {
		*slot = (int)(b & 1);   /* a free slot: world or self */
		return m.comm[b & 1];
	}
	*slot = -1;
	switch (b) {
	case 8:
		return MPI_COMM_NULL;
	case 9:
		return m.stale;         /* MPI_COMM_NULL when nothing was freed */
	case 10:
		return 99;
	default:
		return -1;
	}
}

static int fz_slot_of(MPI_Comm c)
{
	for (int s = 0; s < FZ_MAX_COMM; s++)
		if (c != MPI_COMM_NULL && m.comm[s] == c)
			return s;
	return -1;
}

static int fz_tsize(MPI_Datatype dt)
{
	static const int size[] = {
		[MPI_CHAR] = sizeof(char), [MPI_SIGNED_CHAR] = sizeof(signed char),
		[MPI_UNSIGNED_CHAR] = sizeof(unsigned char), [MPI_BYTE] = 1,
		[MPI_SHORT] = sizeof(short), [MPI_UNSIGNED_SHORT] = sizeof(unsigned short),
		[MPI_INT] = sizeof(int), [MPI_UNSIGNED] = sizeof(unsigned),
		[MPI_LONG] = sizeof(long), [MPI_UNSIGNED_LONG] = sizeof(unsigned long),
		[MPI_LONG_LONG] = sizeof(long long),
		[MPI_UNSIGNED_LONG_LONG] = sizeof(unsigned long long),
		[MPI_FLOAT] = sizeof(float), [MPI_DOUBLE] = sizeof(double),
		[MPI_LONG_DOUBLE] = sizeof(long double),
	};
	return dt >= MPI_CHAR && dt <= MPI_LONG_DOUBLE ? size[dt] : -1;
}

/* A buffer argument: (count, datatype) and whether it is NULL. */
struct fz_buf {
	int count;
	MPI_Datatype dt;
	int null;
	size_t bytes;           /* count x size when both are valid */
	int bad;                /* the class the buffer check gives, 0: passes */
};

static struct fz_buf fz_bufarg(struct fz_in *in)
{
	struct fz_buf b;
	int sz;

	b.count = fz_pick(in, fz_counts, FZ_N(fz_counts));
	b.dt = fz_pick(in, fz_types, FZ_N(fz_types));
	b.null = fz_byte(in) % 8 == 0;
	sz = fz_tsize(b.dt);
	b.bytes = sz > 0 && b.count >= 0 ? (size_t)b.count * (size_t)sz : 0;
	if (!b.null && b.bytes > FZ_MAX_BYTES)
		b.null = 1;     /* no such buffer here: a NULL one tests the check instead */
	b.bad = sz < 0 ? MPI_ERR_TYPE : b.count < 0 ? MPI_ERR_COUNT :
		b.bytes > LC_MAX_MSG ? MPI_ERR_COUNT : (b.null && b.bytes) ? MPI_ERR_BUFFER : 0;
	return b;
}

/* A buffer of n bytes (NULL when null), holding message seed's bytes, for a send. */
static uint8_t *fz_sendbuf(size_t n, int null, uint32_t seed)
{
	if (null)
		return NULL;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		fz_fail("out of memory");
	fz_fill(p, n, seed);
	return p;
}

/* A receive buffer of n bytes and the guard, prefilled. */
static uint8_t *fz_recvbuf(size_t n, int null)
{
	if (null)
		return NULL;
	uint8_t *p = malloc(n + FZ_GUARD);
	if (!p)
		fz_fail("out of memory");
	fz_fill(p, n + FZ_GUARD, FZ_PREFILL);
	return p;
}

static void fz_expect(const char *call, int rc, int want)
{
	if (rc != want)
		fz_fail("%s returned %d, expected %d", call, rc, want);
}

/* ---- the model ---- */

static int fz_tag_match(int want, int tag)
{
	return want == MPI_ANY_TAG || want == tag;
}

/* The oldest receive not matched yet that takes (slot, tag), or -1. */
static int fz_first_recv(int slot, int tag)
{
	int best = -1;
	for (int i = 0; i < FZ_MAX_REQ; i++) {
		struct fz_req *r = &m.req[i];
		if (r->live && r->recv && !r->proc_null && !r->matched && !r->cancel &&
		    r->slot == slot && fz_tag_match(r->tag, tag) &&
		    (best < 0 || r->seq < m.req[best].seq))
			best = i;
	}
	return best;
}

/* The oldest message in flight that (slot, tag) takes, or -1. */
static int fz_first_msg(int slot, int tag)
{
	for (int i = 0; i < m.nmsg; i++)
		if (m.msg[i].slot == slot && fz_tag_match(tag, m.msg[i].tag))
			return i;
	return -1;
}

static void fz_take_msg(int i, struct fz_msg *out)
{
	*out = m.msg[i];
	if (out->bytes <= m.eager && (out->sreq < 0 || !m.req[out->sreq].sync))
		m.msg_bytes -= out->bytes;
	memmove(&m.msg[i], &m.msg[i + 1], (size_t)(m.nmsg - i - 1) * sizeof m.msg[0]);
	m.nmsg--;
}

/* Back in flight, at its place in send order (a receive that took it was cancelled). */
static void fz_put_msg(const struct fz_msg *g)
{
	int i = 0;
	while (i < m.nmsg && m.msg[i].seq < g->seq)
		i++;
	memmove(&m.msg[i + 1], &m.msg[i], (size_t)(m.nmsg - i) * sizeof m.msg[0]);
	m.msg[i] = *g;
	m.nmsg++;
	if (g->bytes <= m.eager && (g->sreq < 0 || !m.req[g->sreq].sync))
		m.msg_bytes += g->bytes;
	if (g->sreq >= 0)
		m.req[g->sreq].matched = 0;
}

/*
 * Would a new send (slot, tag, bytes, sync) stay within what the harness
 * lets wait unreceived?  The receiver's unexpected budget must not fill.
 */
static int fz_send_room(int slot, int tag, size_t bytes, int sync)
{
	if (fz_first_recv(slot, tag) >= 0)
		return 1;
	if (m.nmsg >= FZ_MAX_MSG)
		return 0;
	return sync || bytes > m.eager ||
	       m.msg_bytes + bytes <= (size_t)LC_HOST_UNEXPECTED_BYTES / 4;
}

/* A send enters the model: it matches a posted receive, or goes in flight.  sreq: -1 blocking. */
static void fz_model_send(int slot, int tag, size_t bytes, uint32_t seed, int sreq, int sync)
{
	int r = fz_first_recv(slot, tag);
	struct fz_msg g = { slot, tag, sreq, bytes, seed, m.seq++ };

	if (r >= 0) {
		m.req[r].matched = 1;
		m.req[r].m = g;
		if (sreq >= 0)
			m.req[sreq].matched = 1;
		return;
	}
	if (m.nmsg >= FZ_MAX_MSG)
		fz_fail("harness: more messages in flight than it tracks");
	m.msg[m.nmsg++] = g;
	if (bytes <= m.eager && !sync)
		m.msg_bytes += bytes;
}

/* A receive request enters the model: it takes a message in flight, or waits. */
static void fz_model_recv(int i)
{
	struct fz_req *r = &m.req[i];
	int k = fz_first_msg(r->slot, r->tag);

	if (k < 0)
		return;
	fz_take_msg(k, &r->m);
	r->matched = 1;
	if (r->m.sreq >= 0)
		m.req[r->m.sreq].matched = 1;
}

/* Does request i complete if waited for? */
static int fz_completes(const struct fz_req *r)
{
	if (r->proc_null)
		return 1;
	if (r->recv)
		return r->matched || r->cancel;
	return r->matched || (!r->sync && r->bytes <= m.eager);
}

/*
 * Request i is gone (finished or freed): a message it sent that is still in
 * flight, or held by a receive that may yet be cancelled, is a finished
 * send's from now on (sreq -1), so the index can be reused by another request.
 */
static void fz_forget_req(int i)
{
	for (int k = 0; k < m.nmsg; k++)
		if (m.msg[k].sreq == i)
			m.msg[k].sreq = -1;
	for (int k = 0; k < FZ_MAX_REQ; k++)
		if (m.req[k].live && m.req[k].recv && m.req[k].matched && m.req[k].m.sreq == i)
			m.req[k].m.sreq = -1;
	m.req[i].live = 0;
}

static int fz_new_req(void)
{
	for (int i = 0; i < FZ_MAX_REQ; i++)
		if (!m.req[i].live) {
			memset(&m.req[i], 0, sizeof m.req[i]);
			m.req[i].live = 1;
			m.req[i].seq = m.seq++;
			return i;
		}
	return -1;
}

static void fz_keep(void *p)
{
	if (!p)
		return;
	if (m.nkeep == FZ_KEEP)
		fz_fail("harness: more kept buffers than it tracks");
	m.keep[m.nkeep++] = p;
}

/*
 * Check a finished receive of the model's message g (has: one was taken)
 * into buf (cap bytes) of datatype dt, with rc and status st (NULL:
 * MPI_STATUS_IGNORE).  cancelled: the status said so.
 */
static void fz_check_recv(const char *call, int has, const struct fz_msg *g, int proc_null,
			  const uint8_t *buf, size_t cap, MPI_Datatype dt, int rc,
			  const MPI_Status *st, int cancelled)
{
	size_t got = 0, k;

	if (proc_null || cancelled) {
		fz_expect(call, rc, MPI_SUCCESS);
		if (st && proc_null && (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG))
			fz_fail("%s from MPI_PROC_NULL: status source %d tag %d", call, st->MPI_SOURCE,
				st->MPI_TAG);
	} else {
		if (!has)
			fz_fail("%s completed, yet no message could match it", call);
		fz_expect(call, rc, g->bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
		got = g->bytes < cap ? g->bytes : cap;
		if (buf && (k = fz_check(buf, got, g->seed)) != got)
			fz_fail("%s: byte %zu of %zu received wrong (message of %zu bytes)", call, k,
				got, g->bytes);
		if (st) {
			int count = -2, sz = fz_tsize(dt);
			if (st->MPI_SOURCE != 0 || st->MPI_TAG != g->tag)
				fz_fail("%s: status source %d tag %d, sent by 0 with tag %d", call,
					st->MPI_SOURCE, st->MPI_TAG, g->tag);
			fz_expect("MPI_Get_count", MPI_Get_count(st, dt, &count), MPI_SUCCESS);
			int want = g->bytes % (size_t)sz || g->bytes / (size_t)sz > INT_MAX ?
				   MPI_UNDEFINED : (int)(g->bytes / (size_t)sz);
			if (count != want)
				fz_fail("%s: MPI_Get_count %d, expected %d (%zu bytes)", call, count, want,
					g->bytes);
		}
	}
	/* what was not received, and the guard, are as they were */
	for (k = got; buf && k < cap + FZ_GUARD; k++)
		if (buf[k] != fz_pattern(FZ_PREFILL, k))
			fz_fail("%s: byte %zu of a %zu-byte buffer overwritten (%zu received)", call, k,
				cap, got);
}

/* Request i finished with rc and status st (NULL: ignored): check it and forget it. */
static void fz_finish(const char *call, int i, int rc, const MPI_Status *st)
{
	struct fz_req *r = &m.req[i];
	int cancelled = 0;

	if (st && r->cancel) {
		fz_expect("MPI_Test_cancelled", MPI_Test_cancelled(st, &cancelled), MPI_SUCCESS);
		if (cancelled && !r->recv)
			fz_fail("%s: a send was cancelled (never, says MPI_Cancel)", call);
		if (!cancelled && r->recv && !r->matched && !r->proc_null)
			fz_fail("%s: a receive nothing matched was not cancelled", call);
	}
	if (r->recv) {
		if (cancelled && r->matched)
			fz_put_msg(&r->m);      /* taken back before it arrived */
		fz_check_recv(call, r->matched, &r->m, r->proc_null, r->buf, r->bytes, r->dt, rc, st,
			      cancelled);
	} else {
		fz_expect(call, rc, MPI_SUCCESS);
		if (r->buf && fz_check(r->buf, r->bytes, r->seed) != r->bytes)
			fz_fail("%s: the send's buffer changed", call);
	}
	free(r->buf);
	fz_forget_req(i);
}

/* ---- point-to-point ---- */

/* The class a send's checks give (the request's last), 0: valid. */
static int fz_send_err(int slot, const struct fz_buf *b, int dest, int tag)
{
	if (slot < 0)
		return MPI_ERR_COMM;
	if (b->bad)
		return b->bad;
	if (tag < 0)
		return MPI_ERR_TAG;
	if (dest != MPI_PROC_NULL && dest != 0)
		return MPI_ERR_RANK;
	return 0;
}

static int fz_recv_err(int slot, const struct fz_buf *b, int src, int tag)
{
	if (slot < 0)
		return MPI_ERR_COMM;
	if (b->bad)
		return b->bad;
	if (tag < 0 && tag != MPI_ANY_TAG)
		return MPI_ERR_TAG;
	if (src != MPI_PROC_NULL && src != MPI_ANY_SOURCE && src != 0)
		return MPI_ERR_RANK;
	return 0;
}

/* MPI_Isend / MPI_Issend */
static void op_isend(struct fz_in *in)
{
	int slot, sync = fz_byte(in) & 1, noreq = fz_byte(in) % 16 == 0;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int dest = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), tag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int want = fz_send_err(slot, &b, dest, tag);
	const char *fn = sync ? "MPI_Issend" : "MPI_Isend";
	uint32_t seed = m.seed++;
	MPI_Request r = MPI_REQUEST_NULL;

	if (!want && noreq)
		want = MPI_ERR_REQUEST;
	if (want) {
		uint8_t *buf = fz_sendbuf(b.bytes, b.null, seed);
		int rc = sync ? MPI_Issend(buf, b.count, b.dt, dest, tag, c, noreq ? NULL : &r)
			      : MPI_Isend(buf, b.count, b.dt, dest, tag, c, noreq ? NULL : &r);
		fz_expect(fn, rc, want);
		if (r != MPI_REQUEST_NULL)
			fz_fail("%s failed but gave a request", fn);
		free(buf);
		return;
	}
	int i = fz_new_req();
	if (i < 0 || (dest != MPI_PROC_NULL && !fz_send_room(slot, tag, b.bytes, sync))) {
		if (i >= 0)
			m.req[i].live = 0;
		return;
	}
	struct fz_req *q = &m.req[i];
	q->slot = slot;
	q->tag = tag;
	q->sync = sync;
	q->proc_null = dest == MPI_PROC_NULL;
	q->bytes = b.bytes;
	q->seed = seed;
	q->buf = fz_sendbuf(b.bytes, b.null, seed);
	int rc = sync ? MPI_Issend(q->buf, b.count, b.dt, dest, tag, c, &q->r)
		      : MPI_Isend(q->buf, b.count, b.dt, dest, tag, c, &q->r);
	fz_expect(fn, rc, MPI_SUCCESS);
	if (q->r == MPI_REQUEST_NULL)
		fz_fail("%s gave MPI_REQUEST_NULL", fn);
	if (!q->proc_null)
		fz_model_send(slot, tag, b.bytes, seed, i, sync);
}

/* MPI_Irecv */
static void op_irecv(struct fz_in *in)
{
	int slot, noreq = fz_byte(in) % 16 == 0;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int src = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), tag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int want = fz_recv_err(slot, &b, src, tag);
	MPI_Request r = MPI_REQUEST_NULL;

	if (!want && noreq)
		want = MPI_ERR_REQUEST;
	if (want) {
		uint8_t *buf = fz_recvbuf(b.bytes, b.null);
		fz_expect("MPI_Irecv", MPI_Irecv(buf, b.count, b.dt, src, tag, c, noreq ? NULL : &r),
			  want);
		if (buf)
			fz_check_recv("MPI_Irecv (refused)", 0, NULL, 1, buf, b.bytes, b.dt, 0, NULL, 0);
		free(buf);
		return;
	}
	int i = fz_new_req();
	if (i < 0)
		return;
	struct fz_req *q = &m.req[i];
	q->recv = 1;
	q->slot = slot;
	q->tag = tag;
	q->dt = b.dt;
	q->proc_null = src == MPI_PROC_NULL;
	q->bytes = b.bytes;
	q->buf = fz_recvbuf(b.bytes, b.null);
	fz_expect("MPI_Irecv", MPI_Irecv(q->buf, b.count, b.dt, src, tag, c, &q->r), MPI_SUCCESS);
	if (q->r == MPI_REQUEST_NULL)
		fz_fail("MPI_Irecv gave MPI_REQUEST_NULL");
	if (!q->proc_null)
		fz_model_recv(i);
}

/* MPI_Send / MPI_Ssend / MPI_Rsend, where they return */
static void op_send(struct fz_in *in)
{
	static const char *const fns[] = { "MPI_Send", "MPI_Ssend", "MPI_Rsend" };
	int mode = (int)(fz_byte(in) % 3), slot, sync = mode == 1;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int dest = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), tag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int want = fz_send_err(slot, &b, dest, tag);
	uint32_t seed = m.seed++;

	if (!want && dest != MPI_PROC_NULL) {
		/* it returns if a posted receive takes it, or if it is buffered */
		int r = fz_first_recv(slot, tag);
		if (r < 0 && (sync || b.bytes > m.eager || !fz_send_room(slot, tag, b.bytes, 0)))
			return;
	}
	uint8_t *buf = fz_sendbuf(b.bytes, b.null, seed);
	int rc = mode == 0 ? MPI_Send(buf, b.count, b.dt, dest, tag, c) :
		 mode == 1 ? MPI_Ssend(buf, b.count, b.dt, dest, tag, c) :
			     MPI_Rsend(buf, b.count, b.dt, dest, tag, c);
	fz_expect(fns[mode], rc, want);
	if (buf && fz_check(buf, b.bytes, seed) != b.bytes)
		fz_fail("%s changed its buffer", fns[mode]);
	free(buf);
	if (!want && dest != MPI_PROC_NULL)
		fz_model_send(slot, tag, b.bytes, seed, -1, sync);
}

/* MPI_Recv, where it returns */
static void op_recv(struct fz_in *in)
{
	int slot, ignore = fz_byte(in) % 4 == 0;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int src = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), tag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int want = fz_recv_err(slot, &b, src, tag), k = -1;
	struct fz_msg g = { 0 };
	MPI_Status st;

	if (!want && src != MPI_PROC_NULL && (k = fz_first_msg(slot, tag)) < 0)
		return;         /* nothing would ever arrive */
	uint8_t *buf = fz_recvbuf(b.bytes, b.null);
	memset(&st, 0xff, sizeof st);
	int rc = MPI_Recv(buf, b.count, b.dt, src, tag, c, ignore ? MPI_STATUS_IGNORE : &st);
	if (want) {
		fz_expect("MPI_Recv", rc, want);
		fz_check_recv("MPI_Recv (refused)", 0, NULL, 1, buf, b.bytes, b.dt, 0, NULL, 0);
	} else {
		if (k >= 0) {
			fz_take_msg(k, &g);
			if (g.sreq >= 0)
				m.req[g.sreq].matched = 1;
		}
		fz_check_recv("MPI_Recv", k >= 0, &g, src == MPI_PROC_NULL, buf, b.bytes, b.dt, rc,
			      ignore ? NULL : &st, 0);
	}
	free(buf);
}

/* MPI_Sendrecv: a receive and a send at once, where it returns */
static void op_sendrecv(struct fz_in *in)
{
	int slot, ignore = fz_byte(in) % 4 == 0;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf sb = fz_bufarg(in), rb = fz_bufarg(in);
	int dest = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), stag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int src = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), rtag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	int want = fz_recv_err(slot, &rb, src, rtag);
	uint32_t seed = m.seed++;
	MPI_Status st;

	if (!want)
		want = fz_send_err(slot, &sb, dest, stag);
	/*
	 * Valid: the receive is posted first, then the send, and both must
	 * finish.  The receive takes the oldest message in flight, else waits;
	 * the send the oldest receive posted before, else the new one (when it
	 * still waits and takes its tag), else it goes in flight.
	 */
	int i = -1;
	if (!want) {
		int rnull = src == MPI_PROC_NULL, snull = dest == MPI_PROC_NULL;
		int k = rnull ? -1 : fz_first_msg(slot, rtag);
		int r0 = snull ? -1 : fz_first_recv(slot, stag);
		int to_me = !rnull && !snull && k < 0 && r0 < 0 && fz_tag_match(rtag, stag);
		int recv_done = rnull || k >= 0 || to_me;
		int send_done = snull || r0 >= 0 || to_me ||
				(sb.bytes <= m.eager && fz_send_room(slot, stag, sb.bytes, 0));
		if (!recv_done || !send_done || (i = fz_new_req()) < 0)
			return;
		struct fz_req *q = &m.req[i];
		q->recv = 1;
		q->slot = slot;
		q->tag = rtag;
		q->dt = rb.dt;
		q->proc_null = rnull;
		q->bytes = rb.bytes;
	}
	uint8_t *sbuf = fz_sendbuf(sb.bytes, sb.null, seed), *rbuf = fz_recvbuf(rb.bytes, rb.null);
	memset(&st, 0xff, sizeof st);
	int rc = MPI_Sendrecv(sbuf, sb.count, sb.dt, dest, stag, rbuf, rb.count, rb.dt, src, rtag, c,
			      ignore ? MPI_STATUS_IGNORE : &st);
	if (sbuf && fz_check(sbuf, sb.bytes, seed) != sb.bytes)
		fz_fail("MPI_Sendrecv changed its send buffer");
	free(sbuf);
	if (want) {
		fz_expect("MPI_Sendrecv", rc, want);
		fz_check_recv("MPI_Sendrecv (refused)", 0, NULL, 1, rbuf, rb.bytes, rb.dt, 0, NULL, 0);
		free(rbuf);
		return;
	}
	struct fz_req *q = &m.req[i];
	q->buf = rbuf;
	if (!q->proc_null)
		fz_model_recv(i);
	if (dest != MPI_PROC_NULL)
		fz_model_send(slot, stag, sb.bytes, seed, -1, 0);
	fz_finish("MPI_Sendrecv", i, rc, ignore ? NULL : &st);
}

/* A live request, by the input's choice, or -1. */
static int fz_pick_req(struct fz_in *in)
{
	int start = (int)(fz_byte(in) % FZ_MAX_REQ);
	for (int k = 0; k < FZ_MAX_REQ; k++) {
		int i = (start + k) % FZ_MAX_REQ;
		if (m.req[i].live)
			return i;
	}
	return -1;
}

/* MPI_Wait / MPI_Test on one request, MPI_REQUEST_NULL, or NULL */
static void op_wait(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int test = how & 1, ignore = (how >> 1) % 4 == 0, i = fz_pick_req(in), flag = -1;
	MPI_Status st;
	MPI_Request nul = MPI_REQUEST_NULL;

	memset(&st, 0xff, sizeof st);
	if ((how >> 3) % 8 == 0) {              /* MPI_REQUEST_NULL: done at once, empty status */
		int rc = test ? MPI_Test(&nul, &flag, &st) : MPI_Wait(&nul, &st);
		fz_expect(test ? "MPI_Test" : "MPI_Wait", rc, MPI_SUCCESS);
		if ((test && flag != 1) || st.MPI_SOURCE != MPI_PROC_NULL || st.MPI_TAG != MPI_ANY_TAG)
			fz_fail("waiting for MPI_REQUEST_NULL: flag %d, status source %d tag %d", flag,
				st.MPI_SOURCE, st.MPI_TAG);
		return;
	}
	if ((how >> 3) % 8 == 1) {              /* a NULL pointer */
		fz_expect(test ? "MPI_Test" : "MPI_Wait", test ? MPI_Test(NULL, &flag, &st) :
			  MPI_Wait(NULL, &st), test ? MPI_ERR_ARG : MPI_ERR_REQUEST);
		return;
	}
	if (i < 0)
		return;
	struct fz_req *r = &m.req[i];
	if (r->cancel)
		ignore = 0;     /* the status says whether it was cancelled */
	if (test) {
		int rc = MPI_Test(&r->r, &flag, ignore ? MPI_STATUS_IGNORE : &st);
		if (!flag) {
			fz_expect("MPI_Test (not done)", rc, MPI_SUCCESS);
			return;
		}
		if (!fz_completes(r))
			fz_fail("MPI_Test: a request completed that nothing could complete");
		if (r->r != MPI_REQUEST_NULL)
			fz_fail("MPI_Test: a finished request's handle is not MPI_REQUEST_NULL");
		fz_finish("MPI_Test", i, rc, ignore ? NULL : &st);
		return;
	}
	if (!fz_completes(r))
		return;         /* it would wait forever */
	int rc = MPI_Wait(&r->r, ignore ? MPI_STATUS_IGNORE : &st);
	if (r->r != MPI_REQUEST_NULL)
		fz_fail("MPI_Wait: a finished request's handle is not MPI_REQUEST_NULL");
	fz_finish("MPI_Wait", i, rc, ignore ? NULL : &st);
}

/* MPI_Waitall / Testall / Waitany / Testany on up to 4 requests (and nulls) */
static void op_many(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int kind = how % 4, ignore = (how >> 2) % 4 == 0, n = (int)((how >> 4) % 5), flag = -1;
	int idx[4], index = -5, all = 1, any = 0, bad = (how >> 7) && fz_byte(in) % 4 == 0;
	MPI_Request reqs[4];
	MPI_Status sts[4], st;
	static const char *const fns[] = { "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Testany" };

	if (bad) {              /* count < 0, or NULL requests for count > 0 */
		int count = fz_byte(in) & 1 ? -1 : 2, rc;
		switch (kind) {
		case 0: rc = MPI_Waitall(count, NULL, NULL); break;
		case 1: rc = MPI_Testall(count, NULL, &flag, NULL); break;
		case 2: rc = MPI_Waitany(count, NULL, &index, NULL); break;
		default: rc = MPI_Testany(count, NULL, &index, &flag, NULL); break;
		}
		fz_expect(fns[kind], rc, MPI_ERR_ARG);
		return;
	}
	for (int k = 0; k < n; k++) {
		int i = fz_pick_req(in);
		for (int j = 0; j < k; j++)
			if (idx[j] == i)
				i = -1;         /* a request given twice is a program's error */
		idx[k] = i;
		reqs[k] = i >= 0 ? m.req[i].r : MPI_REQUEST_NULL;
		if (i >= 0) {
			all &= fz_completes(&m.req[i]);
			any |= fz_completes(&m.req[i]);
			if (m.req[i].cancel)
				ignore = 0;
		}
	}
	int active = 0;
	for (int k = 0; k < n; k++)
		active += idx[k] >= 0;
	if ((kind == 0 && !all) || (kind == 2 && active && !any))
		return;         /* it would wait forever */
	memset(sts, 0xff, sizeof sts);
	memset(&st, 0xff, sizeof st);
	int rc;
	switch (kind) {
	case 0: rc = MPI_Waitall(n, reqs, ignore ? MPI_STATUSES_IGNORE : sts); break;
	case 1: rc = MPI_Testall(n, reqs, &flag, ignore ? MPI_STATUSES_IGNORE : sts); break;
	case 2: rc = MPI_Waitany(n, reqs, &index, ignore ? MPI_STATUS_IGNORE : &st); break;
	default: rc = MPI_Testany(n, reqs, &index, &flag, ignore ? MPI_STATUS_IGNORE : &st); break;
	}
	if (kind <= 1) {
		if (kind == 1 && !flag) {
			fz_expect("MPI_Testall (not all done)", rc, MPI_SUCCESS);
			for (int k = 0; k < n; k++)
				if (idx[k] >= 0 && reqs[k] != m.req[idx[k]].r)
					fz_fail("MPI_Testall: not all done, yet a request was freed");
			return;
		}
		if (kind == 1 && !all)
			fz_fail("MPI_Testall: done, yet a request could not complete");
		/* each request's own result; the call's: MPI_ERR_IN_STATUS (or the error) if one failed */
		int failed = 0;
		for (int k = 0; k < n; k++) {
			if (idx[k] < 0)
				continue;
			struct fz_req *r = &m.req[idx[k]];
			int e = r->recv && r->matched && !r->proc_null && r->m.bytes > r->bytes ?
				MPI_ERR_TRUNCATE : MPI_SUCCESS;
			if (r->cancel && r->recv && !ignore) {
				int c = 0;
				MPI_Test_cancelled(&sts[k], &c);
				if (c)
					e = MPI_SUCCESS;
			}
			failed |= e != MPI_SUCCESS;
			if (!ignore && e != sts[k].MPI_ERROR && e != MPI_SUCCESS)
				fz_fail("%s: status %d MPI_ERROR %d, expected %d", fns[kind], k,
					sts[k].MPI_ERROR, e);
			if (reqs[k] != MPI_REQUEST_NULL)
				fz_fail("%s: a finished request's handle is not MPI_REQUEST_NULL", fns[kind]);
			fz_finish(fns[kind], idx[k], e, ignore ? NULL : &sts[k]);
		}
		fz_expect(fns[kind], rc, failed ? (ignore ? MPI_ERR_TRUNCATE : MPI_ERR_IN_STATUS)
						: MPI_SUCCESS);
		return;
	}
	if (kind == 3 && !flag) {
		fz_expect("MPI_Testany (none done)", rc, MPI_SUCCESS);
		if (index != MPI_UNDEFINED)
			fz_fail("MPI_Testany: none done, index %d", index);
		return;
	}
	if (!active) {
		fz_expect(fns[kind], rc, MPI_SUCCESS);
		if (index != MPI_UNDEFINED)
			fz_fail("%s of no active request: index %d", fns[kind], index);
		return;
	}
	if (index < 0 || index >= n || idx[index] < 0)
		fz_fail("%s: index %d of %d requests", fns[kind], index, n);
	if (!fz_completes(&m.req[idx[index]]))
		fz_fail("%s: a request completed that nothing could complete", fns[kind]);
	if (reqs[index] != MPI_REQUEST_NULL)
		fz_fail("%s: the finished request's handle is not MPI_REQUEST_NULL", fns[kind]);
	fz_finish(fns[kind], idx[index], rc, ignore ? NULL : &st);
}

/* MPI_Iprobe / MPI_Probe */
static void op_probe(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int slot, blocking = how & 1, noflag = !blocking && (how >> 1) % 16 == 0, flag = -1;
	MPI_Comm c = fz_comm(in, &slot);
	int src = fz_pick(in, fz_ranks, FZ_N(fz_ranks)), tag = fz_pick(in, fz_tags, FZ_N(fz_tags));
	struct fz_buf none = { 0, MPI_BYTE, 1, 0, 0 };
	int want = noflag ? MPI_ERR_ARG : fz_recv_err(slot, &none, src, tag);
	const char *fn = blocking ? "MPI_Probe" : "MPI_Iprobe";
	MPI_Status st;

	int k = !want && src != MPI_PROC_NULL ? fz_first_msg(slot, tag) : -1;
	if (blocking && !want && src != MPI_PROC_NULL && k < 0)
		return;         /* it would wait forever */
	memset(&st, 0xff, sizeof st);
	int rc = blocking ? MPI_Probe(src, tag, c, &st) : MPI_Iprobe(src, tag, c, noflag ? NULL : &flag,
								     &st);
	fz_expect(fn, rc, want);
	if (want)
		return;
	if (blocking)
		flag = 1;
	if (src == MPI_PROC_NULL) {
		if (flag != 1 || st.MPI_SOURCE != MPI_PROC_NULL)
			fz_fail("%s from MPI_PROC_NULL: flag %d source %d", fn, flag, st.MPI_SOURCE);
		return;
	}
	if (!flag)
		return;
	if (k < 0)
		fz_fail("%s found a message that was never sent", fn);
	int count = -2;
	fz_expect("MPI_Get_count", MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
	if (st.MPI_SOURCE != 0 || st.MPI_TAG != m.msg[k].tag || (size_t)count != m.msg[k].bytes)
		fz_fail("%s: source %d tag %d count %d, the oldest message has tag %d, %zu bytes", fn,
			st.MPI_SOURCE, st.MPI_TAG, count, m.msg[k].tag, m.msg[k].bytes);
}

/* MPI_Cancel, MPI_Request_free */
static void op_cancel(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int i = fz_pick_req(in);
	MPI_Request nul = MPI_REQUEST_NULL;

	if (how % 8 == 0) {
		fz_expect(how & 8 ? "MPI_Cancel" : "MPI_Request_free",
			  how & 8 ? MPI_Cancel(&nul) : MPI_Request_free(&nul), MPI_ERR_REQUEST);
		return;
	}
	if (i < 0)
		return;
	struct fz_req *r = &m.req[i];
	if (how & 8) {
		fz_expect("MPI_Cancel", MPI_Cancel(&r->r), MPI_SUCCESS);
		r->cancel = 1;
		return;
	}
	/* freed, the request completes unseen: only one that completes by itself */
	if (r->cancel || !fz_completes(r))
		return;
	fz_expect("MPI_Request_free", MPI_Request_free(&r->r), MPI_SUCCESS);
	if (r->r != MPI_REQUEST_NULL)
		fz_fail("MPI_Request_free left the handle");
	fz_keep(r->buf);
	fz_forget_req(i);
}

/* ---- communicators, errors, datatypes, environment ---- */

static int fz_slot_busy(int slot)
{
	for (int i = 0; i < FZ_MAX_REQ; i++)
		if (m.req[i].live && m.req[i].slot == slot)
			return 1;
	for (int i = 0; i < m.nmsg; i++)
		if (m.msg[i].slot == slot)
			return 1;
	return 0;
}

/* MPI_Comm_dup / MPI_Comm_free / MPI_Comm_rank / MPI_Comm_size */
static void op_comm(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int slot, v = -7, null = (how >> 2) % 8 == 0;
	MPI_Comm c = fz_comm(in, &slot), d = MPI_COMM_NULL;

	switch (how % 4) {
	case 0: {
		int want = slot < 0 ? MPI_ERR_COMM : null ? MPI_ERR_ARG : 0, s;
		for (s = 2; s < FZ_MAX_COMM && m.comm[s] != MPI_COMM_NULL; s++)
			;
		if (!want && s == FZ_MAX_COMM)
			return;
		fz_expect("MPI_Comm_dup", MPI_Comm_dup(c, null ? NULL : &d), want);
		if (want)
			return;
		if (d == MPI_COMM_NULL || fz_slot_of(d) >= 0 || d == MPI_COMM_WORLD || d == MPI_COMM_SELF)
			fz_fail("MPI_Comm_dup gave handle %d", d);
		MPI_Errhandler eh = -1;
		fz_expect("MPI_Comm_get_errhandler", MPI_Comm_get_errhandler(d, &eh), MPI_SUCCESS);
		if (eh != MPI_ERRORS_RETURN)
			fz_fail("MPI_Comm_dup: the duplicate's error handler is %d", eh);
		m.comm[s] = d;
		if (d == m.stale)
			m.stale = MPI_COMM_NULL;        /* the freed handle came back */
		return;
	}
	case 1: {
		if (null) {
			fz_expect("MPI_Comm_free", MPI_Comm_free(NULL), MPI_ERR_ARG);
			return;
		}
		if (slot >= 2 && fz_slot_busy(slot))
			return;         /* what is in flight on it could never be received */
		int want = slot < 2 ? MPI_ERR_COMM : 0;
		MPI_Comm h = c;
		fz_expect("MPI_Comm_free", MPI_Comm_free(&h), want);
		if (want)
			return;
		if (h != MPI_COMM_NULL)
			fz_fail("MPI_Comm_free left handle %d", h);
		m.comm[slot] = MPI_COMM_NULL;
		m.stale = c;
		return;
	}
	default: {
		int size = how % 4 == 3;
		int want = slot < 0 ? MPI_ERR_COMM : null ? MPI_ERR_ARG : 0;
		int rc = size ? MPI_Comm_size(c, null ? NULL : &v) : MPI_Comm_rank(c, null ? NULL : &v);
		fz_expect(size ? "MPI_Comm_size" : "MPI_Comm_rank", rc, want);
		if (!want && v != (size ? 1 : 0))
			fz_fail("%s: %d in a one-node job", size ? "MPI_Comm_size" : "MPI_Comm_rank", v);
		return;
	}
	}
}

/* Error handlers, MPI_Error_string, MPI_Error_class */
static void op_errors(struct fz_in *in)
{
	static const int codes[] = { MPI_SUCCESS, MPI_ERR_TRUNCATE, MPI_ERR_NO_MEM, MPI_ERR_LASTCODE,
				     -1, 1000 };
	static const int handlers[] = { MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL,
					MPI_ERRHANDLER_NULL, 3, -1 };
	unsigned how = fz_byte(in);
	int slot, code = fz_pick(in, codes, FZ_N(codes)), len = -1, cls = -1;
	char text[MPI_MAX_ERROR_STRING + 8];
	MPI_Comm c = fz_comm(in, &slot);
	int eh = fz_pick(in, handlers, FZ_N(handlers));
	int valid = code >= MPI_SUCCESS && code < MPI_ERR_LASTCODE;

	switch (how % 3) {
	case 0: {
		int nul = (int)((how >> 2) % 4) % 3;   /* 1: no string, 2: no length */
		memset(text, 'x', sizeof text);
		int rc = MPI_Error_string(code, nul == 1 ? NULL : text, nul == 2 ? NULL : &len);
		fz_expect("MPI_Error_string", rc, valid && !nul ? MPI_SUCCESS : MPI_ERR_ARG);
		if (rc == MPI_SUCCESS && (len <= 0 || len >= MPI_MAX_ERROR_STRING ||
					  strlen(text) != (size_t)len))
			fz_fail("MPI_Error_string(%d): length %d for \"%.40s\"", code, len, text);
		return;
	}
	case 1:
		fz_expect("MPI_Error_class", MPI_Error_class(code, (how >> 2) % 8 ? &cls : NULL),
			  valid && (how >> 2) % 8 ? MPI_SUCCESS : MPI_ERR_ARG);
		if (valid && (how >> 2) % 8 && cls != code)
			fz_fail("MPI_Error_class(%d) = %d", code, cls);
		return;
	default: {
		/* set, read back, and MPI_ERRORS_RETURN again (errors must keep returning) */
		int ok = eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL;
		fz_expect("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(c, eh),
			  slot < 0 ? MPI_ERR_COMM : ok ? MPI_SUCCESS : MPI_ERR_ARG);
		MPI_Errhandler got = -1;
		fz_expect("MPI_Comm_get_errhandler", MPI_Comm_get_errhandler(c, &got),
			  slot < 0 ? MPI_ERR_COMM : MPI_SUCCESS);
		if (slot >= 0 && got != (ok ? eh : MPI_ERRORS_RETURN))
			fz_fail("MPI_Comm_get_errhandler: %d after setting %d", got, eh);
		if (slot >= 0)
			fz_expect("MPI_Comm_set_errhandler",
				  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_SUCCESS);
		if ((how >> 2) % 8 == 0)        /* errors return again: a NULL argument's too */
			fz_expect("MPI_Comm_get_errhandler(NULL)", MPI_Comm_get_errhandler(c, NULL),
				  slot < 0 ? MPI_ERR_COMM : MPI_ERR_ARG);
		return;
	}
	}
}

/* MPI_Type_size, MPI_Get_count of a made-up status */
static void op_types(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	MPI_Datatype dt = fz_pick(in, fz_types, FZ_N(fz_types));
	int sz = fz_tsize(dt), v = -7, null = (how >> 1) % 8 == 0;
	MPI_Status st;

	if (how & 1) {
		fz_expect("MPI_Type_size", MPI_Type_size(dt, null ? NULL : &v),
			  sz < 0 ? MPI_ERR_TYPE : null ? MPI_ERR_ARG : MPI_SUCCESS);
		if (sz > 0 && !null && v != sz)
			fz_fail("MPI_Type_size(%d) = %d, sizeof %d", dt, v, sz);
		return;
	}
	memset(&st, 0, sizeof st);
	st.lc_count = fz_u32(in);
	st.lc_count <<= fz_byte(in) % 40;
	fz_expect("MPI_Get_count", MPI_Get_count(null ? NULL : &st, dt, &v),
		  sz < 0 ? MPI_ERR_TYPE : null ? MPI_ERR_ARG : MPI_SUCCESS);
	if (sz > 0 && !null) {
		size_t n = st.lc_count / (size_t)sz;
		int want = st.lc_count % (size_t)sz || n > INT_MAX ? MPI_UNDEFINED : (int)n;
		if (v != want)
			fz_fail("MPI_Get_count: %d for %zu bytes of size %d", v, st.lc_count, sz);
	}
}

/* MPI_Barrier, MPI_Bcast */
static void op_bcast(struct fz_in *in)
{
	int slot, barrier = fz_byte(in) % 4 == 0;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int root = fz_pick(in, fz_ranks, FZ_N(fz_ranks));
	uint32_t seed = m.seed++;

	if (barrier) {
		fz_expect("MPI_Barrier", MPI_Barrier(c), slot < 0 ? MPI_ERR_COMM : MPI_SUCCESS);
		return;
	}
	int want = slot < 0 ? MPI_ERR_COMM : root != 0 ? MPI_ERR_ROOT : b.bad;
	uint8_t *buf = fz_sendbuf(b.bytes, b.null, seed);
	fz_expect("MPI_Bcast", MPI_Bcast(buf, b.count, b.dt, root, c), want);
	if (buf && fz_check(buf, b.bytes, seed) != b.bytes)
		fz_fail("MPI_Bcast at its root changed the buffer");
	free(buf);
}

/* MPI_Reduce / MPI_Allreduce: with one rank, the result is the contribution */
static void op_reduce(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int all = how & 1, inplace = (how >> 1) % 4 == 0, slot;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf b = fz_bufarg(in);
	int snull = fz_byte(in) % 8 == 0 && !inplace, op = fz_pick(in, fz_ops, FZ_N(fz_ops));
	int root = all ? 0 : fz_pick(in, fz_ranks, FZ_N(fz_ranks));
	uint32_t seed = m.seed++;
	const char *fn = all ? "MPI_Allreduce" : "MPI_Reduce";

	/* comm, root, the send buffer, the receive buffer, then the op on the type */
	int sz = fz_tsize(b.dt), arith = b.dt != MPI_BYTE && sz > 0;
	int base = sz < 0 ? MPI_ERR_TYPE : b.count < 0 || b.bytes > LC_MAX_MSG ? MPI_ERR_COUNT : 0;
	int sendnull = !inplace && (snull || b.bytes > FZ_MAX_BYTES);
	int want = slot < 0 ? MPI_ERR_COMM : root != 0 ? MPI_ERR_ROOT : base ? base :
		   (sendnull || b.null) && b.bytes ? MPI_ERR_BUFFER :
		   (op < MPI_SUM || op > MPI_MAX || !arith) ? MPI_ERR_OP : 0;
	uint8_t *sbuf = inplace ? NULL : fz_sendbuf(b.bytes, sendnull, seed);
	uint8_t *rbuf = fz_recvbuf(b.bytes, b.null);
	if (inplace && rbuf)
		fz_fill(rbuf, b.bytes, seed);
	int rc = all ? MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, b.count, b.dt, op, c)
		     : MPI_Reduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, b.count, b.dt, op, root, c);
	fz_expect(fn, rc, want);
	if (!want && rbuf && fz_check(rbuf, b.bytes, seed) != b.bytes)
		fz_fail("%s on one rank: the result is not the contribution", fn);
	if (sbuf && fz_check(sbuf, b.bytes, seed) != b.bytes)
		fz_fail("%s changed the send buffer", fn);
	if (rbuf && !inplace && want)
		fz_check_recv(fn, 0, NULL, 1, rbuf, b.bytes, b.dt, 0, NULL, 0);
	free(sbuf);
	free(rbuf);
}

/*
 * MPI_Gather / MPI_Allgather / MPI_Scatter / MPI_Alltoall on one rank: the
 * receive block is the send block.  The checks (lcmpi_pair_check): comm,
 * root, the send buffer (unless MPI_IN_PLACE or a negative count), the
 * receive buffer (unless a negative count), a negative count, then equal
 * block sizes (MPI_ERR_TRUNCATE); Scatter's root checks its receive side as
 * the "send" one.
 */
static void op_gather(struct fz_in *in)
{
	static const char *const fns[] = { "MPI_Gather", "MPI_Allgather", "MPI_Scatter",
					   "MPI_Alltoall" };
	unsigned how = fz_byte(in);
	int kind = how % 4, inplace = (how >> 2) % 8 == 0, slot;
	MPI_Comm c = fz_comm(in, &slot);
	struct fz_buf s = fz_bufarg(in), r = fz_bufarg(in);
	int root = kind % 2 ? 0 : fz_pick(in, fz_ranks, FZ_N(fz_ranks));
	uint32_t seed = m.seed++;

	/*
	 * The data flows from sendbuf (s) to recvbuf (r) in all four; Scatter's
	 * checks take its receive side first, and its MPI_IN_PLACE is recvbuf
	 * (the block stays in sendbuf), the others' is sendbuf (the block is in
	 * recvbuf already).  An MPI_IN_PLACE side's count and type are ignored.
	 */
	struct fz_buf *first = kind == 2 ? &r : &s, *second = kind == 2 ? &s : &r;
	int want = slot < 0 ? MPI_ERR_COMM : root != 0 ? MPI_ERR_ROOT : 0;
	if (!want && !inplace && first->count >= 0 && first->bad)
		want = first->bad;
	if (!want && second->count >= 0 && second->bad)
		want = second->bad;
	if (!want && ((!inplace && first->count < 0) || second->count < 0))
		want = MPI_ERR_COUNT;
	if (!want && !inplace && first->bytes != second->bytes)
		want = MPI_ERR_TRUNCATE;
	uint8_t *sbuf = inplace && kind != 2 ? NULL : fz_sendbuf(s.bytes, s.null, seed);
	uint8_t *rbuf = inplace && kind == 2 ? NULL : fz_recvbuf(r.bytes, r.null);
	if (inplace && rbuf)
		fz_fill(rbuf, r.bytes, seed);
	void *sarg = inplace && kind != 2 ? MPI_IN_PLACE : (void *)sbuf;
	void *rarg = inplace && kind == 2 ? MPI_IN_PLACE : (void *)rbuf;
	int rc;
	if (kind == 0)
		rc = MPI_Gather(sarg, s.count, s.dt, rarg, r.count, r.dt, root, c);
	else if (kind == 1)
		rc = MPI_Allgather(sarg, s.count, s.dt, rarg, r.count, r.dt, c);
	else if (kind == 2)
		rc = MPI_Scatter(sarg, s.count, s.dt, rarg, r.count, r.dt, root, c);
	else
		rc = MPI_Alltoall(sarg, s.count, s.dt, rarg, r.count, r.dt, c);
	fz_expect(fns[kind], rc, want);
	if (!want && rbuf && fz_check(rbuf, r.bytes, seed) != r.bytes)
		fz_fail("%s on one rank: the receive block is not the send block", fns[kind]);
	if (rbuf && !inplace && want)
		fz_check_recv(fns[kind], 0, NULL, 1, rbuf, r.bytes, r.dt, 0, NULL, 0);
	if (sbuf && fz_check(sbuf, s.bytes, seed) != s.bytes)
		fz_fail("%s changed the send buffer", fns[kind]);
	free(sbuf);
	free(rbuf);
}

/* The environment's small calls */
static void op_env(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int a = -1, b = -1, null = (how >> 3) % 4 == 0;
	char name[MPI_MAX_PROCESSOR_NAME];
	static const MPI_Aint sizes[] = { 0, 1, 100, 4096, -1 };

	switch (how % 8) {
	case 0:
		fz_expect("MPI_Initialized", MPI_Initialized(null ? NULL : &a),
			  null ? MPI_ERR_ARG : MPI_SUCCESS);
		if (!null && a != 1)
			fz_fail("MPI_Initialized: %d", a);
		break;
	case 1:
		fz_expect("MPI_Finalized", MPI_Finalized(null ? NULL : &a),
			  null ? MPI_ERR_ARG : MPI_SUCCESS);
		if (!null && a != 0)
			fz_fail("MPI_Finalized: %d before MPI_Finalize", a);
		break;
	case 2:
		fz_expect("MPI_Query_thread", MPI_Query_thread(null ? NULL : &a),
			  null ? MPI_ERR_ARG : MPI_SUCCESS);
		break;
	case 3:
		fz_expect("MPI_Get_version", MPI_Get_version(null ? NULL : &a, &b),
			  null ? MPI_ERR_ARG : MPI_SUCCESS);
		if (!null && (a != MPI_VERSION || b != MPI_SUBVERSION))
			fz_fail("MPI_Get_version: %d.%d", a, b);
		break;
	case 4:
		fz_expect("MPI_Get_processor_name",
			  MPI_Get_processor_name(null ? NULL : name, &a), null ? MPI_ERR_ARG : MPI_SUCCESS);
		if (!null && (a <= 0 || a >= MPI_MAX_PROCESSOR_NAME || strlen(name) != (size_t)a))
			fz_fail("MPI_Get_processor_name: length %d", a);
		break;
	case 5: {
		double t = MPI_Wtime(), t2 = MPI_Wtime(), tick = MPI_Wtick();
		if (t2 < t || !(tick > 0))
			fz_fail("MPI_Wtime went back, or MPI_Wtick %g", tick);
		break;
	}
	default: {
		MPI_Aint sz = sizes[fz_byte(in) % FZ_N(sizes)];
		int info = fz_byte(in) % 8 == 0 ? 1 : MPI_INFO_NULL;
		void *p = NULL;
		int want = sz < 0 || null || info != MPI_INFO_NULL ? MPI_ERR_ARG : MPI_SUCCESS;
		fz_expect("MPI_Alloc_mem", MPI_Alloc_mem(sz, info, null ? NULL : &p), want);
		if (!want) {
			if (!p)
				fz_fail("MPI_Alloc_mem gave NULL");
			memset(p, 1, (size_t)sz);
			fz_expect("MPI_Free_mem", MPI_Free_mem(p), MPI_SUCCESS);
		}
		break;
	}
	}
}

/* ---- the session ---- */

/* Every request finished, every message received, the duplicates freed. */
static void fz_drain(void)
{
	MPI_Status st;

	/* receives nothing can match: cancelled */
	for (int i = 0; i < FZ_MAX_REQ; i++) {
		struct fz_req *r = &m.req[i];
		if (r->live && r->recv && !fz_completes(r)) {
			fz_expect("MPI_Cancel", MPI_Cancel(&r->r), MPI_SUCCESS);
			r->cancel = 1;
			fz_expect("MPI_Wait (cancelled)", MPI_Wait(&r->r, &st), MPI_SUCCESS);
			fz_finish("MPI_Wait (cancelled)", i, MPI_SUCCESS, &st);
		}
	}
	/* messages in flight, oldest first: received with their own communicator and tag */
	while (m.nmsg > 0) {
		struct fz_msg g;
		fz_take_msg(0, &g);
		if (g.sreq >= 0)
			m.req[g.sreq].matched = 1;
		uint8_t *buf = fz_recvbuf(g.bytes, 0);
		memset(&st, 0xff, sizeof st);
		int rc = MPI_Recv(buf, (int)g.bytes, MPI_BYTE, 0, g.tag, m.comm[g.slot], &st);
		fz_check_recv("MPI_Recv (drain)", 1, &g, 0, buf, g.bytes, MPI_BYTE, rc, &st, 0);
		free(buf);
	}
	for (int i = 0; i < FZ_MAX_REQ; i++) {
		struct fz_req *r = &m.req[i];
		if (!r->live)
			continue;
		if (!fz_completes(r))
			fz_fail("harness: request %d cannot complete at the end", i);
		int rc = MPI_Wait(&r->r, &st);
		fz_finish("MPI_Wait (drain)", i, rc, &st);
	}
	for (int s = 2; s < FZ_MAX_COMM; s++)
		if (m.comm[s] != MPI_COMM_NULL)
			fz_expect("MPI_Comm_free", MPI_Comm_free(&m.comm[s]), MPI_SUCCESS);
}

void fz_mpi(struct fz_in *in)
{
	static void (*const ops[])(struct fz_in *) = {
		op_isend, op_irecv, op_send, op_recv, op_sendrecv, op_wait, op_many, op_probe,
		op_cancel, op_comm, op_errors, op_types, op_bcast, op_reduce, op_gather, op_env,
	};
	char v[16];
	unsigned e = fz_byte(in) % (FZ_N(fz_eagers) + 1);
	int provided = -1, flag = -1;

	memset(&m, 0, sizeof m);
	if (e < FZ_N(fz_eagers)) {
		snprintf(v, sizeof v, "%d", fz_eagers[e]);
		setenv("LC_MPI_EAGER", v, 1);
		m.eager = (size_t)fz_eagers[e];
	} else {
		unsetenv("LC_MPI_EAGER");       /* the default: 1/16 of the budget, 8 B .. 64 KiB */
		m.eager = (size_t)LC_HOST_UNEXPECTED_BYTES / 16;
		m.eager = m.eager > (64u << 10) ? (64u << 10) : m.eager < 8 ? 8 : m.eager;
	}
	fz_expect("MPI_Init_thread", MPI_Init_thread(NULL, NULL, (int)(fz_byte(in) % 4), &provided),
		  MPI_SUCCESS);
	if (provided < MPI_THREAD_SINGLE || provided > MPI_THREAD_SERIALIZED)
		fz_fail("MPI_Init_thread: provided %d", provided);
	fz_expect("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
		  MPI_SUCCESS);
	fz_expect("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
		  MPI_SUCCESS);
	m.comm[0] = MPI_COMM_WORLD;
	m.comm[1] = MPI_COMM_SELF;
	for (int n = 0; fz_more(in) && n < 200; n++)
		ops[fz_byte(in) % FZ_N(ops)](in);
	fz_drain();
	fz_expect("MPI_Finalize", MPI_Finalize(), MPI_SUCCESS);
	fz_expect("MPI_Finalized", MPI_Finalized(&flag), MPI_SUCCESS);
	if (flag != 1)
		fz_fail("MPI_Finalized: %d after MPI_Finalize", flag);
	for (int k = 0; k < m.nkeep; k++)
		free(m.keep[k]);
}
