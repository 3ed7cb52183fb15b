/* SPDX-License-Identifier: MIT */
/* Node program: a live receiver away from libcomm (busy, asleep, sharing one core) loses nothing; a stopped one fails the send in bounded time. */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "geom.h"                 /* lc_backpressure_ns */
#include "lc_tprog.h"
#if LC_PROTO_RELIABILITY
#include "lc_composite_host.h"   /* LC_RELIABILITY_GIVE_UP_NS */
#endif

/*
 * Usage: liveload busy|sleep|stop [--pin] [--away K] [--limits-only] [--big-last]    (2 nodes)
 * Node 0 sends node 1 one big message (twice host staging plus the Receive
 * Ring, so it fills every buffer on the way in both MCP modes; 256 KiB at
 * least) and then
 * LL_SMALL messages of 8 bytes.
 *   busy   node 1 computes (touches memory, calls no libcomm) for LL_AWAY_NS
 *   sleep  node 1 sleeps for LL_AWAY_NS
 *   stop   node 1 stops (SIGSTOP) and never continues
 * LL_AWAY_NS is K x the backpressure limit (--away, 2 to 9, default 3: the
 * test's smoke run asks 2, still past it), and with reliability also past its
 * give-up bound (a live peer must not be given up either) unless
 * --limits-only (a smoke run's busy receivers: the give-up, 1.8-4.2 s, is
 * checked by the full run on reliability alone and by the smoke run's
 * sleeping receiver, which costs one CPU, not two).
 * busy/sleep: every message arrives intact; node 0 prints
 *   "liveload counters: bp_stalls <a> bp_drops <b> away_ms <c>"
 * and node 1 "liveload ok: node 1 received <k> messages after <ms> ms away".
 * stop: node 0's sends must fail with LC_ERR_LOST (frames dropped at the
 * limit) or LC_ERR_PEER_DEAD (reliability gave the stopped peer up, or flow
 * control stopped waiting for its credits); it prints
 *   "liveload stop: <err> after <ms> ms (bound <ms> ms)"
 * and then kills node 1 (SIGKILL; its pid came in "ready"), so commrun exits 137.
 * --big-last sends the LL_SMALL messages first and the big one after them, so
 * that its first frame (a rendezvous config's announce) waits behind a full
 * Send Ring; stop then also prints "liveload stop all: <ms> ms", when the
 * last send -- the big one -- failed too.
 * --pin puts both nodes on one CPU: node 0 spins in libcomm while node 1
 * computes, the machine as loaded as two nodes can make it.
 */
/* small messages, all in flight at once: within the request pool (host.max_requests) */
#define LL_SMALL (LC_HOST_MAX_REQUESTS - 2 < 64 ? LC_HOST_MAX_REQUESTS - 2 : 64)

static uint64_t ll_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned ll_away_limits = 3;     /* --away */
static int ll_limits_only;              /* --limits-only */
static int ll_big_last;                 /* --big-last */

static uint64_t ll_away_ns(void)
{
	uint64_t away = (uint64_t)ll_away_limits * lc_backpressure_ns();
#if LC_PROTO_RELIABILITY
	if (!ll_limits_only && away < LC_RELIABILITY_GIVE_UP_NS + 500000000ull)
		away = LC_RELIABILITY_GIVE_UP_NS + 500000000ull;
#endif
	return away;
}

/* The bound of a send to a stopped node: the limit (link, flow control), or reliability's give-up. */
static uint64_t ll_stop_bound_ns(void)
{
#if LC_PROTO_RELIABILITY
	return LC_RELIABILITY_GIVE_UP_NS;
#else
	return lc_backpressure_ns();
#endif
}

/* Work the CPU and memory for ns without a library call. */
static volatile uint64_t ll_sink;

static void ll_compute(uint64_t ns)
{
	static uint8_t mem[1 << 20];
	uint64_t t0 = ll_now_ns(), x = 1;

	while (ll_now_ns() - t0 < ns) {
		for (size_t i = 0; i < sizeof mem; i += 64) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			mem[i] = (uint8_t)(x >> 56);
		}
		ll_sink = x;
	}
}

