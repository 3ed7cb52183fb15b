/* SPDX-License-Identifier: MIT */
/* Fuzz target: the personalities' calls (MPI, CSN, ATLAS, EPOS) with fuzzed arguments, in a one-node job. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "geom.h"
#include "lc_composite_launcher.h"
#include "nic.h"
#include "fuzz_personality.h"

/*
 * Fed: byte 0 picks the personality (mod 4: MPI, CSN, ATLAS, EPOS), the rest
 * is that personality's script (mpi_ops.c, csn_ops.c, atlas_ops.c,
 * epos_ops.c): a sequence of calls, each an opcode byte and its arguments
 * drawn from tables of valid and invalid values (counts, datatypes, tags,
 * ranks, communicators, NULL buffers, flags, timeouts, handles, names...).
 *
 * Each input is one job of one node, as `commrun -n 1` runs it: the harness
 * makes the job segment (/lc_fz_pers.<pid>.<n>, lc_seg_create with this
 * config's geometry and lc_pc_job_init, as the launcher does), and a child
 * process of its own with LC_JOB, LC_NODE=0, LC_NODES=1 runs the session:
 * MPI_Init .. MPI_Finalize (once per process by the standard), the CSN
 * transports, the ATLAS factory, the EPOS end-points -- one node per
 * process, opened and closed by the personality.  A child per input keeps
 * every session fresh; its coverage (libFuzzer's inline counters) is copied
 * back to the harness through shared memory, so the fuzzer sees it.
 *
 * Oracle: every call returns success or the error the standard (and the
 * personality's documented order of checks) gives for its arguments, never
 * crashes or trips a sanitizer; self-sends deliver exactly the bytes sent
 * (the receive buffer beyond them and guard bytes after it untouched), with
 * the status, count and truncation error they should have; blocking calls
 * are made only where a correct program's would return (the scripts model
 * what has matched), so the session ending within LC_FZ_SESSION_S seconds
 * is checked too; the session closes its node, frees its memory (the leak
 * check at its end) and leaves no segment -- a child that crashed or hung
 * has its segment removed by the harness, and one whose harness died
 * removes it itself (SIGTERM as its parent-death signal).
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Sanitizer and libFuzzer symbols, present in the fuzz build only. */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
extern uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak));

#define LC_FZ_SESSION_S 8

static struct {
	pid_t pid;              /* the process that runs the sessions (and removes what they leave) */
	unsigned jobs;          /* segments made */
	uint8_t *cov;           /* shared: the child's counters at its end */
	size_t cov_len;
	char job[64];           /* the session's segment, "" when none is left */
} fz;

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_personality: FINDING: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fflush(stderr);
	abort();
}

void fz_fill(uint8_t *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = fz_pattern(seed, i);
}

size_t fz_check(const uint8_t *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != fz_pattern(seed, i))
			return i;
	return n;
}

