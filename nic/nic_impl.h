/* SPDX-License-Identifier: MIT */
/* Inside the emulated LANai NIC: SRAM structures, the job segment, the host<->NIC ordering contract. */
#ifndef LC_NIC_IMPL_H
#define LC_NIC_IMPL_H

/*
 * THE HOST <-> NIC ORDERING CONTRACT
 *
 * Every ring index is a free-running uint32_t, masked with (size - 1) on
 * access, alone on its 64-byte line of the control block (SRAM at off_ctrl).
 * Each index has exactly one writer, so no index needs a read-modify-write:
 * the writer loads it relaxed and publishes it with a release store; the
 * other side reads it with an acquire load.  "R1 -> A1" below names a
 * release and the acquire it pairs with; the same labels mark the code.
 *
 * The MCP is four engines (LC_NIC_ENGINE_LIST below), as on the LANai board,
 * where the three DMA engines work in parallel with the processor that
 * serves the doorbells:
 *   doorbell  the doorbell service (the LANai's loop): Tx FIFO -> Send Ring
 *             slots ready, DMA chains 1..3 activated;
 *   net_recv  Net-Recv: Receive Ring -> Rx DMA Requests (chain 0), Receive
 *             Ring slots freed;
 *   dma       the Host/NIC DMA engine: the four chains in priority order,
 *             the Rx FIFO;
 *   net_send  Net-Send: Send Ring -> remote Receive Rings, with the group
 *             frame replication (nic/mcast.c) and the fault injector
 *             (nic/faults.c), which touch only Net-Send's state.
 * Each engine owns its state (listed under each ring below and at struct
 * lc_nic) and runs under its own try-lock, so two threads may run two
 * engines at once, never one engine twice.  Between engines the state moves
 * through single-producer/single-consumer handoffs, each a pair below.
 *
 * Send Ring (send_ring slots of slot_bytes in SRAM)
 *   host writes the frame (PIO) or the header (DMA) into slot send_head,
 *   then rings the doorbell (below); send_head itself is host-private.
 *   A slot becomes ready for Net-Send when tx_ready[slot] (the node's
 *   segment area) is set with a release store (R13): by the doorbell
 *   service for a PIO frame (LC_TX_OWN), by the DMA engine once a Tx DMA
 *   block copied its payload (LC_TX_PULL where the NIC lets its frames be
 *   pulled, else LC_TX_OWN) -> Net-Send acquires it (A13) before it reads
 *   the frame (and the stamp table of the slot).  Net-Send clears the flag
 *   (relaxed) before it releases send_tail; the next set of that slot is
 *   ordered after the clear by R1 -> A1 (host), R2 -> A2 (doorbell service).
 *   Net-Send owns send_tail: after the frame left (or was dropped) it
 *   releases send_tail (R1) -> host acquires it in lc_nic_tx_slot and
 *   lc_nic_tx_idle (A1) before it reuses the slot.  A LC_TX_PULL frame is
 *   moved by whoever takes the NIC's pull lock (struct lc_nic_pull: CAS
 *   acquire / store release, R17 -> A17): its own Net-Send, which keeps the
 *   lock until the frame left, or the Net-Send of the NIC it goes to
 *   (lc_nic_pull_step), which acquires send_tail (A1) and tx_ready (A13),
 *   then, under the lock, clears the flag and releases send_tail (R1) as the
 *   owner would; the lock's release orders both before the next mover.
 *
 * Tx FIFO = doorbell FIFO (tx_fifo entries of 16 bytes in the endpoint's
 *   doorbell region, struct lc_nic_doorbell: pages of SRAM only its owner maps)
 *   host writes the entry {doorbell address, value} at txfifo_head (db->head), then
 *   releases txfifo_head (R2) -> the doorbell service acquires it (A2);
 *   everything the host wrote before the doorbell (frame in the Send Ring,
 *   DMA control block, stamp table) is therefore visible to it, and through
 *   R13 / R14 to the engine it hands the frame or block to.
 *   The doorbell service releases txfifo_tail (db->tail, R3) after serving the entry
 *   -> host acquires it for room in lc_nic_tx_slot (A3).
 *
 * DMA chains (chain c: circular array of 32-byte control blocks)
 *   chain 0 (Rx DMA Requests, SRAM) is produced by Net-Recv: it owns
 *   chain_head[0] and the blocks it writes, and releases chain_head[0] after
 *   each block (R16) -> lc_nic_rx_activate acquires it (A16) before it
 *   activates the blocks below it (the Tx completion's call in thread mode
 *   runs on the DMA engine's thread).  Chains 1 (Tx DMA Requests,
 *   SRAM) and 2-3 (spare, caller memory) are produced by the host: it
 *   writes the block at chain_head[c], bumps chain_head[c] (host-private)
 *   and activates the block through the doorbell (R2 -> A2).
 *   chain_active[c] (blocks activated, free-running): for chain 0
 *   lc_nic_rx_activate (Net-Recv, the Tx completion, the steppers: in thread
 *   mode by compare-and-swap, it only grows), for chains 1..3 the doorbell
 *   service; each releases it (R14) -> the DMA engine acquires it (A14)
 *   before it reads the block.
 *   The DMA engine releases chain_done[c] after the block's copy (R4) ->
 *   host acquires it (A4): for chain 1 this is the Tx ticket counter of
 *   lc_nic_tx_dma_done (the source buffer may be reused) and the room check
 *   of lc_nic_tx_slot.  Net-Recv acquires chain_done[0] (A4) before it
 *   writes a block again and before it frees the Receive Ring slots of the
 *   blocks done (chain 0 runs in order; each block's tag names its slot).
 *
 * Receive Ring (recv_ring slots in SRAM), written by REMOTE Net-Send engines
 *   a sender holds the switch output port that leads to this node (so the
 *   remote writers are serialized by that port's lock: lock CAS acquire /
 *   unlock store release, R5 -> A5), acquires recv_tail (A6) for room,
 *   copies the frame into slot recv_head, then releases the slot's
 *   publication word -- the ring index and the wire byte count of the copy,
 *   in the line of the frame's header (lc_recv_publish_word, R7) -> Net-Recv
 *   acquires the word of the index it expects (lc_recv_wire, A7), so it
 *   never reads recv_head, the senders' own index (released after the word,
 *   for the next sender).  Net-Recv trusts that count, never
 *   the frame's (possibly damaged) header length: a frame whose header
 *   len + hdr_bytes differs from it is dropped as bad.  Net-Recv alone
 *   releases recv_tail (R6) once the frame's Rx DMA completed (seen through
 *   chain_done[0], A4) or the frame was dropped.
 *
 * Source hold (rx_hold: one bit per source, LC_MAX_NODES bits), written by
 *   the host alone (lc_nic_rx_hold: relaxed, the host's progress lock
 *   serializes it), read by REMOTE Net-Send engines in lc_net_put under the
 *   port lock (relaxed).  A set bit makes the sender treat this Receive Ring
 *   as full for its data frames (link backpressure for one source: the
 *   framework holds that source's frames behind a first frame parked at the
 *   unexpected budget).  No ordering is needed: the bit only bounds how many
 *   frames the host must hold -- a frame that passed the check before the
 *   bit was seen is held on arrival like any other.
 *
 * Rx FIFO (rx_fifo entries {staging slot, bytes}) and host staging
 *   the Rx DMA copies the frame into the staging slot, then the DMA engine
 *   writes the Rx FIFO entry and releases rxfifo_head (R8) -> host acquires
 *   it in lc_nic_rx_peek (A8).  lc_nic_rx_release releases rxfifo_tail (R9),
 *   freeing the entry AND its staging slot -> Net-Recv acquires it before
 *   it assigns a staging slot to a new frame (A9).  Net-Recv gives blocks
 *   staging slots in order and only while the Rx FIFO has room, so the DMA
 *   engine's entries never overrun the host's.
 *
 * Node state (segment header): the launcher and lc_nic_detach release a
 *   final state (R10) -> peers acquire it (A10) before dropping frames to a
 *   dead node or stealing a port lock it held.  The launcher also sets and
 *   clears `stopped` while a node's process is stopped (R12, release) ->
 *   a stalled Net-Send acquires it (A12): a stopped destination is the one
 *   whose full Receive Ring runs the backpressure time limit.
 *
 * Engine state (the engines' lines of struct lc_nic_ctrl, their fields of
 * struct lc_nic) is touched only by whoever runs that engine, so it is
 * plain: the thread holding the engine's lock eng[e].lock (CAS 0 -> held
 * with acquire / store 0 with release, R11 -> A11) -- the MCP thread, or a
 * host thread in lc_nic_assist.  In inline mode there is no MCP thread and
 * one lock, step_lock (exchange acquire / store release, the same pair R11
 * -> A11), covers all four engines: lc_nic_step runs them back to back on
 * the calling thread; lc_nic_step_held and lc_nic_step_send_held leave it
 * to their caller, whose own lock (the framework's progress lock: acquire
 * at lc_trylock, release at lc_unlock) gives the same pair.  A protocol's nic_tx hook
 * runs in Net-Send, its nic_rx hook in Net-Recv: in thread mode the two may
 * run at the same time on different threads.
 *
 * Counters (nic->stats) have one writer engine each, so lc_nic_count needs
 * no read-modify-write; the two counted by both Net-Send and Net-Recv
 * (nic_drops_bad, nic_drops_proto: drop paths only) use lc_nic_count_shared.
 *
 * The host side (tx and rx calls) is single-producer/single-consumer: the
 * caller serializes its transmit calls and its receive calls (the framework
 * holds its progress lock).
 */

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "faults.h"
#include "lc_count.h"
#include "lc_errors.h"
#include "lc_frame_hdr.h"
#include "lc_names.h"
#include "nic.h"

