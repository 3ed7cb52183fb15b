/* SPDX-License-Identifier: MIT */
/* reliability protocol, cold paths: setup, timers (retransmission, explicit acks), drain at close. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>

#include "node.h"
#include "reliability/hooks.h"

/*
 * Send kept frame seq to p again: its payload follows its kept header, or is
 * in the user's buffer (hooks.h, REFERENCES).  Unsealed fields -- a
 * replicated frame's copy (the MCP sealed the copies of the first
 * transmission, hooks.h lc_reliability_after_group), a CRC the Tx DMA
 * computed -- are sealed by lc_proto_resend.
 */
static int lc_reliability_resend_kept(struct lc_node *node, struct lc_reliability_peer *p, uint32_t seq)
{
	const struct lc_frame_hdr *k = lc_reliability_kept(p, seq);
	struct lc_frame_hdr h;
	const void *ref;

	if (!(k->reliability_flags & LC_REL_F_REF))
		return lc_proto_resend(node, k, k + 1);
	h = *k;         /* the mark stays in the kept header (hooks.h, LC_REL_F_REF) */
	h.reliability_flags &= (uint16_t)~LC_REL_F_REF;
	memcpy(&ref, k + 1, sizeof(ref));
	return lc_proto_resend(node, &h, ref);
}

int lc_reliability_setup(struct lc_node *node)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	size_t per = (size_t)LC_RELIABILITY_W * LC_RELIABILITY_SLOT;
	/* per peer: the sends held (hooks.h, REFERENCES) */
	size_t held = (size_t)LC_RELIABILITY_W * sizeof(struct lc_reliability_hold);

	st->peer = calloc(node->size, sizeof(*st->peer));
	st->mem = malloc(per * node->size);
	st->holds = calloc(node->size, held);
	if (!st->peer || !st->mem || !st->holds) {
		free(st->peer);
		free(st->mem);
		free(st->holds);
		st->peer = NULL;
		st->mem = NULL;
		st->holds = NULL;
		return lc_proto_fail(LC_ERR_NOMEM, "reliability: no memory for %u windows of %zu bytes",
				     node->size, per + held);
	}
	for (uint32_t i = 0; i < node->size; i++) {
		st->peer[i].holds = st->holds + (size_t)LC_RELIABILITY_W * i;
		st->peer[i].slots = st->mem + per * i;
		st->peer[i].rto_ns = LC_RELIABILITY_RTO_NS;
		st->peer[i].rto_base_ns = LC_RELIABILITY_RTO_NS;
		st->peer[i].heard = 1;
	}
	st->now_ns = lc_now_ns();
	st->wake_ns = 0;
	st->later = 0;
	return 0;
}

/*
 * Frame una timed out: back off and go back to it, or give the peer up.  Only
 * timeouts at the backoff cap count as retries, and only those while the
 * peer's process is stopped towards the give-up (hooks.h: a live peer is
 * slow, never dead); a peer the job segment marks dead is given up at once.
 */
static void lc_reliability_timeout(struct lc_node *node, struct lc_reliability_peer *p, uint32_t i,
				   uint64_t now_ns)
{
	int at_cap = p->rto_ns >= LC_RELIABILITY_RTO_CAP_NS;

	if (at_cap)
		p->retries++;
	if (!lc_proto_peer_alive(node, i) ||
	    (at_cap && lc_proto_peer_stopped(node, i) && ++p->stopped_caps > LC_RELIABILITY_MAX_RETRIES)) {
		p->dead = 1;
		/*
		 * the sends held to their acks (hooks.h, REFERENCES): a peer that closed
		 * its node took what it was going to take, and its last ack may have
		 * been lost on the way -- they complete, as sends that left without a
		 * hold; a crashed or stopped one fails them (lc_proto_peer_failed)
		 */
		if (lc_proto_peer_closed(node, i))
			lc_reliability_release(node, p, p->next);
		p->hold_out = p->hold_in;
		p->una = p->rsnd = p->next;
		p->deadline_ns = 0;
		LC_STAT_ADD(node, rel_peers_dead, 1);
		lc_proto_peer_failed(node, i, LC_ERR_PEER_DEAD);
		return;
	}
	p->rto_ns = p->rto_ns * 2 < LC_RELIABILITY_RTO_CAP_NS ? p->rto_ns * 2 : LC_RELIABILITY_RTO_CAP_NS;
	p->deadline_ns = now_ns + p->rto_ns;
	LC_STAT_ADD(node, rel_timeouts, 1);
	if (p->heard) {
		p->heard = 0;
		lc_reliability_go_back(&node->proto.reliability, p);
		return;
	}
	/* silence (hooks.h): the oldest frame alone, now and then */
	if (p->rto_ns >= LC_RELIABILITY_RTO_CAP_NS && p->retries % LC_RELIABILITY_SILENT_EVERY == 0 &&
	    p->rsnd == p->next) {
		p->rtt_t0_ns = 0;   /* Karn */
		if (lc_reliability_resend_kept(node, p, p->una) == 0)
			LC_STAT_ADD(node, rel_retransmits, 1);
	}
}

