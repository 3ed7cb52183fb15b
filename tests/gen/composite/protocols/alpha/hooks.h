/* SPDX-License-Identifier: MIT */
/* Test protocol alpha: hooks that note each call ("ai" init, "af" fini, ...). */
#ifndef LC_TEST_ALPHA_HOOKS_H
#define LC_TEST_ALPHA_HOOKS_H
#include <stdint.h>
#include "lc_verdict.h"
#include "trace.h"
struct lc_node;
struct lc_frame_hdr;
static inline int lc_alpha_init(struct lc_node *node)
{
	(void)node;
	lc_test_note("ai");
	return lc_test_ret_alpha;
}
static inline void lc_alpha_fini(struct lc_node *node)
{
	(void)node;
	lc_test_note("af");
}
static inline lc_verdict lc_alpha_send_frame(struct lc_node *node, struct lc_frame_hdr *hdr, const void *payload)
{
	(void)node;
	(void)hdr;
	(void)payload;
	lc_test_note("as");
	return (lc_verdict)lc_test_ret_alpha;
}
static inline void lc_alpha_poll(struct lc_node *node, uint64_t now_ns)
{
	(void)node;
	(void)now_ns;
	lc_test_note("ap");
}
#endif
