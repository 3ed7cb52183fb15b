/* SPDX-License-Identifier: MIT */
/* The fault injector: spec parsing, per-link PRNG and the faults Net-Send applies (see faults.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "nic_impl.h"

/*
 * Per-link state, private to the sending NIC's Net-Send engine (lc_net_put
 * and lc_faults_step both run in Net-Send, nic_impl.h).  The decision is per
 * link, not per Send Ring slot: a group frame (nic/mcast.c) is one slot
 * put on several links, and each copy draws its own faults on its own link.
 */
struct lc_fault_link {
	uint64_t s[4];          /* xoshiro256** state */
	uint8_t *held;          /* a reordered frame (slot_bytes), or NULL */
	uint32_t held_bytes;
	uint64_t held_ns;       /* when it was held back */
	/* a reordered frame that met a held one: it is held once the held one went in its place */
	const struct lc_frame_hdr *swap;
	uint32_t swap_bytes;
	/* the decision for the frame at send_tail == tail on this link (drawn once, kept while it stalls) */
	uint32_t tail;
	int valid;
	int drop, corrupt, dup, reorder;
	uint64_t release_ns;    /* delay: the frame may go at this time */
};

struct lc_fault_state {
	struct lc_fault_cfg cfg;
	uint32_t held_n;        /* links holding a frame */
	struct lc_fault_link link[];
};

/* ---- PRNG: splitmix64 seeds xoshiro256** (Blackman, Vigna) ---- */

static uint64_t lc_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t lc_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t lc_fault_next(struct lc_fault_link *l)
{
	uint64_t *s = l->s, r = lc_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = lc_rotl(s[3], 45);
	return r;
}

/* 1 with probability p32 / 2^32 (one draw whatever p32 is, so the sequence stays aligned). */
static int lc_fault_hit(struct lc_fault_link *l, uint64_t p32)
{
	return (lc_fault_next(l) >> 32) < p32;
}

/*
 * The probability that a frame of `bytes` bytes has at least one of its bits
 * flipped at bit error rate ber: 1 - (1 - ber)^(8 bytes), the power by
 * squaring (libcomm links no libm).
 */
static double lc_fault_frame_p(double ber, uint32_t bytes)
{
	double keep = 1.0, b = 1.0 - ber;

	for (uint64_t n = (uint64_t)bytes * 8; n; n >>= 1, b *= b)
		if (n & 1)
			keep *= b;
	return 1.0 - keep;
}

/* ---- spec ---- */

static const char *const lc_fault_names[] = {
#define LC_X_NAME(name, ...) [LC_FAULT_##name] = #name,
	LC_FAULT_LIST(LC_X_NAME)
#undef LC_X_NAME
};
_Static_assert(sizeof(lc_fault_names) / sizeof(lc_fault_names[0]) == LC_FAULT_COUNT,
	       "one name per fault");

const char *lc_fault_name(int f)
{
	return f >= 0 && f < LC_FAULT_COUNT ? lc_fault_names[f] : NULL;
}

int lc_faults_parse(const char *spec, struct lc_fault_cfg *cfg, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *item;

	if (!spec || !cfg || !err)
		return LC_ERR_INVAL;
	*cfg = (struct lc_fault_cfg){ .seed = 1 };
	if (strlen(spec) >= sizeof buf) {
		snprintf(err, errlen, "fault spec longer than %zu characters", sizeof buf - 1);
		return LC_ERR_INVAL;
	}
	strcpy(buf, spec);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *end;
		int f;

		if (strcmp(item, "none") == 0)
			continue;
		if (!eq) {
			snprintf(err, errlen, "fault spec: '%s' is not key=value", item);
			return LC_ERR_INVAL;
		}
		*eq = '\0';
		errno = 0;
		if (strcmp(item, "ber") == 0) {
			double b = strtod(eq + 1, &end);

			if (errno || end == eq + 1 || *end || !(b >= 0.0 && b <= 1.0)) {
				snprintf(err, errlen, "fault spec: ber=%s: want a bit error rate 0..1", eq + 1);
				return LC_ERR_INVAL;
			}
			cfg->ber = b;
			continue;
		}
		if (strcmp(item, "delay_us") == 0 || strcmp(item, "seed") == 0) {
			unsigned long long v = strtoull(eq + 1, &end, 0);

			if (errno || end == eq + 1 || *end || eq[1] == '-' ||
			    (item[0] == 'd' && v > 10000000ull)) {
				snprintf(err, errlen, "fault spec: %s=%s: want an integer%s", item, eq + 1,
					 item[0] == 'd' ? " 0..10000000" : "");
				return LC_ERR_INVAL;
			}
			if (item[0] == 'd')
				cfg->delay_us = (uint32_t)v;
			else
				cfg->seed = v;
			continue;
		}
		for (f = 0; f < LC_FAULT_COUNT; f++)
			if (f != LC_FAULT_delay && strcmp(item, lc_fault_names[f]) == 0)
				break;
		if (f == LC_FAULT_COUNT) {
			snprintf(err, errlen, "fault spec: unknown key '%s' (drop, corrupt, dup, reorder, "
				 "ber, delay_us, seed)", item);
			return LC_ERR_INVAL;
		}
		double p = strtod(eq + 1, &end);

		if (errno || end == eq + 1 || *end || !(p >= 0.0 && p <= 1.0)) {
			snprintf(err, errlen, "fault spec: %s=%s: want a probability 0..1", item, eq + 1);
			return LC_ERR_INVAL;
		}
		cfg->p32[f] = (uint64_t)(p * 4294967296.0);
	}
	for (int f = 0; f < LC_FAULT_COUNT; f++)
		if (cfg->p32[f])
			cfg->on = 1;
	if (cfg->delay_us || cfg->ber > 0.0)
		cfg->on = 1;
	return 0;
}

