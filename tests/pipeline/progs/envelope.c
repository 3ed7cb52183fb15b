/* SPDX-License-Identifier: MIT */
/* Node program of the matching envelope's tests: match words and masks, probe, cancel, any/all, ssend, the unexpected budget. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "lc_tprog.h"

/*
 * Usage: commrun -n N envelope MODE [ARG]
 *   tags    (N >= 3) out-of-order tag matching, masks, ANY_SOURCE with a match
 *           word, order per (source, match word)
 *   probe   (2) probe then receive of the probed size; iprobe of nothing
 *   cancel  (2) cancel of an unmatched and of a matched receive, of a send
 *   multi   (2) testany / waitany / testall / waitall / testsome / waitsome
 *   ssend   (2) [ROUNDS] a synchronous send completes only after the receive
 *           posted LC_TP_LATE_MS later; an issend to a posted receive; ROUNDS more
 *           ssends of mixed sizes with late receives (for --faults)
 *   flood   (2) the sender floods 4 x host.unexpected_bytes of 64 KiB (or of eager
 *           messages just below a rendezvous threshold)
 *           messages at a receiver that posts nothing for 500 ms: the
 *           receiver holds at most the budget, the sender is held back,
 *           then every message arrives intact and in order
 *   closing (2) the receiver closes while a frame is parked, with a send of
 *           its own in flight: its close drops the parked frame and finishes
 *           (the frames behind it -- a protocol's acks -- must flow), and the
 *           flooding sender's calls return instead of waiting forever
 *   held    (3) node 2 floods node 0 until a frame of its is parked; node
 *           1's messages of several frames still reach node 0, which holds
 *           no more of node 2's frames than were on the way; then node 2's
 *           flood arrives whole and in order
 *   misuse  (2) every misuse of the new calls returns its error
 * Each node prints "envelope ok: node R MODE ..." on success.
 */

static double lc_tp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep the node's NIC moving for s seconds without posting anything. */
/*
 * How late a receiver comes on purpose (a receive posted after its synchronous send, a
 * flood's receiver at its full budget): the sender polls meanwhile, so it is kept short.
 */
#define LC_TP_LATE_MS 40

static void lc_tp_spin(lc_node *node, double s)
{
	double end = lc_tp_now() + s;
	while (lc_tp_now() < end)
		if (lc_progress(node) < 0)
			lc_tp_fail("lc_progress: %s", lc_last_error(node));
}

static void lc_tp_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static uint64_t lc_tp_stat(lc_node *node, int which)
{
	uint64_t s[LC_STAT_COUNT];
	LC_TP_OK(node, lc_stats(node, s));
	return s[which];
}

/* Send len pattern bytes (seed) with match word w; sync selects lc_ssend. */
static void lc_tp_send(lc_node *node, int dst, uint64_t w, size_t len, uint64_t seed, int sync)
{
	void *b = lc_tp_alloc(len);
	lc_ex_fill(b, len, seed);
	if (sync)
		LC_TP_OK(node, lc_ssend(node, dst, w, b, len));
	else
		LC_TP_OK(node, lc_send_match(node, dst, w, b, len));
	free(b);
}

/* Receive (src, w, mask) and check it is the message (from, want, len, seed). */
static void lc_tp_recv(lc_node *node, int src, uint64_t w, uint64_t mask, int from, uint64_t want,
		       size_t len, uint64_t seed, const char *what)
{
	struct lc_status st;
	void *b = lc_tp_alloc(len);
	LC_TP_OK(node, lc_recv_match(node, src, w, mask, b, len, &st));
	if (st.match != want)
		lc_tp_fail("%s: match word %#llx, expected %#llx", what, (unsigned long long)st.match,
			   (unsigned long long)want);
	lc_tp_expect(b, &st, from, len, seed, what);
	free(b);
}

