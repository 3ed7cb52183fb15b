/* SPDX-License-Identifier: MIT */
/* Patterns, checksums, options, sweep, table rows: shared by examples, shm_pingpong, MPI twins. */
#ifndef LC_EX_PATTERN_H
#define LC_EX_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A payload is a run of 64-bit words w[k] = seed + k * golden, so every word
 * of a message is distinct (a misplaced frame is seen) and the seed depends on
 * what the message is (size and iteration, or sequence number), so a stale
 * or duplicated message is seen too.  Filling and checking run at memory speed.
 */
#define LC_EX_GOLDEN 0x9E3779B97F4A7C15ull

static inline uint64_t lc_ex_seed(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0xff51afd7ed558ccdull ^ (b + 0x632be59bd9b4e019ull);
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 29;
	return x;
}

/* Two 64-bit lanes (SSE2 on x86-64, NEON on arm64; plain code elsewhere). */
typedef uint64_t lc_ex_v2 __attribute__((vector_size(16)));

/*
 * Fill and check work on 32 bytes per round with two vectors of two words
 * (the payload is touched inside the timed loops: a byte- or word-at-a-time
 * loop was a quarter of the sender's instructions at 1 MiB).
 */
static inline void lc_ex_fill(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	size_t k = 0, n = len / 8, n4 = n & ~(size_t)3;
	lc_ex_v2 a = { seed, seed + LC_EX_GOLDEN };
	lc_ex_v2 b = a + 2 * LC_EX_GOLDEN;
	const lc_ex_v2 step = { 4 * LC_EX_GOLDEN, 4 * LC_EX_GOLDEN };

	for (; k < n4; k += 4) {
		memcpy(p + 8 * k, &a, 16);
		memcpy(p + 8 * k + 16, &b, 16);
		a += step;
		b += step;
	}
	for (; k < n; k++) {
		uint64_t w = seed + k * LC_EX_GOLDEN;
		memcpy(p + 8 * k, &w, 8);
	}
	if (len % 8) {
		uint64_t w = seed + k * LC_EX_GOLDEN;
		memcpy(p + 8 * k, &w, len % 8);
	}
}

/*
 * Bytes from .. from + len - 1 of the pattern of seed into buf (a message
 * gathered from several buffers: each holds its piece).  The pattern from
 * word k on is the pattern of seed + k * golden, so after the bytes up to a
 * word boundary it is lc_ex_fill's.
 */
static inline void lc_ex_fill_at(void *buf, size_t from, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	size_t head = (8 - from % 8) % 8;

	if (head > len)
		head = len;
	for (size_t i = 0; i < head; i++)
		p[i] = (unsigned char)((seed + (from + i) / 8 * LC_EX_GOLDEN) >> (8 * ((from + i) % 8)));
	lc_ex_fill(p + head, len - head, seed + (from + head) / 8 * LC_EX_GOLDEN);
}

/* Offset of the first byte that differs from the pattern, or len when all match. */
static inline size_t lc_ex_check(const void *buf, size_t len, uint64_t seed)
{
	const unsigned char *p = buf;
	size_t k = 0, n = len / 8, n4 = n & ~(size_t)3;
	lc_ex_v2 a = { seed, seed + LC_EX_GOLDEN };
	lc_ex_v2 b = a + 2 * LC_EX_GOLDEN;
	const lc_ex_v2 step = { 4 * LC_EX_GOLDEN, 4 * LC_EX_GOLDEN };

	/* whole rounds while they match; the word-wise loop below finds the byte */
	for (; k < n4; k += 4) {
		lc_ex_v2 x, y, d;

		memcpy(&x, p + 8 * k, 16);
		memcpy(&y, p + 8 * k + 16, 16);
		d = (x ^ a) | (y ^ b);
		if (d[0] | d[1])
			break;
		a += step;
		b += step;
	}
	for (; k < n; k++) {
		uint64_t w = seed + k * LC_EX_GOLDEN, g;
		memcpy(&g, p + 8 * k, 8);
		if (g != w)
			break;
	}
	if (k < n || len % 8) {
		uint64_t w = seed + k * LC_EX_GOLDEN;
		const unsigned char *e = (const unsigned char *)&w;
		size_t m = k < n ? 8 : len % 8;
		for (size_t j = 0; j < m; j++)
			if (p[8 * k + j] != e[j])
				return 8 * k + j;
	}
	return len;
}

