/* SPDX-License-Identifier: MIT */
/* The network: crossbar or two-level switches, source routes, wormhole port locks. */
#include <stdio.h>

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

int lc_net_place_check(const struct lc_nic_geom *g, const uint16_t *place, char *err, size_t errlen)
{
	uint8_t seen[LC_MAX_NODES] = { 0 };

	for (uint32_t i = 0; i < lc_geom_nics(g); i++) {
		if (place[i] >= lc_geom_nics(g)) {
			snprintf(err, errlen, "NIC %u in slot %u: the job's %u NICs fill slots 0-%u", i,
				 (unsigned)place[i], lc_geom_nics(g), lc_geom_nics(g) - 1);
			return LC_ERR_INVAL;
		}
		if (seen[place[i]]++) {
			snprintf(err, errlen, "NIC %u in slot %u, which another NIC has", i, (unsigned)place[i]);
			return LC_ERR_INVAL;
		}
	}
	return 0;
}

int lc_net_route(const struct lc_nic_geom *g, const uint16_t *place, uint32_t src, uint32_t dst,
		 struct lc_route *r)
{
	uint32_t P = g->switch_ports, n, ls, ld, root;

	if (src >= g->nodes || dst >= g->nodes || lc_net_switches(g) == 0)
		return LC_ERR_RANGE;
	/* the endpoints of one NIC share its link: a route leads from NIC to NIC, slot to slot */
	src = lc_geom_nic_of(g, src);
	dst = lc_geom_nic_of(g, dst);
	if (place) {
		src = place[src];
		dst = place[dst];
	}
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

#if LC_NET_TIMED
/*
 * The timed network (network.link_mbps, network.hop_ns).  A link carries one
 * frame at a time, for bytes * 8000 / link_mbps ns; a frame's head takes
 * hop_ns through each switch with its cable (cut-through).  Wormhole routing:
 * a head that finds an output port still carrying another frame waits there,
 * and the links behind it stay taken until its tail has passed them.  Each
 * link's "free from" time is a reservation: the NIC's link to its switch in
 * the control block of the NIC's first endpoint, each switch output port in
 * its lc_net_port (under the port lock Net-Send holds).  Frames take the
 * ports in the order their senders take the locks.
 */
static _Atomic uint64_t *link_of(struct lc_nic *nic)
{
	return &lc_seg_ctrl(nic, lc_geom_nic_of(&nic->g, nic->node) * nic->g.per_nic)->link_busy;
}

int lc_net_link_free(struct lc_nic *nic, uint64_t now)
{
	return now >= atomic_load_explicit(link_of(nic), memory_order_relaxed);
}

int lc_net_time(struct lc_nic *nic, const struct lc_route *r, uint32_t bytes, uint64_t now,
		uint64_t *arrive)
{
	_Atomic uint64_t *link = link_of(nic);
	uint64_t hop = nic->g.hop_ns, free_at = atomic_load_explicit(link, memory_order_relaxed);
	/* on the wire: header and payload; a link of 0 Mb/s is untimed (hops only) */
	uint64_t wire = nic->g.link_mbps ? ((uint64_t)bytes * 8000u + nic->g.link_mbps - 1) / nic->g.link_mbps : 0;
	uint64_t head = now, end;

	if (now < free_at)
		return 0;
	/* the head through each switch: a hop, or longer while the output port still carries a frame */
	for (uint32_t i = 0; i < r->hops; i++) {
		uint64_t busy = atomic_load_explicit(&lc_net_port(nic, r->gport[i])->busy_until,
						     memory_order_relaxed);

		head = head + hop > busy ? head + hop : busy;
	}
	end = head + wire;      /* the tail off the last port, into the receiving NIC */
	/* the tail leaves a link (hops - k) hop times before it leaves the last one */
	if (!atomic_compare_exchange_strong_explicit(link, &free_at, end - (uint64_t)r->hops * hop,
						     memory_order_relaxed, memory_order_relaxed))
		return 0;       /* another endpoint of this NIC put a frame on the link first */
	for (uint32_t i = 0; i < r->hops; i++)
		atomic_store_explicit(&lc_net_port(nic, r->gport[i])->busy_until,
				      end - (uint64_t)(r->hops - 1 - i) * hop, memory_order_relaxed);
	*arrive = end;
	return 1;
}
#endif