static void mode_tags(lc_node *node, int me, int n)
{
	const uint64_t hi = 0xabcd000000000000ull;

	if (n < 3)
		lc_tp_fail("tags needs 3 nodes");
	if (me == 1) {
		/* 1..8 in order, then the mask and order cases */
		for (uint64_t t = 1; t <= 8; t++)
			lc_tp_send(node, 0, hi | t, 100 + t, t, 0);
		lc_tp_send(node, 0, 0x1234567800000042ull, 40, 42, 0);
		lc_tp_send(node, 0, 5, 10, 500, 0);      /* A: (1, 5) first */
		lc_tp_send(node, 0, 6, 10, 600, 0);      /* B */
		lc_tp_send(node, 0, 5, 3000, 501, 0);    /* C: (1, 5) second, multi-frame size */
		lc_tp_send(node, 0, 0, 7, 7, 0);         /* plain lc_send's word: 0 */
	} else if (me == 2) {
		lc_tp_send(node, 0, 77, 20, 2077, 0);
	}
	if (me == 0) {
		/* out of send order: 8 .. 1 */
		for (uint64_t t = 8; t >= 1; t--)
			lc_tp_recv(node, 1, hi | t, LC_MATCH_ALL, 1, hi | t, 100 + t, t, "tag out of order");
		/* a mask on the low byte only */
		lc_tp_recv(node, 1, 0x42, 0xff, 1, 0x1234567800000042ull, 40, 42, "masked");
		/* ANY_SOURCE with a match word: only node 2's message carries 77 */
		lc_tp_recv(node, LC_ANY_SOURCE, 77, LC_MATCH_ALL, 2, 77, 20, 2077, "any source");
		/* order per (source, match): 5 twice gives A then C, B waits */
		lc_tp_recv(node, 1, 5, LC_MATCH_ALL, 1, 5, 10, 500, "(1,5) first");
		lc_tp_recv(node, 1, 5, LC_MATCH_ALL, 1, 5, 3000, 501, "(1,5) second");
		/* mask 0 takes any word: the oldest left is B */
		lc_tp_recv(node, 1, 0, 0, 1, 6, 10, 600, "mask 0 takes the oldest");
		/* lc_recv is match 0, full mask */
		{
			struct lc_status st;
			char b[7];
			LC_TP_OK(node, lc_recv(node, 1, b, sizeof b, &st));
			lc_tp_expect(b, &st, 1, 7, 7, "lc_recv");
			if (st.match != 0)
				lc_tp_fail("lc_recv got match %#llx", (unsigned long long)st.match);
		}
		printf("envelope ok: node 0 tags: 13 messages matched\n");
	} else {
		printf("envelope ok: node %d tags: sent\n", me);
	}
}

static void mode_probe(lc_node *node, int me)
{
	const size_t len = 5000 + (size_t)LC_MTU;       /* more than one frame */
	struct lc_status st;
	int flag = 1;

	if (me == 1) {
		lc_tp_send(node, 0, 8, 3, 80, 0);
		lc_tp_send(node, 0, 7, len, 70, 0);
		printf("envelope ok: node 1 probe: sent\n");
		return;
	}
	/* 8 arrives first */
	do
		LC_TP_OK(node, lc_iprobe(node, 1, 8, LC_MATCH_ALL, &flag, &st));
	while (!flag);
	if (st.src != 1 || st.match != 8 || st.len != 3)
		lc_tp_fail("iprobe: src %d match %llu len %zu, expected 1 8 3", st.src,
			   (unsigned long long)st.match, st.len);
	LC_TP_OK(node, lc_iprobe(node, 1, 9, LC_MATCH_ALL, &flag, &st));
	if (flag)
		lc_tp_fail("iprobe found a message with match 9 that nobody sent");
	LC_TP_OK(node, lc_probe(node, LC_ANY_SOURCE, 7, LC_MATCH_ALL, &st));
	if (st.src != 1 || st.match != 7 || st.len != len)
		lc_tp_fail("probe: src %d match %llu len %zu, expected 1 7 %zu", st.src,
			   (unsigned long long)st.match, st.len, len);
	lc_tp_recv(node, st.src, st.match, LC_MATCH_ALL, 1, 7, st.len, 70, "probed size");
	/* probing does not consume: 8 is still there, and mask 0 finds it */
	LC_TP_OK(node, lc_probe(node, 1, 0, 0, &st));
	if (st.match != 8)
		lc_tp_fail("probe with mask 0 saw match %llu", (unsigned long long)st.match);
	lc_tp_recv(node, 1, 8, LC_MATCH_ALL, 1, 8, st.len, 80, "iprobed");
	printf("envelope ok: node 0 probe: %zu bytes probed and received\n", len);
}

static void mode_cancel(lc_node *node, int me)
{
	struct lc_status st;
	lc_req *r;
	char b[16];
	int rc, flag = 0;

	if (me == 1) {
		lc_tp_send(node, 0, 8, 16, 8, 0);
		LC_TP_OK(node, lc_recv(node, 0, b, 1, NULL));  /* node 0 is done */
		printf("envelope ok: node 1 cancel: sent\n");
		return;
	}
	/* unmatched: cancelled, completes with LC_ERR_CANCELED */
	LC_TP_OK(node, lc_irecv_match(node, 1, 99, LC_MATCH_ALL, b, sizeof b, &r));
	if ((rc = lc_cancel(node, r)) != 1)
		lc_tp_fail("lc_cancel of an unmatched receive -> %d", rc);
	if ((rc = lc_wait(node, r, &st)) != LC_ERR_CANCELED || st.err != LC_ERR_CANCELED)
		lc_tp_fail("wait of a cancelled receive -> %s, st.err %d", lc_tp_errname(rc), st.err);
	/* matched (the message is there): not cancelled, completes with the data */
	do
		LC_TP_OK(node, lc_iprobe(node, 1, 8, LC_MATCH_ALL, &flag, &st));
	while (!flag);
	LC_TP_OK(node, lc_irecv_match(node, 1, 8, LC_MATCH_ALL, b, sizeof b, &r));
	if ((rc = lc_cancel(node, r)) != 0)
		lc_tp_fail("lc_cancel of a matched receive -> %d", rc);
	LC_TP_OK(node, lc_wait(node, r, &st));
	lc_tp_expect(b, &st, 1, 16, 8, "matched, cancel refused");
	/* a send is never cancelled */
	LC_TP_OK(node, lc_isend(node, 1, b, 1, &r));
	if ((rc = lc_cancel(node, r)) != 0)
		lc_tp_fail("lc_cancel of a send -> %d", rc);
	LC_TP_OK(node, lc_wait(node, r, NULL));
	printf("envelope ok: node 0 cancel: unmatched cancelled, matched and send not\n");
}

