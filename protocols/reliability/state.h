/* SPDX-License-Identifier: MIT */
/* Per-node state of the reliability protocol (a member of struct lc_proto_state). */
#ifndef LC_RELIABILITY_STATE_H
#define LC_RELIABILITY_STATE_H

#include <stdint.h>

struct lc_sreq;

/* A send held until its last frame is acknowledged (lc_proto_sreq_hold): that frame's seq, the hold. */
struct lc_reliability_hold {
	uint32_t seq;
	uint32_t id;
	struct lc_sreq *s;
};

/* One peer: the send window towards it and the receive point from it. */
struct lc_reliability_peer {
	/* send side: sequence numbers are free-running uint32_t, compared by difference */
	uint32_t next;          /* sequence number of the next new frame */
	uint32_t una;           /* oldest unacknowledged frame (== next: nothing outstanding) */
	uint32_t rsnd;          /* go-back-N cursor: next kept frame to send again (== next: none) */
	uint32_t retries;       /* timeouts of frame una in a row (at the cap: the silent resend cadence) */
	uint32_t stopped_caps;  /* those at the cap while the peer's process was stopped (the give-up count) */
	uint32_t dupacks;       /* acks that did not move una while frames were outstanding */
	uint32_t recover;       /* next at the last go-back: no fast retransmit before una reaches it ... */
	uint32_t gb_una;        /* ... unless una moved past this, una at the last go-back (a partial ack) */
	uint8_t dead;           /* gave up after max_retries: sends to it fail */
	uint8_t heard;          /* a frame came from the peer since the last timeout go-back (hooks.h: silence) */
	uint64_t deadline_ns;   /* retransmission timer of una (0: not armed) */
	uint64_t rto_ns;        /* current timeout: rto_base_ns doubled once per timeout, capped */
	uint64_t rto_base_ns;   /* srtt + 4 rttvar, at least timeout_us (Jacobson/Karels) */
	uint64_t srtt_ns;       /* smoothed round-trip time (0: no sample yet) */
	uint64_t rttvar_ns;     /* round-trip time variation */
	uint64_t rtt_t0_ns;     /* send time of the timed frame rtt_seq (0: none timed) */
	uint32_t rtt_seq;       /* the one frame being timed (Karn: never a resent one) */
	uint8_t *slots;         /* window kept copies: header then payload, LC_RELIABILITY_SLOT bytes each */
	struct lc_reliability_hold *holds;  /* [window]: sends held, in seq order, from hold_out to hold_in */
	uint32_t hold_in, hold_out;
	/* receive side */
	uint32_t expect;        /* next sequence number expected from the peer */
	uint32_t acked;         /* the last cumulative ack that went to the peer */
	uint8_t ack_now;        /* a duplicate or a gap arrived: ack on the next poll (the ack's flags) */
	uint8_t ask_defer;      /* an ack asked for (LC_REL_F_ASK) waits one poll: an answer may carry it */
	uint64_t ack_due_ns;    /* an explicit ack goes at this time unless one was piggybacked (0: none) */
	uint32_t ack_rx;        /* the ack of the last data frame from the peer, not taken yet (hooks.h, LATER) */
};

struct lc_reliability_state {
	struct lc_reliability_peer *peer;   /* [node size], from init */
	uint8_t *mem;                       /* every peer's kept copies, one allocation */
	struct lc_reliability_hold *holds;  /* every peer's holds array, one allocation */
	uint64_t now_ns;                    /* time of the last poll (timers armed between polls use it) */
	uint64_t wake_ns;                   /* no timer work before this time (0: at the next poll); a lower
					       bound: every hook that arms a timer or asks for an ack lowers it,
					       the scan of all peers (lc_reliability_timers) sets it exactly */
	uint32_t later;                     /* 1 + the peer whose data frame's ack waits for the poll (0: none) */
	uint8_t sending_ack;                /* flags of the ack-only frame being posted (send_frame reads them) */
	uint8_t failed;                     /* a send waits for a dead peer: poll fails it */
};

#endif /* LC_RELIABILITY_STATE_H */
