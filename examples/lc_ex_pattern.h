/* SPDX-License-Identifier: MIT */
/* Payload patterns, checksums and option parsing shared by the examples and their MPI twins. */
#ifndef LC_EX_PATTERN_H
#define LC_EX_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif /* LC_EX_PATTERN_H */
