/* SPDX-License-Identifier: MIT */
/* Per-node state of dynamic_mtu (a member of struct lc_proto_state). */
#ifndef LC_DYNAMIC_MTU_STATE_H
#define LC_DYNAMIC_MTU_STATE_H

#include <stdint.h>

#include "lc_config.h"
#include "nic.h"   /* LC_MAX_NODES */

/* The sizes the adaptation steps through: max, max/2, ... down to min (and min itself). */
#define LC_DYNAMIC_MTU_LEVELS 16

/* One peer: the size of its next message's frames, and what each size was seen to cost. */
struct lc_dynamic_mtu_peer {
	uint32_t frame;          /* payload bytes per frame of the next message */
	uint32_t sent;           /* frames sent at this size since the window began */
	uint32_t resent0;        /* lc_proto_resent towards the peer when the window began */
	uint32_t windows;        /* windows weighed (the age of an estimate) */
	uint8_t level;           /* frame == size of this level, unless fixed */
	uint8_t fixed;           /* lc_dynamic_mtu_set fixed the size: no adaptation */
	uint8_t settle;          /* the size changed: the next window's resends are the old size's */
	/* resends per frame measured at each level (x 1024), and the window it was measured in */
	uint32_t loss[LC_DYNAMIC_MTU_LEVELS];
	uint32_t seen[LC_DYNAMIC_MTU_LEVELS];   /* 0: never measured */
	/* windows a measurement stays valid (0: the default); doubled at each move back from it */
	uint16_t age[LC_DYNAMIC_MTU_LEVELS];
	uint8_t came;            /* the level the last move left (LC_DYNAMIC_MTU_LEVELS: none) */
};

struct lc_dynamic_mtu_state {
	uint32_t size[LC_DYNAMIC_MTU_LEVELS];   /* level -> payload bytes; size[0] = max */
	uint8_t levels;
	struct lc_dynamic_mtu_peer peer[LC_MAX_NODES];
};

#endif /* LC_DYNAMIC_MTU_STATE_H */
