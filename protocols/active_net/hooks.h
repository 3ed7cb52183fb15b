/* SPDX-License-Identifier: MIT */
/* active protocol: activation flags in every frame, switched per peer and per message at run time. */
#ifndef LC_ACTIVE_NET_HOOKS_H
#define LC_ACTIVE_NET_HOOKS_H

/*
 * Parameters (configs: active_net = { start = ..., changes = ... }, docs/config-reference.md):
 *   start    "on" / "off": the switchable protocols' state towards every peer at
 *            lc_open (LC_ACTIVE_NET_START_ON 0/1).
 *   changes  waiting changes per peer (LC_ACTIVE_NET_CHANGES).
 * Header fields: active_net_on, active_net_chk (lc_coop.h: lc_switch_flags, lc_switch_set).
 *
 * Which protocols are switchable, and their bits, come from the registry
 * (switchable): lc_coop.h's LC_SWITCHABLE_PROTOCOLS; this protocol names none of
 * them.  The composites test a frame's flags before each switchable
 * protocol's frame hook (send_frame, after_send, recv_frame, nic_rx, seal):
 * the frame says which protocols act on it, at the sender, in the copies it
 * keeps and at the receiver alike.
 *
 * Pointcuts:
 *   init        every peer starts with the configured flags.
 *   send_frame  (runs first: highest order, frames go down the stack) a data
 *               frame to a node carries its peer's flags (to a group: the flags
 *               lc_active_net_set gave every peer last), a frame of any other
 *               kind (control, RDMA, framework) every flag: the protocols' own
 *               frames (acks, credits, clear-to-send) always meet their peer's
 *               protocol.  At the first data frame of the message a waiting
 *               change names, the change takes effect; one that switches a
 *               protocol off first waits (LC_RETRY: the frame stays queued)
 *               until that protocol is quiet towards the peer
 *               (lc_switch_quiet), so no frame sent under it can be lost
 *               for want of a retransmission, or overtaken by the frames after
 *               the switch (the framework would take a late message as old).
 *               Messages are numbered per peer by the framework at submission
 *               (hdr->seq), so the change is exact to the message however the
 *               send queue stands.
 */
#include <stdint.h>

#include "lc_coop.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#ifndef LC_ACTIVE_NET_CHANGES
#error "lc_config.h must define LC_ACTIVE_NET_CHANGES (active_net.changes)"
#endif

int lc_active_net_init(struct lc_node *node);
/* Apply peer d's waiting changes up to message seq; 0, or 1 when one waits for quiet (counted). */
int lc_active_net_latch(struct lc_node *node, uint32_t d, uint32_t seq);

static inline lc_verdict lc_active_net_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
					      const void *payload)
{
	struct lc_active_net_state *st = &node->proto.active_net;
	unsigned on = LC_SWITCHABLE;

	(void)payload;
	if (hdr->type == LC_FT_DATA) {
		if (!(hdr->flags & LC_FF_GROUP) && hdr->dst < lc_node_size(node)) {
			struct lc_active_net_peer *p = &st->peer[hdr->dst];

			/* a waiting change whose message has come (seq numbers compared by difference) */
			if (__builtin_expect(p->n != 0, 0) && (int32_t)(hdr->seq - p->ch[p->head].seq) >= 0 &&
			    lc_active_net_latch(node, hdr->dst, hdr->seq))
				return LC_RETRY;
			on = p->on;
		} else {
			on = st->group_on;
		}
	}
	lc_switch_set(hdr, on);
	return LC_CONTINUE;
}

#endif /* LC_ACTIVE_NET_HOOKS_H */
