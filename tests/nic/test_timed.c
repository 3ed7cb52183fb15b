/* SPDX-License-Identifier: MIT */
/*
 * The timed network (network.link_mbps, network.hop_ns; nic/net.c): a frame
 * reaches the receiving NIC only at its modelled arrival, links carry one
 * frame at a time at their bandwidth, a head that finds its output port busy
 * waits there and holds the links behind it (wormhole routing).  The
 * geometries here set their own link and hop; the code is compiled only into
 * a config with a timed network (LC_NET_TIMED), elsewhere every test is
 * skipped with that reason.
 *
 * Each put is bracketed by the clock before and after the NIC step that took
 * the frame, so the frame left at some now in [lo, hi]; the arrivals the
 * model must give follow from the routes' hops and the frames' wire times,
 * and hold however the process is scheduled.
 */
#include "nic_test.h"

TestSuite(timed, .fini = lct_fini, .timeout = 60);

#define WHY "the network is untimed in this config (network.link_mbps and network.hop_ns 0)"

#if LC_NET_TIMED
static uint32_t next_slot[LCT_MAX_NICS];  /* the next Receive Ring index of each receiver */
static uint32_t seq;

/* The time on a link of a frame of len payload bytes (header included, rounded up). */
static uint64_t wire_ns(const struct lc_nic_geom *g, uint32_t len)
{
	return ((uint64_t)(g->hdr_bytes + len) * 8000u + g->link_mbps - 1) / g->link_mbps;
}

/*
 * Put one frame of len bytes from node s to node d; [*lo, *hi] brackets when
 * Net-Send took it.  Returns the arrival the sending NIC stamped in the
 * receiver's slot.
 */
static uint64_t put(uint32_t s, uint32_t d, uint32_t len, uint64_t *lo, uint64_t *hi)
{
	static uint8_t buf[1024];
	struct lc_nic *n = lct_nic[s];
	uint64_t sent = lct_stat(n, LC_NIC_STAT_net_tx_frames);
	uint64_t deadline = lc_nic_now_ns() + 10ull * 1000000000ull;

	cr_assert_eq(lct_send(n, d, seq++, len, 0, buf, NULL), 0, "no Send Ring slot at node %u", s);
	do {
		*lo = lc_nic_now_ns();
		lc_nic_step(n);
		*hi = lc_nic_now_ns();
		cr_assert_lt(*hi, deadline, "node %u's Net-Send never took the frame", s);
	} while (lct_stat(n, LC_NIC_STAT_net_tx_frames) == sent);
	return atomic_load(lc_recv_arrival(lct_nic[d]->sram, &lct_nic[d]->g, next_slot[d]++));
}

/*
 * A head that reached a port at a time in [lo, hi] waited there for the link
 * until `until` (its busy_until), or not at all if it came later: the port's
 * wait counter lies between the two waits those bounds give.
 */
static void wait_within(uint64_t waited, uint64_t until, uint64_t lo, uint64_t hi, const char *what)
{
	uint64_t least = until > hi ? until - hi : 0, most = until > lo ? until - lo : 0;

	cr_assert(waited >= least && waited <= most, "%s: waited %lu ns, the head came %lu-%lu ns before "
		  "the link was free", what, (unsigned long)waited, (unsigned long)least, (unsigned long)most);
}
#endif

