/* SPDX-License-Identifier: MIT */
/* Node program of the launcher's multi-program and name-service tests: one mode per role. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * jobprog MODE [ARGS...], under commrun (public API only):
 *   argv ...         prints "jobprog ok: node R of N argv: <its argv after argv[0]>"
 *   serve NAME [MS [K]]  after MS ms registers NAME (port 100 + R), receives K messages
 *                    (default 1), printing "jobprog ok: served NAME: <message>" for each
 *   ask NAME [US [THEN]]  looks NAME up (timeout US microseconds, negative: for ever),
 *                    sends "hello from R" there; prints "jobprog ok: NAME at node X port P",
 *                    or "jobprog ok: lookup NAME: <LC_ERR_...>: <lc_last_error>" when it
 *                    fails (the driver tells which it expects); then, with THEN, asks
 *                    THEN the same way (e.g. to release a server that keeps the job alive)
 *   claim NAME       registers NAME, then tells node 0 it has tried (node 0 goes first);
 *                    prints the outcome as ask does
 *   leave            opens, closes, exits 0
 */

static void jp_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int jp_serve(lc_node *n, const char *name, long delay_ms, long count)
{
	struct lc_status st;
	int rc;

	jp_sleep_ms(delay_ms);
	if ((rc = lc_name_register(n, name, 100u + (uint32_t)lc_rank(n))) != 0)
		lc_tp_fail("register %s: %s", name, lc_last_error(n));
	for (long i = 0; i < count; i++) {
		char msg[64] = "";
		if ((rc = lc_recv(n, LC_ANY_SOURCE, msg, sizeof msg - 1, &st)) != 0)
			lc_tp_fail("recv: %s", lc_last_error(n));
		printf("jobprog ok: served %s: %s\n", name, msg);
	}
	return 0;
}

static int jp_ask(lc_node *n, const char *name, int64_t timeout_us)
{
	char msg[64];
	int at = -1;
	uint32_t port = 0;
	int rc = lc_name_lookup(n, name, timeout_us, &at, &port);

	if (rc != 0) {
		printf("jobprog ok: lookup %s: %s: %s\n", name, lc_tp_errname(rc), lc_last_error(n));
		return 0;
	}
	snprintf(msg, sizeof msg, "hello from %d", lc_rank(n));
	if ((rc = lc_send(n, at, msg, strlen(msg) + 1)) != 0)
		lc_tp_fail("send: %s", lc_last_error(n));
	printf("jobprog ok: %s at node %d port %u\n", name, at, port);
	return 0;
}

static int jp_claim(lc_node *n, const char *name)
{
	int me = lc_rank(n), token = 0, rc;

	/* node 0 first, then each in turn: node i waits for i-1's token */
	if (me > 0 && (rc = lc_recv(n, me - 1, &token, sizeof token, NULL)) != 0)
		lc_tp_fail("recv token: %s", lc_last_error(n));
	rc = lc_name_register(n, name, (uint32_t)me);
	printf("jobprog ok: claim %s: %s: %s\n", name, lc_tp_errname(rc), rc ? lc_last_error(n) : "");
	if (me + 1 < lc_size(n) && (rc = lc_send(n, me + 1, &token, sizeof token)) != 0)
		lc_tp_fail("send token: %s", lc_last_error(n));
	/* the holder stays until the others have tried */
	if (me == 0 && lc_size(n) > 1 && (rc = lc_recv(n, lc_size(n) - 1, &token, sizeof token, NULL)))
		lc_tp_fail("recv last token: %s", lc_last_error(n));
	if (me == lc_size(n) - 1 && me > 0 && (rc = lc_send(n, 0, &token, sizeof token)) != 0)
		lc_tp_fail("send last token: %s", lc_last_error(n));
	return 0;
}

int main(int argc, char **argv)
{
	lc_node *n;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: jobprog argv|serve|ask|claim|leave [ARGS...]\n");
		return 2;
	}
	if ((rc = lc_open(&n)) != 0)
		lc_tp_fail("lc_open: %s", lc_last_error(NULL));
	lc_tp_me = lc_rank(n);
	const char *mode = argv[1];
	if (strcmp(mode, "argv") == 0) {
		printf("jobprog ok: node %d of %d argv:", lc_rank(n), lc_size(n));
		for (int i = 1; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
	} else if (strcmp(mode, "serve") == 0 && argc >= 3) {
		rc = jp_serve(n, argv[2], argc > 3 ? atol(argv[3]) : 0, argc > 4 ? atol(argv[4]) : 1);
	} else if (strcmp(mode, "ask") == 0 && argc >= 3) {
		rc = jp_ask(n, argv[2], argc > 3 ? atoll(argv[3]) : LC_NAME_FOREVER);
		if (rc == 0 && argc > 4)
			rc = jp_ask(n, argv[4], LC_NAME_FOREVER);
	} else if (strcmp(mode, "claim") == 0 && argc >= 3) {
		rc = jp_claim(n, argv[2]);
	} else if (strcmp(mode, "leave") != 0) {
		lc_tp_fail("unknown mode %s", mode);
	}
	if (lc_close(n) != 0)
		lc_tp_fail("lc_close: %s", lc_last_error(NULL));
	return rc;
}
