/* SPDX-License-Identifier: MIT */
/* dynamic_mtu: per-peer frame sizes, the decision of each window, the public API. */
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "node.h"
#include "lc_composite_host.h"

#define LC_DMTU_MAX (LC_DYNAMIC_MTU_MAX ? (uint32_t)LC_DYNAMIC_MTU_MAX : (uint32_t)LC_MTU)
#define LC_DMTU_AGE 32u         /* windows after which a size's measurement is predicted again */
#define LC_DMTU_AGE_MAX 4096u   /* the longest, for a size moved back from again and again */
#define LC_DMTU_ONE 1024u       /* fixed point of the resends per frame */
#define LC_DMTU_KEEP 0.95       /* another size must cost 5 % less than the current one */

/*
 * The sizes a peer steps through -- max, max/2, ... while above min, then min
 * -- into size[]; returns how many.  One ladder for init and
 * lc_dynamic_mtu_bounds, which has no node.
 */
static unsigned lc_dmtu_ladder(uint32_t size[LC_DYNAMIC_MTU_LEVELS])
{
	uint32_t m = LC_DMTU_MAX;
	unsigned n = 0;

	while (n < LC_DYNAMIC_MTU_LEVELS - 1 && m > (uint32_t)LC_DYNAMIC_MTU_MIN) {
		size[n++] = m;
		m /= 2;
	}
	size[n++] = (uint32_t)LC_DYNAMIC_MTU_MIN;
	return n;
}

/* The level of the largest size not above bytes (the last level when none is). */
static uint8_t lc_dmtu_level_at_most(const uint32_t *size, unsigned levels, uint32_t bytes)
{
	unsigned l = 0;

	while (l + 1u < levels && size[l] > bytes)
		l++;
	return (uint8_t)l;
}

/* The level a peer starts at: dynamic_mtu.start (0: max). */
static uint8_t lc_dmtu_start(const uint32_t *size, unsigned levels)
{
	return LC_DYNAMIC_MTU_START ? lc_dmtu_level_at_most(size, levels, (uint32_t)LC_DYNAMIC_MTU_START) : 0;
}

int lc_dynamic_mtu_init(struct lc_node *node)
{
	struct lc_dynamic_mtu_state *st = &node->proto.dynamic_mtu;
	uint8_t start;

	memset(st, 0, sizeof *st);
	st->levels = (uint8_t)lc_dmtu_ladder(st->size);
	start = lc_dmtu_start(st->size, st->levels);
	for (uint32_t i = 0; i < lc_node_size(node); i++) {
		struct lc_dynamic_mtu_peer *p = &st->peer[i];

		p->level = start;
		p->frame = st->size[start];
		p->fixed = !LC_DYNAMIC_MTU_ADAPT_ON;
		p->came = LC_DYNAMIC_MTU_LEVELS;
	}
	return 0;
}

/*
 * The link's loss model, r(m) = a + b (h + m) resends per frame of m payload
 * bytes (h: the header): a part per frame and a part per byte on the wire.
 * Fitted through the current size's measurement and the latest other one
 * (both within LC_DMTU_AGE windows); with only the current one, all of it
 * per byte (a = 0).
 */
struct lc_dmtu_model {
	double a, b;
};

static int lc_dmtu_recent(const struct lc_dynamic_mtu_peer *p, unsigned j)
{
	return p->seen[j] && p->windows - p->seen[j] < (p->age[j] ? p->age[j] : LC_DMTU_AGE);
}

static double lc_dmtu_wire(const struct lc_dynamic_mtu_state *st, unsigned j)
{
	return (double)sizeof(struct lc_frame_hdr) + st->size[j];
}

