/* SPDX-License-Identifier: MIT */
/* reliability protocol: sequence numbers, CRC32C, cumulative acks, go-back-N retransmission. */
#ifndef LC_RELIABILITY_HOOKS_H
#define LC_RELIABILITY_HOOKS_H

/*
 * Parameters (configs: reliability = { ... }, see docs/config-reference.md):
 *   timeout_us   the initial and minimum retransmission timeout (RTO).  The
 *                RTO follows the measured round-trip time (Jacobson/Karels:
 *                RTO = SRTT + 4 RTTVAR, one frame per peer timed at a time,
 *                Karn's rule: no sample from a frame that was sent again),
 *                never below timeout_us; doubled after each timeout of the
 *                same frame up to LC_RELIABILITY_RTO_CAP_NS = max(64 x
 *                timeout_us, 100 ms), back to the estimate when an ack moves
 *                the window.
 *   window       frames kept unacknowledged per peer (power of two).
 *   max_retries  timeouts of one frame in a row AT THE CAP, while the peer's
 *                process is stopped (the launcher marks it: lc_proto_peer_stopped),
 *                before the peer is declared dead: every send queued or in
 *                flight to it fails with LC_ERR_PEER_DEAD
 *                (lc_proto_peer_failed), later sends too.  A live peer is
 *                never given up, however long it computes, naps or is
 *                descheduled (in inline mode its NIC answers only inside its
 *                library calls): frames between live nodes are lost only to
 *                injected faults, which the retransmissions repair.  The
 *                doubling below the cap does not count; a stopped peer is
 *                given up at most LC_RELIABILITY_GIVE_UP_NS = (max_retries +
 *                2) x cap after its oldest frame was sent, if it was stopped
 *                then (default 16: 1.8 s), plus the caller's poll interval.
 *                A peer the job segment marks dead (lc_proto_peer_alive == 0)
 *                is given up at its first timeout.
 *   mode         "window" or "stop_and_wait" (a window of one frame: the
 *                paper's naive "wait for the ack after each send").
 * Header fields: reliability_seq (frame number per (src, dst)),
 * reliability_ack (cumulative: every frame below it arrived), reliability_flags
 * (LC_REL_F_ACK: an ack-only control frame, not sequenced; LC_REL_F_GAP: on
 * an ack-only frame, sent because a frame arrived beyond a gap, the only acks
 * fast retransmit counts; LC_REL_F_UNSEQ: a frame to a group id, passed
 * through unsequenced), reliability_crc (CRC32C of the header with this
 * field and the seal fields of the protocols that seal after it as 0 --
 * LC_HDR_SEALED_AFTER_RELIABILITY, lc_coop.h -- then the payload).
 *
 * Pointcuts:
 *   init        allocates per-peer state and window x (header + mtu) bytes of
 *               kept copies per peer.
 *   send_frame  (runs after the protocols above it, send_frame is composed in
 *               reverse) LC_RETRY when the window is full, a go-back-N resend is
 *               still under way or the peer is dead; else stamps seq, the
 *               piggybacked ack and the CRC (a payload longer than 256 bytes
 *               is copied into the frame's kept slot in the same pass,
 *               lc_reliability_keeps_in_send).  Commits nothing: a RETRY from
 *               a protocol below it would leave no trace.  A frame kept by
 *               reference (REFERENCES below) has its CRC computed by its Tx
 *               DMA when it goes by DMA (lc_proto_tx_crc_ask).
 *   after_send  commits: keeps a copy of header and payload (so the user's
 *               buffer may be released: a send completes when its frames are
 *               handed to the protocol) -- or, for a non-blocking send of
 *               several frames, the header and a reference, the send held to
 *               its last frame's ack (REFERENCES) -- arms the timer, records
 *               the ack sent.
 *   recv_frame  drops (counted) a frame whose CRC does not match, takes its
 *               ack (releasing the sends held to it), accepts only the next
 *               expected frame: a duplicate or a frame beyond a gap is
 *               dropped (counted) and asks for an ack; a frame marked
 *               LC_REL_F_ASK is acked at the poll after the one of its step.
 *   poll        timers: retransmission (go-back-N from the oldest frame),
 *               explicit acks when no reverse frame carried one within
 *               timeout/4, or at once after a gap/duplicate or when half a
 *               window is unacknowledged.
 *   fini        drains: waits (bounded by the retry budget) until every frame
 *               is acknowledged or its peer is dead, then frees;
 *   seal        (nic_hooks.h) the CRC of a frame whose payload follows its
 *               header: each stamped copy of a replicated frame (the MCP),
 *               and a kept copy of one when it is sent again.
 *   nic_rx      (nic_hooks.h) checks an RDMA frame before its NIC places it;
 *               asks the Rx DMA for the CRC of a frame of a longer message
 *               (lc_proto_rx_crc_pays), which recv_frame then compares.
 * Declared for the other protocols (protocol.lua): member fields seq and ack
 * (stamped per member of a replicated frame), capability exactly_once, the
 * frames per peer it adds to a receiver's ring (peer_frames: 2 explicit acks,
 * a window of go-back, LC_RELIABILITY_SILENT_RESENDS single resends).
 *
 * Why go-back-N and not selective repeat: the receiver keeps nothing.  A
 * frame lives in a host staging slot only during recv_frame, and the pipeline
 * assembles messages from in-order frames, so a selective-repeat receiver
 * would copy every out-of-order frame into buffers of its own and replay
 * them.  Losses are rare on this network (the fault injector is a test), the
 * sender already keeps copies, and a resend by PIO into the Send Ring is
 * cheap; go-back-N keeps the receive path at one compare.  A gap makes the
 * receiver ack at once with LC_REL_F_GAP, and such an ack that does not move
 * the window starts the resend before the timer (fast retransmit).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "lc_coop.h"
#include "lc_crc32c.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#ifndef LC_RELIABILITY_MODE_STOP_AND_WAIT
#error "lc_config.h does not define LC_RELIABILITY_MODE_STOP_AND_WAIT: reliability needs its mode"
#endif

/* Frames kept unacknowledged per peer. */
#define LC_RELIABILITY_W (LC_RELIABILITY_MODE_STOP_AND_WAIT ? 1u : (uint32_t)LC_RELIABILITY_WINDOW)
/* One kept copy: header then up to mtu bytes of payload. */
#define LC_RELIABILITY_SLOT (sizeof(struct lc_frame_hdr) + (size_t)LC_MTU)
/* Unacknowledged frames received that make poll ack at once (half a window, at least 1). */
#define LC_RELIABILITY_ACK_BATCH (LC_RELIABILITY_W / 2 ? LC_RELIABILITY_W / 2 : 1u)
#define LC_RELIABILITY_RTO_NS ((uint64_t)LC_RELIABILITY_TIMEOUT_US * 1000u)
#define LC_RELIABILITY_ACK_DELAY_NS (LC_RELIABILITY_RTO_NS / 4)
/* Backoff ceiling: max(64 x timeout_us, 100 ms). */
#define LC_RELIABILITY_RTO_CAP_NS \
	(LC_RELIABILITY_RTO_NS * 64u > 100000000u ? LC_RELIABILITY_RTO_NS * 64u : (uint64_t)100000000u)
