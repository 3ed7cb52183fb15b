/* SPDX-License-Identifier: MIT */
/* The Host/NIC DMA engine: chain priority, preemption between blocks, completion signals, limits. */
#include "../lc_t_copy.h"
#include "nic_test.h"

TestSuite(dma, .fini = lct_fini, .timeout = 30);

static struct lc_nic_dma_block blocks2[4], blocks3[4];

/* A NIC with both spare chains set up; SRAM scratch holds 0..255 patterns. */
static struct lc_nic *spare_nic(struct lc_nic_geom *g, const char *tag)
{
	struct lc_nic *n;

	*g = lct_geom((struct lct_shape){ .nodes = 1 });
	lct_setup(g, tag);
	n = lct_nic[0];
	cr_assert_eq(lc_nic_dma_chain_setup(n, 2, blocks2, 4), 0);
	cr_assert_eq(lc_nic_dma_chain_setup(n, 3, blocks3, 4), 0);
	for (uint32_t i = 0; i < LCT_SCRATCH; i++)
		n->sram[lct_scratch(g) + i] = (uint8_t)(i / 64 + 1);
	return n;
}

/* Which of the host buffers got their data, as a bit mask. */
static unsigned landed(uint8_t dst[][64], int n)
{
	unsigned m = 0;

	for (int i = 0; i < n; i++)
		if (dst[i][0])
			m |= 1u << i;
	return m;
}

Test(dma, higher_priority_chain_preempts_between_blocks)
{
	struct lc_nic_geom g;
	struct lc_nic *n = spare_nic(&g, "prio");
	uint8_t dst[5][64];
	uint32_t t, sc = lct_scratch(&g);

	memset(dst, 0, sizeof(dst));
	/* three blocks on the low-priority chain 3: dst[0..2] */
	for (int i = 0; i < 3; i++)
		cr_assert_eq(lc_nic_dma_chain_post(n, 3, sc + 64u * i, dst[i], 64, LC_DMA_TO_HOST, &t), 0);
	lc_nic_doorbell_step(n);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(landed(dst, 5), 0x1);
	/* two blocks arrive on chain 2 while chain 3 is in the middle of its work */
	for (int i = 3; i < 5; i++)
		cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc + 64u * i, dst[i], 64, LC_DMA_TO_HOST, &t), 0);
	lc_nic_doorbell_step(n);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(landed(dst, 5), 0x1 | 0x8, "chain 2 runs next");
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_preempt), 1);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(landed(dst, 5), 0x1 | 0x8 | 0x10);
	/* chain 2 is empty: back to chain 3, which is not a preemption */
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(landed(dst, 5), 0x1 | 0x2 | 0x8 | 0x10);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(landed(dst, 5), 0x1f);
	cr_assert_eq(lc_nic_dma_step(n), 0, "all chains idle");
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_preempt), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c2), 2);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c3), 3);
	for (int i = 0; i < 5; i++)
		for (int k = 0; k < 64; k++)
			cr_assert_eq(dst[i][k], (uint8_t)(i + 1), "block %d byte %d", i, k);
	cr_assert_eq(blocks3[0].status, LC_DMA_DONE);
}

Test(dma, completion_signals_and_tickets)
{
	struct lc_nic_geom g;
	struct lc_nic *n = spare_nic(&g, "sig");
	uint8_t src[3][64], back[64];
	uint32_t t[3], sc = lct_scratch(&g);

	for (int i = 0; i < 3; i++) {
		memset(src[i], 0xa0 + i, 64);
		/* only the middle block asks for a signal */
		cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc + 64u * i, src[i], 64,
						   LC_DMA_TO_NIC | (i == 1 ? LC_DMA_SIGNAL : 0), &t[i]), 0);
	}
	cr_assert_eq(t[1], t[0] + 1);
	cr_assert_eq(t[2], t[1] + 1);
	lc_nic_doorbell_step(n);
	cr_assert_lt((int32_t)(lc_nic_dma_chain_done(n, 2) - t[0]), 0);
	lc_nic_dma_step(n);
	cr_assert_eq(lc_nic_dma_chain_done(n, 2), t[0]);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_signals), 0);
	lc_nic_dma_step(n);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_signals), 1);
	lc_nic_dma_step(n);
	cr_assert_eq(lc_nic_dma_chain_done(n, 2), t[2]);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_signals), 1);
	/* the data is in SRAM: read it back through chain 3 */
	cr_assert_eq(lc_nic_dma_chain_post(n, 3, sc + 64, back, 64, LC_DMA_TO_HOST | LC_DMA_SIGNAL, &t[0]), 0);
	lc_nic_doorbell_step(n);
	lc_nic_dma_step(n);
	cr_assert_eq(memcmp(back, src[1], 64), 0);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_signals), 2);
}

