/* SPDX-License-Identifier: MIT */
/* Per-node state of the multicast protocol (a member of struct lc_proto_state). */
#ifndef LC_MULTICAST_STATE_H
#define LC_MULTICAST_STATE_H

#include <stdint.h>

#include "nic.h"

struct lc_multicast_state {
	uint32_t gseq;                  /* nic mode: next number of this node's group messages */
	uint32_t gshift[LC_MAX_NODES];  /* nic mode: group messages begun per root (seq mapping) */
	uint64_t rx_group_msgs;         /* nic mode: group messages begun here */
	uint64_t tx_bits[LC_NIC_GROUP_WORDS]; /* nic mode: members of the group message being sent */
	uint64_t tx_dead_skips;         /* nic mode: members left out of a group frame (dead, given up) */
	uint64_t tx_clipped;            /* nic mode: members beyond max_members left out (joined late) */
};

#endif /* LC_MULTICAST_STATE_H */
