/* SPDX-License-Identifier: MIT */
/* commrun --stats: every counter of every node, then the faults injected per link. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"
#include "faults.h"
#include "lc_config.h"
#include "nic.h"
#include "launcher.h"

/* Per-link fault counters (faults.h) of every link that saw a fault. */
static void lc_run_print_faults(const char *job, uint32_t nodes)
{
	static uint64_t f[LC_MAX_NODES * LC_FAULT_COUNT];
	int header = 0;

	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t n = 0;

		if (lc_seg_read_faults(job, i, f, sizeof f / sizeof f[0], &n) != 0)
			continue;
		for (uint32_t d = 0; d < n; d++) {
			uint64_t any = 0;

			for (int k = 0; k < LC_FAULT_COUNT; k++)
				any |= f[d * LC_FAULT_COUNT + k];
			if (!any)
				continue;
			if (!header) {
				printf("# faults injected per link\n%-12s", "link");
				for (int k = 0; k < LC_FAULT_COUNT; k++)
					printf("  %10s", lc_fault_name(k));
				printf("\n");
				header = 1;
			}
			char l[32];
			snprintf(l, sizeof l, "%u->%u", i, d);
			printf("%-12s", l);
			for (int k = 0; k < LC_FAULT_COUNT; k++)
				printf("  %10llu", (unsigned long long)f[d * LC_FAULT_COUNT + k]);
			printf("\n");
		}
	}
}

/*
 * The job's traffic matrix: per source and destination, what the source's NIC
 * put on the link (messages, frames, bytes); pairs with no frame left out.
 * The input of a placement (which nodes talk to which, how much).
 */
static void lc_run_print_traffic(const char *job, uint32_t nodes)
{
	static uint64_t t[LC_MAX_NODES * LC_TRAFFIC_COUNT];
	static const char *const name[] = {
#define LC_X_NAME(n, ...) #n,
		LC_TRAFFIC_LIST(LC_X_NAME)
#undef LC_X_NAME
	};
	int header = 0;

	for (uint32_t s = 0; s < nodes; s++) {
		uint32_t n = 0;

		if (lc_seg_read_traffic(job, s, t, sizeof t / sizeof t[0], &n) != 0)
			continue;
		for (uint32_t d = 0; d < n; d++) {
			char l[32];

			if (!t[d * LC_TRAFFIC_COUNT + LC_TRAFFIC_frames])
				continue;
			if (!header) {
				printf("# traffic matrix: what each node's NIC put on the link to each\n%-12s", "src->dst");
				for (int k = 0; k < LC_TRAFFIC_COUNT; k++)
					printf("  %14s", name[k]);
				printf("\n");
				header = 1;
			}
			snprintf(l, sizeof l, "%u->%u", s, d);
			printf("%-12s", l);
			for (int k = 0; k < LC_TRAFFIC_COUNT; k++)
				printf("  %14llu", (unsigned long long)t[d * LC_TRAFFIC_COUNT + k]);
			printf("\n");
		}
	}
}

/*
 * The sizes of the messages each node sent (nic.h, lc_seg_read_sizes), with
 * the traffic matrix: the histogram of a job's profile (tools/costmodel/advise.py).
 */
static void lc_run_print_sizes(const char *job, uint32_t nodes)
{
	uint64_t h[LC_SIZE_BUCKETS * 2];
	int header = 0;

	for (uint32_t s = 0; s < nodes; s++) {
		if (lc_seg_read_sizes(job, s, h) != 0)
			continue;
		for (uint32_t b = 0; b < LC_SIZE_BUCKETS; b++) {
			unsigned long long lo = b < 2 ? b : (1ull << (b - 2)) + 1, hi = b < 2 ? b : 1ull << (b - 1);
			char r[48];

			if (!h[2 * b])
				continue;
			if (!header) {
				printf("# message sizes: the data messages each node sent, by size in bytes\n");
				printf("%-6s  %-22s  %14s  %14s\n", "node", "sizes", "msgs", "bytes");
				header = 1;
			}
			if (lo == hi)
				snprintf(r, sizeof r, "%llu", lo);
			else
				snprintf(r, sizeof r, "%llu-%llu", lo, hi);
			printf("%-6u  %-22s  %14llu  %14llu\n", s, r, (unsigned long long)h[2 * b],
			       (unsigned long long)h[2 * b + 1]);
		}
	}
}

/*
 * The switch ports a frame crossed (nic/net.c topology): what each leads to,
 * its frames, bytes and stalls -- where the endpoints of a NIC (--per-node)
 * or the NICs of a leaf share a link.  On a timed network also the time
 * frames' heads waited there for the link (wormhole contention: "wait ms")
 * and the time the link carried frames ("busy ms"): where a placement loses
 * its time.  Ports no frame crossed are left out.
 */
