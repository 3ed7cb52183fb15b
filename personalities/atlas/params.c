/* SPDX-License-Identifier: MIT */
/* Parameters of seed section 10 that the personality keeps: defaults, checks, environment overrides. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>

#include "atlas_impl.h"

void atlas_params_default(atlas_params *p)
{
	if (!p)
		return;
#define ATLAS_X_DEFAULT(name, def, ...) p->name = (def);
	ATLAS_PARAM_LIST(ATLAS_X_DEFAULT)
#undef ATLAS_X_DEFAULT
}

static int atlas_in_range(unsigned v, unsigned lo, unsigned hi)
{
	return v >= lo && v <= hi;
}

int atlas_params_check(const atlas_params *p)
{
#define ATLAS_X_CHECK(name, def, lo, hi, env, ...)                                            \
	if (!atlas_in_range(p->name, (unsigned)(lo), (unsigned)(hi)))                         \
		return atlas_fail(ATLAS_ERR_PARAM, "atlas_params: " #name " = %u out of %u .. %u", \
				  p->name, (unsigned)(lo), (unsigned)(hi));
	ATLAS_PARAM_LIST(ATLAS_X_CHECK)
#undef ATLAS_X_CHECK
	return 0;
}

/* A decimal integer in lo .. hi from variable var; 0, or ATLAS_ERR_PARAM naming it. */
static int atlas_env_uint(const char *var, unsigned lo, unsigned hi, unsigned *out)
{
	const char *s = getenv(var);
	if (!s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v < lo || v > hi)
		return atlas_fail(ATLAS_ERR_PARAM, "environment %s=\"%s\": want a decimal integer "
				  "in %u .. %u", var, s, lo, hi);
	*out = (unsigned)v;
	return 0;
}

int atlas_params_env(atlas_params *p)
{
	int rc;
#define ATLAS_X_ENV(name, def, lo, hi, env, ...)                                      \
	if ((rc = atlas_env_uint(env, (unsigned)(lo), (unsigned)(hi), &p->name)) != 0) \
		return rc;
	ATLAS_PARAM_LIST(ATLAS_X_ENV)
#undef ATLAS_X_ENV
	return atlas_params_check(p);
}
