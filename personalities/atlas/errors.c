/* SPDX-License-Identifier: MIT */
/* Errors: atlas_strerror, atlas_last_error (per thread, with detail), libcomm codes -> atlas codes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>

#include "atlas_impl.h"

static _Thread_local char atlas_err_text[256];
/* the fast path's error: a static text, no formatting (atlas_fail_fast) */
static _Thread_local const char *atlas_err_static;

const char *atlas_strerror(int err)
{
	switch (err) {
#define ATLAS_X_TEXT(name, value, text) case name: return text;
	ATLAS_ERROR_LIST(ATLAS_X_TEXT)
#undef ATLAS_X_TEXT
	}
	return "unknown error";
}

const char *atlas_last_error(void)
{
	return atlas_err_static ? atlas_err_static : atlas_err_text;
}

int atlas_fail_fast(int err, const char *text)
{
	atlas_err_static = text;
	return err;
}

int atlas_fail(int err, const char *fmt, ...)
{
	va_list ap;
	atlas_err_static = NULL;
	va_start(ap, fmt);
	int n = vsnprintf(atlas_err_text, sizeof atlas_err_text, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof atlas_err_text)
		snprintf(atlas_err_text + n, sizeof atlas_err_text - (size_t)n, " (%s)",
			 atlas_strerror(err));
	return err;
}

int atlas_fail_lc(atlas_factory *f, int lrc, const char *what)
{
	int err;
	switch (lrc) {
	case LC_ERR_NOMEM:
		err = ATLAS_ERR_NOMEM;
		break;
	case LC_ERR_RANGE:
		err = ATLAS_ERR_RANGE;
		break;
	case LC_ERR_PEER_DEAD:
	case LC_ERR_LOST:
	case LC_ERR_TIMEOUT:
		err = ATLAS_ERR_PEER;
		break;
	default:
		err = ATLAS_ERR_COMM;
		break;
	}
	const char *d = lc_last_error(f ? f->lc : NULL);
	return atlas_fail(err, "%s: %s%s%s", what, lc_strerror(lrc), d[0] ? ": " : "", d);
}
