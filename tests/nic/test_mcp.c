/* SPDX-License-Identifier: MIT */
/* The MCP end to end: two NICs in one process exchange frames (PIO, DMA), backpressure, drops. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>

#include "nic_test.h"
#include "lc_pc_nic.h"     /* LC_PC_USED_nic_tx: whether frames may be pulled */

TestSuite(mcp, .fini = lct_fini, .timeout = 60);

/* Both directions, every boundary size, PIO and DMA, several frames in flight. */
static void exchange(int thread)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1000, .thread = thread });
	const uint32_t sizes[] = { 0, 1, g.mtu - 1, g.mtu };
	const uint32_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	uint8_t *buf = malloc(2 * nsizes * 2 * g.mtu);
	uint32_t ticket[2] = { 0, 0 };

	cr_assert_not_null(buf);
	lct_setup(&g, thread ? "xthr" : "xinl");
	for (uint32_t src = 0; src < 2; src++) {
		struct lc_nic *s = lct_nic[src], *r = lct_nic[1 - src];
		uint32_t seq = 0;

		/* post all 8 frames first (the rings hold them), then receive them in order */
		for (int dma = 0; dma < 2; dma++)
			for (uint32_t i = 0; i < nsizes; i++, seq++)
				cr_assert_eq(lct_send(s, 1 - src, seq, sizes[i], dma, buf + seq * g.mtu,
						      dma ? &ticket[src] : NULL), 0, "frame %u", seq);
		seq = 0;
		for (int dma = 0; dma < 2; dma++)
			for (uint32_t i = 0; i < nsizes; i++, seq++) {
				struct lc_frame_hdr *h = lct_wait_rx(r);

				lct_check(h, src, 1 - src, seq, sizes[i]);
				lc_nic_rx_release(r);
			}
		cr_assert_null(lc_nic_rx_peek(r));
		/* every DMA source buffer was read: the last ticket is done */
		cr_assert_geq((int32_t)(lc_nic_tx_dma_done(s) - ticket[src]), 0);
		lct_settle();
		cr_assert(lc_nic_tx_idle(s));
		cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 2 * nsizes);
		cr_assert_eq(lct_stat(s, LC_NIC_STAT_dma_blocks_c1), nsizes);
		cr_assert_eq(lct_stat(s, LC_NIC_STAT_doorbells), 2 * nsizes);
		cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), 2 * nsizes);
		cr_assert_eq(lct_stat(r, LC_NIC_STAT_dma_blocks_c0), 2 * nsizes);
		cr_assert_eq(lct_stat(r, LC_NIC_STAT_nic_drops_bad), 0);
		cr_assert_eq(lct_stat(s, LC_NIC_STAT_bp_drops), 0);
	}
	free(buf);
}

Test(mcp, exchange_inline)
{
	exchange(0);
}

Test(mcp, exchange_thread)
{
	exchange(1);
	/* in thread mode the host's lc_nic_step does nothing */
	cr_assert_eq(lc_nic_step(lct_nic[0]), 0);
}

Test(mcp, loopback_to_self)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 1 });
	uint8_t buf[256];

	lct_setup(&g, "self");
	cr_assert_eq(lct_send(lct_nic[0], 0, 9, 100, 1, buf, NULL), 0);
	lct_check(lct_wait_rx(lct_nic[0]), 0, 0, 9, 100);
}

/* Step s until the clock passed t (the live receiver of these tests never steps). */
static void step_until(struct lc_nic *s, uint64_t t)
{
	while (lc_nic_now_ns() <= t)
		lc_nic_step(s);
}

/*
 * Receiver never steps: the Receive Ring fills and the sender stalls.  While
 * the receiver's process is live (running, computing, asleep) the frame waits
 * however long; once the launcher marks it stopped, the frame is dropped at
 * the limit.
 */
Test(mcp, backpressure_stall_then_drop)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .recv_ring = 4, .timeout_ns = 2000000 });
	struct lc_nic *s;
	uint8_t buf[256];
	uint64_t deadline;

	lct_setup(&g, "bp");
	s = lct_nic[0];
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(lct_send(s, 1, i, 8, 0, buf, NULL), 0);
	/* four frames fit the Receive Ring of node 1; the fifth stalls */
	for (int i = 0; i < 16; i++)
		lc_nic_step(s);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 4);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_bp_stalls), 1, "one stall per stalled frame");
	cr_assert(lc_nic_tx_waiting(s), "the host sees the NIC wait at a full ring");
	/* a live receiver: ten times the limit, no drop */
	step_until(s, lc_nic_now_ns() + 10 * g.backpressure_timeout_ns);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_bp_drops), 0, "a live receiver is slow, not dead");
	cr_assert_eq(lc_nic_dst_drops(s, 1), 0);
	cr_assert_not(lc_nic_tx_idle(s));
	cr_assert(lc_nic_tx_waiting(s));
	/* stopped: the limit runs from the first step that sees it; frames 4 and 5 are dropped, each counted */
	lc_seg_mark_stopped(lct_name, 1, 1);
	cr_assert(lc_nic_peer_stopped(s, 1));
	deadline = lc_nic_now_ns() + 10ull * 1000000000ull;
	while (lct_stat(s, LC_NIC_STAT_bp_drops) < 2) {
		lc_nic_step(s);
		cr_assert_lt(lc_nic_now_ns(), deadline);
	}
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_bp_stalls), 2);
	cr_assert_eq(lc_nic_dst_drops(s, 1), 2);
	cr_assert_eq(lc_nic_dst_drops(s, 0), 0);
	cr_assert(lc_nic_tx_idle(s));
	cr_assert_not(lc_nic_tx_waiting(s));
	lc_seg_mark_stopped(lct_name, 1, 0);
	cr_assert_not(lc_nic_peer_stopped(s, 1));
	/* the receiver finally drains: exactly the four frames that got in, in order */
	for (uint32_t i = 0; i < 4; i++) {
		lct_check(lct_wait_rx(lct_nic[1]), 0, 1, i, 8);
		lc_nic_rx_release(lct_nic[1]);
	}
	lct_settle();
	cr_assert_null(lc_nic_rx_peek(lct_nic[1]));
}