/* 32-bit checksum of len bytes (word-wise rotate-xor-add, then folded). */
static inline uint32_t lc_ex_sum(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t s = 0x84222325cbf29ce4ull ^ len;
	size_t k = 0;
	for (; k + 8 <= len; k += 8) {
		uint64_t w;
		memcpy(&w, p + k, 8);
		s = ((s << 5) | (s >> 59)) ^ w;
		s += w >> 17;
	}
	for (; k < len; k++)
		s = (s * 0x100000001b3ull) ^ p[k];
	s ^= s >> 32;
	return (uint32_t)s;
}

/*
 * The per-message header of stream (first 16 bytes of every message of at
 * least that size): sequence number, length, checksum of the payload after
 * the header, checksum of the first 12 header bytes.  Together they tell a
 * corrupt message (a checksum fails) from a duplicate (a sequence number seen
 * before), an out-of-order one (lower than one seen already) and a lost one
 * (never seen).
 */
struct lc_ex_hdr {
	uint32_t seq;
	uint32_t len;
	uint32_t sum;
	uint32_t hsum;
};
#define LC_EX_HDR_BYTES 16u
_Static_assert(sizeof(struct lc_ex_hdr) == LC_EX_HDR_BYTES, "stream header is 16 bytes");

static inline uint32_t lc_ex_hdr_sum(const struct lc_ex_hdr *h)
{
	return lc_ex_sum(h, 12) ^ 0x5bd1e995u;
}

/* Parse "min:max" (each a size with optional K/M suffix). 0 or -1. */
static inline int lc_ex_parse_size(const char *s, char **end, size_t *out)
{
	unsigned long long v = strtoull(s, end, 10);
	if (*end == s)
		return -1;
	if (**end == 'K' || **end == 'k') {
		v <<= 10;
		(*end)++;
	} else if (**end == 'M' || **end == 'm') {
		v <<= 20;
		(*end)++;
	}
	*out = (size_t)v;
	return 0;
}

static inline int lc_ex_parse_range(const char *s, size_t *lo, size_t *hi)
{
	char *end;
	if (lc_ex_parse_size(s, &end, lo) != 0 || *end != ':')
		return -1;
	if (lc_ex_parse_size(end + 1, &end, hi) != 0 || *end != '\0' || *hi < *lo)
		return -1;
	return 0;
}

/* Sizes of a sweep: 0 (when lo is 0), then the powers of two in [max(lo,1), hi]. */
static inline size_t lc_ex_next_size(size_t cur, size_t lo)
{
	if (cur == 0)
		return lo > 1 ? lo : 1;
	/* the next power of two above cur */
	size_t p = 1;
	while (p <= cur)
		p <<= 1;
	return p;
}

/*
 * The size after cur in the sweep lo..hi, or SIZE_MAX once hi is done:
 *   for (size_t size = lo; size <= hi; size = lc_ex_sweep_next(size, lo, hi))
 */
static inline size_t lc_ex_sweep_next(size_t cur, size_t lo, size_t hi)
{
	return cur == hi ? SIZE_MAX : lc_ex_next_size(cur, lo);
}

/*
 * Iterations (or windows) at a size: base up to 8 KiB, then fewer in
 * proportion to the size (OSU's large-message loop), never under floor.
 */
static inline unsigned lc_ex_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

/*
 * Rounds (iterations or windows) at a size, both scaled: returns the timed
 * ones (at least timed_floor) and sets *warm to the warm-up ones (at least
 * warm_floor when o->warmup asked for any).  Latency programs: floors 10
 * and 2; windowed ones: a timed floor of their own and 1.
 */
static inline unsigned lc_ex_rounds(unsigned iters, unsigned warmup, size_t size,
				    unsigned timed_floor, unsigned warm_floor, unsigned *warm)
{
	*warm = lc_ex_scaled(warmup, size, warmup ? warm_floor : 0);
	return lc_ex_scaled(iters, size, timed_floor);
}

/*
 * A message of the windowed bandwidth programs (bibw and the MPI stream)
 * carries its sequence number in its first and last 4 bytes (8 bytes or
 * more) over a payload filled once per slot; a smaller one is the whole
 * pattern of its sequence number.  The receiver wipes the stamps after
 * checking them, so a stale message in a reused slot is seen.
 */
static inline void lc_ex_stamp(unsigned char *b, size_t size, uint32_t seq)
{
	memcpy(b, &seq, 4);
	memcpy(b + size - 4, &seq, 4);
}

