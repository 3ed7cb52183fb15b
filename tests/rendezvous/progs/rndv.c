/* SPDX-License-Identifier: MIT */
/* rndv: large messages between nodes 0 and 1 at every rendezvous boundary, in every order of send and receive. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: commrun -n 2 rndv [MAX]
 * Node 0 sends, node 1 receives and checks every byte (the pattern of the
 * size and the case), then answers 1 byte so that cases do not overlap
 * unless a case wants them to.  Prints "rndv: N messages checked" at node 1.
 * Sizes: each side of the threshold and of MTU multiples above it, then
 * powers of two up to MAX (default 1 MiB; the suite asks for 64 MiB once).
 * Cases per size: the receive posted before the announce arrives, and posted
 * long after it (an unexpected announced message holds no buffer); then a
 * truncating receive, an eager and a rendezvous message interleaved (order
 * kept), a receive from any source, and a sliding window of sends and
 * receives completing in the order sent.
 */

#ifndef LC_RENDEZVOUS_THRESHOLD
#define LC_RENDEZVOUS_THRESHOLD 4096   /* no rendezvous composed: the same sizes, all eager */
#endif

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int me;
static lc_node *node;
static unsigned char *sbuf, *rbuf;
static unsigned long checked;

static void sync_peer(void)
{
	unsigned char b = 0;

	if (me == 0)
		LC_TP_OK(node, lc_recv(node, 1, &b, 1, NULL));
	else
		LC_TP_OK(node, lc_send(node, 0, &b, 1));
}

/* One message of len bytes, case c: posted-before (0) or posted-after (1) at the receiver. */
static void one(size_t len, int c)
{
	uint64_t seed = lc_ex_seed(len, (uint64_t)c);
	struct lc_status st;
	lc_req *r;

	if (me == 0) {
		lc_ex_fill(sbuf, len, seed);
		if (c == 1)
			LC_TP_OK(node, lc_send(node, 1, sbuf, len));
		else {
			sync_peer();        /* node 1 has posted its receive */
			LC_TP_OK(node, lc_send(node, 1, sbuf, len));
		}
	} else {
		memset(rbuf, 0, len);
		if (c == 1) {
			nap_ms(20);         /* the announce arrives long before the receive */
			LC_TP_OK(node, lc_recv(node, 0, rbuf, len, &st));
		} else {
			LC_TP_OK(node, lc_irecv(node, 0, rbuf, len, &r));
			sync_peer();
			LC_TP_OK(node, lc_wait(node, r, &st));
		}
		lc_tp_expect(rbuf, &st, 0, len, seed, c ? "posted after" : "posted before");
		checked++;
	}
	sync_peer();
}

/* A receive buffer half the message: LC_ERR_TRUNC, the first half right, nothing written past it. */
static void truncated(size_t len)
{
	uint64_t seed = lc_ex_seed(len, 7);
	struct lc_status st;

	if (me == 0) {
		lc_ex_fill(sbuf, len, seed);
		LC_TP_OK(node, lc_send(node, 1, sbuf, len));
	} else {
		size_t cap = len / 2;
		memset(rbuf, 0x5a, len);
		int rc = lc_recv(node, 0, rbuf, cap, &st);
		if (rc != LC_ERR_TRUNC || st.len != len)
			lc_tp_fail("truncated %zu into %zu: rc %s len %zu", len, cap, lc_tp_errname(rc), st.len);
		unsigned char *want = lc_tp_alloc(len);
		lc_ex_fill(want, len, seed);
		if (memcmp(rbuf, want, cap) != 0)
			lc_tp_fail("truncated %zu: the first %zu bytes differ", len, cap);
		for (size_t i = cap; i < len; i++)
			if (rbuf[i] != 0x5a)
				lc_tp_fail("truncated %zu: byte %zu past the receive buffer was written", len, i);
		free(want);
		checked++;
	}
	sync_peer();
}

/*
 * A receive buffer inside a region the registration cache holds from a
 * larger receive before it (rbuf, big bytes): the transfer must land at the
 * buffer, not at the region's start, and write nothing around it.
 */
static void inside(size_t big, size_t at, size_t len)
{
	uint64_t seed = lc_ex_seed(len, 9);
	struct lc_status st;

	one(big, 0);
	if (me == 0) {
		lc_ex_fill(sbuf, len, seed);
		LC_TP_OK(node, lc_send(node, 1, sbuf, len));
	} else {
		memset(rbuf, 0x3c, big);
		LC_TP_OK(node, lc_recv(node, 0, rbuf + at, len, &st));
		lc_tp_expect(rbuf + at, &st, 0, len, seed, "inside a cached region");
		for (size_t i = 0; i < big; i++)
			if ((i < at || i >= at + len) && rbuf[i] != 0x3c)
				lc_tp_fail("inside a cached region: byte %zu outside the buffer written", i);
		checked++;
	}
	sync_peer();
}

