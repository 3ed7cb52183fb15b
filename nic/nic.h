/* SPDX-License-Identifier: MIT */
/* The emulated LANai NIC as the host (framework/) sees it: attach, rings, doorbell, MCP. */
#ifndef LC_NIC_H
#define LC_NIC_H

/*
 * This header is the contract between framework/ and nic/.  nic/ knows the
 * generated frame header (lc_frame_hdr.h) and the NIC-side composite
 * (lc_composite_nic.h), never framework/ or a protocol.
 *
 * Geometry is a runtime struct so that unit tests can build tiny NICs; the
 * framework fills it from the generated constants (lc_config.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "lc_nic_stats.h"

#define LC_MAX_NODES 256
#define LC_DMA_CHAINS 4         /* chain 0 = Rx (highest priority), 1 = Tx, 2..3 spare */
#define LC_SEG_LAYOUT_VERSION 13

enum lc_nic_stat {
#define LC_X_ENUM(name, ...) LC_NIC_STAT_##name,
	LC_NIC_STAT_LIST(LC_X_ENUM)
#undef LC_X_ENUM
	LC_NIC_STAT_COUNT
};

/* Per-node host-side counter area in the segment (framework's counters live here). */
#define LC_HOST_STATS_MAX 64

/*
 * The NIC geometry, one row per field of struct lc_nic_geom (the struct, the
 * segment's agreement check in nic/seg.c and the build's values in
 * framework/geom.c all expand this list).  Columns: C type, name, the value
 * for this build (lc_config.h names, expanded only in framework/geom.c;
 * `nodes` is the job size argument there), 1 when every process of a job
 * must agree on it (the segment records it) or 0 when it is per process, and
 * what it means.
 */
