/* SPDX-License-Identifier: MIT */
/* multicast protocol, launcher side: the config's static groups (multicast.groups). */
#ifndef LC_MULTICAST_LAUNCHER_HOOKS_H
#define LC_MULTICAST_LAUNCHER_HOOKS_H

#include <stddef.h>

#include "lc_config.h"
#include "multicast/static_groups.h"
#include "nic.h"

/*
 * Pointcut job_init (framework/pointcuts.lua): the launcher made the job
 * segment and starts no node before the config's static groups are in its
 * group table, with ids 0 .. LC_MULTICAST_GROUPS_COUNT-1 (group.c); the
 * launcher's own --group groups follow them.
 */
static inline int lc_multicast_job_init(const char *job, const struct lc_nic_geom *g, char *err, size_t errlen)
{
	int rc = lc_group_static_install(job, g, err, errlen);

	return rc < 0 ? rc : 0;
}

#endif /* LC_MULTICAST_LAUNCHER_HOOKS_H */
