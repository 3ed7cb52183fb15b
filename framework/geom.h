/* SPDX-License-Identifier: MIT */
/* Fill the NIC geometry from the generated configuration (framework and launcher). */
#ifndef LC_GEOM_H
#define LC_GEOM_H

#include <stdint.h>

#include "nic.h"

/*
 * Fill *g with the geometry of the configuration this library was generated
 * from (lc_config.h), for a job of `nodes` nodes.  Returns 0, LC_ERR_INVAL
 * (g is NULL) or LC_ERR_RANGE (nodes not in 1 .. LC_MAX_NODES).
 */
int lc_geom_from_config(struct lc_nic_geom *g, uint32_t nodes);

#endif /* LC_GEOM_H */