#define LC_GEOM_LIST(X)                                                                            \
	X(uint32_t, nodes, nodes, 1, "job size, 1 .. LC_MAX_NODES")                                \
	X(uint32_t, per_nic, 1, 1,                                                                  \
	  "endpoints (virtual interfaces, one process each) per NIC, 1 .. nodes: commrun --per-node") \
	X(uint32_t, sram_bytes, LC_NIC_SRAM_BYTES, 1, "NIC SRAM size")                             \
	X(uint32_t, slot_bytes, LC_NIC_SLOT_BYTES, 1,                                               \
	  "one Send/Receive Ring or staging slot (header + mtu), multiple of 64")                   \
	X(uint32_t, hdr_bytes, LC_FRAME_HDR_BYTES, 1, "sizeof(struct lc_frame_hdr)")              \
	X(uint32_t, mtu, LC_MTU, 1, "largest frame payload")                                        \
	X(uint32_t, send_ring, LC_NIC_SEND_RING, 1, "Send Ring slots (power of two)")             \
	X(uint32_t, recv_ring, LC_NIC_RECV_RING, 1, "Receive Ring slots (power of two)")          \
	X(uint32_t, tx_dma, LC_NIC_TX_DMA, 1, "Tx DMA chain blocks (power of two)")               \
	X(uint32_t, rx_dma, LC_NIC_RX_DMA, 1, "Rx DMA chain blocks (power of two)")               \
	X(uint32_t, tx_fifo, LC_NIC_TX_FIFO, 1, "doorbell FIFO entries (power of two)")           \
	X(uint32_t, rx_fifo, LC_NIC_RX_FIFO, 1, "Rx FIFO entries (power of two)")                 \
	X(uint32_t, off_ctrl, LC_NIC_OFF_CTRL, 1, "SRAM offset: control block")                   \
	X(uint32_t, off_send_ring, LC_NIC_OFF_SEND_RING, 1, "SRAM offset: Send Ring")             \
	X(uint32_t, off_recv_ring, LC_NIC_OFF_RECV_RING, 1, "SRAM offset: Receive Ring")          \
	X(uint32_t, off_tx_dma, LC_NIC_OFF_TX_DMA, 1, "SRAM offset: Tx DMA chain")                \
	X(uint32_t, off_rx_dma, LC_NIC_OFF_RX_DMA, 1, "SRAM offset: Rx DMA chain")                \
	X(uint32_t, off_tx_fifo, LC_NIC_OFF_TX_FIFO, 1,                                             \
	  "SRAM offset: the doorbell region (whole pages: FIFO indices, doorbell FIFO)")           \
	X(uint32_t, db_bytes, LC_NIC_DOORBELL_BYTES, 1, "bytes of the doorbell region (pages)")   \
	X(uint32_t, off_rx_fifo, LC_NIC_OFF_RX_FIFO, 1, "SRAM offset: Rx FIFO")                   \
	X(uint32_t, reg_entries, LC_NIC_REG_ENTRIES, 1, "memory registration table entries (0: none)") \
	X(uint32_t, off_reg, LC_NIC_OFF_REG, 1, "SRAM offset: memory registration table")         \
	X(uint32_t, recv_word_bytes, LC_NIC_RECV_WORD_BYTES, 1,                                     \
	  "a Receive Ring slot's publication word, before its frame (nic_impl.h)")                 \
	X(uint32_t, off_stamp, LC_NIC_OFF_STAMP, 1,                                                 \
	  "SRAM offset: send_ring stamp tables of replicated frames, 0: none (lc_nic_tx_stamp)")     \
	X(uint32_t, staging_slots, LC_HOST_STAGING_SLOTS, 1,                                        \
	  "host staging buffer: slots of slot_bytes, power of two")                                 \
	X(uint32_t, switch_ports, LC_NET_SWITCH_PORTS, 1, "ports of one crossbar switch")         \
	X(uint64_t, backpressure_timeout_ns, (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000u, 1,       \
	  "the backpressure time limit (a frame at a stopped node's full Receive Ring)")            \
	X(uint64_t, fingerprint, LC_CONFIG_FINGERPRINT, 1, "of the resolved config")              \
	X(uint16_t, mcp_thread, LC_NIC_MCP_THREAD, 0, "0: MCP stepped inline by lc_nic_step(); 1: own thread") \
	X(uint16_t, pull, LC_NIC_LINK_ENGINE_EITHER, 0,                                            \
	  "1: a receiving NIC may pull this one's DMA frames across the link (nic.link_engine)")    \
	X(uint32_t, groups, LC_NIC_GROUP_ENTRIES, 1,                                                \
	  "group table entries in the segment (0: none)")                                           \
	X(uint32_t, link_mbps, LC_NET_LINK_MBPS, 1,                                                 \
	  "timed network: every link's bandwidth in Mb/s (0: frames take no time on a link)")       \
	X(uint32_t, hop_ns, LC_NET_HOP_NS, 1,                                                       \
	  "timed network: a frame head's time through one switch and its cable, ns")

struct lc_nic_geom {
#define LC_X_FIELD(type, name, ...) type name;
	LC_GEOM_LIST(LC_X_FIELD)
#undef LC_X_FIELD
};

/*
 * Nodes and NICs.  A job's nodes are its endpoints -- virtual interfaces, each
 * owned by one process -- and per_nic consecutive nodes share one NIC: its
 * link and switch port, its memory registration table (nic/rdma.c).  Each
 * endpoint has its own rings, DMA chains, staging and doorbell region; the
 * doorbell region is mapped only into its owner (every other process of the
 * job maps those pages without access), so the MCP serves each endpoint what
 * its own process posted.  per_nic 1 (the default) is one process per NIC.
 */
static inline uint32_t lc_geom_nics(const struct lc_nic_geom *g)
{
	return (g->nodes + g->per_nic - 1) / g->per_nic;
}

/* The NIC that node (an endpoint) is on. */
static inline uint32_t lc_geom_nic_of(const struct lc_nic_geom *g, uint32_t node)
{
	return node / g->per_nic;
}

struct lc_nic;                  /* one per node process; defined in nic/nic_impl.h */
struct lc_frame_hdr;

/* ---- job segment (used by the launcher) ---- */

/* Create the job segment /dev/shm/<name> (mode 0600) for g->nodes nodes. 0 or negative lc_err. */
int lc_seg_create(const char *name, const struct lc_nic_geom *g, char *err, size_t errlen);
/* Mark node dead (it crashed or was killed): its peers' pending operations fail. */
void lc_seg_mark_dead(const char *name, uint32_t node);
/*
 * node's process exited with status 0: mark it dead unless it detached
 * (lc_close: LC_NODE_EXITED).  A process that exits with its node open (or
 * never opened it) serves nobody any more; its peers must not wait for it.
 * 1 when it was marked, 0 when it had detached.
 */
int lc_seg_mark_gone(const char *name, uint32_t node);
/*
 * Mark node's process stopped (1, e.g. SIGSTOP) or running again (0).  A
 * live destination's full Receive Ring only delays its senders; the
 * backpressure time limit runs only while the destination is stopped.
 */
void lc_seg_mark_stopped(const char *name, uint32_t node, int stopped);
/* Read the counters of a node after the job (launcher --stats). 0 or negative lc_err. */
int lc_seg_read_stats(const char *name, uint32_t node, uint64_t nic[LC_NIC_STAT_COUNT],
		      uint64_t host[LC_HOST_STATS_MAX]);
/*
 * The job's traffic matrix, row node (after the job: launcher --stats): what
 * node's Net-Send put on the link to each destination d, out[d * LC_TRAFFIC_COUNT
 * + k], for k in LC_TRAFFIC_LIST; *nodes the job's nodes.  Every frame that
 * left for d is counted (group copies each to its member), also one the fault
 * injector then drops.  0, LC_ERR_RANGE (cap too small) or negative lc_err.
 */
#define LC_TRAFFIC_LIST(X)                                              \
	X(msgs,   "messages: first frames of data messages")                \
	X(frames, "frames of every type")                                   \
	X(bytes,  "frame bytes, headers included")
enum lc_traffic {
#define LC_X_ENUM(name, ...) LC_TRAFFIC_##name,
	LC_TRAFFIC_LIST(LC_X_ENUM)
#undef LC_X_ENUM
	LC_TRAFFIC_COUNT
};
int lc_seg_read_traffic(const char *name, uint32_t node, uint64_t *out, size_t cap, uint32_t *nodes);
/*
 * The sizes of the messages node sent, kept with the traffic matrix (the
 * input of a job's profile: tools/costmodel/advise.py): out[b * 2] messages
 * and out[b * 2 + 1] their bytes (msg_len of each first frame) in bucket b =
 * lc_size_bucket(len): 0 for 0 bytes, then b for 2^(b-2) < len <= 2^(b-1)
 * (1: 1 byte, 2: 2 bytes, 3: 3-4 ...).  0 or negative lc_err.
 */
#define LC_SIZE_BUCKETS 34
static inline uint32_t lc_size_bucket(uint32_t len)
{
	return len <= 1 ? len : 33u - (uint32_t)__builtin_clz(len - 1);
}
int lc_seg_read_sizes(const char *name, uint32_t node, uint64_t out[LC_SIZE_BUCKETS * 2]);
/*
 * Have the nodes of the job keep the traffic matrix (before they attach;
 * commrun --stats).  Without it a frame costs Net-Send one test, and the
 * matrix reads all zero.  0 or negative lc_err.
 */
int lc_seg_record_traffic(const char *name);

/*
 * The switch output ports' counters after the job (launcher --stats): port
 * gport = switch * switch_ports + port, in out[0 .. *n - 1] (at most max);
 * *g the job's geometry (lc_net_switches, lc_geom_nics name what each port
 * leads to).  0 or negative lc_err.
 */
struct lc_seg_port {
	uint64_t frames;    /* frames that crossed the port (one per hop of a route) */
	uint64_t bytes;     /* their bytes, headers included */
	uint64_t stalls;    /* times a sender found it held (wormhole contention) */
	uint64_t wait_ns;   /* timed network: ns heads of frames waited for the port's link */
	uint64_t busy_ns;   /* timed network: ns the link carried frames (their wire time) */
};
int lc_seg_read_ports(const char *name, struct lc_nic_geom *g, struct lc_seg_port *out, uint32_t max,
		      uint32_t *n, uint16_t place[LC_MAX_NODES]);

/* ---- network topology and placement (nic/net.c) ---- */

/*
 * Topology over the job's NICs: with NICs <= switch_ports one crossbar, else
 * two levels -- leaf switches of switch_ports - 1 NIC slots and an uplink
 * each, and a root (nic/net.c).  A placement says which slot each NIC is
 * plugged into: place[nic] (a permutation of 0 .. NICs - 1; NULL: NIC i in
 * slot i).  The job's placement is in its segment (lc_seg_set_place, commrun
 * --map) and every route of the job follows it.
 */
#define LC_NET_MAX_HOPS 3

/* A source route: the output port taken at each hop. */
struct lc_route {
	uint32_t hops;
	uint32_t port[LC_NET_MAX_HOPS];    /* output port number on that hop's switch */
	uint32_t gport[LC_NET_MAX_HOPS];   /* global port id (switch * switch_ports + port) */
};

/* Switches and output ports of the network for g (0 = too many nodes). */
uint32_t lc_net_switches(const struct lc_nic_geom *g);
uint32_t lc_net_ports(const struct lc_nic_geom *g);
/* Source route from node src to node dst under placement place (NULL: none). 0 or LC_ERR_RANGE. */
int lc_net_route(const struct lc_nic_geom *g, const uint16_t *place, uint32_t src, uint32_t dst,
		 struct lc_route *r);
/* place[0 .. NICs - 1] is a permutation of the slots: 0, or LC_ERR_INVAL with the reason in err. */
int lc_net_place_check(const struct lc_nic_geom *g, const uint16_t *place, char *err, size_t errlen);
/*
 * Apply a run-time network spec ("switch_ports=4,link_mbps=100,hop_ns=20000", any
 * of the keys; commrun --network, LC_NETWORK in each node) to g: 0, or a negative
 * lc_err with the reason in err and g unchanged (an unknown key, a value out of
 * range, link_mbps or hop_ns in an untimed build, NICs that do not fit).
 */
int lc_net_override(struct lc_nic_geom *g, const char *spec, char *err, size_t errlen);
/* Set the job's placement before its nodes attach (commrun --map).  0 or negative lc_err. */
int lc_seg_set_place(const char *name, const uint16_t *place);
int lc_seg_unlink(const char *name);

/* ---- node side ---- */

/*
 * Map the job segment and attach as node `node`.  Refuses (LC_ERR_CONFIG,
 * message in err) a segment of another layout version, config fingerprint or
 * geometry.  Starts the MCP thread when g->mcp_thread.
 */
struct lc_nic *lc_nic_attach(const char *name, uint32_t node, const struct lc_nic_geom *g,
			     char *err, size_t errlen, int *rc);
/* Stop the MCP, mark this node exited (cleanly), unmap. */
void lc_nic_detach(struct lc_nic *nic);

uint32_t lc_nic_node(const struct lc_nic *nic);
uint32_t lc_nic_nodes(const struct lc_nic *nic);
/* 1 while peer is attached and alive (or not attached yet); 0 once it died or detached. */
int lc_nic_peer_alive(const struct lc_nic *nic, uint32_t peer);
/* 1 while peer's process is stopped (the launcher saw it stop and not continue yet). */
int lc_nic_peer_stopped(const struct lc_nic *nic, uint32_t peer);
/* 1 once peer detached cleanly (lc_close), not crashed or killed. */
int lc_nic_peer_exited(const struct lc_nic *nic, uint32_t peer);
/* Frames to peer that the MCP dropped at the backpressure limit or because peer is dead (free-running). */
uint32_t lc_nic_dst_drops(const struct lc_nic *nic, uint32_t peer);
/*
 * The same counters, one per node of the job (lc_nic_nodes), for a reader
 * that checks one after every send: read each with an acquire load (it pairs
 * with Net-Send's release); never written by the caller.
 */
const _Atomic uint32_t *lc_nic_dst_drop_counts(const struct lc_nic *nic);
/* This node's counters (NIC part, and the host area the framework writes). */
_Atomic uint64_t *lc_nic_stats(struct lc_nic *nic);
_Atomic uint64_t *lc_nic_host_stats(struct lc_nic *nic);

/* ---- transmit: host side of the Send Ring, Tx DMA chain and doorbell ---- */

/*
 * Next free Send Ring slot (header then payload), or NULL when the Send
 * Ring, Tx DMA chain or Tx FIFO has no room (backpressure reaches the host).
 */
void *lc_nic_tx_slot(struct lc_nic *nic);
/* The frame is complete in the slot (PIO): ring the doorbell. */
void lc_nic_tx_post_pio(struct lc_nic *nic);
/*
 * The header is in the slot; the payload (len bytes at host address src) is
 * moved by a Tx DMA control block; ring the doorbell.  Returns the block's
 * ticket: the frame's source buffer may be reused once
 * lc_nic_tx_dma_done(nic) - ticket < 2^31 (i.e. done >= ticket).
 */
uint32_t lc_nic_tx_post_dma(struct lc_nic *nic, const void *src, uint32_t len);
/*
 * The same, and the Tx DMA computes the CRC32C of the payload as it copies it
 * into the slot (LC_DMA_CRC): continued from seed (the CRC of what precedes
 * the payload, lc_crc32c's conventions), stored in the slot's header as 4
 * bytes at offset owner (the asking protocol's CRC field) before the frame is
 * ready for Net-Send.  The sender's CRC rides the copy the Tx DMA makes
 * anyway, instead of a host pass of its own over the user's buffer.
 */
uint32_t lc_nic_tx_post_dma_crc(struct lc_nic *nic, const void *src, uint32_t len, uint32_t owner,
				uint32_t seed);
/* Tx DMA blocks completed (free-running ticket counter). */
uint32_t lc_nic_tx_dma_done(const struct lc_nic *nic);
/* 1 when the Send Ring is empty and every frame has left the NIC. */
int lc_nic_tx_idle(const struct lc_nic *nic);
/*
 * 1 while the MCP holds a frame at a destination's full Receive Ring
 * (link backpressure).  The NIC bounds that wait itself (the backpressure
 * time limit, for stopped destinations); the host's own limits on a full
 * Send Ring do not run meanwhile.
 */
int lc_nic_tx_waiting(const struct lc_nic *nic);
/* Frames that left the Send Ring, sent or dropped (free-running): the NIC's transmit progress. */
uint32_t lc_nic_tx_left(const struct lc_nic *nic);
/*
 * The transmit side in words, for the error of a send that timed out while the NIC made no
 * progress: the Send Ring's frames, what its oldest waits for (its Tx DMA, Net-Send, its
 * destination), the DMA chains' blocks.  At most len bytes, NUL-terminated.
 */
void lc_nic_tx_describe(const struct lc_nic *nic, char *buf, size_t len);

/* ---- receive: host side of the Rx FIFO and staging ---- */

/*
 * Hold (on 1) or release (on 0) the data frames of src: while held, src's
 * NIC treats this node's Receive Ring as full for them (link backpressure
 * for that source alone, bounded in time only while this node is stopped);
 * control frames still pass.  Frames already on the way arrive as usual.
 */
void lc_nic_rx_hold(struct lc_nic *nic, uint32_t src, int on);
/* The oldest frame in host staging (header then payload), or NULL. */
struct lc_frame_hdr *lc_nic_rx_peek(struct lc_nic *nic);
/* Release the frame returned by lc_nic_rx_peek (its staging slot and Rx FIFO entry). */
void lc_nic_rx_release(struct lc_nic *nic);
/*
 * A CRC the Rx DMA computes as it copies a frame into staging (LC_DMA_CRC).
 * From a nic_rx hook: ask for the CRC32C of the frame's payload continued
 * from seed (lc_crc32c's conventions: seed is the CRC of what precedes the
 * payload) on behalf of owner, a number the asking protocol owns (its CRC
 * field's offset in the header).  The first to ask for a frame is served.
 * From the host, for the frame at hdr
 * that lc_nic_rx_peek returned: 1 and *crc when the engine computed owner's
 * CRC for it, else 0 (not asked, or another owner's: compute it).
 */
void lc_nic_rx_crc_ask(struct lc_nic *nic, uint32_t owner, uint32_t seed);
int lc_nic_rx_crc(const struct lc_nic *nic, const struct lc_frame_hdr *hdr, uint32_t owner, uint32_t *crc);

/*
 * ---- groups and replication (nic/mcast.c) ----
 *
 * The group table lives in the job segment (geometry field `groups`
 * entries), so every NIC and host of the job sees each join and leave.
 * An entry is a member bitmap of LC_MAX_NODES bits and a state.  Members
 * change with atomic read-modify-writes (release); readers snapshot the
 * bitmap with acquire loads.  Group ids are 0 .. groups-1; id `groups`
 * names the whole job (LC_NIC_GROUP_WORLD(nic)), it needs no entry.
 * A frame whose dst is LC_NIC_GROUP_DST(gid) is a group frame: the MCP
 * (driven by the nic_tx hook of the protocol that declares the group table,
 * registry nic_groups) sends one copy to every member but the sender, with
 * dst = member and LC_FF_GROUP set.
 */
#define LC_NIC_GROUP_WORDS (LC_MAX_NODES / 64)
#define LC_NIC_GROUP_DST(gid) (LC_MAX_NODES + (uint32_t)(gid))
#define LC_NIC_GROUP_WORLD(nic) (lc_nic_groups(nic))

/* Entries of the group table (0 when no composed protocol declares one). */
uint32_t lc_nic_groups(const struct lc_nic *nic);
/*
 * Take a free entry and make it the group of members[0..n-1] (each < nodes,
 * duplicates allowed).  Returns 0 and *gid, LC_ERR_AGAIN (table full),
 * LC_ERR_RANGE (a member out of range) or LC_ERR_INVAL.
 */
int lc_nic_group_create(struct lc_nic *nic, const uint32_t *members, uint32_t n, uint32_t *gid);
/* The same on a segment by name, for the launcher (static groups). */
int lc_seg_group_create(const char *name, const struct lc_nic_geom *g, const uint32_t *members,
			uint32_t n, uint32_t *gid, char *err, size_t errlen);
/* Free entry gid. 0, LC_ERR_RANGE (no such group). */
int lc_nic_group_destroy(struct lc_nic *nic, uint32_t gid);
/* Add / remove node to / from group gid. 0 or LC_ERR_RANGE (no such group or node). */
int lc_nic_group_join(struct lc_nic *nic, uint32_t gid, uint32_t node);
int lc_nic_group_leave(struct lc_nic *nic, uint32_t gid, uint32_t node);
/*
 * Snapshot of the members of gid (the world group included) into
 * out[LC_NIC_GROUP_WORDS].  Returns the member count, or LC_ERR_RANGE.
 */
int lc_nic_group_members(const struct lc_nic *nic, uint32_t gid, uint64_t out[LC_NIC_GROUP_WORDS]);
/*
 * MCP: send the group frame at hdr (in the Send Ring) to every member of
 * group gid but its source.  Called by the nic_tx hook for frames with dst >= LC_MAX_NODES,
 * possibly several times for one frame: returns LC_RETRY (int) while some
 * member's Receive Ring is full, LC_CONSUMED once every member has its copy
 * (members that died, or stalled for the backpressure limit, are skipped and
 * counted as drops to them), LC_DROP for an unknown group.
 */
int lc_nic_mcast_tx(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t gid);

/*
 * ---- the job's name table (nic/names.c) ----
 *
 * LC_NAME_ENTRIES(nodes) entries in the job segment: name -> (node, port).
 * An entry counts while its node is attached (a node that detached or died
 * holds no name).  Names are NUL-terminated, shorter than LC_NAME_MAX
 * (lc_names.h); the framework checks their characters.
 */
/* Register name -> (this node, port).  0, LC_ERR_BUSY (*holder: the node holding it), LC_ERR_AGAIN (full). */
int lc_nic_name_set(struct lc_nic *nic, const char *name, uint32_t port, uint32_t *holder);
/* Find name: 0 and *node, *port (either may be NULL), or LC_ERR_AGAIN when no attached node holds it. */
int lc_nic_name_get(struct lc_nic *nic, const char *name, uint32_t *node, uint32_t *port);
/* Remove name, which this node holds.  0, or LC_ERR_INVAL (*holder: its node, UINT32_MAX: none). */
int lc_nic_name_del(struct lc_nic *nic, const char *name, uint32_t *holder);
/* Remove every name of this node (lc_nic_detach does it too). */
void lc_nic_name_drop_all(struct lc_nic *nic);

/*
 * Stamp tables (LC_STAMPED): one table of LC_NIC_STAMP_BYTES per Send Ring
 * slot, in SRAM at off_stamp.  The NIC gives the table of a slot to whoever
 * fills or reads it; its content is generated (lc_coop.h, struct lc_stamps:
 * per member, the fields the MCP writes into that member's copy).  Ordering: the host writes the table before the
 * frame's doorbell, so the doorbell's release (R2 -> A2) publishes it with
 * the frame; the table is reused only after send_tail passed the slot (R1 -> A1).
 */
/* Host: the table of the slot lc_nic_tx_slot returned last (NULL with no stamp area). */
void *lc_nic_tx_stamp(struct lc_nic *nic);
/* MCP (nic_tx): the table of the frame at send_tail (NULL with no stamp area). */
const void *lc_nic_mcast_stamp(const struct lc_nic *nic);
/*
 * MCP, replication driven by the nic_tx hook (the per-copy fields are the
 * hook's): lc_nic_mcast_start names the members of the frame at send_tail,
 * once per frame (while a frame is under way, a retried call keeps the
 * members already served); lc_nic_mcast_left says whether dst still waits
 * for its copy; lc_nic_mcast_put sends the copy at hdr (dst set) to dst and
 * returns 0 (sent, or skipped: dst dead or stalled out, counted as a drop to
 * it) or LC_RETRY (dst's ring is full, or a delay fault: ask again later);
 * lc_nic_mcast_done ends the frame and returns LC_CONSUMED.
 */
void lc_nic_mcast_start(struct lc_nic *nic, const struct lc_frame_hdr *hdr,
			const uint64_t members[LC_NIC_GROUP_WORDS]);
int lc_nic_mcast_left(const struct lc_nic *nic, uint32_t dst);
/* 1 while the frame at send_tail is a group frame whose copies are under way (started, not done). */
int lc_nic_mcast_busy(const struct lc_nic *nic);
int lc_nic_mcast_put(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t dst);
int lc_nic_mcast_done(struct lc_nic *nic);

/* ---- registered memory and RDMA (nic/rdma.c) ---- */

/*
 * A host registers a region of its memory in its NIC's registration table
 * (SRAM, nic.reg_entries entries) under a protection tag and rights, and
 * gets a 32-bit handle: generation << 16 | entry.  A remote NIC may then
 * send RDMA frames (type LC_FT_RDMA: rkey = handle, off = offset in the
 * region, len payload bytes): this node's Net-Recv checks the handle's
 * generation, the rights, the region's tag against this node's endpoint
 * tag and the bounds, and has the DMA engine write the payload straight
 * into the region -- no staging copy -- and only the header into a staging
 * slot, so the host still sees the frame (lc_nic_rdma_payload tells where
 * its payload went).  A frame that fails a check touches no memory: it is
 * dropped and counted here (rdma_denied; rdma_stale too for a handle of
 * another generation) and for its sender, by kind (lc_nic_rdma_nacks).
 * The host side of this API is single-threaded per node like the rest (the
 * framework's lock).
 */
#define LC_NIC_REG_WRITE 1u    /* remote NICs may write the region (RDMA write) */
#define LC_NIC_REG_RIGHTS LC_NIC_REG_WRITE

/* This node's endpoint protection tag (default: node + 1), and setting it (0 is refused). */
uint32_t lc_nic_vi_tag(const struct lc_nic *nic);
int lc_nic_set_vi_tag(struct lc_nic *nic, uint32_t tag);
/*
 * Register [addr, addr + len) under tag with rights (LC_NIC_REG_*): 0 with
 * *handle set, LC_ERR_INVAL (len 0, NULL addr, unknown rights, a region
 * that wraps), LC_ERR_AGAIN (the table is full: deregister one).
 */
int lc_nic_reg(struct lc_nic *nic, const void *addr, uint64_t len, uint32_t tag, uint32_t rights,
	       uint32_t *handle);
/*
 * A new generation for the entry of *handle (same region, tag and rights):
 * frames that still carry the old handle are refused from now on.  Frames
 * checked before may still have Rx DMA blocks writing the region: *fence
 * (unless fence is NULL) is the chain-0 index to wait for
 * (lc_nic_rdma_quiet) before the region's bytes are final.  0 with *handle
 * updated, LC_ERR_INVAL for a handle that is not registered.
 */
int lc_nic_reg_rekey(struct lc_nic *nic, uint32_t *handle, uint32_t *fence);
/*
 * Revoke handle: Net-Recv refuses it from now on.  An RDMA block it had
 * already posted may still be writing the region: *fence is the chain-0
 * index to wait for (lc_nic_rdma_quiet) before the memory is reused.
 * 0, or LC_ERR_INVAL for a handle that is not registered.
 */
int lc_nic_dereg(struct lc_nic *nic, uint32_t handle, uint32_t *fence);
/* 1 once every Rx DMA block posted before fence is done. */
int lc_nic_rdma_quiet(const struct lc_nic *nic, uint32_t fence);
/* The host address of handle + off when handle is registered here and off is inside it, else NULL. */
void *lc_nic_reg_addr(const struct lc_nic *nic, uint32_t handle, uint32_t off);
/*
 * The payload of an RDMA frame the host took from the Rx FIFO (its header
 * is in staging, its payload where Net-Recv placed it), or NULL when the
 * handle no longer resolves (the host revoked it since).
 */
void *lc_nic_rdma_payload(const struct lc_nic *nic, const struct lc_frame_hdr *hdr);
/*
 * Why dst's NIC refused an RDMA frame, as its sender is told:
 *   REFUSED  the handle names no entry of the table, or its entry's current
 *            registration, and the rights, the tag or the bounds failed --
 *            a protection error: the frame's bytes did not land;
 *   STALE    the handle is of another generation than its entry's (free,
 *            re-keyed or registered again since): a late copy of a frame of
 *            a transfer that is over (a protocol that sends frames again
 *            makes these), or a guessed handle.
 */
enum lc_nic_nack { LC_NIC_NACK_REFUSED, LC_NIC_NACK_STALE, LC_NIC_NACK_KINDS };
/* RDMA frames from this node that dst's NIC refused for reason kind (free-running). */
uint32_t lc_nic_rdma_nacks(const struct lc_nic *nic, uint32_t dst, enum lc_nic_nack kind);

/* ---- the MCP ---- */

/* Inline mode: one bounded step of every engine. Returns the work done (0 = idle, and always in thread mode). */
int lc_nic_step(struct lc_nic *nic);
/*
 * Inline mode, for a caller that already serializes every stepping of this
 * NIC (the framework: its progress lock, held by each of its calls that
 * steps the NIC): lc_nic_step without step_lock, whose atomic exchange
 * would only repeat the caller's.  lc_nic_step_send_held: the doorbell
 * service and Net-Send only, the engines that move a frame the host just
 * posted by PIO (the other two get their turn at the next full step).
 */
int lc_nic_step_held(struct lc_nic *nic);
int lc_nic_step_send_held(struct lc_nic *nic);
/* Inline mode: lc_nic_tx_post_pio, then lc_nic_step_send_held, in one call. */
int lc_nic_tx_post_pio_step(struct lc_nic *nic);
/*
 * Either mode: the same step, minus what another thread is stepping right
 * now.  Inline mode: all engines, or none (0) while another host thread
 * steps.  Thread mode: each engine (doorbell service, Net-Recv, DMA,
 * Net-Send) that no other thread -- the MCP thread, another host thread --
 * is running; so a host waiting in the library runs Net-Send while the MCP
 * thread copies a DMA block, and the engines need not wait for the MCP
 * thread's turn.
 */
int lc_nic_assist(struct lc_nic *nic);

#endif /* LC_NIC_H */
