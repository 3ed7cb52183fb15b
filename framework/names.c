/* SPDX-License-Identifier: MIT */
/* The job's name service (comm.h): register, unregister and look up names of endpoints. */
#define _GNU_SOURCE
#include <time.h>

#include "lc_proto.h"
#include "node.h"

/*
 * The table is the NIC's (nic/names.c, in the job segment); this file
 * checks the arguments, says what went wrong, and waits for lookups.  A
 * lookup that waits looks again after each progress step and a sleep that
 * grows from 20 us to 1 ms (names are registered at start-up: latency of
 * microseconds does not matter, a core spun for seconds does), and gives up
 * when every other node is gone, since then no one can register the name.
 */

#define LC_NAME_SLEEP_MIN_NS 20000u
#define LC_NAME_SLEEP_MAX_NS 1000000u

/* 0 when name is a valid name, else LC_ERR_INVAL with the reason. */
static int lc_name_check(const char *name, const char *fn)
{
	size_t n = 0;

	if (!name)
		return lc_fail(LC_ERR_INVAL, "%s: name is NULL", fn);
	for (; name[n] && n < LC_NAME_MAX; n++)
		if (name[n] <= ' ' || name[n] > '~')
			return lc_fail(LC_ERR_INVAL, "%s: name \"%.*s\": byte %zu (0x%02x) is not "
				       "printable ASCII without spaces", fn, (int)n, name, n,
				       (unsigned)(unsigned char)name[n]);
	if (n == 0)
		return lc_fail(LC_ERR_INVAL, "%s: the name is empty", fn);
	if (n >= LC_NAME_MAX)
		return lc_fail(LC_ERR_INVAL, "%s: name \"%.16s...\" is longer than %d bytes", fn, name,
			       LC_NAME_MAX - 1);
	return 0;
}

static int lc_name_args(const lc_node *node, const char *name, const char *fn)
{
	int rc = lc_check(node, fn);

	return rc ? rc : lc_name_check(name, fn);
}

int lc_name_register(lc_node *node, const char *name, uint32_t port)
{
	uint32_t holder = 0;
	int rc = lc_name_args(node, name, "lc_name_register");

	if (rc)
		return rc;
	rc = lc_nic_name_set(node->nic, name, port, &holder);
	if (rc == LC_ERR_BUSY)
		return lc_fail(rc, "lc_name_register: \"%s\" is registered already, by node %u", name,
			       holder);
	if (rc == LC_ERR_AGAIN)
		return lc_fail(rc, "lc_name_register: \"%s\": the job's name table is full (%u names)",
			       name, LC_NAME_ENTRIES(node->size));
	return rc;
}

int lc_name_unregister(lc_node *node, const char *name)
{
	uint32_t holder = 0;
	int rc = lc_name_args(node, name, "lc_name_unregister");

	if (rc)
		return rc;
	rc = lc_nic_name_del(node->nic, name, &holder);
	if (rc == 0)
		return 0;
	if (holder == UINT32_MAX)
		return lc_fail(rc, "lc_name_unregister: \"%s\" is not registered", name);
	return lc_fail(rc, "lc_name_unregister: \"%s\" belongs to node %u, not to this node %u", name,
		       holder, node->rank);
}

/* 1 when every node but this one has exited or died. */
static int lc_name_alone(const struct lc_node *node)
{
	for (uint32_t i = 0; i < node->size; i++)
		if (i != node->rank && lc_nic_peer_alive(node->nic, i))
			return 0;
	return 1;
}

int lc_name_lookup(lc_node *node, const char *name, int64_t timeout_us, int *out_node,
		   uint32_t *out_port)
{
	uint64_t deadline = 0, sleep_ns = LC_NAME_SLEEP_MIN_NS;
	uint32_t at = 0, port = 0;
	int rc = lc_name_args(node, name, "lc_name_lookup");

	if (rc)
		return rc;
	if (timeout_us > 0)
		deadline = lc_now_ns() + (uint64_t)timeout_us * 1000u;
	for (;;) {
		/* seen before the look: a name registered by the last peer before it left is found */
		int alone = lc_name_alone(node);

		if (lc_nic_name_get(node->nic, name, &at, &port) == 0)
			break;
		if (timeout_us == 0)
			return lc_fail(LC_ERR_TIMEOUT, "lc_name_lookup: \"%s\" is not registered", name);
		if (timeout_us > 0 && lc_now_ns() >= deadline)
			return lc_fail(LC_ERR_TIMEOUT, "lc_name_lookup: \"%s\" was not registered within "
				       "%lld us", name, (long long)timeout_us);
		if (alone)
			return lc_fail(LC_ERR_PEER_DEAD, "lc_name_lookup: \"%s\" is not registered and "
				       "every other node of the job has exited or died", name);
		rc = lc_progress(node);
		if (rc < 0)
			return rc;
		struct timespec ts = { 0, (long)sleep_ns };
		nanosleep(&ts, NULL);
		if (sleep_ns < LC_NAME_SLEEP_MAX_NS)
			sleep_ns *= 2;
	}
	if (out_node)
		*out_node = (int)at;
	if (out_port)
		*out_port = port;
	return 0;
}
