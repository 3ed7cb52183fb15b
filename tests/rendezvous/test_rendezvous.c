/* SPDX-License-Identifier: MIT */
/* Rendezvous end to end: every size boundary, receive posted before and after, truncation, order, faults, copies per byte. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/lc_run.h"
#include "lc_config.h"

TestSuite(rendezvous, .timeout = 300 * LC_T_SLOWDOWN);

/* commrun --show-job --stats [--faults SPEC] -n 2 PROG [A1 A2 ...]: output in *o. */
static void run2(struct lc_t_out *o, const char *faults, const char *prog, const char *const *args)
{
	char crun[512], pp[512];
	char *argv[24];
	int a = 0;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(pp, sizeof pp, prog);
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--stats";
	argv[a++] = "--timeout";
	argv[a++] = "240";
	if (faults) {
		argv[a++] = "--faults";
		argv[a++] = (char *)faults;
	}
	argv[a++] = "-n";
	argv[a++] = "2";
	argv[a++] = pp;
	for (; args && *args; args++)
		argv[a++] = (char *)*args;
	argv[a] = NULL;
	lc_t_exec(o, argv, NULL);
	cr_assert(o->job[0] == '/', "commrun did not name its job; output:\n%s", o->text);
	cr_assert(!lc_t_seg_exists(o->job), "segment /dev/shm%s left behind", o->job);
	cr_assert_eq(o->status, 0, "exit status %d; output:\n%s", o->status, o->text);
}

/* Counter name of node `col` (0 or 1) in the --stats table. */
static unsigned long long stat_of(const struct lc_t_out *o, const char *name, int col)
{
	const char *p = o->text;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == o->text || p[-1] == '\n') && p[n] == ' ') {
			char *end;
			unsigned long long v = strtoull(p + n, &end, 10);
			return col ? strtoull(end, NULL, 10) : v;
		}
		p += n;
	}
	cr_assert_fail("no counter %s in the --stats table:\n%s", name, o->text);
	return 0;
}

static void expect_checked(const struct lc_t_out *o, const char *max)
{
	cr_assert(strstr(o->text, "messages checked"), "rndv printed no result; output:\n%s", o->text);
#if LC_PROTO_RENDEZVOUS
	cr_assert_gt(stat_of(o, "rndv_sends", 0), 0, "no message went by rendezvous (max %s)", max);
	cr_assert_gt(stat_of(o, "rdma_frames", 1), 0, "no RDMA frame was placed");
	/* refused: only late copies of a finished transfer's frames (re-keyed), which a protocol sent again */
	cr_assert_leq(stat_of(o, "rdma_denied", 1), stat_of(o, "rel_retransmits", 0),
		      "more RDMA frames refused than were sent again");
#else
	(void)max;
#endif
}

#if LC_PROTO_RENDEZVOUS
#define FULL_MAX "1048576"
#else
#define FULL_MAX "131072"       /* smoke: the same boundaries, all eager */
#endif

Test(rendezvous, every_boundary_before_and_after_the_receive_truncation_and_order)
{
	struct lc_t_out o;
	const char *args[] = { FULL_MAX, NULL };

	run2(&o, NULL, "tests/progs/rndv", args);
	expect_checked(&o, FULL_MAX);
	lc_t_out_free(&o);
}

#if LC_PROTO_RENDEZVOUS
Test(rendezvous, sixty_four_mib)
{
	struct lc_t_out o;
	const char *args[] = { "67108864", NULL };

	run2(&o, NULL, "tests/progs/rndv", args);
	expect_checked(&o, "64 MiB");
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(rendezvous, sixty_four_mib,
	     "needs rendezvous composed (LC_PROTO_RENDEZVOUS); the boundaries test runs the same "
	     "sizes eagerly up to 128 KiB")
#endif

#if LC_PROTO_RENDEZVOUS && LC_PROTO_RELIABILITY
Test(rendezvous, under_faults_with_reliability)
{
	struct lc_t_out o;
	const char *args[] = { "524288", NULL };

	run2(&o, "drop=0.02,corrupt=0.01,dup=0.01,reorder=0.02,seed=13", "tests/progs/rndv", args);
	expect_checked(&o, "512 KiB under faults");
	cr_assert_gt(stat_of(&o, "rel_retransmits", 0) + stat_of(&o, "rel_retransmits", 1), 0,
		     "the faults were not real");
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(rendezvous, under_faults_with_reliability,
	     "needs rendezvous and reliability composed (LC_PROTO_RENDEZVOUS && LC_PROTO_RELIABILITY)")
#endif

/*
 * Copies per delivered byte of 1 MiB messages, from the counters: the host's
 * copies and the NIC's (DMA both ways, Net-Send) over the payload received.
 * Eager: host -> SRAM, SRAM -> SRAM, SRAM -> staging, staging -> user: 4.
 * Rendezvous: the last one is gone: 3.  Headers add 32 per 8 KiB frame.
 */
Test(rendezvous, copies_per_delivered_byte)
{
	struct lc_t_out o;
	const char *args[] = { "-s", "1M:1M", "-i", "10", "-w", "0", NULL };
	double copies, rx;

	run2(&o, NULL, "bin/pingpong", args);
	rx = (double)stat_of(&o, "rx_bytes", 0);
	copies = (double)(stat_of(&o, "host_copy_bytes", 0) + stat_of(&o, "dma_to_nic_bytes", 0) +
			  stat_of(&o, "net_tx_bytes", 0) + stat_of(&o, "dma_to_host_bytes", 0)) / rx;
	cr_assert(rx >= 10.0 * (1 << 20), "node 0 received %.0f bytes", rx);
	/*
	 * Reliability keeps a copy of every frame (one more) and sends some again
	 * (each costs its copies once more): its configs get that much room above.
	 */
	double extra = LC_PROTO_RELIABILITY ? 1.0 : 0.0, room = LC_PROTO_RELIABILITY ? 1.0 : 0.05;
#if LC_PROTO_RENDEZVOUS && LC_RENDEZVOUS_THRESHOLD <= 1048576
	cr_assert(copies > 2.99 + extra && copies < 3.0 + extra + room,
		  "rendezvous: %.3f copies per byte, want %.0f", copies, 3.0 + extra);
#else
	cr_assert(copies > 3.99 + extra && copies < 4.0 + extra + room,
		  "eager: %.3f copies per byte, want %.0f", copies, 4.0 + extra);
#endif
	printf("copies per delivered byte, 1 MiB: %.3f\n", copies);
	lc_t_out_free(&o);
}