/* ---- attach ---- */

int lc_faults_attach(struct lc_nic *nic)
{
	const struct lc_fault_cfg *c = &nic->hdr->faults;
	struct lc_fault_state *fs;

	nic->faults = NULL;
	if (!c->on)
		return 0;
	fs = calloc(1, sizeof(*fs) + sizeof(fs->link[0]) * nic->g.nodes);
	if (!fs)
		return LC_ERR_NOMEM;
	fs->cfg = *c;
	for (uint32_t d = 0; d < nic->g.nodes; d++) {
		uint64_t x = c->seed ^ ((uint64_t)nic->node << 32) ^ d;

		for (int i = 0; i < 4; i++)
			fs->link[d].s[i] = lc_splitmix64(&x);
	}
	nic->faults = fs;
	return 0;
}

void lc_faults_detach(struct lc_nic *nic)
{
	struct lc_fault_state *fs = nic->faults;

	if (!fs)
		return;
	for (uint32_t d = 0; d < nic->g.nodes; d++)
		free(fs->link[d].held);
	free(fs);
	nic->faults = NULL;
}

/* ---- the MCP side: Net-Send ---- */

static void lc_fault_count(struct lc_nic *nic, uint32_t dst, enum lc_fault f)
{
	/* single writer: this NIC's Net-Send; readers (--stats) only need the value eventually */
	lc_count_add(&nic->fault_stats[(size_t)dst * LC_FAULT_COUNT + f], 1);
}

/* Hold back frame (bytes at f) on link dst until the link's next frame, or LC_FAULT_HOLD_NS. */
static void lc_fault_hold(struct lc_nic *nic, uint32_t dst, const struct lc_frame_hdr *f, uint32_t bytes)
{
	struct lc_fault_link *l = &nic->faults->link[dst];

	memcpy(l->held, f, bytes);
	l->held_bytes = bytes;
	l->held_ns = lc_nic_now_ns();
	l->valid = 0;
	lc_fault_count(nic, dst, LC_FAULT_reorder);
}

