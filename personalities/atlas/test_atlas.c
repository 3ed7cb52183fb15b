/* SPDX-License-Identifier: MIT */
/* The ATLAS personality end to end: its test driver, examples and wrappers under commrun. */
#include "../../tests/pipeline/lc_run.h"
#include <stdio.h>
#include "lc_config.h"
#include "lc_coop.h"

/*
 * Every test on every config; a smoke run (lc_t_smoke: tests/smoke.py)
 * with smaller counts (LC_T_N) and the C wrapper's example alone.
 */
TestSuite(atlas, .timeout = 60 * LC_T_SLOWDOWN);

/* commrun -n nodes atlas_check ARGS..., then one "atlas_check ok:" line per node. */
static void atlas_t_check(int nodes, const char *mode, const char *a1, const char *a2)
{
	struct lc_t_out o;
	if (nodes < LC_PC_MIN_NODES)
		nodes = LC_PC_MIN_NODES;
	lc_t_commrun(&o, nodes, 40, "atlas_check", mode, a1, a2, NULL);
	lc_t_expect_ok(&o, "atlas_check ok:", nodes);
	lc_t_out_free(&o);
}

static const char *atlas_t_num(char *buf, size_t cap, unsigned v)
{
	snprintf(buf, cap, "%u", v);
	return buf;
}

Test(atlas, four_sending_threads_keep_per_thread_order)
{
	char m[16];
	atlas_t_check(2, "order", atlas_t_num(m, sizeof m, LC_T_N(4000, 500)), NULL);
}

/*
 * Five (smoke: four) members send continuously; the receiver, after letting
 * a backlog build, counts the first K receives of a static group per member:
 * each must get at least K / (2 x members).  A receive that always started
 * at the first member gives it nearly all of them.
 */
Test(atlas, group_receive_is_fair)
{
	char k[16], m[16];
	/*
	 * Every member's messages (64 bytes each) wait unexpected at once:
	 * half the budget at most (small_rings holds 64 KiB), and K at most half
	 * of them.
	 */
	unsigned members = LC_T_N(4, 3), per = LC_T_N(1500, 600), kk = LC_T_N(600, 300);
	unsigned fit = (unsigned)(LC_HOST_UNEXPECTED_BYTES / (2u * 64u * members));
	if (per > fit)
		per = fit;
	if (kk > members * per / 2)
		kk = members * per / 2;
	atlas_t_check((int)members + 1, "fair", atlas_t_num(k, sizeof k, kk),
		      atlas_t_num(m, sizeof m, per));
}

Test(atlas, dynamic_join_and_leave_while_traffic_flows)
{
	char m[16];
	atlas_t_check(4, "dynamic", atlas_t_num(m, sizeof m, LC_T_N(2000, 400)), NULL);
}

/* The receiver sleeps 1 s; the sender's queue reaches max_queued and send returns ATLAS_ERR_AGAIN. */
Test(atlas, send_queue_backpressure_when_the_receiver_sleeps)
{
	char m[16];
	/* enough to fill every buffer between the two hosts and then the queue of 32 */
	unsigned n = (LC_NIC_SEND_RING + LC_NIC_RECV_RING + LC_HOST_STAGING_SLOTS) * 2 + 64;
	atlas_t_check(2, "backpressure", atlas_t_num(m, sizeof m, n), "32");
}

Test(atlas, a_second_receiving_thread_is_refused)
{
	atlas_t_check(2, "thread", NULL, NULL);
}

Test(atlas, bad_arguments_return_their_error_codes)
{
	atlas_t_check(2, "errors", NULL, NULL);
}

Test(atlas, parameters_defaults_environment_and_send_pool)
{
	atlas_t_check(2, "params", NULL, NULL);
}

Test(atlas, c_example_collects_every_fragment)
{
	struct lc_t_out o;
	char ev[16];
	lc_t_commrun(&o, 4, 40, "../../examples/atlas/atlas_collect",
		     atlas_t_num(ev, sizeof ev, LC_T_N(1000, 200)), NULL);
	lc_t_expect_ok(&o, "atlas_collect ok:", 4);
	cr_assert(strstr(o.text, "built " ) && strstr(o.text, ev), "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* The C++ layer: the example collects, then each misuse raises its atlas::Exception. */
Test(atlas, cpp_example_runs_and_its_exceptions_fire)
{
	struct lc_t_out o;
	char ev[16];
	lc_t_commrun(&o, 3, 40, "../../examples/atlas/atlas_collect_cc",
		     atlas_t_num(ev, sizeof ev, LC_T_N(500, 100)), NULL);
	lc_t_expect_ok(&o, "atlas_collect_cc ok:", 4);
	cr_assert_eq(lc_t_count(&o, "exception fired:"), 5, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "only one thread may receive") != NULL, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* Table 1 rows: '#' headers, then "size value" for 8 .. 8192 bytes, every value positive. */
static void atlas_t_table(const char *prog)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 40, prog, "-i", "50", "-w", "5", NULL);
	lc_t_expect_rows(&o, 8, 11);
	lc_t_out_free(&o);
}

Test(atlas, pingpong_and_stream_print_table1_rows)
{
	atlas_t_table("../../examples/atlas/atlas_pingpong");
	atlas_t_table("../../examples/atlas/atlas_stream");
}

/*
 * bin/atlascc and bin/atlasc++ build the examples from their sources; the
 * programs run.  A smoke run builds the C example alone (the C++ build is
 * the longest step of the suite).
 */
Test(atlas, atlascc_and_atlascxx_build_the_examples)
{
	static const char *const w[][2] = {
		{ "bin/atlascc", "atlas_collect.c" },
		{ "bin/atlasc++", "atlas_collect_cc.cc" },
	};
	for (int i = 0; i < LC_T_N(2, 1); i++) {
		char cc[512], src[640], exe[96];
		struct lc_t_out o;
		lc_t_path(cc, sizeof cc, w[i][0]);
		snprintf(src, sizeof src, "%s/../../examples/atlas/%s", lc_t_build_dir(), w[i][1]);
		snprintf(exe, sizeof exe, "/tmp/lc_t_atlascc.%d.%d", (int)getpid(), i);
		char *argv[] = { cc, LC_T_CC_OPT, "-Wall", "-o", exe, src, NULL };
		lc_t_exec(&o, argv, NULL);
		cr_assert_eq(o.status, 0, "%s failed:\n%s", w[i][0], o.text);
		lc_t_out_free(&o);
		lc_t_commrun(&o, 2, 40, exe, "20", NULL);
		unlink(exe);
		cr_assert_eq(o.status, 0, "output:\n%s", o.text);
		cr_assert(strstr(o.text, " ok: collector") != NULL, "output:\n%s", o.text);
		lc_t_out_free(&o);
	}
}
