/* SPDX-License-Identifier: MIT */
/* rendezvous protocol: the transfers (hooks.h, "THE TRANSFER"), the registration cache, poll. */
#include <stdint.h>

#include "lc_config.h"
#include "node.h"
#include "lc_composite_host.h"

static void lc_rndv_push(struct lc_node *node, struct lc_rndv_send *e, int may_end);

/* ---- the order of transfers (hooks.h, "ORDER"): FIFOs of indices linked through next ---- */

#define LC_RNDV_NEXT(st, q, i) (&(q) == &(st)->sendq ? &(st)->send[i].next : &(st)->recv[i].next)

static void lc_rndv_fifo_add(struct lc_rendezvous_state *st, struct lc_rndv_fifo *q, int16_t i)
{
	*LC_RNDV_NEXT(st, *q, i) = -1;
	if (q->tail >= 0)
		*LC_RNDV_NEXT(st, *q, q->tail) = i;
	else
		q->head = i;
	q->tail = i;
}

/* Take i out of q (where it is, usually the head); nothing when it is not in q. */
static void lc_rndv_fifo_del(struct lc_rendezvous_state *st, struct lc_rndv_fifo *q, int16_t i)
{
	int16_t *pp = &q->head, prev = -1;

	while (*pp >= 0 && *pp != i) {
		prev = *pp;
		pp = LC_RNDV_NEXT(st, *q, *pp);
	}
	if (*pp < 0)
		return;
	*pp = *LC_RNDV_NEXT(st, *q, i);
	if (q->tail == i)
		q->tail = prev;
}

/* ---- the registration cache ---- */

/*
 * A receive buffer's handle, of a fresh generation: a cached registration
 * that covers [buf, buf + bytes) and no transfer uses (a hit), else a new
 * one in a free entry or in place of the least recently used idle one.
 * Entries are never shared by two transfers at once: each transfer re-keys
 * its own.  Returns the entry, or -1 when none can be had now (every entry
 * busy, or the NIC's table full).
 */
static int lc_rndv_reg_get(struct lc_node *node, uint8_t *buf, uint32_t bytes, uint32_t *handle,
			   uint32_t *base)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	uint64_t a = (uint64_t)(uintptr_t)buf;
	struct lc_rndv_reg *r;
	int i, victim = -1;
	uint32_t fence;

	for (i = 0; i < LC_RENDEZVOUS_REG_CACHE; i++) {
		r = &st->reg[i];
		/* (nothing lands under an idle entry's handle: its last transfer waited for quiet) */
		if (r->valid && !r->busy && r->addr <= a && a + bytes <= r->addr + r->len &&
		    lc_proto_reg_rekey(node, &r->handle, NULL) == 0) {
			LC_STAT_ADD(node, rndv_reg_hits, 1);
			goto take;
		}
		if (!r->busy && (victim < 0 || !r->valid ||
				 (st->reg[victim].valid && r->used < st->reg[victim].used)))
			victim = i;
	}
	if (victim < 0)
		return -1;
	i = victim;
	r = &st->reg[i];
	if (r->valid) {
		/* idle: its last transfer is over, every block of it done (finish came after them) */
		lc_proto_dereg(node, r->handle, &fence);
		r->valid = 0;
	}
	if (lc_proto_reg(node, buf, bytes, &r->handle) != 0)
		return -1;
	r->addr = a;
	r->len = bytes;
	r->valid = 1;
	LC_STAT_ADD(node, rndv_reg_misses, 1);
take:
	r->busy = 1;
	r->used = ++st->clock;
	*handle = r->handle;
	*base = (uint32_t)(a - r->addr);
	return i;
}

/* ---- control frames ---- */

static int lc_rndv_ctrl(struct lc_node *node, uint32_t dst, enum lc_rndv_kind kind, uint32_t seq,
			uint32_t rkey, uint32_t base, uint32_t bytes)
{
	struct lc_rndv_ctrl c = { .tag = LC_RNDV_TAG, .kind = (uint32_t)kind, .seq = seq,
				  .rkey = rkey, .bytes = bytes, .base = base };

	return lc_proto_send_ctrl(node, dst, &c, sizeof(c));
}

