/* SPDX-License-Identifier: MIT */
/* Per-node state of the flow_control protocol (a member of struct lc_proto_state). */
#ifndef LC_FLOW_CONTROL_STATE_H
#define LC_FLOW_CONTROL_STATE_H

#include <stdint.h>

#include "lc_config.h"
#include "nic.h"

/*
 * Every counter is cumulative and free-running (uint32_t, compared by
 * difference), so a lost or repeated credit frame never leaks a credit: the
 * next frame that carries `drained` repairs the sender's view.
 */
struct lc_flow_control_peer {
	uint32_t sent;      /* data frames to this peer that left (after_send), retransmissions aside */
	uint32_t adv;       /* this peer's `drained` for our frames, the newest value heard */
	uint32_t drained;   /* data frames from this peer accepted here (their staging slot is freed) */
	uint32_t told;      /* the `drained` value last carried to this peer (piggybacked or explicit) */
	uint64_t probe_at;  /* blocked since / next probe time (ns), 0 while not blocked */
	uint32_t probe_gap; /* current probe interval (us), doubled per unanswered probe */
	uint64_t stopped_at; /* blocked while the peer's process is stopped: since (ns), else 0 */
	uint8_t flags;      /* LC_FC_F_*: what poll owes this peer */
	uint8_t listed;     /* in the `todo` list */
};

struct lc_flow_control_state {
	uint32_t credits;    /* flow_control.credits: frames in flight to one peer */
	uint32_t threshold;  /* drained - told that triggers an explicit credit frame */
	uint32_t ntodo;      /* peers in todo */
	uint64_t waits;      /* send_frame said LC_RETRY: no credit for the peer */
	uint64_t ctrl_sent;  /* explicit credit frames sent */
	uint64_t probes;     /* credit probes sent (blocked too long: a credit frame may be lost) */
	uint64_t stale;      /* credit fields ignored: older than known, or beyond what was sent */
	uint64_t resync_lost;  /* without exactly_once: frames a probe declared lost (drained raised to sent) */
	uint64_t resync_extra; /* without exactly_once: drained lowered to sent (duplicates, late reordered frames) */
	uint16_t todo[LC_MAX_NODES];                 /* peers poll must look at */
	struct lc_flow_control_peer peer[LC_MAX_NODES];
};

#endif /* LC_FLOW_CONTROL_STATE_H */
