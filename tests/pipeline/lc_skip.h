/* SPDX-License-Identifier: MIT */
/* LC_T_SKIPPED: a test the config compiles out, still reported, as skipped with the reason. */
#ifndef LC_SKIP_H
#define LC_SKIP_H

#include <criterion/criterion.h>

/*
 * A test wrapped in #if on the config (lc_config.h, lc_coop.h) would not
 * exist at all where the condition is false, and a missing test looks like a
 * passing one.  Its #else gives LC_T_SKIPPED(suite, name, why) with the same
 * suite and name: the report then lists it as skipped with why, which says
 * the condition in words and names its macro, e.g.
 *
 *	#if LC_PC_EXACTLY_ONCE
 *	Test(mcast_run, reliable_broadcast_to_8_nodes_under_faults)
 *	{ ... }
 *	#else
 *	LC_T_SKIPPED(mcast_run, reliable_broadcast_to_8_nodes_under_faults,
 *		     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
 *	#endif
 *
 * No semicolon after it, as after a Test body.  why is a string literal
 * that holds no tab.
 *
 * The test is a disabled Criterion test and its reason a string
 * "suite::name<TAB>why" in the program's section LC_T_SKIP_SECTION;
 * tools/run_tests.py reads the section (objcopy) and reports each disabled
 * test with its reason (a disabled test that has none there fails the run).
 * Not a test that calls cr_skip_test(): Criterion runs every test that is
 * not disabled in a fresh exec of the program, about 25 ms of CPU here
 * (docs/internals.md, "What the test run's CPU is made of"), and a run
 * compiles out 1572 tests across its 22 configs.  A test that
 * learns at run time that it cannot run (a file missing, a node count the
 * config refuses) still calls cr_skip_test(why).
 *
 * Its own header, not lc_run.h, so that the unit suites can use it without
 * lc_run.h's _GNU_SOURCE and <sys/stat.h>; lc_run.h includes it.
 */
#define LC_T_SKIP_SECTION "lc_t_skipped"
#define LC_T_SKIP_REASON(suite, name, why)                                               \
	__attribute__((used, section(LC_T_SKIP_SECTION), aligned(1))) static const char \
		lc_t_skipped_##suite##_##name[] = #suite "::" #name "\t" why;
#define LC_T_SKIPPED(suite, name, why)         \
	LC_T_SKIP_REASON(suite, name, why)     \
	Test(suite, name, .disabled = true)    \
	{                                      \
	}

/*
 * A test whose body compiles in every config but runs only where ok (a
 * constant expression on the config) holds; elsewhere it is disabled and
 * reported skipped with why, as LC_T_SKIPPED's:
 *
 *	LC_T_TEST_IF(rdma, placed_by_pio_frame, LCT_RDMA_RUNS, LCT_RDMA_WHY)
 *	{ ... }
 */
#define LC_T_TEST_IF(suite, name, ok, why) \
	LC_T_SKIP_REASON(suite, name, why) \
	Test(suite, name, .disabled = !(ok))

#endif /* LC_SKIP_H */
