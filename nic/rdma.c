/* SPDX-License-Identifier: MIT */
/* Registered memory and RDMA: the registration table in SRAM, its checks, and the placement of an RDMA frame. */
#include <string.h>

#include "nic_impl.h"

/*
 * The table (nic.h, "registered memory and RDMA") lives in the NIC's SRAM
 * (the first endpoint's of the NIC: every endpoint of the NIC uses that one),
 * nic.reg_entries entries of struct lc_nic_reg.  Only hosts write it
 * (R15: claim, fields, key with a release), each its own entries; Net-Recv reads it (A15), in
 * thread mode on the MCP thread.  A handle is gen << 16 | entry: the
 * generation changes at every registration, re-key and deregistration of
 * the entry, so a forged or stale handle finds another generation.
 */

#define REG_GEN(h) ((h) >> 16)
#define REG_IDX(h) ((h) & 0xffffu)

static inline uint32_t reg_key(uint32_t gen, uint32_t rights)
{
	return gen << 16 | LC_REG_KEY_VALID | rights;
}

/* The next generation of an entry whose key was k (never 0, so a zeroed handle is never valid). */
static inline uint32_t reg_next_gen(uint32_t k)
{
	uint32_t g = (REG_GEN(k) + 1) & 0xffffu;

	return g ? g : 1;
}

uint32_t lc_nic_vi_tag(const struct lc_nic *nic)
{
	return atomic_load_explicit(&nic->ctrl->vi_tag, memory_order_relaxed);
}

int lc_nic_set_vi_tag(struct lc_nic *nic, uint32_t tag)
{
	if (!tag)
		return LC_ERR_INVAL;
	/* relaxed: a frame checked against the old tag or the new is checked against a tag of this endpoint */
	atomic_store_explicit(&nic->ctrl->vi_tag, tag, memory_order_relaxed);
	return 0;
}

/*
 * Take entry e, free with key k, for this endpoint: claim it (compare-and-
 * swap: the NIC's endpoints share the table; Net-Recv refuses a claimed
 * entry), write the fields, then the key (R15).  0 when another endpoint
 * took it first.
 */
static int reg_take(struct lc_nic *nic, struct lc_nic_reg *e, uint32_t k, uint32_t key,
		    const void *addr, uint64_t len, uint32_t tag)
{
	if (!atomic_compare_exchange_strong_explicit(&e->key, &k, (k & 0xffff0000u) | LC_REG_KEY_CLAIMED,
						     memory_order_acquire, memory_order_relaxed))
		return 0;
	/* release: a reader that sees a new field sees the claim above (its second key read differs) */
	atomic_store_explicit(&e->owner, nic->node, memory_order_release);
	atomic_store_explicit(&e->addr, (uint64_t)(uintptr_t)addr, memory_order_release);
	atomic_store_explicit(&e->len, len, memory_order_release);
	atomic_store_explicit(&e->tag, tag, memory_order_release);
	/* release (R15): pairs with Net-Recv's acquire of the key (A15) */
	atomic_store_explicit(&e->key, key, memory_order_release);
	return 1;
}

/* The entry of handle when it is registered with that generation, else NULL (host side). */
static struct lc_nic_reg *reg_find(const struct lc_nic *nic, uint32_t handle)
{
	struct lc_nic_reg *e;
	uint32_t k;

	if (REG_IDX(handle) >= nic->g.reg_entries)
		return NULL;
	e = &nic->reg[REG_IDX(handle)];
	/* acquire: pairs with reg_take's release of the key; an entry is this endpoint's alone */
	k = atomic_load_explicit(&e->key, memory_order_acquire);
	return (k & LC_REG_KEY_VALID) && REG_GEN(k) == REG_GEN(handle) &&
	       atomic_load_explicit(&e->owner, memory_order_relaxed) == nic->node ? e : NULL;
}

int lc_nic_reg(struct lc_nic *nic, const void *addr, uint64_t len, uint32_t tag, uint32_t rights,
	       uint32_t *handle)
{
	uint32_t i, k;

	if (!addr || !len || !handle || (rights & ~LC_NIC_REG_RIGHTS) ||
	    (uint64_t)(uintptr_t)addr + len < (uint64_t)(uintptr_t)addr)
		return LC_ERR_INVAL;
	for (i = 0; i < nic->g.reg_entries; i++) {
		uint32_t key;

		k = atomic_load_explicit(&nic->reg[i].key, memory_order_relaxed);
		if (k & (LC_REG_KEY_VALID | LC_REG_KEY_CLAIMED))
			continue;
		/* a free entry keeps its last generation in the key's high half (lc_nic_dereg) */
		key = reg_key(reg_next_gen(k), rights);
		if (!reg_take(nic, &nic->reg[i], k, key, addr, len, tag))
			continue;
		*handle = REG_GEN(key) << 16 | i;
		return 0;
	}
	return LC_ERR_AGAIN;
}

