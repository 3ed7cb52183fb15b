/* SPDX-License-Identifier: MIT */
/* Helpers of the CSN examples: the seed's Assert, a clock, and the filter pipeline's byte pattern. */
#ifndef CSN_EX_H
#define CSN_EX_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "csn.h"

/* The seed's Assert(call = CsnOk): on failure print the status and the detail, exit 1. */
#define CSN_EX_OK(call)                                                                        \
	do {                                                                                   \
		csn_status csn_ex_s_ = (call);                                                 \
		if (csn_ex_s_ != CsnOk) {                                                      \
			fprintf(stderr, "%s:%d: %s: FAIL %s (%s)\n", __FILE__, __LINE__, #call,  \
				csn_strstatus(csn_ex_s_), csn_last_error());                   \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

static inline double csn_ex_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The pipeline's data: byte j of message i as the source sends it, and the
 * filter's transformation (xor with a mask of j), so that the sink can check
 * every byte: a lost, duplicated, reordered, truncated or unfiltered message
 * shows.  Consecutive messages differ in every byte (251 is odd).
 */
static inline uint8_t csn_ex_byte(uint32_t i, uint32_t j)
{
	return (uint8_t)(i * 251u + j * 7u + (i >> 8) * 13u + 1u);
}

static inline uint8_t csn_ex_mask(uint32_t j)
{
	return (uint8_t)(0x5au ^ (j * 29u));
}

/* A positive number from argv[i], or def when absent; exit 2 when it is not one. */
static inline unsigned csn_ex_arg(int argc, char **argv, int i, unsigned def, const char *usage)
{
	if (i >= argc)
		return def;
	char *end;
	unsigned long v = strtoul(argv[i], &end, 0);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	if (*end || v == 0 || v > 0xffffffffu) {
		fprintf(stderr, "%s", usage);
		exit(2);
	}
	return (unsigned)v;
}

/*
 * Two copies of one program find their roles through the name service: the
 * first to register `first` plays role 0, the other registers `second`;
 * each looks the other up.  Returns the role.
 */
static inline int csn_ex_pair(transport t, char *first, char *second, netid *peer)
{
	csn_status s = csn_registername(t, first);
	if (s == CsnNetIdAlreadyRegistered) {
		CSN_EX_OK(csn_registername(t, second));
		CSN_EX_OK(csn_lookupname(peer, first));
		return 1;
	}
	CSN_EX_OK(s);
	CSN_EX_OK(csn_lookupname(peer, second));
	return 0;
}

/* The benchmarks' payload: byte j of message i of size n. */
static inline uint8_t csn_ex_payload(uint32_t n, uint32_t i, uint32_t j)
{
	return (uint8_t)(n * 3u + i * 251u + j * 7u + 1u);
}

/* The transmit mode, for the header line (CSN_TX=eager: the library's extension). */
static inline const char *csn_ex_txmode(void)
{
	const char *m = getenv("CSN_TX");
	return m && m[0] == 'e' ? "eager" : "synchronous";
}

#endif /* CSN_EX_H */
