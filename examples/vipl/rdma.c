/* SPDX-License-Identifier: MIT */
/* rdma (VIPL): RDMA-write bandwidth into a peer's buffer; completion by immediate data or send. */
#define _POSIX_C_SOURCE 200809L
#define VEX_PROG "rdma"
#include "vipl_ex.h"

/*
 * Usage: commrun -n 2 rdma [options]            (rdma --help lists them)
 *
 * A program of the VIA era, on the published VIPL API only.  Roles, name
 * service, set-up, connection and teardown are those of vipl_ex.h (node 0
 * the server, node 1 the client; the libcomm name service resolves
 * "node<k>" to node k's NIC), with RDMA write enabled on the VIs and on
 * node 1's target buffer.
 *
 * 1. Node 1 registers its target buffer with EnableRdmaWrite and sends its
 *    address, memory handle and length to node 0 in a small message.
 * 2. Rounds, per size (powers of two in --sizes): node 0 fills its source
 *    buffer with the pattern of (size, round) and RDMA-writes it to node
 *    1's buffer, in writes of at most --chunk bytes, up to RD_WRITES in
 *    flight.  Each write descriptor is a control segment, an address
 *    segment naming the remote address and handle, and a data segment
 *    (SegCount 2).  The round's last write carries immediate data (the
 *    round's number), so it consumes a receive descriptor at node 1, which
 *    completes with VIP_STATUS_OP_REMOTE_RDMA_WRITE and the immediate data;
 *    the writes before it on the VI have landed by then.  Node 1 checks
 *    every byte of the size, reposts, and replies with a small send (ack);
 *    node 0 starts the next round on the ack.  Node 0 times each round from
 *    the first post to the last write's local completion (VipSendWait; with
 *    libcomm's puts, at either service, the data is in node 1's memory) and prints the
 *    size and bandwidth, MB/s (10^6 bytes/s) over the timed rounds.
 * 3. One round without immediate data, at the largest size: no receive is
 *    consumed; after the writes complete, node 0 sends a notice (a small
 *    message), whose arrival tells node 1 the data is there; node 1 checks
 *    every byte and acks.
 *
 * Exit status: 0; 1 when a call fails (the call and its status are
 * printed), a descriptor completes in error, a byte or the immediate data
 * differs, or an asynchronous error was reported; 2 for a bad command line.
 */

#define RD_WRITES 8u            /* RDMA-write descriptors in flight */
#define RD_CTRL   64u           /* bytes of a control message slot */

static const struct vex_opt rd_opts[] = {
	VEX_OPT_SIZES("round sizes, K/M suffixes (default 4K:4M)"),
	{ { "chunk", required_argument, NULL, 'c' }, "BYTES",
	  "bytes of one RDMA write, at most (default 256K)" },
	VEX_OPT_ITERS("timed rounds per size (default 20)"),
	VEX_OPT_WARMUP("untimed rounds before them (default 2)"),
	VEX_OPTIONS("rdma"),
};

/* -c (the only option of rdma's own): *chunk, the bytes of one RDMA write. 0, or 1 for a bad value. */
static int rd_option(int opt, const char *arg, void *chunk)
{
	size_t *n = chunk;
	char *end;

	(void)opt;
	return vex_size(arg, &end, n) || *end || *n == 0 || *n > (1u << 30);
}

/* ---- Control messages ---- */

enum { RD_ADDR = 1, RD_ACK, RD_NOTICE };

struct rd_msg {
	VIP_UINT32 kind;                /* RD_ADDR, RD_ACK (node 1), RD_NOTICE (node 0) */
	VIP_UINT32 round;               /* RD_ACK, RD_NOTICE: the round */
	VIP_UINT64 addr;                /* RD_ADDR: the target buffer's address at node 1 */
	VIP_MEM_HANDLE handle;          /* RD_ADDR: its memory handle */
	VIP_UINT32 len;                 /* RD_ADDR: its bytes; RD_NOTICE: the round's size */
};
_Static_assert(sizeof(struct rd_msg) <= RD_CTRL, "a control message fits its slot");