static void lc_run_print_ports(const char *job)
{
	static struct lc_seg_port p[LC_MAX_NODES * 2 + 256];
	uint16_t place[LC_MAX_NODES], in_slot[LC_MAX_NODES];
	struct lc_nic_geom g;
	uint32_t n = 0, sw, P, per_leaf;
	int timed;

	if (lc_seg_read_ports(job, &g, p, sizeof p / sizeof p[0], &n, place) != 0 || n == 0)
		return;
	timed = g.link_mbps || g.hop_ns;
	for (uint32_t i = 0; i < lc_geom_nics(&g); i++)
		in_slot[place[i]] = (uint16_t)i;        /* a permutation: lc_seg_set_place checked it */
	sw = n / g.switch_ports;
	P = g.switch_ports;
	per_leaf = sw == 1 ? P : P - 1;
	printf("# switch output ports: %u switch%s of %u ports, %u NIC%s of %u endpoint%s\n", sw,
	       sw == 1 ? "" : "es", P, lc_geom_nics(&g), lc_geom_nics(&g) == 1 ? "" : "s", g.per_nic,
	       g.per_nic == 1 ? "" : "s");
	printf("%-8s  %-22s  %12s  %14s  %10s", "port", "leads to", "frames", "bytes", "stalls");
	printf(timed ? "  %10s  %10s\n" : "\n", "wait ms", "busy ms");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = i / P, q = i % P, slot = s * per_leaf + q, nic = slot < lc_geom_nics(&g) ? in_slot[slot] : slot;
		char at[32], to[64];

		if (!p[i].frames && !p[i].stalls)
			continue;
		if (sw > 1 && s == sw - 1)
			snprintf(to, sizeof to, "leaf %u", q);
		else if (sw > 1 && q == P - 1)
			snprintf(to, sizeof to, "root");
		else if (g.per_nic == 1)
			snprintf(to, sizeof to, "NIC %u (node %u)", nic, nic);
		else
			snprintf(to, sizeof to, "NIC %u (nodes %u-%u)", nic, nic * g.per_nic,
				 (nic + 1) * g.per_nic - 1 < g.nodes ? (nic + 1) * g.per_nic - 1 : g.nodes - 1);
		snprintf(at, sizeof at, "%u.%u", s, q);
		printf("%-8s  %-22s  %12llu  %14llu  %10llu", at, to, (unsigned long long)p[i].frames,
		       (unsigned long long)p[i].bytes, (unsigned long long)p[i].stalls);
		if (timed)
			printf("  %10.1f  %10.1f", p[i].wait_ns / 1e6, p[i].busy_ns / 1e6);
		printf("\n");
	}
}

/* Every counter of every node, read from the segment after the nodes ended ("-": unreadable). */
void lc_run_print_stats(const char *job, uint32_t nodes)
{
	enum { COLS = 8 };
	static uint64_t nic[LC_MAX_NODES][LC_NIC_STAT_COUNT];
	static uint64_t host[LC_MAX_NODES][LC_HOST_STATS_MAX];
	static int ok[LC_MAX_NODES];
	int width = 0;

	_Static_assert(LC_STAT_COUNT - LC_NIC_STAT_COUNT <= LC_HOST_STATS_MAX,
		       "pipeline counters must fit the host counter area");
	for (uint32_t i = 0; i < nodes; i++) {
		char err[256];
		int rc = lc_seg_read_stats(job, i, nic[i], host[i]);
		ok[i] = rc == 0;
		if (ok[i])
			lc_stats_derive(host[i]);
		if (rc != 0) {
			snprintf(err, sizeof err, "%s", lc_strerror(rc));
			lc_run_msg("--stats: cannot read the counters of node %u: %s", i, err);
		}
	}
	for (int k = 0; k < LC_STAT_COUNT; k++) {
		const char *name = lc_stat_name(k);
		int w = name ? (int)strlen(name) : 0;
		if (w > width)
			width = w;
	}
	printf("# commrun --stats: job %s, %u node%s, config %s\n", job, nodes,
	       nodes == 1 ? "" : "s", lc_config_name());
	for (uint32_t c0 = 0; c0 < nodes; c0 += COLS) {
		uint32_t c1 = c0 + COLS < nodes ? c0 + COLS : nodes;
		printf("%-*s", width, "counter");
		for (uint32_t i = c0; i < c1; i++) {
			char h[16];
			snprintf(h, sizeof h, "node %u", i);
			printf("  %14s", h);
		}
		printf("\n");
		for (int k = 0; k < LC_STAT_COUNT; k++) {
			const char *name = lc_stat_name(k);
			/* pipeline counters first (host area, indexed by lc_stat), then the NIC's */
			int pipe = k < LC_STAT_COUNT - LC_NIC_STAT_COUNT;
			printf("%-*s", width, name ? name : "?");
			for (uint32_t i = c0; i < c1; i++) {
				if (!ok[i]) {
					printf("  %14s", "-");
					continue;
				}
				uint64_t v = pipe ? host[i][k] : nic[i][k - (LC_STAT_COUNT - LC_NIC_STAT_COUNT)];
				printf("  %14llu", (unsigned long long)v);
			}
			printf("\n");
		}
		if (c1 < nodes)
			printf("\n");
	}
	lc_run_print_traffic(job, nodes);
	lc_run_print_sizes(job, nodes);
	lc_run_print_ports(job);
	lc_run_print_faults(job, nodes);
	fflush(stdout);
}