static struct lc_dmtu_model lc_dmtu_fit(const struct lc_dynamic_mtu_state *st, const struct lc_dynamic_mtu_peer *p,
					unsigned i)
{
	double ri = (double)p->loss[i] / LC_DMTU_ONE, wi = lc_dmtu_wire(st, i);
	struct lc_dmtu_model m = { 0.0, ri / wi };
	unsigned k = i;

	for (unsigned j = 0; j < st->levels; j++)
		if (j != i && lc_dmtu_recent(p, j) && (k == i || p->seen[j] > p->seen[k]))
			k = j;
	if (k != i) {
		double rk = (double)p->loss[k] / LC_DMTU_ONE, wk = lc_dmtu_wire(st, k);

		m.b = (ri - rk) / (wi - wk);
		if (m.b < 0.0)
			m.b = 0.0;              /* losses that do not grow with the frame: per frame */
		m.a = ri - m.b * wi;
		if (m.a < 0.0) {
			m.a = 0.0;
			m.b = ri / wi;
		}
	}
	return m;
}

/* resends per frame at level j: measured lately, or the model's */
static double lc_dmtu_loss(const struct lc_dynamic_mtu_state *st, const struct lc_dynamic_mtu_peer *p,
			   const struct lc_dmtu_model *m, unsigned j)
{
	if (lc_dmtu_recent(p, j))
		return (double)p->loss[j] / LC_DMTU_ONE;
	return m->a + m->b * lc_dmtu_wire(st, j);
}

/* cost per payload byte of frames of m bytes with r resends per frame (hooks.h) */
static double lc_dmtu_cost(double m, double r)
{
	double f = (double)LC_DYNAMIC_MTU_FRAME_COST + m;

	return (f + r * (f + (double)LC_DYNAMIC_MTU_RESEND_COST)) / m;
}

/* level j's cost per byte: its resends measured lately, or the model's */
static double lc_dmtu_level_cost(const struct lc_dynamic_mtu_state *st, const struct lc_dynamic_mtu_peer *p,
				 const struct lc_dmtu_model *model, unsigned j)
{
	return lc_dmtu_cost(st->size[j], lc_dmtu_loss(st, p, model, j));
}

void lc_dynamic_mtu_weigh(struct lc_node *node, uint32_t d)
{
	struct lc_dynamic_mtu_state *st = &node->proto.dynamic_mtu;
	struct lc_dynamic_mtu_peer *p = &st->peer[d];
	uint32_t resent = lc_proto_resent(node, d), r, i = p->level, best;
	struct lc_dmtu_model model;
	double c_i, c_best;
	int storm;

	r = (uint32_t)((uint64_t)(resent - p->resent0) * LC_DMTU_ONE / (p->sent ? p->sent : 1));
	p->resent0 = resent;
	p->sent = 0;
	p->windows++;
	LC_STAT_ADD(node, mtu_windows, 1);
	if (p->fixed)
		return;
	if (p->settle) {
		/* the window after a change: its resends are mostly the old size's */
		p->settle = 0;
		return;
	}
	/* the average of this window and the last measurement at this size, if recent */
	p->loss[i] = lc_dmtu_recent(p, i) ? (p->loss[i] + r) / 2 : r;
	p->seen[i] = p->windows;
	/*
	 * Every size is weighed by the cost function of its resends per frame:
	 * measured lately, or the loss model's.  Not by the window's time: a
	 * busy machine's scheduling makes a window take what it takes whatever
	 * the size (measured: under a CPU-bound process beside it, the size a
	 * link with bit errors settled at varied from 1 to 8 KiB between runs),
	 * while the resends per frame are the link's.
	 */
	model = lc_dmtu_fit(st, p, i);
	c_i = lc_dmtu_level_cost(st, p, &model, i);
	best = i;
	c_best = c_i * LC_DMTU_KEEP;
	/*
	 * A storm -- a resend for every frame sent, the model's per-byte part of
	 * them the larger -- halves the size at once: with go-back-N and a timer
	 * that backs off, a storm's resends are the backlog's, whatever the
	 * size, and waiting for a clean measurement there costs more than a size
	 * too small
	 */
	storm = r >= LC_DMTU_ONE && model.b * lc_dmtu_wire(st, i) >= model.a;
	if (storm && i + 1u < st->levels)
		best = i + 1u, c_best = 0.0;
	for (uint32_t j = 0; j < st->levels && c_best > 0.0; j++) {
		double c = lc_dmtu_level_cost(st, p, &model, j);

		if (j != i && c < c_best) {
			c_best = c;
			best = j;
		}
	}
	/*
	 * up one step at a time (a size too large may collapse the link before it is
	 * weighed), and only if that step is itself cheaper; down at once
	 */
	if (best + 1u < i)
		best = lc_dmtu_level_cost(st, p, &model, i - 1u) < c_i * LC_DMTU_KEEP ? i - 1u : i;
	if (p->came < st->levels || storm) {
		/*
		 * the first measurement after a move, or a storm: a size found dearer than
		 * the one it was tried from, or storming, is tried again only after twice
		 * as many windows (a link whose resends collapse above some size is not
		 * probed into every time its measurement ages); one kept resets to the
		 * default
		 */
		unsigned a = p->age[i] ? p->age[i] : LC_DMTU_AGE;

		p->age[i] = (uint16_t)(storm || best == p->came ? (2 * a < LC_DMTU_AGE_MAX ? 2 * a : LC_DMTU_AGE_MAX) : 0);
		p->came = LC_DYNAMIC_MTU_LEVELS;
	}
	if (best != i) {
		p->came = (uint8_t)i;
		p->settle = 1;
		p->level = (uint8_t)best;
		p->frame = st->size[best];
		LC_STAT_ADD(node, mtu_changes, 1);
	}
}

