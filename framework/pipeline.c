/* SPDX-License-Identifier: MIT */
/* The baseline pipeline around the hot functions: request pool, queues, matching, progress. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lc_composite_nic.h"   /* lc_pc_seal (lc_proto_resend) */
#include "lc_pc.h"
#include "node.h"

/* ---- request pool ---- */

void lc_node_reset(struct lc_node *node)
{
	uint32_t i;

	node->nic = NULL;
	node->stats = NULL;
	node->rank = node->size = 0;
	node->idle = 0;
	atomic_store_explicit(&node->spin.limit, LC_SPIN_LIMIT, memory_order_relaxed);
	atomic_store_explicit(&node->spin.quick, 0, memory_order_relaxed);
#if LC_PROTO_ANY_ACTIVE
	atomic_store_explicit(&node->poll_left, 0, memory_order_relaxed);   /* the first step reads the clock, */
	node->poll_busy = LC_POLL_CLOCK_BURST;  /* busy or idle */
	node->poll_ns = 0;
	node->waited = NULL;
	node->poll_owed = 0;
#endif
	node->sendq = node->inflight = node->posted = (struct lc_reqq){ 0 };
	node->uq_head = node->uq_tail = NULL;
	node->uq_bytes = 0;
	node->uq_spare = NULL;
	node->uq_spares = 0;
	node->acks = NULL;
	node->acks_n = node->acks_cap = 0;
	node->park_now = 0;
	node->holding = 0;
	node->replaying = NULL;
	memset(node->tx_seq, 0, sizeof(node->tx_seq));
	memset(node->tx_drops_seen, 0, sizeof(node->tx_drops_seen));
	memset(node->rx, 0, sizeof(node->rx));
	memset(&node->proto, 0, sizeof(node->proto));
	node->free = NULL;
	for (i = LC_HOST_MAX_REQUESTS; i-- > 0;) {
		node->pool[i] = (struct lc_req){ .next = node->free };
		node->free = &node->pool[i];
	}
	node->reqs_used = 0;
}

/* ---- unexpected queue ---- */

static void lc_uq_push(struct lc_node *node, struct lc_rmsg *m)
{
	m->next = NULL;
	if (node->uq_tail)
		node->uq_tail->next = m;
	else
		node->uq_head = m;
	node->uq_tail = m;
}

void lc_uq_unlink(struct lc_node *node, struct lc_rmsg *m)
{
	struct lc_rmsg *p, *prev = NULL;

	for (p = node->uq_head; p && p != m; prev = p, p = p->next)
		;
	if (!p)
		return;
	if (prev)
		prev->next = m->next;
	else
		node->uq_head = m->next;
	if (node->uq_tail == m)
		node->uq_tail = prev;
	m->next = NULL;
}

void lc_uq_free(struct lc_node *node, struct lc_rmsg *m)
{
	node->uq_bytes -= m->held;
	/* a buffer of the small size (lc_rx_unexpected) is kept, up to LC_UQ_SPARES */
	if (m->held <= LC_UQ_SMALL && node->uq_spares < LC_UQ_SPARES) {
		m->next = node->uq_spare;
		node->uq_spare = m;
		node->uq_spares++;
		return;
	}
	free(m);
}

void lc_uq_spares_free(struct lc_node *node)
{
	struct lc_rmsg *m, *next;

	for (m = node->uq_spare; m; m = next) {
		next = m->next;
		free(m);
	}
	node->uq_spare = NULL;
	node->uq_spares = 0;
}

/* ---- receive side ---- */

/* lc_rx_begin's cold parts (node.h): out of line, so that the common case stays short */
struct lc_rmsg *lc_rx_begin_sync(struct lc_node *node, const struct lc_frame_hdr *hdr, struct lc_rmsg *m)
{
	lc_fw_ack(node, hdr->src, LC_FW_SYNC_ACK, hdr->seq, 0);
	return m;
}

/*
 * THE UNEXPECTED BUDGET.  An unexpected message takes a buffer of its full
 * size at its first frame; node->uq_bytes counts them until they are freed
 * (copied out to a receive, or dropped).  A first frame that matches no
 * posted receive and whose message would bring uq_bytes above
 * host.unexpected_bytes is not taken: the framework parks it at the head of
 * its source's held frames (rx[src].held, a copy -- its recv_frame hooks
 * already ran, so it cannot go back to the NIC) and asks the source's NIC to
 * hold its data frames (lc_nic_rx_hold: link backpressure for that source
 * alone; no loss between live nodes, the backpressure limit drops only at a
 * stopped node).  Data frames of that source that were already on the way
 * are held behind it in arrival order (lc_rx_hold), so the source's order
 * holds; frames of every other source, and control frames, keep flowing --
 * in particular the rest of a message already begun, whose receive a
 * program may be waiting for.  Every progress step looks at the parked
 * frames again (lc_rx_unhold): a source's frames go, in order, as soon as a
 * receive that matches its parked frame is posted or the held messages are
 * received so that it fits.  A message larger than the whole budget
 * therefore waits for its receive.  Memory: the budget, plus per held source
 * the frames that were on the way when it was held (at most the Receive Ring
 * and host staging, in frames).  Probe sees the parked messages (lc_iprobe),
 * so probe-then-receive always makes progress.
 *
 * Where integrity protocols are switched per frame (LC_PC_INTEGRITY_ALWAYS
 * 0), a first frame none of them checked is never parked: it is dropped as
 * bad (its sender accepted loss for it; its header may be garbage).
 *
 * The rule's limit is head-of-line blocking per source: while a source has
 * a parked frame, its later messages wait behind it, also ones that would
 * match posted receives.  A program that waits for such a message, and never
 * receives the messages that fill the budget, waits until it does (MPI calls
 * a program that relies on buffering of unreceived sends unsafe).  Keep the
 * budget above what the program leaves unreceived at once.
 */
