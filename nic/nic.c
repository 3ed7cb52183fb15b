/* SPDX-License-Identifier: MIT */
/* The NIC of one node: attach/detach, host side of the rings and doorbell, the MCP engines. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dma_step.h"
#include "lc_copy.h"
#include "lc_crc32c.h"
#include "lc_env.h"
#include "lc_marks.h"
#include "lc_pc_nic.h"
#include "nic_impl.h"

/* The ordering contract (R1..R14 / A1..A14) and the engines' state are written at the top of nic_impl.h. */

uint64_t lc_nic_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint8_t *send_slot(const struct lc_nic *nic, uint32_t i)
{
	return nic->send_ring + (size_t)(i & (nic->g.send_ring - 1)) * nic->g.slot_bytes;
}

#if defined(LC_ZEROCOST_NEGATIVE) && LC_ZEROCOST_NEGATIVE
/* lc_pc_nic.h: the zero-cost proof's negative control, an out-of-line call at every NIC pointcut */
__attribute__((noinline)) void lc_zc_negative_nic_tick(void)
{
	__asm__ volatile("" ::: "memory");
}
#endif

/* ---- identity, liveness, counters ---- */

uint32_t lc_nic_node(const struct lc_nic *nic)
{
	return nic->node;
}

uint32_t lc_nic_nodes(const struct lc_nic *nic)
{
	return nic->g.nodes;
}

int lc_nic_peer_alive(const struct lc_nic *nic, uint32_t peer)
{
	/* a node not attached yet is alive: frames to it wait in its Receive Ring */
	return peer < nic->g.nodes && lc_seg_node_state(nic, peer) < LC_NODE_EXITED;
}

int lc_nic_peer_stopped(const struct lc_nic *nic, uint32_t peer)
{
	return peer < nic->g.nodes && lc_seg_node_stopped(nic, peer);
}

int lc_nic_peer_exited(const struct lc_nic *nic, uint32_t peer)
{
	return peer < nic->g.nodes && lc_seg_node_state(nic, peer) == LC_NODE_EXITED;
}

uint32_t lc_nic_dst_drops(const struct lc_nic *nic, uint32_t peer)
{
	if (peer >= nic->g.nodes)
		return 0;
	/* acquire: pairs with the release in count_dst_drop */
	return atomic_load_explicit(&nic->dst_drops[peer], memory_order_acquire);
}

const _Atomic uint32_t *lc_nic_dst_drop_counts(const struct lc_nic *nic)
{
	return nic->dst_drops;
}

_Atomic uint64_t *lc_nic_stats(struct lc_nic *nic)
{
	return nic->stats;
}

_Atomic uint64_t *lc_nic_host_stats(struct lc_nic *nic)
{
	return nic->host_stats;
}

static void count_dst_drop(struct lc_nic *nic, uint32_t dst)
{
	_Atomic uint32_t *d = &nic->dst_drops[dst];

	/* release: pairs with the acquire in lc_nic_dst_drops (single writer: this NIC's Net-Send) */
	atomic_store_explicit(d, atomic_load_explicit(d, memory_order_relaxed) + 1, memory_order_release);
}

/* ---- transmit, host side ---- */

void *lc_nic_tx_slot(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t head = atomic_load_explicit(&ct->send_head.v, memory_order_relaxed);
	uint32_t fh = atomic_load_explicit(&nic->db->head.v, memory_order_relaxed);
	uint32_t th = atomic_load_explicit(&ct->chain_head[1].v, memory_order_relaxed);

	if (head - nic->hc_send_tail >= nic->g.send_ring) {
		/* acquire (A1): pairs with Net-Send's release of send_tail (R1) */
		nic->hc_send_tail = atomic_load_explicit(&ct->send_tail.v, memory_order_acquire);
		if (head - nic->hc_send_tail >= nic->g.send_ring)
			return NULL;
	}
	if (fh - nic->hc_txfifo_tail >= nic->g.tx_fifo) {
		/* acquire (A3): pairs with the doorbell service's release of txfifo_tail (R3) */
		nic->hc_txfifo_tail = atomic_load_explicit(&nic->db->tail.v, memory_order_acquire);
		if (fh - nic->hc_txfifo_tail >= nic->g.tx_fifo)
			return NULL;
	}
	if (th - nic->hc_txdma_done >= nic->g.tx_dma) {
		/* acquire (A4): pairs with the DMA engine's release of chain_done (R4) */
		nic->hc_txdma_done = atomic_load_explicit(&ct->chain_done[1].v, memory_order_acquire);
		if (th - nic->hc_txdma_done >= nic->g.tx_dma)
			return NULL;
	}
	return send_slot(nic, head);
}


static inline __attribute__((always_inline)) void tx_post_pio(struct lc_nic *nic)
{
	uint32_t head = atomic_load_explicit(&nic->ctrl->send_head.v, memory_order_relaxed);

	lc_nic_ring(nic, LC_DB_PIO, head);
	atomic_store_explicit(&nic->ctrl->send_head.v, head + 1, memory_order_relaxed);
}

void lc_nic_tx_post_pio(struct lc_nic *nic)
{
	tx_post_pio(nic);
}

/* The Tx DMA block of a frame whose header is in the slot at send_head: post it, ring, take the slot. */
static inline __attribute__((always_inline)) uint32_t tx_post_dma(struct lc_nic *nic, const void *src,
								  uint32_t len, uint32_t flags,
								  struct lc_nic_dma_crc crc)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t head = atomic_load_explicit(&ct->send_head.v, memory_order_relaxed);
	uint32_t th = atomic_load_explicit(&ct->chain_head[1].v, memory_order_relaxed);
	struct lc_nic_dma_block *b = &nic->chain[1].blocks[th & nic->chain[1].mask];

	b->host = (uint64_t)(uintptr_t)src;
	b->sram = nic->g.off_send_ring + (head & (nic->g.send_ring - 1)) * nic->g.slot_bytes +
		  nic->g.hdr_bytes;
	b->len = len <= nic->g.mtu ? len : nic->g.mtu;   /* never past the slot */
	b->flags = LC_DMA_TO_NIC | LC_DMA_SIGNAL | flags;
	if (flags & LC_DMA_CRC)
		nic->tx_crc[th & nic->chain[1].mask] = crc;   /* before the doorbell, as the block */
	b->tag = head;
	b->next = (th + 1) & nic->chain[1].mask;
	b->status = 0;
	atomic_store_explicit(&ct->chain_head[1].v, th + 1, memory_order_relaxed);
	lc_nic_ring(nic, LC_DB_CHAIN(1), th);
	atomic_store_explicit(&ct->send_head.v, head + 1, memory_order_relaxed);
	return th + 1;
}

uint32_t lc_nic_tx_post_dma(struct lc_nic *nic, const void *src, uint32_t len)
{
	return tx_post_dma(nic, src, len, 0, (struct lc_nic_dma_crc){ 0, 0 });
}

uint32_t lc_nic_tx_post_dma_crc(struct lc_nic *nic, const void *src, uint32_t len, uint32_t owner,
				uint32_t seed)
{
	/* the CRC's 4 bytes stay inside the header */
	if (owner > nic->g.hdr_bytes - 4u)
		return tx_post_dma(nic, src, len, 0, (struct lc_nic_dma_crc){ 0, 0 });
	return tx_post_dma(nic, src, len, LC_DMA_CRC, (struct lc_nic_dma_crc){ owner, seed });
}

uint32_t lc_nic_tx_dma_done(const struct lc_nic *nic)
{
	/* acquire (A4): pairs with the DMA engine's release of chain_done (R4) */
	return atomic_load_explicit(&nic->ctrl->chain_done[1].v, memory_order_acquire);
}

int lc_nic_tx_idle(const struct lc_nic *nic)
{
	/* acquire (A1): pairs with Net-Send's release of send_tail (R1) */
	return atomic_load_explicit(&nic->ctrl->send_head.v, memory_order_relaxed) ==
	       atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_acquire);
}

/* ---- receive, host side ---- */

struct lc_frame_hdr *lc_nic_rx_peek(struct lc_nic *nic)
{
	uint32_t t = atomic_load_explicit(&nic->ctrl->rxfifo_tail.v, memory_order_relaxed);
	const struct lc_nic_fifo_entry *e;

	if (t == nic->hc_rxfifo_head) {
		/* acquire (A8): pairs with the MCP's release of rxfifo_head (R8) */
		nic->hc_rxfifo_head = atomic_load_explicit(&nic->ctrl->rxfifo_head.v, memory_order_acquire);
		if (t == nic->hc_rxfifo_head)
			return NULL;
	}
	e = &nic->rxfifo[t & (nic->g.rx_fifo - 1)];
	return (struct lc_frame_hdr *)(nic->staging + (size_t)e->addr * nic->g.slot_bytes);
}

void lc_nic_rx_crc_ask(struct lc_nic *nic, uint32_t owner, uint32_t seed)
{
	if (!nic->rx_ask) {
		nic->rx_ask = owner + 1;
		nic->rx_ask_seed = seed;
	}
}

int lc_nic_rx_crc(const struct lc_nic *nic, const struct lc_frame_hdr *hdr, uint32_t owner, uint32_t *crc)
{
	uint32_t t = atomic_load_explicit(&nic->ctrl->rxfifo_tail.v, memory_order_relaxed);
	const struct lc_nic_fifo_entry *e = &nic->rxfifo[t & (nic->g.rx_fifo - 1)];

	/* the entry lc_nic_rx_peek returned, for the frame at hdr (not a copy of it elsewhere) */
	if (t == nic->hc_rxfifo_head || e->pad != owner + 1 ||
	    (const uint8_t *)hdr != nic->staging + (size_t)e->addr * nic->g.slot_bytes)
		return 0;
	*crc = e->aux;
	return 1;
}

void lc_nic_rx_release(struct lc_nic *nic)
{
	uint32_t t = atomic_load_explicit(&nic->ctrl->rxfifo_tail.v, memory_order_relaxed);

	/* release (R9): pairs with Net-Recv's acquire of rxfifo_tail (A9): entry and staging slot free */
	atomic_store_explicit(&nic->ctrl->rxfifo_tail.v, t + 1, memory_order_release);
}

/* ---- the MCP: doorbell service ---- */

