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
 *        crc_speed -f footprint... [-r reps]
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
 *
 * With -f (tools/costmodel/calibrate.py): a memcpy of 8 KiB blocks out of
 * the cache, as the pipeline's copies walk its rings -- for each footprint
 * F (bytes, K/M suffixes), blocks taken in turn from a source ring of F
 * bytes into a destination ring of F bytes, the rings walked several times
 * first; prints "8192 memcpy@F median min max" in bytes per TSC tick.
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

/* -f: 8 KiB copies walking two rings of fp bytes; reps timed ones.  0, or 1 out of memory. */
static int footprint_rows(size_t fp, int reps)
{
	enum { BLK = 8192 };
	size_t n = fp / BLK ? fp / BLK : 1, warm = 4 * n;
	unsigned char *src = malloc(n * BLK), *dst = malloc(n * BLK);
	double *v = malloc(sizeof(double) * (size_t)reps);

	if (!src || !dst || !v) {
		free(src);
		free(dst);
		free(v);
		return 1;
	}
	memset(src, 1, n * BLK);
	memset(dst, 2, n * BLK);
	for (size_t i = 0; i < warm; i++)
		memcpy(dst + i % n * BLK, src + i % n * BLK, BLK);
	for (int r = 0; r < reps; r++) {
		size_t i = (size_t)r % n;

		v[r] = LC_TIMED(memcpy(dst + i * BLK, src + i * BLK, BLK), BLK);
		__asm__ volatile("" : : "r"(dst) : "memory");   /* the copy is not elided */
	}
	qsort(v, (size_t)reps, sizeof(double), cmp_double);
	printf("%d memcpy@%zu %.3f %.3f %.3f\n", BLK, fp, v[reps / 2], v[0], v[reps - 1]);
	free(src);
	free(dst);
	free(v);
	return 0;
}

/* A byte count with an optional K or M suffix; 0 when it is not one. */
static size_t parse_bytes(const char *t)
{
	char *end;
	unsigned long long v = strtoull(t, &end, 10);

	if (end == t)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	return *end ? 0 : (size_t)v;
}

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

	size_t fps[16];
	int nfp = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-r") == 0 && a + 1 < argc && atoi(argv[a + 1]) > 0)
			reps = atoi(argv[++a]);
		else if (strcmp(argv[a], "-f") == 0 && a + 1 < argc && nfp < 16 &&
			 (fps[nfp] = parse_bytes(argv[a + 1])) > 0) {
			nfp++;
			a++;
		} else {
			fprintf(stderr, "usage: crc_speed [-r reps] | crc_speed -f footprint... [-r reps]\n");
			return 2;
		}
	}
	if (nfp > 0) {
		printf("# tsc_ghz %.3f\n", tsc_ghz());
		printf("# size what median min max (bytes per TSC tick)\n");
		for (int f = 0; f < nfp; f++)
			if (footprint_rows(fps[f], reps) != 0) {
				fprintf(stderr, "crc_speed: out of memory for a footprint of %zu bytes\n", fps[f]);
				return 1;
			}
		return 0;
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
