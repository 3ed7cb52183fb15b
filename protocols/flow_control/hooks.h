/* SPDX-License-Identifier: MIT */
/* flow_control protocol: credit-based flow control per peer, so no receiver's staging overflows. */
#ifndef LC_FLOW_CONTROL_HOOKS_H
#define LC_FLOW_CONTROL_HOOKS_H

/*
 * Parameter (configs: flow_control = { credits = N }, docs/config-reference.md):
 *   credits  data frames a sender may have in flight to one peer, seen here as
 *            LC_FLOW_CONTROL_CREDITS.
 * Header field: flow_control_credit (uint16_t): the low 16 bits of the
 *   sender's `drained` counter for the destination (below), carried by EVERY
 *   frame it sends (data and control), so credits ride on reverse traffic.
 * Pointcuts:
 *   init        checks that the receiver's buffers hold what the credits allow
 *               (below) and refuses lc_open with the numbers otherwise;
 *   send_frame  a data frame without a credit for its destination answers
 *               LC_RETRY: the pipeline keeps the message at the head of its
 *               ordered send queue and asks again on a later progress step
 *               (nothing is committed, so the protocols below run only for a
 *               frame that goes); every frame gets the piggybacked counter;
 *   after_send  commits: sent++ for a new data frame, told = drained;
 *   recv_frame  absorbs the piggybacked counter of every frame; counts an
 *               accepted data frame as drained; consumes our control frames;
 *   poll        sends explicit credit frames and credit probes; a peer whose
 *               process stays stopped (SIGSTOP) for backpressure_timeout_us
 *               while we wait for its credits fails the sends to it
 *               (LC_ERR_PEER_DEAD), as the link drops at a stopped node.
 * It knows the other composed protocols only through the generated
 * lc_coop.h: LC_PC_EXACTLY_ONCE (a protocol below delivers each frame once
 * and in order), LC_PC_PEER_* (the frames per peer they add to a ring), the
 * stamp table of replicated frames (lc_proto_stamps, LC_STAMPED).
 *
 * THE CREDIT RULE.  Per ordered pair (sender S, receiver R), all uint32_t
 * free-running:  sent    data frames S injected to R,
 *                drained data frames from S that R accepted (R's staging slot is
 *                        freed right after recv_frame returns),
 *                adv     the newest `drained` S heard from R.
 * S may inject a new data frame to R only while sent - adv < credits.  Since
 * adv <= drained, R holds at most `credits` undrained data frames from S.
 * `drained` travels as its low 16 bits; S rebuilds it as
 * adv + (uint16_t)(field - adv), kept only when that advance is at most
 * sent - adv (credits <= 4096 < 2^15, so reordered or duplicated old values
 * are recognised and ignored).
 *
 * WHERE THE FRAMES WAIT.  A frame not yet drained by R sits in R's Receive
 * Ring (LC_NIC_RECV_RING) or in host staging.  Net-Send stalls (and, after
 * backpressure_timeout_us, drops: bp_drops) only when the Receive Ring is
 * full.  With the MCP in its own thread (nic.mcp = "thread") the NIC keeps
 * moving frames into staging while R's host sleeps, so R holds
 *     C = recv_ring + min(rx_fifo, staging_slots)
 * frames without a stall.  With the MCP inline (the default) frames move to
 * staging only while R's host is inside the library: a receiver that sleeps
 * or computes holds them in its Receive Ring alone, C = recv_ring.
 * Senders are all nodes (a node may send to itself), so init requires
 *     nodes * (credits + LC_FC_RESERVE) <= C
 * and otherwise fails lc_open (LC_ERR_CONFIG) with the numbers.

 * CONTROL FRAMES BYPASS CREDITS (else credits could deadlock: a receiver
 * waiting for a credit to send the credit return).  Their room is the
 * reserve of LC_FC_RESERVE frames per peer above, computed so:
 *   - explicit credit frames R -> S: R sends one only when drained - told >=
 *     threshold = ceil(credits / 2).  Each one in flight covers at least
 *     `threshold` frames S has not heard of, and S cannot have more than
 *     `credits` such frames, so at most 2 are in flight: 2 slots;
 *   - one credit probe from a blocked sender and its answer (2 slots);
 *   - the control frames of the other composed protocols (e.g. explicit
 *     acks, sent cumulative and coalesced): LC_PC_PEER_CTRL_FRAMES;
 *   - retransmissions by a protocol below: LC_FC_RESEND_ROOM (below).
 * Data frames carry their credit field at no cost.
 *
 * LOSS, DUPLICATES, RETRANSMISSIONS (with a protocol below that provides
 * exactly_once, LC_PC_EXACTLY_ONCE; flow_control runs after it on receive).
 * recv_frame counts a data frame only when every protocol below accepted it:
 * such a protocol passes each frame exactly once and in order, so a
 * duplicate or damaged copy never counts.  A data frame lost in the network
 * is never drained, but it stays counted in `sent` only until its
 * retransmission is accepted, which counts it then: sent and drained
 * converge, no credit leaks.  A retransmission is not a new frame: it needs
 * no credit, and the pipeline re-posts a kept copy without send_frame or
 * after_send (lc_proto_resend), so it is never counted here.
 * But a retransmission still takes a slot of R's Receive Ring when the frame
 * it repeats was not lost, only not yet drained (R sleeps): the credit rule
 * cannot see it, since R's drained count takes each frame once.  So the
 * reserve bounds retransmissions instead, by what the retransmitting
 * protocol declares (registry peer_frames): one round sends again at most
 * its window of unacknowledged frames (LC_PC_PEER_RESEND_WINDOW), and while
 * R stays silent at most LC_PC_PEER_RESEND_EXTRA single frames.  The frames
 * of a round are unacknowledged ones, at most credits + 4 here (credits data
 * frames plus our sequenced credit frames and probe), so R holds per sender
 * at most credits + 4 + LC_PC_PEER_CTRL_FRAMES + LC_FC_RESEND_ROOM with
 *     LC_FC_RESEND_ROOM = min(LC_PC_PEER_RESEND_WINDOW, credits + 4)
 *                         + LC_PC_PEER_RESEND_EXTRA.
 * A fast retransmit (gap ack) adds nothing: R sent the gap ack after it took
 * the frames beyond the gap out of its ring (and dropped them).  Known limit:
 * a receiver that wakes, acks part of a window and sleeps again before its
 * ring is empty may then hold part of a second go-back (a progress step
 * moves and reads a bounded batch of frames before poll sends the ack), so
 * the bound is exact for a receiver that naps between receives or sleeps
 * without polling, and approximate for one that naps inside a burst.
 * Because every counter is cumulative, a lost credit frame is repaired by the
 * next frame R sends to S.  If none comes (R drained everything, S is
 * blocked), S sends a probe after LC_FC_PROBE_US blocked, doubling up to
 * LC_FC_PROBE_MAX_US while unanswered, and R answers each probe with an
 * explicit credit frame.
 *
 * RESYNC WITHOUT EXACTLY_ONCE (for every frame: LC_PC_EXACTLY_ONCE_ALWAYS; a
 * protocol that switches the provider off per frame leaves data frames that
 * can be lost).  A data frame lost in the network (dropped,
 * or damaged and dropped by the NIC, the host or a protocol) is a lost message
 * for the application, as in the baseline; but it is never drained, so its
 * credit would never return and S, blocked, would wait forever.  And a
 * duplicated frame is drained twice.  So without exactly_once the probe
 * carries S's `sent` and R resynchronises on it (lc_flow_control_resync):
 * links keep order (no reorder fault), so when the probe arrives every data
 * frame S sent before it has arrived and was counted, or never will: R sets
 * drained = sent, counting a raise as frames lost (fc_resync_lost in
 * --stats) and a lowering (duplicates counted twice) as resync_extra, and
 * answers with a credit frame, which returns the credits.  A probe sent
 * while frames are still in flight costs nothing: they are ahead of it.
 * A probe can also come late: when a protocol below retransmits control
 * frames but a run-time switch lets data frames go without it (active
 * protocol), a probe resent by it arrives after data frames sent later, and
 * its old `sent` lowers drained below what S has already heard (adv).  S
 * then ignores our counts as stale until it blocks and probes again, and that
 * probe must be taken although sent - drained now exceeds the credits: so
 * the probe carries S's adv too, and R judges it by S's own invariant
 * (0 <= sent - adv <= credits: a damaged probe of a config that checks no
 * frame breaks it), not by its own count (lc_flow_control_resync).
 * With reorder faults a frame overtaken by the probe arrives after the
 * resync and is counted once more: S then gets one credit too many per such
 * frame, so R may hold up to `credits` + the reorder depth frames from S
 * until the next resync (the next blocked probe) lowers drained again.  The
 * excess is bounded by the reorder depth, and it never overruns staging:
 * flow control is only the first guard; a frame that finds R's Receive Ring
 * full waits in S's NIC (Net-Send stalls) and, after backpressure_timeout_us,
 * is dropped and counted (bp_drops): a lost message, never an overwritten
 * slot.  With exactly_once, retransmissions repair every loss and drained
 * counts each frame once, so the probe only asks for the credit frame.
 *
 * ORDER.  send_frame runs in reverse composition order (lc_proto.h): this
 * hook sees the frame before the protocols below number and seal it, so its
 * RETRY commits nothing below, and its header field is inside their seals.  The pipeline's send queue is a FIFO
 * and a RETRY stops lc_tx_push at that request, so frames and messages keep
 * their order; the wait is driven by progress calls (which yield after a run
 * of idle rounds), never by a spin inside this protocol.
 *
 * REPLICATED FRAMES (LC_STAMPED, lc_coop.h: dst is a group id, the MCP
 * replicates the frame to the members of the frame's stamp table).
 * send_frame needs a credit at EVERY member the table names (RETRY
 * otherwise, the member blocked and probed as for a unicast frame) and
 * stamps each member's `drained` counter (member field credit); after_send
 * counts the frame as sent to each member.  At the member the copy is an
 * ordinary data frame of the root: it is drained and returns its credit like
 * any other.  Members left out of the table (gone) need no credit, so they
 * never block the group.
 */