/* lc_testsome / lc_waitsome of node 0 (node 1's messages 31, 33, 99, then 30, 32 once told). */
static void mode_multi_some(lc_node *node, char b[4][8])
{
	struct lc_status sts[5];
	lc_req *r[5];
	int idx[5], n, got = 0, i;
	char go = 0, one;

	for (i = 0; i < 4; i++)
		LC_TP_OK(node, lc_irecv_match(node, 1, 30 + (uint64_t)i, LC_MATCH_ALL, b[i], 8, &r[i]));
	r[4] = NULL;
	/* 99 follows 31 and 33 from the same node: both matched, one call reports both */
	LC_TP_OK(node, lc_recv_match(node, 1, 99, LC_MATCH_ALL, &one, 1, NULL));
	LC_TP_OK(node, lc_testsome(node, 5, r, &n, idx, sts));
	if (n != 2 || idx[0] != 1 || idx[1] != 3 || r[1] || r[3] || !r[0] || !r[2])
		lc_tp_fail("testsome: %d completed (%d %d), entries %p %p %p %p", n, idx[0], idx[1],
			   (void *)r[0], (void *)r[1], (void *)r[2], (void *)r[3]);
	lc_tp_expect(b[1], &sts[0], 1, 8, 31, "testsome #0");
	lc_tp_expect(b[3], &sts[1], 1, 8, 33, "testsome #1");
	if (sts[0].match != 31 || sts[1].match != 33)
		lc_tp_fail("testsome: matches %llu %llu", (unsigned long long)sts[0].match,
			   (unsigned long long)sts[1].match);
	LC_TP_OK(node, lc_testsome(node, 5, r, &n, idx, sts));
	if (n != 0 || !r[0] || !r[2])
		lc_tp_fail("testsome with none completed: %d", n);
	LC_TP_OK(node, lc_send(node, 1, &go, 1));
	while (got < 2) {
		LC_TP_OK(node, lc_waitsome(node, 5, r, &n, idx, sts));
		for (i = 0; i < n; i++) {
			if (idx[i] != 2 * got || r[idx[i]])
				lc_tp_fail("waitsome #%d: index %d", got, idx[i]);
			lc_tp_expect(b[idx[i]], &sts[i], 1, 8, 30 + (uint64_t)idx[i], "waitsome");
			got++;
		}
		if (n < 1)
			lc_tp_fail("waitsome returned %d completions", n);
	}
	/* every entry NULL: -1 at once */
	LC_TP_OK(node, lc_testsome(node, 5, r, &n, idx, sts));
	if (n != -1)
		lc_tp_fail("testsome of NULL entries: %d", n);
	LC_TP_OK(node, lc_waitsome(node, 5, r, &n, idx, NULL));
	if (n != -1)
		lc_tp_fail("waitsome of NULL entries: %d", n);
}

