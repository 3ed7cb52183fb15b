/* SPDX-License-Identifier: MIT */
/* Predefined datatypes and reduction operations: MPI_Get_count, MPI_Type_size, the local reduction. */
#include <assert.h>
#include <stddef.h>

#include "mpi_impl.h"

/*
 * Columns: handle, C type, arithmetic (1: the ops apply; MPI_BYTE is not
 * arithmetic, MPI-3 5.9.2).  The one list: the size table and the
 * reduction functions below are expanded from it.
 */
#define LCMPI_TYPE_LIST(X)                                  \
	X(MPI_CHAR,               char,               1)   \
	X(MPI_SIGNED_CHAR,        signed char,        1)   \
	X(MPI_UNSIGNED_CHAR,      unsigned char,      1)   \
	X(MPI_BYTE,               unsigned char,      0)   \
	X(MPI_SHORT,              short,              1)   \
	X(MPI_UNSIGNED_SHORT,     unsigned short,     1)   \
	X(MPI_INT,                int,                1)   \
	X(MPI_UNSIGNED,           unsigned,           1)   \
	X(MPI_LONG,               long,               1)   \
	X(MPI_UNSIGNED_LONG,      unsigned long,      1)   \
	X(MPI_LONG_LONG,          long long,          1)   \
	X(MPI_UNSIGNED_LONG_LONG, unsigned long long, 1)   \
	X(MPI_FLOAT,              float,              1)   \
	X(MPI_DOUBLE,             double,             1)   \
	X(MPI_LONG_DOUBLE,        long double,        1)

typedef void lcmpi_reduce_fn(void *inout, const void *in, int n, MPI_Op op);

/* one function per C type, the op switched inside (op checked by the caller) */
#define LCMPI_X_REDUCE(h, T, arith)                                                  \
	static void lcmpi_reduce_##h(void *inout, const void *in, int n, MPI_Op op)  \
	{                                                                            \
		T *a = inout;                                                        \
		const T *b = in;                                                     \
		switch (op) {                                                        \
		case MPI_SUM:                                                        \
			for (int i = 0; i < n; i++)                                  \
				a[i] = (T)(a[i] + b[i]);                             \
			break;                                                       \
		case MPI_PROD:                                                       \
			for (int i = 0; i < n; i++)                                  \
				a[i] = (T)(a[i] * b[i]);                             \
			break;                                                       \
		case MPI_MIN:                                                        \
			for (int i = 0; i < n; i++)                                  \
				if (b[i] < a[i])                                     \
					a[i] = b[i];                                 \
			break;                                                       \
		case MPI_MAX:                                                        \
			for (int i = 0; i < n; i++)                                  \
				if (b[i] > a[i])                                     \
					a[i] = b[i];                                 \
			break;                                                       \
		}                                                                    \
	}
LCMPI_TYPE_LIST(LCMPI_X_REDUCE)
#undef LCMPI_X_REDUCE

static const struct lcmpi_type {
	int size;
	lcmpi_reduce_fn *reduce;        /* NULL: not arithmetic */
} lcmpi_types[] = {
#define LCMPI_X_TYPE(h, T, arith) [h] = { (int)sizeof(T), (arith) ? lcmpi_reduce_##h : NULL },
	LCMPI_TYPE_LIST(LCMPI_X_TYPE)
#undef LCMPI_X_TYPE
};
_Static_assert(sizeof lcmpi_types / sizeof lcmpi_types[0] == LCMPI_NTYPES,
	       "LCMPI_TYPE_LIST: every predefined datatype 1 .. MPI_LONG_DOUBLE");

/*
 * The sizes alone, for the inline lcmpi_type_size of every call's checks
 * (mpi_impl.h); MPI_DATATYPE_NULL's -1 (invalid) lets it test the handle
 * with one unsigned compare.
 */
const int lcmpi_type_bytes[LCMPI_NTYPES] = {
	[MPI_DATATYPE_NULL] = -1,
#define LCMPI_X_TYPE(h, T, arith) [h] = (int)sizeof(T),
	LCMPI_TYPE_LIST(LCMPI_X_TYPE)
#undef LCMPI_X_TYPE
};

int lcmpi_reduce_local(void *inout, const void *in, int count, MPI_Datatype dt, MPI_Op op)
{
	if (lcmpi_type_size(dt) < 0)
		return MPI_ERR_TYPE;
	if (op < MPI_SUM || op > MPI_MAX || !lcmpi_types[dt].reduce)
		return MPI_ERR_OP;
	lcmpi_types[dt].reduce(inout, in, count, op);
	return MPI_SUCCESS;
}

int lcmpi_check_buf_fail(MPI_Comm comm, const char *fn, const void *buf, int count,
			 MPI_Datatype dt)
{
	int sz = lcmpi_type_size(dt);
	if (sz < 0)
		return lcmpi_err(comm, MPI_ERR_TYPE, fn, "datatype %d", dt);
	if (count < 0)
		return lcmpi_err(comm, MPI_ERR_COUNT, fn, "count %d", count);
	size_t b = (size_t)count * (size_t)sz;
	if (b > LC_MAX_MSG)
		return lcmpi_err(comm, MPI_ERR_COUNT, fn, "%zu bytes: above %zu", b,
				 (size_t)LC_MAX_MSG);
	if (b > 0 && !buf)
		return lcmpi_err(comm, MPI_ERR_BUFFER, fn, "NULL buffer for %zu bytes", b);
	return lcmpi_err(comm, MPI_ERR_INTERN, fn, "lcmpi_check_buf_fail with valid arguments");
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
	int sz = lcmpi_type_size(datatype);
	if (LCMPI_PARAM_CHECK) {
		if (sz < 0)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_size", "datatype %d",
					 datatype);
		if (!size)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
	}
	*size = sz;
	return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	int sz = lcmpi_type_size(datatype);
	if (LCMPI_PARAM_CHECK) {
		if (sz < 0)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_count", "datatype %d",
					 datatype);
		if (!status || !count)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count",
					 "NULL status or count");
	}
	size_t n = status->lc_count / (size_t)sz;
	*count = (status->lc_count % (size_t)sz || n > 0x7fffffff) ? MPI_UNDEFINED : (int)n;
	return MPI_SUCCESS;
}