/* A slow receiver loses nothing while it drains within the limit. */
Test(mcp, slow_receiver_loses_nothing)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .recv_ring = 2, .staging = 2, .rx_fifo = 2,
							    .rx_dma = 2 });
	uint8_t buf[64][256];
	uint32_t sent = 0, got = 0;

	lct_setup(&g, "slow");
	while (got < 64) {
		while (sent < 64 && lct_send(lct_nic[0], 1, sent, 17 + sent, sent & 1, buf[sent], NULL) == 0)
			sent++;
		lct_step_all();
		lct_step_all();
		/* the receiver takes one frame every few steps */
		if (lc_nic_rx_peek(lct_nic[1])) {
			lct_check(lc_nic_rx_peek(lct_nic[1]), 0, 1, got, 17 + got);
			lc_nic_rx_release(lct_nic[1]);
			got++;
		}
	}
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
	cr_assert_gt(lct_stat(lct_nic[0], LC_NIC_STAT_bp_stalls), 0);
	cr_assert_gt(lct_stat(lct_nic[1], LC_NIC_STAT_rx_fifo_full), 0);
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_staging_hwm), 2);
}

Test(mcp, frame_to_dead_node_dropped_at_once)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3 });
	uint8_t buf[256];

	lct_setup(&g, "dead");
	lc_seg_mark_dead(lct_name, 2);
	cr_assert_eq(lct_send(lct_nic[0], 2, 0, 5, 0, buf, NULL), 0);
	cr_assert_eq(lct_send(lct_nic[0], 1, 1, 5, 0, buf, NULL), 0);
	lc_nic_step(lct_nic[0]);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_dead_drops), 1);
	cr_assert_eq(lc_nic_dst_drops(lct_nic[0], 2), 1);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_stalls), 0);
	/* the next frame is not held up by the dead one */
	lct_check(lct_wait_rx(lct_nic[1]), 0, 1, 1, 5);
	/* a node that detached cleanly is gone too */
	lc_nic_detach(lct_nic[1]);
	lct_nic[1] = NULL;
	cr_assert_eq(lct_send(lct_nic[0], 1, 2, 5, 0, buf, NULL), 0);
	lc_nic_step(lct_nic[0]);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_dead_drops), 2);
	cr_assert_eq(lc_nic_dst_drops(lct_nic[0], 1), 1);
}

/* Net-Recv drops what is not a frame for this node; Net-Send what cannot be routed. */
Test(mcp, bad_frames_dropped_and_counted)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3 });
	struct lc_nic *s, *r;
	struct lc_frame_hdr *h;
	uint8_t buf[256];

	lct_setup(&g, "bad");
	s = lct_nic[0];
	r = lct_nic[1];
	/* corrupted magic, then a source outside the job: both reach node 1 and are dropped there */
	for (int k = 0; k < 2; k++) {
		h = lc_nic_tx_slot(s);
		cr_assert_not_null(h);
		memset(h, 0, sizeof(*h));
		h->magic = k == 0 ? (uint16_t)(LC_FRAME_MAGIC ^ 0x100) : LC_FRAME_MAGIC;
		h->src = k == 1 ? 7 : 0;
		h->dst = 1;
		h->len = 4;
		lc_nic_tx_post_pio(s);
		lct_settle();
	}
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 2);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_nic_drops_bad), 2);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), 0);
	cr_assert_null(lc_nic_rx_peek(r));
	/* Net-Send refuses a destination outside the job and a length above the mtu */
	h = lc_nic_tx_slot(s);
	memset(h, 0, sizeof(*h));
	h->magic = LC_FRAME_MAGIC;
	h->dst = 3;
	lc_nic_tx_post_pio(s);
	h = lc_nic_tx_slot(s);
	memset(h, 0, sizeof(*h));
	h->magic = LC_FRAME_MAGIC;
	h->dst = 1;
	h->len = g.mtu + 1;
	lc_nic_tx_post_pio(s);
	lct_settle();
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_nic_drops_bad), 2);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 2);
	cr_assert(lc_nic_tx_idle(s));
	/* and a good frame still goes through afterwards */
	cr_assert_eq(lct_send(s, 1, 5, 3, 0, buf, NULL), 0);
	lct_check(lct_wait_rx(r), 0, 1, 5, 3);
}

/* A frame whose header is damaged in the Receive Ring (wrong destination) is dropped there. */
Test(mcp, misdelivered_frame_dropped)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3 });
	struct lc_nic *r;
	uint8_t buf[256];
	struct lc_frame_hdr *in;

	lct_setup(&g, "misdeliv");
	r = lct_nic[1];
	cr_assert_eq(lct_send(lct_nic[0], 1, 0, 4, 0, buf, NULL), 0);
	/* sender steps alone: the frame sits in node 1's Receive Ring */
	lc_nic_step(lct_nic[0]);
	in = (struct lc_frame_hdr *)lc_recv_slot(r->sram, &g, r->ctrl->net_recv.recv_next);
	cr_assert_eq(in->dst, 1);
	in->dst = 2;
	lc_nic_step(r);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_nic_drops_bad), 1);
	cr_assert_null(lc_nic_rx_peek(r));
	/* the slot was freed: the Receive Ring is empty again */
	cr_assert_eq(atomic_load(&r->ctrl->recv_tail.v), atomic_load(&r->ctrl->recv_head.v));
}

/*
 * A lone frame's Receive Ring slot is freed in the pass after the one that
 * moved it to staging (step_busy), and that pass runs although it finds
 * nothing else (nic_quiet looks at the unreaped block); the frames of a
 * burst are freed in the pass that moved them.
 */
Test(mcp, a_lone_frames_slot_is_freed_by_the_next_pass_a_bursts_by_its_own)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	struct lc_nic *r;
	uint8_t buf[64] = { 0 };
	uint32_t t0;

	lct_setup(&g, "lonereap");
	r = lct_nic[1];
	t0 = atomic_load(&r->ctrl->recv_tail.v);
	cr_assert_eq(lct_send(lct_nic[0], 1, 0, 8, 0, buf, NULL), 0);
	lc_nic_step(lct_nic[0]);
	cr_assert_eq(atomic_load(&r->ctrl->recv_head.v), t0 + 1);
	cr_assert_gt(lc_nic_step(r), 0);
	cr_assert_not_null(lc_nic_rx_peek(r), "the pass moved the frame to staging");
	cr_assert_eq(atomic_load(&r->ctrl->recv_tail.v), t0, "its slot is not freed in that pass");
	lc_nic_step(r);
	cr_assert_eq(atomic_load(&r->ctrl->recv_tail.v), t0 + 1, "the next pass, idle otherwise, frees it");
	cr_assert_eq(lc_nic_step(r), 0, "and the pass after that is idle");
	lct_check(lc_nic_rx_peek(r), 0, 1, 0, 8);
	lc_nic_rx_release(r);
	/* a burst of three: their slots free after the one pass that moved them */
	for (uint32_t i = 1; i <= 3; i++)
		cr_assert_eq(lct_send(lct_nic[0], 1, i, 8, 0, buf, NULL), 0);
	for (int i = 0; i < 8 && atomic_load(&r->ctrl->recv_head.v) != t0 + 4; i++)
		lc_nic_step(lct_nic[0]);
	cr_assert_eq(atomic_load(&r->ctrl->recv_head.v), t0 + 4);
	lc_nic_step(r);
	cr_assert_eq(atomic_load(&r->ctrl->recv_tail.v), t0 + 4);
	for (uint32_t i = 1; i <= 3; i++) {
		lct_check(lc_nic_rx_peek(r), 0, 1, i, 8);
		lc_nic_rx_release(r);
	}
}

