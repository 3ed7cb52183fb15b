/* SPDX-License-Identifier: MIT */
/* flow_control protocol, cold paths: the init capacity check and the poll work (credit frames, probes). */
#include <stdint.h>

#include "lc_config.h"
#include "node.h"
/* the composite: LC_FC_RESERVE uses the macros the other composed protocols declare (lc_coop.h) */
#include "lc_composite_host.h"

int lc_flow_control_check(uint32_t nodes, uint32_t credits)
{
	uint64_t need = (uint64_t)nodes * (credits + LC_FC_RESERVE);

	if (need <= LC_FC_CAPACITY)
		return 0;
	return lc_proto_fail(LC_ERR_CONFIG,
			     "flow_control: %u nodes x (%u credits + %u reserved for control "
			     "frames and retransmissions) = %llu frames in flight to one receiver, "
			     "but it holds only %u (%s): lower flow_control.credits to %u or "
			     "enlarge those buffers",
			     nodes, credits, LC_FC_RESERVE, (unsigned long long)need, LC_FC_CAPACITY,
			     LC_NIC_MCP_THREAD ? "nic.recv_ring + min(nic.rx_fifo, staging slots)"
					       : "nic.recv_ring; the MCP runs inline",
			     LC_FC_CAPACITY / nodes > LC_FC_RESERVE ? LC_FC_CAPACITY / nodes - LC_FC_RESERVE : 0);
}

/* Send a control frame of kind to peer: 0 or LC_ERR_AGAIN (Send Ring full). */
static int lc_fc_send(struct lc_node *node, uint32_t peer, enum lc_fc_kind kind)
{
	const struct lc_flow_control_peer *p = &node->proto.flow_control.peer[peer];
	struct lc_fc_ctrl c = { .tag = LC_FC_TAG, .kind = (uint32_t)kind, .sent = p->sent, .adv = p->adv };
	int rc = lc_proto_send_ctrl(node, peer, &c, sizeof(c));

	return rc == LC_ERR_AGAIN ? rc : 0;
}

/*
 * Without exactly_once for every frame (LC_PC_EXACTLY_ONCE_ALWAYS), a probe
 * from peer says it sent c->sent data frames to us; every one of them is
 * ahead of the probe (links keep order), so what was not counted is lost and
 * what was counted beyond it was counted twice (hooks.h, RESYNC).  Take the
 * peer's count.
 */
void lc_flow_control_resync(struct lc_node *node, uint32_t peer, const struct lc_fc_ctrl *c)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_flow_control_peer *p = &st->peer[peer];
	int32_t gap = (int32_t)(c->sent - p->drained);

	/*
	 * The sender never has more than `credits` frames beyond what it heard
	 * from us (sent - adv), and we count at most one extra per duplicate of
	 * those: a probe that breaks the first or is farther below our count was
	 * damaged on the way (no protocol checks frames).  Not sent - drained
	 * against the credits: a late probe (hooks.h) may have left drained
	 * below adv, and only this probe's count repairs that -- by less than
	 * half the credit field's range (LC_FC_LATE_MAX), or the value the
	 * sender heard was not ours.
	 */
	if (c->sent - c->adv > st->credits || (int32_t)(c->adv - p->drained) > LC_FC_LATE_MAX ||
	    gap < -2 * (int32_t)st->credits) {
		st->stale++;
		return;
	}
	if (gap > 0) {
		st->resync_lost += (uint32_t)gap;
		if (node->stats)
			LC_STAT_ADD(node, fc_resync_lost, (uint32_t)gap);
	} else if (gap < 0) {
		st->resync_extra += (uint32_t)-gap;
	}
	p->drained = c->sent;
	if ((int32_t)(p->drained - p->told) < 0)
		p->told = p->drained;
}

