/* SPDX-License-Identifier: MIT */
/* End-to-end with reliability: 100 000 random-size messages under faults, a 4-node ring, a killed or stopped peer. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/lc_run.h"
#include "lc_config.h"

TestSuite(rel_e2e, .timeout = 300 * LC_T_SLOWDOWN);

/* The suite is built in every config; its tests run only when reliability is composed. */
#define LC_T_REL_WHY "needs reliability composed in the config (LC_PROTO_RELIABILITY)"
#if LC_PROTO_RELIABILITY
#include "lc_composite_host.h"   /* LC_RELIABILITY_GIVE_UP_NS */

#define LC_T_FAULTS "drop=0.05,corrupt=0.01,dup=0.01,reorder=0.02,seed=7"

/* commrun --stats [--faults SPEC] -n NODES PROG ARGS..., output in *o; env: NULL or NAME=VALUE entries for it. */
static void lc_t_run_env(struct lc_t_out *o, const char *spec, const char *nodes, const char *prog,
			 const char *a1, char *const env[])
{
	char crun[512], pp[512], rel[128];
	char *argv[16];
	int a = 0;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	snprintf(rel, sizeof rel, "tests/progs/%s", prog);
	lc_t_path(pp, sizeof pp, rel);
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--stats";
	argv[a++] = "--timeout";
	argv[a++] = "240";
	if (spec) {
		argv[a++] = "--faults";
		argv[a++] = (char *)spec;
	}
	argv[a++] = "-n";
	argv[a++] = (char *)nodes;
	argv[a++] = pp;
	if (a1)
		argv[a++] = (char *)a1;
	argv[a] = NULL;
	lc_t_exec(o, argv, env);
	cr_assert(o->job[0] == '/', "commrun did not name its job; output:\n%s", o->text);
	cr_assert(!lc_t_seg_exists(o->job), "segment /dev/shm%s left behind", o->job);
	cr_assert(o->status != 124, "the job hung; output:\n%s", o->text);
}

static void lc_t_run(struct lc_t_out *o, const char *spec, const char *nodes, const char *prog,
		     const char *a1)
{
	lc_t_run_env(o, spec, nodes, prog, a1, NULL);
}

static void lc_t_ring(const char *nodes, const char *msgs)
{
	struct lc_t_out o;
	char want[128];
	int n = atoi(nodes);

	lc_t_run(&o, LC_T_FAULTS, nodes, "relring", msgs);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof want, "[%d] relring node %d: %s from %d exactly once, in order, intact", i, i,
			 msgs, (i + n - 1) % n);
		cr_assert(strstr(o.text, want), "node %d: no \"%s\"; output:\n%s", i, want, o.text);
	}
	/* the faults were real, and reliability repaired them */
	cr_assert_not_null(strstr(o.text, "# faults injected per link"), "%s", o.text);
	cr_assert_gt(lc_t_stat(&o, "rel_retransmits", 0), 0, "%s", o.text);
	/* damage was caught: by the NIC (header), checksum (a protocol drop) or reliability's CRC */
	cr_assert_gt(lc_t_stat(&o, "rel_crc_drops", 0) + lc_t_stat(&o, "rx_drops_proto", 0) +
		     lc_t_stat(&o, "nic_drops_bad", 0), 0, "no damaged frame caught at node 0:\n%s", o.text);
	/* the CRC of a frame beyond the inline CRC's bytes was computed by the Rx DMA as it copied it */
	cr_assert_gt(lc_t_stat(&o, "rx_crc_frames", 0), 0, "no CRC computed by node 0's Rx DMA:\n%s", o.text);
#if LC_PC_TX_CRC
	/* and the sender's, of its non-blocking sends' longer frames, by its Tx DMA (lc_proto_tx_crc_ask) */
	cr_assert_gt(lc_t_stat(&o, "tx_crc_frames", 0), 0, "no CRC computed by node 0's Tx DMA:\n%s", o.text);
#endif
	lc_t_out_free(&o);
}

/*
 * 2 x 50 000 messages (0 B .. 256 KiB, mostly small, some of several MTUs)
 * both ways under every fault; 2 x 10 000 in stop-and-wait, whose one
 * frame in flight per peer makes each message a round trip (the same
 * repairs, a fifth of the time).  A smoke run: a tenth (5 000 still see
 * thousands of drops and retransmissions a node).
 */
Test(rel_e2e, tens_of_thousands_of_messages_two_nodes)
{
	lc_t_ring("2", LC_RELIABILITY_MODE_STOP_AND_WAIT ? LC_T_N("10000", "1000") : LC_T_N("50000", "5000"));
}

/* Four nodes in a ring, each sending to the next and receiving from the previous, under every fault. */
Test(rel_e2e, four_node_ring)
{
	/* stop-and-wait pays a round trip a message and a timeout a loss: a quarter of them */
	lc_t_ring("4", LC_RELIABILITY_MODE_STOP_AND_WAIT ? LC_T_N("1000", "250") : LC_T_N("4000", "1000"));
}

