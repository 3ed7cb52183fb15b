/* SPDX-License-Identifier: MIT */
/* Shared pieces of the Open MPI twins of the libcomm examples: options, timing, sweep, stamps. */
#ifndef LC_MPI_BENCH_H
#define LC_MPI_BENCH_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_ex_pattern.h"

/*
 * Every twin takes the options of its libcomm example (-s min:max, -i, -w,
 * --window), sweeps the same sizes, scales its iterations the same way,
 * checks its payload the same way and prints the same table, so that a
 * libcomm figure and an Open MPI figure differ only by the transport.
 */
struct lc_mb_opts {
	size_t lo, hi;
	unsigned iters, warmup, window;
};

/* 0 on success, 2 on a bad option (message printed). */
static inline int lc_mb_parse(int argc, char **argv, const char *prog, struct lc_mb_opts *o)
{
	for (int a = 1; a < argc; a++) {
		char *end = NULL;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &o->lo, &o->hi) != 0) {
				fprintf(stderr, "%s: bad size range '%s'\n", prog, argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			o->iters = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			o->warmup = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
			o->window = (unsigned)strtoul(argv[++a], &end, 10);
		} else {
			fprintf(stderr, "usage: mpirun -np 2 %s [-s min:max] [-i iters] [-w warmup] "
					"[--window W]\n", prog);
			return 2;
		}
		if (end && (*end || o->iters == 0 || o->window == 0 || o->window > 4096)) {
			fprintf(stderr, "%s: bad number '%s'\n", prog, argv[a]);
			return 2;
		}
	}
	return 0;
}

static inline unsigned lc_mb_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

/* Stamp the sequence number into the first and last 4 bytes (size >= 8). */
static inline void lc_mb_stamp(unsigned char *b, size_t size, uint32_t seq)
{
	memcpy(b, &seq, 4);
	memcpy(b + size - 4, &seq, 4);
}

/* 0 when the stamps carry seq; wipes them so that a stale message is seen next time. */
static inline int lc_mb_unstamp(unsigned char *b, size_t size, uint32_t seq)
{
	uint32_t a, z;
	memcpy(&a, b, 4);
	memcpy(&z, b + size - 4, 4);
	memset(b, 0, 4);
	memset(b + size - 4, 0, 4);
	return a == seq && z == seq ? 0 : -1;
}

static inline void *lc_mb_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory for %zu bytes\n", n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

#endif /* LC_MPI_BENCH_H */
