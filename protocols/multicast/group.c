/* SPDX-License-Identifier: MIT */
/* multicast protocol: the group API of multicast.h (create, join, leave, lc_mcast, lc_bcast). */
#include <stdio.h>
#include <string.h>

#include "lc_coop.h"
#include "multicast/multicast.h"
#include "multicast/static_groups.h"
#include "node.h"

/*
 * The group table is the NIC's (nic/mcast.c, in the job segment); these
 * calls check their arguments, leave an error text, and send:
 *   host mode: one lc_isend per member, at most host.max_requests in flight
 *              (the oldest is waited for when the pool runs dry);
 *   nic mode:  one send request with dst = LC_NIC_GROUP_DST(gid), queued
 *              like any send (so it keeps its place among this node's sends),
 *              replicated by the MCP.
 */

/* Group id as the NIC knows it (LC_GROUP_WORLD -> the world id), or negative. */
static int lc_mc_gid(struct lc_node *node, int gid, const char *fn)
{
	uint32_t groups = lc_nic_groups(node->nic);

	if (gid == LC_GROUP_WORLD)
		return (int)LC_NIC_GROUP_WORLD(node->nic);
	if (gid < 0 || (uint32_t)gid >= groups)
		return lc_fail(LC_ERR_RANGE, "%s: group %d out of range 0..%u (multicast.max_groups)",
			       fn, gid, groups - 1);
	return gid;
}

int lc_group_create(lc_node *node, const int *members, int n, int *gid)
{
	uint32_t m[LC_MAX_NODES * 4], id;
	int rc = lc_check(node, "lc_group_create");

	if (rc)
		return rc;
	if (!gid || n < 0 || (n && !members))
		return lc_fail(LC_ERR_INVAL, "lc_group_create: members %p, n %d, gid %p",
			       (const void *)members, n, (void *)gid);
	if ((size_t)n > sizeof(m) / sizeof(m[0]))
		return lc_fail(LC_ERR_INVAL, "lc_group_create: %d members, at most %zu (duplicates "
			       "included)", n, sizeof(m) / sizeof(m[0]));
	for (int i = 0; i < n; i++) {
		if (members[i] < 0 || (uint32_t)members[i] >= node->size)
			return lc_fail(LC_ERR_RANGE, "lc_group_create: member %d is node %d, out of "
				       "range 0..%u", i, members[i], node->size - 1);
		m[i] = (uint32_t)members[i];
	}
	rc = lc_nic_group_create(node->nic, m, (uint32_t)n, &id);
	if (rc)
		return lc_fail(rc, "lc_group_create: every one of the %u group ids is taken "
			       "(multicast.max_groups)", lc_nic_groups(node->nic));
	*gid = (int)id;
	return 0;
}

int lc_group_destroy(lc_node *node, int gid)
{
	int rc = lc_check(node, "lc_group_destroy");

	if (rc)
		return rc;
	if (gid < 0 || lc_nic_group_destroy(node->nic, (uint32_t)gid))
		return lc_fail(LC_ERR_RANGE, "lc_group_destroy: no group %d", gid);
	return 0;
}

int lc_group_join(lc_node *node, int gid)
{
	int rc = lc_check(node, "lc_group_join");

	if (rc)
		return rc;
	if (gid < 0 || lc_nic_group_join(node->nic, (uint32_t)gid, node->rank))
		return lc_fail(LC_ERR_RANGE, "lc_group_join: no group %d", gid);
	return 0;
}

int lc_group_leave(lc_node *node, int gid)
{
	int rc = lc_check(node, "lc_group_leave");

	if (rc)
		return rc;
	if (gid < 0 || lc_nic_group_leave(node->nic, (uint32_t)gid, node->rank))
		return lc_fail(LC_ERR_RANGE, "lc_group_leave: no group %d", gid);
	return 0;
}

int lc_group_members(lc_node *node, int gid, int *out, int cap)
{
	uint64_t bits[LC_NIC_GROUP_WORDS];
	int rc = lc_check(node, "lc_group_members"), n = 0, id;

	if (rc)
		return rc;
	if (cap < 0 || (cap && !out))
		return lc_fail(LC_ERR_INVAL, "lc_group_members: out %p, cap %d", (void *)out, cap);
	id = lc_mc_gid(node, gid, "lc_group_members");
	if (id < 0)
		return id;
	if (lc_nic_group_members(node->nic, (uint32_t)id, bits) < 0)
		return lc_fail(LC_ERR_RANGE, "lc_group_members: no group %d", gid);
	for (uint32_t i = 0; i < node->size; i++)
		if (bits[i / 64] >> (i % 64) & 1) {
			if (n < cap)
				out[n] = (int)i;
			n++;
		}
	return n;
}

