/* SPDX-License-Identifier: MIT */
/* The network: topology, source routes, wormhole port locks, contention, traffic over two levels. */
#include "nic_test.h"

TestSuite(net, .fini = lct_fini, .timeout = 60);

/* Routes by the topology's definition; failure rows return LC_ERR_RANGE. */
Test(net, routes)
{
	struct {
		uint32_t nodes, ports, src, dst;
		int rc;
		uint32_t hops, port[3], gport[3];
	} rows[] = {
		/* crossbar: one hop, the destination's port */
		{ 4, 16, 0, 3, 0, 1, { 3 }, { 3 } },
		{ 4, 16, 2, 2, 0, 1, { 2 }, { 2 } },
		{ 4, 4, 3, 0, 0, 1, { 0 }, { 0 } },                    /* exactly one switch full */
		/* 8 nodes on 4-port switches: leaves of 3 nodes (0-2, 3-5, 6-7), root is switch 3 */
		{ 8, 4, 0, 1, 0, 1, { 1 }, { 1 } },                    /* same leaf */
		{ 8, 4, 4, 5, 0, 1, { 2 }, { 4 + 2 } },
		{ 8, 4, 0, 5, 0, 3, { 3, 1, 2 }, { 3, 12 + 1, 4 + 2 } }, /* up, root port 1, down */
		{ 8, 4, 7, 0, 0, 3, { 3, 0, 0 }, { 8 + 3, 12 + 0, 0 } },
		{ 8, 4, 5, 6, 0, 3, { 3, 2, 0 }, { 4 + 3, 12 + 2, 8 + 0 } },
		{ 8, 4, 8, 0, LC_ERR_RANGE, 0, { 0 }, { 0 } },
		{ 8, 4, 0, 8, LC_ERR_RANGE, 0, { 0 }, { 0 } },
		{ 13, 4, 0, 1, LC_ERR_RANGE, 0, { 0 }, { 0 } },        /* does not fit two levels */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = rows[i].nodes, .ports = rows[i].ports });
		struct lc_route r;

		memset(&r, 0, sizeof(r));
		cr_assert_eq(lc_net_route(&g, NULL, rows[i].src, rows[i].dst, &r), rows[i].rc, "row %zu", i);
		if (rows[i].rc)
			continue;
		cr_assert_eq(r.hops, rows[i].hops, "row %zu", i);
		for (uint32_t h = 0; h < r.hops; h++) {
			cr_assert_eq(r.port[h], rows[i].port[h], "row %zu hop %u", i, h);
			cr_assert_eq(r.gport[h], rows[i].gport[h], "row %zu hop %u", i, h);
			cr_assert_lt(r.gport[h], lc_net_ports(&g));
		}
	}
}

/* Endpoints of one NIC (per_nic) share its port: routes go from NIC to NIC. */
Test(net, endpoints_of_a_nic_share_its_routes)
{
	/* 8 endpoints, 2 per NIC: 4 NICs on one 4-port crossbar; 4 per NIC on 2-port switches: 2 NICs */
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 8, .ports = 4, .per_nic = 2 });
	struct lc_route a, b;

	cr_assert_eq(lc_geom_nics(&g), 4);
	cr_assert_eq(lc_net_switches(&g), 1, "4 NICs fit one 4-port switch (8 single-endpoint nodes would not)");
	for (uint32_t s = 0; s < 8; s++)
		for (uint32_t d = 0; d < 8; d++) {
			cr_assert_eq(lc_net_route(&g, NULL, s, d, &a), 0);
			cr_assert_eq(lc_net_route(&g, NULL, s ^ 1, d ^ 1, &b), 0);
			cr_assert_eq(a.hops, 1);
			cr_assert_eq(a.gport[0], d / 2, "%u -> %u: the port of the destination's NIC", s, d);
			cr_assert_eq(b.gport[0], a.gport[0], "the other endpoints of the same NICs");
		}
	g = lct_geom((struct lct_shape){ .nodes = 12, .ports = 4, .per_nic = 4 });
	cr_assert_eq(lc_geom_nics(&g), 3);
	cr_assert_eq(lc_net_switches(&g), 1);
	g = lct_geom((struct lct_shape){ .nodes = 10, .ports = 3, .per_nic = 3 });
	cr_assert_eq(lc_geom_nics(&g), 4, "the last NIC has one endpoint");
	cr_assert_eq(lc_net_switches(&g), 3, "4 NICs on 3-port switches: 2 leaves and a root");
	cr_assert_eq(lc_net_route(&g, NULL, 0, 9, &a), 0);
	cr_assert_eq(a.hops, 3, "NIC 0 to NIC 3, on the other leaf");
	cr_assert_eq(lc_net_route(&g, NULL, 0, 5, &a), 0);
	cr_assert_eq(a.hops, 1, "NIC 0 to NIC 1, the same leaf");
	cr_assert_eq(lc_net_route(&g, NULL, 1, 2, &b), 0);
	cr_assert_eq(b.hops, 1, "endpoints 1 and 2 are on NIC 0");
}