#define LC_NIC_FUNC __attribute__((visibility("hidden"))) extern

#define LC_LINE 64u
#define LC_PAGE 4096u   /* the doorbell region's unit of protection (gen/model.lua PAGE_BYTES) */
#define LC_SEG_MAGIC 0x3167657363636c00ull  /* "\0lccseg1" */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomics in shared memory must be lock-free");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "atomics in shared memory must be lock-free");

/* ---- SRAM structures ---- */

/*
 * Doorbell region: the address names what the write means (value = index)
 * and, above LC_DB_PAGE_SHIFT, the endpoint whose page it was written
 * through (LC_DB_ADDR(node, offset)).
 */
#define LC_DB_PIO 0x0000u                         /* value: Send Ring slot, frame complete */
#define LC_DB_CHAIN(c) (0x0100u + 0x8u * (uint32_t)(c)) /* value: block index to activate */
#define LC_DB_PAGE_SHIFT 16
#define LC_DB_ADDR(node, off) ((uint32_t)(node) << LC_DB_PAGE_SHIFT | (uint32_t)(off))
#define LC_DB_OFF(addr) ((addr) & ((1u << LC_DB_PAGE_SHIFT) - 1u))
#define LC_DB_NODE(addr) ((addr) >> LC_DB_PAGE_SHIFT)

struct lc_nic_fifo_entry {
	uint32_t addr;    /* Tx: doorbell address; Rx: staging slot (masked) */
	uint32_t value;   /* Tx: slot or block index; Rx: bytes (header included) */
	uint32_t aux;
	uint32_t pad;
};

/* DMA control block flags */
#define LC_DMA_TO_NIC  1u   /* host -> SRAM */
#define LC_DMA_TO_HOST 2u   /* SRAM -> host */
#define LC_DMA_SIGNAL  4u   /* raise a completion signal when done */
#define LC_DMA_FLAGS   (LC_DMA_TO_NIC | LC_DMA_TO_HOST | LC_DMA_SIGNAL)
#define LC_DMA_DONE    1u   /* status */
/*
 * Chain 0 only, set by Net-Recv: the block does not free its Receive Ring
 * slot (tag) when done -- the payload block of an RDMA frame, whose header
 * block, after it, frees the slot (nic/rdma.c).  Not one of LC_DMA_FLAGS: a
 * host never posts it.
 */
#define LC_DMA_HOLD    8u
/*
 * Chain 0 only, set by Net-Recv on the payload block of an RDMA frame of at
 * least LC_DMA_STREAM_MIN bytes: the engine writes it as a DMA engine writes
 * host memory, around the CPU's caches (lc_nic_copy_stream), not as cached
 * stores that would read every destination line first and evict the host's
 * working set.  The host does not read registered memory before the frame's
 * completion; staging, which it copies out at once, stays cached.  Measured:
 * docs/internals.md, "The Rx DMA writes around the caches".
 */
#define LC_DMA_STREAM  16u
/*
 * Chain 0: set by Net-Recv on a frame's block when a nic_rx hook asked
 * for its CRC (lc_nic_rx_crc_ask): the engine copies the header, then the
 * payload with lc_crc32c_copy from the asked seed, and the Rx FIFO entry
 * carries the result to the host (lc_nic_rx_crc).  The receiver's CRC check
 * rides the copy that reads the frame out of the Receive Ring -- the one that
 * waits for the lines the sender's core wrote -- instead of a pass of its own
 * over staging.  Chain 1: set by lc_nic_tx_post_dma_crc, the engine copies
 * the payload with lc_crc32c_copy and stores the CRC in the slot's header.
 */
#define LC_DMA_CRC     32u
#define LC_DMA_STREAM_MIN 4096u

struct lc_nic_dma_block {
	uint64_t host;    /* host virtual address */
	uint32_t sram;    /* SRAM offset */
	uint32_t len;     /* bytes */
	uint32_t flags;   /* LC_DMA_* */
	uint32_t tag;     /* chain 1: Send Ring slot; chain 0: Receive Ring slot */
	uint32_t next;    /* index of the next block of the circular chain */
	uint32_t status;  /* LC_DMA_DONE once executed */
};

/* One index alone on its cache line. */
struct lc_idx {
	alignas(LC_LINE) _Atomic uint32_t v;
};

/* The DMA engine's private state (one line). */
struct lc_nic_dma_eng {
	alignas(LC_LINE) uint32_t cur_chain;     /* chain the DMA engine worked on last */
	/* the MCP: Rx blocks done since the last Tx block (lc_nic_rx_activate; the DMA engine's
	 * completions write it, Net-Recv reads it) */
	_Atomic uint32_t rx_run;
};

/* Net-Recv's private state (one line). */
struct lc_nic_recv_eng {
	alignas(LC_LINE) uint32_t recv_next;     /* next Receive Ring frame Net-Recv looks at */
	uint32_t rx_alloc;                       /* frames given a staging slot */
	uint32_t rx_reaped;                      /* chain 0 blocks seen done (their slots marked rx_done) */
};

