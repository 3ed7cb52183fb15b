/* SPDX-License-Identifier: MIT */
/* NIC groups: the group table in the job segment and replication of group frames at nic_tx. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lc_verdict.h"
#include "nic_impl.h"

/*
 * The group table: g.groups entries of struct lc_nic_group right after the
 * switch ports of the segment (lc_seg_layout).  Every NIC and every host of
 * the job maps it, so a join or leave made by any node is seen by the MCP
 * that replicates the next message to the group.
 *
 * Ordering: an entry is taken by a CAS of state 0 -> 2 (acq_rel), its
 * members are stored, then state 1 is released (RG1) -> readers acquire the
 * state (AG1) before they read members.  Joins and leaves are fetch_or /
 * fetch_and with release (RG2) -> snapshots load members with acquire (AG2).
 *
 * Replication (Net-Send, driven by the nic_tx hook of the protocol that
 * declares the group table; mc_msg, mc_left, mc_busy and mc_stall are
 * Net-Send's state, nic_impl.h):
 * the host names the members of each group frame in the frame's stamp
 * table (lc_nic_tx_stamp; it snapshots the group at a message's first frame
 * so that every frame of one message goes to the same members: a node that
 * joins or leaves while a message is in flight gets all of it or none of
 * it).  lc_nic_mcast_start takes them as mc_left, the members still to get a
 * copy; a member whose Receive Ring is full makes the hook return LC_RETRY
 * (Net-Send asks again on its next step, the frame stays at send_tail) and
 * the members already served are not served again.  lc_nic_mcast_tx is the
 * same loop for a frame with no stamp table: members from the group table
 * (mc_msg, snapshot at the first frame), no per-copy fields.
 * Each copy is put on its link by lc_net_put (nic.c), the path of every
 * unicast frame too: the fault injector draws, applies and counts faults per
 * (root, member) link for copies as for unicast frames.
 * Copies go from the sender's NIC straight to each member (a flat tree of
 * depth 1): the sender's MCP does all the copies, no other MCP (hence no
 * other host's progress calls, in inline mode) sits on the path.
 */

enum { LC_GROUP_FREE = 0, LC_GROUP_USED = 1, LC_GROUP_BUSY = 2 };

static struct lc_nic_group *group_table(struct lc_seg_hdr *h)
{
	return (struct lc_nic_group *)((uint8_t *)h + h->off_net +
				       (uint64_t)h->net_ports * sizeof(struct lc_net_port));
}

uint32_t lc_nic_groups(const struct lc_nic *nic)
{
	return nic->g.groups;
}

static int group_fill(struct lc_nic_group *t, uint32_t groups, uint32_t nodes,
		      const uint32_t *members, uint32_t n, uint32_t *gid)
{
	uint64_t bits[LC_NIC_GROUP_WORDS] = { 0 };
	uint32_t i, st;

	if (!gid || (n && !members))
		return LC_ERR_INVAL;
	for (i = 0; i < n; i++) {
		if (members[i] >= nodes)
			return LC_ERR_RANGE;
		bits[members[i] / 64] |= 1ull << (members[i] % 64);
	}
	for (i = 0; i < groups; i++) {
		st = LC_GROUP_FREE;
		if (atomic_compare_exchange_strong_explicit(&t[i].state, &st, LC_GROUP_BUSY,
							    memory_order_acq_rel, memory_order_relaxed))
			break;
	}
	if (i == groups)
		return LC_ERR_AGAIN;
	for (uint32_t w = 0; w < LC_NIC_GROUP_WORDS; w++)
		atomic_store_explicit(&t[i].members[w], bits[w], memory_order_relaxed);
	/* release (RG1): pairs with the acquire of state in group_used (AG1) */
	atomic_store_explicit(&t[i].state, LC_GROUP_USED, memory_order_release);
	*gid = i;
	return 0;
}

int lc_nic_group_create(struct lc_nic *nic, const uint32_t *members, uint32_t n, uint32_t *gid)
{
	if (!nic)
		return LC_ERR_INVAL;
	return group_fill(group_table(nic->hdr), nic->g.groups, nic->g.nodes, members, n, gid);
}

