/* SPDX-License-Identifier: MIT */
/* Per-node state of the active protocol (a member of struct lc_proto_state). */
#ifndef LC_ACTIVE_NET_STATE_H
#define LC_ACTIVE_NET_STATE_H

#include <stdint.h>

#include "lc_config.h"
#include "nic.h"   /* LC_MAX_NODES */

/* A change lc_active_net_set asked for: the flags of data from message `seq` to the peer on. */
struct lc_active_net_change {
	uint32_t seq;
	uint8_t on;
};

/* One peer: the flags its data frames carry now, and the changes waiting for their message. */
struct lc_active_net_peer {
	uint8_t on;
	uint8_t head, n;        /* ring of waiting changes */
	uint8_t waiting;        /* the head change waits for quiet (counted once) */
	struct lc_active_net_change ch[LC_ACTIVE_NET_CHANGES];
};

struct lc_active_net_state {
	uint8_t group_on;                     /* data to a group id (dst beyond the nodes) */
	struct lc_active_net_peer peer[LC_MAX_NODES];
};

#endif /* LC_ACTIVE_NET_STATE_H */
