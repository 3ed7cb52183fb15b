/* SPDX-License-Identifier: MIT */
/* multicast protocol, NIC side: the sender's MCP replicates group frames to every member (nic mode). */
#ifndef LC_MULTICAST_NIC_HOOKS_H
#define LC_MULTICAST_NIC_HOOKS_H

/*
 * Pointcut nic_tx (nic mode only; in host mode it compiles to LC_CONTINUE).
 * A frame whose dst is a group (>= LC_MAX_NODES, see LC_NIC_GROUP_DST) is
 * marked LC_FF_GROUP the first time the MCP looks at it; lc_nic_mcast_tx (nic/mcast.c) then copies it to every member but
 * its source and answers LC_CONSUMED, or LC_RETRY while a member's Receive
 * Ring is full (Net-Send asks again; members served keep their copy).
 *
 * Why replication at nic_tx (a flat tree) and not forwarding at nic_rx (a
 * spanning tree): with the MCP stepped inline by each host's progress calls
 * (the default on two cores), a tree puts every inner member's host on the
 * path of its children, and a forwarding NIC that finds a child's ring full
 * must hold its own Receive Ring (deadlock-prone between groups).  At
 * nic_tx only the sender's Send Ring waits, and each copy costs the sender's
 * MCP one memcpy into the member's ring instead of a host frame post.
 */
#include <stdint.h>

#include "lc_config.h"
#include "lc_frame_hdr.h"
#include "lc_verdict.h"
#include "nic.h"

static inline lc_verdict lc_multicast_nic_tx(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
#if LC_MULTICAST_MODE_NIC
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