struct lc_rmsg *lc_rx_unexpected(struct lc_node *node, const struct lc_frame_hdr *hdr, uint64_t match)
{
	struct lc_rmsg *m;
#if LC_PC_ANNOUNCE
	/* an announced message holds no buffer: its data goes straight to its receive's */
	uint32_t bytes = (hdr->flags & LC_FF_ANNOUNCE) ? 0 : hdr->msg_len;
#else
	uint32_t bytes = hdr->msg_len;
#endif
	uint64_t held = node->uq_bytes + bytes;

	if (held > (uint64_t)LC_HOST_UNEXPECTED_BYTES) {
#if LC_PC_INTEGRITY && !LC_PC_INTEGRITY_ALWAYS
		/*
		 * A frame no integrity protocol checked, where they are switched per
		 * frame: its sender accepted loss and damage for it, and its header may
		 * be damaged -- parked, a damaged match word and length would wait for
		 * a receive that never comes and hold every checked frame of its
		 * source behind it (seen: msg_len 64 | 2^30, match 2^15).  Dropped as
		 * bad instead, as a loss.
		 */
		if (!LC_PC_INTEGRITY_FRAME(hdr))
			return NULL;
#endif
		/*
		 * Park only a first frame that is whole: it carries min(msg_len, mtu) bytes.  A
		 * header damaged on the way (no integrity protocol composed: a corrupt
		 * msg_len) would otherwise be parked for a receive that never comes.
		 */
#if LC_PC_FRAME_SIZES
		/* frame sizes per message (lc_proto.h): a whole message, or at least LC_FRAME_MIN of it */
		if (hdr->len > hdr->msg_len || (hdr->len < hdr->msg_len && hdr->len < LC_FRAME_MIN))
#else
		if (hdr->len != (hdr->msg_len < LC_MTU ? hdr->msg_len : (uint32_t)LC_MTU))
#endif
			return NULL;    /* dropped as bad (lc_rx_nomsg) */
		/* a closing node parks nothing: no receive will come, its frames must drain (lc_close) */
		node->park_now = atomic_load_explicit(&node->open, memory_order_relaxed) ? 1u : 0u;
		return NULL;
	}
	/* the one allocation of the pipeline, off the fast path; a small one a kept buffer */
	if (bytes <= LC_UQ_SMALL && node->uq_spare) {
		m = node->uq_spare;
		node->uq_spare = m->next;
		node->uq_spares--;
	} else if (!(m = malloc(sizeof(*m) + (bytes <= LC_UQ_SMALL ? LC_UQ_SMALL : bytes)))) {
		return NULL;
	}
	*m = (struct lc_rmsg){ .match = match, .src = hdr->src, .seq = hdr->seq,
			       .len = hdr->msg_len, .data = (uint8_t *)(m + 1), .cap = bytes,
			       .unexpected = 1, .sync = (hdr->flags & LC_FF_SYNC) != 0, .held = bytes };
	lc_uq_push(node, m);
	node->uq_bytes = held;
	LC_STAT_ADD(node, unexpected_msgs, 1);
	if (held > atomic_load_explicit(&node->stats[LC_STAT_unexpected_hwm], memory_order_relaxed))
		atomic_store_explicit(&node->stats[LC_STAT_unexpected_hwm], held, memory_order_relaxed);
	return m;
}

/* Append a copy of the frame to its source's held frames; the first one holds the source at its NIC. */
static int lc_held_push(struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	struct lc_rx_src *rs = &node->rx[hdr->src];
	struct lc_held *h = malloc(sizeof(*h) + sizeof(*hdr) + hdr->len);

	if (!h) {
		LC_STAT_ADD(node, rx_drops_bad, 1);     /* no memory to hold it */
		return 0;
	}
	h->next = NULL;
	memcpy(h->frame, hdr, sizeof(*hdr) + hdr->len);
	LC_STAT_ADD(node, host_copy_bytes, hdr->len);
	if (rs->held) {
		rs->held_tail->next = h;
	} else {
		rs->held = h;
		node->holding++;
		lc_nic_rx_hold(node->nic, hdr->src, 1);
	}
	rs->held_tail = h;
	return 2;
}