/* ---- sender ---- */

lc_verdict lc_rendezvous_send(struct lc_node *node, struct lc_sreq *s)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	struct lc_rndv_send *e = NULL;

	for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE && !e; i++)
		if (st->send[i].state == LC_RNDV_S_FREE)
			e = &st->send[i];
	/* no transfer free, or no room for the announce: the message waits at the head of the queue */
	if (!e || lc_proto_send_announce(node, s) != 0)
		return LC_RETRY;
	*e = (struct lc_rndv_send){ .s = s, .dst = s->dst, .seq = s->seq, .state = LC_RNDV_S_WAIT_CTS };
	st->nsend++;
	LC_STAT_ADD(node, rndv_sends, 1);
	return LC_CONSUMED;
}

static void lc_rndv_send_end(struct lc_node *node, struct lc_rndv_send *e, int err)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	if (e->state >= LC_RNDV_S_SENDING)
		lc_rndv_fifo_del(st, &st->sendq, (int16_t)(e - st->send));
	lc_proto_sreq_done(node, e->s, err);
	e->state = LC_RNDV_S_FREE;
	st->nsend--;
}

/*
 * The transfers cleared to send, in the order their clear-to-send came: each
 * posts what the Send Ring takes once every earlier one posted its finish,
 * and completes once its last block read the buffer and every earlier one
 * completed (hooks.h, "ORDER").
 */
static void lc_rndv_push_all(struct lc_node *node)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	int posting = 1, ending = 1;

	for (int16_t i = st->sendq.head, next; i >= 0 && (posting || ending); i = next) {
		struct lc_rndv_send *e = &st->send[i];

		next = e->next;
		if (e->state != LC_RNDV_S_DRAIN && !posting)
			break;          /* an earlier transfer still posts: this one waits for it */
		if (e->state == LC_RNDV_S_DRAIN && !ending)
			continue;       /* posted; it completes after the earlier ones */
		lc_rndv_push(node, e, ending);
		if (e->state == LC_RNDV_S_SENDING || e->state == LC_RNDV_S_FIN)
			posting = 0;
		if (e->state != LC_RNDV_S_FREE)
			ending = 0;
	}
}

/*
 * Post what the Send Ring takes of e's frames, then its finish; complete e
 * once the buffer is read, if may_end (every earlier transfer completed).
 */
static void lc_rndv_push(struct lc_node *node, struct lc_rndv_send *e, int may_end)
{
	while (e->state == LC_RNDV_S_SENDING && e->off < e->bytes) {
		uint32_t n = e->bytes - e->off < LC_MTU ? e->bytes - e->off : LC_MTU;
		int rc = lc_proto_send_rdma(node, e->dst, e->rkey, e->base + e->off, e->base + e->bytes,
					    e->s->buf + e->off, n, &e->ticket);

		if (rc == LC_ERR_AGAIN)
			return;
		if (rc) {
			lc_rndv_send_end(node, e, rc);
			return;
		}
		e->off += n;
	}
	if (e->state == LC_RNDV_S_SENDING)
		e->state = LC_RNDV_S_FIN;
	if (e->state == LC_RNDV_S_FIN) {
		if (lc_rndv_ctrl(node, e->dst, LC_RNDV_FIN, e->seq, e->rkey, 0, e->bytes) != 0)
			return;
		e->state = LC_RNDV_S_DRAIN;
	}
	if (e->state == LC_RNDV_S_DRAIN && may_end && lc_proto_tx_done(node, e->ticket))
		/*
		 * the receiver's NIC refused some of our frames (protection): the data did not
		 * land.  Not the stale ones: late copies of an earlier transfer's frames that a
		 * protocol below sent again after its handle was re-keyed (those of this
		 * transfer carry its current handle).
		 */
		lc_rndv_send_end(node, e,
				 lc_proto_rdma_nacks(node, e->dst, LC_NIC_NACK_REFUSED) != e->nacks ? LC_ERR_LOST : 0);
}

