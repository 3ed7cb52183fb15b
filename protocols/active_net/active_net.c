/* SPDX-License-Identifier: MIT */
/* active protocol: per-peer activation flags, their changes at message boundaries, the public API. */
#include <stdint.h>
#include <string.h>

#include "lc_config.h"
#include "node.h"
#include "lc_composite_host.h"

int lc_active_net_init(struct lc_node *node)
{
	struct lc_active_net_state *st = &node->proto.active_net;
	uint8_t on = LC_ACTIVE_NET_START_ON ? LC_SWITCHABLE : 0;

	memset(st, 0, sizeof *st);
	st->group_on = on;
	for (uint32_t i = 0; i < lc_node_size(node); i++)
		st->peer[i].on = on;
	return 0;
}

int lc_active_net_latch(struct lc_node *node, uint32_t d, uint32_t seq)
{
	struct lc_active_net_peer *p = &node->proto.active_net.peer[d];

	while (p->n && (int32_t)(seq - p->ch[p->head].seq) >= 0) {
		const struct lc_active_net_change *c = &p->ch[p->head];
		unsigned off = p->on & ~c->on;

		if (off && !lc_switch_quiet(node, d, off)) {
			if (!p->waiting)
				LC_STAT_ADD(node, active_waits, 1);
			p->waiting = 1;
			return 1;
		}
		p->waiting = 0;
		p->on = c->on;
		p->head = (uint8_t)((p->head + 1) % LC_ACTIVE_NET_CHANGES);
		p->n--;
		LC_STAT_ADD(node, active_changes, 1);
	}
	return 0;
}

/* The flags of peer p's next message: its last waiting change's, or its current ones. */
static unsigned lc_active_net_next(const struct lc_active_net_peer *p)
{
	return p->n ? p->ch[(p->head + p->n - 1) % LC_ACTIVE_NET_CHANGES].on : p->on;
}

/* Record that peer d's messages from seq on carry `on` (lock held); 0 or LC_ERR_AGAIN. */
static int lc_active_net_push(struct lc_active_net_peer *p, uint32_t seq, unsigned on, int dry)
{
	struct lc_active_net_change *last = p->n ? &p->ch[(p->head + p->n - 1) % LC_ACTIVE_NET_CHANGES] : NULL;

	if (lc_active_net_next(p) == on)
		return 0;                       /* nothing changes */
	if (last && last->seq == seq) {
		/* two calls before the same message: the later one wins */
		if (!dry)
			last->on = (uint8_t)on;
		return 0;
	}
	if (p->n == LC_ACTIVE_NET_CHANGES)
		return LC_ERR_AGAIN;
	if (!dry) {
		p->ch[(p->head + p->n) % LC_ACTIVE_NET_CHANGES] = (struct lc_active_net_change){ .seq = seq, .on = (uint8_t)on };
		p->n++;
	}
	return 0;
}

int lc_active_net_set(lc_node *node, int peer, unsigned on)
{
	struct lc_active_net_state *st;
	uint32_t lo, hi;
	int rc = lc_peer_args(node, peer, "lc_active_net_set");

	if (rc)
		return rc;
	if (on & ~LC_SWITCHABLE)
		return lc_fail(LC_ERR_INVAL, "lc_active_net_set: bits 0x%x name no switchable protocol of this "
			       "config (its switchable protocols: 0x%x, lc_active_net_bit)", on & ~LC_SWITCHABLE,
			       LC_SWITCHABLE);
	if ((rc = lc_lock_open(node, "lc_active_net_set")))
		return rc;
	st = &node->proto.active_net;
	lo = peer == LC_ANY_SOURCE ? 0 : (uint32_t)peer;
	hi = peer == LC_ANY_SOURCE ? lc_node_size(node) : lo + 1;
	/* every peer takes the change or none does */
	for (uint32_t d = lo; d < hi; d++)
		if (lc_active_net_push(&st->peer[d], lc_proto_next_seq(node, d), on, 1)) {
			lc_unlock(node);
			return lc_fail(LC_ERR_AGAIN, "lc_active_net_set: %d changes to node %u already wait for "
				       "their messages (active_net.changes); complete the sends before them",
				       LC_ACTIVE_NET_CHANGES, d);
		}
	for (uint32_t d = lo; d < hi; d++)
		lc_active_net_push(&st->peer[d], lc_proto_next_seq(node, d), on, 0);
	if (peer == LC_ANY_SOURCE)
		st->group_on = (uint8_t)on;
	lc_unlock(node);
	return 0;
}

int lc_active_net_get(lc_node *node, int peer, unsigned *on)
{
	int rc = lc_peer_args(node, peer, "lc_active_net_get");

	if (rc)
		return rc;
	if (!on)
		return lc_fail(LC_ERR_INVAL, "lc_active_net_get: on is NULL");
	if ((rc = lc_lock_open(node, "lc_active_net_get")))
		return rc;
	*on = peer == LC_ANY_SOURCE ? node->proto.active_net.group_on
				    : lc_active_net_next(&node->proto.active_net.peer[peer]);
	lc_unlock(node);
	return 0;
}

int lc_active_net_bit(const char *protocol, unsigned *bit)
{
	if (!protocol || !bit)
		return lc_fail(LC_ERR_INVAL, "lc_active_net_bit: protocol %p, bit %p", (const void *)protocol,
			       (void *)bit);
#define LC_X_BIT(name, b)                 \
	if (strcmp(protocol, #name) == 0) { \
		*bit = (b);                 \
		return 0;                   \
	}
	LC_SWITCHABLE_PROTOCOLS(LC_X_BIT)
#undef LC_X_BIT
	return lc_fail(LC_ERR_INVAL, "lc_active_net_bit: '%s' is no switchable protocol of this config",
		       protocol);
}

unsigned lc_active_net_mask(void)
{
	return LC_SWITCHABLE;
}
