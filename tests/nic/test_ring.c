/* SPDX-License-Identifier: MIT */
/* Send Ring and Receive Ring: full, empty, wraparound of the free-running indices past 2^32. */
#include "nic_test.h"

TestSuite(ring, .fini = lct_fini, .timeout = 30);

Test(ring, send_ring_full_and_empty)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .send_ring = 4, .recv_ring = 8 });
	struct lc_nic *s;
	uint8_t buf[4][256];

	lct_setup(&g, "sfull");
	s = lct_nic[0];
	cr_assert(lc_nic_tx_idle(s));
	/* the slot is the same until it is posted */
	cr_assert_eq(lc_nic_tx_slot(s), lc_nic_tx_slot(s));
	for (uint32_t i = 0; i < g.send_ring; i++) {
		cr_assert_eq(lct_send(s, 1, i, 8, i & 1, buf[i], NULL), 0, "slot %u", i);
		cr_assert_not(lc_nic_tx_idle(s));
	}
	cr_assert_null(lc_nic_tx_slot(s), "Send Ring full");
	/* one step: doorbells served, one DMA block, one frame sent -> one slot free */
	lc_nic_step(s);
	cr_assert_not_null(lc_nic_tx_slot(s));
	lct_settle();
	cr_assert(lc_nic_tx_idle(s));
	for (uint32_t i = 0; i < g.send_ring; i++) {
		lct_check(lct_wait_rx(lct_nic[1]), 0, 1, i, 8);
		lc_nic_rx_release(lct_nic[1]);
	}
	cr_assert_null(lc_nic_rx_peek(lct_nic[1]), "Rx FIFO empty");
}

Test(ring, recv_ring_full_holds_frames)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .send_ring = 8, .recv_ring = 4 });
	struct lc_nic *s, *r;
	uint8_t buf[8][256];

	lct_setup(&g, "rfull");
	s = lct_nic[0];
	r = lct_nic[1];
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(lct_send(s, 1, i, 40, 0, buf[i], NULL), 0);
	for (int i = 0; i < 10; i++)
		lc_nic_step(s);
	cr_assert_eq(atomic_load(&r->ctrl->recv_head.v) - atomic_load(&r->ctrl->recv_tail.v), g.recv_ring);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), g.recv_ring);
	cr_assert_null(lc_nic_rx_peek(r));
	for (uint32_t i = 0; i < 6; i++) {
		lct_check(lct_wait_rx(r), 0, 1, i, 40);
		lc_nic_rx_release(r);
	}
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_bp_drops), 0);
}

/* Every index starts just below 2^32: frames keep their order across the wrap. */
static void wrap(uint32_t base)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .send_ring = 4, .recv_ring = 4, .tx_dma = 2,
							    .rx_dma = 2, .tx_fifo = 4, .rx_fifo = 4,
							    .staging = 2 });
	static uint8_t buf[8][256];
	uint32_t sent = 0, got = 0, ticket = base;

	lct_setup(&g, "wrap");
	lc_nic_debug_set_base(lct_nic[0], base);
	lc_nic_debug_set_base(lct_nic[1], base);
	while (got < 40) {
		/* a DMA buffer is reused only when its block is done */
		if (sent < 40 && sent - got < 8 && (int32_t)(lc_nic_tx_dma_done(lct_nic[0]) - ticket) >= 0 &&
		    lct_send(lct_nic[0], 1, sent, sent * 5 % (g.mtu + 1), sent % 3 == 0, buf[sent & 7],
			     &ticket) == 0)
			sent++;
		lct_step_all();
		if (lc_nic_rx_peek(lct_nic[1])) {
			lct_check(lc_nic_rx_peek(lct_nic[1]), 0, 1, got, got * 5 % (g.mtu + 1));
			lc_nic_rx_release(lct_nic[1]);
			got++;
		}
	}
	lct_settle();
	/* the indices did wrap past 2^32 and ended where 40 frames take them */
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->send_tail.v), base + 40);
	cr_assert_eq(atomic_load(&lct_nic[1]->ctrl->recv_tail.v), base + 40);
	cr_assert_eq(atomic_load(&lct_nic[1]->ctrl->rxfifo_tail.v), base + 40);
	cr_assert_lt(atomic_load(&lct_nic[0]->ctrl->send_tail.v), 64u);
	cr_assert(lc_nic_tx_idle(lct_nic[0]));
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
}

Test(ring, wraparound_past_2_32)
{
	wrap(UINT32_MAX - 5);
}

Test(ring, wraparound_at_2_32_minus_1)
{
	wrap(UINT32_MAX);
}