static inline __attribute__((always_inline)) int doorbell_step(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	struct lc_nic_doorbell *db = nic->db;
	uint32_t t = atomic_load_explicit(&db->tail.v, memory_order_relaxed);
	/* acquire (A2): pairs with the host's release of txfifo_head (R2) */
	uint32_t h = atomic_load_explicit(&db->head.v, memory_order_acquire);
	uint32_t n = h - t;

	if (n == 0)
		return 0;
	for (; t != h; t++) {
		const struct lc_nic_fifo_entry *e = &db->e[t & (nic->g.tx_fifo - 1)];
		uint32_t a = LC_DB_OFF(e->addr), c = (a - LC_DB_CHAIN(0)) / 8u;

		if (e->addr == (nic->db_page | LC_DB_PIO))     /* the common case first: one compare */
			/* release (R13): pairs with Net-Send's acquire of tx_ready (A13) */
			atomic_store_explicit(&nic->tx_ready[e->value & (nic->g.send_ring - 1)], LC_TX_OWN,
					      memory_order_release);
		else if (LC_DB_NODE(e->addr) != nic->node)
			/* a write that names another endpoint's page: the MCP serves each endpoint its own */
			lc_nic_count(nic, LC_NIC_STAT_db_refused, 1);
		else if (a >= LC_DB_CHAIN(1) && c < LC_DMA_CHAINS && (a & 7u) == 0)
			/* release (R14): pairs with the DMA engine's acquire of chain_active (A14) */
			atomic_store_explicit(&ct->chain_active[c].v, e->value + 1, memory_order_release);
		/* any other address of the doorbell region is ignored, as by the real MCP */
	}
	lc_nic_count(nic, LC_NIC_STAT_doorbells, n);
	/* release (R3): pairs with the host's acquire of txfifo_tail (A3) */
	atomic_store_explicit(&db->tail.v, h, memory_order_release);
	return (int)n;
}

int lc_nic_doorbell_step(struct lc_nic *nic)
{
	return doorbell_step(nic);
}

void lc_nic_tx_dma_complete(struct lc_nic *nic, const struct lc_nic_dma_block *b)
{
	/* release (R13): pairs with Net-Send's acquire of tx_ready (A13): the payload is in the slot */
	atomic_store_explicit(&nic->tx_ready[b->tag & (nic->g.send_ring - 1)], nic->tx_dma_ready,
			      memory_order_release);
	/* the Rx chain's turn again (lc_nic_rx_activate: LC_NIC_RX_BURST Rx blocks, then a Tx block) */
	atomic_store_explicit(&nic->ctrl->dma.rx_run, 0, memory_order_relaxed);
	lc_nic_rx_activate(nic);
}

void lc_nic_rx_activate_waiting(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	/* acquire (A16): pairs with Net-Recv's release of chain_head[0] (R16): the blocks before it are written */
	uint32_t head = atomic_load_explicit(&ct->chain_head[0].v, memory_order_acquire);
	uint32_t act = atomic_load_explicit(&ct->chain_active[0].v, memory_order_relaxed), to;

	do {
		if (act == head)
			return;
		to = head;
		if (atomic_load_explicit(&ct->chain_active[1].v, memory_order_relaxed) !=
		    atomic_load_explicit(&ct->chain_done[1].v, memory_order_relaxed)) {
			/* a Tx block waits: LC_NIC_RX_BURST Rx blocks since the last Tx block, then it */
			uint32_t run = atomic_load_explicit(&ct->dma.rx_run, memory_order_relaxed);
			uint32_t lim = atomic_load_explicit(&ct->chain_done[0].v, memory_order_relaxed) +
				       (run < LC_NIC_RX_BURST ? LC_NIC_RX_BURST - run : 0);

			if ((int32_t)(head - lim) > 0)
				to = lim;
			if ((int32_t)(to - act) <= 0)
				return;
		}
		if (!nic->g.mcp_thread) {
			/* inline: the one stepper (step_lock or the host's progress lock) is the only writer */
			/* release (R14): pairs with the DMA engine's acquire of chain_active (A14) */
			atomic_store_explicit(&ct->chain_active[0].v, to, memory_order_release);
			return;
		}
		/* thread mode: Net-Recv's and the DMA engine's threads both activate; it only grows (R14) */
	} while (!atomic_compare_exchange_weak_explicit(&ct->chain_active[0].v, &act, to, memory_order_release,
							memory_order_relaxed));
}

/* ---- the MCP: putting a frame on a link ---- */

static inline __attribute__((always_inline)) int net_room(struct lc_nic *nic, uint32_t dst, uint32_t *rh,
							   uint32_t need)
{
	struct lc_nic_ctrl *rc = lc_seg_ctrl(nic, dst);
	uint32_t t;

	/* the port lock (A5) orders this load after the previous writer's store */
	*rh = atomic_load_explicit(&rc->recv_head.v, memory_order_relaxed);
	/*
	 * Room from the last recv_tail seen (stale means fewer free slots), so the
	 * remote line is read only when the ring looks full.  Limit: a cache left
	 * untouched while exactly 2^32..2^32+recv_ring frames from other senders
	 * reached dst would look valid; 2^32 frames is minutes of traffic.
	 */
	if (*rh - nic->peer_tail[dst] <= nic->g.recv_ring - need)
		return 1;
	/* acquire (A6): pairs with the remote Net-Recv's release of recv_tail (R6) */
	t = atomic_load_explicit(&rc->recv_tail.v, memory_order_acquire);
	/*
	 * Cached one short of an empty ring: a lone frame's slot is freed in the
	 * receiver's pass after the one that moved it (step_busy), so whether t
	 * counts the frame last put is a race; cached so, the next look comes at
	 * the same frame either way (the zero-cost proof's counts are exact), and
	 * the room now is t's own.
	 */
	nic->peer_tail[dst] = t - (t == *rh);
	return *rh - t <= nic->g.recv_ring - need;
}

int lc_net_room(struct lc_nic *nic, uint32_t dst, uint32_t *rh, uint32_t need)
{
	return net_room(nic, dst, rh, need);
}

/* 1 when the destination (its control block rc) holds the data frames of src (lc_nic_rx_hold). */
static inline int lc_net_held(const struct lc_nic_ctrl *rc, uint32_t src)
{
	return (int)(atomic_load_explicit(&rc->rx_hold[src >> 6], memory_order_relaxed) >> (src & 63) & 1);
}

