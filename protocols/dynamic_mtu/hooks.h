/* SPDX-License-Identifier: MIT */
/* dynamic_mtu: the frame size per peer as a run-time value, adapted to the link's resends. */
#ifndef LC_DYNAMIC_MTU_HOOKS_H
#define LC_DYNAMIC_MTU_HOOKS_H

/*
 * Parameters (configs: dynamic_mtu = { ... }, docs/config-reference.md):
 *   min, max     the sizes the adaptation may choose (max 0: LC_MTU)
 *   start        the size a peer starts at (0: max)
 *   window       frames per decision
 *   frame_cost   a frame's fixed work, in payload bytes that cost as much
 *   resend_cost  a resent frame's extra cost (the wait), in payload bytes
 *   adapt        "on" / "off" (LC_DYNAMIC_MTU_ADAPT_ON)
 * No header field: the frame's own len says its size; the framework takes
 * frames of any size (capability frame_sizes, lc_proto.h).
 *
 * Pointcuts:
 *   init      every peer starts at dynamic_mtu.start, nothing measured.
 *   send_msg  (once per message: asked again after another protocol's
 *             LC_RETRY, it sees req->frame set and continues) the message
 *             takes the peer's current size (req->frame), so
 *             all its frames but the last carry that many bytes; its frames
 *             count into the peer's window, and when the window is full (or an
 *             eighth of it was sent and as many frames resent: a heavy loss is
 *             not waited out) the size is weighed (lc_dynamic_mtu_weigh, out of
 *             line; the window after a change only settles -- its resends are
 *             mostly of frames sent before the change): a change
 *             takes effect from the next message, never inside one, so
 *             nothing in flight changes shape.  A message to a group id or a
 *             put keeps LC_MTU (req->frame 0).
 *
 * The decision (dynamic_mtu.c), once per window of a peer:
 *   - measured: the window's resends per frame r (lc_proto_resent),
 *     averaged with the last measurement at that size if it is recent;
 *   - the link's loss model r(m) = a + b (h + m), h the header's bytes: a
 *     part per frame and a part per byte on the wire, fitted through this
 *     size's r and the latest other size's (with only one, all per byte);
 *   - each size costs, per payload byte,
 *         c(m) = ((frame_cost + m) + r(m) (frame_cost + m + resend_cost)) / m
 *     with r(m) its own measurement if recent, else the model's.  Not the
 *     window's time: on a busy machine that is the scheduler's (dynamic_mtu.c);
 *   - the peer moves to the cheapest, if 5 % cheaper (a larger size one
 *     step at a time, a smaller one at once); a storm (a resend
 *     for every frame sent, the model's per-byte part the larger) halves the
 *     size at once: with go-back-N and a timer that backs off, a storm's
 *     resends are the backlog's whatever the size;
 *   - the window after a move only settles (its resends are mostly
 *     the old size's); a size left again at its first measurement, or
 *     storming, keeps that measurement twice as long each time (32 windows,
 *     up to 4096), so a size where the link collapses is probed ever more
 *     rarely, while a link that heals is found again.
 * Under losses per frame (--faults drop=) a smaller size costs more and the
 * size stays at max; under bit errors (--faults ber=) it shrinks.
 */
#include <stdint.h>

#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#if !LC_PC_FRAME_SIZES
#error "dynamic_mtu provides frame_sizes: lc_coop.h must define LC_PC_FRAME_SIZES 1"
#endif
_Static_assert(LC_DYNAMIC_MTU_MAX <= LC_MTU, "dynamic_mtu.max must not exceed nic.mtu (a frame fills at most a ring slot)");
_Static_assert(LC_DYNAMIC_MTU_MIN >= LC_FRAME_MIN, "dynamic_mtu.min must be at least LC_FRAME_MIN");
_Static_assert(LC_DYNAMIC_MTU_MAX == 0 || LC_DYNAMIC_MTU_MIN <= LC_DYNAMIC_MTU_MAX, "dynamic_mtu.min must not exceed dynamic_mtu.max");
_Static_assert(LC_DYNAMIC_MTU_MIN <= LC_MTU, "dynamic_mtu.min must not exceed nic.mtu");

int lc_dynamic_mtu_init(struct lc_node *node);
/* The window of peer d is full: weigh its size (out of line: once per window). */
void lc_dynamic_mtu_weigh(struct lc_node *node, uint32_t d);

static inline lc_verdict lc_dynamic_mtu_send_msg(struct lc_node *node, struct lc_sreq *req)
{
	struct lc_dynamic_mtu_peer *p;
	uint32_t frames;

	/*
	 * a group id: LC_MTU; a message whose size is set already: a protocol after
	 * this one said LC_RETRY and the pipeline asks again -- counted once
	 */
	if (req->dst >= lc_node_size(node) || req->frame)
		return LC_CONTINUE;
	p = &node->proto.dynamic_mtu.peer[req->dst];
	req->frame = p->frame;
	frames = req->len ? (req->len + p->frame - 1) / p->frame : 1;
	p->sent += frames;
	/* a full window, or a heavy loss: an eighth of a window sent and as much resent already */
	if (__builtin_expect(p->sent >= LC_DYNAMIC_MTU_WINDOW ||
			     (p->sent >= LC_DYNAMIC_MTU_WINDOW / 8 &&
			      lc_proto_resent(node, req->dst) - p->resent0 >= LC_DYNAMIC_MTU_WINDOW / 8), 0))
		lc_dynamic_mtu_weigh(node, req->dst);
	return LC_CONTINUE;
}

#endif /* LC_DYNAMIC_MTU_HOOKS_H */
