/* SPDX-License-Identifier: MIT */
/* Pipeline tests under load: no frame is lost between live nodes however slow; a stopped node fails its senders in bounded time. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "lc_run.h"
#include "lc_config.h"
#include "lc_coop.h"   /* LC_PC_ANNOUNCE */

/*
 * The node program is progs/liveload.c; every test runs on every config.  A
 * smoke run (lc_t_smoke: tests/smoke.py) sends 8 MiB instead of 64 MiB
 * beside the two CPU hogs, and keeps a live receiver away twice the
 * backpressure limit instead of three times (still past it; with reliability
 * past its give-up bound as well); a stopped receiver waits for the bound.
 */
TestSuite(pipeline_load, .timeout = 150 * LC_T_SLOWDOWN);

/*
 * A clean liveload run in mode: node 1 got everything; node 0's link waited,
 * never dropped.  A smoke run's busy receivers are away for the limits only,
 * not past reliability's give-up (liveload --limits-only).
 */
static void lc_t_live(const char *mode, const char *pin)
{
	const char *short_away = lc_t_smoke() && !strcmp(mode, "busy") ? "--limits-only" : NULL;
	/* the options that are there, before the list's end (a NULL) */
	const char *opt1 = pin ? pin : short_away, *opt2 = pin ? short_away : NULL;
	struct lc_t_out o;
	unsigned long long stalls = 0, drops = 1, away = 0;
	const char *c;

	/* the receiver away 3 x the limit, 2 x in a smoke run (liveload --away) */
	lc_t_commrun(&o, 2, 120, "liveload", mode, "--away", LC_T_N("3", "2"), opt1, opt2, NULL);
	lc_t_expect_ok(&o, "liveload ok:", 1);
	c = strstr(o.text, "liveload counters:");
	cr_assert(c, "no counters line; output:\n%s", o.text);
	cr_assert_eq(sscanf(c, "liveload counters: bp_stalls %llu bp_drops %llu away_ms %llu", &stalls, &drops,
			    &away), 3, "output:\n%s", o.text);
	cr_assert_geq(away, (uint64_t)LC_T_N(3u, 2u) * lc_backpressure_ns() / 1000000u,
		      "the receiver was not away long enough");
	cr_assert_eq(drops, 0, "a live receiver lost frames at the backpressure limit:\n%s", o.text);
#if !LC_PROTO_FLOW_CONTROL && !(LC_PROTO_RELIABILITY && LC_RELIABILITY_MODE_STOP_AND_WAIT)
	/* without credits or stop-and-wait the link itself held the sender back the whole time */
	cr_assert_gt(stalls, 0, "the link never stalled: the test did not test:\n%s", o.text);
#endif
	lc_t_out_free(&o);
}

/* The receiver computes for 3 x the limit (and past reliability's give-up) without a library call. */
Test(pipeline_load, busy_receiver_loses_nothing)
{
	lc_t_live("busy", NULL);
}

/* The same asleep. */
Test(pipeline_load, sleeping_receiver_loses_nothing)
{
	lc_t_live("sleep", NULL);
}

/* Both nodes on one CPU: the sender spins in libcomm while the receiver computes beside it. */
Test(pipeline_load, busy_receiver_sharing_one_cpu_loses_nothing)
{
	lc_t_live("busy", "--pin");
}

/*
 * liveload stop [opt] in *o: commrun exits 137 (node 0 killed the stopped
 * node 1), no node failed a check, and node 0's first failed send -- its error
 * in err, its time from the first send in *ms -- came within its bound
 * (*bound: the limit's clock starts when the ring is full; slack for a loaded
 * machine).
 */
static void lc_t_stop(struct lc_t_out *o, const char *opt, char *err, unsigned long long *ms,
		      unsigned long long *bound)
{
	const char *c;

	lc_t_commrun(o, 2, 30, "liveload", "stop", opt, NULL);
	cr_assert_eq(o->status, 128 + 9, "commrun exit %d, expected 137; output:\n%s", o->status, o->text);
	c = strstr(o->text, "liveload stop: ");
	cr_assert(c, "node 0 did not report; output:\n%s", o->text);
	cr_assert_eq(sscanf(c, "liveload stop: %31s after %llu ms (bound %llu ms)", err, ms, bound), 3,
		     "output:\n%s", o->text);
	cr_assert_leq(*ms, *bound + 1500, "the send failed only after %llu ms:\n%s", *ms, o->text);
	cr_assert_eq(lc_t_count(o, "FAIL"), 0, "output:\n%s", o->text);
}

