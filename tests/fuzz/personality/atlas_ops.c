/* SPDX-License-Identifier: MIT */
/* The ATLAS script: the factory's parameters, nodes, buffers, groups, sends and receives to itself. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atlas.h"
#include "fuzz_personality.h"

/*
 * A session: atlas_factory_init with parameters from the input (each
 * default, at a bound, or one beyond: ATLAS_ERR_PARAM), else
 * atlas_factory_get; then one call per opcode; then the drain (every
 * message received, every buffer released, the groups destroyed) and the
 * factory's last release.  The job has one node, so node 0 (the factory's
 * own, as loopback) is the only peer: other ids are ATLAS_ERR_RANGE, static
 * groups "all" and "0" hold it, "others" nothing.  Sends take the buffer
 * (ATLAS_ERR_AGAIN leaves it, unchanged, to the caller); receives return
 * the oldest message sent, whole, in a buffer the caller releases.  The
 * pool's size is kept within 64 MiB (the harness's, not the library's,
 * limit: a sanitizer refuses larger allocations outright).
 */

#define FZ_BUFS 8
#define FZ_GROUPS 4
#define FZ_MSGS 64

static const size_t fz_sizes[] = { 0, 1, 7, 100, 8192, 8193, 65536, 300000 };
static const int fz_ids[] = { 0, 0, 1, -1, 255, 256, INT_MAX, INT_MIN };

static struct {
	atlas_factory *f;
	int refs;
	atlas_params p;
	struct { atlas_buffer *b; size_t size; uint32_t seed; } buf[FZ_BUFS];
	struct { atlas_group *g; int is_static, n; } grp[FZ_GROUPS];
	struct { size_t size; uint32_t seed; } msg[FZ_MSGS];   /* sent to node 0, oldest first */
	int nmsg;
	atlas_node *self;
	uint32_t seed;
} a;

static void fz_rc(const char *call, int got, int want)
{
	if (got != want)
		fz_fail("%s: %d (%s), expected %d (%s); %s", call, got, atlas_strerror(got), want,
			atlas_strerror(want), atlas_last_error());
}

/* A received buffer: the oldest message's size and bytes; released. */
static void fz_got(const char *call, atlas_buffer *b)
{
	if (!b)
		fz_fail("%s: no buffer", call);
	if (a.nmsg == 0)
		fz_fail("%s: a message that was never sent", call);
	size_t size = atlas_buffer_size(b);
	const uint8_t *d = atlas_buffer_data(b);
	if (size != a.msg[0].size || (size && (!d || fz_check(d, size, a.msg[0].seed) != size)))
		fz_fail("%s: %zu bytes, the oldest message had %zu (or its bytes differ)", call, size,
			a.msg[0].size);
	memmove(&a.msg[0], &a.msg[1], (size_t)(a.nmsg - 1) * sizeof a.msg[0]);
	a.nmsg--;
	fz_rc("atlas_buffer_release", atlas_buffer_release(b), ATLAS_OK);
}

/* One of our buffers (its index), or -1. */
static int fz_buf(struct fz_in *in)
{
	int k = (int)(fz_byte(in) % FZ_BUFS);
	return a.buf[k].b ? k : -1;
}