#include <stdint.h>

#include "lc_config.h"
#include "lc_coop.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#ifndef LC_FLOW_CONTROL_CREDITS
#error "lc_config.h does not define LC_FLOW_CONTROL_CREDITS: flow_control needs its credits parameter"
#endif
#if LC_FLOW_CONTROL_CREDITS >= 32768
#error "flow_control.credits must stay below 2^15 (the credit field is 16 bits)"
#endif

/*
 * Retransmitted frames per peer a receiver may hold (RETRANSMISSIONS above).
 * LC_PC_PEER_* expand to macros of the protocols that declare them: use these
 * two only where the composite (lc_composite_host.h) is included.
 */
#define LC_FC_RESEND_ROOM                                                                    \
	((LC_PC_PEER_RESEND_WINDOW < (unsigned)LC_FLOW_CONTROL_CREDITS + 4u                  \
		  ? LC_PC_PEER_RESEND_WINDOW                                                 \
		  : (unsigned)LC_FLOW_CONTROL_CREDITS + 4u) +                                \
	 LC_PC_PEER_RESEND_EXTRA)
/* Frames per peer beyond the credits the receiver reserves room for (see above). */
#define LC_FC_RESERVE (4u + (unsigned)LC_PC_PEER_CTRL_FRAMES + (unsigned)LC_FC_RESEND_ROOM)
/*
 * Frames a receiver holds undrained without stalling a sender's Net-Send.
 * With the MCP inline (nic.mcp = "inline") the NIC moves frames from the
 * Receive Ring to staging only while the host is inside the library: a
 * receiver that sleeps or computes holds them in the Receive Ring alone.
 */