Test(net, topology_size)
{
	struct {
		uint32_t nodes, ports, switches;
	} rows[] = {
		{ 1, 16, 1 }, { 16, 16, 1 }, { 17, 16, 3 }, { 8, 4, 4 }, { 12, 4, 5 }, { 13, 4, 0 }, { 2, 2, 1 },
		{ 3, 2, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = rows[i].nodes, .ports = rows[i].ports });

		cr_assert_eq(lc_net_switches(&g), rows[i].switches, "row %zu", i);
		cr_assert_eq(lc_net_ports(&g), rows[i].switches * rows[i].ports, "row %zu", i);
	}
}

/* Every node sends to every node over the two-level network; the uplinks carry what they must. */
Test(net, all_to_all_two_level)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 8, .ports = 4, .recv_ring = 8,
							    .send_ring = 8 });
	static uint8_t buf[8][8][256];
	uint32_t got[8][8];

	memset(got, 0, sizeof(got));
	lct_setup(&g, "a2a");
	for (uint32_t s = 0; s < 8; s++)
		for (uint32_t d = 0; d < 8; d++)
			cr_assert_eq(lct_send(lct_nic[s], d, s * 8 + d, 50 + s, d & 1, buf[s][d], NULL), 0);
	for (uint32_t n = 0; n < 64; n++) {
		int found = 0;

		for (uint32_t d = 0; d < 8 && !found; d++) {
			struct lc_frame_hdr *h = lc_nic_rx_peek(lct_nic[d]);

			if (!h)
				continue;
			lct_check(h, h->src, d, h->src * 8 + d, 50 + h->src);
			got[h->src][d]++;
			lc_nic_rx_release(lct_nic[d]);
			found = 1;
		}
		if (!found) {
			cr_assert(lct_step_all() > 0, "stuck after %u frames", n);
			n--;
		}
	}
	for (uint32_t s = 0; s < 8; s++)
		for (uint32_t d = 0; d < 8; d++)
			cr_assert_eq(got[s][d], 1, "%u -> %u", s, d);
	/* leaf 0's uplink (port 3) carries the 3 x 5 frames from nodes 0-2 to nodes 3-7 */
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 3)->frames), 15);
	/* the root's port down to leaf 2 carries the 6 x 2 frames from nodes 0-5 to nodes 6-7 */
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 12 + 2)->frames), 12);
	/* node 4's port on leaf 1 carries a frame from each of the 8 nodes */
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 4 + 1)->frames), 8);
	for (uint32_t p = 0; p < lc_net_ports(&g); p++)
		cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], p)->owner), 0, "port %u left locked", p);
}

/* A worm holding the port to node 0 stalls another sender until it lets go. */
Test(net, contention_stalls_until_release)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3 });
	struct lc_nic *a, *b;
	uint8_t buf[256];
	uint32_t busy = 99;

	lct_setup(&g, "cont");
	a = lct_nic[1];
	b = lct_nic[2];
	cr_assert_eq(lc_net_lock(b, &b->routes[0], &busy), 1);
	cr_assert_eq(atomic_load(&lc_net_port(a, 0)->owner), 2 + 1);
	cr_assert_eq(lct_send(a, 0, 0, 12, 0, buf, NULL), 0);
	for (int i = 0; i < 8; i++)
		lc_nic_step(a);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_stalls), 1);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_net_tx_frames), 0);
	cr_assert_eq(atomic_load(&lc_net_port(a, 0)->stalls), 1);
	/* another destination is not held up by the busy port (once the stalled frame leaves) */
	lc_net_unlock(b, &b->routes[0]);
	lct_check(lct_wait_rx(lct_nic[0]), 1, 0, 0, 12);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_drops), 0);
	cr_assert_eq(atomic_load(&lc_net_port(a, 0)->owner), 0);
}

