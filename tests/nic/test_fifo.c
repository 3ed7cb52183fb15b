/* SPDX-License-Identifier: MIT */
/* Tx FIFO (doorbell) and Rx FIFO: order, full, empty, what the entries carry. */
#include "nic_test.h"

TestSuite(fifo, .fini = lct_fini, .timeout = 30);

Test(fifo, doorbell_entries_in_order_with_address)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .tx_fifo = 8 });
	struct lc_nic *s;
	uint8_t buf[6][256];
	uint32_t t0;

	lct_setup(&g, "dbord");
	s = lct_nic[0];
	lc_nic_debug_set_base(s, UINT32_MAX - 2);
	t0 = atomic_load(&s->db->tail.v);
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(lct_send(s, 1, i, 4, i % 3 == 2, buf[i], NULL), 0);
	/* the FIFO holds the doorbells in posting order, each with its doorbell address */
	for (uint32_t i = 0, blk = UINT32_MAX - 2; i < 6; i++) {
		const struct lc_nic_fifo_entry *e = &s->db->e[(t0 + i) & (g.tx_fifo - 1)];

		cr_assert_eq(LC_DB_NODE(e->addr), 0, "entry %u: written through node 0's doorbell page", i);
		if (i % 3 == 2) {
			cr_assert_eq(LC_DB_OFF(e->addr), LC_DB_CHAIN(1), "entry %u", i);
			cr_assert_eq(e->value, blk++, "entry %u: block index", i);
		} else {
			cr_assert_eq(LC_DB_OFF(e->addr), LC_DB_PIO, "entry %u", i);
			cr_assert_eq(e->value, t0 + i, "entry %u: Send Ring slot", i);
		}
	}
	/* the service takes them all in one step, in order */
	cr_assert_eq(lc_nic_doorbell_step(s), 6);
	cr_assert_eq(lc_nic_doorbell_step(s), 0, "empty FIFO: no work");
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_doorbells), 6);
	cr_assert_eq(atomic_load(&s->db->tail.v), t0 + 6);
	/* PIO slots are ready at once, the DMA slots only after their block */
	cr_assert_eq(s->tx_ready[(t0 + 0) & (g.send_ring - 1)], 1);
	cr_assert_eq(s->tx_ready[(t0 + 2) & (g.send_ring - 1)], 0);
	cr_assert_eq(atomic_load(&s->ctrl->chain_active[1].v), UINT32_MAX - 2 + 2);
	for (uint32_t i = 0; i < 6; i++) {
		lct_check(lct_wait_rx(lct_nic[1]), 0, 1, i, 4);
		lc_nic_rx_release(lct_nic[1]);
	}
}

Test(fifo, tx_fifo_full_blocks_tx_slot)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .tx_fifo = 2, .send_ring = 8 });
	struct lc_nic *s;
	uint8_t buf[3][256];

	lct_setup(&g, "txfull");
	s = lct_nic[0];
	cr_assert_eq(lct_send(s, 1, 0, 1, 0, buf[0], NULL), 0);
	cr_assert_eq(lct_send(s, 1, 1, 1, 0, buf[1], NULL), 0);
	cr_assert_null(lc_nic_tx_slot(s), "Tx FIFO full");
	/* serving the doorbells alone frees the FIFO (the frames are still in the Send Ring) */
	cr_assert_eq(lc_nic_doorbell_step(s), 2);
	cr_assert_not_null(lc_nic_tx_slot(s));
	cr_assert_not(lc_nic_tx_idle(s));
}

Test(fifo, tx_dma_chain_full_blocks_tx_slot)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .tx_dma = 2, .send_ring = 8 });
	struct lc_nic *s;
	uint8_t buf[3][256];
	uint32_t t1 = 0, t2 = 0;      /* set by lct_send (gcc -O1 cannot tell) */

	lct_setup(&g, "dmafull");
	s = lct_nic[0];
	cr_assert_eq(lct_send(s, 1, 0, 100, 1, buf[0], &t1), 0);
	cr_assert_eq(lct_send(s, 1, 1, 100, 1, buf[1], &t2), 0);
	cr_assert_eq(t2, t1 + 1);
	cr_assert_null(lc_nic_tx_slot(s), "Tx DMA chain full");
	cr_assert_lt((int32_t)(lc_nic_tx_dma_done(s) - t1), 0, "not done before the engine ran");
	lc_nic_doorbell_step(s);
	cr_assert_eq(lc_nic_dma_step(s), 1);
	cr_assert_geq((int32_t)(lc_nic_tx_dma_done(s) - t1), 0);
	cr_assert_lt((int32_t)(lc_nic_tx_dma_done(s) - t2), 0);
	cr_assert_not_null(lc_nic_tx_slot(s));
}