#if LC_NIC_MCP_THREAD
#define LC_FC_CAPACITY                                                           \
	((unsigned)LC_NIC_RECV_RING +                                            \
	 ((unsigned)LC_NIC_RX_FIFO < (unsigned)LC_HOST_STAGING_SLOTS ? (unsigned)LC_NIC_RX_FIFO \
								     : (unsigned)LC_HOST_STAGING_SLOTS))
#else
#define LC_FC_CAPACITY ((unsigned)LC_NIC_RECV_RING)
#endif
/* Blocked this long before the first probe, and the largest probe interval (us). */
#define LC_FC_PROBE_US 2000u
#define LC_FC_PROBE_MAX_US 256000u
/*
 * Probes: with exactly_once they recover a lost credit frame; without it
 * they also resynchronise the counters after a lost or duplicated data frame
 * (RESYNC above).  The first one goes after LC_FC_PROBE_US blocked: without
 * retransmissions a probe overtakes nothing (links keep order), so an early one
 * is harmless and the wait is independent of backpressure_timeout_us.
 */
#define LC_FC_PROBES 1

/* The farthest a late probe may have left drained below the sender's adv (lc_flow_control_resync). */
#define LC_FC_LATE_MAX 32768

/* What poll owes a peer. */
#define LC_FC_F_CREDIT 1u   /* drained - told reached the threshold: send a credit frame */
#define LC_FC_F_ANSWER 2u   /* the peer probed: send a credit frame whatever the threshold */
#define LC_FC_F_BLOCKED 4u  /* we wait for credits from the peer: probe on timeout */

