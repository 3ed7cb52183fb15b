/* SPDX-License-Identifier: MIT */
/* The NIC's counters: the one list, shared by nic/ and the public lc_stats(). */
#ifndef LC_NIC_STATS_H
#define LC_NIC_STATS_H

/* Columns: name, one line of meaning. */
#define LC_NIC_STAT_LIST(X)                                                   \
	X(doorbells,        "doorbell writes served from the Tx FIFO")        \
	X(db_refused,       "doorbell writes naming another endpoint's page, not served")\
	X(dma_blocks_c0,    "DMA control blocks done on chain 0 (Rx)")        \
	X(dma_blocks_c1,    "DMA control blocks done on chain 1 (Tx)")        \
	X(dma_blocks_c2,    "DMA control blocks done on chain 2")             \
	X(dma_blocks_c3,    "DMA control blocks done on chain 3")             \
	X(dma_preempt,      "DMA switches to a higher-priority chain")        \
	X(dma_signals,      "DMA completion signals raised")                  \
	X(net_tx_frames,    "frames injected by Net-Send")                    \
	X(net_tx_bytes,     "bytes injected by Net-Send (headers included)")  \
	X(net_pull_frames,  "frames of another NIC's Send Ring moved into this Receive Ring by this Net-Send")\
	X(net_pull_bytes,   "bytes of those frames (headers included)")       \
	X(net_rx_frames,    "frames taken off the network by Net-Recv")       \
	X(bp_stalls,        "Net-Send stalls on link backpressure")           \
	X(bp_drops,         "frames dropped at the backpressure time limit")  \
	X(nic_drops_bad,    "corrupt or foreign frames dropped by the MCP")   \
	X(nic_drops_proto,  "frames dropped by a protocol's NIC verdict")     \
	X(staging_hwm,      "host staging slots in use, high-water mark")     \
	X(rx_fifo_full,     "times Net-Recv waited on a full Rx FIFO/staging")\
	X(dead_drops,       "frames dropped because their destination is dead")\
	X(mcast_frames,     "group frames replicated to their members by the MCP")\
	X(send_dma_overlap, "Net-Send frames moved while a DMA block was copied on another thread")\
	X(recv_dma_overlap, "Net-Recv frames taken while a DMA block was copied on another thread")\
	X(dma_to_nic_bytes, "bytes the DMA engine copied host -> SRAM")      \
	X(dma_to_host_bytes, "bytes the DMA engine copied SRAM -> host")     \
	X(tx_crc_frames,    "frames whose CRC the Tx DMA computed as it copied them (lc_nic_tx_post_dma_crc)")\
	X(rx_crc_frames,    "frames whose CRC the Rx DMA computed as it copied them (asked by a nic_rx hook)")\
	X(rdma_frames,      "RDMA frames whose payload went straight to registered memory")\
	X(rdma_bytes,       "payload bytes of those frames")                  \
	X(rdma_denied,      "RDMA frames refused (handle, owner, rights, tag or bounds): nothing written")\
	X(rdma_stale,       "of those, frames of a handle's other generation (late copies of a finished transfer)")

#endif /* LC_NIC_STATS_H */
