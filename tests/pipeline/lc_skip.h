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
 * No semicolon after it, as after a Test body.  why holds no double quote
 * and no backslash: Criterion 2.4 copies the message into its --json report
 * unescaped, and tools/run_tests.py could not read the report.  The runner
 * reports a suite left with no test at all as skipped, so a forgotten #else
 * shows.
 *
 * The suite's .init still runs first, and cr_skip_test() leaves the test's
 * process by exit(0), so .fini does not: an .init that takes what the exit
 * does not give back (a /dev/shm segment) releases it at exit too.
 *
 * Its own header, not lc_run.h, so that the unit suites can use it without
 * lc_run.h's _GNU_SOURCE and <sys/stat.h>; lc_run.h includes it.
 */
#define LC_T_SKIPPED(suite, name, why)   \
	Test(suite, name)                \
	{                                \
		cr_skip_test("%s", why); \
	}

#endif /* LC_SKIP_H */
