/* SPDX-License-Identifier: MIT */
/* Test protocol alpha: per-node state. */
#ifndef LC_TEST_ALPHA_STATE_H
#define LC_TEST_ALPHA_STATE_H
struct lc_alpha_state {
	int calls;
};
#endif