/*
 * The receiving NIC uses the wire byte count the sender recorded beside the
 * Receive Ring, never the frame's header len: a header len flipped larger
 * (still <= mtu) or smaller than what crossed the wire is dropped as bad,
 * and the frame after it is delivered whole with the DMA length of its wire
 * copy.
 */
Test(mcp, header_len_disagreeing_with_wire_dropped)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1000 });
	const uint32_t bad_len[] = { 101, 1000, 99, 0 };
	struct lc_nic *r;
	struct lc_frame_hdr *in, *h;
	uint8_t buf[1000];
	uint32_t seq = 0;

	lct_setup(&g, "wirelen");
	r = lct_nic[1];
	for (uint32_t i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++, seq++) {
		cr_assert_eq(lct_send(lct_nic[0], 1, seq, 100, 0, buf, NULL), 0);
		lc_nic_step(lct_nic[0]);
		in = (struct lc_frame_hdr *)lc_recv_slot(r->sram, &g, r->ctrl->net_recv.recv_next);
		cr_assert_eq(lc_recv_wire(r->sram, &g, r->ctrl->net_recv.recv_next), (int64_t)g.hdr_bytes + 100);
		cr_assert_eq(in->len, 100);
		in->len = bad_len[i];
		lc_nic_step(r);
		cr_assert_eq(lct_stat(r, LC_NIC_STAT_nic_drops_bad), i + 1);
		cr_assert_null(lc_nic_rx_peek(r));
		cr_assert_eq(atomic_load(&r->ctrl->recv_tail.v), atomic_load(&r->ctrl->recv_head.v));
	}
	/* an undamaged frame of every boundary size still goes through */
	for (uint32_t len = 0; len <= g.mtu; len += g.mtu / 2, seq++) {
		cr_assert_eq(lct_send(lct_nic[0], 1, seq, len, 0, buf, NULL), 0);
		h = lct_wait_rx(r);
		lct_check(h, 0, 1, seq, len);
		lc_nic_rx_release(r);
	}
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_nic_drops_bad), 4);
}

/* Inline mode: several host threads may call lc_nic_step; one runs the MCP at a time. */
struct stepper {
	_Atomic int *stop;
};

static void *step_loop(void *arg)
{
	struct stepper *st = arg;

	while (!atomic_load_explicit(st->stop, memory_order_acquire))
		if (!lct_step_all())
			sched_yield();
	return NULL;
}

Test(mcp, concurrent_inline_steppers)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 512, .pull = 1 });
	_Atomic int stop = 0;
	struct stepper st = { &stop };
	pthread_t t;
	static uint8_t buf[8][512];
	uint32_t sent = 0, got = 0, ticket = 0;

	lct_setup(&g, "conc");
	cr_assert_eq(pthread_create(&t, NULL, step_loop, &st), 0);
	while (got < 2000) {
		/* a DMA buffer is rewritten only after its block is done */
		if (sent < 2000 && sent - got < 8 &&
		    (int32_t)(lc_nic_tx_dma_done(lct_nic[0]) - ticket) >= 0 &&
		    lct_send(lct_nic[0], 1, sent, sent % 513, sent & 1, buf[sent & 7], &ticket) == 0)
			sent++;
		lct_step_all();
		if (lc_nic_rx_peek(lct_nic[1])) {
			lct_check(lc_nic_rx_peek(lct_nic[1]), 0, 1, got, got % 513);
			lc_nic_rx_release(lct_nic[1]);
			got++;
		}
	}
	atomic_store_explicit(&stop, 1, memory_order_release);
	pthread_join(t, NULL);
	/* each frame put on the link once: by node 0's Net-Send or pulled by node 1's (lc_nic_pull_step) */
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_net_tx_frames) +
		     lct_stat(lct_nic[1], LC_NIC_STAT_net_pull_frames), 2000);
}

/*
 * A NIC lets its DMA frames be pulled where its geometry asks for it
 * (nic.link_engine "either", .pull here) and only where its Net-Send keeps no
 * state of its own about them (nic.c, lc_nic_attach): these tests run where
 * the config composes no nic_tx hook and the network is untimed.
 */
#define LCT_PULL_RUNS (!LC_PC_USED_nic_tx && !LC_NET_TIMED)
#define LCT_PULL_WHY "needs a NIC whose DMA frames may be pulled: no nic_tx hook composed and an untimed " \
	"network (!LC_PC_USED_nic_tx && !LC_NET_TIMED)"

/* Node 0 posts DMA frames for node 1 (buffers buf[i % 32]) and runs its doorbell service and DMA engine only. */
static void pull_post(uint8_t (*buf)[1024], uint32_t from, uint32_t n, uint32_t len)
{
	for (uint32_t i = from; i < from + n; i++)
		cr_assert_eq(lct_send(lct_nic[0], 1, i, len, 1, buf[i % 32], NULL), 0);
	lc_nic_doorbell_step(lct_nic[0]);
	while (lc_nic_dma_step(lct_nic[0]))
		;
}

/* Node 1 takes frames first .. first+n-1 off its Rx FIFO, checked, stepping only itself. */
static void pull_take_frames(uint32_t first, uint32_t n, uint32_t len)
{
	for (uint32_t i = first; i < first + n; i++) {
		const struct lc_frame_hdr *h;
		int spins = 0;

		while (!(h = lc_nic_rx_peek(lct_nic[1])))
			cr_assert(lc_nic_step(lct_nic[1]) || ++spins < 1000, "frame %u did not arrive", i);
		lct_check(h, 0, 1, i, len);
		lc_nic_rx_release(lct_nic[1]);
	}
}

/*
 * A link engine either side may run: once node 1's Net-Recv took a DMA frame
 * of node 0, node 1's idle passes move node 0's next DMA frames for it out of
 * node 0's Send Ring -- node 0 never steps its Net-Send for them -- each once,
 * in order, intact, and node 0's Send Ring is free again.
 */