/*
 * A link engine either side may run (docs/internals.md): a DMA frame in the
 * Send Ring (tx_ready LC_TX_PULL) may be moved onto the link by its own
 * Net-Send or by the Net-Send of the NIC it goes to, whichever takes `lock`
 * first (CAS 0 -> node + 1, acquire; store 0, release: R17 -> A17).  Its own
 * Net-Send keeps the lock from the moment it begins such a frame until the
 * frame left (its process-local state -- the pointcut's verdict, the stall
 * clock -- is about that frame), so a pulling NIC only ever moves a frame
 * nobody began.  `ok` (written at attach): this NIC marks its DMA frames
 * pullable at all -- inline MCP, no fault injector, no nic_tx hook, untimed.
 */
struct lc_nic_pull {
	alignas(LC_LINE) _Atomic uint32_t lock;
	_Atomic uint32_t ok;
	/* 1 while a NIC pulls this one's frames (written by the pullers, a hint: net_send_claim) */
	_Atomic uint32_t wanted;
};
/* tx_ready values: 0 not ready; a PIO frame (its own Net-Send only); a DMA frame that may be pulled */
#define LC_TX_OWN  1u
#define LC_TX_PULL 2u

struct lc_nic_ctrl {
	/* host-owned */
	struct lc_idx send_head;
	struct lc_idx rxfifo_tail;                /* R9 */
	struct lc_idx chain_head[LC_DMA_CHAINS];  /* chain 0: Net-Recv's */
	/* Net-Send */
	struct lc_idx send_tail;                  /* R1 */
	/* DMA engine */
	struct lc_idx rxfifo_head;                /* R8 */
	struct lc_idx chain_done[LC_DMA_CHAINS];  /* R4 */
	struct lc_nic_dma_eng dma;
	/* chain activation: chain 0 by Net-Recv, 1..3 by the doorbell service */
	struct lc_idx chain_active[LC_DMA_CHAINS];  /* R14 */
	/* Receive Ring: written by remote senders / read by them */
	struct lc_idx recv_head;                  /* the senders' (port lock R5/A5) */
	struct lc_idx recv_tail;                  /* R6, Net-Recv */
	struct lc_nic_recv_eng net_recv;
	/* sources whose data frames wait at their NIC (host-owned, read by remote senders) */
	alignas(LC_LINE) _Atomic uint64_t rx_hold[LC_MAX_NODES / 64];
	/* Net-Send's frames the receiving NIC may move (nic.c, lc_nic_pull_step) */
	struct lc_nic_pull pull;
	/* the protection tag of this node's endpoint (host-owned, read by Net-Recv: nic/rdma.c) */
	alignas(LC_LINE) _Atomic uint32_t vi_tag;
	/*
	 * timed network, in the NIC's first endpoint's block (its endpoints share the
	 * link): when the link from the NIC to its switch is free again
	 * (lc_nic_now_ns; compare-and-swap by the endpoints' Net-Send, lc_net_time)
	 */
	alignas(LC_LINE) _Atomic uint64_t link_busy;
};

/*
 * The doorbell region of an endpoint (SRAM at off_tx_fifo, db_bytes: whole
 * pages): the FIFO indices, then the doorbell FIFO (tx_fifo entries).  Its
 * owner maps it read-write, every other process of the job without access
 * (lc_nic_attach), so that only the owner rings it; the doorbell service of
 * the owner's endpoint reads it.  An entry's address names the endpoint
 * whose doorbell page it was written through (LC_DB_ADDR): the service
 * refuses one of another endpoint (db_refused).
 */
struct lc_nic_doorbell {
	struct lc_idx head;                       /* host; R2 */
	struct lc_idx tail;                       /* doorbell service; R3 */
	struct lc_nic_fifo_entry e[];
};
_Static_assert(sizeof(struct lc_nic_doorbell) == LC_NIC_DOORBELL_HEAD_BYTES, "lc_config.h doorbell indices");

_Static_assert(sizeof(struct lc_nic_dma_block) == 32, "DMA control block is 32 bytes");
_Static_assert(sizeof(struct lc_nic_fifo_entry) == 16, "FIFO entry is 16 bytes");
_Static_assert(sizeof(struct lc_idx) == LC_LINE, "one index per line");
_Static_assert(offsetof(struct lc_nic_ctrl, send_tail) % LC_LINE == 0, "producer/consumer apart");
_Static_assert(offsetof(struct lc_nic_ctrl, recv_head) % LC_LINE == 0, "producer/consumer apart");
_Static_assert(offsetof(struct lc_nic_ctrl, recv_tail) - offsetof(struct lc_nic_ctrl, recv_head)
	       == LC_LINE, "Receive Ring head and tail on separate lines");
_Static_assert(offsetof(struct lc_nic_ctrl, dma) % LC_LINE == 0, "DMA engine state on its own line");
_Static_assert(offsetof(struct lc_nic_ctrl, net_recv) % LC_LINE == 0, "Net-Recv state on its own line");
_Static_assert(sizeof(struct lc_nic_dma_eng) == LC_LINE && sizeof(struct lc_nic_recv_eng) == LC_LINE,
	       "one line per engine");

_Static_assert(sizeof(struct lc_nic_dma_block) == LC_NIC_DMA_BLOCK_BYTES, "lc_config.h DMA block size");
_Static_assert(sizeof(struct lc_nic_fifo_entry) == LC_NIC_FIFO_ENTRY_BYTES, "lc_config.h FIFO entry size");
_Static_assert(sizeof(struct lc_nic_ctrl) <= LC_NIC_CTRL_BYTES, "control block fits LC_NIC_CTRL_BYTES");

/* ---- job segment ---- */

enum lc_node_state {
	LC_NODE_UNUSED = 0,    /* not attached yet: frames to it wait in its Receive Ring */
	LC_NODE_ATTACHED = 1,
	LC_NODE_EXITED = 2,    /* detached cleanly */
	LC_NODE_DEAD = 3,      /* crashed or killed (launcher) */
};

struct lc_seg_node {
	_Atomic int32_t pid;
	_Atomic uint32_t state;    /* enum lc_node_state; R10 */
	_Atomic uint32_t stopped;  /* 1 while the launcher sees the process stopped (SIGSTOP); R12 */
};

/*
 * A frame waiting at a full Receive Ring (nic.c, lc_nic_stall_expired): the
 * backpressure time limit's clock.  `on` is read by the host
 * (lc_nic_tx_waiting), possibly from another thread than the MCP's.
 */
struct lc_nic_stall {
	_Atomic int on;             /* stalled now (relaxed: a hint for the host's own limits) */
	uint32_t dst;               /* the destination that has no room */
	uint32_t tail;              /* its recv_tail when the clock (re)started */
	uint64_t since_ns;          /* the clock's start */
	int expired;                /* the limit passed for dst at tail: its next frames go at once */
};