static void op_buffer(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	size_t size = fz_sizes[fz_byte(in) % FZ_N(fz_sizes)];
	int k = fz_buf(in);

	switch (how % 4) {
	case 0: {
		int s;
		for (s = 0; s < FZ_BUFS && a.buf[s].b; s++)
			;
		if ((how >> 2) % 8 == 0 || s == FZ_BUFS) {
			atlas_buffer *b;
			fz_rc("atlas_factory_create_buffer(NULL)",
			      (how >> 2) & 1 ? atlas_factory_create_buffer(NULL, size, &b)
					     : atlas_factory_create_buffer(a.f, size, NULL), ATLAS_ERR_INVAL);
			return;
		}
		int rc = atlas_factory_create_buffer(a.f, size, &a.buf[s].b);
		if (rc == ATLAS_ERR_AGAIN && a.p.use_send_pool)
			return;         /* the pool's buffers are all ours */
		fz_rc("atlas_factory_create_buffer", rc, ATLAS_OK);
		if (atlas_buffer_size(a.buf[s].b) != size || (size && !atlas_buffer_data(a.buf[s].b)))
			fz_fail("atlas_factory_create_buffer(%zu): size %zu", size,
				atlas_buffer_size(a.buf[s].b));
		a.buf[s].size = size;
		a.buf[s].seed = a.seed++;
		fz_fill(atlas_buffer_data(a.buf[s].b), size, a.buf[s].seed);
		return;
	}
	case 1: {
		if (k < 0) {
			fz_rc("atlas_buffer_resize(NULL)", atlas_buffer_resize(NULL, size), ATLAS_ERR_INVAL);
			return;
		}
		int rc = atlas_buffer_resize(a.buf[k].b, size);
		if (rc == ATLAS_ERR_INVAL && a.p.use_send_pool && size > a.p.send_buffer_size)
			return;         /* a pool buffer does not grow beyond its slot */
		fz_rc("atlas_buffer_resize", rc, ATLAS_OK);
		uint8_t *d = atlas_buffer_data(a.buf[k].b);
		size_t keep = size < a.buf[k].size ? size : a.buf[k].size;
		if (atlas_buffer_size(a.buf[k].b) != size || (keep && fz_check(d, keep, a.buf[k].seed) != keep))
			fz_fail("atlas_buffer_resize(%zu -> %zu): size %zu, or the kept bytes changed",
				a.buf[k].size, size, atlas_buffer_size(a.buf[k].b));
		a.buf[k].size = size;
		fz_fill(d, size, a.buf[k].seed);
		return;
	}
	case 2:
		if (k < 0) {
			fz_rc("atlas_buffer_release(NULL)", atlas_buffer_release(NULL), ATLAS_OK);
			return;
		}
		fz_rc("atlas_buffer_release", atlas_buffer_release(a.buf[k].b), ATLAS_OK);
		a.buf[k].b = NULL;
		return;
	default: {
		/* sent: to node 0, or to a group */
		int gk = (int)(fz_byte(in) % (FZ_GROUPS + 2)) - 2;
		if (k < 0) {
			fz_rc("atlas_node_send(NULL buffer)", atlas_node_send(a.self, NULL), ATLAS_ERR_INVAL);
			return;
		}
		if (a.nmsg >= FZ_MSGS - 1)
			return;
		if (gk < 0 || !a.grp[gk].g) {
			int rc = atlas_node_send(gk == -2 ? NULL : a.self, a.buf[k].b);
			if (gk == -2) {
				fz_rc("atlas_node_send(NULL node)", rc, ATLAS_ERR_INVAL);
				return;
			}
			if (rc == ATLAS_ERR_AGAIN) {
				if (fz_check(atlas_buffer_data(a.buf[k].b), a.buf[k].size, a.buf[k].seed) !=
				    a.buf[k].size)
					fz_fail("atlas_node_send: ATLAS_ERR_AGAIN, and the buffer changed");
				return;
			}
			fz_rc("atlas_node_send", rc, ATLAS_OK);
		} else {
			fz_rc("atlas_group_send", atlas_group_send(a.grp[gk].g, a.buf[k].b), ATLAS_OK);
			if (a.grp[gk].n == 0) {
				a.buf[k].b = NULL;      /* taken, to nobody */
				return;
			}
		}
		a.msg[a.nmsg].size = a.buf[k].size;
		a.msg[a.nmsg++].seed = a.buf[k].seed;
		a.buf[k].b = NULL;
		return;
	}
	}
}

static void op_node(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int id = fz_pick(in, fz_ids, FZ_N(fz_ids));
	atlas_node *n = NULL;
	atlas_buffer *b = NULL;

	switch (how % 4) {
	case 0: {
		int rc = atlas_factory_create_node((how >> 2) & 1 ? NULL : a.f, id, &n);
		fz_rc("atlas_factory_create_node", rc, (how >> 2) & 1 ? ATLAS_ERR_INVAL :
			 id == 0 ? ATLAS_OK : ATLAS_ERR_RANGE);
		if (rc == 0 && (n != a.self || atlas_node_id(n) != 0))
			fz_fail("atlas_factory_create_node(0): another object, or id %d", atlas_node_id(n));
		return;
	}
	case 1: {
		int rc = atlas_node_try_recv((how >> 2) % 8 == 0 ? NULL : a.self, &b);
		if ((how >> 2) % 8 == 0) {
			fz_rc("atlas_node_try_recv(NULL)", rc, ATLAS_ERR_INVAL);
			return;
		}
		if (rc == 1)
			fz_got("atlas_node_try_recv", b);
		else
			fz_rc("atlas_node_try_recv (nothing yet)", rc, 0);
		return;
	}
	case 2:
		if (a.nmsg == 0)
			return;         /* it would wait forever */
		fz_rc("atlas_node_recv", atlas_node_recv(a.self, &b), ATLAS_OK);
		fz_got("atlas_node_recv", b);
		return;
	default:
		if (atlas_node_queued(a.self) < 0 || atlas_node_outstanding(a.self) < 0 ||
		    atlas_node_queued(NULL) != ATLAS_ERR_INVAL || atlas_factory_self(a.f) != 0 ||
		    atlas_factory_size(a.f) != 1)
			fz_fail("atlas_node_queued/outstanding, atlas_factory_self/size: wrong");
		if (atlas_factory_flush(a.f) < 0)      /* buffers still queued or outstanding */
			fz_fail("atlas_factory_flush: %s", atlas_last_error());
		return;
	}
}