LC_T_TEST_IF(mcp, an_idle_receiver_pulls_the_dma_frames_of_its_sender, LCT_PULL_RUNS, LCT_PULL_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .pull = 1 });
	static uint8_t buf[32][1024];
	const uint32_t len = LC_PIO_THRESHOLD + 100;

	lct_setup(&g, "pull");
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.ok), 1, "an inline NIC without faults lets its frames be pulled");
	/* the first frame by node 0's own Net-Send: node 1 pulls nothing yet */
	pull_post(buf, 0, 1, len);
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	pull_take_frames(0, 1, len);
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.wanted), 1, "node 1 pulls from node 0 now");
	for (uint32_t round = 0; round < 4; round++) {
		pull_post(buf, 1 + 4 * round, 4, len);
		pull_take_frames(1 + 4 * round, 4, len);
	}
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_net_pull_frames), 16);
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_net_pull_bytes), 16 * (g.hdr_bytes + len));
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_net_tx_frames), 1);
	cr_assert_eq(lc_nic_tx_left(lct_nic[0]), 17, "node 0's Send Ring drained by the pulls");
	/* a PIO frame is never pulled: it waits for its own Net-Send */
	cr_assert_eq(lct_send(lct_nic[0], 1, 17, 8, 0, buf[0], NULL), 0);
	lc_nic_doorbell_step(lct_nic[0]);
	for (int i = 0; i < 64; i++)
		lc_nic_step(lct_nic[1]);
	cr_assert_null(lc_nic_rx_peek(lct_nic[1]));
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	pull_take_frames(17, 1, 8);
	/* node 0 sends no more: node 1 gives up reading its lines after LC_NIC_PULL_PATIENCE idle passes */
	for (uint32_t i = 0; i < LC_NIC_PULL_PATIENCE; i++)
		lc_nic_step(lct_nic[1]);
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.wanted), 0);
	cr_assert_eq(lct_nic[1]->pull_src, 0);
}

/*
 * A frame its own Net-Send began is never pulled: node 0's frame waits for
 * room in node 1's full Receive Ring with the pull lock held, node 1's idle
 * passes leave it, and node 0's Net-Send sends it once room comes.
 */
LC_T_TEST_IF(mcp, a_frame_its_own_net_send_began_is_not_pulled, LCT_PULL_RUNS, LCT_PULL_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .send_ring = 16, .tx_dma = 16, .tx_fifo = 32,
							     .pull = 1 });
	static uint8_t buf[32][1024];
	const uint32_t len = LC_PIO_THRESHOLD + 100;

	lct_setup(&g, "pullheld");
	pull_post(buf, 0, 1, len);
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	pull_take_frames(0, 1, len);
	/* a lone frame's Receive Ring slot is freed in the pass after the one that moved it (step_busy) */
	lc_nic_step(lct_nic[1]);
	/* node 1 stops taking frames: node 0 fills its Receive Ring, the next frame stalls begun */
	pull_post(buf, 1, g.recv_ring + 1, len);
	lct_nic[1]->pull_src = 0;       /* node 1 does not step meanwhile */
	for (uint32_t i = 0; i < g.recv_ring; i++)
		cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 0, "the Receive Ring is full");
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.lock), 1, "node 0 holds the frame it began");
	/* node 1 drains its ring and pulls from node 0 again: not that frame */
	pull_take_frames(1, g.recv_ring, len);
	for (int i = 0; i < 64; i++)
		lc_nic_step(lct_nic[1]);
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_net_pull_frames), 0);
	cr_assert_null(lc_nic_rx_peek(lct_nic[1]));
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.lock), 0, "and gives it back once the frame left");
	pull_take_frames(1 + g.recv_ring, 1, len);
}

/*
 * A node in the middle of a pull holds the source's pull lock; descheduled
 * there (a vCPU taken away for longer than the backpressure limit was seen
 * in CI), the source's Net-Send cannot take the frame.  The source's host
 * must read that as a frame waiting at its destination (lc_nic_tx_waiting:
 * its clock does not run), not as a NIC that made no progress -- unless the
 * holder is stopped, when the host's limit applies as to any stopped
 * destination.  Seen failing without tx_pull_holder (waiting 0).
 */
LC_T_TEST_IF(mcp, a_send_waits_for_a_live_node_in_the_middle_of_a_pull, LCT_PULL_RUNS, LCT_PULL_WHY)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .pull = 1 });
	static uint8_t buf[32][1024];
	const uint32_t len = LC_PIO_THRESHOLD + 100;
	char what[320];

	lct_setup(&g, "pullwait");
	pull_post(buf, 0, 1, len);
	cr_assert_eq(lc_nic_tx_waiting(lct_nic[0]), 0, "nothing waits before the pull begins");
	/* node 1 took node 0's pull lock (pull_frame) and is not running */
	atomic_store(&lct_nic[0]->ctrl->pull.lock, 1 + 1);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 0, "Net-Send took a frame another node is pulling");
	cr_assert_eq(lc_nic_tx_left(lct_nic[0]), 0);
	cr_assert_eq(lc_nic_tx_waiting(lct_nic[0]), 1, "a live node in the middle of a pull: the send waits for it");
	lc_nic_tx_describe(lct_nic[0], what, sizeof(what));
	cr_assert_not_null(strstr(what, "its pull lock held by node 1)"), "%s", what);
	lc_seg_mark_stopped(lct_name, 1, 1);
	cr_assert_eq(lc_nic_tx_waiting(lct_nic[0]), 0, "a stopped holder: the host's limit applies");
	lc_nic_tx_describe(lct_nic[0], what, sizeof(what));
	cr_assert_not_null(strstr(what, "its pull lock held by node 1 (stopped)"), "%s", what);
	lc_seg_mark_stopped(lct_name, 1, 0);
	/* the pull ends without moving the frame (pull_give): node 0's own Net-Send sends it */
	atomic_store(&lct_nic[0]->ctrl->pull.lock, 0);
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	cr_assert_eq(lc_nic_tx_waiting(lct_nic[0]), 0);
	pull_take_frames(0, 1, len);
}

/*
 * nic.link_engine "sender" (.pull 0): only a NIC's own Net-Send moves its
 * frames.  Node 1 takes node 0's DMA frames, then steps idle: it pulls none,
 * asks for none, and node 0's Send Ring keeps them until node 0's Net-Send.
 */
Test(mcp, a_sender_only_link_engine_lets_nothing_be_pulled)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024 });
	static uint8_t buf[32][1024];
	const uint32_t len = LC_PIO_THRESHOLD + 100;

	lct_setup(&g, "pulloff");
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.ok), 0);
	cr_assert_eq(lct_nic[0]->tx_dma_ready, LC_TX_OWN);
	pull_post(buf, 0, 1, len);
	cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	pull_take_frames(0, 1, len);
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.wanted), 0, "node 1 asks node 0 for nothing");
	pull_post(buf, 1, 4, len);
	for (int i = 0; i < 64; i++)
		lc_nic_step(lct_nic[1]);
	cr_assert_null(lc_nic_rx_peek(lct_nic[1]), "node 1 moved none of node 0's frames");
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_net_pull_frames), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(lc_nic_net_send_step(lct_nic[0]), 1);
	pull_take_frames(1, 4, len);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_net_tx_frames), 5);
}

