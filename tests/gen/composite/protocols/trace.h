/* SPDX-License-Identifier: MIT */
/* Shared by the test protocols: a trace of hook calls and the verdicts to return. */
#ifndef LC_TEST_TRACE_H
#define LC_TEST_TRACE_H
#include <string.h>
extern char lc_test_trace[64];
extern int lc_test_ret_alpha;
extern int lc_test_ret_beta;
static inline void lc_test_note(const char *s)
{
	strncat(lc_test_trace, s, sizeof(lc_test_trace) - strlen(lc_test_trace) - 1);
}
#endif
