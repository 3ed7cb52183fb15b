/* SPDX-License-Identifier: MIT */
/* multicast protocol, NIC side: the sender's MCP replicates group frames to every member (nic mode). */
#ifndef LC_MULTICAST_NIC_HOOKS_H
#define LC_MULTICAST_NIC_HOOKS_H

/*
 * Pointcut nic_tx (nic mode only; in host mode it compiles to LC_CONTINUE).
 * A group frame (dst >= LC_MAX_NODES, see LC_NIC_GROUP_DST) comes, with
 * stamp tables (LC_STAMPED, lc_coop.h), marked LC_FF_GROUP by the host with
 * its members and their member fields in the stamp table of its Send Ring
 * slot; in nic mode alone the hook marks it and lc_nic_mcast_tx takes the
 * members from the group table at the message's first frame.  The hook
 * copies it to each member with that member's stamp applied and the copy
 * sealed (lc_stamp_apply, lc_pc_seal; lc_nic_mcast_put: nic/mcast.c) and
 * answers LC_CONSUMED, or LC_RETRY while a member's Receive Ring is full
 * (Net-Send asks again; members served keep their copy).
 *
 * Why replication at nic_tx (a flat tree) and not forwarding at nic_rx (a
 * spanning tree): with the MCP stepped inline by each host's progress calls
 * (the default on two cores), a tree puts every inner member's host on the
 * path of its children, and a forwarding NIC that finds a child's ring full
 * must hold its own Receive Ring (deadlock-prone between groups).  At
 * nic_tx only the sender's Send Ring waits, and each copy costs the sender's
 * MCP one memcpy into the member's ring instead of a host frame post.
 *
 * The copy put on the link is the slot itself; the fault injector damages
 * only the receiver's copy, so the next member's stamp starts from intact
 * bytes.  The payload sits after the header in the Send Ring slot (a DMA
 * frame's payload arrived there before the frame was ready), which is what
 * seal reads.
 */
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "lc_coop.h"
#include "lc_frame_hdr.h"
#include "lc_verdict.h"
#include "nic.h"

static inline lc_verdict lc_multicast_nic_tx(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
#if LC_STAMPED
	const struct lc_stamps *t;
	uint64_t bits[LC_NIC_GROUP_WORDS];
	int again = lc_nic_mcast_busy(nic);
	uint32_t n;

	/*
	 * A group frame: to a group id, or asked again (LC_RETRY) while its
	 * copies are under way -- its slot then holds the copy stamped for the
	 * member that had no room, dst = that member.  A kept copy that a
	 * protocol sends again to one member is LC_FF_GROUP too, but reaches
	 * send_tail only after the group frame before it was done: an ordinary
	 * unicast frame here.
	 */
	if (hdr->dst < LC_MAX_NODES && !again)
		return LC_CONTINUE;
	/* the host marked it and filled the table of its slot (multicast/hooks.h) */
	t = lc_nic_mcast_stamp(nic);
	n = t->n < LC_MULTICAST_MAX_MEMBERS ? t->n : LC_MULTICAST_MAX_MEMBERS;
	if (!again) {
		memset(bits, 0, sizeof(bits));
		for (uint32_t i = 0; i < n; i++)
			bits[t->m[i].member / 64] |= 1ull << (t->m[i].member % 64);
		/* once per frame: a frame asked again keeps the members already served */
		lc_nic_mcast_start(nic, hdr, bits);
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!lc_nic_mcast_left(nic, t->m[i].member))
			continue;
		/* the copy for the member that had no room last time is still stamped: no second seal */
		if (!again || hdr->dst != t->m[i].member) {
			lc_stamp_apply(hdr, &t->m[i]);
			lc_pc_seal(hdr);
		}
		again = 0;
		if (lc_nic_mcast_put(nic, hdr, t->m[i].member) == LC_RETRY)
			return LC_RETRY;
	}
	return (lc_verdict)lc_nic_mcast_done(nic);
#elif LC_MULTICAST_MODE_NIC
	/* no per-member field: the MCP reads the members from the group table */
	uint32_t gid = 0;

	if (!(hdr->flags & LC_FF_GROUP)) {
		if (hdr->dst < LC_MAX_NODES)
			return LC_CONTINUE;
		gid = hdr->dst - LC_MAX_NODES;
		hdr->flags |= LC_FF_GROUP;
	}
	/* a frame asked again (LC_RETRY) is already marked: the MCP kept its group */
	return (lc_verdict)lc_nic_mcast_tx(nic, hdr, gid);
#else
	(void)nic;
	(void)hdr;
	return LC_CONTINUE;
#endif
}

#endif /* LC_MULTICAST_NIC_HOOKS_H */
