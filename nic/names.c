/* SPDX-License-Identifier: MIT */
/* The job's name table in the segment: name -> (node, port), under a process-shared robust mutex. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nic_impl.h"

/*
 * The table (struct lc_seg_names, then hdr->names entries) is made by
 * lc_seg_create and shared by every node of the job.  An entry is valid
 * while `used` and its node is attached (lc_seg_node_state): names of a node
 * that detached or died need no cleaning to stop counting, and a free or
 * stale entry is reused by the next registration.  Every access holds the
 * mutex; it is robust, so a process killed while holding it (SIGKILL at any
 * instruction) hands it to the next locker with EOWNERDEAD, which marks it
 * consistent: whatever the dead node half-wrote is its own entry, ignored
 * because its node is no longer attached.
 */

int lc_seg_names_init(struct lc_seg_names *t, char *err, size_t errlen)
{
	pthread_mutexattr_t a;
	int rc = pthread_mutexattr_init(&a);

	if (rc == 0)
		rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (rc == 0)
		rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (rc == 0)
		rc = pthread_mutex_init(&t->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (rc != 0) {
		snprintf(err, errlen, "name table mutex: %s", strerror(rc));
		return LC_ERR_SYS;
	}
	return 0;
}

static struct lc_seg_names *names_of(const struct lc_nic *nic)
{
	return (struct lc_seg_names *)(void *)((uint8_t *)nic->hdr + nic->hdr->off_names);
}

static struct lc_seg_name *entries_of(const struct lc_nic *nic)
{
	return (struct lc_seg_name *)(void *)(names_of(nic) + 1);
}

/* Take the table's mutex, recovering it from a holder that died. */
static void names_lock(struct lc_nic *nic)
{
	struct lc_seg_names *t = names_of(nic);

	if (pthread_mutex_lock(&t->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&t->lock);
}

static void names_unlock(struct lc_nic *nic)
{
	pthread_mutex_unlock(&names_of(nic)->lock);
}

static int entry_valid(const struct lc_nic *nic, const struct lc_seg_name *e)
{
	return e->used && e->node < nic->g.nodes &&
	       lc_seg_node_state(nic, e->node) == LC_NODE_ATTACHED;
}

/* The valid entry named name, or NULL.  Holds the mutex. */
static struct lc_seg_name *entry_find(const struct lc_nic *nic, const char *name)
{
	struct lc_seg_name *e = entries_of(nic);

	for (uint32_t i = 0; i < nic->hdr->names; i++)
		if (entry_valid(nic, &e[i]) && strncmp(e[i].name, name, LC_NAME_MAX) == 0)
			return &e[i];
	return NULL;
}

int lc_nic_name_set(struct lc_nic *nic, const char *name, uint32_t port, uint32_t *holder)
{
	struct lc_seg_name *e = entries_of(nic), *found, *slot = NULL;
	int rc = 0;

	names_lock(nic);
	found = entry_find(nic, name);
	if (found) {
		*holder = found->node;
		rc = LC_ERR_BUSY;
	} else {
		for (uint32_t i = 0; !slot && i < nic->hdr->names; i++)
			if (!entry_valid(nic, &e[i]))
				slot = &e[i];
		if (!slot) {
			rc = LC_ERR_AGAIN;
		} else {
			slot->used = 0;         /* a holder dying from here on leaves no half entry */
			slot->node = nic->node;
			slot->port = port;
			snprintf(slot->name, sizeof slot->name, "%s", name);
			slot->used = 1;
		}
	}
	names_unlock(nic);
	return rc;
}

int lc_nic_name_get(struct lc_nic *nic, const char *name, uint32_t *node, uint32_t *port)
{
	struct lc_seg_name *e;
	int rc = LC_ERR_AGAIN;

	names_lock(nic);
	e = entry_find(nic, name);
	if (e) {
		if (node)
			*node = e->node;
		if (port)
			*port = e->port;
		rc = 0;
	}
	names_unlock(nic);
	return rc;
}

int lc_nic_name_del(struct lc_nic *nic, const char *name, uint32_t *holder)
{
	struct lc_seg_name *e;
	int rc = 0;

	names_lock(nic);
	e = entry_find(nic, name);
	*holder = e ? e->node : UINT32_MAX;
	if (e && e->node == nic->node)
		e->used = 0;
	else
		rc = LC_ERR_INVAL;
	names_unlock(nic);
	return rc;
}

void lc_nic_name_drop_all(struct lc_nic *nic)
{
	struct lc_seg_name *e = entries_of(nic);

	names_lock(nic);
	for (uint32_t i = 0; i < nic->hdr->names; i++)
		if (e[i].used && e[i].node == nic->node)
			e[i].used = 0;
	names_unlock(nic);
}
