/* SPDX-License-Identifier: MIT */
/* Helpers shared by the node programs of the pipeline tests (public API only). */
#ifndef LC_TPROG_H
#define LC_TPROG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "lc_config.h"
#include "../../../examples/lc_ex_pattern.h"

/*
 * A node program prints what it checked on stdout (the driver parses it),
 * and on any failure one line "FAIL node <i>: ..." on stderr and exits 1.
 * Sizes at every boundary come from lc_config.h, so one program serves
 * every config.
 */

/* Symbolic name of an lc_err ("LC_ERR_PEER_DEAD"), from the one list in comm.h. */
static inline const char *lc_tp_errname(int rc)
{
	switch (rc) {
#define LC_X_CASE(name, value, ...) case (value): return #name;
		LC_ERROR_LIST(LC_X_CASE)
#undef LC_X_CASE
	}
	return "LC_ERR_?";
}

static int lc_tp_me = -1;

static inline void lc_tp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void lc_tp_fail(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "FAIL node %d: %s\n", lc_tp_me, line);
	fflush(NULL);
	exit(1);
}

/* Call that must succeed. */
#define LC_TP_OK(node, call)                                                         \
	do {                                                                         \
		int lc_tp_rc_ = (call);                                              \
		if (lc_tp_rc_ != 0)                                                  \
			lc_tp_fail("%s:%d: %s -> %s (%s)", __FILE__, __LINE__, #call, \
				   lc_tp_errname(lc_tp_rc_), lc_last_error(node));   \
	} while (0)

static inline lc_node *lc_tp_open(int *me, int *n)
{
	lc_node *node = NULL;
	int rc = lc_open(&node);
	if (rc != 0)
		lc_tp_fail("lc_open -> %s", lc_tp_errname(rc));
	*me = lc_tp_me = lc_rank(node);
	*n = lc_size(node);
	return node;
}

static inline void *lc_tp_alloc(size_t len)
{
	void *p = malloc(len ? len : 1);
	if (!p)
		lc_tp_fail("out of memory (%zu bytes)", len);
	return p;
}

/* Check a received message against the pattern its sender made. */
static inline void lc_tp_expect(const void *buf, const struct lc_status *st, int src, size_t len,
				uint64_t seed, const char *what)
{
	if (st->src != src || st->len != len || st->err != 0)
		lc_tp_fail("%s: status src %d len %zu err %d, expected src %d len %zu", what,
			   st->src, st->len, st->err, src, len);
	size_t bad = lc_ex_check(buf, len, seed);
	if (bad != len)
		lc_tp_fail("%s: payload from %d of %zu bytes differs at byte %zu", what, src, len, bad);
}

/* A small deterministic generator (xorshift64*) for random sizes. */
static inline uint64_t lc_tp_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

#endif /* LC_TPROG_H */