static void mode_multi(lc_node *node, int me)
{
	static const int order[4] = { 2, 0, 3, 1 };
	struct lc_status st, sts[4];
	lc_req *r[4];
	char b[4][8], go = 0;
	int idx, done, i;

	if (me == 1) {
		/*
		 * each message once node 0 said go (its receives are posted, it took
		 * the one before): they complete in send order however late either
		 * node is scheduled
		 */
		for (i = 0; i < 4; i++) {
			LC_TP_OK(node, lc_recv(node, 0, &go, 1, NULL));
			lc_tp_send(node, 0, (uint64_t)order[i], 8, (uint64_t)order[i], 0);
		}
		for (i = 0; i < 3; i++)
			lc_tp_send(node, 0, 10 + (uint64_t)i, 8, 10 + (uint64_t)i, 0);
		for (i = 0; i < 2; i++)
			lc_tp_send(node, 0, 20 + (uint64_t)i, 8, 20 + (uint64_t)i, 0);
		/* some: 31 and 33, then 99 (node 0 knows them in by then), and 30 and 32 once told */
		lc_tp_send(node, 0, 31, 8, 31, 0);
		lc_tp_send(node, 0, 33, 8, 33, 0);
		lc_tp_send(node, 0, 99, 1, 99, 0);
		LC_TP_OK(node, lc_recv(node, 0, &go, 1, NULL));
		lc_tp_send(node, 0, 30, 8, 30, 0);
		lc_tp_send(node, 0, 32, 8, 32, 0);
		printf("envelope ok: node 1 multi: sent\n");
		return;
	}
	for (i = 0; i < 4; i++)
		LC_TP_OK(node, lc_irecv_match(node, 1, (uint64_t)i, LC_MATCH_ALL, b[i], 8, &r[i]));
	LC_TP_OK(node, lc_send(node, 1, &go, 1));
	/* testany until one completes, then waitany for the rest: in send order */
	do
		LC_TP_OK(node, lc_testany(node, 4, r, &idx, &done, &st));
	while (!done);
	for (i = 0;; i++) {
		if (idx != order[i] || r[idx] != NULL)
			lc_tp_fail("any #%d: index %d, expected %d (entry %s)", i, idx, order[i],
				   r[idx] ? "not NULL" : "NULL");
		lc_tp_expect(b[idx], &st, 1, 8, (uint64_t)idx, "any");
		if (i == 3)
			break;
		LC_TP_OK(node, lc_send(node, 1, &go, 1));
		LC_TP_OK(node, lc_waitany(node, 4, r, &idx, &st));
	}
	/* every entry NULL: done at once, index -1 */
	LC_TP_OK(node, lc_testany(node, 4, r, &idx, &done, &st));
	if (!done || idx != -1)
		lc_tp_fail("testany of NULL entries: done %d index %d", done, idx);
	LC_TP_OK(node, lc_waitany(node, 4, r, &idx, &st));
	if (idx != -1)
		lc_tp_fail("waitany of NULL entries: index %d", idx);
	/* testall with a NULL hole */
	for (i = 0; i < 3; i++)
		LC_TP_OK(node, lc_irecv_match(node, 1, 10 + (uint64_t)i, LC_MATCH_ALL, b[i], 8, &r[i]));
	r[3] = NULL;
	do
		LC_TP_OK(node, lc_testall(node, 4, r, &done, sts));
	while (!done);
	for (i = 0; i < 3; i++) {
		if (r[i])
			lc_tp_fail("testall left reqs[%d]", i);
		lc_tp_expect(b[i], &sts[i], 1, 8, 10 + (uint64_t)i, "testall");
	}
	for (i = 0; i < 2; i++)
		LC_TP_OK(node, lc_irecv_match(node, 1, 20 + (uint64_t)i, LC_MATCH_ALL, b[i], 8, &r[i]));
	LC_TP_OK(node, lc_waitall(node, 2, r, sts));
	for (i = 0; i < 2; i++)
		lc_tp_expect(b[i], &sts[i], 1, 8, 20 + (uint64_t)i, "waitall");
	mode_multi_some(node, b);
	printf("envelope ok: node 0 multi: any in completion order, all, some\n");
}