/* eager, rendezvous, eager, sent back to back: received in that order, each intact. */
static void interleaved(size_t big)
{
	size_t lens[3] = { 100, big, 200 };
	struct lc_status st;
	lc_req *r[3];

	if (me == 0) {
		unsigned char *b[3];
		for (int i = 0; i < 3; i++) {
			b[i] = lc_tp_alloc(lens[i]);
			lc_ex_fill(b[i], lens[i], lc_ex_seed(lens[i], 100 + (uint64_t)i));
			LC_TP_OK(node, lc_isend(node, 1, b[i], lens[i], &r[i]));
		}
		for (int i = 0; i < 3; i++)
			LC_TP_OK(node, lc_wait(node, r[i], NULL));
		for (int i = 0; i < 3; i++)
			free(b[i]);
	} else {
		nap_ms(10);     /* all three arrive unexpected */
		for (int i = 0; i < 3; i++) {
			unsigned char *b = lc_tp_alloc(big);
			LC_TP_OK(node, lc_recv(node, LC_ANY_SOURCE, b, big, &st));
			lc_tp_expect(b, &st, 0, lens[i], lc_ex_seed(lens[i], 100 + (uint64_t)i), "interleaved");
			free(b);
			checked++;
		}
	}
	sync_peer();
}

/*
 * A sliding window: node 0 keeps W (WINDOW_W) sends of len bytes in flight, a new one
 * as soon as one completes (its buffer reused), node 1 keeps W receives
 * posted, one reposted as each completes; both take completions with
 * lc_waitany (the first complete in post order).  Messages of one pair
 * complete in the order they were sent, on both sides: the k-th completion
 * holds message k (a program that reuses "the oldest" buffer relies on it).
 */
/* 16, or what the config's request pool leaves beside the one sync_peer takes (small_rings: 8) */
#define WINDOW_W (LC_HOST_MAX_REQUESTS - 2 < 16 ? LC_HOST_MAX_REQUESTS - 2 : 16)
static void window(size_t len, unsigned count)
{
	unsigned char *bufs = lc_tp_alloc(len * WINDOW_W), *pb[WINDOW_W];
	lc_req *req[WINDOW_W];
	unsigned next = 0;      /* the next message to send or to post a receive for */
	int n = 0;

	for (; n < WINDOW_W && next < count; n++, next++) {
		pb[n] = bufs + (size_t)n * len;
		if (me == 0) {
			lc_ex_fill(pb[n], len, lc_ex_seed(len, 200 + (uint64_t)next));
			LC_TP_OK(node, lc_isend(node, 1, pb[n], len, &req[n]));
		} else
			LC_TP_OK(node, lc_irecv(node, 0, pb[n], len, &req[n]));
	}
	for (unsigned k = 0; k < count; k++) {
		struct lc_status st;
		int idx;

		LC_TP_OK(node, lc_waitany(node, n, req, &idx, &st));
		unsigned char *b = pb[idx];
		uint64_t seed = lc_ex_seed(len, 200 + (uint64_t)k);
		if (me == 1) {
			lc_tp_expect(b, &st, 0, len, seed, "window: completion k holds message k");
			checked++;
		} else if (lc_ex_check(b, len, seed) != len)
			lc_tp_fail("window: send completion %u of %zu bytes is not message %u's buffer", k, len, k);
		for (int i = idx; i + 1 < n; i++) {
			req[i] = req[i + 1];
			pb[i] = pb[i + 1];
		}
		n--;
		if (next < count) {
			pb[n] = b;
			if (me == 0) {
				lc_ex_fill(b, len, lc_ex_seed(len, 200 + (uint64_t)next));
				LC_TP_OK(node, lc_isend(node, 1, b, len, &req[n]));
			} else
				LC_TP_OK(node, lc_irecv(node, 0, b, len, &req[n]));
			n++;
			next++;
		}
	}
	free(bufs);
	sync_peer();
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (1u << 20);
	size_t t = LC_RENDEZVOUS_THRESHOLD, sizes[64];
	int n, ns = 0;

	node = lc_tp_open(&me, &n);
	if (n != 2)
		lc_tp_fail("needs 2 nodes");
	sizes[ns++] = t - 1;
	sizes[ns++] = t;
	sizes[ns++] = t + 1;
	for (size_t k = (t + LC_MTU - 1) / LC_MTU; k <= (t + LC_MTU - 1) / LC_MTU + 2; k++) {
		sizes[ns++] = k * LC_MTU - 1;
		sizes[ns++] = k * LC_MTU;
		sizes[ns++] = k * LC_MTU + 1;
	}
	for (size_t s = 1; s <= max; s <<= 1)
		if (s > t + 3 * LC_MTU)
			sizes[ns++] = s;
	if (sizes[ns - 1] != max)
		sizes[ns++] = max;
	sbuf = lc_tp_alloc(max + 1);
	rbuf = lc_tp_alloc(max + 1);
	for (int i = 0; i < ns; i++) {
		if (sizes[i] > max || sizes[i] == 0)
			continue;
		for (int c = 0; c < 2; c++)
			one(sizes[i], c);
	}
	if (t + 3 * LC_MTU + 5 <= max) {
		truncated(t + 3 * LC_MTU + 5);
		inside(t + 3 * LC_MTU + 5, 4099, t + 1);
	}
	interleaved(t + LC_MTU + 3);
	window(t + LC_MTU + 7, 8 * WINDOW_W);
	if (me == 1)
		printf("rndv: %lu messages checked\n", checked);
	fflush(stdout);
	free(sbuf);
	free(rbuf);
	return lc_close(node) == 0 ? 0 : 1;
}
