/* SPDX-License-Identifier: MIT */
/* checksum protocol, seal: the CRC of a frame changed after send_frame (a stamped copy). */
#ifndef LC_CHECKSUM_NIC_HOOKS_H
#define LC_CHECKSUM_NIC_HOOKS_H

/*
 * Pointcut seal (framework/pointcuts.lua): the MCP stamps each member's copy
 * of a replicated frame with its own field values (lc_coop.h) and calls seal;
 * the CRC is computed over the copy as it goes out, like send_frame's on the
 * host.  The payload follows the header (a Send Ring slot, a kept copy).
 */
#include "checksum/hooks.h"

static inline void lc_checksum_seal(struct lc_frame_hdr *hdr)
{
	hdr->checksum_crc = lc_checksum_frame_crc(hdr, hdr + 1);
}

/*
 * Pointcut nic_rx: an RDMA frame (LC_FT_RDMA) is checked here, in Net-Recv,
 * before its NIC writes its payload into registered memory -- a damaged
 * offset or handle must write nothing anywhere; recv_frame then finds it
 * checked.  Other frames are checked on the host; a covered payload the Rx
 * DMA's CRC pays for (lc_proto_rx_crc_pays) by the CRC the engine computes as
 * it copies it into staging, from the header's (lc_nic_rx_crc_ask).
 * Both out of line (_slow, cold: gcc does not inline it): inline, their CRC
 * code made gcc call the whole hook for every frame, a small one too.
 */
static inline __attribute__((cold)) lc_verdict
lc_checksum_nic_rx_slow(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
	if (hdr->type != LC_FT_RDMA) {
		lc_nic_rx_crc_ask(nic, LC_CHECKSUM_CRC_OWNER, lc_checksum_crc_hdr(hdr));
		return LC_CONTINUE;
	}
	return hdr->len <= LC_MTU && lc_checksum_frame_crc(hdr, hdr + 1) == hdr->checksum_crc ?
	       LC_CONTINUE : LC_DROP;
}

static inline lc_verdict lc_checksum_nic_rx(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
	if (__builtin_expect(hdr->type != LC_FT_RDMA && !lc_checksum_rx_crc_by_dma(hdr), 1))
		return LC_CONTINUE;
	return lc_checksum_nic_rx_slow(nic, hdr);
}

#endif /* LC_CHECKSUM_NIC_HOOKS_H */