struct rd {
	struct vex v;                   /* the slots: VEX_RECVS receive slots, then the send slot */
	struct vex_region data;         /* node 0: the source; node 1: the target (RDMA write enabled) */
	VIP_DESCRIPTOR *wd;             /* RD_WRITES write descriptors, after the send descriptor */
	VIP_UINT64 raddr;               /* node 0: the target's address, handle and bytes */
	VIP_MEM_HANDLE rhandle;
	size_t rlen;
	size_t chunk;                   /* bytes of one write, at most */
};

/* Send control message m (from the send slot) and wait for its completion. 0 or exit status 1. */
static int rd_send_msg(struct rd *s, const struct vex_cfg *c, const struct rd_msg *m)
{
	unsigned char *slot = vex_slot(&s->v, VEX_RECVS);
	VIP_RETURN r;

	memcpy(slot, m, sizeof *m);
	vex_one_segment(s->v.sd, slot, s->v.slots.mh, sizeof *m);
	if ((r = VipPostSend(s->v.vi, s->v.sd, s->v.desc.mh)) != VIP_SUCCESS)
		return vex_fail("VipPostSend", r);
	return vex_send_wait(&s->v, c, "another descriptor");
}

/* Receive a control message of kind (and round, but for RD_ADDR) into *m; reposts.  0 or 1. */
static int rd_recv_msg(struct rd *s, const struct vex_cfg *c, VIP_UINT32 kind, VIP_UINT32 round,
		       struct rd_msg *m)
{
	VIP_DESCRIPTOR *d;
	unsigned k;
	VIP_RETURN r;

	if (vex_recv(&s->v, c, VIP_STATUS_OP_RECEIVE, &d, &k))
		return 1;
	memcpy(m, vex_slot(&s->v, k), sizeof *m);
	if (d->CS.Length != sizeof *m || m->kind != kind || (kind != RD_ADDR && m->round != round)) {
		fprintf(stderr, VEX_PROG ": node %d: control message of %u bytes, kind %u round %u; want "
				"%zu bytes, kind %u round %u\n", vex_me, (unsigned)d->CS.Length,
			(unsigned)m->kind, (unsigned)m->round, sizeof *m, (unsigned)kind, (unsigned)round);
		return 1;
	}
	if ((r = vex_post_recv(&s->v, k)) != VIP_SUCCESS)
		return vex_fail("VipPostRecv", r);
	return 0;
}

/*
 * Node 0: RDMA-write size bytes of the source to the target, in writes of
 * at most s->chunk bytes, RD_WRITES in flight; with imm, the last write
 * carries immediate data round.  Returns once every write has completed.
 */
static int rd_write(struct rd *s, const struct vex_cfg *c, size_t size, VIP_UINT32 round, int imm)
{
	unsigned posted = 0, done = 0;
	size_t off = 0;
	VIP_RETURN r;

	while (off < size || done < posted) {
		if (off < size && posted - done < RD_WRITES) {
			size_t n = size - off < s->chunk ? size - off : s->chunk;
			int last = off + n == size;
			VIP_DESCRIPTOR *d = &s->wd[posted % RD_WRITES];

			memset(d, 0, sizeof *d);
			d->CS.Control = VIP_CONTROL_OP_RDMAWRITE | (last && imm ? VIP_CONTROL_IMMEDIATE : 0);
			d->CS.ImmediateData = last && imm ? round : 0;
			d->CS.SegCount = 2;     /* the address segment and one data segment */
			d->CS.Length = (VIP_UINT32)n;
			d->DS[0].Remote.Data.AddressBits = s->raddr + off;
			d->DS[0].Remote.Handle = s->rhandle;
			vex_segment(d, 1, s->data.p + off, s->data.mh, n);
			if ((r = VipPostSend(s->v.vi, d, s->v.desc.mh)) != VIP_SUCCESS)
				return vex_fail("VipPostSend (RDMA write)", r);
			posted++;
			off += n;
			continue;
		}
		VIP_DESCRIPTOR *got = NULL;
		r = VipSendWait(s->v.vi, c->timeout, &got);
		if (vex_completed("VipSendWait (RDMA write)", r, got, VIP_STATUS_OP_RDMA_WRITE))
			return 1;
		if (got != &s->wd[done % RD_WRITES]) {
			fprintf(stderr, VEX_PROG ": node 0: VipSendWait: not the oldest posted write\n");
			return 1;
		}
		done++;
	}
	return 0;
}