/* Free the head of src's held frames; the last one releases the source at its NIC. */
static void lc_held_pop(struct lc_node *node, uint32_t src)
{
	struct lc_rx_src *rs = &node->rx[src];
	struct lc_held *h = rs->held;

	rs->held = h->next;
	free(h);
	if (!rs->held) {
		rs->held_tail = NULL;
		node->holding--;
		lc_nic_rx_hold(node->nic, src, 0);
	}
}

int lc_rx_nomsg(struct lc_node *node, struct lc_frame_hdr *hdr)
{
	if (!node->park_now) {
		LC_STAT_ADD(node, rx_drops_bad, 1);     /* no memory for the unexpected buffer */
		return 0;
	}
	node->park_now = 0;
	if ((const void *)hdr == node->replaying)
		return 2;       /* parked again where it is, at the head of its source's frames */
	LC_STAT_ADD(node, rx_parked, 1);
	return lc_held_push(node, hdr);
}

int lc_rx_hold(struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	LC_STAT_ADD(node, rx_held, 1);
	return lc_held_push(node, hdr);
}

/*
 * 1 when the frame held behind the parked first frame p shows p damaged: a
 * later frame of the same message (same source and sequence number) that
 * gives another message length.  The parked header is then garbage (no
 * integrity protocol composed) and waiting for its receive would hold the
 * source for good.
 */
static int lc_rx_park_contradicted(const struct lc_held *p)
{
	const struct lc_frame_hdr *h = (const void *)p->frame;
	const struct lc_frame_hdr *next = p->next ? (const void *)p->next->frame : NULL;

	return next && !(next->flags & LC_FF_FIRST) && next->src == h->src && next->seq == h->seq &&
	       next->msg_len != h->msg_len;
}

/* Replay src's held frames in order until one is parked again. */
static int lc_rx_unhold_src(struct lc_node *node, uint32_t src)
{
	struct lc_rx_src *rs = &node->rx[src];
	int n = 0;

	while (rs->held) {
		struct lc_held *h = rs->held, *tail = rs->held_tail;
		int r;

		if (lc_rx_park_contradicted(h)) {
			LC_STAT_ADD(node, rx_drops_bad, 1);
			lc_held_pop(node, src);
			continue;
		}
		/* replayed as if it were arriving now: lc_rx_data must not hold it again */
		rs->held = rs->held_tail = NULL;
		node->replaying = h->frame;
		r = lc_rx_replay(node, (struct lc_frame_hdr *)(void *)h->frame);
		node->replaying = NULL;
		rs->held = h;
		rs->held_tail = tail;
		if (r == 2)
			break;  /* parked again: still no receive, still no room */
		lc_held_pop(node, src);
		n++;
	}
	return n;
}

int lc_rx_unhold(struct lc_node *node)
{
	int n = 0;

	for (uint32_t src = 0; src < node->size && node->holding; src++)
		if (node->rx[src].held)
			n += lc_rx_unhold_src(node, src);
	return n;
}

void lc_rx_hold_clear(struct lc_node *node)
{
	for (uint32_t src = 0; src < node->size && node->holding; src++)
		while (node->rx[src].held)
			lc_held_pop(node, src);
}

/* ---- synchronous-send acks (framework control frames) ---- */

void lc_fw_ack(struct lc_node *node, uint32_t dst, uint32_t kind, uint32_t w0, uint32_t w1)
{
	if (node->acks_n == node->acks_cap) {
		uint32_t cap = node->acks_cap ? 2 * node->acks_cap : 16;
		struct lc_sync_ack *a = realloc(node->acks, cap * sizeof(*a));

		if (!a)
			return;         /* the sender's request stays pending; counted by its absence */
		node->acks = a;
		node->acks_cap = cap;
	}
	node->acks[node->acks_n++] = (struct lc_sync_ack){ .dst = dst, .kind = kind, .word = { w0, w1 } };
}

/*
 * Send the owed acks, one frame per destination and kind with up to
 * LC_FW_ACKS_PER_FRAME words of them, oldest first; stops at a full
 * Send Ring (or a protocol's RETRY) and goes on at the next progress step.
 * The frames are control frames (LC_FT_FRAMEWORK): they bypass send_msg and
 * the send queue (an ack never waits behind data or a credit), and go
 * through send_frame / after_send like a protocol's control frame, so a protocol
 * that provides exactly_once numbers, keeps and resends them.
 */
