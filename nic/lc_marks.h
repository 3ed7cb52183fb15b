/* SPDX-License-Identifier: MIT */
/*
 * Path marks (scons mode=marks; empty in every other build): callgrind
 * counts a node's instructions only from the moment a wait or test sees
 * the request it waited for complete (LC_PATH_BEGIN: framework/comm.c, the
 * single waits and tests; framework/match.c, the any- and all-of ones) to
 * the next frame's publication into a peer's Receive Ring (LC_PATH_END,
 * nic/nic.c lc_net_put) -- in a ping-pong, one node's turn: the receive's
 * completion, the program's and a personality's work, the reply's send.
 * tools/cg_path.py runs a program so and prints the turn's instructions.
 * With LC_PATH_HALF=rx in the environment (cg_path.py --half rx) the marks
 * count the other half of a one-way message instead: from Net-Recv's sight
 * of a published frame (LC_PATH_FRAME, nic/nic.c) to the wait's or test's
 * completion -- the NIC's receive engines, the host's poll that takes the
 * frame, matching, the copy out and the request's completion.
 *
 * The marks also time each turn (TSC ticks on x86-64, else ns): with
 * LC_PATH_TSC set, a node prints at exit the turns' median, spread and the
 * mean of their middle 80 % (lc_path_report) -- the turn's own time, without the wait before it or
 * the crossing after it.  The state is plain weak globals: one copy
 * however many objects include this; the marks measure single-threaded
 * programs.
 */
#ifndef LC_MARKS_H
#define LC_MARKS_H

#ifdef LC_PATH_MARKS
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <valgrind/callgrind.h>

#define LC_PATH_SAMPLES (1u << 20)
__attribute__((weak)) int lc_path_on;                   /* inside a marked turn */
__attribute__((weak)) uint64_t lc_path_t0;              /* its start */
__attribute__((weak)) uint32_t lc_path_n;               /* turns timed */
__attribute__((weak)) uint32_t lc_path_ticks[LC_PATH_SAMPLES];

static inline uint64_t lc_path_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline int lc_path_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* At exit, with LC_PATH_TSC set: the turns' ticks (the first tenth left out: warm-up). */
static inline void lc_path_report(void)
{
	const char *node = getenv("LC_NODE");
	uint32_t skip = lc_path_n / 10, n = lc_path_n - skip;
	uint32_t *t = lc_path_ticks + skip;

	if (!getenv("LC_PATH_TSC") || n == 0)
		return;
	qsort(t, n, sizeof *t, lc_path_cmp);
	/* the mean of the middle 80 %: finer than the median where the clock counts in steps */
	double sum = 0;
	for (uint32_t i = n / 10; i < n - n / 10; i++)
		sum += t[i];
	fprintf(stderr, "path marks: node %s: %u turns, %s p10 %u median %u p90 %u, mean of p10-p90 %.1f\n",
		node ? node : "?", n,
#if defined(__x86_64__) || defined(__i386__)
		"TSC ticks",
#else
		"ns",
#endif
		t[n / 10], t[n / 2], t[n - 1 - n / 10], sum / (double)(n - 2 * (n / 10)));
}

/* LC_PATH_HALF=rx: the receive's half instead, from Net-Recv's sight of a frame to the wait's completion */
__attribute__((weak)) int lc_path_rx = -1;

static inline int lc_path_half_rx(void)
{
	if (lc_path_rx < 0) {
		const char *h = getenv("LC_PATH_HALF");

		lc_path_rx = h && h[0] == 'r' && h[1] == 'x' && !h[2];
	}
	return lc_path_rx;
}

static inline void lc_path_start(void)
{
	if (!lc_path_on) {
		lc_path_on = 1;
		lc_path_t0 = lc_path_now();
		CALLGRIND_TOGGLE_COLLECT;
	}
}

static inline void lc_path_stop(void)
{
	if (lc_path_on) {
		CALLGRIND_TOGGLE_COLLECT;
		lc_path_on = 0;
		if (lc_path_n < LC_PATH_SAMPLES &&
		    (lc_path_ticks[lc_path_n++] = (uint32_t)(lc_path_now() - lc_path_t0), lc_path_n == 1))
			atexit(lc_path_report);
	}
}

/* a wait or test sees its request complete */
#define LC_PATH_BEGIN() (lc_path_half_rx() ? lc_path_stop() : lc_path_start())
/* the node's next frame is published into a peer's Receive Ring */
#define LC_PATH_END()   (lc_path_half_rx() ? (void)0 : lc_path_stop())
/* Net-Recv sees a frame published in this node's Receive Ring */
#define LC_PATH_FRAME() (lc_path_half_rx() ? lc_path_start() : (void)0)
#else
#define LC_PATH_BEGIN() ((void)0)
#define LC_PATH_END()   ((void)0)
#define LC_PATH_FRAME() ((void)0)
#endif

#endif /* LC_MARKS_H */