/* Longest silence before a peer is given up: the doubling to the cap (< 2 caps), then max_retries caps. */
#define LC_RELIABILITY_GIVE_UP_NS (LC_RELIABILITY_RTO_CAP_NS * ((uint64_t)LC_RELIABILITY_MAX_RETRIES + 2u))

/*
 * Gap acks that start a go-back before the timer.  One: the receiver coalesces
 * its acks per poll, so a short burst draws a single gap ack, and go-back-N
 * resends from una anyway; a reordered frame costs at most one spurious
 * go-back per window (recover).
 */
#define LC_RELIABILITY_DUPACKS 1u

/*
 * SILENCE.  A timeout goes back over the whole window only when a frame came
 * from the peer since the previous timeout go-back (p->heard).  While the
 * peer stays silent it is asleep, descheduled or cut off: the frames of the
 * last go-back still sit in its Receive Ring or are lost, and sending the
 * window again would only fill that ring with duplicates (link backpressure,
 * then drops at the backpressure limit) and spend the sender's time.  So a
 * timeout in silence backs off and counts towards the give-up, and resends
 * the oldest frame alone only at every LC_RELIABILITY_SILENT_EVERY-th
 * timeout at the cap (liveness when that go-back was lost as a whole).
 * Per silent period the peer's ring receives at most one copy of the window
 * plus LC_RELIABILITY_SILENT_RESENDS single frames; the registry entry
 * declares it (peer_frames), so a protocol that reserves ring room per peer
 * can count it (LC_PC_PEER_RESEND_WINDOW / _EXTRA, lc_coop.h).
 */
