/* SPDX-License-Identifier: MIT */
/* Pipeline tests: every boundary size and random sizes on 2, 3 and 8 nodes (real processes). */
#include "lc_run.h"

#include "lc_config.h"

/*
 * The node program (progs/sizes.c) takes its boundaries from lc_config.h:
 * 0, 1, MTU-1, MTU, MTU+1, PIO threshold -1/0/+1, 2 MTU +-1, many MTUs,
 * 1 MiB + 3 (13 sizes, 12 when the PIO threshold is 0), with --big 64 MiB,
 * then seeded random sizes.  Each node sends around a ring (to i+1, from
 * i-1) and checks every byte it receives; the driver checks that every node
 * reported the full count.
 */
#define LC_T_FIXED (13 - (LC_PIO_THRESHOLD == 0))

TestSuite(pipeline_sizes, .timeout = 150 * LC_T_SLOWDOWN);

static void lc_t_sizes_check(const struct lc_t_out *o, int nodes, int expect_msgs)
{
	char want[96];
	lc_t_expect_ok(o, "sizes ok:", nodes);
	for (int i = 0; i < nodes; i++) {
		snprintf(want, sizeof want, "[%d] sizes ok: node %d checked %d messages", i, i,
			 expect_msgs);
		cr_assert(strstr(o->text, want), "missing \"%s\"; output:\n%s", want, o->text);
	}
}

/*
 * The large message: 64 MiB, 8 MiB in a smoke run (tests/smoke.py) -- still
 * above every config's staging and host buffers and a thousand MTUs, and
 * 0.5 of the case's 2.5 CPU-s.
 */
Test(pipeline_sizes, two_nodes_every_boundary_random_and_64MiB)
{
	struct lc_t_out o;
	unsigned mib = LC_T_N(64u, 8u);
	char big[16], want[48];

	snprintf(big, sizeof big, "%u", mib);
	lc_t_commrun(&o, 2, 120, "sizes", "--big-mib", big, "--random", "40", "--seed", "7", NULL);
	lc_t_sizes_check(&o, 2, LC_T_FIXED + 1 + 40);
	snprintf(want, sizeof want, "largest %u", mib << 20);
	cr_assert_eq(lc_t_count(&o, want), 2, "%u MiB not sent; output:\n%s", mib, o.text);
	lc_t_out_free(&o);
}

Test(pipeline_sizes, three_nodes_boundaries_and_random)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 3, 120, "sizes", "--random", "40", "--seed", "11", NULL);
	lc_t_sizes_check(&o, 3, LC_T_FIXED + 40);
	lc_t_out_free(&o);
}

Test(pipeline_sizes, eight_nodes_boundaries_and_random)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 8, 120, "sizes", "--random", "12", "--seed", "13", NULL);
	lc_t_sizes_check(&o, 8, LC_T_FIXED + 12);
	lc_t_out_free(&o);
}