int lc_seg_group_create(const char *name, const struct lc_nic_geom *g, const uint32_t *members,
			uint32_t n, uint32_t *gid, char *err, size_t errlen)
{
	uint8_t *base;
	size_t bytes;
	int rc = lc_seg_map(name, g, &base, &bytes, err, errlen);

	if (rc)
		return rc;
	rc = group_fill(group_table((struct lc_seg_hdr *)base), g->groups, g->nodes, members, n, gid);
	if (rc == LC_ERR_AGAIN)
		snprintf(err, errlen, "the group table is full (%u groups)", g->groups);
	else if (rc)
		snprintf(err, errlen, "a member is out of range 0..%u", g->nodes - 1);
	munmap(base, bytes);
	return rc;
}

/* The entry of gid when it is in use (acquire AG1, pairs with RG1), else NULL. */
static struct lc_nic_group *group_used(const struct lc_nic *nic, uint32_t gid)
{
	struct lc_nic_group *e;

	if (gid >= nic->g.groups)
		return NULL;
	e = &group_table(nic->hdr)[gid];
	return atomic_load_explicit(&e->state, memory_order_acquire) == LC_GROUP_USED ? e : NULL;
}

int lc_nic_group_destroy(struct lc_nic *nic, uint32_t gid)
{
	struct lc_nic_group *e = group_used(nic, gid);
	uint32_t st = LC_GROUP_USED;

	if (!e || !atomic_compare_exchange_strong_explicit(&e->state, &st, LC_GROUP_FREE,
							   memory_order_acq_rel, memory_order_relaxed))
		return LC_ERR_RANGE;
	return 0;
}

int lc_nic_group_join(struct lc_nic *nic, uint32_t gid, uint32_t node)
{
	struct lc_nic_group *e = group_used(nic, gid);

	if (!e || node >= nic->g.nodes)
		return LC_ERR_RANGE;
	/* release (RG2): pairs with the snapshot's acquire (AG2) */
	atomic_fetch_or_explicit(&e->members[node / 64], 1ull << (node % 64), memory_order_release);
	return 0;
}

int lc_nic_group_leave(struct lc_nic *nic, uint32_t gid, uint32_t node)
{
	struct lc_nic_group *e = group_used(nic, gid);

	if (!e || node >= nic->g.nodes)
		return LC_ERR_RANGE;
	/* release (RG2): pairs with the snapshot's acquire (AG2) */
	atomic_fetch_and_explicit(&e->members[node / 64], ~(1ull << (node % 64)), memory_order_release);
	return 0;
}

int lc_nic_group_members(const struct lc_nic *nic, uint32_t gid, uint64_t out[LC_NIC_GROUP_WORDS])
{
	struct lc_nic_group *e;
	int n = 0;

	memset(out, 0, sizeof(uint64_t) * LC_NIC_GROUP_WORDS);
	if (gid == LC_NIC_GROUP_WORLD(nic)) {
		for (uint32_t i = 0; i < nic->g.nodes; i++)
			out[i / 64] |= 1ull << (i % 64);
		return (int)nic->g.nodes;
	}
	e = group_used(nic, gid);
	if (!e)
		return LC_ERR_RANGE;
	for (uint32_t w = 0; w < LC_NIC_GROUP_WORDS; w++) {
		/* acquire (AG2): pairs with the join/leave release (RG2) */
		out[w] = atomic_load_explicit(&e->members[w], memory_order_acquire);
		n += __builtin_popcountll(out[w]);
	}
	return n;
}

/* ---- replication (MCP) ---- */

static void mc_dst_drop(struct lc_nic *nic, uint32_t dst)
{
	_Atomic uint32_t *d = &nic->dst_drops[dst];

	/* release: pairs with the acquire in lc_nic_dst_drops (single writer: this NIC's Net-Send) */
	atomic_store_explicit(d, atomic_load_explicit(d, memory_order_relaxed) + 1, memory_order_release);
}

