/* SPDX-License-Identifier: MIT */
/* Test-driver helpers: run commrun on a node program, capture its output, check the segment is gone. */
#ifndef LC_RUN_H
#define LC_RUN_H

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_config.h"     /* LC_PROTO_* */
#include "lc_coop.h"       /* LC_PC_EXACTLY_ONCE */
#include "lc_skip.h"       /* LC_T_SKIPPED */
#include "geom.h"          /* lc_backpressure_ns: the limit the jobs run with */

/*
 * lc_t_smoke(): 1 when the suite runs as a smoke test, 0 when it runs in
 * full.  tools/run_tests.py sets LC_T_SMOKE=1 on the configs that do not
 * compose what the suite exercises (one row per suite in tests/smoke.py);
 * a suite run by hand runs in full.  A smoke run makes every case smaller
 * (fewer iterations, inputs or sizes: LC_T_N) and skips none; what a case
 * asserts is the same in both.
 */
static inline int lc_t_smoke(void)
{
	const char *s = getenv("LC_T_SMOKE");

	return s && s[0] == '1' && s[1] == '\0';
}

/* full in a full run, smoke in a smoke run (lc_t_smoke) */
#define LC_T_N(full, smoke) (lc_t_smoke() ? (smoke) : (full))

/*
 * The optimisation a build with a wrapper compiler (mpicc, csncc, viplcc, atlascc) asks
 * for: -O2, as a user's; a smoke run compiles at -O0 -- what the build checks (the
 * wrapper's flags, headers and libraries) is the same, and it takes half the time.
 */
#define LC_T_CC_OPT LC_T_N("-O2", "-O0")

/*
 * LC_T_SLOWDOWN: how many times more time a sanitized build gets (mode=debug:
 * ASan+UBSan at -O0; mode=tsan: ThreadSanitizer), 1 in release.  The suites'
 * .timeout and the limits these helpers give commrun (--timeout) and alarm(2)
 * are multiplied by it, so that a job that is merely slow under a sanitizer
 * is not taken for a hung one; what a test asserts is the same in every mode.
 * ThreadSanitizer gets 10: its runs vary most (the CSN stream example of
 * test_csn, alone on an idle machine, took 7 to 67 s over seven runs; with a
 * second TSan suite beside it in `scons test mode=tsan` it once passed 150 s).
 */
#if defined(__SANITIZE_THREAD__)
#define LC_T_SLOWDOWN 10
#elif defined(__SANITIZE_ADDRESS__)
#define LC_T_SLOWDOWN 3
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LC_T_SLOWDOWN 10
#elif __has_feature(address_sanitizer)
#define LC_T_SLOWDOWN 3
#endif
#endif
#ifndef LC_T_SLOWDOWN
#define LC_T_SLOWDOWN 1
#endif

/*
 * The build sets LC_BUILD_DIR (build/<cfg>, absolute); the launcher is
 * $LC_BUILD_DIR/bin/commrun and the node programs $LC_BUILD_DIR/tests/progs/.
 * lc_t_commrun() runs "commrun --show-job --timeout T -n N PROG ARGS...",
 * collects stdout and stderr in one text, and records the exit status
 * (128+signal when commrun itself died of one) and the job's segment name.
 * Every run checks that the segment is gone from /dev/shm afterwards.
 */
struct lc_t_out {
	int status;             /* exit status, or 128+signal */
	char *text;             /* stdout and stderr, NUL-terminated */
	size_t len;
	char job[96];           /* "/lc.<pid>.<n>" from --show-job, or "" */
};

static inline const char *lc_t_build_dir(void)
{
	const char *d = getenv("LC_BUILD_DIR");
	if (!d || !*d)
		cr_assert_fail("LC_BUILD_DIR is not set: run the suite through `scons test`, or set it "
			       "to build/<cfg> (absolute)");
	return d;
}

static inline void lc_t_path(char *out, size_t cap, const char *rel)
{
	int n = snprintf(out, cap, "%s/%s", lc_t_build_dir(), rel);
	cr_assert(n > 0 && (size_t)n < cap, "path too long");
	cr_assert(access(out, X_OK) == 0, "%s is not an executable: build it first (scons)", out);
}

/*
 * The texts of the outputs a test holds.  The test gives each back with
 * lc_t_out_free(); a failed assertion leaves the test's body before that, so
 * whatever is still held is freed when the test's process exits, and
 * LeakSanitizer (mode=debug) reports only what the programs under test leak.
 */
#define LC_T_HELD_MAX 8

static char *lc_t_held[LC_T_HELD_MAX];

static inline void lc_t_free_held(void)
{
	for (int i = 0; i < LC_T_HELD_MAX; i++) {
		free(lc_t_held[i]);
		lc_t_held[i] = NULL;
	}
}