int lc_tx_acks(struct lc_node *node)
{
	/* the header and room for its words (a flexible array member ends a struct) */
	union {
		struct lc_fw_ctrl h;
		uint32_t room[sizeof(struct lc_fw_ctrl) / 4 + LC_FW_ACKS_PER_FRAME];
	} f;
	uint32_t i, k, n, dst, kind, w;
	int sent = 0;

	while (node->acks_n) {
		dst = node->acks[0].dst;
		kind = node->acks[0].kind;
		w = LC_FW_ACK_WORDS(kind);
		f.h = (struct lc_fw_ctrl){ .kind = kind };
		for (i = n = 0; i < node->acks_n && f.h.count + w <= LC_FW_ACKS_PER_FRAME; i++)
			if (node->acks[i].dst == dst && node->acks[i].kind == kind) {
				for (k = 0; k < w; k++)
					f.h.word[f.h.count++] = node->acks[i].word[k];
				n++;
			}
		if (lc_send_fw(node, dst, &f,
				      (uint32_t)(sizeof(f.h) + f.h.count * 4u)))
			break;
		if (kind == LC_FW_SYNC_ACK)
			LC_STAT_ADD(node, sync_acks, n);
		/* drop the acks just sent (the first n of dst and kind), keep the order of the rest */
		for (i = k = 0; i < node->acks_n; i++) {
			if (node->acks[i].dst == dst && node->acks[i].kind == kind && n) {
				n--;
				continue;
			}
			node->acks[k++] = node->acks[i];
		}
		node->acks_n = k;
		sent++;
	}
	return sent;
}

void lc_sync_fail(struct lc_node *node, uint32_t dst, int err)
{
	for (uint32_t n = 0; n < LC_HOST_MAX_REQUESTS; n++) {
		struct lc_req *r = &node->pool[n];

		if (r->kind != LC_REQ_SEND || r->s.dst != dst)
			continue;
#if LC_PC_HOLDS_SENDS
		if (r->hold_wait) {
			/* held by a protocol: failed, and a release of the hold finds nothing */
			r->hold_wait = 0;
			r->hold = 0;
			lc_req_complete(r, err);
			continue;
		}
#endif
		if (r->sync_wait) {
			r->sync_wait = 0;
			lc_req_complete(r, err);
		}
	}
}

/* A synchronous send r was matched (ack in) or failed: complete it once every frame left. */
static void lc_sync_matched(struct lc_req *r)
{
	r->synced = 1;
	if (r->sync_wait) {
		r->sync_wait = 0;
		lc_req_complete(r, 0);
	}
}

int lc_rx_ctrl(struct lc_node *node, const struct lc_frame_hdr *hdr, const void *payload)
{
	const struct lc_fw_ctrl *c = payload;
	uint32_t i, n;

	if (hdr->type == LC_FT_RDMA && (hdr->flags & LC_FF_REFUSED)) {
		/* the NIC placed nothing (nic/rdma.c); the protocols have seen it: its end */
		LC_STAT_ADD(node, rx_refused, 1);
		return 0;
	}
	if (hdr->type == LC_FT_RDMA && (hdr->flags & LC_FF_PUT))
		return lc_rx_put(node, hdr);
	if (hdr->type != LC_FT_FRAMEWORK || hdr->len < sizeof(*c) ||
	    c->kind < LC_FW_SYNC_ACK || c->kind > LC_FW_SEQ_SKIP ||
	    c->count > (hdr->len - sizeof(*c)) / 4) {
		LC_STAT_ADD(node, rx_drops_proto, 1);  /* a control frame no protocol consumed */
		return 0;
	}
	if (c->kind == LC_FW_PUT_ACK) {
		for (i = 0; i + 1 < c->count; i += 2)
			lc_put_acked(node, hdr->src, c->word[i], c->word[i + 1]);
		return 1;
	}
	if (c->kind == LC_FW_PUT_END) {
		if (c->count >= 1)
			lc_rx_put_end(node, hdr->src, c->word[0]);
		return 1;
	}
	if (c->kind == LC_FW_SEQ_SKIP) {
		/* the notice of a failed put (rdma.c): the next message is the one after it */
		struct lc_rx_src *rs = &node->rx[hdr->src];

		if (c->count >= 1 && !rs->cur && rs->expect == c->word[0])
			rs->expect = c->word[0] + 1;
		return 1;
	}
	for (i = 0; i < c->count; i++)
		for (n = 0; n < LC_HOST_MAX_REQUESTS; n++) {
			struct lc_req *r = &node->pool[n];

			if (r->kind == LC_REQ_SEND && r->s.sync && !r->s.put && !r->done && !r->synced &&
			    r->s.dst == hdr->src && r->s.seq == c->word[i]) {
				lc_sync_matched(r);
				break;
			}
		}
	return 1;
}

void lc_rx_complete_rest(struct lc_node *node, struct lc_rmsg *m, lc_verdict v)
{
	struct lc_req *r = m->req;

	if (v != LC_CONTINUE) {
		if (v == LC_DROP)
			LC_STAT_ADD(node, rx_drops_proto, 1);
		if (m->unexpected) {
			lc_uq_unlink(node, m);
			lc_uq_free(node, m);
		}
		if (r) {
			/* posted again as it was posted: its m zero (lc_rx_begin writes only the rest) */
			r->um = NULL;
			r->m = (struct lc_rmsg){ 0 };
			lc_reqq_push_front(&node->posted, r);
		}
		return;
	}
	/* delivered, and unexpected (lc_rx_complete took a posted receive's message) */
	LC_STAT_ADD(node, rx_msgs, 1);
	if (r) {
		/* an unexpected message its receive found while it was arriving */
		memcpy(r->ubuf, m->data, m->len < r->ucap ? m->len : r->ucap);
		LC_STAT_ADD(node, host_copy_bytes, m->len < r->ucap ? m->len : r->ucap);
		lc_recv_done(r, m, 0);
		lc_uq_free(node, m);
	} else {
		m->done = 1;
	}
}