/* Where the NIC's Net-Send has state of its own about a frame (an MCP thread here), nothing is pulled. */
Test(mcp, frames_of_an_mcp_thread_are_not_pulled)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .thread = 1, .pull = 1 });

	lct_setup(&g, "pullthr");
	cr_assert_eq(atomic_load(&lct_nic[0]->ctrl->pull.ok), 0);
	cr_assert_eq(lct_nic[0]->tx_dma_ready, LC_TX_OWN);
}

/* Two processes, as in a job: the child attaches node 1 and echoes every frame back. */
Test(mcp, two_processes_echo)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 2000, .recv_ring = 4, .send_ring = 4 });
	static uint8_t buf[4][2000];
	uint32_t sent = 0, got = 0, ticket = 0;
	int status = -1;
	pid_t pid;

	lct_create(&g, "fork");
	lct_attach(&g, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[256];
		int rc;
		struct lc_nic *n = lc_nic_attach(lct_name, 1, &g, err, sizeof(err), &rc);
		uint32_t echoed = 0;

		if (!n)
			_exit(2);
		while (echoed < 500) {
			struct lc_frame_hdr *in = lc_nic_rx_peek(n), *out;

			if (in && (out = lc_nic_tx_slot(n)) != NULL) {
				memcpy(out, in, sizeof(*in) + in->len);
				out->src = 1;
				out->dst = 0;
				lc_nic_tx_post_pio(n);
				lc_nic_rx_release(n);
				echoed++;
			}
			if (!lc_nic_step(n))
				sched_yield();
		}
		while (!lc_nic_tx_idle(n))
			lc_nic_step(n);
		lc_nic_detach(n);
		_exit(0);
	}
	while (got < 500) {
		if (sent < 500 && sent - got < 4 && (int32_t)(lc_nic_tx_dma_done(lct_nic[0]) - ticket) >= 0 &&
		    lct_send(lct_nic[0], 1, sent, sent * 7 % 2001, sent % 5 == 0, buf[sent & 3], &ticket) == 0)
			sent++;
		if (!lc_nic_step(lct_nic[0]))
			sched_yield();
		if (lc_nic_rx_peek(lct_nic[0])) {
			struct lc_frame_hdr *h = lc_nic_rx_peek(lct_nic[0]);

			cr_assert_eq(h->src, 1);
			h->src = 0;
			h->dst = 1;
			lct_check(h, 0, 1, got, got * 7 % 2001);
			lc_nic_rx_release(lct_nic[0]);
			got++;
		}
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	cr_assert_not(lc_nic_peer_alive(lct_nic[0], 1), "child detached: exited");
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
}

/* A node killed without detaching: once the launcher marks it dead, frames to it stop waiting. */
Test(mcp, killed_node_frames_dropped)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .recv_ring = 2, .send_ring = 8 });
	uint8_t buf[256];
	int status;
	pid_t pid;

	lct_create(&g, "kill");
	lct_attach(&g, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[256];
		int rc;

		if (!lc_nic_attach(lct_name, 1, &g, err, sizeof(err), &rc))
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status));
	cr_assert(lc_nic_peer_alive(lct_nic[0], 1), "nobody said it died yet");
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(lct_send(lct_nic[0], 1, i, 8, 0, buf, NULL), 0);
	for (int i = 0; i < 8; i++)
		lc_nic_step(lct_nic[0]);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_net_tx_frames), 2, "its Receive Ring took 2");
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_stalls), 1);
	lc_seg_mark_dead(lct_name, 1);
	cr_assert_not(lc_nic_peer_alive(lct_nic[0], 1));
	for (int i = 0; i < 8; i++)
		lc_nic_step(lct_nic[0]);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_dead_drops), 3);
	cr_assert_eq(lc_nic_dst_drops(lct_nic[0], 1), 3);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
	cr_assert(lc_nic_tx_idle(lct_nic[0]));
}

/* Many frames of changing size, PIO and DMA, in both MCP modes: order and payload kept. */
static void stream(int thread)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .thread = thread, .recv_ring = 4,
							    .staging = 4, .tx_dma = 4 });
	static uint8_t buf[8][1024];
	uint32_t sent = 0, got = 0, ticket = 0;
	const uint32_t total = 20000;

	lct_setup(&g, thread ? "strthr" : "strinl");
	while (got < total) {
		int moved = 0;

		if (sent < total && sent - got < 8 && (int32_t)(lc_nic_tx_dma_done(lct_nic[0]) - ticket) >= 0 &&
		    lct_send(lct_nic[0], 1, sent, sent * 37 % 1025, (sent / 3) & 1, buf[sent & 7], &ticket) == 0) {
			sent++;
			moved = 1;
		}
		moved += lct_step_all();
		if (lc_nic_rx_peek(lct_nic[1])) {
			lct_check(lc_nic_rx_peek(lct_nic[1]), 0, 1, got, got * 37 % 1025);
			lc_nic_rx_release(lct_nic[1]);
			got++;
			moved = 1;
		}
		if (!moved)
			sched_yield();
	}
	cr_assert_eq(lct_stat(lct_nic[1], LC_NIC_STAT_net_rx_frames), total);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_bp_drops), 0);
}

Test(mcp, stream_inline)
{
	stream(0);
}

Test(mcp, stream_thread)
{
	stream(1);
}

/* While one host thread runs the inline MCP, a second caller returns 0 at once. */
Test(mcp, second_stepper_returns_zero)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	uint8_t buf[256];

	lct_setup(&g, "trylock");
	cr_assert_eq(lct_send(lct_nic[0], 1, 0, 3, 0, buf, NULL), 0);
	atomic_store(&lct_nic[0]->step_lock, 1);      /* as if another thread were inside */
	cr_assert_eq(lc_nic_step(lct_nic[0]), 0);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_doorbells), 0);
	atomic_store(&lct_nic[0]->step_lock, 0);
	cr_assert_gt(lc_nic_step(lct_nic[0]), 0);
	cr_assert_eq(lct_stat(lct_nic[0], LC_NIC_STAT_doorbells), 1);
}

/* Spin until the clock passed t (no assertion on time: the test only needs "later than"). */
static void wait_past(uint64_t t)
{
	while (lc_nic_now_ns() <= t)
		sched_yield();
}

