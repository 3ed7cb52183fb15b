/* SPDX-License-Identifier: MIT */
/* What the benchmark's own two-process programs (shm_pingpong, nic_floor) share: the command line, --bind, the end. */
#ifndef LC_BENCH_PAIR_H
#define LC_BENCH_PAIR_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_ex_pattern.h"

/*
 * --bind core: the cores of each side (the first two this process may use), or -1 -1 for
 * none (--bind none, or fewer than 2 cores: oversubscribed, said on stderr).  0, or -1 with a
 * message (a bad value).  prog names the program in the messages.
 */
static inline int lc_bench_bind_plan(const char *prog, const char *what, int cpu[2])
{
	cpu_set_t allowed;
	int n = 0;

	cpu[0] = cpu[1] = -1;
	if (strcmp(what, "none") == 0)
		return 0;
	if (strcmp(what, "core") != 0) {
		fprintf(stderr, "%s: --bind needs 'core' or 'none'\n", prog);
		return -1;
	}
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
		fprintf(stderr, "%s: --bind core: fewer than 2 cores: not bound (oversubscribed)\n", prog);
		return 0;
	}
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpu[n++] = c;
	return 0;
}

/* Pin the calling process to cpu (nothing for -1). */
static inline void lc_bench_bind(const char *prog, int cpu)
{
	cpu_set_t one;

	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		fprintf(stderr, "%s: cannot bind to core %d: %s\n", prog, cpu, strerror(errno));
}

/*
 * The command line of these programs: first, in any order, --bind core|none (cpu, as
 * lc_bench_bind_plan) and the program's mode flag (mode, e.g. "--stream": *on set), then
 * pingpong's options (lc_ex_parse; --window too when the mode is on) into *o.  0, or 2 after a
 * bad option (the usage line on stderr).
 */
static inline int lc_bench_options(int argc, char **argv, const char *prog, const char *mode, int cpu[2],
				   int *on, struct lc_ex_opts *o)
{
	int rc;

	for (;;) {
		if (argc > 2 && strcmp(argv[1], "--bind") == 0) {
			if (lc_bench_bind_plan(prog, argv[2], cpu) != 0)
				return 2;
			argv[2] = argv[0];
			argv += 2;
			argc -= 2;
		} else if (argc > 1 && strcmp(argv[1], mode) == 0) {
			*on = 1;
			argv[1] = argv[0];
			argv++;
			argc--;
		} else
			break;
	}
	rc = lc_ex_parse(argc, argv, prog, LC_EX_OPT_COUNTS | (*on ? LC_EX_OPT_WINDOW : 0), o);
	if (rc == 1)
		fprintf(stderr, "usage: %s [--bind core|none] [%s] [-s min:max] [-i iters] [-w warmup] "
			"[--window W (%s)]\n", prog, mode, mode);
	return rc != 0 ? 2 : 0;
}

/*
 * The end of a run: the child (me 1) exits with its verdict bad; the parent waits for it and
 * returns bad, or 1 when the child failed.
 */
static inline int lc_bench_join(int me, pid_t child, int bad)
{
	int st = 0;

	if (me == 1)
		_exit(bad);
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad = 1;
	return bad;
}

#endif /* LC_BENCH_PAIR_H */