int lc_faults_tx(struct lc_nic *nic, const struct lc_frame_hdr **frame, uint32_t dst, uint32_t *bytes)
{
	struct lc_fault_state *fs = nic->faults;
	struct lc_fault_link *l = &fs->link[dst];
	uint32_t tail = atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_relaxed);

	l->swap = NULL;
	if (!l->valid || l->tail != tail) {
		uint64_t d = lc_fault_next(l);

		l->valid = 1;
		l->tail = tail;
		l->drop = lc_fault_hit(l, fs->cfg.p32[LC_FAULT_drop]);
		l->corrupt = lc_fault_hit(l, fs->cfg.p32[LC_FAULT_corrupt]);
		l->dup = lc_fault_hit(l, fs->cfg.p32[LC_FAULT_dup]);
		l->reorder = lc_fault_hit(l, fs->cfg.p32[LC_FAULT_reorder]);
		if (fs->cfg.ber > 0.0) {
			/* one more draw per frame, only when a bit error rate is set: the frame's length counts */
			double p = lc_fault_frame_p(fs->cfg.ber, *bytes);

			l->corrupt |= (lc_fault_next(l) >> 11) * 0x1p-53 < p;
		}
		l->release_ns = 0;
		if (fs->cfg.delay_us) {
			uint64_t wait = (d % ((uint64_t)fs->cfg.delay_us + 1)) * 1000u;

			if (wait) {
				l->release_ns = lc_nic_now_ns() + wait;
				lc_fault_count(nic, dst, LC_FAULT_delay);
			}
		}
	}
	if (l->release_ns) {
		if (lc_nic_now_ns() < l->release_ns)
			return -1;
		l->release_ns = 0;
	}
	if (l->drop) {
		l->valid = 0;
		lc_fault_count(nic, dst, LC_FAULT_drop);
		return 0;
	}
	/* a reordered frame with no memory to hold it goes in order */
	if (l->reorder && (l->held || (l->held = malloc(nic->g.slot_bytes)))) {
		if (!l->held_bytes) {
			lc_fault_hold(nic, dst, *frame, *bytes);
			fs->held_n++;
			return 0;
		}
		/*
		 * A frame is held already: it goes now, alone, in this one's place,
		 * and this one is held (lc_faults_wire, once the copy is made).
		 * Every frame that draws reorder is held, whether or not the held
		 * one's wait ran out first, so the counts do not depend on timing.
		 */
		l->swap = *frame;
		l->swap_bytes = *bytes;
		*frame = (const struct lc_frame_hdr *)l->held;
		*bytes = l->held_bytes;
		return 1;
	}
	/* a duplicated frame waits for room for both copies */
	return l->dup && nic->g.recv_ring > 1 ? 2 : 1;
}

uint32_t lc_faults_wire(struct lc_nic *nic, uint32_t dst, const void *src, uint32_t bytes,
			uint32_t rh, uint32_t room)
{
	struct lc_fault_state *fs = nic->faults;
	struct lc_fault_link *l = &fs->link[dst];
	uint32_t n = 1;

	l->valid = 0;   /* this link's decision is spent: the link's next frame draws anew */
	if (l->swap) {
		/* the held frame went (src is its copy): hold the one it replaced */
		lc_fault_hold(nic, dst, l->swap, l->swap_bytes);
		l->swap = NULL;
		return 1;
	}
	if (l->corrupt && bytes) {
		uint8_t *p = lc_recv_slot(lc_seg_sram(nic, dst), &nic->g, rh);
		uint32_t flips = 1 + (uint32_t)(lc_fault_next(l) % 3);

		for (uint32_t i = 0; i < flips; i++) {
			uint64_t bit = lc_fault_next(l) % ((uint64_t)bytes * 8);

			p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		lc_fault_count(nic, dst, LC_FAULT_corrupt);
	}
	if (l->dup && n < room) {
		/* there is room: lc_faults_tx asked lc_net_put for both copies (but in a one-slot ring) */
		lc_recv_put(lc_seg_sram(nic, dst), &nic->g, rh + n, src, bytes);
		n++;
		lc_fault_count(nic, dst, LC_FAULT_dup);
	}
	if (l->held_bytes && n < room) {
		lc_recv_put(lc_seg_sram(nic, dst), &nic->g, rh + n, l->held, l->held_bytes);
		n++;
		l->held_bytes = 0;
		fs->held_n--;
	}
	return n;
}

int lc_faults_step(struct lc_nic *nic)
{
	struct lc_fault_state *fs = nic->faults;
	uint64_t now;
	int work = 0;

	if (!fs->held_n)
		return 0;
	now = lc_nic_now_ns();
	for (uint32_t dst = 0; dst < nic->g.nodes && fs->held_n; dst++) {
		struct lc_fault_link *l = &fs->link[dst];
		const struct lc_route *r = &nic->routes[dst];
		struct lc_nic_ctrl *rc;
		uint32_t rh, busy = 0;

		if (!l->held_bytes || now - l->held_ns < LC_FAULT_HOLD_NS)
			continue;
		if (lc_seg_node_state(nic, dst) >= LC_NODE_EXITED) {
			l->held_bytes = 0;
			fs->held_n--;
			continue;
		}
		if (!lc_net_lock(nic, r, &busy))
			continue;
		rc = lc_seg_ctrl(nic, dst);
		if (!lc_net_room(nic, dst, &rh, 1)) {
			lc_net_unlock(nic, r);
			continue;
		}
		lc_recv_put(lc_seg_sram(nic, dst), &nic->g, rh, l->held, l->held_bytes);
		/* the next sender's slot (the port lock orders the senders, R5 -> A5) */
		atomic_store_explicit(&rc->recv_head.v, rh + 1, memory_order_release);
		lc_net_unlock(nic, r);
		l->held_bytes = 0;
		fs->held_n--;
		work++;
	}
	return work;
}
