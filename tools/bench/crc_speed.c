/* SPDX-License-Identifier: MIT */
/* crc_speed: bytes per cycle of the protocols' CRC32C beside a plain memcpy of the same size. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "lc_crc32c.h"

/*
 * Usage: crc_speed [-r reps]
 *
 * For each size from 64 B to 64 KiB, in cache (the buffers are touched
 * first; a frame's payload is in cache when its CRC is computed), times
 * reps runs of each of
 *   crc     lc_crc32c over the buffer (what checksum and reliability do),
 *   memcpy  memcpy of the same bytes (the copy the pipeline makes anyway),
 *   fused   lc_crc32c_copy (the CRC and that copy in one pass),
 * the three interleaved in each repetition so they see the same noise, and
 * prints "size what median min max" in bytes per TSC tick.  The TSC ticks at
 * the nominal frequency, which a turbo core outruns: a tick is a cycle of
 * the nominal clock, the only cycle counter this machine lets a program read
 * (no perf counters).  The first line gives the TSC's frequency against
 * CLOCK_MONOTONIC: "# tsc_ghz F".
 */
enum { MAXB = 65536 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double tsc_ghz(void)
{
	struct timespec a, b;
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 100000000L);
	t1 = __rdtsc();
	return (double)(t1 - t0) / (double)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096, 8192, 16384, 65536 };
	static const char *const what[] = { "crc", "memcpy", "fused" };
	static unsigned char src[MAXB], dst[MAXB];
	int reps = 2000;
	volatile uint32_t sink = 0;

	if (argc == 3 && strcmp(argv[1], "-r") == 0 && atoi(argv[2]) > 0)
		reps = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: crc_speed [-r reps]\n");
		return 2;
	}
	double *v[3];
	for (int k = 0; k < 3; k++) {
		v[k] = malloc(sizeof(double) * (size_t)reps);
		if (!v[k])
			return 1;
	}
	for (size_t i = 0; i < MAXB; i++)
		src[i] = (unsigned char)(i * 131u + 7u);
	memset(dst, 0, sizeof dst);
	printf("# tsc_ghz %.3f\n", tsc_ghz());
	printf("# size what median min max (bytes per TSC tick)\n");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s];

		for (int r = 0; r < reps; r++) {
			uint64_t t0 = __rdtsc();
			sink ^= lc_crc32c(0, src, n);
			uint64_t t1 = __rdtsc();
			memcpy(dst, src, n);
			__asm__ volatile("" : : "r"(dst) : "memory");   /* the copy is not elided */
			uint64_t t2 = __rdtsc();
			sink ^= lc_crc32c_copy(0, dst, src, n);
			uint64_t t3 = __rdtsc();

			v[0][r] = (double)n / (double)(t1 - t0 ? t1 - t0 : 1);
			v[1][r] = (double)n / (double)(t2 - t1 ? t2 - t1 : 1);
			v[2][r] = (double)n / (double)(t3 - t2 ? t3 - t2 : 1);
		}
		for (int k = 0; k < 3; k++) {
			qsort(v[k], (size_t)reps, sizeof(double), cmp_double);
			printf("%zu %s %.3f %.3f %.3f\n", n, what[k], v[k][reps / 2], v[k][0], v[k][reps - 1]);
		}
	}
	for (int k = 0; k < 3; k++)
		free(v[k]);
	return sink == 0xffffffffu;   /* never: keeps the CRCs computed */
}
