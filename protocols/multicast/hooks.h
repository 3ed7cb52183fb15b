/* SPDX-License-Identifier: MIT */
/* multicast protocol, host side: group frames of nic mode share the per-source order of unicast. */
#ifndef LC_MULTICAST_HOOKS_H
#define LC_MULTICAST_HOOKS_H

/*
 * Parameters (configs: multicast = { mode = ..., max_groups = ... }):
 *   mode        LC_MULTICAST_MODE_HOST / LC_MULTICAST_MODE_NIC (0/1)
 *   max_groups  LC_MULTICAST_MAX_GROUPS: entries of the group table in the
 *               job segment (nic/mcast.c, geometry field `groups`)
 *   max_members LC_MULTICAST_MAX_MEMBERS (LC_STAMPED, lc_coop.h): members one
 *               group frame reaches, the sender aside; sizes the SRAM stamp
 *               tables; lc_mcast to a larger group fails (LC_ERR_TOOBIG)
 * Pointcuts: init, send_frame (nic mode: the stamp table), recv_frame (nic
 *   mode: the per-root message order), nic_tx (nic_hooks.h).
 * Header fields: none (a group frame is dst = LC_NIC_GROUP_DST(gid) on the
 *   sender, LC_FF_GROUP and dst = member on the wire), so host mode costs
 *   no instruction and no header byte.
 * API: lc_group_create/destroy/join/leave/members, lc_mcast, lc_bcast
 *   (multicast.h, installed beside comm.h in configs with this protocol;
 *   implemented in group.c).  Static groups: job_init (launcher_hooks.h).
 *
 * host mode: lc_mcast is a loop of lc_isend, one per member; no hook does
 *   anything (every hook here compiles to LC_CONTINUE), each copy is a
 *   unicast message that every other protocol handles as usual.
 * nic mode: lc_mcast posts one send request whose dst is
 *   LC_NIC_GROUP_DST(gid); the nic_tx hook (nic_hooks.h) marks each frame
 *   LC_FF_GROUP and the sender's MCP copies it to every member with
 *   dst = member.  At a member, frames from one root arrive in the order the
 *   root's Send Ring held them (one route, FIFO links), messages whole, but
 *   group messages are not numbered in the (root, member) space that
 *   lc_rx_frame checks.  recv_frame (below) therefore maps sequence numbers
 *   per root: with g = group messages begun from root so far, a unicast
 *   frame's seq becomes seq + g, and a group message takes the next number
 *   (expect, or past the message still in assembly) and bumps g.  The
 *   mapped numbers are contiguous and increasing, so lc_rx_frame keeps its
 *   checks unchanged: group and unicast messages of one root are delivered
 *   in the order the root sent them.
 *
 * nic mode with protocols that declare member or seal fields (LC_STAMPED,
 *   the stamp tables of lc_coop.h): send_frame (this protocol's runs first:
 *   send_frame is reversed) takes the members of a group message at its
 *   first frame (the group table, less the sender), leaves out members that
 *   are gone -- dead, or given up by a protocol (lc_proto_peer_gone;
 *   tx_dead_skips; for the rest of the message too) -- writes them into the
 *   frame's stamp table (lc_proto_stamps) and marks the frame LC_FF_GROUP.
 *   The protocols below then stamp their member fields for each member (a
 *   credit, a sequence number and ack; each may RETRY, committing nothing)
 *   and at after_send count the frame as sent to each member.  The MCP
 *   applies each stamp to the member's copy and seals it (nic_hooks.h).  At
 *   a member the copy is then an ordinary frame of the root for every
 *   protocol, and recv_frame (below) maps it into the root's message order.
 *   A member that dies or is given up is left out of later frames; the
 *   group send itself does not fail (the others get the message).
 */
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "lc_coop.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

_Static_assert(LC_MULTICAST_GROUPS_COUNT <= LC_MULTICAST_MAX_GROUPS,
	       "multicast.groups lists more static groups than multicast.max_groups");

/*
 * init: the static groups of the config (multicast.groups) must name nodes
 * of this job (the generator checked ids >= 0 and no duplicates; the node
 * count is known only now).  The launcher made them (group ids 0..COUNT-1,
 * lc_group_static_install in group.c) before the nodes started.
 */
