/* SPDX-License-Identifier: MIT */
/* A two-way switch read from the environment: shared by nic/ (LC_PREFAULT) and framework/. */
#ifndef LC_ENV_H
#define LC_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_errors.h"

/*
 * The environment variable name as one of two words: *pick -1 when it is
 * unset or empty (the caller's default), 0 for w0, 1 for w1.  Anything else
 * is refused: LC_ERR_INVAL with "NAME=value: not w0 or w1" in err (a word
 * that does not start with a digit in double quotes).
 */
static inline int lc_env_switch(const char *name, const char *w0, const char *w1, int *pick,
				char *err, size_t errlen)
{
	const char *v = getenv(name);
	const char *q0 = (w0[0] >= '0' && w0[0] <= '9') ? "" : "\"";
	const char *q1 = (w1[0] >= '0' && w1[0] <= '9') ? "" : "\"";

	*pick = -1;
	if (!v || !*v)
		return 0;
	if (!strcmp(v, w0) || !strcmp(v, w1)) {
		*pick = !strcmp(v, w1);
		return 0;
	}
	snprintf(err, errlen, "%s=%s: not %s%s%s or %s%s%s", name, v, q0, w0, q0, q1, w1, q1);
	return LC_ERR_INVAL;
}

#endif /* LC_ENV_H */