/*
 * Give entry e key k (a new generation, or free with its generation kept)
 * and return the chain-0 index every Rx DMA block posted under the old key
 * is before (wait for it with lc_nic_rdma_quiet).  Net-Recv may have checked
 * the old key and not yet posted its blocks: take Net-Recv's engine lock
 * (thread mode: the MCP thread may be in it; inline mode its holder is this
 * thread's caller, never inside it), so that every block posted under the
 * old key is before the fence read below.
 */
static uint32_t reg_swap_key(struct lc_nic *nic, struct lc_nic_reg *e, uint32_t k)
{
	_Atomic int *net_recv = &nic->eng[LC_NIC_ENG_net_recv].lock;
	int unlocked = 0;
	uint32_t fence;

	while (nic->thread_on &&
	       !atomic_compare_exchange_weak_explicit(net_recv, &unlocked, LC_NIC_ENG_HELD,
						      memory_order_acquire, memory_order_relaxed))
		unlocked = 0;
	/* release (R15): a frame checked from now on sees the new key */
	atomic_store_explicit(&e->key, k, memory_order_release);
	fence = atomic_load_explicit(&nic->ctrl->chain_head[0].v, memory_order_relaxed);
	if (nic->thread_on)
		atomic_store_explicit(net_recv, 0, memory_order_release);
	return fence;
}

int lc_nic_reg_rekey(struct lc_nic *nic, uint32_t *handle, uint32_t *fence)
{
	struct lc_nic_reg *e = handle ? reg_find(nic, *handle) : NULL;
	uint32_t k, f;

	if (!e)
		return LC_ERR_INVAL;
	k = atomic_load_explicit(&e->key, memory_order_relaxed);
	k = reg_key(reg_next_gen(k), k & LC_NIC_REG_RIGHTS);
	f = reg_swap_key(nic, e, k);
	if (fence)
		*fence = f;
	*handle = REG_GEN(k) << 16 | REG_IDX(*handle);
	return 0;
}

int lc_nic_dereg(struct lc_nic *nic, uint32_t handle, uint32_t *fence)
{
	struct lc_nic_reg *e = reg_find(nic, handle);

	if (!e || !fence)
		return LC_ERR_INVAL;
	/* free, its generation kept: the entry's next registration takes the one after it */
	*fence = reg_swap_key(nic, e, REG_GEN(handle) << 16);
	return 0;
}

int lc_nic_rdma_quiet(const struct lc_nic *nic, uint32_t fence)
{
	/* acquire (A4): pairs with the DMA engine's release of chain_done (R4) */
	return (int32_t)(atomic_load_explicit(&nic->ctrl->chain_done[0].v, memory_order_acquire) - fence) >= 0;
}

/* addr + off when [off, off + len) lies inside [0, reg_len), else NULL (no overflow: 64-bit sums). */
static inline void *reg_span(uint64_t addr, uint64_t reg_len, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len <= reg_len ? (void *)(uintptr_t)(addr + off) : NULL;
}

void *lc_nic_reg_addr(const struct lc_nic *nic, uint32_t handle, uint32_t off)
{
	const struct lc_nic_reg *e = reg_find(nic, handle);

	return e && off < atomic_load_explicit(&e->len, memory_order_relaxed) ?
	       (void *)(uintptr_t)(atomic_load_explicit(&e->addr, memory_order_relaxed) + off) : NULL;
}

void *lc_nic_rdma_payload(const struct lc_nic *nic, const struct lc_frame_hdr *hdr)
{
	const struct lc_nic_reg *e = reg_find(nic, hdr->rkey);

	return e ? reg_span(atomic_load_explicit(&e->addr, memory_order_relaxed),
			    atomic_load_explicit(&e->len, memory_order_relaxed), hdr->off, hdr->len) : NULL;
}

uint32_t lc_nic_rdma_nacks(const struct lc_nic *nic, uint32_t dst, enum lc_nic_nack kind)
{
	const _Atomic uint32_t *n;

	if (dst >= nic->g.nodes || (unsigned)kind >= LC_NIC_NACK_KINDS)
		return 0;
	n = (const _Atomic uint32_t *)(lc_seg_node_area(nic, dst) + nic->nl.rdma_nacks);
	/* acquire: pairs with the release in rdma_refuse (single writer: dst's Net-Recv) */
	return atomic_load_explicit(&n[(size_t)kind * nic->g.nodes + nic->node], memory_order_acquire);
}

/*
 * Net-Recv's check of an RDMA frame: the host address its payload goes to,
 * or NULL (refused, *why set: STALE for a handle of another generation than
 * its entry's -- free, re-keyed, registered again -- REFUSED for an entry
 * beyond the table, no write right, a region of another protection tag
 * than this endpoint's, bytes outside the region or a transfer that ends
 * beyond it: msg_len).
 */