#define LC_RELIABILITY_SILENT_EVERY 4u
#define LC_RELIABILITY_SILENT_RESENDS ((uint32_t)LC_RELIABILITY_MAX_RETRIES / LC_RELIABILITY_SILENT_EVERY + 1u)

#define LC_REL_F_ACK 1u      /* ack-only control frame */
#define LC_REL_F_UNSEQ 2u    /* to a group id: not sequenced */
#define LC_REL_F_GAP 4u      /* with LC_REL_F_ACK: sent because a frame arrived beyond a gap */
#define LC_REL_F_ASK 8u      /* the last frame of a held send (lc_reliability_refs): ack it at once */
/* in a kept header only, never on the wire: its payload is in the user's buffer at the pointer after it */
#define LC_REL_F_REF 0x8000u

/*
 * The sender's CRC of a referenced frame in its Tx DMA (lc_proto_tx_crc_ask),
 * unless a protocol that seals after this one covers our CRC field with its
 * own: it would seal the field while it is still 0.
 */
#define LC_REL_TX_CRC (LC_PC_TX_CRC && LC_HDR_SEALED_AFTER_RELIABILITY == 0)

_Static_assert((LC_RELIABILITY_W & (LC_RELIABILITY_W - 1)) == 0, "window is a power of two");

/* Cold paths (reliability.c). */
int lc_reliability_setup(struct lc_node *node);
void lc_reliability_drain(struct lc_node *node);
void lc_reliability_timers(struct lc_node *node, uint64_t now_ns);

/* Bytes of a field of the frame header, as a mask (bit i: byte i). */
#define LC_REL_HDR_BYTES(field) \
	LC_CRC32C_ZERO_BYTES(offsetof(struct lc_frame_hdr, field), sizeof(((struct lc_frame_hdr *)0)->field))
/* The header bytes the CRC takes as 0: its own field, and those of the protocols that seal after us. */
#define LC_REL_CRC_ZERO (LC_REL_HDR_BYTES(reliability_crc) | LC_HDR_SEALED_AFTER_RELIABILITY)
_Static_assert(sizeof(struct lc_frame_hdr) <= 64, "the CRC's byte mask covers the header");

/*
 * CRC32C of a frame: header with reliability_crc (and later seal fields) as 0, then
 * len payload bytes.  Inline (lc_crc32c_inline_frame): one crc32 per header
 * word, the CRC fields masked out in place of a copy, a short payload a few
 * more; no call on an 8-byte message.
 */
__attribute__((always_inline)) static inline uint32_t lc_reliability_crc(const struct lc_frame_hdr *hdr,
									const void *payload)
{
	return lc_crc32c_inline_frame(hdr, sizeof(*hdr), LC_REL_CRC_ZERO, payload, hdr->len);
}

/*
 * The receiver's check of a frame the Rx DMA's CRC pays for
 * (lc_proto_rx_crc_pays) rides that copy (lc_nic_rx_crc_ask from nic_rx,
 * nic_hooks.h): the header's CRC is the engine's seed, and the engine
 * continues it over the payload as it copies it into staging.  Owner: this
 * protocol's CRC field, by its offset.
 */
#define LC_REL_CRC_OWNER ((uint32_t)offsetof(struct lc_frame_hdr, reliability_crc))

/* The header's part of the CRC: the seed of the payload's. */
static inline uint32_t lc_reliability_crc_hdr(const struct lc_frame_hdr *hdr)
{
	return lc_crc32c_inline_frame(hdr, sizeof(*hdr), LC_REL_CRC_ZERO, NULL, 0);
}

/* Whether a received frame's CRC matches: the NIC's when it computed it, else computed here. */
static inline int lc_reliability_crc_ok(const struct lc_node *node, const struct lc_frame_hdr *hdr,
					const void *payload)
{
	uint32_t crc;

	if (!lc_proto_rx_crc_pays(hdr) || !lc_proto_rx_crc(node, hdr, LC_REL_CRC_OWNER, &crc))
		crc = lc_reliability_crc(hdr, payload);
	return crc == hdr->reliability_crc;
}