struct lc_seg_hdr {
	_Atomic uint64_t magic;    /* stored last by lc_seg_create (release) */
	uint32_t version;          /* LC_SEG_LAYOUT_VERSION */
	uint32_t hdr_bytes;        /* sizeof(struct lc_seg_hdr) */
	uint64_t fingerprint;
	struct lc_nic_geom geom;
	uint64_t total_bytes;
	uint64_t off_nodes;        /* first node area */
	uint64_t node_bytes;       /* one node area */
	uint64_t off_net;          /* the switch ports */
	uint32_t net_ports;
	uint32_t net_switches;
	struct lc_fault_cfg faults;  /* the run's fault injector (faults.h); set before nodes attach */
	uint32_t traffic;          /* 1: Net-Send keeps the traffic matrix (lc_seg_record_traffic) */
	uint64_t off_names;        /* the name table (nic/names.c), after the group table */
	uint32_t names;            /* its entries, LC_NAME_ENTRIES(nodes) */
	/* the placement: NIC i is plugged into slot place[i] of the topology (lc_seg_set_place) */
	uint16_t place[LC_MAX_NODES];
	struct lc_seg_node node[LC_MAX_NODES];
};

/*
 * The job's name table (nic/names.c): a process-shared robust mutex, then
 * `names` entries.  Every access holds the mutex (lookups are rare: they
 * poll with sleeps), so the entries need no atomics; a holder that dies
 * with it leaves the table consistent for the next (EOWNERDEAD), because an
 * entry counts only while its node is attached: a dead node's half-written
 * entry is ignored like its finished ones.
 */
struct lc_seg_names {
	pthread_mutex_t lock;
};
struct lc_seg_name {
	uint32_t used;             /* 1: node registered name (valid while node is attached) */
	uint32_t node;
	uint32_t port;
	uint32_t pad;
	char name[LC_NAME_MAX];
};

/* Offsets inside one node area. */
struct lc_seg_node_layout {
	uint64_t sram, staging, nic_stats, host_stats, dst_drops, fault_stats, rdma_nacks, traffic, sizes, tx_ready,
		 bytes;
};

/*
 * One memory registration (SRAM: the registration table of the NIC, shared
 * by its endpoints, nic/rdma.c), a
 * seqlock without fences (ThreadSanitizer has none): the host claims the
 * entry (its key, from free to LC_REG_KEY_CLAIMED, by compare-and-swap:
 * the NIC's endpoints share the table), writes each field with a release
 * (none is seen before the claim), then the key
 * with a release (R15); Net-Recv reads the key with an acquire (A15), each
 * field with an acquire (the key's second read cannot move before them), and
 * the key again: a key that changed in between (the host revoked, re-keyed
 * or re-registered the entry) refuses the frame.  key: the generation (the
 * handle's high half) << 16 | LC_REG_KEY_VALID | rights.
 */
struct lc_nic_reg {
	_Atomic uint32_t key;
	_Atomic uint32_t tag;      /* protection tag: an endpoint of another tag is refused */
	_Atomic uint64_t addr;     /* host virtual address (in its owner's process) */
	_Atomic uint64_t len;      /* bytes */
	_Atomic uint32_t owner;    /* the endpoint (node) that registered it: only it is served */
	uint32_t pad;
};
#define LC_REG_KEY_VALID 0x8000u
/* An entry an endpoint took (compare-and-swap from free) and is filling: not valid yet. */
#define LC_REG_KEY_CLAIMED 0x4000u
_Static_assert(sizeof(struct lc_nic_reg) == LC_NIC_REG_ENTRY_BYTES, "lc_config.h registration size");

/*
 * One group (nic/mcast.c), after the switch ports.  state: 0 free,
 * 1 in use; taken with a CAS (acq_rel), members written after it.  members:
 * fetch_or / fetch_and release -> snapshot acquire in lc_nic_group_members.
 */
struct lc_nic_group {
	alignas(LC_LINE) _Atomic uint32_t state;
	uint32_t pad;
	_Atomic uint64_t members[LC_MAX_NODES / 64];
};

/* A switch output port: the wormhole lock and its counters. */
struct lc_net_port {
	alignas(LC_LINE) _Atomic uint32_t owner;  /* 0 free, else node + 1; R5/A5 */
	uint32_t pad;
	_Atomic uint64_t frames;
	_Atomic uint64_t bytes;
	_Atomic uint64_t stalls;
	/* timed network: when this output port's link is free again (lc_nic_now_ns; port lock) */
	_Atomic uint64_t busy_until;
	/* timed network, for --stats: ns frames' heads waited here for the link, ns it carried frames */
	_Atomic uint64_t wait_ns;
	_Atomic uint64_t busy_ns;
};
_Static_assert(sizeof(struct lc_net_port) == LC_LINE, "a switch port keeps to one cache line");

/* ---- network ---- */


/* ---- the per-process NIC object ---- */

struct lc_nic_chain {
	struct lc_nic_dma_block *blocks;
	uint32_t mask;                      /* size - 1; 0 with no blocks */
};

/*
 * The MCP's engines (see the contract above), in stepping order: one pass
 * moves a PIO frame out, and a received frame into staging.  Columns: name,
 * what the engine does.
 */
#define LC_NIC_ENGINE_LIST(X)                                                            \
	X(doorbell, "doorbell service: Tx FIFO -> Send Ring slots ready, chains 1..3 active") \
	X(net_recv, "Net-Recv: Receive Ring -> Rx DMA requests; Receive Ring slots freed")   \
	X(dma,      "Host/NIC DMA: one control block of the highest-priority chain; Rx FIFO") \
	X(net_send, "Net-Send: Send Ring -> remote Receive Rings, group copies, faults")

enum lc_nic_engine {
#define LC_X_ENUM(name, ...) LC_NIC_ENG_##name,
	LC_NIC_ENGINE_LIST(LC_X_ENUM)
#undef LC_X_ENUM
	LC_NIC_ENGINES
};

/* An engine's try-lock, alone on its line: 0 free, LC_NIC_ENG_HELD, LC_NIC_ENG_COPYING. */
#define LC_NIC_ENG_HELD    1
#define LC_NIC_ENG_COPYING 2    /* dma only: held, and a block's copy is under way (the overlap counters) */
struct lc_nic_engine_lock {
	alignas(LC_LINE) _Atomic int lock;   /* R11/A11 */
};

/*
 * Exact division by a constant d > 0 known at attach: x a multiple of d,
 * d = 2^shift * odd, x / d = (x >> shift) * inv modulo 2^64 where inv is
 * odd's inverse modulo 2^64 (Newton's iteration from odd itself, right to 3
 * bits, each step doubling them: 5 steps give 96).  A multiply where a
 * 64-bit division took 10-18 cycles on the Rx path of every frame (the
 * staging slot of a completed Rx DMA block, slot_bytes 8256 = 64 x 129).
 */
static inline void lc_exact_div_init(uint32_t d, uint32_t *shift, uint64_t *inv)
{
	uint64_t odd;

	*shift = (uint32_t)__builtin_ctz(d);
	odd = d >> *shift;
	*inv = odd;
	for (int i = 0; i < 5; i++)
		*inv *= 2 - odd * *inv;
}

static inline uint64_t lc_exact_div(uint64_t x, uint32_t shift, uint64_t inv)
{
	return (x >> shift) * inv;
}

