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
 *   crc:<impl>    lc_crc32c over the buffer (what checksum and reliability do),
 *   fused:<impl>  lc_crc32c_copy (the CRC and a copy in one pass),
 *   memcpy        memcpy of the same bytes (the copy the pipeline makes anyway),
 * for each implementation of the CRC this CPU has beyond the table
 * (lc_crc32c_select: sse42, the crc32 instruction in three chains; fold,
 * VPCLMULQDQ over AVX-512; the table where it has neither), all
 * interleaved in each repetition so they see the same noise, and prints
 * "size what median min max" in bytes per TSC tick.  The TSC ticks at the
 * nominal frequency, which a turbo core outruns: a tick is a cycle of the
 * nominal clock, the only cycle counter this machine lets a program read
 * (no perf counters).  The first lines give the TSC's frequency against
 * CLOCK_MONOTONIC, "# tsc_ghz F", and the
 * implementation the protocols use here, "# default IMPL".
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

/* One timed call: bytes per TSC tick of fn over n bytes. */
#define LC_TIMED(expr, n)                                                       \
	({                                                                      \
		uint64_t t0_ = __rdtsc();                                       \
		expr;                                                           \
		uint64_t t1_ = __rdtsc();                                       \
		(double)(n) / (double)(t1_ - t0_ ? t1_ - t0_ : 1);              \
	})

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096, 8192, 16384, 65536 };
	static const char *const impls[] = { "sse42", "fold" };
	static unsigned char src[MAXB], dst[MAXB];
	const char *def;
	char names[5][16];
	const char *have[2];
	int reps = 2000, nimpl = 0, ncol;
	volatile uint32_t sink = 0;

	if (argc == 3 && strcmp(argv[1], "-r") == 0 && atoi(argv[2]) > 0)
		reps = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: crc_speed [-r reps]\n");
		return 2;
	}
	def = lc_crc32c_name();
	for (int i = 0; i < 2; i++)
		if (lc_crc32c_select(impls[i]) == 0)
			have[nimpl++] = impls[i];
	if (nimpl == 0 && lc_crc32c_select("table") == 0)
		have[nimpl++] = "table";        /* a CPU without SSE4.2: the table is what runs */
	ncol = 1 + 2 * nimpl;
	snprintf(names[0], sizeof names[0], "memcpy");
	for (int i = 0; i < nimpl; i++) {
		snprintf(names[1 + 2 * i], sizeof names[0], "crc:%s", have[i]);
		snprintf(names[2 + 2 * i], sizeof names[0], "fused:%s", have[i]);
	}
	double *v[5];
	for (int k = 0; k < ncol; k++) {
		v[k] = malloc(sizeof(double) * (size_t)reps);
		if (!v[k])
			return 1;
	}
	for (size_t i = 0; i < MAXB; i++)
		src[i] = (unsigned char)(i * 131u + 7u);
	memset(dst, 0, sizeof dst);
	printf("# tsc_ghz %.3f\n", tsc_ghz());
	printf("# default %s\n", def);
	printf("# size what median min max (bytes per TSC tick)\n");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s];

		for (int r = 0; r < reps; r++) {
			v[0][r] = LC_TIMED(memcpy(dst, src, n), n);
			__asm__ volatile("" : : "r"(dst) : "memory");   /* the copy is not elided */
			for (int i = 0; i < nimpl; i++) {
				lc_crc32c_select(have[i]);
				v[1 + 2 * i][r] = LC_TIMED(sink ^= lc_crc32c(0, src, n), n);
				v[2 + 2 * i][r] = LC_TIMED(sink ^= lc_crc32c_copy(0, dst, src, n), n);
			}
		}
		for (int k = 0; k < ncol; k++) {
			qsort(v[k], (size_t)reps, sizeof(double), cmp_double);
			printf("%zu %s %.3f %.3f %.3f\n", n, names[k], v[k][reps / 2], v[k][0], v[k][reps - 1]);
		}
	}
	for (int k = 0; k < ncol; k++)
		free(v[k]);
	return sink == 0xffffffffu;   /* never: keeps the CRCs computed */
}