/*
 * A peer we wait for credits from whose process is stopped (SIGSTOP: the
 * launcher marks it) answers nothing until it runs again: once it has been
 * stopped for the backpressure limit while we are blocked, the wait ends the
 * way the link's does for a stopped node (nic/nic.c, lc_nic_stall_expired),
 * so a held send cannot wait without bound.  A live peer, however slow, is
 * waited for.  Looked at when a probe is due (the bound is the limit plus up
 * to two probe intervals, LC_FC_PROBE_MAX_US).  1 when the limit has passed.
 */
static int lc_fc_stopped_too_long(struct lc_node *node, struct lc_flow_control_peer *p, uint32_t peer,
				  uint64_t now_ns)
{
	if (!lc_proto_peer_stopped(node, peer)) {
		p->stopped_at = 0;
		return 0;
	}
	if (!p->stopped_at) {
		p->stopped_at = now_ns ? now_ns : 1;
		return 0;
	}
	return now_ns - p->stopped_at >= lc_proto_limit_ns(node);
}

/*
 * Two passes over the peers poll owes something.  Credit frames and probe
 * answers go first, for every peer: they are what other nodes wait for, and
 * a node that is itself blocked must never let its own probes take the Send
 * Ring slots its credit returns need (three nodes in a ring, each blocked to
 * the next, would otherwise starve one another).  Then the probes, each at
 * most once per probe_gap (LC_FC_PROBE_US, doubled up to LC_FC_PROBE_MAX_US
 * while unanswered; recv_frame restarts the clock when credits come back).
 * A frame that cannot go now (Send Ring full, or a protocol below says
 * RETRY, e.g. for a peer it gave up on) is left for the next
 * poll and the pass goes on: one peer must never hold up the others.
 */
void lc_flow_control_poll_slow(struct lc_node *node, uint64_t now_ns)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_flow_control_peer *p;
	uint32_t i, peer;

	for (i = 0; i < st->ntodo; i++) {
		peer = st->todo[i];
		p = &st->peer[peer];
		if (!(p->flags & (LC_FC_F_CREDIT | LC_FC_F_ANSWER)))
			continue;
		if ((p->flags & LC_FC_F_ANSWER) || p->drained - p->told >= st->threshold) {
			if (lc_fc_send(node, peer, LC_FC_CREDIT))
				continue;   /* not now (Send Ring full): the next poll tries again */
			st->ctrl_sent++;
		}
		/* sent now, or a reverse frame already carried the count */
		p->flags &= (uint8_t)~(LC_FC_F_CREDIT | LC_FC_F_ANSWER);
	}
	i = 0;
	while (i < st->ntodo) {
		peer = st->todo[i];
		p = &st->peer[peer];
		if (p->flags & LC_FC_F_BLOCKED) {
			if (p->sent - p->adv < st->credits) {
				p->flags &= (uint8_t)~LC_FC_F_BLOCKED;
			} else if (!p->probe_at) {
				if (!p->probe_gap)
					p->probe_gap = LC_FC_PROBE_US;
				p->probe_at = now_ns + (uint64_t)p->probe_gap * 1000u;
			} else if (now_ns >= p->probe_at) {
				if (lc_fc_stopped_too_long(node, p, peer, now_ns))
					/* the sends queued to it fail now; later ones at the next probe time */
					lc_proto_peer_failed(node, peer, LC_ERR_PEER_DEAD);
				if (lc_fc_send(node, peer, LC_FC_PROBE)) {
					i++;   /* not now: the next poll tries again; go on with the others */
					continue;
				}
				st->probes++;
				/* probe_at != 0 implies probe_gap != 0: both are set together, and reset together */
				if (p->probe_gap < LC_FC_PROBE_MAX_US)
					p->probe_gap *= 2;
				p->probe_at = now_ns + (uint64_t)p->probe_gap * 1000u;
			}
		}
		if (!p->flags) {
			p->listed = 0;
			st->todo[i] = st->todo[--st->ntodo];
			continue;
		}
		i++;
	}
}