#if LC_PC_ANNOUNCE
int lc_rx_announced(struct lc_node *node, const struct lc_frame_hdr *hdr, struct lc_rmsg *m)
{
	struct lc_rx_src *rs = &node->rx[hdr->src];

	/* no frame of it follows: the next message of src may start */
	rs->cur = NULL;
	rs->expect = m->seq + 1;
	m->announced = 1;
	/* lc_rx_frame took only announce frames of LC_ANNOUNCE_BYTES */
	memcpy(&m->sent_seq, hdr + 1, sizeof(m->sent_seq));
	if (m->req)
		LC_PC(match_announced, node, m);
	return 1;
}
#endif

void lc_proto_rmsg_done(struct lc_node *node, struct lc_rmsg *m, uint32_t got, int err)
{
	struct lc_req *r = m->req;
	lc_verdict v;

	m->got = got;
	if (!err) {
		v = LC_PC(deliver_msg, node, m);
		if (v != LC_CONTINUE) {
			/* the receive is posted again, the message forgotten (its data is in place) */
			lc_rx_complete(node, m, v);
			return;
		}
		LC_STAT_ADD(node, rx_msgs, 1);
		LC_STAT_ADD(node, rx_bytes, got);
	}
	lc_recv_done(r, m, err);
	if (m->unexpected)
		lc_uq_free(node, m);
}

void lc_rx_abort(struct lc_node *node, struct lc_rmsg *m)
{
	struct lc_req *r = m->req;

	if (r)
		lc_recv_done(r, m, LC_ERR_LOST);
	if (m->unexpected) {
		lc_uq_unlink(node, m);
		lc_uq_free(node, m);
	}
}

/* ---- send side ---- */

int lc_tx_push(struct lc_node *node)
{
	struct lc_req *r;
	int work = 0;
	lc_verdict v;

	while ((r = node->sendq.head)) {
		if (__builtin_expect(r->s.put, 0)) {
			/* a put: its frames, its end, then it leaves or holds the queue (rdma.c) */
			if (!lc_tx_put_push(node, r, &work))
				return work;
			continue;
		}
		if (!r->s.admitted) {
			v = LC_PC(send_msg, node, &r->s);
			if (v != LC_CONTINUE) {
				if (v == LC_RETRY)
					break;
				lc_reqq_pop(&node->sendq);
				if (v == LC_DROP)
					lc_send_done(node, r, LC_ERR_LOST);
				else
					r->s.consumed = 1;
				work++;
				continue;
			}
			r->s.admitted = 1;
			LC_STAT_ADD(node, tx_msgs, 1);
		}
		while (!r->s.posted) {
			if (lc_tx_frame(node, r) < 0)
				return work;
			work++;
			lc_tx_frame_moved(node, r);
		}
		if (lc_tx_dropped(node, r->s.dst)) {
			lc_check_peers(node);   /* takes r (and every send to a peer that lost frames) out */
			continue;
		}
		lc_sendq_leave(node, r, r->err);
	}
	return work;
}

/* Complete in-flight sends whose last DMA block is done (tickets finish in order). */
static int lc_tx_reap(struct lc_node *node)
{
	uint32_t done = lc_nic_tx_dma_done(node->nic);
	struct lc_req *r;
	int work = 0;

	while ((r = node->inflight.head) && (int32_t)(done - r->s.ticket) >= 0) {
		if (lc_tx_dropped(node, r->s.dst))
			lc_check_peers(node);   /* sets r->err */
		lc_reqq_pop(&node->inflight);
		lc_send_done(node, r, r->err);
		work++;
	}
	return work;
}

int lc_peer_state(struct lc_node *node, uint32_t dst)
{
	/* a destination that is no node (a protocol's group send) has no peer state of its own */
	if (dst >= node->size)
		return 0;
	if (!lc_nic_peer_alive(node->nic, dst))
		return LC_ERR_PEER_DEAD;
	return lc_tx_dropped(node, dst) ? LC_ERR_LOST : 0;
}

void lc_check_peers(struct lc_node *node)
{
	struct lc_req *r, *prev = NULL, *next;
	uint32_t i;
	int err;

	for (r = node->inflight.head; r; r = r->next)
		if (!r->err)
			r->err = lc_peer_state(node, r->s.dst);
	for (r = node->sendq.head; r; r = next) {
		next = r->next;
		err = lc_peer_state(node, r->s.dst);
		if (!err) {
			prev = r;
			continue;
		}
		lc_reqq_unlink(&node->sendq, prev, r);
		r->err = err;
		/* a frame of it may still be read by a DMA block: wait for that one */
		if (r->s.dma && (int32_t)(lc_nic_tx_dma_done(node->nic) - r->s.ticket) < 0)
			lc_reqq_push(&node->inflight, r);
		else
			lc_send_done(node, r, err);
	}
	for (i = 0; i < node->size; i++)
		node->tx_drops_seen[i] = lc_dst_drops(node, i);
}