/* One switch: the frame is on the wire a hop and its wire time, and Net-Recv does not see it sooner. */
#if LC_NET_TIMED
Test(timed, a_frame_arrives_after_its_hop_and_wire_time_not_before)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 2, .link_mbps = 100,
							    .hop_ns = 2000000 });
	uint64_t lo, hi, a, w = wire_ns(&g, 100);
	struct lc_frame_hdr *h = NULL;
	int early = 0;

	lct_setup(&g, "tm1");
	a = put(1, 0, 100, &lo, &hi);
	cr_assert_geq(a, lo + g.hop_ns + w, "arrival %lu, left at >= %lu", (unsigned long)a, (unsigned long)lo);
	cr_assert_leq(a, hi + g.hop_ns + w, "arrival %lu, left at <= %lu", (unsigned long)a, (unsigned long)hi);
	while (!h) {
		uint64_t t0 = lc_nic_now_ns(), t1;

		lc_nic_step(lct_nic[0]);
		h = lc_nic_rx_peek(lct_nic[0]);
		t1 = lc_nic_now_ns();
		cr_assert(!h || t1 >= a, "the frame reached the host %lu ns before its arrival",
			  (unsigned long)(a - t1));
		early += !h && t1 < a;
		cr_assert_lt(t0, a + 10ull * 1000000000ull, "the frame never arrived");
	}
	lct_check(h, 1, 0, 0, 100);
	lc_nic_rx_release(lct_nic[0]);
	cr_log_info("%d polls before the arrival found nothing", early);
}
#else
LC_T_SKIPPED(timed, a_frame_arrives_after_its_hop_and_wire_time_not_before, WHY)
#endif

/* Two levels: three switches between leaves, each a hop. */
#if LC_NET_TIMED
Test(timed, three_hops_between_leaves)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 6, .ports = 4, .link_mbps = 1000,
							    .hop_ns = 50000 });
	uint64_t lo, hi, a, w = wire_ns(&g, 64);

	lct_setup(&g, "tm2");
	cr_assert_eq(lct_nic[3]->routes[0].hops, 3);
	a = put(3, 0, 64, &lo, &hi);
	cr_assert_geq(a, lo + 3 * g.hop_ns + w);
	cr_assert_leq(a, hi + 3 * g.hop_ns + w);
	lct_check(lct_wait_rx(lct_nic[0]), 3, 0, 0, 64);
	cr_assert_geq(lc_nic_now_ns(), a);
}
#else
LC_T_SKIPPED(timed, three_hops_between_leaves, WHY)
#endif

/* A link carries one frame at a time: back-to-back frames leave and arrive a wire time apart. */
#if LC_NET_TIMED
Test(timed, the_link_serialises_frames)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 2, .link_mbps = 100, .hop_ns = 1000 });
	uint64_t lo, hi, a[4], w = wire_ns(&g, 200);

	lct_setup(&g, "tm3");
	for (int k = 0; k < 4; k++) {
		a[k] = put(0, 1, 200, &lo, &hi);
		if (k) {
			/* Net-Send took it only once the previous frame's tail had left the NIC */
			cr_assert_geq(hi, a[k - 1] - g.hop_ns, "frame %d left before the link was free", k);
			cr_assert_geq(a[k], a[k - 1] + w, "frame %d arrived %lu ns after frame %d", k,
				      (unsigned long)(a[k] - a[k - 1]), k - 1);
		}
	}
	for (uint32_t k = 0; k < 4; k++) {
		lct_check(lct_wait_rx(lct_nic[1]), 0, 1, k, 200);
		lc_nic_rx_release(lct_nic[1]);
	}
}
#else
LC_T_SKIPPED(timed, the_link_serialises_frames, WHY)
#endif

/* Two senders, one receiver: the switch's output port to it carries one frame at a time. */
#if LC_NET_TIMED
Test(timed, senders_to_one_receiver_share_its_port)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3, .link_mbps = 100, .hop_ns = 1000 });
	uint64_t lo, hi, a1, a2, w = wire_ns(&g, 200);

	lct_setup(&g, "tm4");
	a1 = put(1, 0, 200, &lo, &hi);
	a2 = put(2, 0, 200, &lo, &hi);
	cr_assert_geq(a2, a1 + w, "the second frame arrived %lu ns after the first",
		      (unsigned long)(a2 - a1));
	/* the port's reservation ends with the last tail through it */
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 0)->busy_until), a2);
}
#else
LC_T_SKIPPED(timed, senders_to_one_receiver_share_its_port, WHY)
#endif

/*
 * Wormhole: a head blocked at the last switch holds the uplink and the root's
 * port behind it, so a frame to another node of that leaf waits behind it
 * although its own last port is free.
 */