void lc_nic_rx_hold(struct lc_nic *nic, uint32_t src, int on)
{
	_Atomic uint64_t *w = &nic->ctrl->rx_hold[src >> 6];
	uint64_t bit = 1ull << (src & 63);

	if (on)
		atomic_fetch_or_explicit(w, bit, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(w, ~bit, memory_order_relaxed);
}

/*
 * The traffic matrix's row of a node (nic.h, lc_seg_read_traffic: traffic and
 * sizes in its segment area); counted once per frame lc_net_put was asked to
 * put and reported sent, whatever the fault injector made of it on the wire.
 * Two writers: the node's own Net-Send and the Net-Send of a NIC that pulls
 * its frames (lc_nic_pull_step), so atomic adds (only when the job records
 * traffic, --stats).
 */
__attribute__((noinline, cold))   /* out of line: Net-Send's hot path keeps its registers */
static void lc_net_count_traffic(_Atomic uint64_t *traffic, _Atomic uint64_t *sizes, uint32_t dst,
				 const struct lc_frame_hdr *h, uint32_t bytes)
{
	_Atomic uint64_t *t = traffic + (size_t)dst * LC_TRAFFIC_COUNT;
	uint64_t first = h->type == LC_FT_DATA && (h->flags & LC_FF_FIRST);

#define LC_X_ADD(k, v) atomic_fetch_add_explicit(&t[k], (v), memory_order_relaxed)
	LC_X_ADD(LC_TRAFFIC_msgs, first);
	LC_X_ADD(LC_TRAFFIC_frames, 1);
	LC_X_ADD(LC_TRAFFIC_bytes, bytes);
	if (first) {
		/* the message's size, once (its first frame): the job's size histogram */
		t = sizes + 2 * lc_size_bucket(h->msg_len);
		LC_X_ADD(0, 1);
		LC_X_ADD(1, h->msg_len);
	}
#undef LC_X_ADD
}

/* A frame of `bytes` crossed route r: count it at each port (the port locks held: one writer). */
static inline void lc_net_port_count(struct lc_nic *nic, const struct lc_route *r, uint32_t bytes)
{
	/* one port (a crossbar), as in lc_net_lock */
	if (__builtin_expect(r->hops == 1, 1)) {
		struct lc_net_port *p = lc_net_port(nic, r->gport[0]);

		lc_count_add(&p->frames, 1);
		lc_count_add(&p->bytes, bytes);
		return;
	}
	for (uint32_t i = 0; i < r->hops; i++) {
		struct lc_net_port *p = lc_net_port(nic, r->gport[i]);

		lc_count_add(&p->frames, 1);
		lc_count_add(&p->bytes, bytes);
	}
}

/*
 * A stream to dst: this frame follows one to dst with no frame received by
 * this NIC in between (a ping-pong always receives one).  Then the first
 * line of the Receive Ring slot after next is asked for writing now, while
 * the receiver reads the slots behind: the next frame's copy finds it owned.
 * Else each frame's first store into dst's ring waits for the line to come
 * back from the receiver's core, and the stores behind it wait in the store
 * buffer (about 84 a message on msgrate's sender), so that the sender has
 * about one such line in flight: in a placement where a line crosses in 0.2
 * us, the message rate was that crossing.  msgrate 8 B new/old, interleaved
 * with a placement probe: 1.08-1.20x slow, 1.00-1.02x fast.  Not in a
 * ping-pong: there the receiver takes that line back (its poll of its next
 * slot, its read ahead of the slot after, net_recv_step) before the frame is
 * written, and the ping-pong was 1.08x (fast) to 1.20x (slow) slower with the
 * next slot asked for at every frame.  The slot after next rather than the
 * next: the next is the one a receiver that keeps up polls.
 */
static inline void net_stream_ahead(struct lc_nic *nic, uint32_t dst, uint32_t next)
{
	/*
	 * the frames received: the Rx DMA chain's head, which Net-Recv moves for
	 * each (atomic: in thread mode Net-Recv runs beside this engine)
	 */
	uint32_t seen = atomic_load_explicit(&nic->ctrl->chain_head[0].v, memory_order_relaxed);

	if (dst == nic->stream_dst && seen == nic->stream_seen)
		lc_prefetch_write(lc_recv_word(lc_seg_sram(nic, dst), &nic->g, next + 1));
	nic->stream_dst = dst;
	nic->stream_seen = seen;
}

int lc_net_put(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t dst, uint32_t *busy)
{
	const struct lc_route *r;
	const struct lc_frame_hdr *frame = hdr;
	struct lc_nic_ctrl *rc;
	_Atomic uint32_t *word;
	uint32_t bytes = nic->g.hdr_bytes + hdr->len, rh, n, need = 1;
#if LC_NET_TIMED
	/* the timed network: the frame waits in the Send Ring while the NIC's link carries another */
	uint64_t now = lc_nic_now_ns(), arrive;

	if (!lc_net_link_free(nic, now))
		return LC_NET_PUT_LATER;
#endif

	if (nic->faults) {
		/*
		 * the fault injector (faults.h): one predictable branch when no fault is
		 * set; its out-parameters are copies, so that frame and bytes, whose
		 * addresses never leave this function, stay in registers (8 B
		 * ping-pong turn 493 -> 491 Ir with the word's address below)
		 */
		const struct lc_frame_hdr *f_frame = frame;
		uint32_t f_bytes = bytes;
		int f = lc_faults_tx(nic, &f_frame, dst, &f_bytes);

		frame = f_frame;
		bytes = f_bytes;

		if (f == 0) {
			/* it left this NIC, lost or held back on the link: traffic the node sent */
			if (nic->traffic)
				lc_net_count_traffic(nic->traffic, nic->sizes, dst, hdr, nic->g.hdr_bytes + hdr->len);
			return LC_NET_PUT_SENT;
		}
		if (f < 0)
			return LC_NET_PUT_LATER;
		need = (uint32_t)f;
	}
	r = &nic->routes[dst];
	if (!lc_net_lock(nic, r, busy))
		return LC_NET_PUT_BUSY;
	rc = lc_seg_ctrl(nic, dst);
	if (!net_room(nic, dst, &rh, need) || (frame->type == LC_FT_DATA && lc_net_held(rc, nic->node))) {
		lc_net_unlock(nic, r);
		*busy = r->gport[r->hops - 1];
		return LC_NET_PUT_BUSY;
	}
#if LC_NET_TIMED
	if (!lc_net_time(nic, r, bytes, now, &arrive)) {
		lc_net_unlock(nic, r);
		return LC_NET_PUT_LATER;
	}
#endif
	/* the NIC-to-NIC copy: header and payload, from our SRAM into the remote Receive Ring */
	word = lc_recv_word(lc_seg_sram(nic, dst), &nic->g, rh);
	lc_copy(lc_recv_frame_at(word), frame, bytes);
	n = 1;
	if (nic->faults)
		n = lc_faults_wire(nic, dst, frame, bytes, rh, nic->g.recv_ring - (rh - nic->peer_tail[dst]));
#if LC_NET_TIMED
	/* when Net-Recv may take them: relaxed, the word's release below orders it (R7) */
	for (uint32_t i = 0; i < n; i++)
		atomic_store_explicit(lc_recv_arrival(lc_seg_sram(nic, dst), &nic->g, rh + i), arrive,
				      memory_order_relaxed);
#endif
	/* the frame as the wire left it (faults applied): now Net-Recv may take it (R7) */
	lc_recv_publish_word(word, &nic->g, rh, bytes);
	LC_PATH_END();
	/* the next sender's slot (the port lock orders the senders, R5 -> A5) */
	atomic_store_explicit(&rc->recv_head.v, rh + n, memory_order_release);
	net_stream_ahead(nic, dst, rh + n);
	lc_net_port_count(nic, r, bytes);
	lc_net_unlock(nic, r);
	lc_nic_count(nic, LC_NIC_STAT_net_tx_frames, 1);
	lc_nic_count(nic, LC_NIC_STAT_net_tx_bytes, bytes);
	/* hdr, the frame asked for (the wire may have carried a reordered one in its place) */
	if (nic->traffic)
		lc_net_count_traffic(nic->traffic, nic->sizes, dst, hdr, nic->g.hdr_bytes + hdr->len);
	return LC_NET_PUT_SENT;
}

/* ---- the MCP: Net-Send ---- */

/*
 * Take the pull lock (struct lc_nic_pull) of the NIC whose control block is
 * ct, for this node: a plain load first (a held lock costs no write to the
 * holder's line), then a CAS (A17).  A lock a dead or exited node held is
 * taken over, as a port lock is (lc_net_port_trylock): it died between its
 * CAS and its release, the frame it was moving still in the Send Ring.
 */
static inline int pull_take(struct lc_nic *nic, struct lc_nic_ctrl *ct)
{
	uint32_t holder = atomic_load_explicit(&ct->pull.lock, memory_order_relaxed);

	/* this node never holds it between calls but in its own Net-Send (ns_held): one of an earlier attach */
	if (holder && holder != nic->node + 1 &&
	    (holder - 1 >= nic->g.nodes || lc_seg_node_state(nic, holder - 1) < LC_NODE_EXITED))
		return 0;
	/* acquire (A17): pairs with the release in pull_give (R17) of the last mover */
	return atomic_compare_exchange_strong_explicit(&ct->pull.lock, &holder, nic->node + 1,
						       memory_order_acquire, memory_order_relaxed);
}

static inline void pull_give(struct lc_nic_ctrl *ct)
{
	/* release (R17): pairs with the acquire in pull_take (A17); send_tail was stored before it */
	atomic_store_explicit(&ct->pull.lock, 0, memory_order_release);
}

/*
 * A pullable frame at send_tail that its own Net-Send has not begun: while a
 * NIC pulls this one's frames (pull.wanted), leave it to the puller as long
 * as this NIC's DMA engine has Tx blocks to copy -- work no other NIC can do,
 * the host buffers they read are this process's -- else take the pull lock.
 * 1 when Net-Send may go on with the frame at tail, 0 when not now.
 */
static int net_send_claim(struct lc_nic *nic, uint32_t tail)
{
	struct lc_nic_ctrl *ct = nic->ctrl;

	if (atomic_load_explicit(&ct->pull.wanted, memory_order_relaxed) &&
	    atomic_load_explicit(&ct->chain_active[1].v, memory_order_relaxed) !=
	    atomic_load_explicit(&ct->chain_done[1].v, memory_order_relaxed))
		return 0;
	if (!pull_take(nic, ct))
		return 0;
	/* the frame may have been pulled meanwhile: send_tail again, under the lock (A17) */
	if (atomic_load_explicit(&ct->send_tail.v, memory_order_relaxed) != tail) {
		pull_give(ct);
		return 0;
	}
	nic->ns_held = 1;
	return 1;
}

static inline __attribute__((always_inline)) int net_send_step(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t tail = atomic_load_explicit(&ct->send_tail.v, memory_order_relaxed);
	uint32_t idx = tail & (nic->g.send_ring - 1);
	struct lc_frame_hdr *hdr;
	uint32_t dst, len, busy = 0;
	uint8_t ready;
	int put;

	/* acquire (A13): pairs with the doorbell service's or the DMA engine's release (R13) */
	ready = atomic_load_explicit(&nic->tx_ready[idx], memory_order_acquire);
	if (!ready)
		return 0;
	if (__builtin_expect(ready == LC_TX_PULL, 0) && !nic->ns_held && !net_send_claim(nic, tail))
		return 0;
	hdr = (struct lc_frame_hdr *)send_slot(nic, tail);
	if (!nic->tx_pc_done) {
		lc_verdict v = LC_PC_NIC(nic_tx, nic, hdr);

		if (v == LC_RETRY)
			return 0;
		if (v == LC_DROP) {
			lc_nic_count_shared(nic, LC_NIC_STAT_nic_drops_proto, 1);
			goto done;
		}
		if (v == LC_CONSUMED)
			goto done;
	}
	dst = hdr->dst;
	len = hdr->len;
	if (dst >= nic->g.nodes || len > nic->g.mtu) {
		lc_nic_count_shared(nic, LC_NIC_STAT_nic_drops_bad, 1);
		goto done;
	}
	if (lc_seg_node_state(nic, dst) >= LC_NODE_EXITED) {
		lc_nic_count(nic, LC_NIC_STAT_dead_drops, 1);
		count_dst_drop(nic, dst);
		goto done;
	}
	put = lc_net_put(nic, hdr, dst, &busy);
	if (put == LC_NET_PUT_LATER)
		goto later;
	if (put == LC_NET_PUT_BUSY)
		goto stall;
done:
	/* relaxed: the slot is set again only after R1 -> A1 (host), R2 -> A2 (doorbell service) */
	atomic_store_explicit(&nic->tx_ready[idx], 0, memory_order_relaxed);
	/*
	 * tx_pc_done and the stall's clock are written only when set: a frame that
	 * leaves at its first try (nearly every one) stores neither, and a
	 * sender's stores queue behind its frames' stores into the remote
	 * Receive Ring (docs/internals.md, nineteenth part)
	 */
	if (nic->tx_pc_done)
		nic->tx_pc_done = 0;
	lc_nic_stall_end(&nic->tx_stall);
	/* release (R1): pairs with the host's acquire of send_tail (A1) */
	atomic_store_explicit(&ct->send_tail.v, tail + 1, memory_order_release);
	if (nic->ns_held) {
		nic->ns_held = 0;
		pull_give(ct);
	}
	return 1;
stall:
	if (lc_nic_stall_expired(nic, &nic->tx_stall, dst, busy)) {
		lc_nic_count(nic, LC_NIC_STAT_bp_drops, 1);
		count_dst_drop(nic, dst);
		goto done;
	}
later:
	nic->tx_pc_done = 1;    /* the frame waits: nic_tx is not asked again for it */
	return 0;
}

int lc_nic_net_send_step(struct lc_nic *nic)
{
	return net_send_step(nic);
}

/*
 * A link engine either side may run (docs/internals.md): an idle pass of
 * this NIC moves the frame at the head of node src's Send Ring into this
 * NIC's Receive Ring -- the copy src's Net-Send would make, the same port
 * locks, room check and publication as lc_net_put -- when it is a DMA frame
 * for this node that src's own Net-Send has not begun (src's pull lock).
 * Never a drop, a stall or a fault: a frame that cannot go at once is left
 * to its own Net-Send.  1 when a frame moved.
 */
static int pull_frame(struct lc_nic *nic, uint32_t src)
{
	struct lc_nic_ctrl *sc = lc_seg_ctrl(nic, src), *ct = nic->ctrl;
	_Atomic uint8_t *ready = (_Atomic uint8_t *)(lc_seg_node_area(nic, src) + nic->nl.tx_ready);
	/* acquire (A1): pairs with src's Net-Send's release of send_tail (R1) */
	uint32_t tail = atomic_load_explicit(&sc->send_tail.v, memory_order_acquire), rh, bytes;
	uint32_t idx = tail & (nic->g.send_ring - 1);
	const struct lc_route *r = &nic->routes_in[src];
	const struct lc_frame_hdr *hdr;
	uint32_t busy;
	int moved = 0;

	if (atomic_load_explicit(&ready[idx], memory_order_relaxed) != LC_TX_PULL || !pull_take(nic, sc))
		return 0;
	/* under the lock: still the same frame, and its payload in the slot (A13) */
	if (atomic_load_explicit(&sc->send_tail.v, memory_order_relaxed) != tail ||
	    atomic_load_explicit(&ready[idx], memory_order_acquire) != LC_TX_PULL)
		goto out;
	hdr = (const struct lc_frame_hdr *)(lc_seg_sram(nic, src) + nic->g.off_send_ring +
					    (size_t)idx * nic->g.slot_bytes);
	bytes = nic->g.hdr_bytes + hdr->len;
	if (hdr->dst != nic->node || hdr->len > nic->g.mtu || !lc_net_lock(nic, r, &busy))
		goto out;
	/* room: recv_head under the port lock (A5); recv_tail is this Net-Recv's own */
	rh = atomic_load_explicit(&ct->recv_head.v, memory_order_relaxed);
	if (rh - atomic_load_explicit(&ct->recv_tail.v, memory_order_relaxed) >= nic->g.recv_ring ||
	    (hdr->type == LC_FT_DATA && lc_net_held(ct, src))) {
		lc_net_unlock(nic, r);
		goto out;
	}
	lc_recv_put(nic->sram, &nic->g, rh, hdr, bytes);
	atomic_store_explicit(&ct->recv_head.v, rh + 1, memory_order_release);
	lc_net_port_count(nic, r, bytes);
	lc_net_unlock(nic, r);
	lc_nic_count(nic, LC_NIC_STAT_net_pull_frames, 1);
	lc_nic_count(nic, LC_NIC_STAT_net_pull_bytes, bytes);
	if (nic->traffic)
		lc_net_count_traffic((_Atomic uint64_t *)(lc_seg_node_area(nic, src) + nic->nl.traffic),
				     (_Atomic uint64_t *)(lc_seg_node_area(nic, src) + nic->nl.sizes), nic->node,
				     hdr, bytes);
	/* the frame left src's Send Ring: as its own Net-Send's done (R1) */
	atomic_store_explicit(&ready[idx], 0, memory_order_relaxed);
	atomic_store_explicit(&sc->send_tail.v, tail + 1, memory_order_release);
	moved = 1;
out:
	pull_give(sc);
	return moved;
}

int lc_nic_pull_step(struct lc_nic *nic)
{
	uint32_t src = nic->pull_src - 1;

	if (pull_frame(nic, src)) {
		nic->pull_misses = 0;
		return 1;
	}
	/* src sends no more DMA frames here: stop reading its lines */
	if (++nic->pull_misses >= LC_NIC_PULL_PATIENCE) {
		atomic_store_explicit(&lc_seg_ctrl(nic, src)->pull.wanted, 0, memory_order_relaxed);
		nic->pull_src = 0;
	}
	return 0;
}

/*
 * Backpressure: the only place the MCP reads the clock.  The time limit
 * breaks deadlocks, and between live nodes there is none to break: a live
 * receiver's host drains its staging into the unexpected queue whenever it
 * calls libcomm, and until then its full Receive Ring only delays the
 * sender (in inline mode its NIC runs only inside those calls, so a host
 * that computes, sleeps or is descheduled for longer than the limit is slow,
 * not dead).  So the clock runs only while the destination's process is
 * stopped and drains nothing: a receiver that frees a slot (slowly, or for
 * another sender that wins the port) or runs again restarts it.  Once the
 * limit passed, later frames to the same destination go at once while it
 * stays stopped and drains nothing (a stopped node with a thousand frames
 * queued costs one limit, not a thousand).  A dead destination never gets
 * here (its frames are dropped at once).
 */
int lc_nic_stall_expired(struct lc_nic *nic, struct lc_nic_stall *s, uint32_t dst, uint32_t busy)
{
	uint64_t now = lc_nic_now_ns();
	/* acquire (A6): pairs with the remote Net-Recv's release of recv_tail (R6) */
	uint32_t rt = atomic_load_explicit(&lc_seg_ctrl(nic, dst)->recv_tail.v, memory_order_acquire);

	if (!atomic_load_explicit(&s->on, memory_order_relaxed) || s->dst != dst) {
		if (!atomic_load_explicit(&s->on, memory_order_relaxed)) {
			lc_nic_count(nic, LC_NIC_STAT_bp_stalls, 1);
			atomic_fetch_add_explicit(&lc_net_port(nic, busy)->stalls, 1, memory_order_relaxed);
		}
		atomic_store_explicit(&s->on, 1, memory_order_relaxed);
		/* the next frame to a destination that timed out and still drains nothing goes at once */
		if (s->expired && s->dst == dst && s->tail == rt && lc_seg_node_stopped(nic, dst))
			return 1;
		s->expired = 0;
		s->dst = dst;
		s->tail = rt;
		s->since_ns = now;
		return 0;
	}
	if (rt != s->tail || !lc_seg_node_stopped(nic, dst)) {
		s->tail = rt;
		s->since_ns = now;
		return 0;
	}
	s->expired = now - s->since_ns >= nic->g.backpressure_timeout_ns;
	return s->expired;
}

uint32_t lc_nic_tx_left(const struct lc_nic *nic)
{
	/* acquire (A1): pairs with Net-Send's release of send_tail (R1) */
	return atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_acquire);
}