/* The same CRC, the payload copied to keep in the same pass (lc_reliability_keeps_in_send). */
static inline uint32_t lc_reliability_crc_keep(const struct lc_frame_hdr *hdr, const void *payload,
					       void *keep)
{
	return lc_crc32c_copy(lc_reliability_crc_hdr(hdr), keep, payload, hdr->len);
}

/*
 * The payload of a kept copy: header plus len bytes, never a whole slot.  Up
 * to 16 bytes by two overlapping fixed-size moves (no call), longer ones by
 * memcpy.
 */
static inline void lc_reliability_keep_payload(void *dst, const void *src, uint32_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (len > 16) {
		memcpy(d, s, len);
	} else if (len >= 8) {
		memcpy(d, s, 8);
		memcpy(d + len - 8, s + len - 8, 8);
	} else if (len >= 4) {
		memcpy(d, s, 4);
		memcpy(d + len - 4, s + len - 4, 4);
	} else if (len) {
		d[0] = s[0];
		d[len / 2] = s[len / 2];
		d[len - 1] = s[len - 1];
	}
}

/* Timer work falls due at t (0: at once): the next poll scans the peers no later than that. */
static inline void lc_reliability_wake(struct lc_reliability_state *st, uint64_t t)
{
	if (t < st->wake_ns)
		st->wake_ns = t;
}

/* A frame to p carried the cumulative ack `ack`: nothing more is owed up to it. */
static inline void lc_reliability_ack_sent(struct lc_reliability_peer *p, uint32_t ack)
{
	p->acked = ack;
	p->ack_now = 0;
	if (p->acked == p->expect)
		p->ack_due_ns = 0;
}

/*
 * Frame p->next was kept: arm the timer if it is the only one outstanding,
 * time it if none is timed (Karn: never a resent one), and take the number.
 */
static inline void lc_reliability_kept_commit(struct lc_reliability_state *st, struct lc_reliability_peer *p)
{
	if (p->una == p->next) {
		p->deadline_ns = st->now_ns + p->rto_ns;
		p->retries = p->stopped_caps = 0;
		lc_reliability_wake(st, p->deadline_ns);
	}
	if (!p->rtt_t0_ns) {
		p->rtt_seq = p->next;
		p->rtt_t0_ns = st->now_ns | 1u;
	}
	p->next++;
	p->rsnd = p->next;
}

/*
 * Where a sequenced unicast frame's payload is kept.  Longer than what the
 * inline CRC takes: by send_frame, in the pass that computes the CRC
 * (lc_crc32c_copy: one read of the user's bytes instead of two; nothing is
 * committed, a RETRY below leaves a slot that the frame's next try
 * overwrites).  Shorter: by after_send, two moves beside an inline CRC.
 */
static inline int lc_reliability_keeps_in_send(const struct lc_frame_hdr *hdr)
{
	return hdr->len > LC_CRC32C_INLINE_MAX;
}

/*
 * REFERENCES.  A frame of a non-blocking send of several frames
 * (lc_proto_sreq_holdable) is kept as its header and a reference to its
 * payload in the user's buffer, not a copy: after_send holds the send
 * (lc_proto_sreq_hold) at its last frame, and the ack of that frame releases
 * it (lc_reliability_release from lc_reliability_ack_in), so the buffer
 * stays the user's until the receiver has every frame of it -- the send
 * completes at its ack, as on a reliable connection.  The last frame asks for
 * that ack (LC_REL_F_ASK).  With no copy to ride, the CRC of a frame that
 * goes by Tx DMA rides the DMA's copy into the Send Ring (LC_REL_TX_CRC); the
 * kept header then holds a CRC of 0, which lc_proto_resend seals again when
 * the frame is sent again.  Measured (docs/internals.md, twenty-second part):
 * the host's CRC pass, with the copy riding it, was the sender's second pass
 * over every byte of a stream.  A blocking send keeps its copy (held, a
 * ping-pong's answer would arrive before its receive is posted), and so does
 * a message of one frame.
 */
static inline int lc_reliability_refs(const struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	return lc_proto_sreq_holdable(node, hdr);
}

