/* SPDX-License-Identifier: MIT */
/* Per-node state of the reliability protocol (a member of struct lc_proto_state). */
#ifndef LC_RELIABILITY_STATE_H
#define LC_RELIABILITY_STATE_H

#include <stdint.h>

/* One peer: the send window towards it and the receive point from it. */
struct lc_reliability_peer {
	/* send side: sequence numbers are free-running uint32_t, compared by difference */
	uint32_t next;          /* sequence number of the next new frame */
	uint32_t una;           /* oldest unacknowledged frame (== next: nothing outstanding) */
	uint32_t rsnd;          /* go-back-N cursor: next kept frame to send again (== next: none) */
	uint32_t retries;       /* timeouts of frame una in a row */
	uint32_t dupacks;       /* acks that did not move una while frames were outstanding */
	uint8_t dead;           /* gave up after max_retries: sends to it fail */
	uint64_t deadline_ns;   /* retransmission timer of una (0: not armed) */
	uint64_t rto_ns;        /* current timeout (backoff) */
	uint8_t *slots;         /* window kept copies: header then payload, LC_RELIABILITY_SLOT bytes each */
	/* receive side */
	uint32_t expect;        /* next sequence number expected from the peer */
	uint32_t acked;         /* the last cumulative ack that went to the peer */
	uint8_t ack_now;        /* a duplicate or a gap arrived: ack on the next poll */
	uint64_t ack_due_ns;    /* an explicit ack goes at this time unless one was piggybacked (0: none) */
};

struct lc_reliability_state {
	struct lc_reliability_peer *peer;   /* [node size], from init */
	uint8_t *mem;                       /* every peer's kept copies, one allocation */
	uint64_t now_ns;                    /* time of the last poll (timers armed between polls use it) */
	uint8_t sending_ack;                /* the ack-only frame being posted by poll (send_frame reads it) */
	uint8_t failed;                     /* a send waits for a dead peer: poll fails it */
};

#endif /* LC_RELIABILITY_STATE_H */