/* The time limit runs while the destination drains nothing: a draining receiver restarts it. */
Test(mcp, draining_receiver_restarts_the_limit)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3, .recv_ring = 2, .timeout_ns = 1000000 });
	struct lc_nic *a, *r, *c;
	uint8_t buf[256];

	lct_setup(&g, "drain");
	a = lct_nic[0];
	r = lct_nic[1];
	c = lct_nic[2];
	/* node 1 is marked stopped throughout, so only its draining can restart the clock */
	lc_seg_mark_stopped(lct_name, 1, 1);
	for (uint32_t i = 0; i < 2; i++)
		cr_assert_eq(lct_send(c, 1, i, 8, 0, buf, NULL), 0);
	cr_assert_eq(lct_send(c, 1, 2, 8, 0, buf, NULL), 0);
	lc_nic_step(c);
	lc_nic_step(c);
	cr_assert_eq(lct_stat(c, LC_NIC_STAT_net_tx_frames), 2, "node 1's Receive Ring is full");
	cr_assert_eq(lct_send(a, 1, 0, 8, 0, buf, NULL), 0);
	lc_nic_step(a);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_stalls), 1);
	wait_past(lc_nic_now_ns() + g.backpressure_timeout_ns);
	/*
	 * node 1 takes one frame (its engines one step each: a whole lc_nic_step
	 * takes the burst); node 2 wins the freed slot before node 0 looks again
	 */
	cr_assert_eq(lc_nic_net_recv_step(r), 1);
	cr_assert_eq(lc_nic_dma_step(r), 1);
	lc_nic_net_recv_reap(r);
	cr_assert_not_null(lc_nic_rx_peek(r));
	lc_nic_step(c);
	cr_assert_eq(lct_stat(c, LC_NIC_STAT_net_tx_frames), 3);
	lc_nic_step(a);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_drops), 0, "the receiver drained: no drop");
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_net_tx_frames), 0);
	/* now nothing drains: past the limit the frame is dropped */
	wait_past(lc_nic_now_ns() + g.backpressure_timeout_ns);
	lc_nic_step(a);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_drops), 1);
	cr_assert_eq(lc_nic_dst_drops(a, 1), 1);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_stalls), 1, "one stall per stalled frame");
}

/*
 * A burst costs one pass of the inline MCP: one lc_nic_step takes up to
 * LC_NIC_STEP_BATCH arrived frames through Net-Recv and their Rx DMA, in
 * order; the rest waits for the next pass.  An idle pass after it does nothing.
 */
Test(mcp, one_step_takes_a_burst_of_frames)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .send_ring = 16, .recv_ring = 16 });
	const uint32_t n = LC_NIC_STEP_BATCH + 3;
	struct lc_nic *s, *r;
	uint8_t buf[64] = { 0 };
	uint32_t got = 0;

	lct_setup(&g, "burst");
	s = lct_nic[0];
	r = lct_nic[1];
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(lct_send(s, 1, i, 8, 0, buf, NULL), 0);
		lc_nic_step(s);
	}
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), n);
	cr_assert_eq(lc_nic_step(r), 2 * LC_NIC_STEP_BATCH, "Net-Recv and DMA: a batch each");
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), LC_NIC_STEP_BATCH);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_dma_blocks_c0), LC_NIC_STEP_BATCH);
	for (struct lc_frame_hdr *h; (h = lc_nic_rx_peek(r)); got++) {
		lct_check(h, 0, 1, got, 8);
		lc_nic_rx_release(r);
	}
	cr_assert_eq(got, LC_NIC_STEP_BATCH);
	cr_assert_eq(lc_nic_step(r), 2 * 3, "the rest, in the next pass");
	for (struct lc_frame_hdr *h; (h = lc_nic_rx_peek(r)); got++) {
		lct_check(h, 0, 1, got, 8);
		lc_nic_rx_release(r);
	}
	cr_assert_eq(got, n);
	cr_assert_eq(lc_nic_step(r), 0);
}

/*
 * Both directions at once, as in a bidirectional stream: node 0 puts a DMA
 * frame into node 1's Receive Ring before every pass of node 1, whose own
 * DMA frame to node 0 waits on the Tx chain.  The Rx chain goes first, but
 * not for ever: after LC_NIC_RX_BURST Rx blocks the MCP lets a waiting Tx
 * block run (lc_nic_rx_activate), so node 1's Tx block runs within
 * LC_NIC_RX_BURST + 1 passes (strict priority never ran it: every
 * pass found a new Rx block first, and a live node's sends failed at the
 * backpressure limit in a 16 MiB bidirectional stream).  Every frame still
 * arrives once, in order, intact, and node 1 takes them as fast as before.
 */
Test(mcp, flood_of_frames_does_not_starve_the_tx_chain)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .send_ring = 16, .recv_ring = 16 });
	static uint8_t buf[16][256], mine[256];
	struct lc_nic *a, *b;
	uint32_t sent = 0, got = 0, ticket = 0, pass;

	lct_setup(&g, "flood");
	a = lct_nic[0];
	b = lct_nic[1];
	cr_assert_eq(lct_send(b, 0, 0, 200, 1, mine, &ticket), 0);
	for (pass = 0; pass < 64 && lct_stat(b, LC_NIC_STAT_dma_blocks_c1) == 0; pass++) {
		cr_assert_eq(lct_send(a, 1, sent, 200, 1, buf[sent % 16], NULL), 0);
		sent++;
		for (int i = 0; i < 8 && lct_stat(a, LC_NIC_STAT_net_tx_frames) < sent; i++)
			lc_nic_step(a);
		cr_assert_eq(lct_stat(a, LC_NIC_STAT_net_tx_frames), sent, "node 0's frame %u is on the link", sent);
		lc_nic_step(b);
		for (struct lc_frame_hdr *h; (h = lc_nic_rx_peek(b)); got++) {
			lct_check(h, 0, 1, got, 200);
			lc_nic_rx_release(b);
		}
	}
	cr_assert_eq(lct_stat(b, LC_NIC_STAT_dma_blocks_c1), 1, "node 1's Tx block never ran in %u passes of a flood",
		     pass);
	cr_assert_leq(pass, LC_NIC_RX_BURST + 1, "node 1's Tx block waited %u passes", pass);
	cr_assert_geq(got + 1, sent, "node 1 kept taking the flood (%u of %u)", got, sent);
	cr_assert_geq((int32_t)(lc_nic_tx_dma_done(b) - ticket), 0);
	lct_check(lct_wait_rx(a), 1, 0, 0, 200);
	lc_nic_rx_release(a);
	lct_settle();
	for (struct lc_frame_hdr *h; (h = lc_nic_rx_peek(b)); got++) {
		lct_check(h, 0, 1, got, 200);
		lc_nic_rx_release(b);
	}
	cr_assert_eq(got, sent);
}