/* The CRC of a referenced frame: asked of the Tx DMA when it goes by DMA, else computed here. */
static inline void lc_reliability_crc_ref(struct lc_node *node, struct lc_frame_hdr *hdr, const void *payload)
{
#if LC_REL_TX_CRC
	if (lc_proto_tx_crc_pays(hdr) &&
	    lc_proto_tx_crc_ask(node, LC_REL_CRC_OWNER, lc_reliability_crc_hdr(hdr))) {
		hdr->reliability_crc = 0;
		return;
	}
#else
	(void)node;
#endif
	hdr->reliability_crc = lc_reliability_crc(hdr, payload);
}

/* The kept copy of frame seq to peer p. */
static inline struct lc_frame_hdr *lc_reliability_kept(struct lc_reliability_peer *p, uint32_t seq)
{
	return (struct lc_frame_hdr *)(void *)(p->slots +
					       (size_t)(seq & (LC_RELIABILITY_W - 1)) * LC_RELIABILITY_SLOT);
}

/*
 * Nothing this node sent to peer awaits an ack (or the peer was given up):
 * registry switchable.quiet, so a protocol that switches reliability off for
 * the peer's data waits for this first (lc_coop.h, lc_switch_quiet).
 */
static inline int lc_reliability_tx_quiet(const struct lc_node *node, uint32_t peer)
{
	const struct lc_reliability_peer *p = &node->proto.reliability.peer[peer];

	return p->una == p->next || p->dead;
}

/* Whether p takes no new sequence number now: its window is full, or a go-back-N resend to it is under way. */
static inline int lc_reliability_window_shut(const struct lc_reliability_peer *p)
{
	return p->next - p->una >= LC_RELIABILITY_W || p->rsnd != p->next;
}

static inline int lc_reliability_init(struct lc_node *node)
{
	return lc_reliability_setup(node);
}

static inline void lc_reliability_fini(struct lc_node *node)
{
	lc_reliability_drain(node);
}

#if LC_STAMPED
/*
 * A replicated frame (LC_STAMPED, lc_coop.h): the next seq of EVERY member
 * of its stamp table, so LC_RETRY when any member's window is full or a
 * go-back-N resend to it is under way (members we gave up on are gone,
 * lc_proto_peer_gone, and were left out of the table).  Each member's seq
 * and ack go into the table; the MCP stamps them and seals each copy.
 */
static inline lc_verdict lc_reliability_send_group(struct lc_node *node, struct lc_frame_hdr *hdr)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	struct lc_stamps *t = lc_proto_stamps(node);
	struct lc_reliability_peer *p;

	for (uint32_t i = 0; i < t->n; i++) {
		p = &st->peer[t->m[i].member];
		if (lc_reliability_window_shut(p))
			return LC_RETRY;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		p = &st->peer[t->m[i].member];
		t->m[i].reliability_seq = p->next;
		t->m[i].reliability_ack = p->expect;
	}
	hdr->reliability_flags = 0;
	hdr->reliability_crc = 0;
	return LC_CONTINUE;
}

/*
 * after_send of a replicated frame: per member, what after_send does for a
 * unicast frame, and a copy of the frame as that member got it (stamped;
 * unsealed, reliability_crc 0: sealed when the copy is sent again,
 * reliability.c).
 * A copy per member, not one shared copy: a member's window then stays
 * one array of whole frames that go-back-N resends as they are, and the
 * memcpy per member is what host mode pays too (it keeps every copy).
 */
static inline void lc_reliability_after_group(struct lc_node *node, const struct lc_frame_hdr *hdr,
					      const void *payload)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	const struct lc_stamps *t = lc_proto_stamps_posted(node);

	for (uint32_t i = 0; i < t->n; i++) {
		const struct lc_stamp *sm = &t->m[i];
		struct lc_reliability_peer *p = &st->peer[sm->member];
		struct lc_frame_hdr *k = lc_reliability_kept(p, p->next);

		lc_reliability_ack_sent(p, sm->reliability_ack);
		memcpy(k, hdr, sizeof(*hdr));
		lc_stamp_apply(k, sm);   /* dst and every composed protocol's member fields */
		lc_reliability_keep_payload(k + 1, payload, hdr->len);
		lc_reliability_kept_commit(st, p);
	}
}
#endif

static inline int lc_reliability_later_frees(struct lc_node *node, struct lc_reliability_peer *p);

