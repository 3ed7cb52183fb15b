/* SPDX-License-Identifier: MIT */
/* The VIPL personality end to end: its test driver, examples and compiler wrapper under commrun. */
#include "../../tests/pipeline/lc_run.h"
#include <stdio.h>
#include "lc_config.h"
#include "lc_coop.h"

/*
 * vipl_check (progs/) checks each family of calls, errors included; the
 * examples (examples/vipl/) run on every config, every byte checked, with
 * reliable delivery where the NIC offers it (a composed protocol provides
 * exactly_once: LC_PC_EXACTLY_ONCE), unreliable elsewhere.  A smoke run
 * (lc_t_smoke: tests/smoke.py) gives the examples at their default sizes and
 * the one bin/viplcc builds fewer iterations.
 */

TestSuite(vipl, .timeout = 90 * LC_T_SLOWDOWN);

/* Every program here is a job of two nodes: the configs' static groups fit in them. */
_Static_assert(LC_PC_MIN_NODES <= 2, "the VIPL tests run jobs of two nodes");

/* commrun -n 2 vipl_check MODE: two "vipl_check ok:" lines. */
static void vipl_t_check(const char *mode)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 60, "vipl_check", mode, NULL);
	lc_t_expect_ok(&o, "vipl_check ok:", 2);
	lc_t_out_free(&o);
}

Test(vipl, nic_names_tags_registration_cqs_vis_and_their_errors)
{
	vipl_t_check("calls");
}

Test(vipl, send_receive_immediate_gather_scatter_length_error_reject_disconnect)
{
	vipl_t_check("xfer");
}

Test(vipl, peer_to_peer_connection_and_notify_callback)
{
	vipl_t_check("peer");
}

Test(vipl, rdma_write_with_and_without_immediate_data)
{
	vipl_t_check("rdma");
}

Test(vipl, rdma_writes_refused_by_the_writer)
{
	vipl_t_check("rdma_refused");
}

Test(vipl, rdma_write_into_a_revoked_region_refused_by_the_target_nic)
{
	vipl_t_check("rdma_revoked");
}

/* An example: it runs, prints its rows and reports no error or mismatch. */
static void vipl_t_example(const char *prog, char *a1, char *a2, char *a3, char *a4, int rows)
{
	struct lc_t_out o;
	char path[256];
	snprintf(path, sizeof path, "%s/examples/vipl/%s", lc_t_build_dir(), prog);
	lc_t_commrun(&o, 2, 80, path, a1, a2, a3, a4, NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	int n = 0;
	for (const char *l = o.text; (l = strstr(l, "\n[0] ")) != NULL; l++)
		n += l[5] >= '0' && l[5] <= '9';
	n += strncmp(o.text, "[0] ", 4) == 0 && o.text[4] >= '0' && o.text[4] <= '9';
	cr_assert_eq(n, rows, "%d rows, %d expected; output:\n%s", n, rows, o.text);
	cr_assert(strstr(o.text, "asynchronous error") == NULL && strstr(o.text, "mismatch") == NULL,
		  "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* sizes 0, 1, 2, 4, 7, 8, 16, 25, 32, 64, 97, 128, ..., 64 KiB: 25 rows */
Test(vipl, pingpong_example_checks_every_byte)
{
	vipl_t_example("pingpong", "-s", "0:64K", "-i", "200", 25);
}

/* every message gathered, and none: 0 .. 4 KiB, 19 rows each; a mode it does not know is refused */
Test(vipl, pingpong_example_gather_modes)
{
	vipl_t_example("pingpong", "-s", "0:4K", "--gather=all", "-i50", 19);
	vipl_t_example("pingpong", "-s", "0:4K", "--gather=none", "-i50", 19);

	struct lc_t_out o;
	char path[256];
	snprintf(path, sizeof path, "%s/examples/vipl/pingpong", lc_t_build_dir());
	lc_t_commrun(&o, 2, 20, path, "--gather=some", NULL);
	cr_assert_neq(o.status, 0, "--gather=some accepted; output:\n%s", o.text);
	cr_assert(strstr(o.text, "bad value 'some' of -g") != NULL, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* 4 KiB .. 1 MiB: 9 rows, then the round without immediate data */
Test(vipl, rdma_example_checks_every_byte)
{
	vipl_t_example("rdma", "-s", "4K:1M", "-i", "4", 9);
}

Test(vipl, examples_at_their_defaults)
{
	vipl_t_example("pingpong", "-i", LC_T_N("300", "20"), NULL, NULL, 31);
	vipl_t_example("rdma", "-i", LC_T_N("5", "1"), NULL, NULL, 11);
}

/* bin/viplcc builds the example from its source; the program runs. */
Test(vipl, viplcc_builds_the_pingpong_example)
{
	char cc[512], src[640], inc[640], exe[96];
	struct lc_t_out o;
	lc_t_path(cc, sizeof cc, "bin/viplcc");
	snprintf(src, sizeof src, "%s/../../examples/vipl/pingpong.c", lc_t_build_dir());
	snprintf(inc, sizeof inc, "-I%s/../../examples/vipl", lc_t_build_dir());
	snprintf(exe, sizeof exe, "/tmp/lc_t_viplcc.%d", (int)getpid());
	char *argv[] = { cc, LC_T_CC_OPT, "-Wall", "-Wextra", "-Werror", inc, "-o", exe, src, NULL };
	lc_t_exec(&o, argv, NULL);
	cr_assert_eq(o.status, 0, "viplcc failed:\n%s", o.text);
	lc_t_out_free(&o);
	lc_t_commrun(&o, 2, 40, exe, "-s", "0:1K", "-i", LC_T_N("20", "2"), NULL);
	unlink(exe);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

#if LC_PC_EXACTLY_ONCE
/* reliable delivery under 2 % dropped frames: every descriptor and every RDMA byte still arrive */
Test(vipl, reliable_delivery_under_dropped_frames)
{
	static const char *const opts[] = { "--faults", "drop=0.02,seed=5", NULL };
	static const char *const modes[] = { "xfer", "rdma" };
	for (int k = 0; k < 2; k++) {
		struct lc_t_out o;
		lc_t_commrun_with(&o, opts, 2, 80, "vipl_check", modes[k], NULL);
		lc_t_expect_ok(&o, "vipl_check ok:", 2);
		lc_t_out_free(&o);
	}
}
#else
LC_T_SKIPPED(vipl, reliable_delivery_under_dropped_frames,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif
