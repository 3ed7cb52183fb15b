/* SPDX-License-Identifier: MIT */
/* multicast protocol, public API: groups of nodes, lc_mcast, lc_bcast (part of comm.h). */
#ifndef LC_MULTICAST_H
#define LC_MULTICAST_H

#include <stddef.h>

#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Groups and multicast: in libraries whose config selects the multicast
 * protocol (LC_PROTO_MULTICAST is 1 in lc_config.h) this header is installed
 * beside comm.h, which includes it; otherwise neither it nor these functions
 * exist.
 *
 * A group is a set of nodes with an id 0 .. multicast.max_groups-1, kept in
 * the job segment, so a change made by any node is seen by every node.
 * Static groups come from the launcher (commrun --group 0,1,2, ids in the
 * order given); groups are also made and changed while the job runs.
 *
 * Receiving: a member receives a group message with an ordinary receive
 * (lc_recv / lc_irecv) from the root (the sending node), or from
 * LC_ANY_SOURCE; st->src is the root.  Nothing marks it as a group message.
 * Order: messages from one root to one member, group and unicast alike,
 * are delivered in the order the root called lc_mcast / lc_bcast / lc_isend.
 * The root itself never receives its own group message, member or not.
 * Membership is read once per message when the message starts to leave the
 * root: in host mode at the lc_mcast call, in nic mode when the root's NIC
 * injects its first frame.  A node that joins or leaves meanwhile gets the
 * whole message or none of it; it gets none of the messages that start
 * after its leave is done.  Messages it got stay in its receive queue.
 * multicast.mode: "host" (one unicast copy per member, composes with every
 * protocol: with exactly_once each copy arrives exactly once, in order) or
 * "nic" (the root's NIC replicates each frame; composes with every protocol
 * too, through per-member stamp tables).
 */

/* The group of every node of the job, for lc_mcast (what lc_bcast uses). */
#define LC_GROUP_WORLD (-1)

/*
 * Create a group of the n nodes members[0..n-1] (duplicates allowed, n may
 * be 0).  Returns 0 and *gid, or LC_ERR_INVAL (NULL pointers, n < 0),
 * LC_ERR_RANGE (a member out of range), LC_ERR_AGAIN (every group id of
 * multicast.max_groups is taken).
 */
int lc_group_create(lc_node *node, const int *members, int n, int *gid);
/* Free group gid (its id may be given out again). 0 or LC_ERR_RANGE (no such group). */
int lc_group_destroy(lc_node *node, int gid);
/* This node joins / leaves group gid (idempotent). 0 or LC_ERR_RANGE (no such group). */
int lc_group_join(lc_node *node, int gid);
int lc_group_leave(lc_node *node, int gid);
/*
 * The members of gid (or LC_GROUP_WORLD), ascending, into out[0..cap-1].
 * Returns the member count (which may exceed cap) or LC_ERR_RANGE / LC_ERR_INVAL.
 */
int lc_group_members(lc_node *node, int gid, int *out, int cap);
/*
 * Blocking send of len bytes to every member of gid (LC_GROUP_WORLD: every
 * node) but this node.  Returns when buf may be reused: 0, or the first
 * error of a copy (the errors of lc_send; the other members still get
 * theirs), or LC_ERR_RANGE (no such group), LC_ERR_INVAL, LC_ERR_TOOBIG.
 */
int lc_mcast(lc_node *node, int gid, const void *buf, size_t len);
/* lc_mcast to LC_GROUP_WORLD: every other node of the job. */
int lc_bcast(lc_node *node, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* LC_MULTICAST_H */