static void lc_rndv_cts(struct lc_node *node, uint32_t src, const struct lc_rndv_ctrl *c)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE; i++) {
		struct lc_rndv_send *e = &st->send[i];

		if (e->state != LC_RNDV_S_WAIT_CTS || e->dst != src || e->seq != c->seq)
			continue;
		e->rkey = c->rkey;
		e->base = c->base;
		e->bytes = c->bytes < e->s->len ? c->bytes : e->s->len;
		e->off = 0;
		e->ticket = 0;
		e->nacks = lc_proto_rdma_nacks(node, src, LC_NIC_NACK_REFUSED);
		if (!e->bytes) {
			/* the receive takes nothing (an empty buffer): it completed at its clear-to-send */
			lc_rndv_send_end(node, e, 0);
			return;
		}
		e->ticket = lc_nic_tx_dma_done(node->nic);
		e->state = LC_RNDV_S_SENDING;
		lc_rndv_fifo_add(st, &st->sendq, (int16_t)i);
		lc_rndv_push_all(node);
		return;
	}
	LC_STAT_ADD(node, rndv_stale, 1);
}

/* ---- receiver ---- */

static void lc_rndv_pend(struct lc_rendezvous_state *st, struct lc_rmsg *m)
{
	m->next = NULL;
	if (st->pend_tail)
		st->pend_tail->next = m;
	else
		st->pend_head = m;
	st->pend_tail = m;
}

/* Start m's transfer: 1 started (or over), 0 not now (no transfer slot or registration). */
static int lc_rndv_start(struct lc_node *node, struct lc_rmsg *m)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	uint32_t bytes = m->len < m->cap ? m->len : (uint32_t)m->cap, handle = 0, base = 0;
	struct lc_rndv_recv *e = NULL;
	int reg;

	if (!bytes) {
		/* nothing to move (an empty receive buffer): tell the sender, complete (LC_ERR_TRUNC) */
		if (st->ctsq.head >= 0 || lc_rndv_ctrl(node, m->src, LC_RNDV_CTS, m->sent_seq, 0, 0, 0) != 0)
			return 0;
		LC_STAT_ADD(node, rndv_recvs, 1);
		lc_proto_rmsg_done(node, m, 0, 0);
		return 1;
	}
	for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE && !e; i++)
		if (st->recv[i].state == LC_RNDV_R_FREE)
			e = &st->recv[i];
	if (!e || (reg = lc_rndv_reg_get(node, m->data, bytes, &handle, &base)) < 0)
		return 0;
	*e = (struct lc_rndv_recv){ .m = m, .src = m->src, .seq = m->sent_seq, .handle = handle,
				    .base = base, .bytes = bytes, .reg = (uint16_t)reg,
				    .state = LC_RNDV_R_CTS };
	st->nrecv++;
	/* behind a clear-to-send that waits for room: in match order (hooks.h, "ORDER") */
	if (st->ctsq.head < 0 && lc_rndv_ctrl(node, e->src, LC_RNDV_CTS, e->seq, handle, e->base, bytes) == 0)
		e->state = LC_RNDV_R_RECVING;
	else
		lc_rndv_fifo_add(st, &st->ctsq, (int16_t)(e - st->recv));
	return 1;
}

void lc_rendezvous_matched(struct lc_node *node, struct lc_rmsg *m)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	/* behind earlier matches that wait: transfers start in match order */
	if (st->pend_head || !lc_rndv_start(node, m))
		lc_rndv_pend(st, m);
}

/*
 * A QUIET receive completes once every Rx DMA block its NIC posted under the
 * old handle is done, not before: a copy of a frame that a protocol
 * below sent again may have been checked before the re-key and still be
 * landing after the finish frame -- the same bytes, but written into a
 * buffer the user would already have back.  Its cache entry stays busy
 * until then, so no next transfer into the region meets those late bytes.
 */
static void lc_rndv_recv_quiet(struct lc_node *node, struct lc_rndv_recv *e)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	if (!lc_proto_reg_quiet(node, e->fence))
		return;
	st->reg[e->reg].busy = 0;
	e->state = LC_RNDV_R_FREE;
	st->nrecv--;
	st->nquiet--;
	lc_proto_rmsg_done(node, e->m, e->got, e->err);
}

