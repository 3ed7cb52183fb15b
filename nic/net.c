/* SPDX-License-Identifier: MIT */
/* The network: crossbar or two-level switches, source routes, wormhole port locks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

/*
 * The network a job runs on, set at run time (commrun --network; each node
 * reads it again in lc_open, and the segment checks that all agree): the
 * keys of the geometry that describe the network alone, with their ranges.
 * The timing keys need a timed build -- the code that enforces them is
 * compiled only where the config sets network.link_mbps or network.hop_ns.
 *   X(field, lowest, highest, needs a timed build)
 */
#define LC_NET_OVERRIDE_LIST(X)                     \
	X(switch_ports, 2, 256, 0)                  \
	X(link_mbps, 0, 1000000, 1)                 \
	X(hop_ns, 0, 1000000000, 1)

static int out_of_range(unsigned long long v, unsigned long long lo, unsigned long long hi)
{
	return v < lo || v > hi;
}

int lc_net_override(struct lc_nic_geom *g, const char *spec, char *err, size_t errlen)
{
	struct lc_nic_geom n = *g;
	const char *p = spec;

	while (p && *p) {
		size_t klen = strcspn(p, "="), vlen;
		unsigned long long v;
		char *end;
		int known = 0;

		if (p[klen] != '=' || klen == 0) {
			snprintf(err, errlen, "'%.*s' is not KEY=VALUE", (int)strcspn(p, ","), p);
			return LC_ERR_INVAL;
		}
		vlen = strcspn(p + klen + 1, ",");
		errno = 0;
		v = strtoull(p + klen + 1, &end, 10);
		if (vlen == 0 || end != p + klen + 1 + vlen || errno || p[klen + 1] == '-') {
			snprintf(err, errlen, "%.*s: '%.*s' is not a number", (int)klen, p, (int)vlen,
				 p + klen + 1);
			return LC_ERR_INVAL;
		}
#define LC_X_KEY(f, lo, hi, timed)                                                              \
		if (klen == sizeof(#f) - 1 && !strncmp(p, #f, klen)) {                               \
			known = 1;                                                                  \
			if (out_of_range(v, lo, hi)) {                                              \
				snprintf(err, errlen, #f " = %llu: not in %llu..%llu", v,            \
					 (unsigned long long)(lo), (unsigned long long)(hi));        \
				return LC_ERR_RANGE;                                                \
			}                                                                           \
			if ((timed) && !LC_NET_TIMED && v) {                                        \
				snprintf(err, errlen, #f " = %llu: this build's network is untimed " \
					 "(its config sets neither network.link_mbps nor "          \
					 "network.hop_ns); build a timed config", v);                 \
				return LC_ERR_CONFIG;                                               \
			}                                                                           \
			n.f = (uint32_t)v;                                                          \
		}
		LC_NET_OVERRIDE_LIST(LC_X_KEY)
#undef LC_X_KEY
		if (!known) {
			snprintf(err, errlen, "unknown key '%.*s' (the network's keys:"
#define LC_X_NAME(f, ...) " " #f
				 LC_NET_OVERRIDE_LIST(LC_X_NAME)
#undef LC_X_NAME
				 ")", (int)klen, p);
			return LC_ERR_INVAL;
		}
		p += klen + 1 + vlen;
		p += *p == ',';
	}
	if (lc_net_switches(&n) == 0) {
		snprintf(err, errlen, "%u NICs do not fit two levels of %u-port switches (at most %u)",
			 lc_geom_nics(&n), n.switch_ports, n.switch_ports * (n.switch_ports - 1));
		return LC_ERR_RANGE;
	}
	*g = n;
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
	uint64_t head = now, end, wait[LC_NET_MAX_HOPS];

	if (now < free_at)
		return 0;
	/* the head through each switch: a hop, or longer while the output port still carries a frame */
	for (uint32_t i = 0; i < r->hops; i++) {
		uint64_t busy = atomic_load_explicit(&lc_net_port(nic, r->gport[i])->busy_until,
						     memory_order_relaxed);

		wait[i] = head + hop < busy ? busy - (head + hop) : 0;
		head += hop + wait[i];
	}
	end = head + wire;      /* the tail off the last port, into the receiving NIC */
	/* the tail leaves a link (hops - k) hop times before it leaves the last one */
	if (!atomic_compare_exchange_strong_explicit(link, &free_at, end - (uint64_t)r->hops * hop,
						     memory_order_relaxed, memory_order_relaxed))
		return 0;       /* another endpoint of this NIC put a frame on the link first */
	for (uint32_t i = 0; i < r->hops; i++) {
		struct lc_net_port *p = lc_net_port(nic, r->gport[i]);

		atomic_store_explicit(&p->busy_until, end - (uint64_t)(r->hops - 1 - i) * hop,
				      memory_order_relaxed);
		/* --stats: how long the head waited here for the link, and the frame's time on it */
		atomic_fetch_add_explicit(&p->wait_ns, wait[i], memory_order_relaxed);
		atomic_fetch_add_explicit(&p->busy_ns, wire, memory_order_relaxed);
	}
	*arrive = end;
	return 1;
}
#endif
