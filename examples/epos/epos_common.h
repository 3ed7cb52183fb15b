/* SPDX-License-Identifier: MIT */
/* Helpers of the EPOS examples: receive an exact count (any Channel member), fail with the error's text. */
#ifndef EPOS_COMMON_H
#define EPOS_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "epos.h"

/*
 * Receive exactly len bytes: a datagram arrives whole, a stream may hand
 * them out in pieces; written once, it works for every Channel member.
 */
static inline int epos_ex_recv_exact(epos_comm *c, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len || len == 0) {
		size_t n = 0;
		int rc = epos_comm_receive(c, (char *)buf + got, len - got, &n, NULL);
		if (rc)
			return rc;
		got += n;
		if (len == 0)
			break;
	}
	return 0;
}

static inline int epos_ex_fail(const char *prog, const char *what, int rc)
{
	fprintf(stderr, "%s: FAIL %s: %s [%s]\n", prog, what, epos_strerror(rc), epos_last_error());
	return 1;
}

static inline double epos_ex_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int epos_ex_rank(void)
{
	const char *s = getenv("LC_NODE");
	return s ? atoi(s) : -1;
}

static inline int epos_ex_nodes(void)
{
	const char *s = getenv("LC_NODES");
	return s ? atoi(s) : -1;
}

#endif /* EPOS_COMMON_H */
