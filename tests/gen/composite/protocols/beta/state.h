/* SPDX-License-Identifier: MIT */
/* Test protocol beta: per-node state. */
#ifndef LC_TEST_BETA_STATE_H
#define LC_TEST_BETA_STATE_H
struct lc_beta_state {
	int calls;
};
#endif