static void op_group(struct fz_in *in)
{
	static const char *const names[] = { "all", "others", "0", "0,0", "0-0", "0-3", "1", "x",
					     "", NULL, "0-", "-1", "3-1" };
	static const int members[] = { 1, 0, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1 };
	unsigned how = fz_byte(in);
	int gk = (int)(fz_byte(in) % FZ_GROUPS);
	atlas_group *g = a.grp[gk].g;
	atlas_buffer *b = NULL;
	atlas_node *from = NULL, *list[4];

	switch (how % 6) {
	case 0: {
		if (g)
			return;
		int st = (how >> 3) & 1, w = (int)(fz_byte(in) % FZ_N(names));
		int rc = st ? atlas_factory_create_static_group(a.f, names[w], &g)
			    : atlas_factory_create_group(a.f, &g);
		if (st && members[w] < 0) {
			/* an id outside the job: ATLAS_ERR_RANGE; anything else not a list: ATLAS_ERR_INVAL */
			if (rc != ATLAS_ERR_RANGE && rc != ATLAS_ERR_INVAL)
				fz_fail("atlas_factory_create_static_group(\"%s\"): %d", names[w] ? names[w] :
					"(null)", rc);
			return;
		}
		fz_rc("atlas_factory_create_group", rc, ATLAS_OK);
		a.grp[gk].g = g;
		a.grp[gk].is_static = st;
		a.grp[gk].n = st ? members[w] : 0;
		if (atlas_group_size(g) != a.grp[gk].n || atlas_group_is_static(g) != st)
			fz_fail("a new group: size %d static %d, expected %d %d", atlas_group_size(g),
				atlas_group_is_static(g), a.grp[gk].n, st);
		return;
	}
	case 1:
	case 2: {
		int add = how % 6 == 1;
		if (!g) {
			fz_rc("atlas_group_add/remove(NULL)", add ? atlas_group_add(NULL, a.self) :
			      atlas_group_remove(NULL, a.self), ATLAS_ERR_INVAL);
			return;
		}
		int want = a.grp[gk].is_static ? ATLAS_ERR_STATIC :
			   add == a.grp[gk].n ? ATLAS_ERR_MEMBER : ATLAS_OK;
		fz_rc(add ? "atlas_group_add" : "atlas_group_remove",
		      add ? atlas_group_add(g, a.self) : atlas_group_remove(g, a.self), want);
		if (!want)
			a.grp[gk].n = add;
		return;
	}
	case 3:
		if (!g)
			return;
		if (atlas_group_size(g) != a.grp[gk].n ||
		    atlas_group_members(g, list, (int)((how >> 3) % 3)) != a.grp[gk].n)
			fz_fail("atlas_group_size/members: not the %d members", a.grp[gk].n);
		return;
	case 4: {
		if (!g) {
			fz_rc("atlas_group_try_recv(NULL)", atlas_group_try_recv(NULL, &b, &from),
			      ATLAS_ERR_INVAL);
			return;
		}
		int blocking = (how >> 3) & 1;
		if (blocking && (a.nmsg == 0 || a.grp[gk].n == 0))
			return;         /* it would wait forever */
		int rc = blocking ? atlas_group_recv(g, &b, (how >> 4) & 1 ? NULL : &from)
				  : atlas_group_try_recv(g, &b, (how >> 4) & 1 ? NULL : &from);
		if (rc == (blocking ? 0 : 1)) {
			if (a.grp[gk].n == 0)
				fz_fail("a group without members received");
			if (!((how >> 4) & 1) && from != a.self)
				fz_fail("atlas_group_recv: from another node");
			fz_got("atlas_group_recv", b);
		} else {
			fz_rc("atlas_group_try_recv (nothing yet)", rc, 0);
		}
		return;
	}
	default:
		if (!g) {
			fz_rc("atlas_group_destroy(NULL)", atlas_group_destroy(NULL), ATLAS_ERR_INVAL);
			return;
		}
		fz_rc("atlas_group_destroy", atlas_group_destroy(g), ATLAS_OK);
		a.grp[gk].g = NULL;
		return;
	}
}