struct lc_nic {
	struct lc_nic_geom g;
	uint32_t node;
	uint8_t *seg;                       /* the whole mapped segment */
	size_t seg_bytes;
	struct lc_seg_hdr *hdr;
	struct lc_seg_node_layout nl;
	uint8_t *sram;                      /* this node's SRAM */
	uint8_t *send_ring;                 /* sram + g.off_send_ring: the Send Ring's first slot */
	struct lc_nic_ctrl *ctrl;
	uint8_t *staging;
	/* a staging slot's index from its offset: lc_exact_div(off, slot_shift, slot_inv) */
	uint64_t slot_inv;
	uint32_t slot_shift;
	_Atomic uint64_t *stats;
	_Atomic uint64_t *host_stats;
	_Atomic uint32_t *dst_drops;        /* written by Net-Send */
	_Atomic uint64_t *fault_stats;      /* [nodes][LC_FAULT_COUNT]: faults injected per link (faults.c) */
	_Atomic uint64_t *traffic;          /* [nodes][LC_TRAFFIC_COUNT]: what Net-Send put on the link to each
					     * (lc_seg_read_traffic); NULL unless the job records it */
	_Atomic uint64_t *sizes;            /* [LC_SIZE_BUCKETS][2]: the messages it sent by size
					     * (lc_seg_read_sizes); with traffic */
	_Atomic uint32_t *rdma_nacks;       /* [kind * nodes + src]: RDMA frames refused, by lc_nic_nack (Net-Recv) */
	struct lc_nic_reg *reg;             /* the registration table (g.reg_entries) */
	struct lc_fault_state *faults;      /* the injector's state (Net-Send's), NULL with no fault set */
	struct lc_net_port *ports;
	struct lc_nic_doorbell *db;         /* this endpoint's doorbell region */
	uint32_t db_page;                   /* LC_DB_ADDR(node, 0): the address of its page */
	struct lc_nic_fifo_entry *rxfifo;
	struct lc_nic_chain chain[LC_DMA_CHAINS];
	/* chains the DMA engine serves: 2, up to the last spare set up (relaxed: a spare's blocks
	 * reach the engine through its activation, R2 -> A2, R14 -> A14) */
	_Atomic uint32_t dma_chains;
	uint32_t rx_room;                   /* min(rx_fifo, staging_slots) */
	struct lc_route *routes;            /* [nodes] */
	uint8_t **node_sram;                /* [nodes]: each node's SRAM in this mapping (lc_seg_sram) */
	uint32_t *peer_tail;                /* [nodes], Net-Send: last seen recv_tail of each peer (stale = fewer free slots) */
	_Atomic uint8_t *tx_ready;          /* [send_ring] in the node's segment area: slot may be injected
					     * (LC_TX_OWN, LC_TX_PULL); R13/A13 */
	struct lc_route *routes_in;         /* [nodes]: the route from each node to this one (pulled frames) */
	uint8_t *rx_done;                   /* [recv_ring], Net-Recv: slot may be freed */
	/* host side: the last seen NIC indices (reloaded only when a ring looks full / empty) */
	alignas(LC_LINE) uint32_t hc_send_tail;
	uint32_t hc_txfifo_tail;
	uint32_t hc_txdma_done;
	uint32_t hc_rxfifo_head;
	/* Net-Send: the frame at send_tail */
	alignas(LC_LINE) int tx_pc_done;
	int ns_held;                        /* Net-Send holds ctrl->pull.lock for the frame at send_tail */
	/* lc_net_put: the destination of the last frame put and the Rx DMA chain's head then (a stream's mark) */
	uint32_t stream_dst, stream_seen;
	uint8_t tx_dma_ready;               /* what a Tx DMA completion makes its slot: LC_TX_PULL or LC_TX_OWN */
	struct lc_nic_stall tx_stall;       /* the frame at send_tail waits for room at its destination */
	/* Net-Send: replication of the group frame at send_tail (nic/mcast.c) */
	uint64_t mc_msg[LC_MAX_NODES / 64]; /* members of the message in flight (snapshot at its first frame) */
	uint64_t mc_left[LC_MAX_NODES / 64];/* members still to get the current frame */
	int mc_busy;                        /* mc_left is set for the frame at send_tail */
	struct lc_nic_stall mc_stall;       /* a member's Receive Ring is full */
	/* Net-Recv */
	alignas(LC_LINE) int rx_waiting;    /* Net-Recv waits for Rx DMA / Rx FIFO / staging room */
	uint32_t rx_tag;                    /* the word slot recv_next's frame is published with (lc_recv_next_set) */
	_Atomic uint32_t *rx_word;          /* and that word */
	uint32_t pull_src;                  /* 1 + the node whose DMA frames an idle pass pulls, 0 none */
	uint32_t pull_misses;               /* idle passes that found nothing to pull since the last frame */
	uint32_t rx_ask;                    /* the frame in nic_rx: 1 + owner of its Rx DMA CRC, 0 none */
	uint32_t rx_ask_seed;               /* and its seed (lc_nic_rx_crc_ask) */
	struct lc_nic_dma_crc { uint32_t owner, seed; } *rx_crc;  /* [rx_dma]: what each Rx DMA block computes */
	struct lc_nic_dma_crc *tx_crc;      /* [tx_dma]: what each Tx DMA block with LC_DMA_CRC computes */
	/* who steps the engines: thread mode one lock per engine, inline mode step_lock for all */
	struct lc_nic_engine_lock eng[LC_NIC_ENGINES];
	alignas(LC_LINE) _Atomic int step_lock;  /* inline mode; R11/A11 */
	_Atomic int stop;
	int thread_on;
	pthread_t thread;
};

/* ---- internal functions (nic/ and tests/nic/) ---- */

/*
 * Ring this endpoint's doorbell: write (offset addr of the doorbell region,
 * value) into the doorbell FIFO through this endpoint's page.  The caller
 * checked the FIFO's room (db->tail, A3).
 */
static inline void lc_nic_ring(struct lc_nic *nic, uint32_t addr, uint32_t value)
{
	struct lc_nic_doorbell *db = nic->db;
	uint32_t fh = atomic_load_explicit(&db->head.v, memory_order_relaxed);
	struct lc_nic_fifo_entry *e = &db->e[fh & (nic->g.tx_fifo - 1)];

	e->addr = nic->db_page | addr;
	e->value = value;
	/* release (R2): pairs with the doorbell service's acquire of txfifo_head (A2) */
	atomic_store_explicit(&db->head.v, fh + 1, memory_order_release);
}

/*
 * A Receive Ring slot: its publication word (32 bits, in the slot's first
 * LC_NIC_RECV_WORD_BYTES: 4 when the header is 4 bytes past a multiple of 8,
 * else 8, 16 on a timed network; gen/model.lua), then the frame.  The word of
 * the frame that is ring index i (free-running) reads LC_RECV_VALID | the lap
 * of i (i / recv_ring, its low LC_RECV_LAP_BITS bits) | wire bytes; the
 * sending NIC stores it with a release (R7) after the frame, in the same cache
 * line as the frame's header (and a small frame's payload: up to 32 bytes with
 * the baseline's 28-byte header), and Net-Recv polls the word of the index it
 * expects (A7): a small frame costs the receiver one line, not three
 * (recv_head, a separate wire count, the slot).  The word a slot holds when
 * index i is not there yet is that of index i - recv_ring (Net-Send writes
 * every index in turn and is never a ring ahead of Net-Recv), whose lap
 * differs by one, or 0 in a slot never written (no valid bit).
 */
#define LC_RECV_VALID 0x80000000u
#define LC_RECV_WIRE_BITS 21
#define LC_RECV_WIRE_MASK ((1u << LC_RECV_WIRE_BITS) - 1u)
#define LC_RECV_LAP_BITS 10
_Static_assert(LC_RECV_WIRE_BITS + LC_RECV_LAP_BITS == 31, "the word: valid bit, lap, wire bytes");