static void *rdma_check(struct lc_nic *nic, const struct lc_frame_hdr *hdr, enum lc_nic_nack *why)
{
	const struct lc_nic_reg *e;
	uint32_t k, tag, owner;
	uint64_t addr, len;

	*why = LC_NIC_NACK_REFUSED;
	if (REG_IDX(hdr->rkey) >= nic->g.reg_entries)
		return NULL;
	e = &nic->reg[REG_IDX(hdr->rkey)];
	/* acquire (A15): pairs with the host's release of the key (R15) */
	k = atomic_load_explicit(&e->key, memory_order_acquire);
	if (!(k & LC_REG_KEY_VALID) || REG_GEN(k) != REG_GEN(hdr->rkey)) {
		*why = LC_NIC_NACK_STALE;
		return NULL;
	}
	if (!(k & LC_NIC_REG_WRITE))
		return NULL;
	/* acquire: the key's second read below cannot move before these */
	addr = atomic_load_explicit(&e->addr, memory_order_acquire);
	len = atomic_load_explicit(&e->len, memory_order_acquire);
	tag = atomic_load_explicit(&e->tag, memory_order_acquire);
	owner = atomic_load_explicit(&e->owner, memory_order_acquire);
	/* the fields read above belong to key k only if the key is still k */
	if (atomic_load_explicit(&e->key, memory_order_relaxed) != k) {
		*why = LC_NIC_NACK_STALE;       /* re-keyed or revoked while we looked */
		return NULL;
	}
	/*
	 * Memory another endpoint of this NIC registered is in its process, not
	 * this one's: the MCP serves an endpoint its own registrations under its
	 * own protection tag only.
	 */
	if (owner != nic->node || tag != atomic_load_explicit(&nic->ctrl->vi_tag, memory_order_relaxed))
		return NULL;
	/*
	 * msg_len is where the whole transfer ends: one that passes the region's end is
	 * refused in every frame, so that none of it lands (not only its frames beyond)
	 */
	if (hdr->msg_len > len)
		return NULL;
	return reg_span(addr, len, hdr->off, hdr->len);
}

/* A refused RDMA frame: counted here and, by kind, for its sender (lc_nic_rdma_nacks). */
static void rdma_refuse(struct lc_nic *nic, uint32_t src, enum lc_nic_nack why)
{
	_Atomic uint32_t *n = &nic->rdma_nacks[(size_t)why * nic->g.nodes + src];

	lc_nic_count(nic, LC_NIC_STAT_rdma_denied, 1);
	if (why == LC_NIC_NACK_STALE)
		lc_nic_count(nic, LC_NIC_STAT_rdma_stale, 1);
	/* release: pairs with the acquire in lc_nic_rdma_nacks (single writer: this NIC's Net-Recv) */
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_release);
}

int lc_nic_rdma_place(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t next, uint32_t h0)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	struct lc_nic_recv_eng *m = &ct->net_recv;
	struct lc_nic_dma_block *a, *b;
	uint32_t slot, mask = nic->chain[0].mask;
	enum lc_nic_nack why;
	void *dst = rdma_check(nic, hdr, &why);

	if (!dst) {
		rdma_refuse(nic, hdr->src, why);
		return -1;
	}
	/* two blocks: the caller checked room for one */
	if (h0 + 1 - m->rx_reaped >= nic->g.rx_dma)
		return 0;
	slot = m->rx_alloc & (nic->g.staging_slots - 1);
	/*
	 * First the payload into the region, then the header into staging with the
	 * signal: chain 0 runs in order, so the host sees the header once the payload
	 * is in place.  The payload block holds the Receive Ring slot (LC_DMA_HOLD):
	 * the slot is freed when the header block is done, never before it was read.
	 */
	a = &nic->chain[0].blocks[h0 & mask];
	a->host = (uint64_t)(uintptr_t)dst;
	a->sram = (uint32_t)((uint8_t *)(hdr + 1) - nic->sram);
	a->len = hdr->len;
	a->flags = LC_DMA_TO_HOST | LC_DMA_HOLD | (hdr->len >= LC_DMA_STREAM_MIN ? LC_DMA_STREAM : 0);
	a->tag = next;
	a->next = (h0 + 1) & mask;
	a->status = 0;
	b = &nic->chain[0].blocks[(h0 + 1) & mask];
	b->host = (uint64_t)(uintptr_t)(nic->staging + (size_t)slot * nic->g.slot_bytes);
	b->sram = (uint32_t)((uint8_t *)hdr - nic->sram);
	b->len = nic->g.hdr_bytes;
	b->flags = LC_DMA_TO_HOST | LC_DMA_SIGNAL;
	b->tag = next;
	b->next = (h0 + 2) & mask;
	b->status = 0;
	/* release (R16): pairs with lc_nic_rx_activate's acquire of chain_head[0] (A16) */
	atomic_store_explicit(&ct->chain_head[0].v, h0 + 2, memory_order_release);
	lc_nic_rx_activate(nic);
	m->rx_alloc++;
	lc_recv_next_advance(nic, next);
	lc_nic_count(nic, LC_NIC_STAT_net_rx_frames, 1);
	lc_nic_count(nic, LC_NIC_STAT_rdma_frames, 1);
	lc_nic_count(nic, LC_NIC_STAT_rdma_bytes, hdr->len);
	return 1;
}
