/* SPDX-License-Identifier: MIT */
/*
 * The DMA engine's step (dma.c), inline where the engines run: the inline
 * MCP's pass (nic.c, step_all) runs the Rx DMA block of every frame it took;
 * a call of lc_nic_dma_run was a frame of six saved registers on the path of
 * each (the 8 B ping-pong's receive 644 -> 620 Ir).  Internal to nic/.
 */
#ifndef LC_NIC_DMA_STEP_H
#define LC_NIC_DMA_STEP_H

#include <string.h>

#include "nic_impl.h"

/*
 * One block of the highest-priority chain with work.  mark: NULL inline;
 * in thread mode the engine's lock, which reads LC_NIC_ENG_COPYING while the
 * copy is under way (a hint for the overlap counters, relaxed: the lock's
 * release store at the end of the step resets it).  Inlined into every
 * caller, so the inline step pays nothing for it.
 */
static inline __attribute__((always_inline)) int dma_step(struct lc_nic *nic, _Atomic int *mark)
{
	struct lc_nic_ctrl *ct = nic->ctrl;
	struct lc_nic_dma_eng *m = &ct->dma;
	struct lc_nic_dma_block *b;
	uint32_t c, done = 0, nchains = atomic_load_explicit(&nic->dma_chains, memory_order_relaxed);
	uint32_t crc_owner = 0, crc = 0;
	void *sram, *host;

	/*
	 * the highest-priority chain with an activated block not yet done; the spare
	 * chains only once one was given blocks (dma_chains: an idle step, every
	 * progress call of a waiting host, reads two chains, not four)
	 */
	for (c = 0; c < nchains; c++) {
		done = atomic_load_explicit(&ct->chain_done[c].v, memory_order_relaxed);
		/* acquire (A14): pairs with the chain producer's release of chain_active (R14) */
		if (atomic_load_explicit(&ct->chain_active[c].v, memory_order_acquire) != done)
			break;
	}
	if (c == nchains)
		return 0;
	if (c != m->cur_chain) {
		uint32_t k = m->cur_chain;

		/* left a lower-priority chain in the middle of its work: preempted between blocks */
		if (k < LC_DMA_CHAINS && atomic_load_explicit(&ct->chain_active[k].v, memory_order_relaxed) !=
		    atomic_load_explicit(&ct->chain_done[k].v, memory_order_relaxed))
			lc_nic_count(nic, LC_NIC_STAT_dma_preempt, 1);
		m->cur_chain = c;
	}
	b = &nic->chain[c].blocks[done & nic->chain[c].mask];
	sram = nic->sram + b->sram;
	host = (void *)(uintptr_t)b->host;
	if (mark)
		atomic_store_explicit(mark, LC_NIC_ENG_COPYING, memory_order_relaxed);
	if (b->flags & LC_DMA_TO_NIC) {
		if (b->flags & LC_DMA_CRC)
			lc_nic_tx_dma_crc_copy(nic, b);
		else
			memcpy(sram, host, b->len);
		lc_nic_count(nic, LC_NIC_STAT_dma_to_nic_bytes, b->len);
	} else {
		if (b->flags & LC_DMA_STREAM)
			lc_nic_copy_stream(host, sram, b->len);
		else if (b->flags & LC_DMA_CRC)
			crc = lc_nic_rx_dma_crc_copy(nic, b, &crc_owner);
		else
			memcpy(host, sram, b->len);
		lc_nic_count(nic, LC_NIC_STAT_dma_to_host_bytes, b->len);
	}
	b->status = LC_DMA_DONE;
	lc_nic_count(nic, (enum lc_nic_stat)(LC_NIC_STAT_dma_blocks_c0 + c), 1);
	if (b->flags & LC_DMA_SIGNAL) {
		lc_nic_count(nic, LC_NIC_STAT_dma_signals, 1);
		if (c == 0)
			lc_nic_rx_dma_complete(nic, b, crc_owner, crc);
		else if (c == 1)
			lc_nic_tx_dma_complete(nic, b);
	}
	/* release (R4): pairs with the host's and Net-Recv's acquire of chain_done (A4) */
	atomic_store_explicit(&ct->chain_done[c].v, done + 1, memory_order_release);
	if (mark)
		atomic_store_explicit(mark, LC_NIC_ENG_HELD, memory_order_relaxed);
	return 1;
}

/* The inline step's DMA pass: up to max blocks, one after the other as the engine walks its chains. */
static inline __attribute__((always_inline)) int dma_run(struct lc_nic *nic, int max)
{
	int n = 0;

	while (n < max && dma_step(nic, NULL))
		n++;
	return n;
}

#endif /* LC_NIC_DMA_STEP_H */