/* Send the kept frames from rsnd on, as far as the Send Ring takes them. */
static void lc_reliability_resend(struct lc_node *node, struct lc_reliability_peer *p)
{
	while (p->rsnd != p->next) {
		if (lc_reliability_resend_kept(node, p, p->rsnd) != 0)
			return;
		p->rsnd++;
		LC_STAT_ADD(node, rel_retransmits, 1);
	}
}

static void lc_reliability_send_ack(struct lc_node *node, uint32_t i)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	int rc;

	st->sending_ack = (uint8_t)(LC_REL_F_ACK | st->peer[i].ack_now);
	rc = lc_proto_send_ctrl(node, i, NULL, 0);
	st->sending_ack = 0;
	if (rc == 0)
		LC_STAT_ADD(node, rel_acks_sent, 1);
}

void lc_reliability_timers(struct lc_node *node, uint64_t now_ns)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	/*
	 * This node did not poll for longer than the minimum timeout (descheduled,
	 * or the application computed): acks may wait in the Receive Ring, so no
	 * timer fires before the next progress step has read them.
	 */
	int stalled = now_ns - st->now_ns > LC_RELIABILITY_RTO_NS;
	/* the earliest time a peer needs this scan again (the hooks run below may lower st->wake_ns) */
	uint64_t wake = UINT64_MAX;

	st->now_ns = now_ns;
	st->wake_ns = UINT64_MAX;
	if (st->later)
		lc_reliability_later_take(node);        /* hooks.h, LATER */
	for (uint32_t i = 0; i < node->size; i++) {
		struct lc_reliability_peer *p = &st->peer[i];

		if (p->deadline_ns && now_ns >= p->deadline_ns && p->una != p->next && !stalled)
			lc_reliability_timeout(node, p, i, now_ns);
		if (p->rsnd != p->next)
			lc_reliability_resend(node, p);
		if (p->ack_now || (p->acked != p->expect &&
				   (now_ns >= p->ack_due_ns || p->expect - p->acked >= LC_RELIABILITY_ACK_BATCH))) {
			/*
			 * an ack asked for (hooks.h, LC_REL_F_ASK) skips the poll of the step that
			 * took its frame: the application sees the message first, and an answer
			 * to it carries the ack (a ping-pong sends no ack frame); the next poll
			 * sends it (ack_due_ns 1 keeps the scan due)
			 */
			if (p->ask_defer && !p->ack_now)
				p->ask_defer = 0;
			else
				lc_reliability_send_ack(node, i);
		}
		if (st->failed && p->dead)
			lc_proto_peer_failed(node, i, LC_ERR_PEER_DEAD);
		/* what is left: a resend the Send Ring did not take, an ack not sent, the timers */
		if (p->rsnd != p->next || p->ack_now)
			wake = 0;
		if (p->deadline_ns && p->una != p->next && p->deadline_ns < wake)
			wake = p->deadline_ns;
		if (p->acked != p->expect) {
			uint64_t t = p->expect - p->acked >= LC_RELIABILITY_ACK_BATCH ? 0 : p->ack_due_ns;

			if (t < wake)
				wake = t;
		}
	}
	st->failed = 0;
	lc_reliability_wake(st, wake);
}

static int lc_reliability_outstanding(const struct lc_reliability_state *st, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++)
		if (st->peer[i].una != st->peer[i].next && !st->peer[i].dead)
			return 1;
	return 0;
}

void lc_reliability_drain(struct lc_node *node)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	/* the give-up time of a silent peer bounds the wait */
	uint64_t end = lc_now_ns() + LC_RELIABILITY_GIVE_UP_NS;
	unsigned idle = 0;

	if (!st->peer)
		return;
	while (lc_reliability_outstanding(st, node->size) && lc_now_ns() < end) {
		idle = lc_progress_locked(node) ? 0 : idle + 1;
		if (idle > 64)
			sched_yield();
	}
	/* the peers wait for acks of what arrived here: send them before leaving (bounded tries) */
	for (uint32_t i = 0; i < node->size; i++) {
		for (unsigned t = 0; t < 1024 && st->peer[i].acked != st->peer[i].expect && !st->peer[i].dead; t++) {
			lc_reliability_send_ack(node, i);
			if (st->peer[i].acked != st->peer[i].expect)
				lc_progress_locked(node);
		}
	}
	free(st->peer);
	free(st->mem);
	free(st->holds);
	st->peer = NULL;
	st->mem = NULL;
	st->holds = NULL;
}
