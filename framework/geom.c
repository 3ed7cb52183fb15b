/* SPDX-License-Identifier: MIT */
/* The NIC geometry of this build, from the generated constants of lc_config.h. */
#define _POSIX_C_SOURCE 200809L
#include "geom.h"

#include <errno.h>
#include <stdlib.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_frame_hdr.h"

uint64_t lc_backpressure_ns(void)
{
	const char *v = getenv("LC_BACKPRESSURE_US");
	unsigned long long us;
	char *end;

	if (!v || !*v)
		return (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000u;
	errno = 0;
	us = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || us < 1 || us > LC_BACKPRESSURE_US_MAX)
		return 0;
	return (uint64_t)us * 1000u;
}

int lc_geom_from_config(struct lc_nic_geom *g, uint32_t nodes)
{
	uint64_t limit = lc_backpressure_ns();

	if (!g)
		return LC_ERR_INVAL;
	if (nodes < 1 || nodes > LC_MAX_NODES)
		return LC_ERR_RANGE;
	if (!limit)
		return LC_ERR_CONFIG;
#define LC_X_INIT(type, name, value, ...) .name = (type)(value),
	*g = (struct lc_nic_geom){ LC_GEOM_LIST(LC_X_INIT) };
#undef LC_X_INIT
	g->backpressure_timeout_ns = limit;
	return 0;
}