static void lc_fz_cleanup(void)
{
	if (getpid() == fz.pid && fz.job[0]) {
		lc_seg_unlink(fz.job);
		fz.job[0] = '\0';
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz.pid = getpid();
	atexit(lc_fz_cleanup);
	unsetenv("LC_FAULTS");          /* the job's segment gets no faults but the input's */
	uintptr_t start = (uintptr_t)__start___sancov_cntrs, stop = (uintptr_t)__stop___sancov_cntrs;
	if (start && stop > start) {
		fz.cov_len = stop - start;
		fz.cov = mmap(NULL, fz.cov_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
		if (fz.cov == MAP_FAILED) {
			perror("fuzz_personality: mmap");
			exit(1);
		}
		/*
		 * libFuzzer (it reads its flags after this call, the last one wins):
		 * no RSS thread.  A session forks this process, and a fork copies the
		 * locks other threads hold; the child's leak check then waited on
		 * one forever.  A session's memory is its own child's.
		 */
		static char *args[256];
		static char rss[] = "-rss_limit_mb=0";
		if (*argc < 255) {
			memcpy(args, *argv, (size_t)*argc * sizeof *args);
			args[(*argc)++] = rss;
			args[*argc] = NULL;
			*argv = args;
		}
	}
	return 0;
}

/* The harness died (replay.c's alarm, a kill) while this session ran: no segment is left. */
static void lc_fz_orphan(int sig)
{
	(void)sig;
	shm_unlink(fz.job);
	_exit(4);
}

/* The session's process: the job as commrun -n 1 runs its node, then the script. */
static void lc_fz_child(int which, struct fz_in *in)
{
	struct lc_nic_geom g;
	char err[512] = "", v[16];
	int rc;

	signal(SIGTERM, lc_fz_orphan);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != fz.pid)
		_exit(3);
	if ((rc = lc_geom_from_config(&g, 1)) != 0 || (rc = lc_seg_create(fz.job, &g, err, sizeof err)))
		fz_fail("cannot create the job segment %s: %s %s", fz.job, lc_strerror(rc), err);
	if ((rc = lc_pc_job_init(fz.job, &g, err, sizeof err)) < 0)
		fz_fail("job_init: %s", err);
	setenv("LC_JOB", fz.job, 1);
	setenv("LC_NODE", "0", 1);
	snprintf(v, sizeof v, "%u", 1u);
	setenv("LC_NODES", v, 1);
	switch (which) {
	case 0:
		fz_mpi(in);
		break;
	case 1:
		fz_csn(in);
		break;
	case 2:
		fz_atlas(in);
		break;
	default:
		fz_epos(in);
		break;
	}
	if ((rc = lc_seg_unlink(fz.job)) != 0)
		fz_fail("removing the job segment: %s", lc_strerror(rc));
	if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check())
		fz_fail("the session leaked memory (LeakSanitizer's report above)");
	if (fz.cov)
		memcpy(fz.cov, __start___sancov_cntrs, fz.cov_len);
	fflush(NULL);
	_exit(0);       /* not exit: the harness's atexit handlers are not the session's */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data + 1, size ? size - 1 : 0, 0 };
	struct timespec t0, now, nap = { 0, 50000 };
	int st = 0, which = size ? data[0] % 4 : 0;
	pid_t pid, w;

	fz.pid = getpid();      /* the session's parent (replay.c runs each input in a child) */
	snprintf(fz.job, sizeof fz.job, "/lc_fz_pers.%d.%u", (int)fz.pid, fz.jobs++);
	if (fz.cov)
		memset(fz.cov, 0, fz.cov_len);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fz_fail("fork: %s", strerror(errno));
	if (pid == 0)
		lc_fz_child(which, &in);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > LC_FZ_SESSION_S) {
			/* SIGABRT first: the session's handler prints where it hangs */
			kill(pid, SIGABRT);
			sleep(2);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			lc_fz_cleanup();
			fz_fail("the session hung (more than %d s); its segment is removed",
				LC_FZ_SESSION_S);
		}
		nanosleep(&nap, NULL);
	}
	if (w < 0)
		fz_fail("waitpid: %s", strerror(errno));
	if (fz.cov)             /* the session's coverage, as if it had run here */
		for (size_t i = 0; i < fz.cov_len; i++)
			if (fz.cov[i] > __start___sancov_cntrs[i])
				__start___sancov_cntrs[i] = fz.cov[i];
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		lc_fz_cleanup();
		if (WIFSIGNALED(st))
			fz_fail("the session died of %s; its segment is removed", strsignal(WTERMSIG(st)));
		fz_fail("the session exited with status %d; its segment is removed", WEXITSTATUS(st));
	}
	/* a session that ended well removed its segment itself */
	int fd = shm_open(fz.job, O_RDONLY, 0);
	if (fd >= 0) {
		close(fd);
		lc_fz_cleanup();
		fz_fail("the session left its segment %s", fz.job);
	}
	fz.job[0] = '\0';
	return 0;
}