/* Node 1: every byte of the target against the round's pattern. 0 or exit status 1. */
static int rd_verify(struct rd *s, size_t size, VIP_UINT32 round)
{
	size_t bad = lc_ex_check(s->data.p, size, lc_ex_seed(size, round));
	if (bad == size)
		return 0;
	fprintf(stderr, VEX_PROG ": node 1: mismatch at size %zu round %u: first bad byte at %zu\n", size,
		(unsigned)round, bad);
	return 1;
}

/* Set-up with the source or target buffer, then the connection (node 1: the server's VI takes RDMA writes). */
static int rd_setup(struct rd *s, struct vex_cfg *c)
{
	const struct vex_need need = {
		.transfer = RD_CTRL, .queue = VEX_RECVS + RD_WRITES, .descs = RD_WRITES, .slot = RD_CTRL,
		.nslots = VEX_RECVS + 1,
	};
	VIP_VI_ATTRIBUTES peer;
	VIP_RETURN r;
	int rc = vex_setup(&s->v, c, &need);

	if (rc != 0)
		return rc;
	s->chunk = s->chunk < s->v.na.MaxTransferSize ? s->chunk : s->v.na.MaxTransferSize;
	if ((r = vex_register(&s->v, &s->data, c->hi, vex_me == 1 ? VIP_TRUE : VIP_FALSE)) != VIP_SUCCESS)
		return vex_fail("VipRegisterMem", r);
	s->wd = s->v.sd + 1;
	if ((rc = vex_start(&s->v, c, VIP_TRUE)) != 0 || (rc = vex_connect(&s->v, c, &peer)) != 0 ||
	    vex_me == 0)
		return rc;
	if (!peer.EnableRdmaWrite) {
		fprintf(stderr, VEX_PROG ": node 1: the server's VI does not enable RDMA write\n");
		return 1;
	}
	return 0;
}

/* Node 0: the address exchange, the rounds of every size, the round without immediate data. */
static int rd_run0(struct rd *s, const struct vex_cfg *c)
{
	struct rd_msg m;
	VIP_UINT32 round = 0;

	if (rd_recv_msg(s, c, RD_ADDR, 0, &m))
		return 1;
	s->raddr = m.addr;
	s->rhandle = m.handle;
	s->rlen = m.len;
	if (s->rlen < c->hi) {
		fprintf(stderr, VEX_PROG ": node 0: node 1's buffer has %zu bytes, the sizes go to %zu\n",
			s->rlen, c->hi);
		return 1;
	}
	printf("# libcomm vipl " VEX_PROG " (NIC %s, writes of at most %zu bytes, %u in flight, immediate "
	       "data on each round's last write)\n# Size  Bandwidth (MB/s)\n", s->v.na.Name, s->chunk,
	       RD_WRITES);
	fflush(stdout);

	for (size_t size = c->lo;; size = size * 2 > c->hi && size < c->hi ? c->hi : size * 2) {
		double busy = 0;
		for (unsigned long k = 0; k < c->warmup + c->iters; k++, round++) {
			lc_ex_fill(s->data.p, size, lc_ex_seed(size, round));
			double t0 = vex_now_us();
			if (rd_write(s, c, size, round, 1))
				return 1;
			if (k >= c->warmup)
				busy += vex_now_us() - t0;
			if (rd_recv_msg(s, c, RD_ACK, round, &m))
				return 1;
		}
		printf("%-12zu%16.2f\n", size, (double)size * (double)c->iters / busy);
		fflush(stdout);
		if (size == c->hi)
			break;
	}

	/* the round without immediate data: the writes complete, then a notice says so */
	lc_ex_fill(s->data.p, c->hi, lc_ex_seed(c->hi, round));
	if (rd_write(s, c, c->hi, round, 0))
		return 1;
	m = (struct rd_msg){ .kind = RD_NOTICE, .round = round, .len = (VIP_UINT32)c->hi };
	if (rd_send_msg(s, c, &m) || rd_recv_msg(s, c, RD_ACK, round, &m))
		return 1;
	printf("# round without immediate data: %zu bytes, completion told by a send: verified\n", c->hi);
	fflush(stdout);
	return 0;
}

