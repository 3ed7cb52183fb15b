/* SPDX-License-Identifier: MIT */
/* Test driver of every CSN call: csn_test's flags and timeouts, names, netids, errors (2 nodes). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csn.h"

/*
 * usage: commrun -n 2 csn_calls MODE     (MODE: flags, names, errors, timeouts -- main's table)
 * Node 0 and node 1 (from LC_NODE: a test driver, not a libcsn program)
 * play the two sides of each step; every check that fails prints "FAIL"
 * with its line and exits 1, and each node ends with "csn_calls ok: MODE".
 */
static int me;

#define CHECK(cond, ...)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			printf("csn_calls FAIL line %d: %s: ", __LINE__, #cond);            \
			printf(__VA_ARGS__);                                                \
			printf(" (last error: %s)\n", csn_last_error());                    \
			exit(1);                                                            \
		}                                                                           \
	} while (0)
#define OK(call) CHECK((call) == CsnOk, "not CsnOk")
#define IS(call, want)                                                                     \
	do {                                                                               \
		csn_status got_ = (call);                                                  \
		CHECK(got_ == (want), "%s, wanted %s", csn_strstatus(got_), csn_strstatus(want)); \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/*
 * How late node 1 answers a wait of node 0's (a receive, a lookup), which checks that it
 * waited more than LATE_SEEN_MS: the peer polls through it, so it is kept short.
 */
#define LATE_MS 150
#define LATE_SEEN_MS 100

static int same(netid x, netid y)
{
	return x.ip == y.ip && x.port == y.port;
}

/* Blocking receive of the string want from anyone (or from *from when not NULL). */
static void rx_str(transport t, const netid *from, const char *want, netid *who)
{
	char buf[64] = "";
	unsigned n = 0;
	netid id = from ? *from : csn_nullnetid;
	OK(csn_rx(t, &id, buf, sizeof buf, &n));
	CHECK(n == strlen(want) + 1 && strcmp(buf, want) == 0, "got \"%s\" (%u bytes), wanted \"%s\"",
	      buf, n, want);
	if (from)
		CHECK(same(id, *from), "from {%u,%u}", id.ip, id.port);
	if (who)
		*who = id;
}

static void tx_str(transport t, netid to, const char *s)
{
	OK(csn_tx(t, to, (void *)s, (unsigned)strlen(s) + 1));
}

/* csn_test's flags, outputs, order and timeouts; netid receives; overrun; loopback. */
static void mode_flags(void)
{
	transport t;
	netid peer, n;
	void *a;
	csn_status s;
	char r[64], sb[64], small[10];
	unsigned act = 0;

	OK(csn_open(&t));
	OK(csn_registername(t, me ? "b" : "a"));
	OK(csn_lookupname(&peer, me ? "a" : "b"));
	CHECK(peer.ip == (unsigned)(2 - me) && peer.port == 1, "peer {%u,%u}", peer.ip, peer.port);
	if (me == 1) {
		netid from;
		rx_str(t, NULL, "ping", &from);
		CHECK(same(from, peer), "sender {%u,%u}", from.ip, from.port);
		tx_str(t, peer, "pong");                        /* step 1 */
		rx_str(t, &peer, "1", NULL);
		tx_str(t, peer, "2");                           /* step 2 */
		rx_str(t, &peer, "3", NULL);                    /* step 3: node 0 is waiting */
		sleep_ms(LATE_MS);
		tx_str(t, peer, "late");                        /* step 3 */
		tx_str(t, peer, "m0");                          /* step 4 */
		tx_str(t, peer, "m1");
		tx_str(t, peer, "m2");
		rx_str(t, &peer, "t5", NULL);                   /* step 5 */
		tx_str(t, peer, "r5");
		transport t2;                                   /* step 6 */
		netid mine2;
		OK(csn_open(&t2));
		OK(csn_registername(t2, "b2"));
		OK(csn_lookupname(&mine2, "b2"));
		CHECK(mine2.ip == 2 && mine2.port == 2, "second transport {%u,%u}", mine2.ip, mine2.port);
		OK(csn_txnb(t2, peer, "from2", 6));
		sleep_ms(50);                   /* from2 arrives first */
		OK(csn_txnb(t, peer, "from1", 6));
		IS(csn_test(t, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady);
		IS(csn_test(t2, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady);
		OK(csn_close(&t2));
		char big[100];                                  /* step 7 */
		memset(big, 'z', sizeof big);
		OK(csn_tx(t, peer, big, sizeof big));
		OK(csn_tx(t, peer, big, sizeof big));
		rx_str(t, &peer, "done", NULL);
		OK(csn_close(&t));
		printf("csn_calls ok: flags\n");
		return;
	}
	/* step 1: an Rx-only test passes over the Tx that completed first, which stays queued */
	OK(csn_rxnb(t, r, sizeof r, &act));
	strcpy(sb, "ping");
	OK(csn_txnb(t, peer, sb, 5));
	IS(csn_test(t, CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnRxReady);
	CHECK(same(n, peer) && a == r && s == CsnOk && act == 5 && strcmp(r, "pong") == 0,
	      "n {%u,%u} a %p (r %p) s %d act %u \"%s\"", n.ip, n.port, a, (void *)r, s, act, r);
	IS(csn_test(t, CsnRxReadyFlag, 0, &n, &a, &s), CsnTimeout);
	IS(csn_test(t, CsnTxReadyFlag, 0, &n, &a, &s), CsnTxReady);
	CHECK(same(n, peer) && a == sb && s == CsnOk, "tx: n {%u,%u} a %p s %d", n.ip, n.port, a, s);
	IS(csn_test(t, 0, 0, &n, &a, &s), CsnTimeout);
	/* step 2: flags 0 (either): oldest first */
	OK(txnb(t, peer, "1", 2));
	OK(rxnb(t, r, sizeof r, &act));
	IS(csn_test(t, 0, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady);
	IS(csn_test(t, CsnTxReadyFlag | CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnRxReady);
	CHECK(a == r && strcmp(r, "2") == 0 && act == 2, "step 2 got \"%s\"", r);
	/* step 3: timeouts 0, 30 ms, none outstanding of the kind, infinite */
	OK(csn_rxnb(t, r, sizeof r, &act));
	double t0 = now_ms();
	IS(csn_test(t, CsnRxReadyFlag, 0, &n, &a, &s), CsnTimeout);
	CHECK(now_ms() - t0 < 250, "a poll took %.1f ms", now_ms() - t0);
	t0 = now_ms();
	IS(csn_test(t, CsnRxReadyFlag, 30000, &n, &a, &s), CsnTimeout);
	double dt = now_ms() - t0;
	CHECK(dt >= 30 && dt < 2000, "a 30 ms test returned after %.1f ms", dt);
	t0 = now_ms();
	IS(csn_test(t, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTimeout);
	CHECK(now_ms() - t0 < 250, "a test with no transmit outstanding waited %.1f ms", now_ms() - t0);
	strcpy(sb, "3");                /* node 1 sends "late" LATE_MS after it has this */
	t0 = now_ms();
	OK(csn_txnb(t, peer, sb, 2));
	IS(csn_test(t, CsnRxReadyFlag, CsnInfinite, &n, &a, &s), CsnRxReady);
	CHECK(strcmp(r, "late") == 0 && now_ms() - t0 > LATE_SEEN_MS, "step 3 got \"%s\" after %.1f ms",
	      r, now_ms() - t0);
	IS(csn_test(t, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady); /* "3" */
	CHECK(a == sb && s == CsnOk, "step 3's tx: a %p (sb %p) s %d", a, (void *)sb, s);
	/* step 4: posted receives complete in post order */
	char rr[3][8];
	unsigned ra[3];
	for (int i = 0; i < 3; i++)
		OK(csn_rxnb(t, rr[i], sizeof rr[i], &ra[i]));
	for (int i = 0; i < 3; i++) {
		char want[4] = { 'm', (char)('0' + i), 0 };
		IS(csn_test(t, CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnRxReady);
		CHECK(a == rr[i] && strcmp(rr[i], want) == 0 && ra[i] == 3, "receive %d took \"%s\"", i,
		      (char *)a);
	}
	/* step 5: a blocking Rx leaves the completion of an earlier TxNb to csn_test */
	strcpy(sb, "t5");
	OK(csn_txnb(t, peer, sb, 3));
	rx_str(t, NULL, "r5", &n);
	CHECK(same(n, peer), "r5 from {%u,%u}", n.ip, n.port);
	IS(csn_test(t, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady);
	CHECK(a == sb && s == CsnOk, "the t5 transmit: a %p s %d", a, s);
	/* step 6: an Rx from one netid passes over an earlier message of another */
	netid b2 = { 2, 2 };
	rx_str(t, &peer, "from1", NULL);
	rx_str(t, NULL, "from2", &n);
	CHECK(same(n, b2), "from2 came from {%u,%u}", n.ip, n.port);
	/* step 7: overrun, non-blocking and blocking */
	OK(csn_rxnb(t, small, sizeof small, &act));
	IS(csn_test(t, CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnRxReady);
	CHECK(s == CsnOverrun && act == sizeof small && small[9] == 'z', "s %d act %u", s, act);
	n = csn_nullnetid;
	IS(csn_rx(t, &n, small, sizeof small, &act), CsnOverrun);
	CHECK(act == sizeof small && same(n, peer), "act %u", act);
	/* step 8: a second transport of this process sends to the first (loopback) */
	transport t2;
	netid mine;
	OK(csn_open(&t2));
	OK(csn_lookupname(&mine, "a"));
	OK(csn_txnb(t2, mine, "self", 5));
	rx_str(t, NULL, "self", &n);
	CHECK(n.ip == 1 && n.port == 2, "self from {%u,%u}", n.ip, n.port);
	IS(csn_test(t2, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnTxReady);
	CHECK(same(n, mine) && s == CsnOk, "loopback tx to {%u,%u}", n.ip, n.port);
	OK(csn_close(&t2));
	tx_str(t, peer, "done");
	OK(csn_close(&t));
	printf("csn_calls ok: flags\n");
}

/* Lookups that wait, time out, or can never succeed; duplicates; names going with transports. */
static void mode_names(void)
{
	transport t, t2;
	netid n, b, dup;
	char name64[CSN_NAME_MAX + 1];

	if (me == 1) {
		OK(csn_open(&t));
		/* after node 0 started its lookup of "late", however late its process began */
		OK(csn_lookupname(&n, "looking"));
		sleep_ms(LATE_MS);
		OK(csn_registername(t, "late"));
		rx_str(t, NULL, "go1", &n);
		IS(csn_registername(t, "dup"), CsnNetIdAlreadyRegistered);
		IS(csn_registername(t, ""), CsnBadArgument);
		IS(csn_registername(t, "has space"), CsnBadArgument);
		memset(name64, 'x', CSN_NAME_MAX);
		name64[CSN_NAME_MAX] = 0;
		IS(csn_registername(t, name64), CsnBadArgument);
		OK(csn_lookupname(&dup, "dup"));
		CHECK(dup.ip == 1 && dup.port == 1, "dup is {%u,%u}", dup.ip, dup.port);
		tx_str(t, dup, "go2");
		rx_str(t, NULL, "go3", &n);             /* from node 0's second transport */
		OK(csn_registername(t, "dup"));         /* its first closed: the name went */
		tx_str(t, n, "go4");
		OK(csn_close(&t));
		printf("csn_calls ok: names\n");
		return;
	}
	IS(csn_lookupname(&n, "late"), CsnUnitializedTransport);       /* no transport yet */
	OK(csn_open(&t));
	OK(csn_registername(t, "looking"));
	double t0 = now_ms();
	OK(csn_lookupname(&b, "late"));
	CHECK(now_ms() - t0 > LATE_SEEN_MS && b.ip == 2 && b.port == 1, "late {%u,%u} after %.1f ms",
	      b.ip, b.port, now_ms() - t0);
	t0 = now_ms();
	IS(csn_lookupname_timeout(&n, "never", 50000), CsnTimeout);
	CHECK(now_ms() - t0 >= 50 && now_ms() - t0 < 1000, "a 50 ms lookup took %.1f ms",
	      now_ms() - t0);
	IS(csn_lookupname_timeout(&n, "never", 0), CsnTimeout);
	OK(csn_registername(t, "dup"));
	IS(csn_registername(t, "dup"), CsnNetIdAlreadyRegistered);
	OK(csn_open(&t2));
	IS(csn_registername(t2, "dup"), CsnNetIdAlreadyRegistered);
	tx_str(t, b, "go1");
	rx_str(t, &b, "go2", NULL);
	OK(csn_close(&t));
	tx_str(t2, b, "go3");
	rx_str(t2, &b, "go4", NULL);
	/* node 1 is ending: a lookup of a name no one is left to register fails */
	IS(csn_lookupname(&n, "ghost"), CsnIllegalNetId);
	CHECK(strstr(csn_last_error(), "ghost") != NULL, "the error does not name it");
	IS(csn_tx(t2, b, "x", 2), CsnIllegalNetId);
	OK(csn_close(&t2));
	printf("csn_calls ok: names\n");
}

/* Bad transports, bad netids, bad arguments, the transport limit, libcsn's no-ops. */
static void mode_errors(void)
{
	transport t, closed, many[CSN_MAX_TRANSPORTS];
	netid n = csn_nullnetid;
	char buf[8];
	unsigned act;
	void *a;
	csn_status s;

	IS(csn_open(NULL), CsnBadArgument);
	OK(csn_open(&t));
	OK(csn_open(&closed));
	OK(csn_close(&closed));
	CHECK(closed == NULL, "csn_close left the handle");
	transport stale = (transport)((uintptr_t)t + 0x100);    /* the slot's next life */
	transport bad[] = { NULL, (transport)(uintptr_t)0x12345, stale };
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		IS(csn_tx(bad[i], (netid){ 1, 1 }, buf, 1), CsnUnitializedTransport);
		IS(csn_txnb(bad[i], (netid){ 1, 1 }, buf, 1), CsnUnitializedTransport);
		IS(csn_rx(bad[i], &n, buf, sizeof buf, &act), CsnUnitializedTransport);
		IS(csn_rxnb(bad[i], buf, sizeof buf, &act), CsnUnitializedTransport);
		IS(csn_test(bad[i], 0, 0, &n, &a, &s), CsnUnitializedTransport);
		IS(csn_registername(bad[i], "x"), CsnUnitializedTransport);
		IS(csn_close(&bad[i]), CsnUnitializedTransport);
	}
	CHECK(strstr(csn_last_error(), "csn_close") != NULL, "last error \"%s\"", csn_last_error());
	netid badn[] = { { 0, 0 }, { 0, 1 }, { 3, 1 }, { 1, 0 }, { 1, CSN_MAX_TRANSPORTS + 1 } };
	for (unsigned i = 0; i < sizeof badn / sizeof badn[0]; i++) {
		IS(csn_tx(t, badn[i], buf, 1), CsnIllegalNetId);
		IS(csn_txnb(t, badn[i], buf, 1), CsnIllegalNetId);
		if (i > 0) {    /* {0,0} is csn_nullnetid: any sender */
			n = badn[i];
			IS(csn_rx(t, &n, buf, sizeof buf, &act), CsnIllegalNetId);
		}
	}
	CHECK(strstr(csn_last_error(), "csn_rx") != NULL, "last error \"%s\"", csn_last_error());
	IS(csn_tx(t, (netid){ 1, 1 }, NULL, 4), CsnBadArgument);
	IS(csn_rx(t, NULL, buf, sizeof buf, &act), CsnBadArgument);
	IS(csn_rxnb(t, NULL, 4, &act), CsnBadArgument);
	IS(csn_test(t, CSN_FLAG(CsnOk), 0, &n, &a, &s), CsnBadArgument);
	IS(csn_test(t, 0, 0, NULL, NULL, NULL), CsnTimeout);
	IS(csn_close(NULL), CsnBadArgument);
	IS(csn_registername(t, NULL), CsnBadArgument);
	IS(csn_lookupname(NULL, "x"), CsnBadArgument);
	OK(csn_nameserver());
	OK(csn_resolvconf("/etc/csn.conf"));
	/* the transport limit: t is one of them */
	int k = 0;
	while (k < CSN_MAX_TRANSPORTS - 1)
		OK(csn_open(&many[k++]));
	IS(csn_open(&many[k]), CsnNoHeap);
	while (k > 0)
		OK(csn_close(&many[--k]));
	CHECK(strcmp(csn_strstatus(CsnOverrun), "CsnOverrun: the message was larger than the buffer: "
		      "truncated") == 0, "%s", csn_strstatus(CsnOverrun));
	CHECK(CsnTxReady == 0 && CsnOk == 3 && CsnBusy == 9, "libcsn's status values moved");
	OK(csn_close(&t));
	printf("csn_calls ok: errors\n");
}

/*
 * Timed tests never return before their timeout, not even by a part of a
 * microsecond: node 0 times 200 tests of 200 us on a receive that cannot
 * complete before node 1, asleep in a lookup meanwhile, sends into it (node
 * 0's polls then come close together: a deadline in whole microseconds shows).
 */
static void mode_timeouts(void)
{
	transport t;
	netid n;
	void *a;
	csn_status s;
	char r[8];
	unsigned act = 0;

	OK(csn_open(&t));
	if (me == 1) {
		OK(csn_lookupname(&n, "timed"));
		tx_str(t, n, "seen");           /* into the receive node 0 timed */
		OK(csn_close(&t));
		printf("csn_calls ok: timeouts\n");
		return;
	}
	OK(csn_rxnb(t, r, sizeof r, &act));
	for (int i = 0; i < 200; i++) {
		double t0 = now_ms();
		IS(csn_test(t, CsnRxReadyFlag, 200, &n, &a, &s), CsnTimeout);
		double dt = now_ms() - t0;
		CHECK(dt >= 0.2 && dt < 1000, "a 200 us test returned after %.4f ms (test %d)", dt, i);
	}
	OK(csn_registername(t, "timed"));
	IS(csn_test(t, CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s), CsnRxReady);
	CHECK(a == r && s == CsnOk && strcmp(r, "seen") == 0, "got \"%s\"", r);
	OK(csn_close(&t));
	printf("csn_calls ok: timeouts\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = { { "flags", mode_flags }, { "names", mode_names }, { "errors", mode_errors },
		      { "timeouts", mode_timeouts } };
	const char *node = getenv("LC_NODE");

	me = node ? atoi(node) : 0;
	for (size_t i = 0; node && argc == 2 && i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].run();
			return 0;
		}
	fprintf(stderr, "usage: commrun -n 2 csn_calls MODE, MODE one of:");
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		fprintf(stderr, " %s", modes[i].name);
	fprintf(stderr, "\n");
	return 2;
}
