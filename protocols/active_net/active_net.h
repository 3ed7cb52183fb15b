/* SPDX-License-Identifier: MIT */
/* active protocol, public API: switch the composed switchable protocols per peer and per message (part of comm.h). */
#ifndef LC_ACTIVE_NET_H
#define LC_ACTIVE_NET_H

#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * In libraries whose config selects the active protocol (LC_PROTO_ACTIVE_NET is 1
 * in lc_config.h) this header is installed beside comm.h, which includes it.
 *
 * Each composed protocol the registry marks switchable (its entry declares
 * switchable) has a bit; lc_active_net_bit gives it by name, lc_active_net_mask
 * gives them all.  Every data frame carries the bits its sender had on for
 * its peer, and every node -- sender, NIC, receiver -- runs a switchable
 * protocol's per-frame work only for frames whose bit is set.  Control frames
 * (acks, credits, the framework's own) carry every bit.
 *
 * lc_active_net_set(node, peer, on): the data of every message to peer submitted
 * after the call (lc_isend and friends) carries `on`; messages submitted
 * before keep what they had, whether or not they have left yet.  peer
 * LC_ANY_SOURCE: every peer, and group messages.  Switching a protocol off
 * waits, inside the pipeline, until it has nothing outstanding to the peer
 * (a protocol that acknowledges: every frame acknowledged): a message sent with a
 * protocol on keeps its guarantee.  Returns 0; LC_ERR_INVAL (a bit that is no
 * switchable protocol of this config), LC_ERR_RANGE (peer), LC_ERR_AGAIN
 * (active_net.changes changes already wait for their messages to that peer).
 */
int lc_active_net_set(lc_node *node, int peer, unsigned on);
/* The bits the next message to peer will carry (after every waiting change). */
int lc_active_net_get(lc_node *node, int peer, unsigned *on);
/* The bit of a composed switchable protocol: 0, or LC_ERR_INVAL (none of that name). */
int lc_active_net_bit(const char *protocol, unsigned *bit);
/* Every switchable protocol of this config, one bit each. */
unsigned lc_active_net_mask(void);

#ifdef __cplusplus
}
#endif

#endif /* LC_ACTIVE_NET_H */
