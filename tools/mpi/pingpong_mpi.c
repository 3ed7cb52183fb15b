/* SPDX-License-Identifier: MIT */
/* pingpong_mpi: the MPI twin of examples/pingpong.c (same sizes, iterations, payload check, output). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/lc_ex_pattern.h"

/*
 * Usage: mpirun -np 2 pingpong_mpi [-s min:max] [-i iters] [-w warmup]
 * Same loop as examples/pingpong.c with MPI_Send/MPI_Recv in place of
 * lc_send/lc_recv: the payload of (size, iteration) is filled by rank 0,
 * checked by rank 1, echoed, and checked again by rank 0.
 */
static unsigned lc_mpp_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

int main(int argc, char **argv)
{
	size_t lo = 0, hi = 4u << 20;
	unsigned iters = 1000, warmup = 100;
	int me, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0)
				MPI_Abort(MPI_COMM_WORLD, 2);
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], NULL, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], NULL, 10);
		} else {
			fprintf(stderr, "usage: pingpong_mpi [-s min:max] [-i iters] [-w warmup]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (n != 2 || iters == 0) {
		if (me == 0)
			fprintf(stderr, "pingpong_mpi: needs exactly 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int peer = 1 - me;
	unsigned char *sbuf = malloc(hi ? hi : 1), *rbuf = malloc(hi ? hi : 1);
	if (me == 0) {
		printf("# MPI pingpong (Open MPI)\n");
		printf("# Size  Latency (us)\n");
		fflush(stdout);
	}
	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		unsigned it_timed = lc_mpp_scaled(iters, size, 10);
		unsigned it_warm = lc_mpp_scaled(warmup, size, warmup ? 2 : 0);
		double t0 = 0;
		for (unsigned it = 0; it < it_warm + it_timed; it++) {
			uint64_t seed = lc_ex_seed(size, it);
			MPI_Status st;
			int got;
			if (it == it_warm)
				t0 = MPI_Wtime();
			if (me == 0) {
				lc_ex_fill(sbuf, size, seed);
				MPI_Send(sbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
			}
			MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &got);
			size_t bad = (size_t)got != size ? 0 : lc_ex_check(rbuf, size, seed);
			if ((size_t)got != size || bad != size) {
				fprintf(stderr, "pingpong_mpi: rank %d: payload mismatch: size %zu iteration %u "
						"at byte %zu\n", me, size, it, bad);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			if (me == 1)
				MPI_Send(rbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
		}
		double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * it_timed);
		if (me == 0) {
			printf("%-12zu%16.2f\n", size, us);
			fflush(stdout);
		}
		if (size == hi)
			break;
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