/* The publication word of Receive Ring slot i of the SRAM at sram: the slot's start. */
static inline _Atomic uint32_t *lc_recv_word(uint8_t *sram, const struct lc_nic_geom *g, uint32_t i)
{
	return (_Atomic uint32_t *)(void *)(sram + g->off_recv_ring +
					    (size_t)(i & (g->recv_ring - 1)) * g->slot_bytes);
}

/* The frame of the Receive Ring slot whose word is w, right after it. */
static inline uint8_t *lc_recv_frame_at(_Atomic uint32_t *w)
{
	return (uint8_t *)(void *)w + LC_NIC_RECV_WORD_BYTES;
}

/* The frame in Receive Ring slot i. */
static inline uint8_t *lc_recv_slot(uint8_t *sram, const struct lc_nic_geom *g, uint32_t i)
{
	return lc_recv_frame_at(lc_recv_word(sram, g, i));
}

/* The word of index i without its wire bytes: the valid bit and i's lap (recv_ring a power of two). */
static inline uint32_t lc_recv_tag(const struct lc_nic_geom *g, uint32_t i)
{
	return LC_RECV_VALID |
	       ((i >> __builtin_ctz(g->recv_ring)) & ((1u << LC_RECV_LAP_BITS) - 1u)) << LC_RECV_WIRE_BITS;
}

/*
 * The frame of index i is in its slot, `bytes` on the wire (< 2^21: lc_geom_check
 * bounds slot_bytes): publish it (R7) in its word w (lc_recv_word; a writer that
 * copied the frame in has the slot's address already).
 */
static inline void lc_recv_publish_word(_Atomic uint32_t *w, const struct lc_nic_geom *g, uint32_t i,
					uint32_t bytes)
{
	/* release (R7): pairs with the remote Net-Recv's acquire of the word (A7) */
	atomic_store_explicit(w, lc_recv_tag(g, i) | (bytes & LC_RECV_WIRE_MASK), memory_order_release);
}


#if LC_NET_TIMED
/*
 * The timed network: the modelled arrival time (lc_nic_now_ns) of the frame
 * in slot i, 8 bytes after its word (LC_NIC_RECV_WORD_BYTES is 16).  The
 * sending NIC writes it before the word's release (lc_net_put), Net-Recv reads
 * it after the word's acquire and takes the frame only from then on.  A frame
 * written by other means (a fault's held frame let go, a harness) finds the
 * time of the slot's last frame there, which has passed: it arrives at once.
 */
static inline _Atomic uint64_t *lc_recv_arrival(uint8_t *sram, const struct lc_nic_geom *g, uint32_t i)
{
	return (_Atomic uint64_t *)(void *)((uint8_t *)(void *)lc_recv_word(sram, g, i) + 8);
}
#endif

/* A frame put whole into slot i (no fault to apply to it first): copy, then publish (R7). */
static inline void lc_recv_put(uint8_t *sram, const struct lc_nic_geom *g, uint32_t i,
			       const void *frame, uint32_t bytes)
{
	_Atomic uint32_t *w = lc_recv_word(sram, g, i);

	memcpy(lc_recv_frame_at(w), frame, bytes);
	lc_recv_publish_word(w, g, i, bytes);
}

/*
 * The wire byte count of the frame whose word is at word (lc_recv_word) and
 * is published with tag (lc_recv_tag of its index), or -1 when it is not
 * published yet (A7).
 */
static inline int64_t lc_recv_wire_tagged(_Atomic uint32_t *word, uint32_t tag)
{
	/* acquire (A7): pairs with the sending NIC's release of the word (R7) */
	uint32_t w = atomic_load_explicit(word, memory_order_acquire);

	if ((w & ~LC_RECV_WIRE_MASK) != tag)
		return -1;
	return w & LC_RECV_WIRE_MASK;
}

/* The wire byte count of the frame of index i, or -1 when it is not published yet (A7). */
static inline int64_t lc_recv_wire(uint8_t *sram, const struct lc_nic_geom *g, uint32_t i)
{
	return lc_recv_wire_tagged(lc_recv_word(sram, g, i), lc_recv_tag(g, i));
}

/*
 * Net-Recv's next frame is frame next of its Receive Ring: recv_next, and
 * the slot's word and the tag it will be published with, kept beside it
 * (rx_word, rx_tag) for the looks at that word -- every idle pass's
 * (nic_quiet) and Net-Recv's own, the one that finds the frame and the one
 * after it that finds none -- which took the slot's address and lap from
 * the index each time (8 B ping-pong: 22 Ir a look).
 */
static inline void lc_recv_next_set(struct lc_nic *nic, uint32_t next)
{
	nic->ctrl->net_recv.recv_next = next;
	nic->rx_word = lc_recv_word(nic->sram, &nic->g, next);
	nic->rx_tag = lc_recv_tag(&nic->g, next);
}

/*
 * Net-Recv is done with frame next (recv_next): on to the next slot, whose
 * word lies a slot's bytes further on, but at the ring's end, where it is
 * slot 0's and the lap moves on.
 */
static inline void lc_recv_next_advance(struct lc_nic *nic, uint32_t next)
{
	if (__builtin_expect((next + 1) & (nic->g.recv_ring - 1), 1)) {
		nic->ctrl->net_recv.recv_next = next + 1;
		nic->rx_word = (_Atomic uint32_t *)(void *)((uint8_t *)(void *)nic->rx_word + nic->g.slot_bytes);
	} else {
		lc_recv_next_set(nic, next + 1);
	}
}

/* Check a geometry is self-consistent. 0 or LC_ERR_CONFIG with a message. */
/*
 * The DMA engine's copy for LC_DMA_STREAM blocks: n bytes from src to dst with
 * non-temporal stores (any alignment and length; x86-64, else memcpy), then a
 * store fence, so that the engine's release of the chain's done index (R4)
 * publishes them as it publishes a memcpy's.
 */
LC_NIC_FUNC void lc_nic_copy_stream(void *dst, const void *src, size_t n);
LC_NIC_FUNC int lc_geom_check(const struct lc_nic_geom *g, char *err, size_t errlen);
/* Layout of a segment for g: per-node areas and switch ports. */
LC_NIC_FUNC void lc_seg_layout(const struct lc_nic_geom *g, struct lc_seg_node_layout *nl,
			       uint64_t *off_nodes, uint64_t *off_net, uint64_t *total);
/* Where the name table starts, given the end of what precedes it. */
static inline uint64_t lc_seg_names_off(uint64_t end)
{
	return (end + LC_LINE - 1) / LC_LINE * LC_LINE;
}
/* nic/names.c: initialise the table's process-shared robust mutex.  0 or LC_ERR_SYS with a message. */
LC_NIC_FUNC int lc_seg_names_init(struct lc_seg_names *t, char *err, size_t errlen);
/* Map the segment and verify it was made for g. 0 or negative lc_err with a message. */
LC_NIC_FUNC int lc_seg_map(const char *name, const struct lc_nic_geom *g, uint8_t **base,
			   size_t *bytes, char *err, size_t errlen);
/*
 * Node `node`'s SRAM and control block in this mapping, and its state (A10).
 * Inline, from the table lc_nic_attach fills: Net-Send reaches them for every
 * frame it puts on a link (an out-of-line call and the layout's arithmetic
 * each time cost lc_net_put about a third of its instructions).
 */
static inline uint8_t *lc_seg_sram(const struct lc_nic *nic, uint32_t node)
{
	return nic->node_sram[node];
}