static inline int lc_multicast_init(struct lc_node *node)
{
#define LC_X_MC_STATIC(i, n, ...)                                                         \
	{                                                                                   \
		static const uint32_t lc_m_[] = { __VA_ARGS__ };                            \
		for (uint32_t k = 0; k < (n); k++)                                          \
			if (lc_m_[k] >= node->size)                                         \
				return lc_proto_fail(LC_ERR_RANGE, "multicast.groups: group %d "  \
						     "lists node %u, the job has %u nodes (0..%u)", \
						     (i), lc_m_[k], node->size, node->size - 1);   \
	}
	LC_MULTICAST_GROUPS(LC_X_MC_STATIC)
#undef LC_X_MC_STATIC
	(void)node;
	return 0;
}

#if LC_STAMPED
/* The members of the group frame at hdr into its stamp table (cold enough: once per group frame). */
static inline lc_verdict lc_multicast_stamp_members(struct lc_node *node, struct lc_frame_hdr *hdr)
{
	struct lc_multicast_state *st = &node->proto.multicast;
	struct lc_stamps *t = lc_proto_stamps(node);
	uint32_t n = 0, m;
	uint64_t bits;

	if (hdr->flags & LC_FF_FIRST) {
		/* a retried first frame takes the snapshot again: nothing was committed */
		if (lc_nic_group_members(node->nic, hdr->dst - LC_MAX_NODES, st->tx_bits) < 0)
			memset(st->tx_bits, 0, sizeof(st->tx_bits));
		st->tx_bits[node->rank / 64] &= ~(1ull << (node->rank % 64));
	}
	for (uint32_t w = 0; w < LC_NIC_GROUP_WORDS; w++) {
		for (bits = st->tx_bits[w]; bits; bits &= bits - 1) {
			m = w * 64 + (uint32_t)__builtin_ctzll(bits);
			if (m >= node->size || lc_proto_peer_gone(node, m)) {
				st->tx_bits[w] &= ~(1ull << (m % 64));
				st->tx_dead_skips++;
				continue;
			}
			if (n == LC_MULTICAST_MAX_MEMBERS) {
				/* joined after lc_mcast checked the size: left out of the whole message */
				st->tx_bits[w] &= ~(1ull << (m % 64));
				st->tx_clipped++;
				continue;
			}
			t->m[n] = (struct lc_stamp){ .member = (uint16_t)m };
			n++;
		}
	}
	t->n = n;
	hdr->flags |= LC_FF_GROUP;
	return LC_CONTINUE;
}
#endif

static inline lc_verdict lc_multicast_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						 const void *payload)
{
	(void)payload;
#if LC_STAMPED
	if (hdr->dst >= LC_MAX_NODES && hdr->type == LC_FT_DATA)
		return lc_multicast_stamp_members(node, hdr);
#else
	(void)node;
	(void)hdr;
#endif
	return LC_CONTINUE;
}

static inline lc_verdict lc_multicast_recv_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						 void *payload)
{
	(void)payload;
#if LC_MULTICAST_MODE_NIC
	struct lc_multicast_state *st = &node->proto.multicast;
	struct lc_rx_src *rs;
	uint32_t src = hdr->src, s;

	if (hdr->type != LC_FT_DATA || src >= LC_MAX_NODES)
		return LC_CONTINUE;
	if (!(hdr->flags & LC_FF_GROUP)) {
		hdr->seq += st->gshift[src];
		return LC_CONTINUE;
	}
	rs = &node->rx[src];
	if (hdr->flags & LC_FF_FIRST) {
		s = rs->expect;
		if (rs->cur && (int32_t)(rs->cur->seq + 1 - s) > 0)
			s = rs->cur->seq + 1;
		hdr->seq = s;
		st->gshift[src]++;
		st->rx_group_msgs++;
	} else if (rs->cur) {
		hdr->seq = rs->cur->seq;
	}
#else
	(void)node;
	(void)hdr;
#endif
	return LC_CONTINUE;
}

#endif /* LC_MULTICAST_HOOKS_H */