/* The transmit side in words (a timed-out send's error): the oldest frame's wait, the chains. */
Test(mcp, tx_describe_names_what_the_oldest_frame_waits_for)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	uint8_t buf[256];
	char d[256];
	struct lc_nic *s;

	lct_setup(&g, "describe");
	s = lct_nic[0];
	lc_nic_tx_describe(s, d, sizeof d);
	cr_assert_not_null(strstr(d, "Send Ring 0 of 8 frames, the oldest none"), "%s", d);
	cr_assert_eq(lct_send(s, 1, 0, 200, 1, buf, NULL), 0);
	lc_nic_doorbell_step(s);
	lc_nic_tx_describe(s, d, sizeof d);
	cr_assert_not_null(strstr(d, "Send Ring 1 of 8 frames, the oldest waiting for its Tx DMA (200 bytes "
				     "to node 1); DMA blocks written/active/done: Tx 1/1/0, Rx 0/0/0"), "%s", d);
	cr_assert_eq(lc_nic_dma_step(s), 1);
	lc_nic_tx_describe(s, d, sizeof d);
	cr_assert_not_null(strstr(d, "the oldest ready for Net-Send"), "%s", d);
	cr_assert_eq(lc_nic_net_send_step(s), 1);
	lc_nic_tx_describe(s, d, sizeof d);
	cr_assert_not_null(strstr(d, "Send Ring 0 of 8 frames"), "%s", d);
	lct_check(lct_wait_rx(lct_nic[1]), 0, 1, 0, 200);
	lc_nic_rx_release(lct_nic[1]);
}

/* ---- the engines' own locks (thread mode) ---- */

/*
 * The DMA engine held by another thread inside a block's copy (its lock set
 * by hand: deterministic) does not stall the others: a PIO frame is served
 * by the doorbell service and leaves through Net-Send, counted as overlap,
 * while the DMA frame behind it waits for the DMA engine.  A held Net-Send
 * is never run a second time.  lc_nic_engines_step on an inline NIC: no
 * MCP thread runs, so the test decides who holds what.
 */
Test(mcp, held_dma_engine_does_not_stall_net_send)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	struct lc_nic *s, *r;
	uint8_t buf[2][256];
	uint32_t ticket = 0;

	lct_setup(&g, "held");
	s = lct_nic[0];
	r = lct_nic[1];
	cr_assert_eq(lct_send(s, 1, 0, 40, 0, buf[0], NULL), 0);
	cr_assert_eq(lct_send(s, 1, 1, 200, 1, buf[1], &ticket), 0);
	atomic_store(&s->eng[LC_NIC_ENG_dma].lock, LC_NIC_ENG_COPYING);
	for (int i = 0; i < 4; i++)
		lc_nic_engines_step(s);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_doorbells), 2);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 1, "the PIO frame left");
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_dma_blocks_c1), 0, "the DMA engine is someone else's");
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_send_dma_overlap), 1);
	/* Net-Send held elsewhere: the DMA block runs here, the frame waits for Net-Send */
	atomic_store(&s->eng[LC_NIC_ENG_net_send].lock, LC_NIC_ENG_HELD);
	atomic_store(&s->eng[LC_NIC_ENG_dma].lock, 0);
	for (int i = 0; i < 4; i++)
		lc_nic_engines_step(s);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_dma_blocks_c1), 1);
	cr_assert_geq((int32_t)(lc_nic_tx_dma_done(s) - ticket), 0);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 1, "Net-Send is never run twice at once");
	atomic_store(&s->eng[LC_NIC_ENG_net_send].lock, 0);
	lct_settle();
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), 2);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_send_dma_overlap), 1, "no DMA copy ran meanwhile");
	lct_check(lct_wait_rx(r), 0, 1, 0, 40);
	lc_nic_rx_release(r);
	lct_check(lct_wait_rx(r), 0, 1, 1, 200);
	lc_nic_rx_release(r);
}

/*
 * Thread mode: a long DMA chain keeps node 0's DMA engine busy -- blocks of
 * 256 KiB, host to SRAM, on spare chain 2, fed as they complete -- while small
 * PIO frames queue for Net-Send, and large frames (a whole 64 KiB MTU, one
 * Tx DMA block each) go between them.  The host thread assists
 * (lc_nic_assist) while node 0's MCP thread runs, so one of them copies a
 * DMA block while the other runs Net-Send: send_dma_overlap > 0, which one
 * lock for all engines never allowed (the counter stayed 0 there until the
 * deadline).  Every frame arrives once, in order, intact.
 */