Test(dma, chain_full_and_bad_requests)
{
	struct lc_nic_geom g;
	struct lc_nic *n = spare_nic(&g, "lim");
	static struct lc_nic_dma_block three[3];
	uint8_t buf[64];
	uint32_t t, sc = lct_scratch(&g);
	struct {
		uint32_t chain, off, len, flags;
		void *host;
	} bad[] = {
		{ 0, sc, 8, LC_DMA_TO_HOST, buf },                        /* chain 0 belongs to Net-Recv */
		{ 1, sc, 8, LC_DMA_TO_HOST, buf },                        /* chain 1 belongs to the Send Ring */
		{ 4, sc, 8, LC_DMA_TO_HOST, buf },                        /* no such chain */
		{ 2, sc, 8, LC_DMA_TO_HOST | LC_DMA_TO_NIC, buf },        /* two directions */
		{ 2, sc, 8, LC_DMA_SIGNAL, buf },                         /* no direction */
		{ 2, sc, 8, LC_DMA_TO_HOST | 0x100, buf },                /* unknown flag */
		{ 2, g.sram_bytes - 4, 8, LC_DMA_TO_HOST, buf },          /* past the end of SRAM */
		{ 2, sc, 8, LC_DMA_TO_HOST, NULL },                       /* no host buffer */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(lc_nic_dma_chain_post(n, bad[i].chain, bad[i].off, bad[i].host, bad[i].len,
						   bad[i].flags, &t), LC_ERR_INVAL, "row %zu", i);
	/* the boundary rows that are fine: last byte of SRAM, zero bytes without a buffer */
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, g.sram_bytes - 8, buf, 8, LC_DMA_TO_HOST, &t), 0);
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc, NULL, 0, LC_DMA_TO_HOST, &t), 0);
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc, buf, 8, LC_DMA_TO_HOST, &t), 0);
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc, buf, 8, LC_DMA_TO_HOST, &t), 0);
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc, buf, 8, LC_DMA_TO_HOST, &t), LC_ERR_AGAIN, "4 blocks");
	/* a busy chain cannot be given new blocks; a bad size is refused */
	cr_assert_eq(lc_nic_dma_chain_setup(n, 2, blocks2, 4), LC_ERR_BUSY);
	cr_assert_eq(lc_nic_dma_chain_setup(n, 3, three, 3), LC_ERR_INVAL);
	cr_assert_eq(lc_nic_dma_chain_setup(n, 1, blocks2, 4), LC_ERR_INVAL);
	lc_nic_doorbell_step(n);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(lc_nic_dma_chain_post(n, 2, sc, buf, 8, LC_DMA_TO_HOST, &t), 0, "room again");
}

