/* SPDX-License-Identifier: MIT */
/* Node program: node 0 streams messages to node 1 with dynamic_mtu's frame size adapting, fixed, or changed every message. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: mtustream MESSAGES SIZE FRAME | mtustream api
 * Node 0 sends MESSAGES messages to node 1, MS_WINDOW in flight; node 1
 * receives them, MS_WINDOW receives posted, and checks each: its index
 * (first 8 bytes i, ~i: in order, none missing or twice), its length and
 * every byte (lc_ex_fill's pattern for i).  SIZE: the bytes of every
 * message, or "mix": sizes around every frame boundary of the sizes in use
 * (0, 1, 7, 64 +- 1, min +- 1, 2 min + 3, LC_MTU +- 1, 3 LC_MTU + 5).
 * FRAME: "adapt" (dynamic_mtu decides), "adapt@N" (it decides from N bytes
 * on, 0: max: lc_dynamic_mtu_set N, then 0), a number of bytes (fixed by
 * lc_dynamic_mtu_set before the first message), or "cycle": before each
 * message a new size (min, 1000, max, 700 in turn) with the messages before
 * it still queued or in flight -- each message must keep the size it took.
 * Node 0 prints
 *   "mtustream: <n> messages of <size> in <s> s: <MB/s> MB/s, frame <f> (fixed|adapting)"
 * and node 1 "mtustream node 1: <n> of <n> intact".  Without dynamic_mtu
 * composed: "mtustream: skipped (no dynamic_mtu)".
 *
 * mtustream api: the calls' errors (node 0).
 */
#if LC_PROTO_DYNAMIC_MTU
#define MS_WINDOW 16u
#define MS_HDR 8u
#define MS_FRAME_MIN 64u  /* the framework's smallest frame that does not end its message */

static size_t ms_min, ms_start, ms_max;

static size_t ms_size(uint32_t i, long fixed)
{
	const size_t sz[] = { 0, 1, 7, MS_HDR, MS_FRAME_MIN - 1, MS_FRAME_MIN, MS_FRAME_MIN + 1, ms_min - 1, ms_min,
			      ms_min + 1, 2 * ms_min + 3, LC_MTU - 1, LC_MTU, LC_MTU + 1, 3 * LC_MTU + 5 };

	return fixed >= 0 ? (size_t)fixed : sz[i % (sizeof sz / sizeof sz[0])];
}

static void ms_fill(uint8_t *b, uint32_t i, size_t len)
{
	uint32_t w[2] = { i, ~i };

	if (len < MS_HDR) {
		memset(b, (int)(i & 0xff), len);
		return;
	}
	memcpy(b, w, sizeof w);
	lc_ex_fill(b + MS_HDR, len - MS_HDR, lc_ex_seed(7, i));
}

static void ms_check(const uint8_t *b, uint32_t i, size_t len, const struct lc_status *st)
{
	uint32_t w[2];

	if (st->err || st->src != 0 || st->len != len)
		lc_tp_fail("message %u: err %s, %zu bytes from %d, expected %zu from 0", i, lc_tp_errname(st->err),
			   st->len, st->src, len);
	if (len < MS_HDR) {
		for (size_t k = 0; k < len; k++)
			if (b[k] != (uint8_t)(i & 0xff))
				lc_tp_fail("message %u of %zu bytes: byte %zu damaged", i, len, k);
		return;
	}
	memcpy(w, b, sizeof w);
	if (w[0] != i || w[1] != ~i)
		lc_tp_fail("message %u: carries index %u/%u (out of order, lost or duplicated)", i, w[0], ~w[1]);
	if (lc_ex_check(b + MS_HDR, len - MS_HDR, lc_ex_seed(7, i)) != len - MS_HDR)
		lc_tp_fail("message %u of %zu bytes: damaged at byte %zu", i, len,
			   MS_HDR + lc_ex_check(b + MS_HDR, len - MS_HDR, lc_ex_seed(7, i)));
}