static void mode_ssend(lc_node *node, int me, int rounds)
{
	const size_t big = 3 * (size_t)LC_MTU + 100;
	char b[8];
	lc_req *r;
	int done, i;

	/*
	 * The receiver posts its receives LC_TP_LATE_MS late and tells the times it
	 * posted them (CLOCK_MONOTONIC is one clock for every process of the
	 * machine): each synchronous send must complete after its receive.
	 */
	double tdone[2], tpost[2], t0;
	if (me == 0) {
		t0 = lc_tp_now();
		lc_tp_send(node, 1, 1, 8, 1, 1);
		tdone[0] = lc_tp_now();
		/* the same as issend + test */
		lc_ex_fill(b, 8, 2);
		LC_TP_OK(node, lc_issend(node, 1, 2, b, 8, &r));
		do
			LC_TP_OK(node, lc_test(node, r, &done, NULL));
		while (!done);
		tdone[1] = lc_tp_now();
		/* a big one, and one to a receive posted before it arrives */
		lc_tp_send(node, 1, 3, big, 3, 1);
		LC_TP_OK(node, lc_recv(node, 1, b, 1, NULL));
		lc_tp_send(node, 1, 4, 8, 4, 1);
		/* loopback */
		LC_TP_OK(node, lc_irecv_match(node, 0, 5, LC_MATCH_ALL, b, 8, &r));
		lc_tp_send(node, 0, 5, 8, 5, 1);
		LC_TP_OK(node, lc_wait(node, r, NULL));
		for (i = 0; i < rounds; i++)
			lc_tp_send(node, 1, 100 + (uint64_t)i, (size_t)(i * 997) % (2 * LC_MTU), (uint64_t)i, 1);
		LC_TP_OK(node, lc_recv_match(node, 1, 999, LC_MATCH_ALL, tpost, sizeof tpost, NULL));
		for (i = 0; i < 2; i++)
			if (tdone[i] < tpost[i])
				lc_tp_fail("ssend %d completed %.6f s before its receive was posted", i + 1,
					   tpost[i] - tdone[i]);
		printf("envelope ok: node 0 ssend: the first took %.3f s (receive posted %d ms late), "
		       "%d more\n", tdone[0] - t0, LC_TP_LATE_MS, rounds);
		return;
	}
	lc_tp_sleep_ms(LC_TP_LATE_MS);
	tpost[0] = lc_tp_now();
	lc_tp_recv(node, 0, 1, LC_MATCH_ALL, 0, 1, 8, 1, "ssend 1");
	lc_tp_sleep_ms(LC_TP_LATE_MS);
	tpost[1] = lc_tp_now();
	lc_tp_recv(node, 0, 2, LC_MATCH_ALL, 0, 2, 8, 2, "issend 2");
	lc_tp_sleep_ms(LC_TP_LATE_MS / 2);
	lc_tp_recv(node, 0, 3, LC_MATCH_ALL, 0, 3, big, 3, "ssend big");
	{
		lc_req *rr;
		char bb[8];
		LC_TP_OK(node, lc_irecv_match(node, 0, 4, LC_MATCH_ALL, bb, 8, &rr));
		LC_TP_OK(node, lc_send(node, 0, b, 1));
		LC_TP_OK(node, lc_wait(node, rr, NULL));
	}
	for (i = 0; i < rounds; i++) {
		if (i % 8 == 0)
			lc_tp_sleep_ms(5);
		lc_tp_recv(node, 0, 100 + (uint64_t)i, LC_MATCH_ALL, 0, 100 + (uint64_t)i,
			   (size_t)(i * 997) % (2 * LC_MTU), (uint64_t)i, "ssend round");
	}
	LC_TP_OK(node, lc_send_match(node, 0, 999, tpost, sizeof tpost));
	printf("envelope ok: node 1 ssend: received\n");
}

/* an eager message: one a protocol announces (rendezvous) takes no unexpected buffer to flood */
#if defined(LC_RENDEZVOUS_THRESHOLD) && LC_RENDEZVOUS_THRESHOLD <= 65536
#define LC_TP_FLOOD_MSG ((size_t)LC_RENDEZVOUS_THRESHOLD - 1)
#else
#define LC_TP_FLOOD_MSG ((size_t)65536)
#endif

/* Flood messages for times x the unexpected budget (+ 8), as many as the request pool allows. */
static size_t lc_tp_flood_count(unsigned times)
{
	size_t n = (size_t)(times * (uint64_t)LC_HOST_UNEXPECTED_BYTES / LC_TP_FLOOD_MSG) + 8;

	return n < LC_HOST_MAX_REQUESTS - 1 ? n : LC_HOST_MAX_REQUESTS - 1;
}

