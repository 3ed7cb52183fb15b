/* SPDX-License-Identifier: MIT */
/* reliability protocol, seal: the CRC of a frame changed after send_frame (a stamped copy). */
#ifndef LC_RELIABILITY_NIC_HOOKS_H
#define LC_RELIABILITY_NIC_HOOKS_H

/*
 * Pointcut seal (framework/pointcuts.lua): each member's copy of a
 * replicated frame carries its own seq and ack (stamped by the MCP from the
 * table send_frame filled, lc_coop.h), so its CRC is computed per copy, over
 * the copy as it goes out; the same for a kept copy of one that is sent
 * again (reliability.c).  The payload follows the header.
 */
#include "reliability/hooks.h"

static inline void lc_reliability_seal(struct lc_frame_hdr *hdr)
{
	hdr->reliability_crc = lc_reliability_crc(hdr, hdr + 1);
}

/*
 * Pointcut nic_rx: an RDMA frame (LC_FT_RDMA) is checked here, in Net-Recv,
 * before its NIC writes its payload into registered memory: a damaged
 * offset or handle must write nothing anywhere (the frame counts as lost and
 * is sent again); recv_frame then finds it checked.  Another frame the Rx
 * DMA's CRC pays for (lc_proto_rx_crc_pays): the engine computes its CRC as it
 * copies it into staging, from the header's (lc_nic_rx_crc_ask), and
 * recv_frame compares.
 * Both out of line (_slow, cold: gcc does not inline it): inline, their CRC
 * code made gcc call the whole hook for every frame, a small one too.
 */
static inline __attribute__((cold)) lc_verdict
lc_reliability_nic_rx_slow(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
	if (hdr->type != LC_FT_RDMA) {
		lc_nic_rx_crc_ask(nic, LC_REL_CRC_OWNER, lc_reliability_crc_hdr(hdr));
		return LC_CONTINUE;
	}
	return hdr->len <= LC_MTU && lc_reliability_crc(hdr, hdr + 1) == hdr->reliability_crc ?
	       LC_CONTINUE : LC_DROP;
}

static inline lc_verdict lc_reliability_nic_rx(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
	if (__builtin_expect(hdr->type != LC_FT_RDMA && !lc_proto_rx_crc_pays(hdr), 1))
		return LC_CONTINUE;
	return lc_reliability_nic_rx_slow(nic, hdr);
}

#endif /* LC_RELIABILITY_NIC_HOOKS_H */