/* Node 1: advertise the target, then check each round and ack it. */
static int rd_run1(struct rd *s, const struct vex_cfg *c)
{
	struct rd_msg m = {
		.kind = RD_ADDR,
		.addr = (VIP_UINT64)(uintptr_t)s->data.p,
		.handle = s->data.mh,
		.len = (VIP_UINT32)s->data.len,
	};
	VIP_DESCRIPTOR *d;
	VIP_UINT32 round = 0;
	unsigned k;
	VIP_RETURN r;

	if (rd_send_msg(s, c, &m))
		return 1;
	for (size_t size = c->lo;; size = size * 2 > c->hi && size < c->hi ? c->hi : size * 2) {
		for (unsigned long j = 0; j < c->warmup + c->iters; j++, round++) {
			/* the round's last write consumed a receive: its status names the remote RDMA write */
			if (vex_recv(&s->v, c, VIP_STATUS_OP_REMOTE_RDMA_WRITE, &d, &k))
				return 1;
			if (!(d->CS.Status & VIP_STATUS_IMMEDIATE) || d->CS.ImmediateData != round) {
				fprintf(stderr, VEX_PROG ": node 1: size %zu round %u: immediate data %s%u\n", size,
					(unsigned)round, d->CS.Status & VIP_STATUS_IMMEDIATE ? "" : "(absent) ",
					(unsigned)d->CS.ImmediateData);
				return 1;
			}
			if (rd_verify(s, size, round))
				return 1;
			if ((r = vex_post_recv(&s->v, k)) != VIP_SUCCESS)
				return vex_fail("VipPostRecv", r);
			m = (struct rd_msg){ .kind = RD_ACK, .round = round };
			if (rd_send_msg(s, c, &m))
				return 1;
		}
		if (size == c->hi)
			break;
	}

	/* no immediate data: the notice, a send after the writes, says the data is there */
	if (rd_recv_msg(s, c, RD_NOTICE, round, &m))
		return 1;
	if (m.len != c->hi) {
		fprintf(stderr, VEX_PROG ": node 1: notice of %u bytes, want %zu\n", (unsigned)m.len, c->hi);
		return 1;
	}
	if (rd_verify(s, c->hi, round))
		return 1;
	atomic_store(&vex_closing, 1);  /* node 0 leaves after this ack */
	m = (struct rd_msg){ .kind = RD_ACK, .round = round };
	return rd_send_msg(s, c, &m);
}

int main(int argc, char **argv)
{
	struct vex_cfg c = {
		VEX_DEFAULTS, .lo = 4u << 10, .hi = 4u << 20, .min_lo = 1, .iters = 20, .warmup = 2, .disc = "rdma",
	};
	static struct rd s = { .chunk = 256u << 10 };   /* static: reachable until exit, also on an error path */
	int rc = vex_parse(argc, argv, rd_opts, sizeof rd_opts / sizeof rd_opts[0], &c, rd_option, &s.chunk);

	if (rc >= 0)
		return rc;
	if ((rc = rd_setup(&s, &c)) != 0 || (rc = vex_me == 0 ? rd_run0(&s, &c) : rd_run1(&s, &c)) != 0)
		return rc;
	return vex_finish(&s.v, &c);
}
