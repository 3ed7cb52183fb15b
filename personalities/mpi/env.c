/* SPDX-License-Identifier: MIT */
/* MPI_Get_processor_name, Get_version, Wtime, Wtick, Alloc_mem, Free_mem. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_impl.h"

int MPI_Get_processor_name(char *name, int *resultlen)
{
	if (LCMPI_PARAM_CHECK && (!name || !resultlen))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_processor_name",
				 "NULL argument");
	char host[MPI_MAX_PROCESSOR_NAME];
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	/* every node runs on this host: the node id tells them apart */
	int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s:node%d", host,
			 lcmpi.node ? lc_rank(lcmpi.node) : 0);
	*resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
	return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
	if (!version || !subversion)
		return MPI_ERR_ARG;
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double MPI_Wtick(void)
{
	struct timespec ts;
	if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	LCMPI_READY("MPI_Alloc_mem");
	if (LCMPI_PARAM_CHECK) {
		if (size < 0 || !baseptr)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Alloc_mem",
					 "size %td, baseptr %p", size, baseptr);
		if (info != MPI_INFO_NULL)
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Alloc_mem",
					 "info %d: only MPI_INFO_NULL exists", info);
	}
	void *p = NULL;
	if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "%td bytes", size);
	memcpy(baseptr, &p, sizeof p);
	return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
	free(base);
	return MPI_SUCCESS;
}