/*
 * 1 + the node that holds this NIC's pull lock while the frame at send_tail
 * is a pullable DMA frame, 0 when none or this node does (its own Net-Send:
 * a frame waiting at a full Receive Ring keeps it, tx_stall says so).  The
 * holder is moving that frame, or was descheduled in the middle of a pull
 * (a vCPU taken away for longer than the limit was seen): Net-Send cannot
 * take the frame meanwhile (net_send_claim) and the host's clock must not
 * call that no progress while the holder lives and runs.  A dead holder's
 * lock is taken over (pull_take); a stopped one's is not counted here, so
 * the host's limit applies to it as to a stopped destination.  Read by the
 * host's liveness check only, never on a frame's path.
 */
static uint32_t tx_pull_holder(const struct lc_nic *nic)
{
	const struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t holder = atomic_load_explicit(&ct->pull.lock, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&ct->send_tail.v, memory_order_acquire);

	if (!holder || holder == nic->node + 1 || holder - 1 >= nic->g.nodes ||
	    atomic_load_explicit(&nic->tx_ready[t & (nic->g.send_ring - 1)], memory_order_relaxed) != LC_TX_PULL ||
	    lc_seg_node_state(nic, holder - 1) >= LC_NODE_EXITED || lc_seg_node_stopped(nic, holder - 1))
		return 0;
	return holder;
}

int lc_nic_tx_waiting(const struct lc_nic *nic)
{
	return atomic_load_explicit(&nic->tx_stall.on, memory_order_relaxed) ||
	       atomic_load_explicit(&nic->mc_stall.on, memory_order_relaxed) || tx_pull_holder(nic);
}

void lc_nic_tx_describe(const struct lc_nic *nic, char *buf, size_t len)
{
	const struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t t = atomic_load_explicit(&ct->send_tail.v, memory_order_acquire);
	uint32_t h = atomic_load_explicit(&ct->send_head.v, memory_order_relaxed);
	const struct lc_frame_hdr *f = (const struct lc_frame_hdr *)send_slot(nic, t);
	uint32_t holder = atomic_load_explicit(&ct->pull.lock, memory_order_relaxed);
	char held[64] = "";
	const char *what = h == t ? "none" :
			   !atomic_load_explicit(&nic->tx_ready[t & (nic->g.send_ring - 1)], memory_order_relaxed) ?
			   "waiting for its Tx DMA" : lc_nic_tx_waiting(nic) ? "waiting at its destination" :
			   "ready for Net-Send";
	uint32_t c[2][3];

	for (int k = 0; k < 2; k++) {
		c[k][0] = atomic_load_explicit(&ct->chain_head[k].v, memory_order_relaxed);
		c[k][1] = atomic_load_explicit(&ct->chain_active[k].v, memory_order_relaxed);
		c[k][2] = atomic_load_explicit(&ct->chain_done[k].v, memory_order_relaxed);
	}
	/* another node in the middle of a pull (a stopped one: tx_pull_holder) */
	if (holder && holder != nic->node + 1)
		snprintf(held, sizeof(held), ", its pull lock held by node %u%s", holder - 1,
			 holder - 1 < nic->g.nodes && lc_seg_node_stopped(nic, holder - 1) ? " (stopped)" : "");
	snprintf(buf, len, "Send Ring %u of %u frames, the oldest %s (%u bytes to node %u%s); DMA blocks "
		 "written/active/done: Tx %u/%u/%u, Rx %u/%u/%u", h - t, nic->g.send_ring, what,
		 h == t ? 0 : f->len, h == t ? 0 : f->dst, held, c[1][0], c[1][1], c[1][2], c[0][0], c[0][1],
		 c[0][2]);
}

/* ---- the MCP: Net-Recv ---- */

/* Net-Recv: free the Receive Ring slots whose frames are done, in order. */
static void recv_retire(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t t0 = atomic_load_explicit(&ct->recv_tail.v, memory_order_relaxed), t = t0;

	while (t != ct->net_recv.recv_next && nic->rx_done[t & (nic->g.recv_ring - 1)]) {
		nic->rx_done[t & (nic->g.recv_ring - 1)] = 0;
		t++;
	}
	if (t != t0)
		/* release (R6): pairs with the remote Net-Send's acquire of recv_tail (A6) */
		atomic_store_explicit(&ct->recv_tail.v, t, memory_order_release);
}

/*
 * Net-Recv: the Rx DMA blocks the DMA engine finished since the last look
 * (chain 0 runs in order; each block's tag is its Receive Ring slot) mark
 * their slots done, and the slots done in order are freed.  Costs one load
 * of chain_done[0] when no block finished.
 */
static inline void recv_reap(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	struct lc_nic_recv_eng *m = &ct->net_recv;
	/* acquire (A4): pairs with the DMA engine's release of chain_done (R4) */
	uint32_t d = atomic_load_explicit(&ct->chain_done[0].v, memory_order_acquire), r = m->rx_reaped;
	const struct lc_nic_dma_block *blk = nic->chain[0].blocks;
	uint32_t bmask = nic->chain[0].mask, rmask = nic->g.recv_ring - 1;
	uint8_t *done = nic->rx_done;

	if (d == r)
		return;
	/* locals: a store through rx_done (uint8_t) would make the compiler reload every field */
	/* a block with LC_DMA_HOLD writes 0: its slot waits for the block after it (rdma.c) */
	do
		done[blk[r & bmask].tag & rmask] = !(blk[r & bmask].flags & LC_DMA_HOLD);
	while (++r != d);
	m->rx_reaped = d;
	recv_retire(nic);
}