/* The slot that holds text (NULL: a free slot). */
static inline char **lc_t_held_slot(const char *text)
{
	static int registered;
	int i;

	if (!registered)
		registered = atexit(lc_t_free_held) == 0;
	for (i = 0; i < LC_T_HELD_MAX && lc_t_held[i] != text; i++)
		;
	cr_assert(i < LC_T_HELD_MAX, "more than %d command outputs held at once", LC_T_HELD_MAX);
	return &lc_t_held[i];
}

/* Give back the text of o (every lc_t_exec* output, once its checks are done). */
static inline void lc_t_out_free(struct lc_t_out *o)
{
	*lc_t_held_slot(o->text) = NULL;
	free(o->text);
	o->text = NULL;
}

/*
 * Column col (node col) of counter name in the table of
 * commrun --stats in o's text; fails the test when there is no such row.
 */
static inline unsigned long long lc_t_stat(const struct lc_t_out *o, const char *name, int col)
{
	size_t n = strlen(name);

	for (const char *p = o->text; (p = strstr(p, name)); p += n) {
		const char *q = p + n;
		char *end;
		unsigned long long v = 0;
		int c;

		if ((p != o->text && p[-1] != '\n') || *q != ' ')
			continue;
		/* the columns are the nodes: skip to column col */
		for (c = 0; c <= col; c++, q = end) {
			v = strtoull(q, &end, 10);
			if (end == q)
				break;
		}
		if (c > col && col >= 0)
			return v;
	}
	cr_assert_fail("no counter %s (column %d) in the --stats table:\n%s", name, col, o->text);
	return 0;
}

/*
 * Run argv (NULL-terminated) with extra environment entries env
 * (NULL-terminated, may be NULL).  alarm_s > 0 arms alarm(2) in the child
 * (it survives exec), so a program that hangs dies of SIGALRM and the driver
 * still reaches its clean-up instead of being killed by the test timeout.
 */
