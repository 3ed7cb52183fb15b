/* SPDX-License-Identifier: MIT */
/* Errors: epos_strerror, epos_last_error (per thread, with detail), libcomm codes -> epos codes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>

#include "epos_impl.h"

static _Thread_local char epos_err_text[256];

const char *epos_strerror(int err)
{
	switch (err) {
#define EPOS_X_TEXT(name, value, text) case name: return text;
	EPOS_ERROR_LIST(EPOS_X_TEXT)
#undef EPOS_X_TEXT
	}
	return "unknown error";
}

const char *epos_last_error(void)
{
	return epos_err_text;
}

int epos_fail(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(epos_err_text, sizeof epos_err_text, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof epos_err_text)
		snprintf(epos_err_text + n, sizeof epos_err_text - (size_t)n, " (%s)",
			 epos_strerror(err));
	return err;
}

int epos_fail_lc(int lrc, const char *what)
{
	int err;
	switch (lrc) {
	case LC_ERR_NOMEM:
		err = EPOS_ERR_NOMEM;
		break;
	case LC_ERR_PEER_DEAD:
	case LC_ERR_LOST:
		err = EPOS_ERR_PEER;
		break;
	case LC_ERR_TIMEOUT:
		err = EPOS_ERR_TIMEOUT;
		break;
	case LC_ERR_CLOSED:
		err = EPOS_ERR_CLOSED;
		break;
	default:
		err = EPOS_ERR_COMM;
		break;
	}
	return epos_fail(err, "%s: %s", what, lc_last_error(NULL));
}