Test(mcp, net_send_overlaps_long_dma_chain)
{
	enum { BIG = 65536, SMALL = 16, NBUF = 8, LONG = 1u << 18, LONG_BUFS = 4 };
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = BIG, .thread = 1, .send_ring = 16,
							    .tx_dma = 8, .tx_fifo = 32 });
	static struct lc_nic_dma_block chain2[8];
	const uint32_t min_frames = 512;
	uint32_t spare = g.sram_bytes, ticket[NBUF] = { 0 }, t2 = 0, sent = 0, got = 0, big = 0;
	uint64_t deadline = lc_nic_now_ns() + 20ull * 1000000000ull, longs = 0;
	uint8_t *buf = malloc((size_t)NBUF * BIG), *lbuf = malloc((size_t)LONG_BUFS * LONG), pio[SMALL];
	struct lc_nic *s, *r;
	struct lc_frame_hdr *h;

	cr_assert(buf && lbuf);
	memset(lbuf, 0x5a, (size_t)LONG_BUFS * LONG);
	g.sram_bytes += LONG_BUFS * LONG;     /* the long chain's SRAM, after the scratch area */
	lct_setup(&g, "ovl");
	s = lct_nic[0];
	r = lct_nic[1];
	cr_assert_eq(lc_nic_dma_chain_setup(s, 2, chain2, 8), 0);
	/* until the overlap was seen, and at least min_frames frames: a fixed count might all fall between copies */
	while (got < min_frames || !lct_stat(s, LC_NIC_STAT_send_dma_overlap)) {
		/* keep the long chain fed: up to 4 blocks ahead */
		while ((int32_t)(lc_nic_dma_chain_done(s, 2) - t2) > -4 &&
		       lc_nic_dma_chain_post(s, 2, spare + (uint32_t)(longs % LONG_BUFS) * LONG,
					     lbuf + (longs % LONG_BUFS) * LONG, LONG, LC_DMA_TO_NIC, &t2) == 0)
			longs++;
		/* odd frames: PIO, 16 bytes; even: a whole MTU by DMA from buffer k (reused once done) */
		if (sent - got < 64) {
			uint32_t k = big % NBUF;
			int dma = !(sent & 1);

			if ((!dma || (int32_t)(lc_nic_tx_dma_done(s) - ticket[k]) >= 0) &&
			    lct_send(s, 1, sent, dma ? BIG : SMALL, dma, dma ? buf + (size_t)k * BIG : pio,
				     dma ? &ticket[k] : NULL) == 0) {
				big += dma;
				sent++;
			}
		}
		lc_nic_assist(s);
		if ((h = lc_nic_rx_peek(r))) {
			/* header, and every 61st payload byte: a whole check would make this host the bottleneck */
			const uint8_t *p = (const uint8_t *)(h + 1);

			cr_assert_eq(h->seq, got);
			cr_assert_eq(h->len, (got & 1) ? SMALL : BIG);
			for (uint32_t i = 0; i < h->len; i += 61)
				cr_assert_eq(p[i], lct_byte(0, got, i), "frame %u byte %u", got, i);
			lc_nic_rx_release(r);
			got++;
		}
		cr_assert_lt(lc_nic_now_ns(), deadline, "%u frames, %llu long blocks: Net-Send never moved "
			     "a frame while a DMA block was being copied", got, (unsigned long long)longs);
	}
	cr_log_info("send_dma_overlap %llu of %u frames sent, %llu long DMA blocks",
		    (unsigned long long)lct_stat(s, LC_NIC_STAT_send_dma_overlap), sent,
		    (unsigned long long)longs);
	/* the rest of the frames and the long chain */
	while (got < sent || (int32_t)(lc_nic_dma_chain_done(s, 2) - t2) < 0) {
		lc_nic_assist(s);
		if ((h = lc_nic_rx_peek(r))) {
			cr_assert_eq(h->seq, got);
			lc_nic_rx_release(r);
			got++;
		}
		cr_assert_lt(lc_nic_now_ns(), deadline);
	}
	cr_assert_null(lc_nic_rx_peek(r));
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_dma_blocks_c1), big);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_dma_blocks_c2), longs);
	cr_assert_eq(lct_stat(s, LC_NIC_STAT_net_tx_frames), sent);
	cr_assert_eq(lct_stat(r, LC_NIC_STAT_net_rx_frames), sent);
	cr_assert_eq(memcmp(s->sram + spare, lbuf, LONG), 0, "the long chain's data landed");
	free(buf);
	free(lbuf);
}

/* One host of the duplex stress below: sends to its peer and checks what comes from it. */
struct duplex {
	struct lc_nic *nic;
	uint32_t peer, total, sent, got;
	uint32_t bad;            /* 0, or 1 + the index of the first frame out of order or damaged */
	uint32_t stuck;          /* the deadline passed */
	uint32_t ticket[16];
	uint8_t buf[16][1024];
};

static uint32_t duplex_len(uint32_t seq)
{
	return seq * 37u % 1025u;
}

/* 1 when h is frame seq of src to dst, payload intact (lct_check without asserting: any thread). */
static int duplex_ok(const struct lc_frame_hdr *h, uint32_t src, uint32_t dst, uint32_t seq)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t len = duplex_len(seq);

	if (h->magic != LC_FRAME_MAGIC || h->src != src || h->dst != dst || h->seq != seq || h->len != len)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != lct_byte(src, seq, i))
			return 0;
	return 1;
}

static void *duplex_run(void *arg)
{
	struct duplex *d = arg;
	uint32_t me = lc_nic_node(d->nic);
	uint64_t deadline = lc_nic_now_ns() + 40ull * 1000000000ull;

	for (uint32_t it = 0; d->got < d->total || d->sent < d->total; it++) {
		int moved = 0;

		if (d->sent < d->total) {
			uint32_t k = d->sent % 16, seq = d->sent;
			int dma = (seq / 3) & 1;

			if ((int32_t)(lc_nic_tx_dma_done(d->nic) - d->ticket[k]) >= 0 &&
			    lct_send(d->nic, d->peer, seq, duplex_len(seq), dma, d->buf[k], &d->ticket[k]) == 0) {
				if (!dma)
					d->ticket[k] = lc_nic_tx_dma_done(d->nic);
				d->sent++;
				moved = 1;
			}
		}
		/* the host assists on three passes of four: the MCP thread runs alone on the fourth */
		if (it & 3)
			moved += lc_nic_assist(d->nic);
		if (d->got < d->total && lc_nic_rx_peek(d->nic)) {
			if (!d->bad && !duplex_ok(lc_nic_rx_peek(d->nic), d->peer, me, d->got))
				d->bad = d->got + 1;
			lc_nic_rx_release(d->nic);
			d->got++;
			moved = 1;
		}
		if (!moved) {
			if (lc_nic_now_ns() > deadline) {
				d->stuck = 1;
				break;
			}
			sched_yield();
		}
	}
	return NULL;
}

/*
 * Thread mode, no faults: both hosts send 20000 frames of changing size
 * (PIO and DMA) to each other at once over small rings, each host thread
 * assisting its NIC while its MCP thread runs, so every engine is taken by
 * two threads in turn.  Every frame arrives exactly once, in order, intact.
 */
Test(mcp, thread_duplex_exactly_once_in_order)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .mtu = 1024, .thread = 1, .recv_ring = 4,
							    .staging = 4, .tx_dma = 4, .send_ring = 8 });
	static struct duplex d[2];
	pthread_t t;

	lct_setup(&g, "duplex");
	for (uint32_t i = 0; i < 2; i++)
		d[i] = (struct duplex){ .nic = lct_nic[i], .peer = 1 - i, .total = 20000 };
	cr_assert_eq(pthread_create(&t, NULL, duplex_run, &d[1]), 0);
	duplex_run(&d[0]);
	pthread_join(t, NULL);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_not(d[i].stuck, "node %u stuck: %u sent, %u received", i, d[i].sent, d[i].got);
		cr_assert_eq(d[i].bad, 0, "node %u: frame %u out of order or damaged", i, d[i].bad - 1);
		cr_assert_eq(d[i].got, d[i].total);
	}
	lct_settle();
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_null(lc_nic_rx_peek(lct_nic[i]), "node %u: a frame more than sent", i);
		cr_assert_eq(lct_stat(lct_nic[i], LC_NIC_STAT_net_rx_frames), 20000);
		cr_assert_eq(lct_stat(lct_nic[i], LC_NIC_STAT_net_tx_frames), 20000);
		cr_assert_eq(lct_stat(lct_nic[i], LC_NIC_STAT_nic_drops_bad), 0);
		cr_assert_eq(lct_stat(lct_nic[i], LC_NIC_STAT_bp_drops), 0);
	}
}