static inline lc_verdict lc_reliability_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						   const void *payload)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	struct lc_reliability_peer *p;
	void *keep = NULL;      /* where the payload is kept in the CRC's pass, if it is */

	if (hdr->dst >= node->size) {
#if LC_STAMPED
		if (hdr->flags & LC_FF_GROUP)
			return lc_reliability_send_group(node, hdr);
#endif
		hdr->reliability_flags = LC_REL_F_UNSEQ;
	} else {
		p = &st->peer[hdr->dst];
		if (st->sending_ack) {
			hdr->reliability_flags = st->sending_ack;
		} else {
			if (p->dead) {
				st->failed = 1;
				st->wake_ns = 0;
				return LC_RETRY;
			}
			if (lc_reliability_window_shut(p) && !lc_reliability_later_frees(node, p))
				return LC_RETRY;
			hdr->reliability_seq = p->next;
			if (lc_reliability_refs(node, hdr)) {
				if (hdr->flags & LC_FF_LAST)
					hdr->reliability_flags = LC_REL_F_ASK;
				hdr->reliability_ack = p->expect;
				lc_reliability_crc_ref(node, hdr, payload);
				return LC_CONTINUE;
			}
			if (lc_reliability_keeps_in_send(hdr))
				keep = lc_reliability_kept(p, p->next) + 1;
		}
		hdr->reliability_ack = p->expect;
	}
	hdr->reliability_crc = keep ? lc_reliability_crc_keep(hdr, payload, keep) :
				      lc_reliability_crc(hdr, payload);
	return LC_CONTINUE;
}

static inline void lc_reliability_after_send(struct lc_node *node, const struct lc_frame_hdr *hdr,
					     const void *payload)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	struct lc_reliability_peer *p;
	struct lc_frame_hdr *k;

	if (hdr->reliability_flags & LC_REL_F_UNSEQ)
		return;
#if LC_STAMPED
	if ((hdr->flags & LC_FF_GROUP) && hdr->dst >= LC_MAX_NODES) {
		lc_reliability_after_group(node, hdr, payload);
		return;
	}
#endif
	p = &st->peer[hdr->dst];
	lc_reliability_ack_sent(p, hdr->reliability_ack);
	if (hdr->reliability_flags & LC_REL_F_ACK)
		return;
	k = lc_reliability_kept(p, p->next);
	memcpy(k, hdr, sizeof(*hdr));
	if (lc_reliability_refs(node, hdr)) {
		/*
		 * REFERENCES: the payload stays in the user's buffer, its send held to the
		 * last frame's ack; the kept slot holds the pointer, its header the mark
		 * (a mark only here, where a copy needs none: no store for it per frame)
		 */
		k->reliability_flags |= LC_REL_F_REF;
		memcpy(k + 1, &payload, sizeof(payload));
		if (hdr->flags & LC_FF_LAST) {
			struct lc_hold h = lc_proto_sreq_hold(node);

			p->holds[p->hold_in++ & (LC_RELIABILITY_W - 1)] =
				(struct lc_reliability_hold){ .seq = p->next, .id = h.id, .s = h.s };
		}
	} else {
		if (!lc_reliability_keeps_in_send(hdr))
			lc_reliability_keep_payload(k + 1, payload, hdr->len);
		LC_STAT_ADD(node, host_copy_bytes, hdr->len);   /* the kept copy is a copy (copies per byte) */
	}
	lc_reliability_kept_commit(st, p);
}

/* Go back to frame una; Karn's rule: the timed frame is sent again, its ack gives no sample. */
static inline void lc_reliability_go_back(struct lc_reliability_state *st, struct lc_reliability_peer *p)
{
	st->wake_ns = 0;        /* the resend runs in poll */
	p->rsnd = p->una;
	p->recover = p->next;
	p->gb_una = p->una;
	p->dupacks = 0;
	p->rtt_t0_ns = 0;
}

/* A round-trip sample r (Jacobson/Karels, RFC 6298 gains 1/8 and 1/4): a new RTO estimate. */
static inline void lc_reliability_rtt(struct lc_reliability_peer *p, uint64_t r)
{
	uint64_t rto;

	if (!p->srtt_ns) {
		p->srtt_ns = r;
		p->rttvar_ns = r / 2;
	} else {
		uint64_t err = r > p->srtt_ns ? r - p->srtt_ns : p->srtt_ns - r;

		p->rttvar_ns = p->rttvar_ns - p->rttvar_ns / 4 + err / 4;
		p->srtt_ns = p->srtt_ns - p->srtt_ns / 8 + r / 8;
	}
	rto = p->srtt_ns + 4 * p->rttvar_ns;
	if (rto < LC_RELIABILITY_RTO_NS)
		rto = LC_RELIABILITY_RTO_NS;
	if (rto > LC_RELIABILITY_RTO_CAP_NS)
		rto = LC_RELIABILITY_RTO_CAP_NS;
	p->rto_base_ns = rto;
}