static inline void lc_ex_mark(unsigned char *b, size_t size, uint32_t seq)
{
	if (size >= 8)
		lc_ex_stamp(b, size, seq);
	else
		lc_ex_fill(b, size, lc_ex_seed(size, seq));
}

/* 1 when the message of size bytes in b is message seq (its stamps are wiped), else 0. */
static inline int lc_ex_marked(unsigned char *b, size_t size, uint32_t seq)
{
	if (size < 8)
		return lc_ex_check(b, size, lc_ex_seed(size, seq)) == size;
	uint32_t a, z;
	memcpy(&a, b, 4);
	memcpy(&z, b + size - 4, 4);
	memset(b, 0, 4);
	memset(b + size - 4, 0, 4);
	return a == seq && z == seq;
}

/*
 * Command-line options.  Every program takes -s min:max, -i N and -w N; the
 * flags add the others.  The caller fills in the defaults first.
 */
struct lc_ex_opts {
	size_t lo, hi;                  /* -s lo:hi */
	unsigned iters, warmup;         /* -i, -w */
	unsigned window;                /* --window (LC_EX_OPT_WINDOW), 1..4096 */
	unsigned long work_us;          /* --work-us (LC_EX_OPT_WORK) */
	int verify;                     /* --verify (LC_EX_OPT_VERIFY) */
	unsigned tail_ms;               /* --tail-ms (LC_EX_OPT_VERIFY), above 0 */
	unsigned pairs;                 /* --pairs (LC_EX_OPT_PAIRS): active pairs, 0 = all */
	int phases;                     /* --phases (LC_EX_OPT_PHASES) */
};

#define LC_EX_OPT_WINDOW 1u     /* --window W */
#define LC_EX_OPT_WORK   2u     /* --work-us U */
#define LC_EX_OPT_VERIFY 4u     /* --verify, --tail-ms MS */
#define LC_EX_OPT_PAIRS  16u    /* --pairs K: of a run of N nodes, pairs (0,1) .. (2K-2,2K-1)
				 * exchange at once, the other nodes idle (default: all N/2) */
#define LC_EX_OPT_PHASES 32u   /* --phases: where each window's time goes (lc_ex_phase) */
#define LC_EX_OPT_COUNTS 8u     /* a bad -i or -w value is a "bad iteration count" or a
				 * "bad warm-up count" (the latency programs), not a "bad number" */

/*
 * Parse argv into o: 0; 2 after printing "<prog>: bad ..." for a bad value;
 * 1 for an option the flags do not take or one without its value (nothing
 * printed: the caller prints its usage).  -i 0 is bad; so is any number
 * while -i, --window or --tail-ms hold a bad value.
 */
static inline int lc_ex_parse(int argc, char **argv, const char *prog, unsigned flags,
			      struct lc_ex_opts *o)
{
	for (int a = 1; a < argc; a++) {
		const char *opt = argv[a], *what = "number";
		char *end;
		int zero = 0;

		if (strcmp(opt, "--verify") == 0 && (flags & LC_EX_OPT_VERIFY)) {
			o->verify = 1;
			continue;
		}
		if (strcmp(opt, "--phases") == 0 && (flags & LC_EX_OPT_PHASES)) {
			o->phases = 1;
			continue;
		}
		if (a + 1 >= argc)
			return 1;
		if (strcmp(opt, "-s") == 0) {
			if (lc_ex_parse_range(argv[++a], &o->lo, &o->hi) != 0) {
				fprintf(stderr, "%s: bad size range '%s'\n", prog, argv[a]);
				return 2;
			}
			continue;
		}
		if (strcmp(opt, "-i") == 0) {
			o->iters = (unsigned)strtoul(argv[++a], &end, 10);
			if (flags & LC_EX_OPT_COUNTS)
				what = "iteration count";
		} else if (strcmp(opt, "-w") == 0) {
			o->warmup = (unsigned)strtoul(argv[++a], &end, 10);
			if (flags & LC_EX_OPT_COUNTS)
				what = "warm-up count";
		} else if (strcmp(opt, "--window") == 0 && (flags & LC_EX_OPT_WINDOW)) {
			o->window = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(opt, "--work-us") == 0 && (flags & LC_EX_OPT_WORK)) {
			o->work_us = strtoul(argv[++a], &end, 10);
		} else if (strcmp(opt, "--tail-ms") == 0 && (flags & LC_EX_OPT_VERIFY)) {
			o->tail_ms = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(opt, "--pairs") == 0 && (flags & LC_EX_OPT_PAIRS)) {
			o->pairs = (unsigned)strtoul(argv[++a], &end, 10);
			what = "pair count";
			zero = o->pairs == 0;   /* leave --pairs out for all pairs */
		} else {
			return 1;
		}
		if (*end || zero || o->iters == 0 ||
		    ((flags & LC_EX_OPT_WINDOW) && (o->window == 0 || o->window > 4096)) ||
		    ((flags & LC_EX_OPT_VERIFY) && o->tail_ms == 0)) {
			fprintf(stderr, "%s: bad %s '%s'\n", prog, what, argv[a]);
			return 2;
		}
	}
	return 0;
}