/* DMA engine: an Rx DMA block is done, its frame is in host staging: hand it to the host. */
uint32_t lc_nic_rx_dma_crc_copy(struct lc_nic *nic, const struct lc_nic_dma_block *b, uint32_t *owner)
{
	uint8_t *host = (uint8_t *)(uintptr_t)b->host;
	const uint8_t *sram = nic->sram + b->sram;
	const struct lc_nic_dma_crc *rc = &nic->rx_crc[b - nic->chain[0].blocks];
	uint32_t h = nic->g.hdr_bytes;

	memcpy(host, sram, h);
	*owner = rc->owner;
	lc_nic_count(nic, LC_NIC_STAT_rx_crc_frames, 1);
	return lc_crc32c_copy(rc->seed, host + h, sram + h, b->len - h);
}

void lc_nic_tx_dma_crc_copy(struct lc_nic *nic, const struct lc_nic_dma_block *b)
{
	uint8_t *sram = nic->sram + b->sram;
	const struct lc_nic_dma_crc *tc = &nic->tx_crc[b - nic->chain[1].blocks];
	uint32_t crc = lc_crc32c_copy(tc->seed, sram, (const void *)(uintptr_t)b->host, b->len);

	memcpy(sram - nic->g.hdr_bytes + tc->owner, &crc, sizeof(crc));
	lc_nic_count(nic, LC_NIC_STAT_tx_crc_frames, 1);
}

void lc_nic_rx_dma_complete(struct lc_nic *nic, const struct lc_nic_dma_block *b, uint32_t crc_owner, uint32_t crc)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t fh = atomic_load_explicit(&ct->rxfifo_head.v, memory_order_relaxed);
	struct lc_nic_fifo_entry *e = &nic->rxfifo[fh & (nic->g.rx_fifo - 1)];

	/* one Rx frame more since the last Tx block (lc_nic_rx_activate; the engine's completions alone write it) */
	atomic_store_explicit(&ct->dma.rx_run, atomic_load_explicit(&ct->dma.rx_run, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	e->addr = (uint32_t)lc_exact_div((uint64_t)((uint8_t *)(uintptr_t)b->host - nic->staging),
					 nic->slot_shift, nic->slot_inv);
	e->value = b->len;
	e->aux = crc;
	e->pad = crc_owner;
	/* release (R8): pairs with the host's acquire of rxfifo_head in lc_nic_rx_peek (A8) */
	atomic_store_explicit(&ct->rxfifo_head.v, fh + 1, memory_order_release);
}

/* Net-Recv took a DMA frame of src: idle passes pull src's next ones, if src lets them (lc_nic_pull_step). */
__attribute__((noinline)) static void pull_from(struct lc_nic *nic, uint32_t src)
{
	struct lc_nic_pull *p = &lc_seg_ctrl(nic, src)->pull;

	if (atomic_load_explicit(&p->ok, memory_order_relaxed)) {
		nic->pull_src = src + 1;
		nic->pull_misses = 0;
		if (!atomic_load_explicit(&p->wanted, memory_order_relaxed))
			atomic_store_explicit(&p->wanted, 1, memory_order_relaxed);
	}
}

/*
 * Net-Recv drops frame next (a bad frame: counted in stat; or a protocol's
 * verdict: stat < 0 when it is not counted here): its slot is freed at once.
 * Out of line and cold: the hot path's block order is the same whether a
 * nic_rx pointcut is composed or not (the zero-cost proof compares it with a
 * build where the pointcut is compiled out, and GCC laid the drop path out
 * differently in the two when it was a label of this function).
 */
static __attribute__((noinline, cold)) int recv_drop(struct lc_nic *nic, uint32_t next, int stat)
{
	if (stat >= 0)
		lc_nic_count_shared(nic, (enum lc_nic_stat)stat, 1);
	nic->rx_done[next & (nic->g.recv_ring - 1)] = 1;
	lc_recv_next_advance(nic, next);
	recv_retire(nic);
	return 1;
}

/*
 * Net-Recv's step: the frame in slot recv_next, if any, checked and queued
 * for the Rx DMA.  burst: not the first frame this pass took (step_busy's
 * batch), so the slots behind it are likely written already.
 */
static inline __attribute__((always_inline)) int net_recv_step(struct lc_nic *nic, int burst)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	struct lc_nic_recv_eng *m = &ct->net_recv;
	uint32_t next = m->recv_next, h0, used, slot, wire;
	struct lc_frame_hdr *hdr;
	struct lc_nic_dma_block *b;
	lc_verdict v;
	/*
	 * the slot's publication word (A7): the wire byte count, not the header's
	 * len (a fault may have flipped it).  Its address is the frame's too.
	 */
	_Atomic uint32_t *word = nic->rx_word;
	int64_t w = lc_recv_wire_tagged(word, nic->rx_tag);

	if (w < 0) {
		/*
		 * Waiting for the next frame: only its word's line is read.  Asking for
		 * the slot's second line too while waiting (when the last frame took
		 * two) made a 48-64 B ping-pong 6-7 % slower once the 4-byte word let
		 * 32 B frames fit one line: a line asked for while the sender is still
		 * copying into it goes back and forth between the cores (the same at
		 * 256-512 B when it was asked for always).  The further lines are asked
		 * for together once the word is seen (below).
		 */
		return 0;
	}
#if LC_NET_TIMED
	/* the timed network: the frame is still on the wire until its modelled arrival */
	if (lc_nic_now_ns() < atomic_load_explicit(lc_recv_arrival(nic->sram, &nic->g, next), memory_order_relaxed))
		return 0;
#endif
	LC_PATH_FRAME();
	/*
	 * The word's line of the frame after next: in a burst (msgrate's windows,
	 * the ring full) it is written already, and its crossing from the sender's
	 * core overlaps this frame's work instead of stalling the next step.  One
	 * ahead was too near (the line still in flight when needed), and a
	 * sender's prefetch for writing of its next slots made latency worse
	 * (1.05x, it took lines the receiver still read).  Measured, 8 B, 24
	 * interleaved rounds: msgrate 1.04-1.05x, ping-pong 0.96-0.98x.  Asked
	 * for only in a burst (below), the 8 B ping-pong was 1.5-3.7 % slower,
	 * so a lone frame asks for it too.  Only behind a frame of one line: a
	 * sender of long frames may be writing that slot's first line right now.
	 */
	if (w <= LC_LINE - LC_NIC_RECV_WORD_BYTES) {
		__builtin_prefetch(lc_recv_word(nic->sram, &nic->g, next + 2));
		/*
		 * In a burst (the second frame or later of this pass) the slots behind
		 * are being written or written already: two more of their lines on
		 * their way, four ahead in all.  The Receive Ring's slots lie a slot's
		 * bytes apart, across pages, where no hardware prefetcher follows,
		 * and a receiver behind a sender's window takes one line crossing
		 * per frame: where a line crosses in 0.2 us, two in flight bound how
		 * fast it reads a backlog.  Not for a lone frame: the sender is still
		 * to write those lines, and a line taken before it is written goes
		 * back and forth.  msgrate 8 B new/old rate, placement-probed,
		 * interleaved runs of 2-3 minutes: slow placement 1.01-1.08 in four
		 * runs (variants, one run each: +3 alone 1.07, +4 alone 1.05, +6
		 * 1.03), fast 0.98-1.01; ping-pong 1.00 (docs/internals.md,
		 * thirty-seventh part).
		 */
		if (burst) {
			__builtin_prefetch(lc_recv_word(nic->sram, &nic->g, next + 3));
			__builtin_prefetch(lc_recv_word(nic->sram, &nic->g, next + 4));
		}
	}
	wire = (uint32_t)w;
	hdr = (struct lc_frame_hdr *)lc_recv_frame_at(word);
	/*
	 * the word says how long the frame is: start each further line of it (up to
	 * 4 KiB) on its way from the sender's cache now, together, rather than one
	 * after the other as the checks and the Rx DMA block's copy reach them (8
	 * B frames fit the word's line: nothing to fetch).  Ping-pong new/old, 9
	 * interleaved rounds: 128-256 B 0.98, 512 B 0.95, 4 KiB 0.97.
	 */
	for (uint32_t o = LC_LINE - LC_NIC_RECV_WORD_BYTES; o < wire && o < 4096; o += LC_LINE)
		__builtin_prefetch((const uint8_t *)hdr + o);
	if (wire < nic->g.hdr_bytes || wire > nic->g.slot_bytes - LC_NIC_RECV_WORD_BYTES ||
	    hdr->magic != LC_FRAME_MAGIC ||
	    hdr->dst != nic->node || hdr->src >= nic->g.nodes || hdr->len != wire - nic->g.hdr_bytes)
		return recv_drop(nic, next, LC_NIC_STAT_nic_drops_bad);
	/* room in the Rx DMA chain, the Rx FIFO and host staging */
	h0 = atomic_load_explicit(&ct->chain_head[0].v, memory_order_relaxed);
	/* acquire (A9): pairs with the host's release of rxfifo_tail in lc_nic_rx_release (R9) */
	used = m->rx_alloc - atomic_load_explicit(&ct->rxfifo_tail.v, memory_order_acquire);
	/* the blocks done as of recv_reap (A4 there): a block is written again only after that */
	if (h0 - m->rx_reaped >= nic->g.rx_dma || used >= nic->rx_room) {
		if (!nic->rx_waiting) {
			nic->rx_waiting = 1;
			lc_nic_count(nic, LC_NIC_STAT_rx_fifo_full, 1);
		}
		return 0;
	}
	nic->rx_waiting = 0;
	/* a nic_rx hook may ask for the frame's CRC in its Rx DMA (lc_nic_rx_crc_ask); none composed: none asks */
	if (LC_PC_USED_nic_rx)
		nic->rx_ask = 0;
	v = LC_PC_NIC(nic_rx, nic, hdr);
	if (v == LC_RETRY)
		return 0;
	if (v == LC_DROP)
		return recv_drop(nic, next, LC_NIC_STAT_nic_drops_proto);
	if (v == LC_CONSUMED)
		return recv_drop(nic, next, -1);
	/* a DMA frame from another NIC that lets its frames be pulled: idle passes pull the next ones */
	if (wire > nic->g.hdr_bytes + LC_PIO_THRESHOLD && !nic->pull_src && hdr->src != nic->node)
		pull_from(nic, hdr->src);
	if (__builtin_expect(hdr->type == LC_FT_RDMA, 0)) {
		int placed = lc_nic_rdma_place(nic, hdr, next, h0);

		/* placed, or no room for its two blocks: wait like for one (rx_fifo_full counts the waits) */
		if (placed >= 0)
			return placed;
		/*
		 * Refused (counted, its sender told): nothing lands in the region, but the
		 * frame goes to staging whole, marked, as any frame -- a protocol that
		 * numbers frames must see its number, or it would send it again until it
		 * gave the peer up.  Its CRC was checked above (nic_rx); the framework
		 * drops it once the protocols saw it.
		 */
		hdr->flags |= LC_FF_REFUSED;
	}
	slot = m->rx_alloc & (nic->g.staging_slots - 1);
	b = &nic->chain[0].blocks[h0 & nic->chain[0].mask];
	b->host = (uint64_t)(uintptr_t)(nic->staging + (size_t)slot * nic->g.slot_bytes);
	b->sram = (uint32_t)((uint8_t *)hdr - nic->sram);
	b->len = wire;
	b->flags = LC_DMA_TO_HOST | LC_DMA_SIGNAL;
	if (LC_PC_USED_nic_rx && nic->rx_ask) {
		b->flags |= LC_DMA_CRC;
		nic->rx_crc[h0 & nic->chain[0].mask] = (struct lc_nic_dma_crc){ nic->rx_ask, nic->rx_ask_seed };
	}
	b->tag = next;
	b->next = (h0 + 1) & nic->chain[0].mask;
	b->status = 0;
	/* release (R16): pairs with lc_nic_rx_activate's acquire of chain_head[0] (A16) */
	atomic_store_explicit(&ct->chain_head[0].v, h0 + 1, memory_order_release);
	lc_nic_rx_activate(nic);
	m->rx_alloc++;
	if (used + 1 > atomic_load_explicit(&nic->stats[LC_NIC_STAT_staging_hwm], memory_order_relaxed))
		atomic_store_explicit(&nic->stats[LC_NIC_STAT_staging_hwm], used + 1, memory_order_relaxed);
	lc_recv_next_advance(nic, next);
	lc_nic_count(nic, LC_NIC_STAT_net_rx_frames, 1);
	return 1;
}