/* The host holds its frames: Net-Recv waits on the full Rx FIFO, the Receive Ring keeps the rest. */
Test(fifo, rx_fifo_full_waits)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .rx_fifo = 2, .staging = 8, .recv_ring = 4,
							    .send_ring = 8 });
	struct lc_nic *r;
	uint8_t buf[6][256];

	lct_setup(&g, "rxfull");
	r = lct_nic[1];
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(lct_send(lct_nic[0], 1, i, 9, 0, buf[i], NULL), 0);
	lct_settle();
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), 2);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_rx_fifo_full), 1, "counted once per wait");
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_staging_hwm), 2);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_net_tx_frames), 2 + g.recv_ring);
	/* peek is idempotent; release moves to the next */
	cr_assert_eq(lc_nic_rx_peek(r), lc_nic_rx_peek(r));
	for (uint32_t i = 0; i < 6; i++) {
		lct_check(lct_wait_rx(r), 0, 1, i, 9);
		lc_nic_rx_release(r);
	}
	cr_assert_null(lc_nic_rx_peek(r));
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
}

/* Staging smaller than the Rx FIFO: staging is the limit. */
Test(fifo, staging_full_waits)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .rx_fifo = 16, .staging = 2, .recv_ring = 4 });
	struct lc_nic *r;
	uint8_t buf[5][256];

	lct_setup(&g, "stgfull");
	r = lct_nic[1];
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(lct_send(lct_nic[0], 1, i, 33, 1, buf[i], NULL), 0);
	lct_settle();
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), 2);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_staging_hwm), 2);
	for (uint32_t i = 0; i < 5; i++) {
		lct_check(lct_wait_rx(r), 0, 1, i, 33);
		lc_nic_rx_release(r);
	}
}

/* Many laps of the FIFO: the host's cached tail is refreshed each time the FIFO looks full. */
Test(fifo, doorbells_over_many_laps_of_a_small_fifo)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .tx_fifo = 2, .send_ring = 8 });
	uint8_t buf[256];

	lct_setup(&g, "laps");
	for (uint32_t i = 0; i < 40; i++) {
		cr_assert_eq(lct_send(lct_nic[0], 1, i, 4, i % 5 == 4, buf, NULL), 0, "frame %u", i);
		lct_check(lct_wait_rx(lct_nic[1]), 0, 1, i, 4);
		lc_nic_rx_release(lct_nic[1]);
	}
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_doorbells), 40);
}

/*
 * An entry that names another endpoint's doorbell page (written through this
 * endpoint's own FIFO) is refused and counted; the next good one is served.
 */
Test(fifo, a_doorbell_naming_another_endpoints_page_is_refused)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .tx_fifo = 8 });
	struct lc_nic *s;
	uint8_t buf[256];
	uint32_t h;

	lct_setup(&g, "dbpage");
	s = lct_nic[0];
	cr_assert_not_null(lc_nic_tx_slot(s));
	h = atomic_load(&s->db->head.v);
	s->db->e[h & (g.tx_fifo - 1)].addr = LC_DB_ADDR(1, LC_DB_PIO);
	s->db->e[h & (g.tx_fifo - 1)].value = atomic_load(&s->ctrl->send_head.v);
	atomic_store(&s->db->head.v, h + 1);
	cr_assert_eq(lc_nic_doorbell_step(s), 1);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_db_refused), 1);
	cr_assert_eq(s->tx_ready[atomic_load(&s->ctrl->send_head.v) & (g.send_ring - 1)], 0,
		     "the slot named by the refused doorbell is not ready");
	cr_assert_eq(lct_send(s, 1, 7, 4, 0, buf, NULL), 0);
	lct_check(lct_wait_rx(lct_nic[1]), 0, 1, 7, 4);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_db_refused), 1);
}

/*
 * An Rx FIFO entry names its staging slot by index, found from the block's
 * address by an exact division (lc_exact_div): right for every slot size a
 * geometry may have (multiples of 64) and every quotient up to 2^32 - 1, far
 * past the handful of slots a test's frames reach.
 */
Test(fifo, rx_fifo_slot_index_is_exact_for_every_slot_size_and_large_indices)
{
	static const uint64_t q[] = { 0, 1, 2, 63, 64, 127, 128, 129, 4095, 4097, 65535, 65537,
				      (1ull << 24) + 3, (1ull << 31) - 1, 1ull << 31, UINT32_MAX };

	for (uint32_t d = 64; d <= 65536 + 64; d += 64) {
		uint32_t shift;
		uint64_t inv;

		lc_exact_div_init(d, &shift, &inv);
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
			cr_assert_eq(lc_exact_div(q[i] * d, shift, inv), q[i], "slot_bytes %u: %llu x %u / %u",
				     d, (unsigned long long)q[i], d, d);
	}
}