/*
 * The receives that are over complete in the order they ended (their
 * fences, taken at the finish frame in arrival order): the earliest, while
 * it is quiet (hooks.h, "ORDER").
 */
static void lc_rndv_quiet_all(struct lc_node *node)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	for (;;) {
		struct lc_rndv_recv *first = NULL;

		for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE; i++) {
			struct lc_rndv_recv *e = &st->recv[i];

			if (e->state == LC_RNDV_R_QUIET && (!first || (int32_t)(e->fence - first->fence) < 0))
				first = e;
		}
		if (!first)
			return;
		lc_rndv_recv_quiet(node, first);
		if (first->state == LC_RNDV_R_QUIET)
			return;
	}
}

/* A receive's transfer is over (finish, or its peer gone): its handle re-keyed, the receive done once quiet. */
static void lc_rndv_recv_end(struct lc_node *node, struct lc_rndv_recv *e, int err)
{
	struct lc_rndv_reg *r = &node->proto.rendezvous.reg[e->reg];

	if (e->state == LC_RNDV_R_CTS)
		lc_rndv_fifo_del(&node->proto.rendezvous, &node->proto.rendezvous.ctsq,
				 (int16_t)(e - node->proto.rendezvous.recv));
	lc_proto_reg_rekey(node, &r->handle, &e->fence);
	e->err = err;
	e->state = LC_RNDV_R_QUIET;
	node->proto.rendezvous.nquiet++;
	lc_rndv_quiet_all(node);
}

static void lc_rndv_fin(struct lc_node *node, uint32_t src, const struct lc_rndv_ctrl *c)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE; i++) {
		struct lc_rndv_recv *e = &st->recv[i];

		if (e->state != LC_RNDV_R_RECVING || e->src != src || e->seq != c->seq)
			continue;
		/* a late copy of a frame of this transfer is refused from now on (re-keyed), not written */
		LC_STAT_ADD(node, rndv_recvs, 1);
		lc_rndv_recv_end(node, e, e->got == e->bytes ? 0 : LC_ERR_LOST);
		return;
	}
	LC_STAT_ADD(node, rndv_stale, 1);
}

/* An RDMA frame that reached the host: its payload is in place; count it for its transfer. */
static lc_verdict lc_rndv_data(struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	for (int i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE; i++) {
		struct lc_rndv_recv *e = &st->recv[i];

		if (e->state == LC_RNDV_R_RECVING && e->src == hdr->src && e->handle == hdr->rkey) {
			e->got += hdr->len;
			return LC_CONSUMED;
		}
	}
	LC_STAT_ADD(node, rndv_stale, 1);
	return LC_DROP;
}

lc_verdict lc_rendezvous_frame(struct lc_node *node, struct lc_frame_hdr *hdr, void *payload)
{
	struct lc_rndv_ctrl c;

	if (hdr->type == LC_FT_RDMA)
		return lc_rndv_data(node, hdr);
	__builtin_memcpy(&c, payload, sizeof(c));
	if (c.kind == LC_RNDV_CTS)
		lc_rndv_cts(node, hdr->src, &c);
	else if (c.kind == LC_RNDV_FIN)
		lc_rndv_fin(node, hdr->src, &c);
	else
		LC_STAT_ADD(node, rndv_stale, 1);
	return LC_CONSUMED;
}

/* ---- poll, init, fini ---- */

/*
 * 1 when peer has been gone for the backpressure time limit (its last frames
 * had time to reach us; a peer that exited cleanly sent them all first).
 */
static int lc_rndv_peer_lost(struct lc_node *node, uint32_t peer, uint64_t now_ns)
{
	uint64_t *t = &node->proto.rendezvous.gone_ns[peer];

	/*
	 * gone, or stopped (SIGSTOP: the one live state in which a peer may be given
	 * up after the limit, as the link does); now_ns is 0 until the framework
	 * first reads the clock for poll
	 */
	if (!now_ns)
		return 0;
	if (!lc_proto_peer_gone(node, peer) && !lc_proto_peer_stopped(node, peer)) {
		*t = 0;
		return 0;
	}
	if (!*t)
		*t = now_ns;
	return now_ns - *t >= lc_proto_limit_ns(node);
}