int lc_nic_net_recv_step(struct lc_nic *nic)
{
	return net_recv_step(nic, 0);
}

void lc_nic_net_recv_reap(struct lc_nic *nic)
{
	recv_reap(nic);
}

/* ---- the MCP: stepping ---- */

/* The doorbell FIFO holds an entry (a hint: relaxed, the service's own acquire (A2) decides). */
static inline int doorbell_pending(const struct lc_nic *nic)
{
	return atomic_load_explicit(&nic->db->head.v, memory_order_relaxed) !=
	       atomic_load_explicit(&nic->db->tail.v, memory_order_relaxed);
}

/*
 * The frame at send_tail is ready for Net-Send (a hint: relaxed, Net-Send's
 * own acquire (A13) decides).  An idle Net-Send's call costs its frame of six
 * saved registers: a pass that found a frame to receive and none to send
 * looks here first (the 8 B ping-pong's receive 664 -> 644 Ir).
 */
static inline int net_send_ready(const struct lc_nic *nic)
{
	return atomic_load_explicit(&nic->tx_ready[atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_relaxed) &
						   (nic->g.send_ring - 1)], memory_order_relaxed) != 0;
}

/*
 * Nothing for any engine of the inline MCP: no doorbell entry, no frame
 * published in the next Receive Ring slot, no DMA block activated and not
 * done, the next Send Ring slot not ready, no fault injector (its step has
 * timed events).  Each engine's step looks at exactly these and returns 0
 * when they say so; looked at here in one place, an idle pass of a waiting
 * host costs a few loads instead of four engine calls (about 145 of the
 * 240 instructions of a wait's idle round), and the wait comes back to the
 * Receive Ring word that much sooner: a frame lands on average half an idle
 * round before it is seen.  The word is the last load, so that a frame
 * published meanwhile is seen by this very pass's Net-Recv.  An engine or
 * a source of engine work added to step_busy must be looked at here too,
 * or its work waits for another engine's (test_pipeline_sizes fails when
 * the DMA chains are left out).
 */
static inline __attribute__((always_inline)) int nic_quiet(struct lc_nic *nic)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	uint32_t c;

	if (nic->faults || nic->rx_waiting)
		return 0;
	if (doorbell_pending(nic))
		return 0;
	if (net_send_ready(nic))
		return 0;
	/*
	 * the Rx chain: its blocks written, active or not yet (lc_nic_rx_activate),
	 * or done and not yet reaped (step_busy reaps a lone frame's block in the
	 * pass after the one that moved it); reaped <= done <= head, so one compare
	 */
	if (atomic_load_explicit(&ct->chain_head[0].v, memory_order_relaxed) != ct->net_recv.rx_reaped)
		return 0;
	for (c = 1; c < atomic_load_explicit(&nic->dma_chains, memory_order_relaxed); c++)
		if (atomic_load_explicit(&ct->chain_active[c].v, memory_order_relaxed) !=
		    atomic_load_explicit(&ct->chain_done[c].v, memory_order_relaxed))
			return 0;
	return lc_recv_wire_tagged(nic->rx_word, nic->rx_tag) < 0;
}

/*
 * Inline mode: every engine, back to back, under step_lock.  Net-Recv reaps
 * right after a DMA step that did a block (in thread mode: before its own
 * step): the Receive Ring slot of a frame that reached staging is freed in
 * the very step that moved it (a remote sender waiting for the slot need
 * not wait for this host's next call), and an idle step pays no reap.
 */
static __attribute__((noinline)) int step_busy(struct lc_nic *nic)
{
	_Atomic uint32_t *rx_head = &nic->ctrl->chain_head[0].v;
	uint32_t h0, h1;
	int w, d, k;

	/* the block a lone frame's pass moved (below): its Receive Ring slot freed now */
	recv_reap(nic);
	/* the doorbell service's call only for an entry (a pass that came for a frame: 8 B receive 12 Ir) */
	w = doorbell_pending(nic) ? lc_nic_doorbell_step(nic) : 0;

	/*
	 * a burst of arrived frames costs one pass, not a pass each (nic_impl.h); an
	 * idle pass or a lone frame's costs what one step of each engine costs.  The
	 * DMA engine runs the blocks Net-Recv queued in this pass: one a frame into
	 * staging, two an RDMA frame (payload into the region, header into staging);
	 * run one a frame, the chain of a receiver of RDMA frames fell behind by a
	 * block every second frame, and its Receive Ring filled
	 */
	h0 = atomic_load_explicit(rx_head, memory_order_relaxed);
	/* Net-Recv's body inline, once: a call's frame for each frame of a burst (msgrate's receiver 770 -> 755 Ir a message) */
	for (k = 0; k < LC_NIC_STEP_BATCH && net_recv_step(nic, k); k++)
		;
	w += k;
	h1 = atomic_load_explicit(rx_head, memory_order_relaxed);
	/*
	 * the blocks of this pass and any left unactivated while a Tx block waited
	 * (lc_nic_rx_activate: then the two chains alternate, and a pass runs as
	 * many blocks as there are Rx blocks waiting, a Tx block between each two)
	 */
	if (h1 != atomic_load_explicit(&nic->ctrl->chain_active[0].v, memory_order_relaxed)) {
		lc_nic_rx_activate(nic);
		k = (int)(h1 - atomic_load_explicit(&nic->ctrl->chain_done[0].v, memory_order_relaxed));
	} else {
		k = (int)(h1 - h0);
	}
	d = dma_run(nic, k ? k : 1);
	/*
	 * A burst's slots are freed in the pass that moved them, so that a sender
	 * waiting for them need not wait for another pass.  A lone frame's slot is
	 * freed at the start of the next pass -- the first round of the host's next
	 * wait, after its reply left: off the path of a ping-pong (receive half
	 * 626 -> 583 Ir, msgrate's receiver unchanged); nic_quiet sees the block not reaped.
	 */
	if (d > 1)
		recv_reap(nic);
	w += d;
	if (net_send_ready(nic))
		w += lc_nic_net_send_step(nic);
	if (nic->faults)
		w += lc_faults_step(nic);
	if (!w && nic->pull_src)
		w = lc_nic_pull_step(nic);
	return w;
}

/*
 * A pass: the quiet test inline in the steppers, the work out of line, so
 * that an idle pass -- every round of a wait -- sets up no frame of saved
 * registers (an idle round of an 8 B ping-pong's wait about 140 -> 126 Ir: a
 * shorter round, a frame seen sooner).
 */
static inline __attribute__((always_inline)) int step_all(struct lc_nic *nic)
{
	if (nic_quiet(nic))
		return nic->pull_src ? lc_nic_pull_step(nic) : 0;
	return step_busy(nic);
}

/*
 * Try-lock an engine: a plain load first (a held engine costs no write to
 * the holder's line), then a CAS 0 -> HELD, never an exchange, which would
 * overwrite the DMA holder's LC_NIC_ENG_COPYING mark.
 */
static inline int engine_take(struct lc_nic *nic, enum lc_nic_engine e)
{
	int unlocked = 0;

	if (atomic_load_explicit(&nic->eng[e].lock, memory_order_relaxed))
		return 0;
	/* acquire (A11): pairs with the release in engine_give (R11) of the engine's last runner */
	return atomic_compare_exchange_strong_explicit(&nic->eng[e].lock, &unlocked, LC_NIC_ENG_HELD,
						       memory_order_acquire, memory_order_relaxed);
}

static inline void engine_give(struct lc_nic *nic, enum lc_nic_engine e)
{
	/* release (R11): pairs with the acquire in engine_take (A11) */
	atomic_store_explicit(&nic->eng[e].lock, 0, memory_order_release);
}

/* Another thread is copying a DMA block right now (a hint, for the overlap counters). */
static inline int dma_copying(struct lc_nic *nic)
{
	return atomic_load_explicit(&nic->eng[LC_NIC_ENG_dma].lock, memory_order_relaxed) ==
	       LC_NIC_ENG_COPYING;
}

/*
 * Thread mode: one pass over the engines, each under its own lock, in
 * step_all's order.  An engine another thread holds is skipped: that thread
 * steps it.  Net-Send and Net-Recv count the frames they moved while a DMA
 * block was being copied on another thread, seen at the start or the end of
 * their step (the overlap one lock did not allow).
 */