/* The Rx chain (0) takes over from the Tx chain (1) between two Tx blocks. */
Test(dma, rx_chain_preempts_tx_chain)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 1 });
	struct lc_nic *n;
	uint8_t buf[2][256];

	lct_setup(&g, "rxtx");
	n = lct_nic[0];
	cr_assert_eq(lct_send(n, 0, 0, 200, 1, buf[0], NULL), 0);
	cr_assert_eq(lct_send(n, 0, 1, 200, 1, buf[1], NULL), 0);
	lc_nic_doorbell_step(n);
	cr_assert_eq(lc_nic_dma_step(n), 1);          /* Tx block 0 */
	cr_assert_eq(lc_nic_net_send_step(n), 1);     /* frame 0 to our own Receive Ring */
	cr_assert_eq(lc_nic_net_recv_step(n), 1);     /* Rx block queued on chain 0 */
	cr_assert_eq(lc_nic_dma_step(n), 1);          /* chain 0 before Tx block 1 */
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_preempt), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c0), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c1), 1);
	lct_check(lc_nic_rx_peek(n), 0, 0, 0, 200);
	cr_assert_eq(lc_nic_dma_step(n), 1);          /* Tx block 1 */
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c1), 2);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_signals), 3);
}

/*
 * The engine keeps its strict priority; the MCP meters the Rx chain: while
 * a Tx block waits, at most LC_NIC_RX_BURST Rx blocks run since the last Tx
 * block (lc_nic_rx_activate), the next are activated when a Tx block
 * completes.  With the Tx chain empty every written Rx block is active at
 * once and they run back to back.
 */
Test(dma, rx_chain_yields_to_a_waiting_tx_block_after_a_burst)
{
	enum { B = LC_NIC_RX_BURST, N = 2 * LC_NIC_RX_BURST + 2 };
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 1, .send_ring = 32, .recv_ring = 32,
							    .tx_dma = 32, .rx_dma = 32, .staging = 32,
							    .rx_fifo = 32, .tx_fifo = 64 });
	static uint8_t buf[N][256];
	struct lc_nic *n;

	lct_setup(&g, "burst");
	n = lct_nic[0];
	for (uint32_t i = 0; i < N; i++)
		cr_assert_eq(lct_send(n, 0, i, 200, 1, buf[i], NULL), 0);
	lc_nic_doorbell_step(n);
	for (int i = 0; i < B + 2; i++)
		cr_assert_eq(lc_nic_dma_step(n), 1);            /* Tx blocks 0 .. B+1 */
	for (int i = 0; i < B + 2; i++) {
		cr_assert_eq(lc_nic_net_send_step(n), 1);       /* to our own Receive Ring */
		cr_assert_eq(lc_nic_net_recv_step(n), 1);       /* their Rx blocks on chain 0 */
	}
	cr_assert_eq(atomic_load(&n->ctrl->chain_active[0].v), B, "a burst of Rx blocks active while Tx blocks wait");
	for (int i = 0; i < B; i++)
		cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c0), B, "the burst: Rx blocks first");
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c1), B + 2);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c1), B + 3, "then a Tx block");
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(lc_nic_dma_step(n), 1);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c0), B + 2, "then the Rx blocks left");
	while (lc_nic_dma_step(n))
		;
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c1), N, "the Tx blocks after them");
	lc_nic_net_recv_reap(n);
	while (lc_nic_rx_peek(n))
		lc_nic_rx_release(n);
	/* the Tx chain empty: the rest of the frames' Rx blocks all active at once, back to back */
	for (int i = B + 2; i < N; i++) {
		cr_assert_eq(lc_nic_net_send_step(n), 1);
		cr_assert_eq(lc_nic_net_recv_step(n), 1);
	}
	cr_assert_eq(atomic_load(&n->ctrl->chain_active[0].v), N);
	cr_assert_eq(lc_nic_dma_run(n, N - B - 2), N - B - 2);
	cr_assert_eq(lct_stat(n, LC_NIC_STAT_dma_blocks_c0), N);
	cr_assert_eq(lc_nic_dma_step(n), 0, "all chains idle");
}

/*
 * The engine's non-temporal copy (LC_DMA_STREAM blocks): every destination
 * alignment, source alignments, lengths around its 16-byte head and 64-byte
 * rounds; exactly the bytes asked for, nothing before or after.
 */
Test(dma, stream_copy_writes_exactly_the_bytes_at_every_alignment)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 63, 64, 65, 79, 127, 128, 129, 4095, 4096, 4097, 8205 };

	lc_t_copy_exact(lc_nic_copy_stream, lens, sizeof(lens) / sizeof(lens[0]));
}