/* Node's whole area of the segment in this mapping (its SRAM is at nl.sram in it). */
static inline uint8_t *lc_seg_node_area(const struct lc_nic *nic, uint32_t node)
{
	return nic->node_sram[node] - nic->nl.sram;
}

static inline struct lc_nic_ctrl *lc_seg_ctrl(const struct lc_nic *nic, uint32_t node)
{
	return (struct lc_nic_ctrl *)(void *)(nic->node_sram[node] + nic->g.off_ctrl);
}

static inline uint32_t lc_seg_node_state(const struct lc_nic *nic, uint32_t node)
{
	/* acquire: pairs with the release of the state in lc_seg_mark_dead / lc_nic_detach (R10) */
	return atomic_load_explicit(&nic->hdr->node[node].state, memory_order_acquire);
}
/* 1 while the launcher sees node's process stopped (lc_seg_mark_stopped). */
LC_NIC_FUNC int lc_seg_node_stopped(const struct lc_nic *nic, uint32_t node);
/*
 * The frame the MCP holds for dst found dst's Receive Ring full (again): run
 * the backpressure time limit's clock s.  Returns 1 once the limit has passed
 * (the caller drops the frame and counts it), else 0.  Counts bp_stalls and
 * the port's stalls (gport busy) when a stall begins.
 */
LC_NIC_FUNC int lc_nic_stall_expired(struct lc_nic *nic, struct lc_nic_stall *s, uint32_t dst,
				     uint32_t busy);
/* The frame that waited in s left (sent, dropped or skipped): the clock stops. */
static inline void lc_nic_stall_end(struct lc_nic_stall *s)
{
	/* stored only when running: nearly every frame leaves without a stall */
	if (atomic_load_explicit(&s->on, memory_order_relaxed))
		atomic_store_explicit(&s->on, 0, memory_order_relaxed);
}

/*
 * Ask for line p for writing (x86-64 PREFETCHW, which every AMD64 core and
 * Intel's since Broadwell run; elsewhere the compiler's write prefetch).
 * Inline assembly: __builtin_prefetch(p, 1) emits it only under -mprfchw.
 */