/* Payload of a flow_control control frame: a tag (so no other protocol's frame is taken) and a kind. */
#define LC_FC_TAG 0x4346434cu   /* "LCFC" */
enum lc_fc_kind { LC_FC_CREDIT = 1, LC_FC_PROBE = 2 };
struct lc_fc_ctrl {
	uint32_t tag;
	uint32_t kind;
	uint32_t sent;   /* a probe: the sender's `sent` to the receiver (RESYNC) */
	uint32_t adv;    /* a probe: the sender's `adv`, the receiver's count it last heard */
};

/* Out of line, cold (flow_control.c). */
int lc_flow_control_check(uint32_t nodes, uint32_t credits);
void lc_flow_control_poll_slow(struct lc_node *node, uint64_t now_ns);
void lc_flow_control_resync(struct lc_node *node, uint32_t peer, const struct lc_fc_ctrl *c);

static inline void lc_fc_list(struct lc_flow_control_state *st, uint32_t peer)
{
	if (!st->peer[peer].listed) {
		st->peer[peer].listed = 1;
		st->todo[st->ntodo++] = (uint16_t)peer;
	}
}

/* 1 when the frame at hdr (payload at payload) is one of our control frames. */
static inline int lc_fc_is_ctrl(const struct lc_frame_hdr *hdr, const void *payload)
{
	uint32_t tag;

	if (hdr->type != LC_FT_CTRL || hdr->len != sizeof(struct lc_fc_ctrl))
		return 0;
	__builtin_memcpy(&tag, payload, sizeof(tag));
	return tag == LC_FC_TAG;
}

/*
 * 1 when sending hdr tells the peer our drained count: the receiver's
 * flow_control reads the credit field only of data frames and of our own
 * control frames.  Another protocol's control frame may be consumed below
 * us at the receiver (an ack-only frame) and never reach its recv_frame, so
 * it must not count as telling (told), or a credit return that rode only on
 * such frames would be lost for good and the sender would wait for a probe.
 * Leaving one out costs at most an explicit credit frame.
 */
static inline int lc_fc_tells(const struct lc_frame_hdr *hdr, const void *payload)
{
	return hdr->type == LC_FT_DATA || lc_fc_is_ctrl(hdr, payload);
}

static inline int lc_flow_control_init(struct lc_node *node)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	int rc = lc_flow_control_check(lc_node_size(node), LC_FLOW_CONTROL_CREDITS);

	if (rc)
		return rc;
	st->credits = LC_FLOW_CONTROL_CREDITS;
	st->threshold = (LC_FLOW_CONTROL_CREDITS + 1) / 2;
	return 0;
}

/* No credit for peer: note it blocked (probes, flow_control.c) and RETRY. */
static inline lc_verdict lc_fc_wait(struct lc_flow_control_state *st, uint32_t peer)
{
	struct lc_flow_control_peer *p = &st->peer[peer];

	st->waits++;
#if LC_FC_PROBES
	if (!(p->flags & LC_FC_F_BLOCKED)) {
		p->flags |= LC_FC_F_BLOCKED;
		p->probe_at = 0;
		lc_fc_list(st, peer);
	}
#else
	(void)p;
#endif
	return LC_RETRY;
}