static void mode_flood(lc_node *node, int me)
{
	uint64_t budget = (uint64_t)LC_HOST_UNEXPECTED_BYTES;
	size_t n = lc_tp_flood_count(4);
	char *b = lc_tp_alloc(LC_TP_FLOOD_MSG);
	size_t i;

	/* the flood must reach beyond what the receiver's budget and staging can hold */
	if ((uint64_t)n * LC_TP_FLOOD_MSG <= budget + LC_HOST_STAGING_BYTES)
		lc_tp_fail("config: %zu requests (host.max_requests) of %zu bytes cannot flood beyond "
			   "host.unexpected_bytes + host.staging_bytes", n, LC_TP_FLOOD_MSG);
	if (me == 1) {
		lc_req **r = lc_tp_alloc(n * sizeof(*r));
		char **bufs = lc_tp_alloc(n * sizeof(*bufs));
		int done = 0;
		for (i = 0; i < n; i++) {
			bufs[i] = lc_tp_alloc(LC_TP_FLOOD_MSG);
			lc_ex_fill(bufs[i], LC_TP_FLOOD_MSG, i);
			LC_TP_OK(node, lc_isend_match(node, 0, i, bufs[i], LC_TP_FLOOD_MSG, &r[i]));
		}
		/*
		 * the receiver posts nothing until its budget is full and LC_TP_LATE_MS
		 * more; it tells when it started to receive (CLOCK_MONOTONIC is one
		 * clock for the machine): the sends cannot all complete before
		 */
		double tall, tstart;
		(void)done;
		LC_TP_OK(node, lc_waitall(node, (int)n, r, NULL));
		tall = lc_tp_now();
		LC_TP_OK(node, lc_recv_match(node, 0, 999, LC_MATCH_ALL, &tstart, sizeof tstart, NULL));
		if (tall < tstart)
			lc_tp_fail("all %zu sends of %zu bytes completed %.3f s before the receiver "
				   "received: the sender was not held back", n, n * LC_TP_FLOOD_MSG,
				   tstart - tall);
		printf("envelope ok: node 1 flood: %zu messages held back until %.3f s after the "
		       "receiver began\n", n, tall - tstart);
		for (i = 0; i < n; i++)
			free(bufs[i]);
		free(bufs);
		free(r);
		free(b);
		return;
	}
	double t0 = lc_tp_now(), tstart;
	while (lc_tp_stat(node, LC_STAT_rx_parked) == 0 && lc_tp_now() - t0 < 20)
		lc_tp_spin(node, 0.01);
	lc_tp_spin(node, LC_TP_LATE_MS / 1e3);
	uint64_t hwm = lc_tp_stat(node, LC_STAT_unexpected_hwm);
	uint64_t parked = lc_tp_stat(node, LC_STAT_rx_parked);
	if (hwm > budget)
		lc_tp_fail("held %llu bytes of unexpected messages > budget %llu",
			   (unsigned long long)hwm, (unsigned long long)budget);
	if (parked == 0)
		lc_tp_fail("no first frame was parked at the budget");
	/* every message, in order: the oldest matching one each time (mask 0) */
	tstart = lc_tp_now();
	for (i = 0; i < n; i++) {
		struct lc_status st;
		LC_TP_OK(node, lc_recv_match(node, 1, 0, 0, b, LC_TP_FLOOD_MSG, &st));
		if (st.match != i)
			lc_tp_fail("flood: message %zu came as %llu", i, (unsigned long long)st.match);
		lc_tp_expect(b, &st, 1, LC_TP_FLOOD_MSG, i, "flood");
	}
	hwm = lc_tp_stat(node, LC_STAT_unexpected_hwm);
	if (hwm > budget)
		lc_tp_fail("held %llu bytes > budget %llu", (unsigned long long)hwm,
			   (unsigned long long)budget);
	LC_TP_OK(node, lc_send_match(node, 1, 999, &tstart, sizeof tstart));
	printf("envelope ok: node 0 flood: %zu messages of %zu bytes in order, unexpected hwm %llu <= "
	       "budget %llu\n", n, LC_TP_FLOOD_MSG, (unsigned long long)hwm,
	       (unsigned long long)budget);
	free(b);
}

static void mode_closing(lc_node *node, int me)
{
	size_t n = lc_tp_flood_count(2);
	char b[8] = "bye";
	double t0;
	int rc;

	if (me == 1) {
		lc_req **r = lc_tp_alloc(n * sizeof(*r));
		char *buf = lc_tp_alloc(LC_TP_FLOOD_MSG);
		lc_ex_fill(buf, LC_TP_FLOOD_MSG, 1);
		for (size_t i = 0; i < n; i++)
			LC_TP_OK(node, lc_isend_match(node, 0, i, buf, LC_TP_FLOOD_MSG, &r[i]));
		/* node 0's goodbye comes behind our flood; then our sends end, one way or another */
		LC_TP_OK(node, lc_recv_match(node, 0, 999, LC_MATCH_ALL, b, sizeof b, NULL));
		rc = lc_waitall(node, (int)n, r, NULL);
		rc = lc_close(node);
		printf("envelope ok: node 1 closing: flood ended, close -> %s\n", lc_tp_errname(rc));
		free(buf);
		free(r);
		exit(0);
	}
	t0 = lc_tp_now();
	while (lc_tp_stat(node, LC_STAT_rx_parked) == 0 && lc_tp_now() - t0 < 20)
		lc_tp_spin(node, 0.01);
	if (lc_tp_stat(node, LC_STAT_rx_parked) == 0)
		lc_tp_fail("nothing parked");
	LC_TP_OK(node, lc_send_match(node, 1, 999, b, sizeof b));
	t0 = lc_tp_now();
	LC_TP_OK(node, lc_close(node));
	t0 = lc_tp_now() - t0;
	/* a protocol's drain would wait out its give-up bound (reliability: 1.8 s) for acks held behind */
	if (t0 > 1.2)
		lc_tp_fail("close took %.3f s: the frames behind the parked one did not flow", t0);
	printf("envelope ok: node 0 closing: closed in %.3f s with a parked frame\n", t0);
	exit(0);
}

/*
 * held (3): node 2 floods node 0 beyond the unexpected budget until node 0
 * parks one of its first frames; then node 1 sends messages of several
 * frames, which node 0 receives while node 2 stays held: a parked frame
 * holds its own source only.  Node 0 held at most what was on the way from
 * node 2 (Receive Ring + staging, + 1 frame past the hold check), then
 * receives node 2's flood in order.
 */