/* The sends held to frames below ack: their frames arrived (REFERENCES). */
static inline void lc_reliability_release(struct lc_node *node, struct lc_reliability_peer *p, uint32_t ack)
{
	while (p->hold_out != p->hold_in) {
		const struct lc_reliability_hold *h = &p->holds[p->hold_out & (LC_RELIABILITY_W - 1)];

		if ((int32_t)(ack - h->seq) <= 0)
			return;
		p->hold_out++;
		lc_proto_sreq_release(node, (struct lc_hold){ .s = h->s, .id = h->id });
	}
}

/* A cumulative ack from peer p: every frame below ack arrived. */
static inline void lc_reliability_ack_in(struct lc_node *node, struct lc_reliability_peer *p, uint32_t ack,
					 int gap)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	uint32_t adv = ack - p->una;

	if (adv == 0 || adv > p->next - p->una) {
		/*
		 * fast retransmit: the LC_RELIABILITY_DUPACKS-th ack sent for a gap that leaves the window
		 * where it is (acks drawn by duplicates do not count); not again
		 * before the window passed the last go-back, unless a partial ack
		 * moved una since (NewReno's rule: the resend itself lost a frame,
		 * the gap acks at the new una come from resent frames beyond it,
		 * and waiting for the timer would stall the window)
		 */
		if (adv == 0 && gap && p->una != p->next &&
		    ((int32_t)(p->una - p->recover) >= 0 || p->una != p->gb_una) &&
		    ++p->dupacks == LC_RELIABILITY_DUPACKS)
			lc_reliability_go_back(st, p);
		return;
	}
	/*
	 * Karn's rule, both halves: a resent frame gives no sample, and a
	 * backed-off timeout stays until a frame sent once is acknowledged and
	 * gives one (the next new frame is timed, so that is one round trip of
	 * new data).  Falling back to the estimate on any progress would make a
	 * receiver that computes longer than the estimate between its calls draw
	 * a spurious go-back at every call: its acks come late, the late
	 * samples die with the timer, and only the short ones are ever taken.
	 */
	if (p->rtt_t0_ns && p->rtt_seq - p->una < adv) {
		if (st->now_ns > p->rtt_t0_ns)
			lc_reliability_rtt(p, st->now_ns - p->rtt_t0_ns);
		p->rtt_t0_ns = 0;
		p->rto_ns = p->rto_base_ns;
	}
	p->una = ack;
	if (p->hold_out != p->hold_in)
		lc_reliability_release(node, p, ack);
	p->retries = p->stopped_caps = 0;
	p->dupacks = 0;
	if ((int32_t)(p->rsnd - ack) < 0)
		p->rsnd = ack;
	if (p->una != p->next) {
		p->deadline_ns = st->now_ns + p->rto_ns;
		lc_reliability_wake(st, p->deadline_ns);
	} else {
		p->deadline_ns = 0;
	}
}

/*
 * LATER.  The ack a data frame carries, and the ack timer its arrival arms,
 * are not needed to deliver it: recv_frame notes them (the peer in
 * st->later, the ack in p->ack_rx) and the next poll takes them
 * (lc_reliability_later_take) -- in a ping-pong the poll of the waiter's next
 * step, after its answer is on the wire (the framework ends the step that
 * completes a wait before its poll, lc_progress_rest), so neither is on the
 * path of a message; in a step that takes several frames, the poll at its
 * end.  One peer's at a time: a data frame from another peer takes the one
 * noted first; from the same peer its ack replaces the older one (acks are
 * cumulative and in order, and every one taken at the same clock).  What
 * reads the window or the timers takes it first: the poll, the timer scan
 * (lc_reliability_timers), a send that finds the window full (unless the
 * ack would release a held send, which send_frame may not: lc_proto.h).  An
 * ack-only frame and the ack of a frame out of order are taken at once.  Ack
 * frames that answer an answer carry the ack either way: the timer armed late
 * is armed only if no frame carried the ack meanwhile (a ping-pong arms none).
 * 8 B ping-pong, reliable: docs/internals.md, thirty-third part.
 */