void *lc_nic_tx_stamp(struct lc_nic *nic)
{
	uint32_t head = atomic_load_explicit(&nic->ctrl->send_head.v, memory_order_relaxed);

	if (!nic->g.off_stamp)
		return NULL;
	return nic->sram + nic->g.off_stamp +
	       (size_t)(head & (nic->g.send_ring - 1)) * LC_NIC_STAMP_BYTES;
}

const void *lc_nic_mcast_stamp(const struct lc_nic *nic)
{
	uint32_t tail = atomic_load_explicit(&nic->ctrl->send_tail.v, memory_order_relaxed);

	if (!nic->g.off_stamp)
		return NULL;
	return nic->sram + nic->g.off_stamp +
	       (size_t)(tail & (nic->g.send_ring - 1)) * LC_NIC_STAMP_BYTES;
}

void lc_nic_mcast_start(struct lc_nic *nic, const struct lc_frame_hdr *hdr,
			const uint64_t members[LC_NIC_GROUP_WORDS])
{
	if (nic->mc_busy)
		return;
	memcpy(nic->mc_left, members, sizeof(nic->mc_left));
	/* the source does not receive its own message */
	nic->mc_left[hdr->src / 64] &= ~(1ull << (hdr->src % 64));
	nic->mc_busy = 1;
}

int lc_nic_mcast_left(const struct lc_nic *nic, uint32_t dst)
{
	return dst < nic->g.nodes && (nic->mc_left[dst / 64] >> (dst % 64) & 1);
}

int lc_nic_mcast_busy(const struct lc_nic *nic)
{
	return nic->mc_busy;
}

int lc_nic_mcast_put(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t dst)
{
	if (lc_seg_node_state(nic, dst) >= LC_NODE_EXITED) {
		lc_nic_count(nic, LC_NIC_STAT_dead_drops, 1);
		mc_dst_drop(nic, dst);
	} else {
		uint32_t busy = 0;
		int put;

		hdr->dst = (uint16_t)dst;
		put = lc_net_put(nic, hdr, dst, &busy);
		if (put == LC_NET_PUT_LATER)
			return LC_RETRY;        /* a delay fault on this link */
		if (put == LC_NET_PUT_BUSY) {
			/* a member whose ring stays full is skipped only once the limit passed */
			if (!lc_nic_stall_expired(nic, &nic->mc_stall, dst, busy))
				return LC_RETRY;
			lc_nic_count(nic, LC_NIC_STAT_bp_drops, 1);
			mc_dst_drop(nic, dst);
		}
	}
	lc_nic_stall_end(&nic->mc_stall);
	nic->mc_left[dst / 64] &= ~(1ull << (dst % 64));
	return 0;
}

int lc_nic_mcast_done(struct lc_nic *nic)
{
	nic->mc_busy = 0;
	lc_nic_count(nic, LC_NIC_STAT_mcast_frames, 1);
	return LC_CONSUMED;
}

int lc_nic_mcast_tx(struct lc_nic *nic, struct lc_frame_hdr *hdr, uint32_t gid)
{
	uint32_t w, dst;
	uint64_t bits;

	/* gid counts only for a frame seen the first time (not mc_busy) */
	if (!nic->mc_busy) {
		if (hdr->flags & LC_FF_FIRST) {
			if (lc_nic_group_members(nic, gid, nic->mc_msg) < 0)
				memset(nic->mc_msg, 0, sizeof(nic->mc_msg));
		}
		lc_nic_mcast_start(nic, hdr, nic->mc_msg);
	}
	for (w = 0; w < LC_NIC_GROUP_WORDS; w++) {
		while ((bits = nic->mc_left[w]) != 0) {
			dst = w * 64 + (uint32_t)__builtin_ctzll(bits);
			if (dst >= nic->g.nodes) {
				nic->mc_left[w] &= ~(1ull << (dst % 64));
				continue;
			}
			if (lc_nic_mcast_put(nic, hdr, dst) == LC_RETRY)
				return LC_RETRY;
		}
	}
	return lc_nic_mcast_done(nic);
}