static void mode_held(lc_node *node, int me)
{
	size_t nf = lc_tp_flood_count(4), k = 40, len = 3 * (size_t)LC_MTU + 5;
	char go[8] = "go";
	size_t i;

	if (me == 2) {
		lc_req **r = lc_tp_alloc(nf * sizeof(*r));
		char *buf = lc_tp_alloc(LC_TP_FLOOD_MSG);
		for (i = 0; i < nf; i++) {
			lc_ex_fill(buf, LC_TP_FLOOD_MSG, i);
			LC_TP_OK(node, lc_isend_match(node, 0, i, buf, LC_TP_FLOOD_MSG, &r[i]));
			LC_TP_OK(node, lc_wait(node, r[i], NULL));
		}
		LC_TP_OK(node, lc_recv_match(node, 0, 999, LC_MATCH_ALL, go, sizeof go, NULL));
		printf("envelope ok: node 2 held: %zu messages sent\n", nf);
		free(buf);
		free(r);
		return;
	}
	if (me == 1) {
		char *buf = lc_tp_alloc(len);
		LC_TP_OK(node, lc_recv_match(node, 0, 998, LC_MATCH_ALL, go, sizeof go, NULL));
		for (i = 0; i < k; i++) {
			lc_ex_fill(buf, len, 1000 + i);
			LC_TP_OK(node, lc_send_match(node, 0, 7, buf, len));
		}
		printf("envelope ok: node 1 held: %zu messages of %zu bytes sent\n", k, len);
		free(buf);
		return;
	}
	char *b = lc_tp_alloc(len > LC_TP_FLOOD_MSG ? len : LC_TP_FLOOD_MSG);
	double t0 = lc_tp_now();
	while (lc_tp_stat(node, LC_STAT_rx_parked) == 0 && lc_tp_now() - t0 < 20)
		lc_tp_spin(node, 0.01);
	if (lc_tp_stat(node, LC_STAT_rx_parked) == 0)
		lc_tp_fail("node 2's flood parked nothing");
	lc_tp_spin(node, 0.1);
	LC_TP_OK(node, lc_send_match(node, 1, 998, go, sizeof go));
	for (i = 0; i < k; i++) {
		struct lc_status st;
		LC_TP_OK(node, lc_recv_match(node, 1, 7, LC_MATCH_ALL, b, len, &st));
		lc_tp_expect(b, &st, 1, len, 1000 + i, "held");
	}
	uint64_t held = lc_tp_stat(node, LC_STAT_rx_held), bound = LC_NIC_RECV_RING + LC_HOST_STAGING_SLOTS + 1;
	if (held > bound)
		lc_tp_fail("held %llu frames of node 2, more than were on the way (%llu)",
			   (unsigned long long)held, (unsigned long long)bound);
	for (i = 0; i < nf; i++) {
		struct lc_status st;
		LC_TP_OK(node, lc_recv_match(node, 2, 0, 0, b, LC_TP_FLOOD_MSG, &st));
		if (st.match != i)
			lc_tp_fail("held: node 2's message %zu came as %llu", i, (unsigned long long)st.match);
		lc_tp_expect(b, &st, 2, LC_TP_FLOOD_MSG, i, "held");
	}
	LC_TP_OK(node, lc_send_match(node, 2, 999, go, sizeof go));
	printf("envelope ok: node 0 held: node 1's %zu messages taken while node 2 was held "
	       "(%llu frames held <= %llu), then node 2's %zu in order\n", k,
	       (unsigned long long)held, (unsigned long long)bound, nf);
	free(b);
}