int lc_dynamic_mtu_set(lc_node *node, int peer, size_t bytes)
{
	struct lc_dynamic_mtu_state *st;
	uint32_t lo, hi;
	int rc = lc_peer_args(node, peer, "lc_dynamic_mtu_set");

	if (rc)
		return rc;
	if (bytes && (bytes < (size_t)LC_DYNAMIC_MTU_MIN || bytes > (size_t)LC_DMTU_MAX))
		return lc_fail(LC_ERR_INVAL, "lc_dynamic_mtu_set: %zu bytes outside dynamic_mtu.min .. max "
			       "(%u .. %u)", bytes, (unsigned)LC_DYNAMIC_MTU_MIN, (unsigned)LC_DMTU_MAX);
	if ((rc = lc_lock_open(node, "lc_dynamic_mtu_set")))
		return rc;
	st = &node->proto.dynamic_mtu;
	lo = peer == LC_ANY_SOURCE ? 0 : (uint32_t)peer;
	hi = peer == LC_ANY_SOURCE ? lc_node_size(node) : lo + 1;
	for (uint32_t d = lo; d < hi; d++) {
		struct lc_dynamic_mtu_peer *p = &st->peer[d];

		p->fixed = bytes != 0;
		if (!bytes)
			continue;
		if (p->frame != (uint32_t)bytes)
			LC_STAT_ADD(node, mtu_changes, 1);
		p->frame = (uint32_t)bytes;
		/* adaptation resumes from the level nearest at or below it */
		p->level = lc_dmtu_level_at_most(st->size, st->levels, p->frame);
	}
	lc_unlock(node);
	return 0;
}

int lc_dynamic_mtu_get(lc_node *node, int peer, size_t *bytes, int *fixed)
{
	int rc = lc_peer_args(node, peer, "lc_dynamic_mtu_get");

	if (rc)
		return rc;
	if (!bytes || peer == LC_ANY_SOURCE)
		return lc_fail(LC_ERR_INVAL, "lc_dynamic_mtu_get: %s", bytes ? "peer must be one node" : "bytes is NULL");
	if ((rc = lc_lock_open(node, "lc_dynamic_mtu_get")))
		return rc;
	*bytes = node->proto.dynamic_mtu.peer[peer].frame;
	if (fixed)
		*fixed = node->proto.dynamic_mtu.peer[peer].fixed;
	lc_unlock(node);
	return 0;
}

void lc_dynamic_mtu_bounds(size_t *min, size_t *start, size_t *max)
{
	uint32_t size[LC_DYNAMIC_MTU_LEVELS];
	unsigned levels = lc_dmtu_ladder(size);

	if (min)
		*min = (size_t)LC_DYNAMIC_MTU_MIN;
	if (max)
		*max = (size_t)size[0];
	if (start)
		*start = (size_t)size[lc_dmtu_start(size, levels)];
}