static double ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ms_api(lc_node *node, int me)
{
	size_t b;
	int fixed, rc;

	if (me != 0)
		return 0;
	if ((rc = lc_dynamic_mtu_set(node, 2, ms_max)) != LC_ERR_RANGE)
		lc_tp_fail("lc_dynamic_mtu_set(node 2 of 2) -> %s", lc_tp_errname(rc));
	if ((rc = lc_dynamic_mtu_set(node, 1, ms_min - 1)) != LC_ERR_INVAL)
		lc_tp_fail("lc_dynamic_mtu_set(min - 1) -> %s", lc_tp_errname(rc));
	if ((rc = lc_dynamic_mtu_set(node, 1, ms_max + 1)) != LC_ERR_INVAL)
		lc_tp_fail("lc_dynamic_mtu_set(max + 1) -> %s", lc_tp_errname(rc));
	if ((rc = lc_dynamic_mtu_get(node, 1, NULL, NULL)) != LC_ERR_INVAL)
		lc_tp_fail("lc_dynamic_mtu_get(NULL) -> %s", lc_tp_errname(rc));
	if ((rc = lc_dynamic_mtu_get(node, LC_ANY_SOURCE, &b, NULL)) != LC_ERR_INVAL)
		lc_tp_fail("lc_dynamic_mtu_get(LC_ANY_SOURCE) -> %s", lc_tp_errname(rc));
	LC_TP_OK(node, lc_dynamic_mtu_get(node, 1, &b, &fixed));
	if (b != ms_start || fixed != !LC_DYNAMIC_MTU_ADAPT_ON)
		lc_tp_fail("a fresh peer: %zu bytes, fixed %d; expected %zu, %d", b, fixed, ms_start, !LC_DYNAMIC_MTU_ADAPT_ON);
	LC_TP_OK(node, lc_dynamic_mtu_set(node, LC_ANY_SOURCE, ms_min));
	LC_TP_OK(node, lc_dynamic_mtu_get(node, 1, &b, &fixed));
	if (b != ms_min || !fixed)
		lc_tp_fail("after set(min): %zu bytes, fixed %d", b, fixed);
	LC_TP_OK(node, lc_dynamic_mtu_set(node, 1, 0));
	LC_TP_OK(node, lc_dynamic_mtu_get(node, 1, &b, &fixed));
	if (b != ms_min || fixed)
		lc_tp_fail("after set(0): %zu bytes, fixed %d; expected the size kept, adapting", b, fixed);
	printf("mtustream api: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);

	lc_dynamic_mtu_bounds(&ms_min, &ms_start, &ms_max);
	if (argc == 2 && strcmp(argv[1], "api") == 0) {
		ms_api(node, me);
		LC_TP_OK(node, lc_close(node));
		return 0;
	}
	if (argc != 4 || n != 2)
		lc_tp_fail("usage: commrun -n 2 mtustream MESSAGES SIZE|mix adapt|cycle|FRAME, or mtustream api");
	uint32_t msgs = (uint32_t)strtoul(argv[1], NULL, 10);
	long fixed = strcmp(argv[2], "mix") == 0 ? -1 : strtol(argv[2], NULL, 10);
	int cycle = strcmp(argv[3], "cycle") == 0, adapt = strncmp(argv[3], "adapt", 5) == 0;
	size_t cap = fixed >= 0 ? (size_t)fixed : 3 * LC_MTU + 5;
	uint8_t *b = lc_tp_alloc(MS_WINDOW * (cap ? cap : 1));
	lc_req *r[MS_WINDOW] = { 0 };
	struct lc_status st;
	double t0;

	if (!adapt && !cycle)
		LC_TP_OK(node, lc_dynamic_mtu_set(node, 1 - me, strtoul(argv[3], NULL, 10)));
	if (adapt && argv[3][5] == '@') {
		/* N 0: max */
		unsigned long from = strtoul(argv[3] + 6, NULL, 10);

		LC_TP_OK(node, lc_dynamic_mtu_set(node, 1 - me, from ? from : ms_max));
		LC_TP_OK(node, lc_dynamic_mtu_set(node, 1 - me, 0));
	}
	/* start together: node 1 is ready */
	if (me == 1)
		LC_TP_OK(node, lc_send(node, 0, b, 0));
	else
		LC_TP_OK(node, lc_recv(node, 1, b, 0, &st));
	t0 = ms_now();
	for (uint32_t i = 0; i < msgs + MS_WINDOW; i++) {
		uint32_t k = i % MS_WINDOW;

		if (r[k]) {
			/* the message of this slot, MS_WINDOW ago */
			LC_TP_OK(node, lc_wait(node, r[k], &st));
			r[k] = NULL;
			if (me == 1)
				ms_check(b + k * cap, i - MS_WINDOW, ms_size(i - MS_WINDOW, fixed), &st);
		}
		if (i >= msgs)
			continue;
		if (me == 1) {
			LC_TP_OK(node, lc_irecv(node, 0, b + k * cap, cap, &r[k]));
			continue;
		}
		if (cycle) {
			const size_t f[] = { ms_min, 1000 < ms_min ? ms_min : 1000, ms_max, 700 < ms_min ? ms_min : 700 };

			LC_TP_OK(node, lc_dynamic_mtu_set(node, 1, f[i % 4]));
		}
		ms_fill(b + k * cap, i, ms_size(i, fixed));
		LC_TP_OK(node, lc_isend(node, 1, b + k * cap, ms_size(i, fixed), &r[k]));
	}
	/* the receiver's end: every message taken (node 0's time includes it) */
	if (me == 1)
		LC_TP_OK(node, lc_send(node, 0, b, 0));
	else
		LC_TP_OK(node, lc_recv(node, 1, b, 0, &st));
	if (me == 0) {
		double dt = ms_now() - t0, bytes = 0;
		size_t f;
		int fx;

		for (uint32_t i = 0; i < msgs; i++)
			bytes += (double)ms_size(i, fixed);
		LC_TP_OK(node, lc_dynamic_mtu_get(node, 1, &f, &fx));
		printf("mtustream: %u messages of %s in %.3f s: %.1f MB/s, frame %zu (%s)\n", msgs, argv[2], dt,
		       bytes / dt / 1e6, f, fx ? "fixed" : "adapting");
	} else {
		printf("mtustream node 1: %u of %u intact\n", msgs, msgs);
	}
	free(b);
	LC_TP_OK(node, lc_close(node));
	return 0;
}
#else
int main(void)
{
	printf("mtustream: skipped (no dynamic_mtu)\n");
	return 0;
}
#endif