#define LC_TP_EXPECT(node, call, want)                                                       \
	do {                                                                                 \
		int rc_ = (call);                                                            \
		if (rc_ != (want))                                                           \
			lc_tp_fail("%s -> %s, expected %s", #call, lc_tp_errname(rc_), #want); \
	} while (0)

static void mode_misuse(lc_node *node, int me)
{
	struct lc_status st;
	lc_req *r = NULL, *bad[2] = { NULL, NULL };
	struct lc_status sts3[3];
	int flag, idx, idx2[3], done;
	char b[4] = { 0 };

	(void)me;
	LC_TP_EXPECT(node, lc_issend(node, 5, 0, b, 1, &r), LC_ERR_RANGE);
	LC_TP_EXPECT(node, lc_isend_match(node, 1, 0, NULL, 1, &r), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_irecv_match(node, -3, 0, 0, b, 1, &r), LC_ERR_RANGE);
	LC_TP_EXPECT(node, lc_irecv_match(node, 0, 0, 0, b, 1, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_iprobe(node, 0, 0, 0, &flag, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_iprobe(node, 0, 0, 0, NULL, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_iprobe(node, 9, 0, 0, &flag, &st), LC_ERR_RANGE);
	LC_TP_EXPECT(node, lc_probe(node, 9, 0, 0, &st), LC_ERR_RANGE);
	LC_TP_EXPECT(node, lc_probe(NULL, 0, 0, 0, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_cancel(node, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_cancel(node, (lc_req *)(void *)b), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testany(node, -1, bad, &idx, &done, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testany(node, 2, NULL, &idx, &done, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testany(node, 2, bad, NULL, &done, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testany(node, 2, bad, &idx, NULL, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testall(node, 2, bad, NULL, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testsome(node, 2, bad, NULL, idx2, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_testsome(node, 2, bad, &idx, NULL, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_waitsome(node, -1, bad, &idx, idx2, NULL), LC_ERR_INVAL);
	bad[1] = (lc_req *)(void *)b;
	LC_TP_EXPECT(node, lc_waitsome(node, 2, bad, &idx, idx2, NULL), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_waitany(node, 2, bad, &idx, &st), LC_ERR_INVAL);
	LC_TP_EXPECT(node, lc_waitall(node, 2, bad, NULL), LC_ERR_INVAL);
	/* a request completed and freed is no longer pending */
	LC_TP_OK(node, lc_irecv_match(node, 0, 1, LC_MATCH_ALL, b, 4, &r));
	if (lc_cancel(node, r) != 1)
		lc_tp_fail("cancel");
	LC_TP_EXPECT(node, lc_wait(node, r, NULL), LC_ERR_CANCELED);
	LC_TP_EXPECT(node, lc_cancel(node, r), LC_ERR_INVAL);
	bad[0] = r;
	bad[1] = NULL;
	LC_TP_EXPECT(node, lc_testall(node, 2, bad, &done, NULL), LC_ERR_INVAL);
	/* a pending request before a bad entry: the call is refused and the request stays pending */
	LC_TP_OK(node, lc_irecv_match(node, me, 77, LC_MATCH_ALL, b, 4, &r));
	bad[0] = r;
	bad[1] = (lc_req *)(void *)b;
	LC_TP_EXPECT(node, lc_waitall(node, 2, bad, NULL), LC_ERR_INVAL);
	if (lc_cancel(node, r) != 1)
		lc_tp_fail("misuse: the request before the bad entry of lc_waitall is not pending");
	LC_TP_EXPECT(node, lc_wait(node, r, NULL), LC_ERR_CANCELED);
	/* failed requests: the error named is the first one's */
	for (int k = 0; k < 2; k++) {
		lc_req *two[3] = { NULL, NULL, NULL };
		char want[16];

		for (int j = k; j < 3; j++) {
			LC_TP_OK(node, lc_irecv_match(node, me, 78, LC_MATCH_ALL, b, 4, &two[j]));
			if (lc_cancel(node, two[j]) != 1)
				lc_tp_fail("misuse: cancel");
		}
		LC_TP_EXPECT(node, lc_testall(node, 3, two, &done, NULL), LC_ERR_CANCELED);
		snprintf(want, sizeof want, "reqs[%d]", k);
		if (!done || two[0] || two[1] || two[2] || !strstr(lc_last_error(node), want))
			lc_tp_fail("misuse: lc_testall of failed requests from %d: done %d, \"%s\"", k, done,
				   lc_last_error(node));
		/* the same through lc_testsome: every one reported, the first named */
		for (int j = k; j < 3; j++) {
			LC_TP_OK(node, lc_irecv_match(node, me, 78, LC_MATCH_ALL, b, 4, &two[j]));
			if (lc_cancel(node, two[j]) != 1)
				lc_tp_fail("misuse: cancel");
		}
		LC_TP_EXPECT(node, lc_testsome(node, 3, two, &done, idx2, sts3), LC_ERR_CANCELED);
		if (done != 3 - k || idx2[0] != k || two[0] || two[1] || two[2] ||
		    sts3[0].err != LC_ERR_CANCELED || !strstr(lc_last_error(node), want))
			lc_tp_fail("misuse: lc_testsome of failed requests from %d: %d, \"%s\"", k, done,
				   lc_last_error(node));
	}
	printf("envelope ok: node %d misuse: every error returned\n", me);
}

int main(int argc, char **argv)
{
	int me, n;
	const char *mode = argc > 1 ? argv[1] : "";
	lc_node *node = lc_tp_open(&me, &n);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "tags"))
		mode_tags(node, me, n);
	else if (!strcmp(mode, "probe"))
		mode_probe(node, me);
	else if (!strcmp(mode, "cancel"))
		mode_cancel(node, me);
	else if (!strcmp(mode, "multi"))
		mode_multi(node, me);
	else if (!strcmp(mode, "ssend"))
		mode_ssend(node, me, argc > 2 ? atoi(argv[2]) : 0);
	else if (!strcmp(mode, "flood"))
		mode_flood(node, me);
	else if (!strcmp(mode, "held"))
		mode_held(node, me);
	else if (!strcmp(mode, "closing"))
		mode_closing(node, me);
	else if (!strcmp(mode, "misuse"))
		mode_misuse(node, me);
	else
		lc_tp_fail("unknown mode \"%s\"", mode);
	LC_TP_OK(node, lc_close(node));
	return 0;
}
