/* SPDX-License-Identifier: MIT */
/* The network: crossbar or two-level switches, source routes, wormhole port locks. */
#include "nic_impl.h"

/*
 * Topology, over the job's NICs (nic.h, lc_geom_nics: per_nic endpoints share
 * one).  With NICs <= switch_ports (P) one crossbar switch: NIC i on
 * port i.  Otherwise a two-level network: leaf switches 0..L-1 carry P-1
 * NICs each (leaf l: NICs l*(P-1) ..) on ports 0..P-2 and an uplink on port
 * P-1 to the root switch (number L), whose port j leads down to leaf j.
 * Output port p of switch s has the global id s*P + p; its lock and counters
 * live in the segment.
 */
uint32_t lc_net_switches(const struct lc_nic_geom *g)
{
	uint32_t per_leaf, leaves;

	if (g->switch_ports < 2)
		return 0;
	if (lc_geom_nics(g) <= g->switch_ports)
		return 1;
	per_leaf = g->switch_ports - 1;
	leaves = (lc_geom_nics(g) + per_leaf - 1) / per_leaf;
	if (leaves > g->switch_ports)
		return 0;
	return leaves + 1;
}

uint32_t lc_net_ports(const struct lc_nic_geom *g)
{
	return lc_net_switches(g) * g->switch_ports;
}

int lc_net_route(const struct lc_nic_geom *g, uint32_t src, uint32_t dst, struct lc_route *r)
{
	uint32_t P = g->switch_ports, n, ls, ld, root;

	if (src >= g->nodes || dst >= g->nodes || lc_net_switches(g) == 0)
		return LC_ERR_RANGE;
	/* the endpoints of one NIC share its link: a route leads from NIC to NIC */
	src = lc_geom_nic_of(g, src);
	dst = lc_geom_nic_of(g, dst);
	if (lc_net_switches(g) == 1) {
		r->hops = 1;
		r->port[0] = dst;
		r->gport[0] = dst;
		return 0;
	}
	n = P - 1;
	ls = src / n;
	ld = dst / n;
	root = lc_net_switches(g) - 1;
	if (ls == ld) {
		r->hops = 1;
		r->port[0] = dst % n;
		r->gport[0] = ls * P + dst % n;
		return 0;
	}
	r->hops = 3;
	r->port[0] = P - 1;             /* up to the root */
	r->gport[0] = ls * P + P - 1;
	r->port[1] = ld;                /* down to the destination's leaf */
	r->gport[1] = root * P + ld;
	r->port[2] = dst % n;           /* out to the node */
	r->gport[2] = ld * P + dst % n;
	return 0;
}