#if LC_STAMPED
/* A replicated frame (REPLICATED FRAMES above): a credit at every member, each member's count stamped. */
static inline lc_verdict lc_flow_control_send_group(struct lc_node *node)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_stamps *t = lc_proto_stamps(node);
	struct lc_flow_control_peer *p;

	for (uint32_t i = 0; i < t->n; i++) {
		p = &st->peer[t->m[i].member];
		if (p->sent - p->adv >= st->credits)
			return lc_fc_wait(st, t->m[i].member);
	}
	for (uint32_t i = 0; i < t->n; i++)
		t->m[i].flow_control_credit = (uint16_t)st->peer[t->m[i].member].drained;
	return LC_CONTINUE;
}

/* after_send of a replicated frame: sent to every member (a new frame, never a retransmission). */
static inline void lc_flow_control_after_group(struct lc_node *node)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	const struct lc_stamps *t = lc_proto_stamps_posted(node);

	for (uint32_t i = 0; i < t->n; i++) {
		struct lc_flow_control_peer *p = &st->peer[t->m[i].member];

		p->told = p->drained;   /* the count stamped: nothing was received since send_frame */
		p->sent++;
	}
}
#endif

static inline lc_verdict lc_flow_control_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						    const void *payload)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_flow_control_peer *p;

	(void)payload;
	if (hdr->dst >= LC_MAX_NODES) {
#if LC_STAMPED
		if (hdr->flags & LC_FF_GROUP)
			return lc_flow_control_send_group(node);
#endif
		return LC_CONTINUE;
	}
	p = &st->peer[hdr->dst];
	if (hdr->type == LC_FT_DATA && p->sent - p->adv >= st->credits)
		return lc_fc_wait(st, hdr->dst);
	hdr->flow_control_credit = (uint16_t)p->drained;
	return LC_CONTINUE;
}

static inline void lc_flow_control_after_send(struct lc_node *node, const struct lc_frame_hdr *hdr,
					      const void *payload)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_flow_control_peer *p;

	if (hdr->dst >= LC_MAX_NODES) {
#if LC_STAMPED
		if (hdr->flags & LC_FF_GROUP)
			lc_flow_control_after_group(node);
#endif
		return;
	}
	p = &st->peer[hdr->dst];
	if (lc_fc_tells(hdr, payload))
		p->told = p->drained;
	if (hdr->type == LC_FT_DATA)
		p->sent++;
}

static inline lc_verdict lc_flow_control_recv_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						    void *payload)
{
	struct lc_flow_control_state *st = &node->proto.flow_control;
	struct lc_flow_control_peer *p = &st->peer[hdr->src];
	uint32_t adv = p->adv + (uint16_t)(hdr->flow_control_credit - (uint16_t)p->adv);
	struct lc_fc_ctrl c;

	/* the pipeline checked hdr->src < size before recv_frame */
	if (adv != p->adv) {
		if (adv - p->adv <= p->sent - p->adv) {
			/* credits came back: a blocked sender's probe clock starts again */
			p->adv = adv;
			p->probe_gap = 0;
			p->probe_at = 0;
		} else {
			st->stale++;
		}
	}
	if (hdr->type == LC_FT_DATA) {
		/* a replicated frame's copy paid its credit like a unicast frame */
		if (++p->drained - p->told >= st->threshold &&
		    !(p->flags & LC_FC_F_CREDIT)) {
			p->flags |= LC_FC_F_CREDIT;
			lc_fc_list(st, hdr->src);
		}
		return LC_CONTINUE;
	}
	if (hdr->len != sizeof(c))
		return LC_CONTINUE;
	__builtin_memcpy(&c, payload, sizeof(c));
	if (c.tag != LC_FC_TAG)
		return LC_CONTINUE;
	if (c.kind == LC_FC_PROBE) {
#if !LC_PC_EXACTLY_ONCE_ALWAYS
		lc_flow_control_resync(node, hdr->src, &c);
#endif
		p->flags |= LC_FC_F_ANSWER;
		lc_fc_list(st, hdr->src);
	}
	return LC_CONSUMED;
}

static inline void lc_flow_control_poll(struct lc_node *node, uint64_t now_ns)
{
	if (node->proto.flow_control.ntodo)
		lc_flow_control_poll_slow(node, now_ns);
}

#endif /* LC_FLOW_CONTROL_HOOKS_H */