/* ---- progress ---- */

/*
 * The send side's queues: owed acks, queued sends, sends in flight.  Out of
 * line: lc_progress_rest's frame then keeps the few registers its Rx FIFO
 * loop needs (six saved before, for these calls' sake, in every step that
 * took a frame).  Returns the work.
 */
static __attribute__((noinline)) int lc_tx_queues(struct lc_node *node)
{
	int work = 0;

	if (node->acks_n)
		work += lc_tx_acks(node);
	if (node->sendq.head)
		work += lc_tx_push(node);
	if (node->inflight.head)
		work += lc_tx_reap(node);
	return work;
}

#if LC_PROTO_ANY_ACTIVE
/* An idle step: one fewer before the poll clock is read (a load and a store, not a locked decrement). */
static inline int lc_poll_left_step(struct lc_node *node)
{
	int left = atomic_load_explicit(&node->poll_left, memory_order_relaxed) - 1;

	atomic_store_explicit(&node->poll_left, left, memory_order_relaxed);
	return left;
}
#endif

/*
 * A progress step whose NIC step or first Rx FIFO look found work, or with
 * host work pending (frames held, acks, queued or in-flight sends), or in a
 * config whose protocols hook poll: everything after the NIC step.  hdr:
 * the Rx FIFO's first frame as lc_progress_locked saw it (NULL: none yet,
 * or frames were held and it did not look).
 */
static __attribute__((noinline)) int lc_progress_rest(struct lc_node *node, int work, struct lc_frame_hdr *hdr)
{
	int i;

	/* frames held behind a parked first frame (the unexpected budget) go first, as far as they can */
	if (node->holding)
		work += lc_rx_unhold(node);
	for (i = 0; i < LC_RX_BATCH; i++) {
		if (!hdr && !(hdr = lc_nic_rx_peek(node->nic)))
			break;
		lc_rx_frame(node, hdr);
		lc_nic_rx_release(node->nic);
		hdr = NULL;
		work++;
	}
	if (node->acks_n || node->sendq.head || node->inflight.head)
		work += lc_tx_queues(node);
#if LC_PROTO_ANY_ACTIVE && LC_PC_USED_poll
	/*
	 * This step completed the request a single wait waits for (node->waited:
	 * the wait steps only while it is pending): the step returns before the
	 * poll pointcut -- a compare for the protocols' timers, now and then the
	 * clock, and what a protocol leaves to it (a piggybacked ack it takes
	 * later) -- and the wait returns; the next step polls, which the waiter
	 * takes after its answer is on the wire.  Never two steps in a row
	 * (poll_owed): a receiver whose every step completes a blocking receive
	 * polls every other step.  The frames behind the waited one are taken in
	 * this step all the same: a stream received one wait a message keeps its
	 * batches (stopping the Rx FIFO loop at the waited message made `stream`
	 * 8 B 0.82x; docs/internals.md, thirty-third part).
	 */
	if (node->waited && node->waited->done && !node->poll_owed) {
		node->poll_owed = 1;
		node->idle = 0;
		return work;
	}
#endif
#if LC_PROTO_ANY_ACTIVE
#if LC_PC_USED_poll
	node->poll_owed = 0;
	/*
	 * the clock: fresh in sustained work, not in a short burst, now and then when
	 * idle (node.h); read only where a composed protocol hooks poll (a config whose
	 * protocols hook none read it for nobody: 15 Ir a message of an 8 B ping-pong)
	 */
	node->poll_busy = work ? node->poll_busy + 1 : 0;
	if (work >= LC_POLL_CLOCK_SPAN || node->poll_busy > LC_POLL_CLOCK_BURST ||
	    (!work && lc_poll_left_step(node) <= 0)) {
		atomic_store_explicit(&node->poll_left, LC_POLL_CLOCK_SPAN, memory_order_relaxed);
		node->poll_ns = lc_now_ns();
	}
#endif
	LC_PC(poll, node, node->poll_ns);
#endif
	if (work) {
		node->idle = 0;
	} else if (++node->idle >= LC_IDLE_CHECK) {
		node->idle = 0;
		if (node->sendq.head || node->inflight.head)
			lc_check_peers(node);
	}
	return work;
}

/*
 * One progress step: the NIC's engines (inline MCP), then the host's frames
 * and queues.  A step that finds nothing anywhere -- the common step of a
 * wait -- stays here, in a frame of few registers: the steps of a wait come
 * round to the Receive Ring word sooner (a frame lands on average half a
 * step before it is seen).  Host work added to lc_progress_rest must be
 * part of the idle test below too.
 */
