/* SPDX-License-Identifier: MIT */
/* multicast nic mode: the per-member stamp table a group frame carries in NIC SRAM. */
#ifndef LC_MULTICAST_STAMP_H
#define LC_MULTICAST_STAMP_H

/*
 * LC_MC_NIC (0/1): multicast is composed in nic mode together with a protocol
 * whose header fields differ per member (checksum, reliability, flow_control;
 * gen/model.lua PER_MEMBER): group frames carry stamp tables.  Those
 * protocols test it to handle group frames (dst = LC_NIC_GROUP_DST(gid)) per
 * member.  nic mode alone needs no table: the MCP takes the members from the
 * group table and only sets dst (nic/mcast.c lc_nic_mcast_tx).
 *
 * THE STAMP TABLE.  A group frame leaves the host once, but each member's
 * copy must carry fields only the host knows per member: dst, reliability's
 * sequence number and piggybacked ack for (root, member), flow control's
 * credit count for the member.  So with each group frame the host fills a
 * table in NIC SRAM (one per Send Ring slot, nic.h lc_nic_tx_stamp; the
 * generator sizes the area from multicast.max_members and checks the SRAM
 * budget): send_frame writes it, in reverse composition order -- multicast
 * names the members (its hook runs first), flow_control stamps each
 * member's credit, reliability each member's seq and ack; a RETRY by any of
 * them leaves the table to be written again.  At nic_tx the MCP copies the
 * frame to each member with these fields stamped and computes the copy's
 * CRCs (reliability_crc, then checksum_crc), the work a LANai's CRC hardware
 * does on the way out (multicast/nic_hooks.h).
 */
#include <stdint.h>

#include "lc_config.h"

#if LC_MULTICAST_MODE_NIC && (LC_PROTO_CHECKSUM || LC_PROTO_RELIABILITY || LC_PROTO_FLOW_CONTROL)
#define LC_MC_NIC 1

struct lc_mc_stamp {
	uint16_t member;    /* node that gets this copy (dst) */
	uint16_t credit;    /* its flow_control_credit (flow_control) */
	uint32_t seq;       /* its reliability_seq (reliability) */
	uint32_t ack;       /* its reliability_ack (reliability) */
	uint32_t pad;
};

struct lc_mc_stamps {
	uint32_t n;         /* members in m[], in increasing node order */
	uint32_t pad[3];
	struct lc_mc_stamp m[LC_MULTICAST_MAX_MEMBERS];
};

_Static_assert(sizeof(struct lc_mc_stamp) == 16, "gen/model.lua: MC_STAMP_MEMBER_BYTES");
_Static_assert(sizeof(struct lc_mc_stamps) == LC_NIC_MC_STAMP_BYTES,
	       "the stamp table is the size the generator gave its SRAM area");
#else
#define LC_MC_NIC 0
#endif

#endif /* LC_MULTICAST_STAMP_H */
