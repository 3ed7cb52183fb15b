/* SPDX-License-Identifier: MIT */
/* Puts end to end (comm.h: registered memory and one-sided writes): sizes, order with a notice, refusals, misuse, faults. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/lc_run.h"
#include "lc_config.h"
#include "lc_coop.h"

TestSuite(put, .timeout = 240 * LC_T_SLOWDOWN);

/*
 * In full where the personalities' suites run in full and with rendezvous
 * (whose RDMA frames share the NIC's table and the recv_frame pointcut with
 * puts: tests/smoke.py); a smoke run (lc_t_smoke) does one round.
 */
#define ROUNDS LC_T_N("3", "1")
#define NOTIFY_ROUNDS LC_T_N("200", "20")

/* commrun --stats [--faults SPEC] -n 2 put MODE ROUNDS: a clean exit, in *o. */
static void run_put(struct lc_t_out *o, const char *faults, const char *mode, const char *rounds)
{
	const char *opts[] = { "--stats", faults ? "--faults" : NULL, faults, NULL };

	lc_t_commrun_with(o, opts, 2, 200, "put", mode, rounds, NULL);
	cr_assert_eq(o->status, 0, "exit status %d; output:\n%s", o->status, o->text);
	cr_assert(strstr(o->text, "checked"), "put %s printed no result:\n%s", mode, o->text);
}

Test(put, every_size_boundary_at_every_offset_guards_untouched)
{
	struct lc_t_out o;

	run_put(&o, NULL, "sizes", ROUNDS);
	cr_assert_gt(lc_t_stat(&o, "rdma_frames", 1), 0, "no frame was placed by the target's NIC");
	cr_assert_eq(lc_t_stat(&o, "rdma_denied", 1), 0, "a good put was refused");
	cr_assert_eq(lc_t_stat(&o, "puts", 0), 48 * (unsigned long long)atoi(ROUNDS), "puts counted");
	lc_t_out_free(&o);
}

Test(put, notice_after_the_data_and_in_order_with_messages)
{
	struct lc_t_out o;

	run_put(&o, NULL, "notify", NOTIFY_ROUNDS);
	lc_t_out_free(&o);
}

/*
 * Every config, exactly_once too: a refused frame reaches the target's host
 * marked (LC_FF_REFUSED), so a protocol that numbers frames accounts for it
 * instead of sending it again, and the link outlives the refusals.
 */
Test(put, forged_out_of_bounds_read_only_and_revoked_handles_are_refused)
{
	struct lc_t_out o;

	run_put(&o, NULL, "refused", "1");
	/* each bad put has at least one frame refused (the several-frame ones more) */
	cr_assert_geq(lc_t_stat(&o, "rdma_denied", 1), 7, "refusals counted by the target's NIC");
	lc_t_expect_refusals_seen(&o, 1);
	lc_t_out_free(&o);
}

Test(put, argument_errors_full_table_and_loopback)
{
	struct lc_t_out o;

	run_put(&o, NULL, "misuse", "1");
	lc_t_out_free(&o);
}

#if LC_PROTO_RELIABILITY
Test(put, every_byte_lands_under_faults_with_reliability)
{
	struct lc_t_out o;

	run_put(&o, "drop=0.02,corrupt=0.01,dup=0.01,reorder=0.02,seed=7", "sizes", "1");
	lc_t_out_free(&o);
	run_put(&o, "drop=0.02,corrupt=0.01,dup=0.01,reorder=0.02,seed=8", "notify", "50");
	cr_assert_gt(lc_t_stat(&o, "rel_retransmits", 0) + lc_t_stat(&o, "rel_retransmits", 1), 0,
		     "the faults were not real");
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(put, every_byte_lands_under_faults_with_reliability,
	     "needs reliability composed (LC_PROTO_RELIABILITY)")
#endif