int lc_progress_locked(struct lc_node *node)
{
	struct lc_frame_hdr *hdr = NULL;
	int work;

#if !LC_NIC_MCP_THREAD
	work = lc_nic_step_held(node->nic);    /* our lock serializes the NIC's steppers */
#else
	/* thread mode: step the engines while the host is here anyway (no handoff to the MCP thread) */
	work = lc_nic_assist(node->nic);
#endif
#if !(LC_PROTO_ANY_ACTIVE && LC_PC_USED_poll)
	if (!work && !node->holding && !(hdr = lc_nic_rx_peek(node->nic)) && !node->acks_n &&
	    !node->sendq.head && !node->inflight.head) {
		/* idle, with nothing queued: lc_progress_rest's idle count, whose check has nothing to look at */
		if (++node->idle >= LC_IDLE_CHECK)
			node->idle = 0;
		return 0;
	}
#endif
	return lc_progress_rest(node, work, hdr);
}

#if defined(LC_ZEROCOST_NEGATIVE) && LC_ZEROCOST_NEGATIVE
/* lc_pc.h: the zero-cost proof's negative control, an out-of-line call at every pointcut */
__attribute__((noinline)) void lc_zc_negative_tick(void)
{
	__asm__ volatile("" ::: "memory");
}
#endif

/* ---- the protocol-facing API (lc_proto.h) ---- */

uint64_t lc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Copy a control or kept frame into its Send Ring slot and ring the doorbell
 * (PIO), counted; seal: every composed protocol's seal computed again over
 * the slot's copy first (lc_proto_resend).
 */
static inline void lc_post_pio_seal(struct lc_node *node, uint8_t *slot, const struct lc_frame_hdr *hdr,
				    const void *payload, int seal)
{
	memcpy(slot, hdr, sizeof(*hdr));
	if (hdr->len)
		memcpy(slot + sizeof(*hdr), payload, hdr->len);
	if (seal)
		lc_pc_seal((struct lc_frame_hdr *)(void *)slot);
	lc_nic_tx_post_pio(node->nic);
	lc_count_pio(node, hdr->len);
}

static void lc_post_pio(struct lc_node *node, uint8_t *slot, const struct lc_frame_hdr *hdr,
			const void *payload)
{
	lc_post_pio_seal(node, slot, hdr, payload, 0);
}

/* A control frame of type `type` (FIRST|LAST, by PIO) through send_frame and after_send. */
__attribute__((always_inline)) static inline int lc_send_ctrl_inline(struct lc_node *node,
								    uint8_t type, uint32_t dst,
								    const void *payload,
								    uint32_t len)
{
	struct lc_frame_hdr hdr;
	uint8_t *slot;
	lc_verdict v;

	if (dst >= node->size)
		return LC_ERR_RANGE;
	if (len > LC_MTU || (len && !payload))
		return LC_ERR_INVAL;
	slot = lc_nic_tx_slot(node->nic);
	if (!slot) {
		LC_STAT_ADD(node, tx_ring_full, 1);
		return LC_ERR_AGAIN;
	}
	hdr = (struct lc_frame_hdr){ .magic = LC_FRAME_MAGIC, .type = type,
				     .flags = LC_FF_FIRST | LC_FF_LAST, .src = (uint16_t)node->rank,
				     .dst = (uint16_t)dst, .len = len, .msg_len = len };
	v = LC_PC(send_frame, node, &hdr, payload);
	if (v == LC_RETRY)
		return LC_ERR_BUSY;     /* a protocol holds it back (e.g. its window is full) */
	if (v != LC_CONTINUE)
		return 0;
	lc_post_pio(node, slot, &hdr, payload);
	LC_PC(after_send, node, &hdr, payload);
	return 0;
}

int lc_proto_send_announce(struct lc_node *node, const struct lc_sreq *s)
{
	struct lc_frame_hdr hdr;
	uint8_t *slot = lc_nic_tx_slot(node->nic);
	uint32_t seq = s->seq;  /* the payload: the message's number as this node gave it */
	lc_verdict v;

	if (!slot) {
		LC_STAT_ADD(node, tx_ring_full, 1);
		return LC_ERR_AGAIN;
	}
	lc_hdr_fill(&hdr, node->rank, s, 0, LC_ANNOUNCE_BYTES);
	hdr.flags = LC_FF_FIRST | LC_FF_LAST | LC_FF_ANNOUNCE | s->sync;
	v = LC_PC(send_frame, node, &hdr, &seq);
	if (v == LC_RETRY)
		return LC_ERR_AGAIN;
	if (v != LC_CONTINUE)
		return 0;       /* a protocol below took or dropped it, as any frame */
	lc_post_pio(node, slot, &hdr, &seq);
	LC_STAT_ADD(node, tx_msgs, 1);
	LC_PC(after_send, node, &hdr, &seq);
	return 0;
}