int lc_nic_engines_step(struct lc_nic *nic)
{
	int w = 0, s, during;

	if (engine_take(nic, LC_NIC_ENG_doorbell)) {
		w += lc_nic_doorbell_step(nic);
		engine_give(nic, LC_NIC_ENG_doorbell);
	}
	if (engine_take(nic, LC_NIC_ENG_net_recv)) {
		during = dma_copying(nic);
		recv_reap(nic);
		s = lc_nic_net_recv_step(nic);
		if (s && (during || dma_copying(nic)))
			lc_nic_count(nic, LC_NIC_STAT_recv_dma_overlap, 1);
		w += s;
		engine_give(nic, LC_NIC_ENG_net_recv);
	}
	if (engine_take(nic, LC_NIC_ENG_dma)) {
		/* Rx blocks left unactivated while a Tx block waited, once none is (lc_nic_rx_activate) */
		if (atomic_load_explicit(&nic->ctrl->chain_head[0].v, memory_order_relaxed) !=
		    atomic_load_explicit(&nic->ctrl->chain_active[0].v, memory_order_relaxed))
			lc_nic_rx_activate(nic);
		w += lc_nic_dma_step_marked(nic, &nic->eng[LC_NIC_ENG_dma].lock);
		engine_give(nic, LC_NIC_ENG_dma);
	}
	if (engine_take(nic, LC_NIC_ENG_net_send)) {
		during = dma_copying(nic);
		s = lc_nic_net_send_step(nic);
		if (s && (during || dma_copying(nic)))
			lc_nic_count(nic, LC_NIC_STAT_send_dma_overlap, 1);
		w += s;
		/* the fault injector's held frames are Net-Send's state */
		if (nic->faults)
			w += lc_faults_step(nic);
		engine_give(nic, LC_NIC_ENG_net_send);
	}
	return w;
}

int lc_nic_step(struct lc_nic *nic)
{
	int w;

	if (nic->thread_on)
		return 0;
	/* acquire (A11): pairs with the release below (R11) of the previous stepping thread */
	if (atomic_exchange_explicit(&nic->step_lock, 1, memory_order_acquire))
		return 0;
	w = step_all(nic);
	/* release (R11): pairs with the acquire above (A11) */
	atomic_store_explicit(&nic->step_lock, 0, memory_order_release);
	return w;
}

int lc_nic_step_held(struct lc_nic *nic)
{
	return nic->thread_on ? 0 : step_all(nic);
}

static inline __attribute__((always_inline)) int step_send_held(struct lc_nic *nic)
{
	int w;

	if (nic->thread_on)
		return 0;
	/*
	 * the two engines' bodies inline (their exported forms serve the other
	 * steppers and the tests): a host's send runs this for every frame it
	 * posts (inline MCP); with lc_net_room inline in lc_net_put, an 8 B
	 * ping-pong turn 531 -> 503 Ir, msgrate's sender 724 -> 689 a message.
	 * lc_net_put stays a call: the cost model's calibration counts it.
	 */
	w = doorbell_step(nic);
	w += net_send_step(nic);
	if (nic->faults)
		w += lc_faults_step(nic);
	return w;
}

int lc_nic_step_send_held(struct lc_nic *nic)
{
	return step_send_held(nic);
}

/*
 * A PIO frame's doorbell, then the doorbell service and Net-Send in the same
 * call (the host's write of the doorbell and the inline MCP's service of it
 * stay two steps; only the call between them goes): msgrate's sender
 * 586.2 -> 579.2 Ir a message.
 */
int lc_nic_tx_post_pio_step(struct lc_nic *nic)
{
	tx_post_pio(nic);
	return step_send_held(nic);
}

