/* SPDX-License-Identifier: MIT */
/* multicast: the launcher's side of the config's static groups (multicast.groups). */
#ifndef LC_MULTICAST_STATIC_GROUPS_H
#define LC_MULTICAST_STATIC_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "nic.h"

/*
 * Make the groups of multicast.groups in job segment job (geometry g), in
 * config order: group ids 0 .. LC_MULTICAST_GROUPS_COUNT-1 (the segment's
 * table is empty then).  Called by commrun before the nodes start and
 * before its --group groups, which take the ids after these.  Returns the
 * number of groups made (>= 0), or a negative lc_err with a message in err
 * (a member >= g->nodes, or an id not the next one).
 */
int lc_group_static_install(const char *job, const struct lc_nic_geom *g, char *err, size_t errlen);

#endif /* LC_MULTICAST_STATIC_GROUPS_H */
