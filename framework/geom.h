/* SPDX-License-Identifier: MIT */
/* Fill the NIC geometry from the generated configuration (framework and launcher). */
#ifndef LC_GEOM_H
#define LC_GEOM_H

#include <stdint.h>

#include "nic.h"

/*
 * The backpressure time limit of this process's jobs, in ns: the config's
 * backpressure_timeout_us, or LC_BACKPRESSURE_US from the environment (1 ..
 * 3600000000 us) -- one build run with a shorter or longer limit, e.g. the
 * smoke runs of the test suites (tools/run_tests.py).  Whatever creates a
 * job's segment and every node of the job read it so (lc_geom_from_config),
 * and the segment refuses a node whose limit differs from its creator's.
 * 0 when LC_BACKPRESSURE_US is set but not such a number.
 */
uint64_t lc_backpressure_ns(void);

/* LC_BACKPRESSURE_US's bound (the schema's max of backpressure_timeout_us), and why a value is refused. */
#define LC_BACKPRESSURE_US_MAX 3600000000ull
#define LC_BACKPRESSURE_US_WHY "LC_BACKPRESSURE_US=%s: not a number of microseconds in 1..3600000000"

/*
 * Fill *g with the geometry of the configuration this library was generated
 * from (lc_config.h), for a job of `nodes` nodes, with the backpressure limit
 * of lc_backpressure_ns().  Returns 0, LC_ERR_INVAL (g is NULL), LC_ERR_RANGE
 * (nodes not in 1 .. LC_MAX_NODES) or LC_ERR_CONFIG (LC_BACKPRESSURE_US is
 * not a number of microseconds in range).
 */
int lc_geom_from_config(struct lc_nic_geom *g, uint32_t nodes);

#endif /* LC_GEOM_H */
