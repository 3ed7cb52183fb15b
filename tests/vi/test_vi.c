/* SPDX-License-Identifier: MIT */
/* Several endpoints (virtual interfaces) per NIC: traffic, and the attacks the NIC's protection stops (tests/vi/progs/vi.c). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/lc_run.h"
#include "lc_config.h"
#include "lc_coop.h"

TestSuite(vi, .timeout = 240 * LC_T_SLOWDOWN);

/* commrun --stats --per-node 2 -n 4 vi MODE [ROUNDS]: a clean exit and its line, in *o. */
static void run_vi(struct lc_t_out *o, const char *mode, const char *rounds)
{
	const char *opts[] = { "--stats", "--per-node", "2", NULL };
	char want[64];

	lc_t_commrun_with(o, opts, 4, 200, "vi", mode, rounds, NULL);
	cr_assert_eq(o->status, 0, "exit status %d; output:\n%s", o->status, o->text);
	snprintf(want, sizeof want, "vi %s: ", mode);
	cr_assert_eq(lc_t_count(o, want), 4, "not every node printed its result:\n%s", o->text);
}

Test(vi, messages_and_puts_between_endpoints_of_one_nic_and_of_two)
{
	struct lc_t_out o;

	run_vi(&o, "traffic", LC_T_N("3", "1"));
	/* the puts went by the target NICs' Rx DMA into the registered regions */
	for (int node = 0; node < 4; node++)
		cr_assert_gt(lc_t_stat(&o, "rdma_frames", node), 0, "node %d placed no put", node);
	/*
	 * the traffic matrix: every pair carried at least the messages of every size
	 * and one put, and the rows add up to the frames the NICs put on the links:
	 * a node's row holds what its own Net-Send sent and what the receivers'
	 * pulled from its Send Ring (lc_nic_pull_step)
	 */
	unsigned long long to[4] = { 0, 0, 0, 0 };      /* frames sent to each node */
	unsigned long long rows = 0, linked = 0;

	for (int s = 0; s < 4; s++) {
		unsigned long long frames = 0;

		for (int d = 0; d < 4; d++) {
			char row[32];
			const char *at;
			unsigned long long v[3] = { 0, 0, 0 };

			snprintf(row, sizeof row, "\n%d->%d ", s, d);
			at = strstr(o.text, row);
			if (s == d) {
				cr_assert_null(at, "node %d sent to itself", s);
				continue;
			}
			cr_assert(at && sscanf(at + strlen(row), "%llu %llu %llu", &v[0], &v[1], &v[2]) == 3,
				  "no traffic row %d->%d:\n%s", s, d, o.text);
			cr_assert_geq(v[0], 6ull * (lc_t_smoke() ? 1 : 3), "%d->%d messages", s, d);
			cr_assert_geq(v[2], 65536ull + 8192ull, "%d->%d bytes", s, d);
			frames += v[1];
			to[d] += v[1];
		}
		cr_assert_geq(frames, lc_t_stat(&o, "net_tx_frames", s), "node %d's row", s);
		rows += frames;
		linked += lc_t_stat(&o, "net_tx_frames", s) + lc_t_stat(&o, "net_pull_frames", s);
	}
	cr_assert_eq(rows, linked, "the rows against the frames sent and pulled");
	/*
	 * each NIC's switch port carried the frames sent to both its endpoints (one
	 * crossbar: one hop; no fault set, so every frame sent crossed it).  Counted
	 * as they are put, not as Net-Recv takes them: a last ack may still wait in
	 * a ring when its receiver exits.
	 */
	for (int nic = 0; nic < 2; nic++) {
		char row[32];
		const char *at;
		unsigned long long frames = 0;

		snprintf(row, sizeof row, "\n0.%d ", nic);
		at = strstr(o.text, row);
		cr_assert(at && sscanf(at + strlen(row), " NIC %*d (nodes %*d-%*d) %llu", &frames) == 1,
			  "no row for the port of NIC %d:\n%s", nic, o.text);
		cr_assert_eq(frames, to[2 * nic] + to[2 * nic + 1],
			     "port of NIC %d: %llu frames, its two endpoints were sent others", nic, frames);
	}
	lc_t_out_free(&o);
}

Test(vi, another_endpoints_doorbell_faults_and_it_cannot_be_taken_over)
{
	struct lc_t_out o;

	run_vi(&o, "doorbell", "1");
	for (int node = 0; node < 4; node++)
		cr_assert_eq(lc_t_stat(&o, "db_refused", node), 0, "node %d refused a doorbell", node);
	lc_t_out_free(&o);
}

Test(vi, frames_forged_in_the_job_segment_or_through_another_page_are_never_sent)
{
	struct lc_t_out o;

	run_vi(&o, "forge", "1");
	cr_assert_eq(lc_t_stat(&o, "db_refused", 1), 1, "node 1's MCP refused its forged doorbell once");
	cr_assert_eq(lc_t_stat(&o, "db_refused", 0), 0, "node 0 saw a doorbell it did not ring");
	lc_t_out_free(&o);
}

Test(vi, a_handle_of_another_endpoint_of_the_nic_is_refused)
{
	struct lc_t_out o;

	run_vi(&o, "tag", "1");
	/* both NICs refused (the other endpoint's handle), their hosts saw each refusal */
	lc_t_expect_refusals_seen(&o, 1);
	lc_t_expect_refusals_seen(&o, 0);
	cr_assert_gt(lc_t_stat(&o, "rdma_frames", 0), 0, "the good put into node 0 was not placed");
	lc_t_out_free(&o);
}