static void op_misc(struct fz_in *in)
{
	atlas_params p;
	atlas_factory *f2 = NULL;
	int e = (int)fz_u32(in) % 20;

	if (!atlas_strerror(e) || !atlas_last_error())
		fz_fail("atlas_strerror(%d) or atlas_last_error gave nothing", e);
	fz_rc("atlas_factory_params", atlas_factory_params(a.f, &p), ATLAS_OK);
	if (memcmp(&p, &a.p, sizeof p) != 0)
		fz_fail("atlas_factory_params: not the parameters given");
	fz_rc("atlas_factory_params(NULL)", atlas_factory_params(a.f, NULL), ATLAS_ERR_INVAL);
	fz_rc("atlas_factory_init (again)", atlas_factory_init(NULL, &f2), ATLAS_ERR_BUSY);
	if (fz_byte(in) & 1) {
		fz_rc("atlas_factory_get", atlas_factory_get(&f2), ATLAS_OK);
		if (f2 != a.f)
			fz_fail("atlas_factory_get: another factory");
		a.refs++;
	} else if (a.refs > 1) {
		fz_rc("atlas_factory_release", atlas_factory_release(a.f), ATLAS_OK);
		a.refs--;
	}
}

/* Parameter k (enum order of ATLAS_PARAM_LIST): the default, a bound, or one past it. */
static unsigned fz_param(struct fz_in *in, unsigned def, unsigned lo, unsigned hi, int *bad)
{
	switch (fz_byte(in) % 8) {
	case 1: return lo;
	case 2: return hi;
	case 3: *bad = 1; return lo - 1;
	case 4: *bad |= hi != UINT_MAX; return hi + 1;
	case 5: return lo + (def - lo) / 2;
	default: return def;
	}
}

void fz_atlas(struct fz_in *in)
{
	static void (*const ops[])(struct fz_in *) = { op_buffer, op_buffer, op_buffer, op_node,
						       op_node, op_group, op_misc };
	int bad = 0, how = (int)fz_byte(in) % 4;
	atlas_factory *f = NULL;

	memset(&a, 0, sizeof a);
	atlas_params_default(&a.p);
	if (how) {
#define FZ_X_PARAM(name, def, lo, hi, ...) \
		a.p.name = fz_param(in, (unsigned)(def), (unsigned)(lo), (unsigned)(hi), &bad);
		ATLAS_PARAM_LIST(FZ_X_PARAM)
#undef FZ_X_PARAM
	}
	if (a.p.use_send_pool == 1 && !bad &&
	    (unsigned long long)a.p.send_buffer_no * a.p.send_buffer_size > (64ull << 20))
		a.p.send_buffer_no = 1;         /* the harness's limit (see above) */
	if (how == 3) {
		fz_rc("atlas_factory_init(NULL params)", atlas_factory_init(NULL, &f), ATLAS_OK);
		atlas_params_default(&a.p);
	} else if (how) {
		int rc = atlas_factory_init(&a.p, &f);
		fz_rc("atlas_factory_init", rc, bad ? ATLAS_ERR_PARAM : ATLAS_OK);
		if (bad) {
			fz_rc("atlas_factory_get", atlas_factory_get(&f), ATLAS_OK);
			atlas_params_default(&a.p);
		}
	} else {
		fz_rc("atlas_factory_get", atlas_factory_get(&f), ATLAS_OK);
	}
	a.f = f;
	a.refs = 1;
	fz_rc("atlas_factory_create_node", atlas_factory_create_node(a.f, 0, &a.self), ATLAS_OK);
	for (int n = 0; fz_more(in) && n < 200; n++)
		ops[fz_byte(in) % FZ_N(ops)](in);
	/* the drain */
	while (a.nmsg > 0) {
		atlas_buffer *b = NULL;
		fz_rc("atlas_node_recv (drain)", atlas_node_recv(a.self, &b), ATLAS_OK);
		fz_got("atlas_node_recv (drain)", b);
	}
	for (int k = 0; k < FZ_BUFS; k++)
		if (a.buf[k].b)
			fz_rc("atlas_buffer_release", atlas_buffer_release(a.buf[k].b), ATLAS_OK);
	for (int k = 0; k < FZ_GROUPS; k++)
		if (a.grp[k].g)
			fz_rc("atlas_group_destroy", atlas_group_destroy(a.grp[k].g), ATLAS_OK);
	while (a.refs-- > 0)
		fz_rc("atlas_factory_release", atlas_factory_release(a.f), ATLAS_OK);
	fz_rc("atlas_factory_release (released)", atlas_factory_release(a.f), ATLAS_ERR_CLOSED);
}