static inline void lc_reliability_later_take(struct lc_node *node)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	struct lc_reliability_peer *p = &st->peer[st->later - 1];

	st->later = 0;
	lc_reliability_ack_in(node, p, p->ack_rx, 0);
	if (!p->ack_due_ns && p->acked != p->expect) {
		p->ack_due_ns = st->now_ns + LC_RELIABILITY_ACK_DELAY_NS;
		lc_reliability_wake(st, p->ack_due_ns);
	}
}

/*
 * send_frame found p's window full (or a resend under way): take the ack noted
 * for the poll if it is p's and releases no held send (LATER).  Whether the
 * window has room now.
 */
static inline int lc_reliability_later_frees(struct lc_node *node, struct lc_reliability_peer *p)
{
	struct lc_reliability_state *st = &node->proto.reliability;

	if (!st->later || &st->peer[st->later - 1] != p || p->hold_out != p->hold_in)
		return 0;
	lc_reliability_later_take(node);
	return !lc_reliability_window_shut(p);
}

/* Data frame from peer src (p) arrived in order carrying ack: noted for the poll (LATER). */
static inline void lc_reliability_later(struct lc_node *node, struct lc_reliability_peer *p, uint32_t src,
					uint32_t ack)
{
	struct lc_reliability_state *st = &node->proto.reliability;

	if (st->later != src + 1) {
		if (st->later)
			lc_reliability_later_take(node);
		st->later = src + 1;
	}
	p->ack_rx = ack;
}

static inline lc_verdict lc_reliability_recv_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						   void *payload)
{
	struct lc_reliability_state *st = &node->proto.reliability;
	struct lc_reliability_peer *p;
	uint32_t d;

	/* an RDMA frame was checked by its NIC before its payload was placed (nic_hooks.h) */
	if (hdr->type != LC_FT_RDMA && !lc_reliability_crc_ok(node, hdr, payload)) {
		LC_STAT_ADD(node, rel_crc_drops, 1);
		return LC_DROP;
	}
	if (hdr->reliability_flags & LC_REL_F_UNSEQ)
		return LC_CONTINUE;
	p = &st->peer[hdr->src];
	p->heard = 1;
	if (hdr->reliability_flags & LC_REL_F_ACK) {
		lc_reliability_ack_in(node, p, hdr->reliability_ack, hdr->reliability_flags & LC_REL_F_GAP);
		return LC_CONSUMED;
	}
	d = hdr->reliability_seq - p->expect;
	if (d == 0) {
		p->expect++;
		lc_reliability_later(node, p, hdr->src, hdr->reliability_ack);   /* the ack, the ack timer */
		if (hdr->reliability_flags & LC_REL_F_ASK) {
			/*
			 * its sender holds a send until this ack (REFERENCES): due at once,
			 * sent at the poll after this step's (lc_reliability_timers), so that
			 * an answer the application sends meanwhile carries it instead
			 */
			p->ack_due_ns = 1;
			p->ask_defer = 1;
			st->wake_ns = 0;
		} else if (p->expect - p->acked >= LC_RELIABILITY_ACK_BATCH) {
			st->wake_ns = 0;
		}
		return LC_CONTINUE;
	}
	lc_reliability_ack_in(node, p, hdr->reliability_ack, 0);
	st->wake_ns = 0;        /* ack_now: the ack goes on the next poll */
	if ((int32_t)d < 0) {
		LC_STAT_ADD(node, rel_dup_drops, 1);
		p->ack_now |= LC_REL_F_ACK;
	} else {
		LC_STAT_ADD(node, rel_ooo_drops, 1);
		p->ack_now |= LC_REL_F_ACK | LC_REL_F_GAP;
	}
	return LC_DROP;
}

/* O(1) while no timer is due: a compare, not a scan of every peer. */
static inline void lc_reliability_poll(struct lc_node *node, uint64_t now_ns)
{
	struct lc_reliability_state *st = &node->proto.reliability;

	if (now_ns < st->wake_ns) {
		st->now_ns = now_ns;
		if (st->later)
			lc_reliability_later_take(node);
		return;
	}
	lc_reliability_timers(node, now_ns);
}

#endif /* LC_RELIABILITY_HOOKS_H */