static inline void lc_t_exec_alarm(struct lc_t_out *o, char *const argv[], char *const env[],
				   unsigned alarm_s)
{
	int p[2];
	memset(o, 0, sizeof *o);
	cr_assert(pipe(p) == 0, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		if (alarm_s)
			alarm(alarm_s * LC_T_SLOWDOWN);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	size_t cap = 1 << 16;
	char **held = lc_t_held_slot(NULL);
	*held = o->text = malloc(cap);
	cr_assert(o->text != NULL);
	for (;;) {
		if (o->len + 1 >= cap) {
			cap *= 2;
			*held = o->text = realloc(o->text, cap);
			cr_assert(o->text != NULL);
		}
		ssize_t r = read(p[0], o->text + o->len, cap - o->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		o->len += (size_t)r;
	}
	o->text[o->len] = '\0';
	close(p[0]);
	int wst;
	while (waitpid(pid, &wst, 0) < 0)
		cr_assert(errno == EINTR, "waitpid: %s", strerror(errno));
	o->status = WIFSIGNALED(wst) ? 128 + WTERMSIG(wst) : WEXITSTATUS(wst);
	const char *j = strstr(o->text, "commrun: job /lc.");
	if (j)
		sscanf(j + strlen("commrun: job "), "%95s", o->job);
}

static inline void lc_t_exec(struct lc_t_out *o, char *const argv[], char *const env[])
{
	lc_t_exec_alarm(o, argv, env, 0);
}

/* 1 when /dev/shm still holds the job's segment. */
static inline int lc_t_seg_exists(const char *job)
{
	char path[160];
	struct stat sb;
	snprintf(path, sizeof path, "/dev/shm%s", job);
	return stat(path, &sb) == 0;
}

/*
 * Run a commrun command line argv that has --show-job and --timeout
 * timeout_s: the job must end by itself (not at the timeout) and leave no
 * segment.
 */
static inline void lc_t_exec_job(struct lc_t_out *o, char *const argv[], int timeout_s)
{
	lc_t_exec(o, argv, NULL);
	cr_assert(o->job[0] == '/', "commrun did not name its job; output:\n%s", o->text);
	cr_assert(!lc_t_seg_exists(o->job), "segment /dev/shm%s left behind after the job", o->job);
	cr_assert(o->status != 124, "the job hung: commrun --timeout %d killed it; output:\n%s",
		  timeout_s, o->text);
}

/*
 * commrun --show-job --timeout T OPTS... -n N PROG ARGS... (opts: NULL or a
 * NULL-terminated list of commrun options, e.g. --faults SPEC); prog relative
 * to tests/progs/ unless absolute.  The job must end by itself (not at the
 * timeout) and leave no segment.
 */
static inline void lc_t_vcommrun(struct lc_t_out *o, const char *const *opts, int nodes,
				 int timeout_s, const char *prog, va_list ap)
{
	char crun[512], pp[512], n[16], t[16];
	char *argv[32];
	int a = 0;
	lc_t_path(crun, sizeof crun, "bin/commrun");
	if (prog[0] == '/')
		snprintf(pp, sizeof pp, "%s", prog);
	else {
		char rel[256];
		snprintf(rel, sizeof rel, "tests/progs/%s", prog);
		lc_t_path(pp, sizeof pp, rel);
	}
	snprintf(n, sizeof n, "%d", nodes);
	snprintf(t, sizeof t, "%d", timeout_s * LC_T_SLOWDOWN);
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--timeout";
	argv[a++] = t;
	for (; opts && *opts && a < 24; opts++)
		argv[a++] = (char *)*opts;
	argv[a++] = "-n";
	argv[a++] = n;
	argv[a++] = pp;
	for (char *s; (s = va_arg(ap, char *)) != NULL && a < 31;)
		argv[a++] = s;
	argv[a] = NULL;
	lc_t_exec_job(o, argv, timeout_s * LC_T_SLOWDOWN);
}

/*
 * Node col's host saw the RDMA frames its NIC refused (staged marked, after
 * the protocols: rx_refused) -- each once where frames are not sent again;
 * with exactly_once a copy sent again before the ack is refused again and
 * dropped as a duplicate by the protocol, so at least one and at most all.
 */
static inline void lc_t_expect_refusals_seen(const struct lc_t_out *o, int col)
{
	unsigned long long denied = lc_t_stat(o, "rdma_denied", col), seen = lc_t_stat(o, "rx_refused", col);

	cr_assert_gt(denied, 0, "node %d's NIC refused no frame", col);
	if (LC_PC_EXACTLY_ONCE)
		cr_assert(seen >= 1 && seen <= denied, "node %d's host saw %llu of %llu refused frames",
			  col, seen, denied);
	else
		cr_assert_eq(seen, denied, "node %d's host saw %llu of %llu refused frames", col, seen,
			     denied);
}

/* commrun --show-job --timeout T -n N PROG ARGS... (lc_t_vcommrun) */
static inline void lc_t_commrun(struct lc_t_out *o, int nodes, int timeout_s, const char *prog, ...)
{
	va_list ap;
	va_start(ap, prog);
	lc_t_vcommrun(o, NULL, nodes, timeout_s, prog, ap);
	va_end(ap);
}

/* The same with commrun options before -n (lc_t_vcommrun). */
static inline void lc_t_commrun_with(struct lc_t_out *o, const char *const *opts, int nodes,
				     int timeout_s, const char *prog, ...)
{
	va_list ap;
	va_start(ap, prog);
	lc_t_vcommrun(o, opts, nodes, timeout_s, prog, ap);
	va_end(ap);
}

/* Occurrences of needle in the output. */
static inline int lc_t_count(const struct lc_t_out *o, const char *needle)
{
	int c = 0;
	for (const char *p = o->text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		c++;
	return c;
}

/* Assert a clean run: status 0 and `want` lines containing `ok`. */
static inline void lc_t_expect_ok(const struct lc_t_out *o, const char *ok, int want)
{
	cr_assert_eq(o->status, 0, "exit status %d; output:\n%s", o->status, o->text);
	cr_assert_eq(lc_t_count(o, ok), want, "expected %d \"%s\" lines; output:\n%s", want, ok,
		     o->text);
	cr_assert_eq(lc_t_count(o, "FAIL"), 0, "output:\n%s", o->text);
}

/*
 * A benchmark's table in o (consumed: its text is cut into lines): '#' header
 * lines, then exactly nrows "size value" rows of node 0, sizes doubling from
 * first, every value positive.
 */
static inline void lc_t_expect_rows(struct lc_t_out *o, size_t first, int nrows)
{
	size_t want = first;
	int rows = 0;

	cr_assert_eq(o->status, 0, "output:\n%s", o->text);
	for (char *l = strtok(o->text, "\n"); l; l = strtok(NULL, "\n")) {
		if (strncmp(l, "[0] ", 4) == 0)
			l += 4;
		if (l[0] == '#' || strncmp(l, "commrun", 7) == 0 || l[0] == '[')
			continue;
		size_t size;
		double v;
		cr_assert_eq(sscanf(l, "%zu %lf", &size, &v), 2, "row \"%s\"", l);
		cr_assert_eq(size, want, "row \"%s\": size %zu expected", l, want);
		cr_assert(v > 0, "row \"%s\"", l);
		want *= 2;
		rows++;
	}
	cr_assert_eq(rows, nrows, "%d rows from %zu bytes, %d expected", rows, first, nrows);
}

#endif /* LC_RUN_H */