/*
 * Peers' liveness is read at most every LC_RNDV_LIVE_NS of poll's clock: two
 * reads of the job segment per transfer and poll made the receiver of a
 * window of 1 MiB messages spend more than half its instructions there
 * (callgrind, stream -s 1M:1M --window 16: 110 of 172 M Ir on node 1).  A
 * peer is given up after the backpressure limit, so a millisecond more is
 * nothing.
 */
#define LC_RNDV_LIVE_NS 1000000u

void lc_rendezvous_poll_slow(struct lc_node *node, uint64_t now_ns)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	struct lc_rmsg *m, **pp;
	int i;

	/*
	 * the peers' liveness only on a poll that reads it (lc_rndv_peer_lost says
	 * "not lost" between two readings): the other polls of a busy receiver cost a
	 * few tests, not a pass over every transfer
	 */
	if (now_ns - st->live_ns >= LC_RNDV_LIVE_NS)
		st->live_ns = now_ns;
	else
		now_ns = 0;

	for (i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE && now_ns && st->nsend; i++) {
		struct lc_rndv_send *e = &st->send[i];

		if (e->state == LC_RNDV_S_FREE)
			continue;
		if (lc_rndv_peer_lost(node, e->dst, now_ns)) {
			/* no more frames; the send fails once no DMA block reads its buffer */
			if (e->state < LC_RNDV_S_SENDING || lc_proto_tx_done(node, e->ticket))
				lc_rndv_send_end(node, e, LC_ERR_PEER_DEAD);
			continue;
		}
	}
	if (st->nsend)
		lc_rndv_push_all(node);
	for (i = 0; i < LC_RENDEZVOUS_MAX_ACTIVE && now_ns && st->nrecv; i++) {
		struct lc_rndv_recv *e = &st->recv[i];

		if (e->state != LC_RNDV_R_FREE && e->state != LC_RNDV_R_QUIET &&
		    lc_rndv_peer_lost(node, e->src, now_ns))
			lc_rndv_recv_end(node, e, LC_ERR_PEER_DEAD);
	}
	/* clear-to-send frames that waited for room, in match order */
	while (st->ctsq.head >= 0) {
		struct lc_rndv_recv *e = &st->recv[st->ctsq.head];

		if (lc_rndv_ctrl(node, e->src, LC_RNDV_CTS, e->seq, e->handle, e->base, e->bytes) != 0)
			break;
		e->state = LC_RNDV_R_RECVING;
		lc_rndv_fifo_del(st, &st->ctsq, st->ctsq.head);
	}
	if (st->nquiet)
		lc_rndv_quiet_all(node);
	/* matched messages of a gone peer that never started: failed, nothing came */
	for (pp = &st->pend_head; now_ns && (m = *pp) != NULL;) {
		if (!lc_rndv_peer_lost(node, m->src, now_ns)) {
			pp = &m->next;
			continue;
		}
		*pp = m->next;
		if (st->pend_tail == m) {
			struct lc_rmsg *t = st->pend_head;

			while (t && t->next)
				t = t->next;
			st->pend_tail = t;
		}
		lc_proto_rmsg_done(node, m, 0, LC_ERR_PEER_DEAD);
	}
	while ((m = st->pend_head) != NULL) {
		st->pend_head = m->next;
		if (!st->pend_head)
			st->pend_tail = NULL;
		if (!lc_rndv_start(node, m)) {
			/* not now: back at the head, the later ones behind it */
			m->next = st->pend_head;
			st->pend_head = m;
			if (!st->pend_tail)
				st->pend_tail = m;
			break;
		}
	}
}

int lc_rendezvous_init_slow(struct lc_node *node)
{
	node->proto.rendezvous = (struct lc_rendezvous_state){ .sendq = { -1, -1 }, .ctsq = { -1, -1 } };
	return 0;
}

void lc_rendezvous_fini_slow(struct lc_node *node)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;
	uint32_t fence;

	for (int i = 0; i < LC_RENDEZVOUS_REG_CACHE; i++)
		if (st->reg[i].valid)
			lc_proto_dereg(node, st->reg[i].handle, &fence);
}
