/* SPDX-License-Identifier: MIT */
/* The Host/NIC DMA engine: four chains of control blocks in priority order, one block per step. */
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "dma_step.h"

_Static_assert(LC_NIC_STAT_dma_blocks_c3 == LC_NIC_STAT_dma_blocks_c0 + 3,
	       "one dma_blocks counter per chain, in chain order");
_Static_assert(LC_DMA_CHAINS == 4, "chains 0 (Rx), 1 (Tx), 2..3 (spare)");

void lc_nic_copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
	uint8_t *d = dst;
	const uint8_t *s = src;
	/* up to the first 16-byte boundary of dst with ordinary stores, then 64 bytes a round */
	size_t head = (16u - ((uintptr_t)d & 15u)) & 15u;

	if (head > n)
		head = n;
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	memcpy(d, s, n);
	/* non-temporal stores are weakly ordered: visible before anything stored after this */
	_mm_sfence();
#else
	memcpy(dst, src, n);
#endif
}

int lc_nic_dma_step(struct lc_nic *nic)
{
	return dma_step(nic, NULL);
}

int lc_nic_dma_step_marked(struct lc_nic *nic, _Atomic int *lock)
{
	return dma_step(nic, lock);
}

int lc_nic_dma_run(struct lc_nic *nic, int max)
{
	return dma_run(nic, max);
}

int lc_nic_dma_chain_setup(struct lc_nic *nic, uint32_t c, struct lc_nic_dma_block *blocks, uint32_t n)
{
	if (!nic || c < 2 || c >= LC_DMA_CHAINS || !blocks || n == 0 || (n & (n - 1)) != 0)
		return LC_ERR_INVAL;
	if (atomic_load_explicit(&nic->ctrl->chain_head[c].v, memory_order_relaxed) !=
	    atomic_load_explicit(&nic->ctrl->chain_done[c].v, memory_order_acquire))
		return LC_ERR_BUSY;
	nic->chain[c].blocks = blocks;
	nic->chain[c].mask = n - 1;
	if (atomic_load_explicit(&nic->dma_chains, memory_order_relaxed) < c + 1)
		atomic_store_explicit(&nic->dma_chains, c + 1, memory_order_relaxed);
	return 0;
}

uint32_t lc_nic_dma_chain_done(const struct lc_nic *nic, uint32_t c)
{
	/* acquire (A4): pairs with the release of chain_done in lc_nic_dma_step (R4) */
	return atomic_load_explicit(&nic->ctrl->chain_done[c & (LC_DMA_CHAINS - 1)].v, memory_order_acquire);
}

int lc_nic_dma_chain_post(struct lc_nic *nic, uint32_t c, uint32_t sram_off, void *host, uint32_t len,
			  uint32_t flags, uint32_t *ticket)
{
	struct lc_nic_ctrl *ct;
	struct lc_nic_dma_block *b;
	uint32_t head, fh, dir;

	if (!nic || c < 2 || c >= LC_DMA_CHAINS || !nic->chain[c].blocks || !ticket)
		return LC_ERR_INVAL;
	dir = flags & (LC_DMA_TO_NIC | LC_DMA_TO_HOST);
	if ((flags & ~LC_DMA_FLAGS) || (dir != LC_DMA_TO_NIC && dir != LC_DMA_TO_HOST) ||
	    (uint64_t)sram_off + len > nic->g.sram_bytes || (len && !host))
		return LC_ERR_INVAL;
	ct = nic->ctrl;
	head = atomic_load_explicit(&ct->chain_head[c].v, memory_order_relaxed);
	fh = atomic_load_explicit(&nic->db->head.v, memory_order_relaxed);
	/* acquire (A4) / (A3): pair with the MCP's releases of chain_done (R4) and txfifo_tail (R3) */
	if (head - atomic_load_explicit(&ct->chain_done[c].v, memory_order_acquire) > nic->chain[c].mask ||
	    fh - atomic_load_explicit(&nic->db->tail.v, memory_order_acquire) >= nic->g.tx_fifo)
		return LC_ERR_AGAIN;
	b = &nic->chain[c].blocks[head & nic->chain[c].mask];
	b->host = (uint64_t)(uintptr_t)host;
	b->sram = sram_off;
	b->len = len;
	b->flags = flags;
	b->tag = 0;
	b->next = (head + 1) & nic->chain[c].mask;
	b->status = 0;
	atomic_store_explicit(&ct->chain_head[c].v, head + 1, memory_order_relaxed);
	lc_nic_ring(nic, LC_DB_CHAIN(c), head);
	*ticket = head + 1;
	return 0;
}