/* Wormhole: all the route's ports or none; a port held by a dead node is taken over. */
Test(net, all_or_nothing_and_steal_from_dead)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 8, .ports = 4 });
	struct lc_nic *a, *b;
	uint32_t busy = 99;
	uint8_t buf[256];

	lct_setup(&g, "worm");
	a = lct_nic[0];
	b = lct_nic[7];
	/* node 7 holds node 5's port (leaf 1, port 2) via its route 7 -> 5 (up, root, down) */
	cr_assert_eq(lc_net_lock(b, &b->routes[5], &busy), 1);
	/* node 0 -> 5 takes its uplink, then finds the root port to leaf 1 held: gives the uplink back */
	cr_assert_eq(lc_net_lock(a, &a->routes[5], &busy), 0);
	cr_assert_eq(busy, a->routes[5].gport[1], "the root port to leaf 1 is held by node 7 too");
	cr_assert_eq(atomic_load(&lc_net_port(a, a->routes[5].gport[0])->owner), 0, "uplink given back");
	/* node 7 dies holding the ports: they are taken over */
	lc_seg_mark_dead(lct_name, 7);
	cr_assert_eq(lct_send(a, 5, 3, 21, 0, buf, NULL), 0);
	lct_check(lct_wait_rx(lct_nic[5]), 0, 5, 3, 21);
	cr_assert_eq(lct_stat(a, LC_NIC_STAT_bp_stalls), 0);
	lct_nic[7] = NULL;   /* its process "died": fini does not detach it */
	lc_nic_detach(b);
}

/*
 * A placement plugs NICs into other slots: routes follow the slots, a
 * segment's placement reaches every node's routes, and a placement that is not
 * a permutation of the slots is refused whole.
 */
Test(net, placement_moves_nics_between_leaves)
{
	/* 4-port switches: leaf 0 has slots 0-2, leaf 1 slots 3-5 */
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 6, .ports = 4 });
	const uint16_t place[6] = { 0, 3, 1, 4, 2, 5 };
	const uint16_t dup[6] = { 0, 3, 1, 4, 2, 3 }, wide[6] = { 0, 1, 2, 3, 4, 6 };
	struct lc_route r;
	char err[128] = "";
	uint8_t buf[64];

	cr_assert_eq(lc_net_route(&g, place, 0, 1, &r), 0);
	cr_assert_eq(r.hops, 3, "NIC 1 is in slot 3, on the other leaf");
	cr_assert_eq(r.gport[2], 1 * 4 + 0, "slot 3 is port 0 of leaf 1");
	cr_assert_eq(lc_net_route(&g, place, 0, 2, &r), 0);
	cr_assert_eq(r.hops, 1, "NIC 2 is in slot 1, on NIC 0's leaf");
	cr_assert_eq(r.gport[0], 1);
	cr_assert_eq(lc_net_route(&g, NULL, 0, 1, &r), 0);
	cr_assert_eq(r.hops, 1, "without a placement NIC 1 is in slot 1");
	cr_assert_eq(lc_net_place_check(&g, dup, err, sizeof err), LC_ERR_INVAL);
	cr_assert(strstr(err, "NIC 5 in slot 3"), "%s", err);
	cr_assert_eq(lc_net_place_check(&g, wide, err, sizeof err), LC_ERR_INVAL);
	cr_assert(strstr(err, "slots 0-5"), "%s", err);

	lct_create(&g, "place");
	cr_assert_eq(lc_seg_set_place(lct_name, dup), LC_ERR_INVAL);
	cr_assert_eq(lc_seg_set_place(lct_name, place), 0);
	for (uint32_t i = 0; i < g.nodes; i++)
		lct_attach(&g, i);
	cr_assert_eq(lct_nic[0]->routes[1].hops, 3);
	cr_assert_eq(lct_nic[3]->routes[1].hops, 1, "NICs 3 and 1 share leaf 1 (slots 4 and 3)");
	/* a frame takes the placed route: the root's port down to leaf 1 carries it */
	cr_assert_eq(lct_send(lct_nic[0], 1, 0, 16, 0, buf, NULL), 0);
	lct_check(lct_wait_rx(lct_nic[1]), 0, 1, 0, 16);
	cr_assert_eq(atomic_load(&lc_net_port(lct_nic[0], 2 * 4 + 1)->frames), 1);
}