#if LC_MULTICAST_MODE_NIC
/* One send request to the group; the MCP replicates it. */
static int lc_mc_send_nic(struct lc_node *node, uint32_t id, const void *buf, size_t len)
{
	static const uint8_t empty[1];
	struct lc_req *r;
	int rc = lc_lock_open(node, "lc_mcast");

	if (rc)
		return rc;
	r = lc_req_alloc(node);
	if (!r) {
		lc_unlock(node);
		return lc_fail(LC_ERR_AGAIN, "lc_mcast: all %d requests in use (host.max_requests)",
			       LC_HOST_MAX_REQUESTS);
	}
	r->kind = LC_REQ_SEND;
	r->s.dst = LC_NIC_GROUP_DST(id);
	r->s.seq = node->proto.multicast.gseq++;
	r->s.buf = len ? buf : empty;
	r->s.len = (uint32_t)len;
	lc_reqq_push(&node->sendq, r);
	if (node->sendq.head == r)
		lc_tx_push(node);
	lc_unlock(node);
	return lc_wait(node, r, NULL);
}
#else
/* One lc_isend per member, at most host.max_requests at once. */
static int lc_mc_send_host(struct lc_node *node, const uint64_t *bits, const void *buf, size_t len)
{
	lc_req *q[LC_HOST_MAX_REQUESTS];
	uint32_t head = 0, count = 0;
	int err = 0, rc;

	for (uint32_t i = 0; i < node->size; i++) {
		if (i == node->rank || !(bits[i / 64] >> (i % 64) & 1))
			continue;
		for (;;) {
			rc = count < LC_HOST_MAX_REQUESTS ?
				lc_isend(node, (int)i, buf, len, &q[(head + count) % LC_HOST_MAX_REQUESTS]) :
				LC_ERR_AGAIN;
			if (rc != LC_ERR_AGAIN || count == 0)
				break;
			rc = lc_wait(node, q[head], NULL);
			if (rc && !err)
				err = rc;
			head = (head + 1) % LC_HOST_MAX_REQUESTS;
			count--;
		}
		if (rc) {
			if (!err)
				err = rc;
			continue;
		}
		count++;
	}
	for (; count; count--, head = (head + 1) % LC_HOST_MAX_REQUESTS) {
		rc = lc_wait(node, q[head], NULL);
		if (rc && !err)
			err = rc;
	}
	return err;
}
#endif

int lc_mcast(lc_node *node, int gid, const void *buf, size_t len)
{
	uint64_t bits[LC_NIC_GROUP_WORDS];
	int rc = lc_check(node, "lc_mcast"), id, n;

	if (rc)
		return rc;
	if (!buf && len)
		return lc_fail(LC_ERR_INVAL, "lc_mcast: buf is NULL with len %zu", len);
	if (len > LC_MAX_MSG)
		return lc_fail(LC_ERR_TOOBIG, "lc_mcast: %zu bytes > LC_MAX_MSG (%zu)", len, LC_MAX_MSG);
	id = lc_mc_gid(node, gid, "lc_mcast");
	if (id < 0)
		return id;
	n = lc_nic_group_members(node->nic, (uint32_t)id, bits);
	if (n < 0)
		return lc_fail(LC_ERR_RANGE, "lc_mcast: no group %d", gid);
#if LC_STAMPED
	n -= (int)(bits[node->rank / 64] >> (node->rank % 64) & 1);
	if (n > LC_MULTICAST_MAX_MEMBERS)
		return lc_fail(LC_ERR_TOOBIG, "lc_mcast: group %d has %d members besides this node, the "
			       "stamp tables hold %d (multicast.max_members)", gid, n,
			       LC_MULTICAST_MAX_MEMBERS);
#endif
#if LC_MULTICAST_MODE_NIC
	(void)n;
	return lc_mc_send_nic(node, (uint32_t)id, buf, len);
#else
	return lc_mc_send_host(node, bits, buf, len);
#endif
}

int lc_bcast(lc_node *node, const void *buf, size_t len)
{
	return lc_mcast(node, LC_GROUP_WORLD, buf, len);
}

int lc_group_static_install(const char *job, const struct lc_nic_geom *g, char *err, size_t errlen)
{
	uint32_t gid = 0;
	int rc;

	(void)job;
	(void)g;
	(void)gid;
	(void)rc;
#define LC_X_MC_INSTALL(i, n, ...)                                                          \
	{                                                                                     \
		static const uint32_t lc_m_[] = { __VA_ARGS__ };                              \
		for (uint32_t k = 0; k < (n); k++)                                            \
			if (lc_m_[k] >= g->nodes) {                                           \
				snprintf(err, errlen, "multicast.groups: group %d lists node %u, " \
					 "out of range 0..%u", (i), lc_m_[k], g->nodes - 1);      \
				return LC_ERR_RANGE;                                          \
			}                                                                     \
		rc = lc_seg_group_create(job, g, lc_m_, (n), &gid, err, errlen);              \
		if (rc)                                                                       \
			return rc;                                                            \
		if (gid != (uint32_t)(i)) {                                                   \
			snprintf(err, errlen, "multicast.groups: group %d got id %u (the "    \
				 "segment's group table was not empty)", (i), gid);           \
			return LC_ERR_BUSY;                                                   \
		}                                                                             \
	}
	LC_MULTICAST_GROUPS(LC_X_MC_INSTALL)
#undef LC_X_MC_INSTALL
	(void)err;
	(void)errlen;
	return LC_MULTICAST_GROUPS_COUNT;
}