/*
 * A stopped receiver (SIGSTOP; commrun marks it in the segment) fails the
 * sends to it within the bound: LC_ERR_LOST at the backpressure limit, or
 * LC_ERR_PEER_DEAD at reliability's give-up or when flow control waited
 * for its credits for the limit.  Node 0 then kills it.
 */
Test(pipeline_load, stopped_receiver_fails_the_send_in_bounded_time)
{
	struct lc_t_out o;
	unsigned long long ms = 0, bound = 0;
	char err[32] = "";

	lc_t_stop(&o, NULL, err, &ms, &bound);
#if LC_PROTO_RELIABILITY || LC_PROTO_FLOW_CONTROL || LC_PC_ANNOUNCE
	/*
	 * reliability's give-up, flow control's wait for a credit from a stopped peer, or a
	 * rendezvous transfer's wait for its clear-to-send (the big message is announced)
	 */
	cr_assert_str_eq(err, "LC_ERR_PEER_DEAD", "output:\n%s", o.text);
#else
	cr_assert_str_eq(err, "LC_ERR_LOST", "output:\n%s", o.text);
#endif
	lc_t_out_free(&o);
}

/*
 * The same with the big message sent last (liveload --big-last): where a
 * protocol announces large messages (rendezvous), its announce waits behind
 * the small frames of a full Send Ring and send queue, a send no frame of
 * which is on the wire for the limit's clock to count.  It must fail with
 * the small ones once the limit passed, not a whole limit later (its own):
 * the job runs with a limit of 1 s, every config (a smoke run's 100 ms would
 * not tell one limit from two on a loaded machine), and the last send must
 * fail less than half a limit after the first.
 */
#if LC_PC_ANNOUNCE
Test(pipeline_load, stopped_receiver_fails_an_announce_behind_a_full_ring_in_bounded_time)
{
	struct lc_t_out o;
	unsigned long long ms = 0, bound = 0, all = 0;
	char err[32] = "";
	const char *c;

	cr_assert_eq(setenv("LC_BACKPRESSURE_US", "1000000", 1), 0);
	lc_t_stop(&o, "--big-last", err, &ms, &bound);
	c = strstr(o.text, "liveload stop all: ");
	cr_assert(c && sscanf(c, "liveload stop all: %llu ms", &all) == 1,
		  "node 0 did not report its last send (the announced one); output:\n%s", o.text);
	cr_assert_lt(all - ms, 500, "the announced send failed %llu ms after the first (a limit is 1000 ms):\n%s",
		     all - ms, o.text);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(pipeline_load, stopped_receiver_fails_an_announce_behind_a_full_ring_in_bounded_time,
	     "no protocol announces large messages (LC_PC_ANNOUNCE): the big message's frames are "
	     "the stopped_receiver case's")
#endif

/*
 * The scenario of the README's test command on a busy machine: every boundary
 * size and 64 MiB in both directions while two CPU-bound processes compete
 * for the two cores, so a node often fills its 64 MiB buffers (hundreds of ms
 * without a library call) while its peer already sends (a smoke run: 8 MiB).
 * It exercises the baseline pipeline alone, so it runs where no protocol is
 * composed; the tests above run everywhere.
 */
Test(pipeline_load, sizes_and_64MiB_beside_two_cpu_hogs)
{
#if LC_PROTO_CHECKSUM || LC_PROTO_RELIABILITY || LC_PROTO_FLOW_CONTROL || LC_PROTO_MULTICAST
	cr_skip_test("the baseline pipeline's scenario: run in the configs without protocols");
#else
	struct lc_t_out o;
	pid_t hog[2];

	for (int i = 0; i < 2; i++) {
		hog[i] = fork();
		cr_assert_geq(hog[i], 0);
		if (hog[i] == 0) {
			volatile unsigned long x = 0;

			/* never outlive this test's process, even when an assertion ends it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(100);
			for (;;)
				x++;
		}
	}
	lc_t_commrun(&o, 2, 120, "sizes", "--big-mib", LC_T_N("64", "8"), "--random", "20", "--seed", "7",
		     NULL);
	lc_t_expect_ok(&o, "sizes ok:", 2);
	lc_t_out_free(&o);
	for (int i = 0; i < 2; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
#endif
}
