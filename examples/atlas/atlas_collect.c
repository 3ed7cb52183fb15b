/* SPDX-License-Identifier: MIT */
/* ATLAS data collection in C: sources send event fragments, one collector receives them from a group and checks each. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atlas.h"

/*
 * Usage: commrun -n N atlas_collect [events]       (N >= 2, events 1000)
 * Nodes 1 .. N-1 are the read-out sources: for each event they send one
 * fragment (a header and a payload whose size and bytes depend on the
 * event and the source) to node 0.  Node 0, the collector, receives from
 * the static group "others" (fair rotating start), checks every fragment
 * and that each source's events arrive in order, counts complete events,
 * then tells every source "done" with one group send.
 */

struct frag {
	uint32_t event;
	uint32_t source;
	uint32_t len;           /* payload bytes after the header */
};

static uint32_t frag_len(uint32_t event, uint32_t source)
{
	return 16 + (event * 97u + source * 389u) % 2000u;
}

static unsigned char frag_byte(uint32_t event, uint32_t source, uint32_t i)
{
	return (unsigned char)(event * 13u + source * 101u + i);
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "FAIL atlas_collect: %s: %s [%s]\n", what, atlas_strerror(rc),
		atlas_last_error());
	return 1;
}

static int source(atlas_factory *f, int me, uint32_t events)
{
	atlas_node *collector;
	atlas_buffer *b;
	int rc = atlas_factory_create_node(f, 0, &collector);
	if (rc)
		return fail("create_node", rc);
	for (uint32_t e = 0; e < events; e++) {
		struct frag h = { e, (uint32_t)me, frag_len(e, (uint32_t)me) };
		if ((rc = atlas_factory_create_buffer(f, sizeof h + h.len, &b)) != 0)
			return fail("create_buffer", rc);
		unsigned char *d = atlas_buffer_data(b);
		memcpy(d, &h, sizeof h);
		for (uint32_t i = 0; i < h.len; i++)
			d[sizeof h + i] = frag_byte(e, h.source, i);
		/* non-blocking; a full send queue pushes back: the buffer stays ours, retry */
		while ((rc = atlas_node_send(collector, b)) == ATLAS_ERR_AGAIN)
			sched_yield();
		if (rc)
			return fail("send", rc);
	}
	if ((rc = atlas_node_recv(collector, &b)) != 0)
		return fail("recv done", rc);
	atlas_buffer_release(b);
	printf("atlas_collect ok: source %d sent %u fragments\n", me, events);
	return 0;
}

static int collector(atlas_factory *f, int nodes, uint32_t events)
{
	atlas_group *g;
	int rc = atlas_factory_create_static_group(f, "others", &g);
	if (rc)
		return fail("static group others", rc);
	uint32_t *next = calloc((size_t)nodes, sizeof *next);       /* per source: next event */
	uint32_t *seen = calloc(events, sizeof *seen);             /* per event: fragments */
	uint32_t complete = 0, total = events * (uint32_t)(nodes - 1);
	for (uint32_t k = 0; k < total; k++) {
		atlas_buffer *b;
		atlas_node *from;
		if ((rc = atlas_group_recv(g, &b, &from)) != 0)
			return fail("group recv", rc);
		const unsigned char *d = atlas_buffer_data(b);
		struct frag h;
		int src = atlas_node_id(from);
		memcpy(&h, d, sizeof h);
		int ok = atlas_buffer_size(b) == sizeof h + h.len && h.source == (uint32_t)src &&
			 h.event == next[src] && h.len == frag_len(h.event, h.source);
		for (uint32_t i = 0; ok && i < h.len; i++)
			ok = d[sizeof h + i] == frag_byte(h.event, h.source, i);
		if (!ok) {
			fprintf(stderr, "FAIL atlas_collect: fragment %u from node %d: event %u "
				"(expected %u), %zu bytes\n", k, src, h.event, next[src],
				atlas_buffer_size(b));
			return 1;
		}
		next[src]++;
		complete += ++seen[h.event] == (uint32_t)(nodes - 1);
		atlas_buffer_release(b);
	}
	atlas_buffer *done;
	if ((rc = atlas_factory_create_buffer(f, 4, &done)) != 0 ||
	    (rc = atlas_group_send(g, done)) != 0)
		return fail("group send done", rc);
	printf("atlas_collect ok: collector built %u of %u events from %d sources, every "
	       "fragment checked\n", complete, events, nodes - 1);
	free(next);
	free(seen);
	return complete == events ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint32_t events = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000;
	atlas_factory *f;
	int rc = atlas_factory_get(&f);
	if (rc)
		return fail("atlas_factory_get", rc);
	int me = atlas_factory_self(f), nodes = atlas_factory_size(f);
	if (nodes < 2 || events == 0) {
		fprintf(stderr, "usage: commrun -n N atlas_collect [events]   (N >= 2)\n");
		return 2;
	}
	rc = me == 0 ? collector(f, nodes, events) : source(f, me, events);
	int rrc = atlas_factory_release(f);
	return rc ? rc : rrc ? fail("atlas_factory_release", rrc) : 0;
}