static inline void lc_prefetch_write(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* Switch port gport (global id) of the job. */
static inline struct lc_net_port *lc_net_port(struct lc_nic *nic, uint32_t gport)
{
	return nic->ports + gport;
}

/* Take one port; a lock held by a dead or exited node is stolen. */
static inline int lc_net_port_trylock(struct lc_nic *nic, struct lc_net_port *p)
{
	uint32_t me = nic->node + 1, owner = 0;

	/* acquire (A5): pairs with the release in lc_net_unlock (R5) of the last holder */
	if (atomic_compare_exchange_strong_explicit(&p->owner, &owner, me, memory_order_acquire,
						    memory_order_relaxed))
		return 1;
	if (owner - 1 < nic->g.nodes && lc_seg_node_state(nic, owner - 1) >= LC_NODE_EXITED)
		return atomic_compare_exchange_strong_explicit(&p->owner, &owner, me,
							       memory_order_acquire, memory_order_relaxed);
	return 0;
}

/*
 * Take every port of r in route order (wormhole); on failure release them.
 * 1 taken, 0 busy (*busy = gport).  Inline, with lc_net_unlock: Net-Send
 * takes and gives a route for every frame.
 */
static inline int lc_net_lock(struct lc_nic *nic, const struct lc_route *r, uint32_t *busy)
{
	/* one port (a crossbar): no loop to set up around the compare-and-swap */
	if (__builtin_expect(r->hops == 1, 1)) {
		if (lc_net_port_trylock(nic, lc_net_port(nic, r->gport[0])))
			return 1;
		*busy = r->gport[0];
		return 0;
	}
	for (uint32_t i = 0; i < r->hops; i++) {
		if (!lc_net_port_trylock(nic, lc_net_port(nic, r->gport[i]))) {
			*busy = r->gport[i];
			while (i-- > 0)
				/* release (R5): pairs with the acquire in lc_net_port_trylock (A5) */
				atomic_store_explicit(&lc_net_port(nic, r->gport[i])->owner, 0,
						      memory_order_release);
			return 0;
		}
	}
	return 1;
}

static inline void lc_net_unlock(struct lc_nic *nic, const struct lc_route *r)
{
	if (__builtin_expect(r->hops == 1, 1)) {
		/* release (R5): pairs with the acquire in lc_net_port_trylock (A5) */
		atomic_store_explicit(&lc_net_port(nic, r->gport[0])->owner, 0, memory_order_release);
		return;
	}
	for (uint32_t i = r->hops; i-- > 0;)
		/* release (R5): pairs with the acquire in lc_net_port_trylock (A5) */
		atomic_store_explicit(&lc_net_port(nic, r->gport[i])->owner, 0, memory_order_release);
}

/*
 * With the port lock of the route to dst held: 1 when dst's Receive Ring has
 * room for `need` frames (1, or 2 for a frame the fault injector duplicates),
 * its head in *rh (the slot to fill and publish, then release recv_head for
 * the next sender), else 0.  Every writer of a remote Receive Ring checks room here.
 */
LC_NIC_FUNC int lc_net_room(struct lc_nic *nic, uint32_t dst, uint32_t *rh, uint32_t need);
#if LC_NET_TIMED
/*
 * The timed network (nic/net.c; docs/internals.md, "The timed network").
 * lc_net_link_free: 1 when this NIC's link to its switch is free at now.
 * lc_net_time: Net-Send, holding route r's port locks with room at the
 * receiver, puts a frame of `bytes` on the link at now: reserves the link and
 * every output port of r, and gives the frame's arrival at the receiving NIC
 * in *arrive.  0 when another endpoint of this NIC took the link first (ask
 * again later), else 1.
 */
LC_NIC_FUNC int lc_net_link_free(struct lc_nic *nic, uint64_t now);
LC_NIC_FUNC int lc_net_time(struct lc_nic *nic, const struct lc_route *r, uint32_t bytes, uint64_t now,
			    uint64_t *arrive);
#endif
/*
 * Net-Recv, an RDMA frame at Receive Ring index next (checked like any frame,
 * the nic_rx verdict CONTINUE, room for one Rx DMA block and a staging slot
 * at chain index h0): 1 placed (payload to its registered region, header to
 * staging), 0 no room for its two blocks yet, -1 refused (counted; the
 * caller drops it).  nic/rdma.c.
 */
LC_NIC_FUNC int lc_nic_rdma_place(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t next, uint32_t h0);
/*
 * Put the frame at hdr (hdr_bytes + hdr->len, dst already < nodes and alive)
 * on the link to dst, the one path of every frame this MCP sends: Net-Send's
 * unicast frame and each group frame copy (nic/mcast.c, hdr->dst = dst set by
 * the caller).  The per-link fault injector (faults.h) runs here, so every
 * copy draws its own faults and is counted on its own link.  Returns
 * LC_NET_PUT_SENT (in dst's Receive Ring, or gone: dropped or held back by
 * a fault), LC_NET_PUT_BUSY (port held or ring full; *busy = the port) or
 * LC_NET_PUT_LATER (a delay fault: ask again on a later step).
 */
enum { LC_NET_PUT_SENT = 0, LC_NET_PUT_BUSY = 1, LC_NET_PUT_LATER = 2 };
LC_NIC_FUNC int lc_net_put(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t dst, uint32_t *busy);

/* DMA engine: one control block of the highest-priority chain with work. Returns 1 if one ran. */
LC_NIC_FUNC int lc_nic_dma_step(struct lc_nic *nic);
/*
 * The inline MCP's pass (step_all) takes a burst of arrived frames at once:
 * Net-Recv up to LC_NIC_STEP_BATCH frames, then the DMA engine as many
 * blocks (lc_nic_dma_run, dma.c), so each frame reaches staging in the pass
 * that took it.  A test that steps the engines one by one still gets one
 * frame or block per step.
 */
#define LC_NIC_STEP_BATCH 8
LC_NIC_FUNC int lc_nic_dma_run(struct lc_nic *nic, int max);
/* Give spare chain c (2..3) n (power of two) blocks of caller memory. */
LC_NIC_FUNC int lc_nic_dma_chain_setup(struct lc_nic *nic, uint32_t c,
				       struct lc_nic_dma_block *blocks, uint32_t n);
/*
 * Host: queue a block on chain c (1..3) and activate it through the doorbell.
 * flags: LC_DMA_TO_NIC or LC_DMA_TO_HOST, optionally LC_DMA_SIGNAL.
 * 0 and *ticket (chain_done reaches it when the block is done), or
 * LC_ERR_AGAIN (chain or Tx FIFO full), LC_ERR_INVAL.
 */
LC_NIC_FUNC int lc_nic_dma_chain_post(struct lc_nic *nic, uint32_t c, uint32_t sram_off,
				      void *host, uint32_t len, uint32_t flags, uint32_t *ticket);
/* Blocks completed on chain c (free-running, acquire). */
LC_NIC_FUNC uint32_t lc_nic_dma_chain_done(const struct lc_nic *nic, uint32_t c);
/* Completion actions called by the DMA engine for a SIGNAL block. */
LC_NIC_FUNC void lc_nic_tx_dma_complete(struct lc_nic *nic, const struct lc_nic_dma_block *b);
LC_NIC_FUNC void lc_nic_rx_dma_complete(struct lc_nic *nic, const struct lc_nic_dma_block *b, uint32_t crc_owner,
				       uint32_t crc);
/* The engine's copy of an LC_DMA_CRC block; *owner, the returned CRC: what the Rx FIFO entry carries. */
LC_NIC_FUNC uint32_t lc_nic_rx_dma_crc_copy(struct lc_nic *nic, const struct lc_nic_dma_block *b, uint32_t *owner);
/* The engine's copy of a Tx LC_DMA_CRC block: payload into the slot, the CRC into its header (lc_nic_tx_post_dma_crc). */
LC_NIC_FUNC void lc_nic_tx_dma_crc_copy(struct lc_nic *nic, const struct lc_nic_dma_block *b);
/*
 * Activate Net-Recv's written Rx DMA blocks (chain 0) for the DMA engine --
 * the MCP's fairness between the two directions.  The engine takes its
 * chains in strict priority, the Rx chain first; under a flood from the
 * peer (a new frame before every pass: a bidirectional stream of 16 MiB
 * messages) it never reached the Tx chain, and a live node's own sends
 * failed at the backpressure time limit.  So while a Tx block waits, the Rx
 * blocks active or done since the last Tx block are at most LC_NIC_RX_BURST
 * (the Rx completions count them, rx_run); the next are activated when a Tx
 * block completes (lc_nic_tx_dma_complete), so the engine runs up to
 * LC_NIC_RX_BURST Rx blocks, then a Tx block, and so on; with no Tx block
 * waiting, every written block is active at once.  Net-Recv
 * calls it for each block it writes, the Tx completion and the steppers for
 * the blocks left; in thread mode from two threads, so the index only grows
 * (compare-and-swap), never past chain_head[0] (A16).  Inline, the common
 * case -- no Tx block waits, one stepper -- is a store; the rest is
 * lc_nic_rx_activate_waiting (nic.c).
 */
#define LC_NIC_RX_BURST 8
LC_NIC_FUNC void lc_nic_rx_activate_waiting(struct lc_nic *nic);
static inline void lc_nic_rx_activate(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;

	if (!nic->g.mcp_thread && atomic_load_explicit(&ct->chain_active[1].v, memory_order_relaxed) ==
				      atomic_load_explicit(&ct->chain_done[1].v, memory_order_relaxed)) {
		/* acquire (A16) and release (R14): the one stepper wrote the blocks; the engine reads them */
		atomic_store_explicit(&ct->chain_active[0].v,
				      atomic_load_explicit(&ct->chain_head[0].v, memory_order_acquire),
				      memory_order_release);
		return;
	}
	lc_nic_rx_activate_waiting(nic);
}

/*
 * A link engine either side may run (nic.c; docs/internals.md): an idle pass
 * of the inline MCP moves the next DMA frame for this node out of the Send
 * Ring of the node whose DMA frame Net-Recv took last (pull_src), until
 * LC_NIC_PULL_PATIENCE passes in a row found none.  1 when a frame moved.
 */
#define LC_NIC_PULL_PATIENCE 256u
LC_NIC_FUNC int lc_nic_pull_step(struct lc_nic *nic);

/* The engines, one bounded step each (inline mode, tests). Return the work done. */
LC_NIC_FUNC int lc_nic_doorbell_step(struct lc_nic *nic);
LC_NIC_FUNC int lc_nic_net_send_step(struct lc_nic *nic);
LC_NIC_FUNC int lc_nic_net_recv_step(struct lc_nic *nic);
/*
 * Net-Recv's other half: free the Receive Ring slots of the frames whose Rx
 * DMA is done (chain_done[0], A4).  The steppers call it (inline: after a
 * DMA step that did a block; thread mode: before each Net-Recv step); a
 * test that steps the engines one by one calls it where it wants the slots
 * freed.
 */
LC_NIC_FUNC void lc_nic_net_recv_reap(struct lc_nic *nic);
/*
 * The DMA step of thread mode: as lc_nic_dma_step, and while a block's copy
 * is under way the engine's lock (held by the caller) reads
 * LC_NIC_ENG_COPYING, for the overlap counters of the other engines.
 */
LC_NIC_FUNC int lc_nic_dma_step_marked(struct lc_nic *nic, _Atomic int *lock);
/*
 * Thread mode's pass over the engines: each engine whose lock is free runs
 * one step under it, the others are left to the thread that holds them.
 * lc_nic_assist calls it in thread mode (the MCP thread too); tests call it
 * on an inline NIC to hold one engine and watch the others.
 */
LC_NIC_FUNC int lc_nic_engines_step(struct lc_nic *nic);

/* Tests only: on a fresh NIC (no traffic yet), start every ring index at base. */
LC_NIC_FUNC void lc_nic_debug_set_base(struct lc_nic *nic, uint32_t base);

LC_NIC_FUNC uint64_t lc_nic_now_ns(void);

/* Counters: each has one writer engine, so no read-modify-write. */
static inline void lc_nic_count(struct lc_nic *nic, enum lc_nic_stat s, uint64_t v)
{
	lc_count_add(&nic->stats[s], v);
}

/* A counter two engines write (nic_drops_bad, nic_drops_proto: drop paths only). */
static inline void lc_nic_count_shared(struct lc_nic *nic, enum lc_nic_stat s, uint64_t v)
{
	atomic_fetch_add_explicit(&nic->stats[s], v, memory_order_relaxed);
}

#endif /* LC_NIC_IMPL_H */
