/* SPDX-License-Identifier: MIT */
/* The NIC geometry of this build, from the generated constants of lc_config.h. */
#include "geom.h"

#include "comm.h"
#include "lc_config.h"
#include "lc_frame_hdr.h"

int lc_geom_from_config(struct lc_nic_geom *g, uint32_t nodes)
{
	if (!g)
		return LC_ERR_INVAL;
	if (nodes < 1 || nodes > LC_MAX_NODES)
		return LC_ERR_RANGE;
	*g = (struct lc_nic_geom){
		.nodes = nodes,
		.sram_bytes = LC_NIC_SRAM_BYTES,
		.slot_bytes = LC_NIC_SLOT_BYTES,
		.hdr_bytes = LC_FRAME_HDR_BYTES,
		.mtu = LC_MTU,
		.send_ring = LC_NIC_SEND_RING,
		.recv_ring = LC_NIC_RECV_RING,
		.tx_dma = LC_NIC_TX_DMA,
		.rx_dma = LC_NIC_RX_DMA,
		.tx_fifo = LC_NIC_TX_FIFO,
		.rx_fifo = LC_NIC_RX_FIFO,
		.off_ctrl = LC_NIC_OFF_CTRL,
		.off_send_ring = LC_NIC_OFF_SEND_RING,
		.off_recv_ring = LC_NIC_OFF_RECV_RING,
		.off_tx_dma = LC_NIC_OFF_TX_DMA,
		.off_rx_dma = LC_NIC_OFF_RX_DMA,
		.off_tx_fifo = LC_NIC_OFF_TX_FIFO,
		.off_rx_fifo = LC_NIC_OFF_RX_FIFO,
		.off_recv_len = LC_NIC_OFF_RECV_LEN,
		.off_mc_stamp = LC_NIC_OFF_MC_STAMP,
		.staging_slots = LC_HOST_STAGING_SLOTS,
		.switch_ports = LC_NET_SWITCH_PORTS,
		.backpressure_timeout_ns = (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000u,
		.fingerprint = LC_CONFIG_FINGERPRINT,
		.mcp_thread = LC_NIC_MCP_THREAD,
#if LC_PROTO_MULTICAST
		/* the group table in the job segment (nic/mcast.c); one entry per group id */
		.groups = LC_MULTICAST_MAX_GROUPS,
#endif
	};
	return 0;
}