/* The killed peer: node 0's pending sends fail with LC_ERR_PEER_DEAD, commrun exits 137, no segment left. */
static void lc_t_kill(const char *nodes, const char *how)
{
	struct lc_t_out o;
	unsigned long long failed = 0, ms = 0, bound = 0;
	const char *v;

	lc_t_run(&o, NULL, nodes, "relkill", how);
	cr_assert_eq(o.status, 128 + 9, "commrun exit %d, expected 137; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "node 1 died: signal 9"), "output:\n%s", o.text);
	v = strstr(o.text, "relkill: ");
	cr_assert_not_null(v, "node 0 did not report; output:\n%s", o.text);
	cr_assert_eq(sscanf(v, "relkill: %llu sends failed with LC_ERR_PEER_DEAD in %llu ms (bound %llu ms)",
			    &failed, &ms, &bound), 3, "%s", o.text);
	cr_assert_eq(failed, 8);
	cr_assert_eq(bound, LC_RELIABILITY_GIVE_UP_NS / 1000000u);
	/* the bound counts from the oldest frame's send; the slack covers polling and a loaded machine */
	cr_assert_leq(ms, bound + 1500, "pending sends failed only after %llu ms:\n%s", ms, o.text);
	cr_assert_eq(lc_t_count(&o, "FAIL"), 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(rel_e2e, killed_peer_fails_pending_sends)
{
	lc_t_kill("2", NULL);
	lc_t_kill("3", NULL);
}

/* A stopped peer (SIGSTOP: marked stopped, not dead) is given up by the retry budget within the bound. */
Test(rel_e2e, silent_peer_given_up_within_the_bound)
{
	lc_t_kill("2", "stop");
}

/*
 * Sends of two frames each, all posted, to a peer that is then killed: the
 * sends reliability holds to their acks (hooks.h, REFERENCES) fail with
 * LC_ERR_PEER_DEAD within the bound, none completes as if delivered.
 */
Test(rel_e2e, killed_peer_fails_held_sends)
{
	lc_t_kill("2", "held");
}

/*
 * relhold: a non-blocking send of several frames completes when its
 * receiver acknowledged it -- not while the receiver makes no library call --
 * and a blocking one when its frames left; with LC_HOLD_SENDS=0 the
 * non-blocking one too (a kept copy).
 */
static void lc_t_hold(int hold)
{
	static char off[] = "LC_HOLD_SENDS=0";
	char *const env[] = { off, NULL };
	struct lc_t_out o;
	unsigned long long blocking = 0, pending = 0, nap = 0;
	char rc[64] = "";
	const char *v;

	lc_t_run_env(&o, NULL, "2", "relhold", NULL, hold ? NULL : env);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "relhold: node 1 got both messages intact"), "output:\n%s", o.text);
	v = strstr(o.text, "relhold: blocking");
	cr_assert_not_null(v, "node 0 did not report; output:\n%s", o.text);
	cr_assert_eq(sscanf(v, "relhold: blocking send %llu ms, non-blocking send pending %llu ms, nap %llu ms, rc %63s",
			    &blocking, &pending, &nap, rc), 4, "%s", o.text);
	cr_assert_str_eq(rc, "0", "the non-blocking send failed: %s\n%s", rc, o.text);
	if (hold) {
		/* held to the ack: pending through the receiver's nap (its start is a round trip after the times' origin) */
		cr_assert_geq(pending, nap * 9 / 10,
			      "the send completed after %llu ms, inside the receiver's %llu ms nap:\n%s", pending, nap,
			      o.text);
	}
#if !LC_RELIABILITY_MODE_STOP_AND_WAIT && !LC_PROTO_FLOW_CONTROL
	/* not held: two frames each fit the window and the Receive Ring (no credits to wait for) */
	cr_assert_lt(blocking, nap / 2, "the blocking send waited %llu ms for the sleeping receiver:\n%s",
		     blocking, o.text);
	if (!hold)
		cr_assert_lt(pending, nap / 2, "with LC_HOLD_SENDS=0 the non-blocking send waited %llu ms:\n%s",
			     pending, o.text);
#endif
	lc_t_out_free(&o);
}

Test(rel_e2e, non_blocking_send_completes_at_its_ack)
{
	lc_t_hold(1);
	lc_t_hold(0);
}

#else
LC_T_SKIPPED(rel_e2e, tens_of_thousands_of_messages_two_nodes, LC_T_REL_WHY)
LC_T_SKIPPED(rel_e2e, four_node_ring, LC_T_REL_WHY)
LC_T_SKIPPED(rel_e2e, killed_peer_fails_pending_sends, LC_T_REL_WHY)
LC_T_SKIPPED(rel_e2e, silent_peer_given_up_within_the_bound, LC_T_REL_WHY)
LC_T_SKIPPED(rel_e2e, killed_peer_fails_held_sends, LC_T_REL_WHY)
LC_T_SKIPPED(rel_e2e, non_blocking_send_completes_at_its_ack, LC_T_REL_WHY)
#endif /* LC_PROTO_RELIABILITY */
