/* SPDX-License-Identifier: MIT */
/* The personality fuzz harness's shared parts: the input reader, findings, the per-personality scripts. */
#ifndef FZ_PERSONALITY_H
#define FZ_PERSONALITY_H

#include <stddef.h>
#include <stdint.h>

/* The input, read a byte at a time; past its end every read is 0. */
struct fz_in {
	const uint8_t *p;
	size_t n, i;
};

static inline int fz_more(const struct fz_in *in)
{
	return in->i < in->n;
}

static inline unsigned fz_byte(struct fz_in *in)
{
	return in->i < in->n ? in->p[in->i++] : 0;
}

/* 32 bits, little-endian. */
static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++)
		v |= (uint32_t)fz_byte(in) << (8 * k);
	return v;
}

/* One of table[0..n-1], or (one byte value in n + 1) any 32-bit value. */
static inline int fz_pick(struct fz_in *in, const int *table, size_t n)
{
	unsigned b = fz_byte(in) % (unsigned)(n + 1);
	return b < n ? table[b] : (int)fz_u32(in);
}

#define FZ_N(t) (sizeof(t) / sizeof((t)[0]))

/* A finding: the message on stderr, then abort() (the session's process dies of it). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Deterministic payload bytes of message seed at offset i. */
static inline uint8_t fz_pattern(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u;
	return (uint8_t)(x ^ (x >> 13) ^ (uint32_t)(i >> 8));
}

void fz_fill(uint8_t *buf, size_t n, uint32_t seed);
/* Index of the first byte of buf that is not message seed's (n: all match). */
size_t fz_check(const uint8_t *buf, size_t n, uint32_t seed);

/*
 * The scripts, one per personality: each runs one session of a
 * single-process job (the node's segment exists, LC_JOB/LC_NODE/LC_NODES
 * set) from the input, and leaves the node closed.
 */
void fz_mpi(struct fz_in *in);
void fz_csn(struct fz_in *in);
void fz_atlas(struct fz_in *in);
void fz_epos(struct fz_in *in);

#endif /* FZ_PERSONALITY_H */
