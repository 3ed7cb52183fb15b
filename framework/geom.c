/* SPDX-License-Identifier: MIT */
/* The NIC geometry of this build, from the generated constants of lc_config.h. */
#include "geom.h"

#include "comm.h"
#include "lc_config.h"
#include "lc_frame_hdr.h"

int lc_geom_from_config(struct lc_nic_geom *g, uint32_t nodes)
{
	if (!g)
		return LC_ERR_INVAL;
	if (nodes < 1 || nodes > LC_MAX_NODES)
		return LC_ERR_RANGE;
#define LC_X_INIT(type, name, value, ...) .name = (type)(value),
	*g = (struct lc_nic_geom){ LC_GEOM_LIST(LC_X_INIT) };
#undef LC_X_INIT
	return 0;
}
