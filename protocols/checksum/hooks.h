/* SPDX-License-Identifier: MIT */
/* checksum protocol: CRC32C over each frame, checked on receive; a bad frame is dropped. */
#ifndef LC_CHECKSUM_HOOKS_H
#define LC_CHECKSUM_HOOKS_H

/*
 * Parameters (configs: checksum = { cover = ... }, see docs/config-reference.md):
 *   cover  "header": the CRC covers the frame header only (crc field taken as 0);
 *          "frame":  header and the frame's payload (hdr->len bytes).
 *          Seen here as LC_CHECKSUM_COVER_FRAME (0/1).
 * Header field: checksum_crc (uint32_t), the CRC32C computed by the sender.
 * Pointcuts:
 *   send_frame  computes the CRC once the header is filled and stores it; a
 *               covered payload that goes by Tx DMA has it computed by that
 *               DMA as it copies the payload (LC_CHECKSUM_TX_CRC);
 *   recv_frame  recomputes it; on a mismatch (or a length above LC_MTU, which
 *               could not be read safely) counts node->proto.checksum.bad and
 *               returns LC_DROP, so the pipeline discards the frame;
 *   seal        (nic_hooks.h) the same CRC over a frame whose payload follows
 *               its header: each stamped copy of a replicated frame.
 *   nic_rx      (nic_hooks.h) checks an RDMA frame before its NIC places it;
 *               asks the Rx DMA for the CRC of a covered frame of a longer
 *               message (lc_proto_rx_crc_pays), which recv_frame then compares.
 * The CRC is computed with the crc field as 0 over the header's bytes as they
 * are in memory (padding included): the receiver sees the same bytes.  Every
 * header field a protocol sets after this hook would be outside the CRC, so
 * checksum must run after the protocols that write header fields on send.
 * The CRC code itself is shared (framework/lc_crc32c.h): SSE4.2 crc32
 * instructions when the CPU has them (inline up to LC_CRC32C_INLINE_MAX
 * bytes), a table otherwise.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "lc_crc32c.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#ifndef LC_CHECKSUM_COVER_FRAME
#error "lc_config.h does not define LC_CHECKSUM_COVER_FRAME: checksum needs its cover parameter"
#endif

/* The header bytes the CRC takes as 0: its own field, and those of the protocols that seal after us. */
#define LC_CHECKSUM_CRC_ZERO                                                                        \
	(LC_CRC32C_ZERO_BYTES(offsetof(struct lc_frame_hdr, checksum_crc),                          \
			      sizeof(((struct lc_frame_hdr *)0)->checksum_crc)) |                   \
	 LC_HDR_SEALED_AFTER_CHECKSUM)
_Static_assert(sizeof(struct lc_frame_hdr) <= 64, "the CRC's byte mask covers the header");

/* The header's part of the CRC: the seed of the payload's. */
__attribute__((always_inline)) static inline uint32_t lc_checksum_crc_hdr(const struct lc_frame_hdr *hdr)
{
	return lc_crc32c_inline_frame(hdr, sizeof(*hdr), LC_CHECKSUM_CRC_ZERO, NULL, 0);
}

/*
 * CRC of a frame: header with checksum_crc taken as 0, then the payload when
 * covered.  The header inline, each word masked in place of a copy
 * (lc_crc32c_inline_frame), a payload of up to LC_CRC32C_INLINE_MAX bytes
 * inline too, a longer one by the three-chain loop (lc_crc32c): no call on a
 * small message.
 */
__attribute__((always_inline)) static inline uint32_t lc_checksum_frame_crc(const struct lc_frame_hdr *hdr,
									   const void *payload)
{
	uint32_t crc = lc_checksum_crc_hdr(hdr);
#if LC_CHECKSUM_COVER_FRAME
	uint32_t len = hdr->len;

	if (len)
		crc = lc_crc32c_inline(crc, payload, len);
#else
	(void)payload;
#endif
	return crc;
}

/*
 * The receiver's check of a covered payload the Rx DMA's CRC pays for
 * (lc_proto_rx_crc_pays) rides that copy (lc_nic_rx_crc_ask from nic_rx,
 * nic_hooks.h): the header's CRC is the engine's seed.  Owner: this
 * protocol's CRC field, by its offset.
 */
#define LC_CHECKSUM_CRC_OWNER ((uint32_t)offsetof(struct lc_frame_hdr, checksum_crc))

/*
 * The sender's CRC of a covered payload that goes by Tx DMA rides that copy
 * into the Send Ring (lc_proto_tx_crc_ask), unless a protocol that seals
 * after this one covers our field with its own.
 */
#define LC_CHECKSUM_TX_CRC (LC_CHECKSUM_COVER_FRAME && LC_PC_TX_CRC && LC_HDR_SEALED_AFTER_CHECKSUM == 0)

static inline int lc_checksum_rx_crc_by_dma(const struct lc_frame_hdr *hdr)
{
	return LC_CHECKSUM_COVER_FRAME && lc_proto_rx_crc_pays(hdr);
}


/* Whether a received frame's CRC matches: the NIC's when it computed it, else computed here. */
static inline int lc_checksum_crc_ok(const struct lc_node *node, const struct lc_frame_hdr *hdr, const void *payload)
{
	uint32_t crc;

	if (!lc_checksum_rx_crc_by_dma(hdr) || !lc_proto_rx_crc(node, hdr, LC_CHECKSUM_CRC_OWNER, &crc))
		crc = lc_checksum_frame_crc(hdr, payload);
	return crc == hdr->checksum_crc;
}

static inline lc_verdict lc_checksum_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						const void *payload)
{
#if LC_CHECKSUM_TX_CRC
	if (lc_proto_tx_crc_pays(hdr) && lc_proto_tx_crc_ask(node, LC_CHECKSUM_CRC_OWNER, lc_checksum_crc_hdr(hdr))) {
		hdr->checksum_crc = 0;
		return LC_CONTINUE;
	}
#else
	(void)node;
#endif
	hdr->checksum_crc = lc_checksum_frame_crc(hdr, payload);
	return LC_CONTINUE;
}

static inline lc_verdict lc_checksum_recv_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						void *payload)
{
	/* an RDMA frame was checked by its NIC before its payload was placed (nic_hooks.h) */
	if (hdr->type == LC_FT_RDMA)
		return LC_CONTINUE;
	if (hdr->len > LC_MTU || !lc_checksum_crc_ok(node, hdr, payload)) {
		node->proto.checksum.bad++;
		return LC_DROP;
	}
	return LC_CONTINUE;
}

#endif /* LC_CHECKSUM_HOOKS_H */
