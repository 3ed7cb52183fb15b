/* SPDX-License-Identifier: MIT */
/* Errors: handlers (MPI_Comm_set/get_errhandler), MPI_Error_string, MPI_Error_class, libcomm -> MPI classes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

static const char *const lcmpi_err_text[] = {
#define LCMPI_X_TEXT(name, value, text) [value] = #name ": " text,
	LCMPI_ERROR_LIST(LCMPI_X_TEXT)
#undef LCMPI_X_TEXT
};
_Static_assert(sizeof lcmpi_err_text / sizeof lcmpi_err_text[0] == MPI_ERR_LASTCODE,
	       "LCMPI_ERROR_LIST: values must run 0 .. MPI_ERR_LASTCODE-1");

static const char *lcmpi_text(int code)
{
	if (code < 0 || code >= MPI_ERR_LASTCODE || !lcmpi_err_text[code])
		return NULL;
	return lcmpi_err_text[code];
}

int lcmpi_err(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
{
	if (code == MPI_SUCCESS)
		return code;
	struct lcmpi_comm *c = lcmpi_comm(comm);
	/* an invalid communicator: the handler of MPI_COMM_WORLD (MPI-3 8.3) */
	if (!c)
		c = lcmpi_comm(MPI_COMM_WORLD);
	if (c && c->eh == MPI_ERRORS_RETURN)
		return code;
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	const char *t = lcmpi_text(code);
	fprintf(stderr, "node %d: %s: %s%s%s (MPI_ERRORS_ARE_FATAL)\n",
		lcmpi.node ? lc_rank(lcmpi.node) : -1, fn, t ? t : "unknown error code",
		detail[0] ? ": " : "", detail);
	fflush(NULL);
	_Exit(1);
}

int lcmpi_not_ready(const char *fn)
{
	fprintf(stderr, "%s: %s\n", fn, lcmpi.finalized ? "called after MPI_Finalize" :
		"called before MPI_Init");
	fflush(NULL);
	_Exit(1);
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
	if (!string || !resultlen)
		return MPI_ERR_ARG;
	const char *t = lcmpi_text(errorcode);
	if (!t)
		return MPI_ERR_ARG;
	int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
	*resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
	return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
	if (!errorclass || !lcmpi_text(errorcode))
		return MPI_ERR_ARG;
	*errorclass = errorcode;
	return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	LCMPI_READY("MPI_Comm_set_errhandler");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		if (!c)
			return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "comm %d",
					 comm);
		if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
			return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
					 "errhandler %d", errhandler);
	}
	c->eh = errhandler;
	return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	LCMPI_READY("MPI_Comm_get_errhandler");
	struct lcmpi_comm *c = lcmpi_comm(comm);
	if (LCMPI_PARAM_CHECK) {
		if (!c)
			return lcmpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_errhandler", "comm %d",
					 comm);
		if (!errhandler)
			return lcmpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler",
					 "errhandler is NULL");
	}
	*errhandler = c->eh;
	return MPI_SUCCESS;
}