int lc_nic_assist(struct lc_nic *nic)
{
	if (nic->g.mcp_thread)
		return lc_nic_engines_step(nic);
	return lc_nic_step(nic);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Thread mode runs ONE MCP thread per node, and it and any host thread
 * waiting in the library each try every engine (lc_nic_engines_step), not
 * a thread per engine.  With two cores a job of two nodes in thread mode
 * already runs four threads (measured: each node process of a 2-node
 * pingpong has two, its host and its MCP thread); a thread per engine
 * would make it ten, each spinning or yielding for work, and the
 * engine a host needs would as often as not wait for its thread to be
 * scheduled.  With a lock per engine the overlap comes where the cores are:
 * a host that waits runs Net-Send (or Net-Recv) while its MCP thread copies
 * a DMA block, and an MCP thread descheduled inside a long copy stalls only
 * the DMA engine.
 *
 * Idle policy of the MCP thread: spin, then yield, then short sleeps.  The
 * spin is short: a long one burns the time slice the host thread needs to
 * produce work (measured: 20000-frame stream 0.4 s with 32 spins, 5-9 s
 * with 1024-4096).  Yields cost ~0.3 us and let the host run; naps start
 * after a few milliseconds without work so an idle NIC does not hold a core.
 * A host waiting in the library steps the engines itself (lc_nic_assist)
 * instead of waiting for this thread to be scheduled: 8 B pingpong 25-75 us
 * -> 4-11 us one-way (load 4.4).  A pass whose engines the host held counts
 * as idle here.
 */
#define LC_MCP_SPIN   1u
#define LC_MCP_YIELD  4096u
#define LC_MCP_NAP_NS 20000L

static void *mcp_main(void *arg)
{
	struct lc_nic *nic = arg;
	uint32_t idle = 0;

	/* acquire: pairs with the release of stop in lc_nic_detach */
	while (!atomic_load_explicit(&nic->stop, memory_order_acquire)) {
		if (lc_nic_engines_step(nic)) {
			idle = 0;
			continue;
		}
		if (idle < LC_MCP_SPIN + LC_MCP_YIELD)
			idle++;
		if (idle < LC_MCP_SPIN) {
			cpu_relax();
		} else if (idle < LC_MCP_SPIN + LC_MCP_YIELD) {
			sched_yield();
		} else {
			struct timespec ts = { 0, LC_MCP_NAP_NS };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* ---- attach / detach ---- */

static void nic_free(struct lc_nic *nic)
{
	lc_faults_detach(nic);
	if (nic->seg)
		munmap(nic->seg, nic->seg_bytes);
	free(nic->routes);
	free(nic->node_sram);
	free(nic->peer_tail);
	free(nic->routes_in);
	free(nic->rx_done);
	free(nic->rx_crc);
	free(nic->tx_crc);
	free(nic);
}

/*
 * Write each page of [p, p + n) once without changing it: an atomic or of 0
 * into the page's first word, which cannot lose a store another process
 * makes meanwhile (a peer's Net-Send into the Receive Ring).
 */
static void lc_touch_pages(uint8_t *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1), end = (uintptr_t)p + n;

	for (; a + sizeof(uint32_t) <= end; a += page)
		__atomic_fetch_or((uint32_t *)a, 0u, __ATOMIC_RELAXED);
}

/*
 * LC_PREFAULT=1|0 (default 1, also when unset or empty): whether attach makes
 * the node's SRAM buffers and host staging resident (below).  0 leaves each
 * page to fault in on its first use, for a process that opens many short
 * jobs and times none of their messages -- a fuzz harness replaying its
 * corpus: fuzz_frame's replay on baseline (783 inputs, two nodes attached
 * each, 6 MiB of SRAM and staging a node) took 10.1 CPU-s with them resident
 * and 4.3 without (on a virtual machine the host backs each page again at
 * its first write).  Anything else is refused.
 */
static int lc_prefault(int *on, char *err, size_t errlen)
{
	int pick, rc = lc_env_switch("LC_PREFAULT", "1", "0", &pick, err, errlen);

	*on = pick != 1;        /* "1" (pick 0) or unset (-1): on; "0" (pick 1): off */
	return rc;
}

struct lc_nic *lc_nic_attach(const char *name, uint32_t node, const struct lc_nic_geom *g,
			     char *err, size_t errlen, int *rc)
{
	static const char *const state_name[] = { "unused", "attached", "exited", "dead" };
	struct lc_nic *nic;
	uint64_t off_nodes, off_net, total;
	uint8_t *area;
	uint32_t st = LC_NODE_UNUSED;
	int r, prefault;

	if (!rc)
		return NULL;
	if (!name || !g || !err) {
		*rc = LC_ERR_INVAL;
		return NULL;
	}
	if ((r = lc_prefault(&prefault, err, errlen)) != 0) {
		*rc = r;
		return NULL;
	}
	if (node >= g->nodes) {
		snprintf(err, errlen, "node %" PRIu32 " out of range: the job has %" PRIu32 " nodes", node,
			 g->nodes);
		*rc = LC_ERR_RANGE;
		return NULL;
	}
	nic = calloc(1, sizeof(*nic));
	if (!nic) {
		snprintf(err, errlen, "out of memory");
		*rc = LC_ERR_NOMEM;
		return NULL;
	}
	r = lc_seg_map(name, g, &nic->seg, &nic->seg_bytes, err, errlen);
	if (r) {
		free(nic);
		*rc = r;
		return NULL;
	}
	nic->g = *g;
	nic->node = node;
	nic->hdr = (struct lc_seg_hdr *)nic->seg;

	lc_seg_layout(g, &nic->nl, &off_nodes, &off_net, &total);
	area = nic->seg + off_nodes + nic->nl.bytes * node;
	nic->sram = area + nic->nl.sram;
	nic->send_ring = nic->sram + g->off_send_ring;
	nic->ctrl = (struct lc_nic_ctrl *)(nic->sram + g->off_ctrl);
	nic->staging = area + nic->nl.staging;
	/* Rx DMA completion finds a block's staging slot from its address without a division */
	lc_exact_div_init(g->slot_bytes, &nic->slot_shift, &nic->slot_inv);
	/*
	 * This node's SRAM buffers and its host staging: resident from the start,
	 * as a NIC's memory and pinned staging are, so that no frame of the first
	 * milliseconds pays a page fault (measured: the first 1100 8 B ping-pongs
	 * averaged 1.15 us against 0.28 us after them, each staging slot faulting
	 * in on its first frame).  Best effort: a kernel without
	 * MADV_POPULATE_WRITE faults the pages in as they are first used.
	 * The staging is then written once a page: on a virtual machine the
	 * host may back a populated page lazily (or share it while it holds
	 * zeros), so the first write of each page is still slow -- measured
	 * on a Firecracker guest: the first 400 8 B ping-pongs took 3.9-6.1
	 * ms with the madvise alone, 0.85-2.7 ms with the writes (5
	 * interleaved rounds; the steady state the same), since every
	 * message takes the next staging slot and the first pass over the
	 * slots paid a write fault each (and a stream's first size, 1 B,
	 * measured 1.9-2.2 MB/s against 6-10 at 2 B while the Receive Ring's
	 * and Send Ring's pages took theirs).  The SRAM buffers too: a peer
	 * may already write into the Receive Ring, which lc_touch_pages'
	 * atomic or of 0 leaves intact.  Not with LC_PREFAULT=0 (lc_prefault).
	 */
	if (prefault) {
#ifdef MADV_POPULATE_WRITE
		(void)madvise(nic->sram, g->off_rx_fifo + (size_t)g->rx_fifo * LC_NIC_FIFO_ENTRY_BYTES,
			      MADV_POPULATE_WRITE);
		(void)madvise(nic->staging, (size_t)g->staging_slots * g->slot_bytes,
			      MADV_POPULATE_WRITE);
#endif
		lc_touch_pages(nic->sram, g->off_rx_fifo + (size_t)g->rx_fifo * LC_NIC_FIFO_ENTRY_BYTES);
		lc_touch_pages(nic->staging, (size_t)g->staging_slots * g->slot_bytes);
	}
	nic->stats = (_Atomic uint64_t *)(area + nic->nl.nic_stats);
	nic->host_stats = (_Atomic uint64_t *)(area + nic->nl.host_stats);
	nic->dst_drops = (_Atomic uint32_t *)(area + nic->nl.dst_drops);
	nic->fault_stats = (_Atomic uint64_t *)(area + nic->nl.fault_stats);
	/* the traffic matrix only when the launcher asked for it (--stats): a frame pays one test else */
	nic->traffic = nic->hdr->traffic ? (_Atomic uint64_t *)(area + nic->nl.traffic) : NULL;
	nic->sizes = (_Atomic uint64_t *)(area + nic->nl.sizes);
	nic->rdma_nacks = (_Atomic uint32_t *)(area + nic->nl.rdma_nacks);
	nic->ports = (struct lc_net_port *)(nic->seg + off_net);
	nic->db = (struct lc_nic_doorbell *)(void *)(nic->sram + g->off_tx_fifo);
	nic->db_page = LC_DB_ADDR(node, 0);
	nic->rxfifo = (struct lc_nic_fifo_entry *)(nic->sram + g->off_rx_fifo);
	nic->chain[0].blocks = (struct lc_nic_dma_block *)(nic->sram + g->off_rx_dma);
	nic->chain[0].mask = g->rx_dma - 1;
	nic->chain[1].blocks = (struct lc_nic_dma_block *)(nic->sram + g->off_tx_dma);
	nic->chain[1].mask = g->tx_dma - 1;
	atomic_init(&nic->dma_chains, 2);   /* the Rx and Tx DMA chains; spares join when set up */
	if (!atomic_load_explicit(&nic->ctrl->vi_tag, memory_order_relaxed))
		lc_nic_set_vi_tag(nic, node + 1);   /* the endpoint's default protection tag */
	nic->rx_room = g->rx_fifo < g->staging_slots ? g->rx_fifo : g->staging_slots;
	/* the host caches start from the segment's indices (0, or a test's base) */
	nic->hc_send_tail = atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_acquire);
	nic->hc_txfifo_tail = 0;        /* the doorbell region is mapped fresh below */
	nic->hc_txdma_done = atomic_load_explicit(&nic->ctrl->chain_done[1].v, memory_order_acquire);
	nic->hc_rxfifo_head = atomic_load_explicit(&nic->ctrl->rxfifo_tail.v, memory_order_acquire);
	lc_recv_next_set(nic, nic->ctrl->net_recv.recv_next);
	nic->routes = calloc(g->nodes, sizeof(*nic->routes));
	nic->node_sram = calloc(g->nodes, sizeof(*nic->node_sram));
	nic->peer_tail = calloc(g->nodes, sizeof(*nic->peer_tail));
	nic->tx_ready = (_Atomic uint8_t *)(area + nic->nl.tx_ready);
	nic->routes_in = calloc(g->nodes, sizeof(*nic->routes_in));
	nic->rx_done = calloc(g->recv_ring, 1);
	nic->rx_crc = calloc(g->rx_dma, sizeof(*nic->rx_crc));
	nic->tx_crc = calloc(g->tx_dma, sizeof(*nic->tx_crc));
	if (!nic->routes || !nic->node_sram || !nic->peer_tail || !nic->routes_in || !nic->rx_done || !nic->rx_crc ||
	    !nic->tx_crc ||
	    lc_faults_attach(nic) != 0) {
		snprintf(err, errlen, "out of memory");
		nic_free(nic);
		*rc = LC_ERR_NOMEM;
		return NULL;
	}
	/*
	 * A link engine either side may run (lc_nic_pull_step), where the
	 * geometry asks for it (nic.link_engine "either"): the NIC a DMA frame
	 * goes to may move it, where this NIC's Net-Send keeps no state of its own
	 * about the frames (no fault injector, no nic_tx hook, no timed link) and
	 * one MCP per process steps every engine inline.
	 */
	nic->tx_dma_ready = g->pull && !g->mcp_thread && !nic->faults && !LC_NET_TIMED && !LC_PC_USED_nic_tx
			    ? LC_TX_PULL : LC_TX_OWN;
	atomic_store_explicit(&nic->ctrl->pull.ok, nic->tx_dma_ready == LC_TX_PULL, memory_order_relaxed);
	/* the placement the launcher stored (commrun --map): every slot once, or no route is sound */
	if ((*rc = lc_net_place_check(g, nic->hdr->place, err, errlen)) != 0) {
		nic_free(nic);
		*rc = LC_ERR_CONFIG;
		return NULL;
	}
	for (uint32_t d = 0; d < g->nodes; d++) {
		lc_net_route(g, nic->hdr->place, node, d, &nic->routes[d]);   /* cannot fail: checked above */
		lc_net_route(g, nic->hdr->place, d, node, &nic->routes_in[d]);
		nic->node_sram[d] = nic->seg + off_nodes + nic->nl.bytes * d + nic->nl.sram;
	}
	/* the NIC's registration table, which its endpoints share: in its first endpoint's SRAM */
	nic->reg = (struct lc_nic_reg *)(void *)(nic->node_sram[lc_geom_nic_of(g, node) * g->per_nic] +
						 g->off_reg);
	/*
	 * The doorbell regions.  This endpoint's: pages of this process alone
	 * (private anonymous memory mapped over the segment's), as a VI's doorbell
	 * page is mapped into its owner only -- the segment's own pages there are
	 * never read, so a process that maps the job segment itself and writes
	 * them rings nothing.  Every other endpoint's: no access in this mapping,
	 * so a stray write is a segmentation fault, not a doorbell.
	 */
	for (uint32_t d = 0; d < g->nodes; d++) {
		uint8_t *p = nic->node_sram[d] + g->off_tx_fifo;
		int ok = d == node ? mmap(p, g->db_bytes, PROT_READ | PROT_WRITE,
					  MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) == p
				   : mprotect(p, g->db_bytes, PROT_NONE) == 0;

		if (!ok) {
			snprintf(err, errlen, "mapping node %" PRIu32 "'s doorbell region: %s", d,
				 strerror(errno));
			nic_free(nic);
			*rc = LC_ERR_SYS;
			return NULL;
		}
	}
	if (!atomic_compare_exchange_strong_explicit(&nic->hdr->node[node].state, &st, LC_NODE_ATTACHED,
						     memory_order_acq_rel, memory_order_acquire)) {
		snprintf(err, errlen, "node %" PRIu32 " of job segment %s is %s, not unused", node, name,
			 state_name[st & 3]);
		nic_free(nic);
		*rc = LC_ERR_BUSY;
		return NULL;
	}
	atomic_store_explicit(&nic->hdr->node[node].pid, (int32_t)getpid(), memory_order_relaxed);
	if (g->mcp_thread) {
		if (pthread_create(&nic->thread, NULL, mcp_main, nic) != 0) {
			snprintf(err, errlen, "cannot start the MCP thread");
			/* release (R10): pairs with lc_seg_node_state (A10) */
			atomic_store_explicit(&nic->hdr->node[node].state, LC_NODE_EXITED, memory_order_release);
			nic_free(nic);
			*rc = LC_ERR_SYS;
			return NULL;
		}
		nic->thread_on = 1;
	}
	*rc = 0;
	return nic;
}

void lc_nic_detach(struct lc_nic *nic)
{
	uint32_t st = LC_NODE_ATTACHED;

	if (!nic)
		return;
	if (nic->thread_on) {
		/* release: pairs with the acquire of stop in mcp_main */
		atomic_store_explicit(&nic->stop, 1, memory_order_release);
		pthread_join(nic->thread, NULL);
		nic->thread_on = 0;
	}
	/* a node that attaches again must not find its old names valid again */
	lc_nic_name_drop_all(nic);
	/* release (R10): pairs with lc_seg_node_state (A10); a node marked dead stays dead */
	atomic_compare_exchange_strong_explicit(&nic->hdr->node[nic->node].state, &st, LC_NODE_EXITED,
						memory_order_release, memory_order_relaxed);
	nic_free(nic);
}

void lc_nic_debug_set_base(struct lc_nic *nic, uint32_t base)
{
	struct lc_nic_ctrl *ct = nic->ctrl;

#define LC_X_SET(idx) atomic_store_explicit(&ct->idx.v, base, memory_order_relaxed);
	LC_X_SET(send_head) LC_X_SET(send_tail) LC_X_SET(rxfifo_head) LC_X_SET(rxfifo_tail)
	LC_X_SET(recv_head) LC_X_SET(recv_tail)
#undef LC_X_SET
	for (uint32_t c = 0; c < LC_DMA_CHAINS; c++) {
		atomic_store_explicit(&ct->chain_head[c].v, base, memory_order_relaxed);
		atomic_store_explicit(&ct->chain_done[c].v, base, memory_order_relaxed);
		atomic_store_explicit(&ct->chain_active[c].v, base, memory_order_relaxed);
	}
	atomic_store_explicit(&nic->db->head.v, base, memory_order_relaxed);
	atomic_store_explicit(&nic->db->tail.v, base, memory_order_relaxed);
	lc_recv_next_set(nic, base);
	ct->net_recv.rx_alloc = base;
	ct->net_recv.rx_reaped = base;
	nic->hc_send_tail = base;
	nic->hc_txfifo_tail = base;
	nic->hc_txdma_done = base;
	nic->hc_rxfifo_head = base;
	atomic_thread_fence(memory_order_seq_cst);
}
