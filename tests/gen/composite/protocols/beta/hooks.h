/* SPDX-License-Identifier: MIT */
/* Test protocol beta: hooks that note each call ("bi" init, "bf" fini, ...). */
#ifndef LC_TEST_BETA_HOOKS_H
#define LC_TEST_BETA_HOOKS_H
#include <stdint.h>
#include "lc_verdict.h"
#include "trace.h"
struct lc_node;
struct lc_frame_hdr;
static inline int lc_beta_init(struct lc_node *node)
{
	(void)node;
	lc_test_note("bi");
	return lc_test_ret_beta;
}
static inline void lc_beta_fini(struct lc_node *node)
{
	(void)node;
	lc_test_note("bf");
}
static inline lc_verdict lc_beta_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr, const void *payload)
{
	(void)node;
	(void)hdr;
	(void)payload;
	lc_test_note("bs");
	return (lc_verdict)lc_test_ret_beta;
}
static inline void lc_beta_poll(struct lc_node *node, uint64_t now_ns)
{
	(void)node;
	(void)now_ns;
	lc_test_note("bp");
}
#endif