/* Node 1's receive of the big message from node 0, every byte checked. */
static void ll_recv_big(lc_node *node, unsigned char *buf, size_t big)
{
	struct lc_status st;

	LC_TP_OK(node, lc_recv(node, 0, buf, big, &st));
	lc_tp_expect(buf, &st, 0, big, lc_ex_seed(7, big), "the big message");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "pin", no_argument, NULL, 'p' },
					      { "away", required_argument, NULL, 'a' },
					      { "limits-only", no_argument, NULL, 'l' },
					      { "big-last", no_argument, NULL, 'b' }, { 0, 0, 0, 0 } };
	static const char usage[] =
		"usage: liveload busy|sleep|stop [--pin] [--away K] [--limits-only] [--big-last]";
	const char *mode;
	int me, n, pin = 0, opt;
	char *end;
	/* at least 256 KiB: the sends must still be pending when the frames start to wait */
	size_t big = 2 * (size_t)LC_HOST_STAGING_BYTES + (size_t)LC_NIC_RECV_RING * LC_MTU + 3;
	lc_node *node;
	unsigned char *buf;
	struct lc_status st;
	uint64_t t0;
	int32_t pid;

	if (big < (256u << 10))
		big = (256u << 10) + 3;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'p') {
			pin = 1;
		} else if (opt == 'l') {
			ll_limits_only = 1;
		} else if (opt == 'b') {
			ll_big_last = 1;
		} else if (opt == 'a') {
			ll_away_limits = (unsigned)strtoul(optarg, &end, 10);
			if (*end || ll_away_limits < 2 || ll_away_limits > 9)
				lc_tp_fail("liveload: --away wants 2 to 9 backpressure limits");
		} else {
			lc_tp_fail("%s", usage);
		}
	}
	mode = optind < argc ? argv[optind] : "";
	if (strcmp(mode, "busy") && strcmp(mode, "sleep") && strcmp(mode, "stop"))
		lc_tp_fail("%s", usage);
	if (pin) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			lc_tp_fail("sched_setaffinity: cannot pin to CPU 0");
	}
	node = lc_tp_open(&me, &n);
	if (n != 2)
		lc_tp_fail("liveload runs on 2 nodes");
	buf = lc_tp_alloc(big);
	if (me == 1) {
		/*
		 * ready (the pid, for stop), then node 0's go: in thread mode a send
		 * returns before its frame left, and a stopped process sends nothing
		 */
		pid = (int32_t)getpid();
		LC_TP_OK(node, lc_send(node, 0, &pid, sizeof pid));
		LC_TP_OK(node, lc_recv(node, 0, buf, 1, &st));
		if (!strcmp(mode, "stop")) {
			raise(SIGSTOP);
			lc_tp_fail("continued after SIGSTOP");
		}
		if (!strcmp(mode, "sleep")) {
			struct timespec nap = { (time_t)(ll_away_ns() / 1000000000u),
						(long)(ll_away_ns() % 1000000000u) };

			while (nanosleep(&nap, &nap) != 0)
				;
		} else {
			ll_compute(ll_away_ns());
		}
		if (!ll_big_last)
			ll_recv_big(node, buf, big);
		for (uint32_t i = 0; i < LL_SMALL; i++) {
			char what[32];

			LC_TP_OK(node, lc_recv(node, 0, buf, 8, &st));
			snprintf(what, sizeof what, "small message %u", i);
			lc_tp_expect(buf, &st, 0, 8, lc_ex_seed(i, 8), what);
		}
		if (ll_big_last)
			ll_recv_big(node, buf, big);
		printf("liveload ok: node 1 received %u messages after %llu ms away\n", LL_SMALL + 1,
		       (unsigned long long)(ll_away_ns() / 1000000u));
		LC_TP_OK(node, lc_close(node));
		free(buf);
		return 0;
	}
	LC_TP_OK(node, lc_recv(node, 1, &pid, sizeof pid, &st));
	LC_TP_OK(node, lc_send(node, 1, "g", 1));
	lc_ex_fill(buf, big, lc_ex_seed(7, big));
	t0 = ll_now_ns();
	{
		/* r[k]: the k-th send posted, the big one first or (--big-last) last */
		lc_req *r[LL_SMALL + 1];
		uint32_t at = ll_big_last ? LL_SMALL : 0;
		int rc = 0, failed = 0;
		static unsigned char small[LL_SMALL][8];

		for (uint32_t k = 0; k <= LL_SMALL; k++) {
			if (k == at) {
				if ((rc = lc_isend(node, 1, buf, big, &r[k])) != 0)
					lc_tp_fail("lc_isend of the big message -> %s", lc_tp_errname(rc));
				continue;
			}
			uint32_t i = k - (k > at);

			lc_ex_fill(small[i], 8, lc_ex_seed(i, 8));
			if ((rc = lc_isend(node, 1, small[i], 8, &r[k])) != 0)
				lc_tp_fail("lc_isend of small message %u -> %s", i, lc_tp_errname(rc));
		}
		for (uint32_t i = 0; i <= LL_SMALL; i++) {
			rc = lc_wait(node, r[i], NULL);
			if (rc == 0)
				continue;
			if (strcmp(mode, "stop") ||
			    (rc != LC_ERR_LOST && rc != LC_ERR_PEER_DEAD))
				lc_tp_fail("send %u -> %s (%s)", i, lc_tp_errname(rc), lc_last_error(node));
			if (!failed++)
				printf("liveload stop: %s after %llu ms (bound %llu ms)\n", lc_tp_errname(rc),
				       (unsigned long long)((ll_now_ns() - t0) / 1000000u),
				       (unsigned long long)(ll_stop_bound_ns() / 1000000u));
		}
		if (!strcmp(mode, "stop")) {
			if (!failed)
				lc_tp_fail("every send to the stopped node succeeded");
			if (ll_big_last && rc == 0)
				lc_tp_fail("the big message, sent last, succeeded to the stopped node");
			if (ll_big_last)
				printf("liveload stop all: %llu ms\n",
				       (unsigned long long)((ll_now_ns() - t0) / 1000000u));
			fflush(stdout);
			kill((pid_t)pid, SIGKILL);
			lc_close(node);
			free(buf);
			return 0;
		}
	}
	{
		uint64_t c[LC_STAT_COUNT];

		LC_TP_OK(node, lc_stats(node, c));
		printf("liveload counters: bp_stalls %llu bp_drops %llu away_ms %llu\n",
		       (unsigned long long)c[LC_STAT_bp_stalls], (unsigned long long)c[LC_STAT_bp_drops],
		       (unsigned long long)(ll_away_ns() / 1000000u));
	}
	LC_TP_OK(node, lc_close(node));
	free(buf);
	return 0;
}