#if LC_NET_TIMED
Test(timed, a_blocked_head_holds_the_links_behind_it)
{
	/* 4-port switches: leaf 0 has nodes 0-2, leaf 1 nodes 3-5, switch 2 is the root */
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 6, .ports = 4, .link_mbps = 1,
							    .hop_ns = 1000 });
	uint64_t lo, hi, a1, a2, a3, w = wire_ns(&g, 200);
	uint32_t up = 1 * 4 + 3, down = 2 * 4 + 0;

	lct_setup(&g, "tm5");
	a1 = put(0, 1, 200, &lo, &hi);         /* leaf 0 port 1, for w (1.9 ms) */
	a2 = put(3, 1, 200, &lo, &hi);         /* up, down, leaf 0 port 1: waits there for the first */
	cr_assert_geq(a2, a1 + w);
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], up)->busy_until), a2 - 2 * g.hop_ns,
		     "the uplink is held until the tail passed it");
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], down)->busy_until), a2 - g.hop_ns);
	/*
	 * --stats' wait: the second head reached port 1 three hops after it left
	 * and waited there for a1 (none if a loaded machine sent it that late)
	 */
	struct lc_net_port *p1 = lc_net_port(lct_nic[0], 1);
	uint64_t w1 = atomic_load(&p1->wait_ns);

	wait_within(w1, a1, lo + 3 * g.hop_ns, hi + 3 * g.hop_ns, "port 1, the second frame");
	a3 = put(4, 0, 200, &lo, &hi);         /* up, down, leaf 0 port 0 (free): behind the second */
	cr_assert_geq(a3, a2 + w, "the third frame arrived %ld ns after the second",
		      (long)(a3 - a2));
	/* the third waited at the uplink only, for the second's tail; each link carried its frames' wire time */
	wait_within(atomic_load(&lc_net_port(lct_nic[0], up)->wait_ns), a2 - 2 * g.hop_ns, lo + g.hop_ns,
		    hi + g.hop_ns, "the uplink, the third frame");
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], down)->wait_ns), 0);
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 0)->wait_ns), 0);
	cr_assert_eq(atomic_load(&p1->wait_ns), w1, "the third frame did not cross port 1");
	cr_assert_eq(atomic_load(&p1->busy_ns), 2 * w);
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], up)->busy_ns), 2 * w);
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 0)->busy_ns), w);
	lct_check(lct_wait_rx(lct_nic[1]), 0, 1, 0, 200);
	lc_nic_rx_release(lct_nic[1]);
	lct_check(lct_wait_rx(lct_nic[1]), 3, 1, 1, 200);
	lct_check(lct_wait_rx(lct_nic[0]), 4, 0, 2, 200);
}
#else
LC_T_SKIPPED(timed, a_blocked_head_holds_the_links_behind_it, WHY)
#endif

/* The endpoints of a NIC share its link: the second waits for the first's tail although its port is free. */
#if LC_NET_TIMED
Test(timed, endpoints_of_a_nic_share_its_link)
{
	/* NIC 0: nodes 0 and 1, NIC 1: nodes 2 and 3, NIC 2: nodes 4 and 5 */
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 6, .per_nic = 2, .link_mbps = 1,
							    .hop_ns = 1000 });
	uint64_t lo, hi, a1, a2, w = wire_ns(&g, 200);

	lct_setup(&g, "tm6");
	a1 = put(0, 2, 200, &lo, &hi);
	a2 = put(1, 4, 200, &lo, &hi);
	cr_assert_geq(hi, a1 - g.hop_ns, "node 1 put a frame on the link while node 0's was on it");
	cr_assert_geq(a2, a1 + w);
	lct_check(lct_wait_rx(lct_nic[2]), 0, 2, 0, 200);
	lct_check(lct_wait_rx(lct_nic[4]), 1, 4, 1, 200);
}
#else
LC_T_SKIPPED(timed, endpoints_of_a_nic_share_its_link, WHY)
#endif