int lc_tx_rdma(struct lc_node *node, uint32_t dst, uint32_t rkey, uint32_t off, uint32_t end,
	       const void *buf, uint32_t len, uint8_t flags, uint32_t word, uint32_t *ticket)
{
	struct lc_frame_hdr hdr;
	uint8_t *slot;
	lc_verdict v;

	if (dst >= node->size)
		return LC_ERR_RANGE;
	if (len > LC_MTU || !buf || !ticket || (uint64_t)off + len > end)
		return LC_ERR_INVAL;
	slot = lc_nic_tx_slot(node->nic);
	if (!slot) {
		LC_STAT_ADD(node, tx_ring_full, 1);
		return LC_ERR_AGAIN;
	}
	hdr = (struct lc_frame_hdr){ .magic = LC_FRAME_MAGIC, .type = LC_FT_RDMA, .flags = flags,
				     .src = (uint16_t)node->rank, .dst = (uint16_t)dst, .len = len,
				     .rkey = rkey, .off = off, .msg_len = end, .match_hi = word };
	v = LC_PC(send_frame, node, &hdr, buf);
	if (v == LC_RETRY)
		return LC_ERR_BUSY;
	if (v != LC_CONTINUE)
		return 0;
	if (len <= LC_PIO_THRESHOLD) {
		lc_post_pio(node, slot, &hdr, buf);   /* *ticket stays: the last DMA block's */
		LC_PC(after_send, node, &hdr, buf);
		return 0;
	}
	memcpy(slot, &hdr, sizeof(hdr));
	*ticket = lc_nic_tx_post_dma(node->nic, buf, len);
	lc_count_dma(node, len);
	LC_PC(after_send, node, &hdr, buf);
	return 1;
}

int lc_proto_send_rdma(struct lc_node *node, uint32_t dst, uint32_t rkey, uint32_t off, uint32_t end,
		       const void *buf, uint32_t len, uint32_t *ticket)
{
	int rc = lc_tx_rdma(node, dst, rkey, off, end, buf, len, LC_FF_FIRST | LC_FF_LAST, 0, ticket);

	return rc == LC_ERR_BUSY ? LC_ERR_AGAIN : rc < 0 ? rc : 0;
}

int lc_proto_send_ctrl(struct lc_node *node, uint32_t dst, const void *payload, uint32_t len)
{
	int rc = lc_send_ctrl_inline(node, LC_FT_CTRL, dst, payload, len);

	return rc == LC_ERR_BUSY ? LC_ERR_AGAIN : rc;
}

/* The framework's own control frames (acks, a put's end): not in the zero-cost path. */
int lc_send_fw(struct lc_node *node, uint32_t dst, const void *payload, uint32_t len)
{
	return lc_send_ctrl_inline(node, LC_FT_FRAMEWORK, dst, payload, len);
}

void lc_proto_sreq_done(struct lc_node *node, struct lc_sreq *s, int err)
{
	/* s is the first member of its request */
	lc_send_done(node, (struct lc_req *)(void *)s, err);
}

#if LC_PC_HOLDS_SENDS
void lc_proto_sreq_release(struct lc_node *node, struct lc_hold h)
{
	struct lc_req *r = (struct lc_req *)(void *)h.s;

	/* the send failed meanwhile (lc_send_done, lc_sync_fail zeroed its hold), maybe freed and reused */
	if (!h.s || r->kind != LC_REQ_SEND || r->hold != h.id)
		return;
	r->hold = 0;
	if (r->hold_wait) {
		r->hold_wait = 0;
		lc_send_done(node, r, 0);
	}
}
#endif

int lc_proto_resend(struct lc_node *node, const struct lc_frame_hdr *hdr, const void *payload)
{
	uint8_t *slot;

	if (hdr->len > LC_MTU)
		return LC_ERR_INVAL;
	slot = lc_nic_tx_slot(node->nic);
	if (!slot) {
		LC_STAT_ADD(node, tx_ring_full, 1);
		return LC_ERR_AGAIN;
	}
	/*
	 * sealed again: a kept frame's seal fields may be 0, left to the Tx DMA of
	 * its first sending (lc_proto_tx_crc_ask), or stale in a kept copy that
	 * was changed (a replicated frame's stamped copy); a seal of intact
	 * fields computes what they hold
	 */
	lc_post_pio_seal(node, slot, hdr, payload, 1);
	if (hdr->dst < LC_MAX_NODES)
		node->resent[hdr->dst]++;
	return 0;
}

int lc_proto_peer_failed(struct lc_node *node, uint32_t dst, int err)
{
	struct lc_req *r, *prev = NULL, *next;
	int n = 0;

	if (dst < LC_MAX_NODES)
		node->peer_gone[dst / 64] |= 1ull << (dst % 64);
	for (r = node->inflight.head; r; r = r->next)
		if (r->s.dst == dst && !r->err)
			r->err = err;
	lc_sync_fail(node, dst, err);
	for (r = node->sendq.head; r; r = next) {
		next = r->next;
		if (r->s.dst != dst) {
			prev = r;
			continue;
		}
		lc_reqq_unlink(&node->sendq, prev, r);
		n++;
		r->err = err;
		/* a frame of it may still be read by a DMA block: wait for that one */
		if (r->s.dma && (int32_t)(lc_nic_tx_dma_done(node->nic) - r->s.ticket) < 0)
			lc_reqq_push(&node->inflight, r);
		else
			lc_send_done(node, r, err);
	}
	return n;
}