/*
 * --phases (msgrate and its MPI twin): where a window's time goes on each
 * node.  The caller marks every window at three instants of its clock (s):
 * its start (mark 0), the end of its posting loop (1: the sender's fills and
 * sends, the receiver's posted receives) and the end of its wait for them
 * (2); the rest runs to the next window's start (the sender's wait for the
 * ack; the receiver's checks and its ack).  Only timed windows count, and a
 * mark 0 with timed = 0 after the last one closes it, so the three sums make
 * the rate's own time.  The node whose phase is longest per message bounds
 * the rate; the other waits in its wait or rest.
 */
struct lc_ex_phases {
	double mark[3], sum[3];
	unsigned n;
	int open;
};

static inline void lc_ex_phase(struct lc_ex_phases *p, unsigned k, double t, int timed)
{
	if (k == 0 && p->open) {
		p->sum[0] += p->mark[1] - p->mark[0];
		p->sum[1] += p->mark[2] - p->mark[1];
		p->sum[2] += t - p->mark[2];
		p->n++;
		p->open = 0;
	}
	if (!timed)
		return;
	p->mark[k] = t;
	p->open = k == 2;
}

/* The phases of size's windows (window messages each) on node `node` in its role; then reset. */
static inline void lc_ex_phases_print(struct lc_ex_phases *p, size_t size, unsigned window, int node,
				      const char *role)
{
	double k = p->n ? 1e9 / ((double)p->n * window) : 0;

	printf("# phases %zu B node %d (%s): post %.1f wait %.1f rest %.1f ns a message, %u windows\n",
	       size, node, role, p->sum[0] * k, p->sum[1] * k, p->sum[2] * k, p->n);
	fflush(stdout);
	*p = (struct lc_ex_phases){ 0 };
}

/* One row of the table (node 0): the size and one figure. */
static inline void lc_ex_row(size_t size, double v)
{
	printf("%-12zu%16.3f\n", size, v);
	fflush(stdout);
}

/* One row of a rate table: the size, MB/s and messages/s of msgs messages of size bytes in dt s. */
static inline void lc_ex_row_rate(size_t size, double msgs, double dt)
{
	printf("%-12zu%16.2f%14.0f\n", size, (double)size * msgs / dt / 1e6, msgs / dt);
	fflush(stdout);
}

/*
 * Clocks, for the programs built with POSIX (CLOCK_MONOTONIC is declared
 * only then; the MPI twins, strict C11, time with MPI_Wtime).
 */
#ifdef CLOCK_MONOTONIC
static inline double lc_ex_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double lc_ex_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/*
 * The iterations of one size of a latency program (pingpong, bcast,
 * shm_pingpong): the warm-up ones, then the timed ones, whose clock (t0,
 * microseconds) starts as the first of them begins:
 *   struct lc_ex_lat l = lc_ex_lat(&o, size);
 *   for (unsigned it = 0; lc_ex_lat_more(&l, it); it++)
 *           ...;
 *   per iteration: (lc_ex_now_us() - l.t0) / l.timed
 */
struct lc_ex_lat {
	unsigned warm, timed;
	double t0;
};

static inline struct lc_ex_lat lc_ex_lat(const struct lc_ex_opts *o, size_t size)
{
	struct lc_ex_lat l = { 0, 0, 0 };

	l.timed = lc_ex_rounds(o->iters, o->warmup, size, 10, 2, &l.warm);
	return l;
}

/* 1 while iteration it is one to run (the first timed one starts the clock), then 0. */
static inline int lc_ex_lat_more(struct lc_ex_lat *l, unsigned it)
{
	if (it == l->warm)
		l->t0 = lc_ex_now_us();
	return it < l->warm + l->timed;
}
#endif

#endif /* LC_EX_PATTERN_H */
