/* SPDX-License-Identifier: MIT */
/* commrun: the launcher of libcomm jobs (creates the segment, runs N node processes, cleans up). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "faults.h"
#include "geom.h"
#include "lc_config.h"
#include "nic.h"
#if LC_PROTO_MULTICAST
#include "multicast/static_groups.h"
#endif

/*
 * Life of a job:
 *   1. parse the arguments, compute the geometry of this build's config for
 *      N nodes, create the segment /lc.<pid>.<counter> (mode 0600);
 *   2. fork+exec N nodes with LC_JOB, LC_NODE, LC_NODES set, stdout and
 *      stderr on pipes; every whole line they write is copied to ours with
 *      the prefix "[i] " in one writev(2), so lines of different nodes never
 *      interleave;
 *   3. a poll loop reads the pipes and a self-pipe fed by the signal
 *      handlers (SIGCHLD, SIGINT, SIGTERM, SIGHUP);
 *   4. a node that dies by a signal or exits non-zero is marked dead in the
 *      segment, so its peers' pending operations fail within the
 *      backpressure limit; after a grace period (2 x that limit + 1 s) the
 *      nodes still running are SIGKILLed.  A node whose process stops
 *      (SIGSTOP, SIGTSTP) is marked stopped until it continues: frames to a
 *      stopped node are dropped at the backpressure limit, frames to a
 *      running one wait however slow it is;
 *   5. SIGINT/SIGTERM/SIGHUP to commrun are forwarded to the nodes (then the
 *      same grace period); --timeout SEC kills the job (exit 124);
 *   6. at the end the segment is removed, always; --stats prints every
 *      counter of every node first.  The exit status is the worst node's:
 *      its exit code, or 128+signal for a signal death.
 *   7. if commrun itself is SIGKILLed (no handler runs), the kernel kills
 *      its nodes (PR_SET_PDEATHSIG) and the next commrun of this user
 *      removes the segment left behind: /dev/shm/lc.<pid>.<n> whose <pid>
 *      no longer exists (lc_run_sweep_stale).
 */

#define LC_RUN_MAX_LINE (1u << 20)   /* a longer line is cut into pieces of this size */
#define LC_RUN_GRACE_EXTRA_NS 1000000000ull
#define LC_RUN_EXIT_TIMEOUT 124
#define LC_RUN_EXIT_USAGE 2
#define LC_RUN_EXIT_FAIL 1
#define LC_RUN_MAX_GROUPS 64            /* --group options of one run */

struct lc_run_stream {
	int fd;                 /* read end of the node's pipe, -1 once closed */
	int out;                /* where its lines go: 1 or 2 */
	char *buf;              /* the unfinished line */
	size_t len, cap;        /* bytes in buf, allocated (one more for a newline) */
	char pfx[16];           /* "[i] " */
	size_t plen;
};

struct lc_run_node {
	pid_t pid;              /* 0 once reaped */
	int status;             /* exit code or 128+signal, valid once reaped */
	int failed;             /* died by a signal or exited non-zero */
	int killed_by_us;       /* SIGKILLed by commrun after the grace period */
	struct lc_run_stream st[2];
};

static int lc_run_sigpipe[2] = { -1, -1 };

static void lc_run_on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	/* A full pipe only loses a duplicate wake-up: the loop re-checks everything. */
	if (write(lc_run_sigpipe[1], &b, 1) < 0) {
		/* nothing to do in a handler */
	}
	errno = saved;
}

static uint64_t lc_run_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void lc_run_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void lc_run_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof line, "commrun: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0) {
		/* stderr gone: nothing else to tell */
	}
}

/*
 * Create the static multicast group `spec` ("0,1,2", "0-3,6") in the job
 * segment; it must get id `want` (groups are made in command-line order).
 * 0 or -1 with a message.
 */
static int lc_run_group(const char *job, const struct lc_nic_geom *g, const char *spec, uint32_t want)
{
	uint32_t m[LC_MAX_NODES], n = 0, gid = 0;
	char err[256] = "";
	const char *p = spec;

	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				goto bad;
		}
		for (unsigned long i = lo; i <= hi; i++) {
			if (i >= g->nodes) {
				lc_run_msg("--group %s: node %lu out of range 0..%u", spec, i, g->nodes - 1);
				return -1;
			}
			if (n < LC_MAX_NODES)
				m[n++] = (uint32_t)i;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (g->groups == 0) {
		lc_run_msg("--group %s: config %s has no multicast protocol", spec, lc_config_name());
		return -1;
	}
	if (lc_seg_group_create(job, g, m, n, &gid, err, sizeof err) != 0 || gid != want) {
		lc_run_msg("--group %s: %s", spec, err[0] ? err : "not given the next group id");
		return -1;
	}
	return 0;
bad:
	lc_run_msg("--group %s: expected node numbers and ranges, e.g. 0,1,2 or 0-3,6", spec);
	return -1;
}

static void lc_run_usage(void)
{
	fprintf(stderr,
		"usage: commrun -n N [--stats] [--faults SPEC] [--group LIST]... [--timeout SEC] [--show-job] [--] PROG [ARGS...]\n"
		"  -n N           number of node processes (1..%d)\n"
		"  --faults SPEC  inject faults on every link, e.g. drop=0.05,corrupt=0.01,dup=0.01,\n"
		"                 reorder=0.02,delay_us=50,seed=7 (default: $LC_FAULTS, else none)\n"
		"  --group LIST   a static multicast group of nodes LIST (e.g. 0,1,2 or 0-3,6); repeat\n"
		"                 for more: group ids in order after the config's multicast.groups (configs with multicast only)\n"
		"  --stats        print every NIC and pipeline counter of every node at exit\n"
		"  --timeout SEC  kill the job after SEC seconds (exit status 124)\n"
		"  --show-job     print the job's segment name on stderr before starting\n"
		"Each node gets LC_JOB, LC_NODE and LC_NODES; its output lines are prefixed with \"[i] \".\n"
		"The exit status is the worst node's (128+signal for a signal death).\n",
		LC_MAX_NODES);
}

/* Write prefix and line to fd in one writev(2) (retrying short writes and EINTR). */
static void lc_run_write_line(int fd, const char *pfx, size_t plen, const char *line, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)pfx, .iov_len = plen },
		{ .iov_base = (void *)line, .iov_len = len },
	};
	int i = 0;
	while (i < 2) {
		ssize_t w = writev(fd, iov + i, 2 - i);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;         /* our stdout is gone: drop the output */
		}
		while (i < 2 && (size_t)w >= iov[i].iov_len) {
			w -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < 2) {
			iov[i].iov_base = (char *)iov[i].iov_base + w;
			iov[i].iov_len -= (size_t)w;
		}
	}
}

static int lc_run_stream_init(struct lc_run_stream *s, int fd, int out, int node)
{
	s->fd = fd;
	s->out = out;
	s->cap = 4096;
	s->len = 0;
	s->buf = malloc(s->cap + 1);    /* +1: room for a newline added at the end */
	if (!s->buf)
		return -1;
	s->plen = (size_t)snprintf(s->pfx, sizeof s->pfx, "[%d] ", node);
	return 0;
}

/* Emit every whole line in s->buf; with force, also the unfinished rest (newline added). */
static void lc_run_stream_flush(struct lc_run_stream *s, int force)
{
	size_t start = 0;
	char *nl;
	while (start < s->len && (nl = memchr(s->buf + start, '\n', s->len - start)) != NULL) {
		size_t end = (size_t)(nl - s->buf) + 1;
		lc_run_write_line(s->out, s->pfx, s->plen, s->buf + start, end - start);
		start = end;
	}
	if (force && start < s->len) {
		s->buf[s->len] = '\n';
		lc_run_write_line(s->out, s->pfx, s->plen, s->buf + start, s->len + 1 - start);
		start = s->len;
	}
	if (start > 0) {
		memmove(s->buf, s->buf + start, s->len - start);
		s->len -= start;
	}
}

/* Read what is there; returns 0 at EOF (fd closed), 1 otherwise. */
static int lc_run_stream_read(struct lc_run_stream *s)
{
	for (;;) {
		if (s->len == s->cap) {
			if (s->cap >= LC_RUN_MAX_LINE) {
				lc_run_stream_flush(s, 1);   /* a very long line: cut it */
			} else {
				size_t ncap = s->cap * 2;
				char *nb = realloc(s->buf, ncap + 1);
				if (!nb) {
					lc_run_stream_flush(s, 1);
				} else {
					s->buf = nb;
					s->cap = ncap;
				}
			}
		}
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (r > 0) {
			s->len += (size_t)r;
			lc_run_stream_flush(s, 0);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		/* EOF or a read error: emit the rest and close */
		lc_run_stream_flush(s, 1);
		close(s->fd);
		s->fd = -1;
		return 0;
	}
}

static int lc_run_status_of(int wst)
{
	if (WIFSIGNALED(wst))
		return 128 + WTERMSIG(wst);
	if (WIFEXITED(wst))
		return WEXITSTATUS(wst);
	return LC_RUN_EXIT_FAIL;
}

/* Parse a positive decimal number of seconds (fractions allowed) into ns; -1 when invalid. */
static int lc_run_parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v > 0.0) || v > 1e6)
		return -1;
	*ns = (uint64_t)(v * 1e9);
	return 0;
}

static int lc_run_parse_nodes(const char *s, uint32_t *n)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < 1 || v > LC_MAX_NODES)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

/* Per-link fault counters (faults.h) of every link that saw a fault. */
static void lc_run_print_faults(const char *job, uint32_t nodes)
{
	static uint64_t f[LC_MAX_NODES * LC_FAULT_COUNT];
	int header = 0;

	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t n = 0;

		if (lc_seg_read_faults(job, i, f, sizeof f / sizeof f[0], &n) != 0)
			continue;
		for (uint32_t d = 0; d < n; d++) {
			uint64_t any = 0;

			for (int k = 0; k < LC_FAULT_COUNT; k++)
				any |= f[d * LC_FAULT_COUNT + k];
			if (!any)
				continue;
			if (!header) {
				printf("# faults injected per link\n%-12s", "link");
				for (int k = 0; k < LC_FAULT_COUNT; k++)
					printf("  %10s", lc_fault_name(k));
				printf("\n");
				header = 1;
			}
			char l[32];
			snprintf(l, sizeof l, "%u->%u", i, d);
			printf("%-12s", l);
			for (int k = 0; k < LC_FAULT_COUNT; k++)
				printf("  %10llu", (unsigned long long)f[d * LC_FAULT_COUNT + k]);
			printf("\n");
		}
	}
}

static void lc_run_print_stats(const char *job, uint32_t nodes)
{
	enum { COLS = 8 };
	static uint64_t nic[LC_MAX_NODES][LC_NIC_STAT_COUNT];
	static uint64_t host[LC_MAX_NODES][LC_HOST_STATS_MAX];
	static int ok[LC_MAX_NODES];
	int width = 0;

	_Static_assert(LC_STAT_COUNT - LC_NIC_STAT_COUNT <= LC_HOST_STATS_MAX,
		       "pipeline counters must fit the host counter area");
	for (uint32_t i = 0; i < nodes; i++) {
		char err[256];
		int rc = lc_seg_read_stats(job, i, nic[i], host[i]);
		ok[i] = rc == 0;
		if (rc != 0) {
			snprintf(err, sizeof err, "%s", lc_strerror(rc));
			lc_run_msg("--stats: cannot read the counters of node %u: %s", i, err);
		}
	}
	for (int k = 0; k < LC_STAT_COUNT; k++) {
		const char *name = lc_stat_name(k);
		int w = name ? (int)strlen(name) : 0;
		if (w > width)
			width = w;
	}
	printf("# commrun --stats: job %s, %u node%s, config %s\n", job, nodes,
	       nodes == 1 ? "" : "s", lc_config_name());
	for (uint32_t c0 = 0; c0 < nodes; c0 += COLS) {
		uint32_t c1 = c0 + COLS < nodes ? c0 + COLS : nodes;
		printf("%-*s", width, "counter");
		for (uint32_t i = c0; i < c1; i++) {
			char h[16];
			snprintf(h, sizeof h, "node %u", i);
			printf("  %14s", h);
		}
		printf("\n");
		for (int k = 0; k < LC_STAT_COUNT; k++) {
			const char *name = lc_stat_name(k);
			/* pipeline counters first (host area, indexed by lc_stat), then the NIC's */
			int pipe = k < LC_STAT_COUNT - LC_NIC_STAT_COUNT;
			printf("%-*s", width, name ? name : "?");
			for (uint32_t i = c0; i < c1; i++) {
				if (!ok[i]) {
					printf("  %14s", "-");
					continue;
				}
				uint64_t v = pipe ? host[i][k] : nic[i][k - (LC_STAT_COUNT - LC_NIC_STAT_COUNT)];
				printf("  %14llu", (unsigned long long)v);
			}
			printf("\n");
		}
		if (c1 < nodes)
			printf("\n");
	}
	lc_run_print_faults(job, nodes);
	fflush(stdout);
}

/* Child side after fork: wire the pipes, set the environment, exec. Never returns. */
/*
 * Remove the segments of launchers that died without cleaning up (commrun
 * SIGKILLed): /dev/shm/lc.<pid>.<n>, a regular file of ours, whose <pid> is
 * no process any more.  A pid that exists (even one reused by an unrelated
 * process) keeps its segment; so do names of another shape (tests' own).
 */
static void lc_run_sweep_stale(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid = 0;
		unsigned cnt = 0;
		int end = 0;
		struct stat sb;
		char name[NAME_MAX + 2];

		if (sscanf(e->d_name, "lc.%ld.%u%n", &pid, &cnt, &end) != 2 || e->d_name[end] != '\0' ||
		    pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
		    sb.st_uid != geteuid())
			continue;
		snprintf(name, sizeof name, "/%s", e->d_name);
		if (shm_unlink(name) == 0)
			lc_run_msg("removed the segment %s left by launcher %ld, which is gone", name, pid);
	}
	closedir(d);
}

static void lc_run_exec_node(char **argv, const char *job, uint32_t node, uint32_t nodes,
			     int out_w, int err_w, pid_t launcher)
{
	char v[32];
	sigset_t none;
	int devnull;

	/* the node dies with its launcher: nobody else would read its output or end the job */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
		_exit(LC_RUN_EXIT_FAIL);
	devnull = open("/dev/null", O_RDONLY);

	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	dup2(out_w, 1);
	dup2(err_w, 2);
	if (out_w > 2)
		close(out_w);
	if (err_w > 2)
		close(err_w);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setenv("LC_JOB", job, 1);
	snprintf(v, sizeof v, "%u", node);
	setenv("LC_NODE", v, 1);
	snprintf(v, sizeof v, "%u", nodes);
	setenv("LC_NODES", v, 1);
	execvp(argv[0], argv);
	fprintf(stderr, "commrun: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	uint32_t nodes = 0;
	int want_stats = 0, show_job = 0, have_faults = 0;
	const char *groups[LC_RUN_MAX_GROUPS];
	uint32_t n_groups = 0;
	struct lc_fault_cfg faults;
	uint64_t timeout_ns = 0;
	int a = 1;

	/* ---- arguments ---- */
	while (a < argc && argv[a][0] == '-') {
		const char *o = argv[a];
		if (strcmp(o, "--") == 0) {
			a++;
			break;
		} else if (strcmp(o, "-n") == 0 || strcmp(o, "--nodes") == 0) {
			if (a + 1 >= argc) {
				lc_run_msg("%s needs a number of nodes", o);
				lc_run_usage();
				return LC_RUN_EXIT_USAGE;
			}
			if (lc_run_parse_nodes(argv[a + 1], &nodes) != 0) {
				lc_run_msg("bad node count '%s': expected an integer 1..%d",
					   argv[a + 1], LC_MAX_NODES);
				return LC_RUN_EXIT_USAGE;
			}
			a += 2;
		} else if (strncmp(o, "-n", 2) == 0 && o[2] >= '0' && o[2] <= '9') {
			if (lc_run_parse_nodes(o + 2, &nodes) != 0) {
				lc_run_msg("bad node count '%s': expected an integer 1..%d",
					   o + 2, LC_MAX_NODES);
				return LC_RUN_EXIT_USAGE;
			}
			a++;
		} else if (strcmp(o, "--stats") == 0) {
			want_stats = 1;
			a++;
		} else if (strcmp(o, "--faults") == 0) {
			char ferr[256] = "";

			if (a + 1 >= argc || lc_faults_parse(argv[a + 1], &faults, ferr, sizeof ferr) != 0) {
				lc_run_msg("--faults: %s", ferr[0] ? ferr : "needs a fault spec");
				return LC_RUN_EXIT_USAGE;
			}
			have_faults = 1;
			a += 2;
		} else if (strcmp(o, "--group") == 0) {
			if (a + 1 >= argc || n_groups >= LC_RUN_MAX_GROUPS) {
				lc_run_msg("--group needs a list of nodes (at most %d groups)",
					   LC_RUN_MAX_GROUPS);
				return LC_RUN_EXIT_USAGE;
			}
			groups[n_groups++] = argv[a + 1];
			a += 2;
		} else if (strcmp(o, "--show-job") == 0) {
			show_job = 1;
			a++;
		} else if (strcmp(o, "--timeout") == 0) {
			if (a + 1 >= argc || lc_run_parse_seconds(argv[a + 1], &timeout_ns) != 0) {
				lc_run_msg("--timeout needs a positive number of seconds");
				return LC_RUN_EXIT_USAGE;
			}
			a += 2;
		} else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
			lc_run_usage();
			return 0;
		} else {
			lc_run_msg("unknown option '%s'", o);
			lc_run_usage();
			return LC_RUN_EXIT_USAGE;
		}
	}
	if (nodes == 0) {
		lc_run_msg("missing -n N (the number of nodes)");
		lc_run_usage();
		return LC_RUN_EXIT_USAGE;
	}
	if (a >= argc) {
		lc_run_msg("missing the program to run");
		lc_run_usage();
		return LC_RUN_EXIT_USAGE;
	}
	char **prog = argv + a;

	/*
	 * ---- signals: a self-pipe wakes the poll loop ----
	 * Installed before the segment exists, so a SIGINT/SIGTERM from the
	 * moment the job is named on never leaves the segment behind.
	 */
	if (pipe2(lc_run_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		lc_run_msg("pipe: %s", strerror(errno));
		return LC_RUN_EXIT_FAIL;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = lc_run_on_signal;
	/* no SA_NOCLDSTOP: a node that stops or continues is marked in the segment (step 4) */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* ---- the segment ---- */
	lc_run_sweep_stale();
	struct lc_nic_geom geom;
	char job[64], err[512] = "";
	int rc = lc_geom_from_config(&geom, nodes);
	if (rc != 0) {
		lc_run_msg("no geometry for %u nodes: %s", nodes, lc_strerror(rc));
		return LC_RUN_EXIT_FAIL;
	}
	for (unsigned counter = 0;; counter++) {
		snprintf(job, sizeof job, "/lc.%ld.%u", (long)getpid(), counter);
		err[0] = '\0';
		rc = lc_seg_create(job, &geom, err, sizeof err);
		if (rc != LC_ERR_BUSY || counter >= 16)
			break;
	}
	if (rc != 0) {
		lc_run_msg("cannot create the job segment %s: %s%s%s", job, lc_strerror(rc),
			   err[0] ? ": " : "", err);
		return LC_RUN_EXIT_FAIL;
	}
	if (have_faults && (rc = lc_seg_set_faults(job, &faults)) != 0) {
		lc_run_msg("cannot store the fault spec in %s: %s", job, lc_strerror(rc));
		lc_seg_unlink(job);
		return LC_RUN_EXIT_FAIL;
	}
	uint32_t n_static = 0;
#if LC_PROTO_MULTICAST
	/* the config's static groups (multicast.groups) take ids 0.., --group ones follow */
	if ((rc = lc_group_static_install(job, &geom, err, sizeof err)) < 0) {
		lc_run_msg("%s", err);
		lc_seg_unlink(job);
		return LC_RUN_EXIT_FAIL;
	}
	n_static = (uint32_t)rc;
#endif
	for (uint32_t i = 0; i < n_groups; i++)
		if (lc_run_group(job, &geom, groups[i], n_static + i) != 0) {
			lc_seg_unlink(job);
			return LC_RUN_EXIT_FAIL;
		}
	if (show_job)
		lc_run_msg("job %s", job);

	/* ---- start the nodes ---- */
	struct lc_run_node *nd = calloc(nodes, sizeof *nd);
	struct pollfd *pfd = calloc(2 * (size_t)nodes + 1, sizeof *pfd);
	int *pfd_map = calloc(2 * (size_t)nodes + 1, sizeof *pfd_map);
	if (!nd || !pfd || !pfd_map) {
		lc_run_msg("out of memory");
		lc_seg_unlink(job);
		return LC_RUN_EXIT_FAIL;
	}
	uint32_t running = 0;
	int start_failed = 0;
	const pid_t launcher = getpid();
	fflush(NULL);
	for (uint32_t i = 0; i < nodes; i++) {
		int po[2], pe[2];
		if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
			lc_run_msg("pipe: %s", strerror(errno));
			start_failed = 1;
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			lc_run_msg("fork: %s", strerror(errno));
			close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
			start_failed = 1;
			break;
		}
		if (pid == 0) {
			/* O_CLOEXEC closes the other nodes' pipes at exec */
			lc_run_exec_node(prog, job, i, nodes, po[1], pe[1], launcher);
		}
		close(po[1]);
		close(pe[1]);
		fcntl(po[0], F_SETFL, O_NONBLOCK);
		fcntl(pe[0], F_SETFL, O_NONBLOCK);
		nd[i].pid = pid;
		if (lc_run_stream_init(&nd[i].st[0], po[0], 1, (int)i) != 0 ||
		    lc_run_stream_init(&nd[i].st[1], pe[0], 2, (int)i) != 0) {
			lc_run_msg("out of memory");
			start_failed = 1;
			running++;
			break;
		}
		running++;
	}

	/* ---- the loop ---- */
	const uint64_t grace_ns = 2 * geom.backpressure_timeout_ns + LC_RUN_GRACE_EXTRA_NS;
	const uint64_t t0 = lc_run_now_ns();
	uint64_t kill_at = 0;          /* SIGKILL the rest at this time (0: not armed) */
	int timed_out = 0, got_signal = 0, killed_all = 0;
	int open_streams = 0;
	for (uint32_t i = 0; i < nodes; i++)
		open_streams += (nd[i].st[0].buf != NULL) + (nd[i].st[1].buf != NULL);

	if (start_failed) {
		/* treat it like an interrupt: stop the nodes already started */
		for (uint32_t i = 0; i < nodes; i++)
			if (nd[i].pid > 0)
				kill(nd[i].pid, SIGTERM);
		kill_at = lc_run_now_ns() + grace_ns;
	}

	while (running > 0 || open_streams > 0) {
		/* the deadline that comes first */
		uint64_t now = lc_run_now_ns();
		int wait_ms = -1;
		uint64_t next = 0;
		if (timeout_ns && !timed_out)
			next = t0 + timeout_ns;
		if (kill_at && !killed_all && (next == 0 || kill_at < next))
			next = kill_at;
		if (running == 0) {
			/* all reaped: only drain what is buffered in the pipes, do not wait for
			 * descendants that may hold a pipe open */
			wait_ms = 0;
		} else if (next) {
			wait_ms = next <= now ? 0 : (int)((next - now + 999999) / 1000000);
		}

		int np = 0;
		pfd[np].fd = lc_run_sigpipe[0];
		pfd[np].events = POLLIN;
		pfd_map[np++] = -1;
		for (uint32_t i = 0; i < nodes; i++)
			for (int k = 0; k < 2; k++)
				if (nd[i].st[k].buf && nd[i].st[k].fd >= 0) {
					pfd[np].fd = nd[i].st[k].fd;
					pfd[np].events = POLLIN;
					pfd_map[np++] = (int)(2 * i + (uint32_t)k);
				}
		int pr = poll(pfd, (nfds_t)np, wait_ms);
		if (pr < 0 && errno != EINTR) {
			lc_run_msg("poll: %s", strerror(errno));
			break;
		}
		int any_data = 0;
		for (int p = 1; pr > 0 && p < np; p++) {
			if (!pfd[p].revents)
				continue;
			struct lc_run_stream *s = &nd[pfd_map[p] / 2].st[pfd_map[p] % 2];
			any_data = 1;
			if (lc_run_stream_read(s) == 0)
				open_streams--;
		}
		if (running == 0 && !any_data) {
			/* drained: close what descendants keep open */
			for (uint32_t i = 0; i < nodes; i++)
				for (int k = 0; k < 2; k++)
					if (nd[i].st[k].buf && nd[i].st[k].fd >= 0) {
						lc_run_stream_flush(&nd[i].st[k], 1);
						close(nd[i].st[k].fd);
						nd[i].st[k].fd = -1;
						open_streams--;
					}
			break;
		}

		/* signals */
		if (pr > 0 && (pfd[0].revents & POLLIN)) {
			unsigned char sb[64];
			ssize_t r;
			while ((r = read(lc_run_sigpipe[0], sb, sizeof sb)) > 0) {
				for (ssize_t j = 0; j < r; j++) {
					int sig = sb[j];
					if (sig == SIGCHLD)
						continue;
					if (!got_signal) {
						got_signal = sig;
						lc_run_msg("got signal %d (%s): forwarding it to the nodes",
							   sig, strsignal(sig));
					}
					for (uint32_t i = 0; i < nodes; i++)
						if (nd[i].pid > 0)
							kill(nd[i].pid, sig);
					if (!kill_at)
						kill_at = lc_run_now_ns() + grace_ns;
				}
			}
		}

		/* children */
		for (;;) {
			int wst;
			pid_t pid = waitpid(-1, &wst, WNOHANG | WUNTRACED | WCONTINUED);
			if (pid <= 0)
				break;
			for (uint32_t i = 0; i < nodes; i++) {
				if (nd[i].pid != pid)
					continue;
				if (WIFSTOPPED(wst) || WIFCONTINUED(wst)) {
					/* a stopped node's senders drop at the backpressure limit; a running one's wait */
					lc_seg_mark_stopped(job, i, WIFSTOPPED(wst));
					break;
				}
				nd[i].pid = 0;
				nd[i].status = lc_run_status_of(wst);
				nd[i].failed = nd[i].status != 0;
				running--;
				if (nd[i].failed) {
					/* its peers' pending operations must fail, not hang */
					lc_seg_mark_dead(job, i);
					if (!nd[i].killed_by_us && !timed_out) {
						if (WIFSIGNALED(wst))
							lc_run_msg("node %u died: signal %d (%s)", i,
								   WTERMSIG(wst), strsignal(WTERMSIG(wst)));
						else
							lc_run_msg("node %u exited with status %d", i,
								   nd[i].status);
					}
					if (!kill_at && running > 0)
						kill_at = lc_run_now_ns() + grace_ns;
				}
				break;
			}
		}

		/* deadlines */
		now = lc_run_now_ns();
		if (timeout_ns && !timed_out && now >= t0 + timeout_ns && running > 0) {
			timed_out = 1;
			lc_run_msg("timeout after %.3f s: killing the job",
				   (double)timeout_ns / 1e9);
			for (uint32_t i = 0; i < nodes; i++)
				if (nd[i].pid > 0) {
					nd[i].killed_by_us = 1;
					kill(nd[i].pid, SIGKILL);
				}
			killed_all = 1;
		}
		if (kill_at && !killed_all && now >= kill_at && running > 0) {
			killed_all = 1;
			for (uint32_t i = 0; i < nodes; i++)
				if (nd[i].pid > 0) {
					lc_run_msg("node %u still running %.1f s after the failure: killing it",
						   i, (double)grace_ns / 1e9);
					nd[i].killed_by_us = 1;
					kill(nd[i].pid, SIGKILL);
				}
		}
	}

	/* ---- the end ---- */
	if (want_stats)
		lc_run_print_stats(job, nodes);
	rc = lc_seg_unlink(job);
	if (rc != 0 && rc != LC_ERR_INVAL)
		lc_run_msg("cannot remove the job segment %s: %s", job, lc_strerror(rc));

	int worst = 0, worst_any = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		if (nd[i].status > worst_any)
			worst_any = nd[i].status;
		/* nodes we killed ourselves do not hide the status of the node that failed */
		if (!nd[i].killed_by_us && nd[i].status > worst)
			worst = nd[i].status;
	}
	if (worst == 0)
		worst = worst_any;
	if (start_failed && worst == 0)
		worst = LC_RUN_EXIT_FAIL;
	if (timed_out)
		worst = LC_RUN_EXIT_TIMEOUT;
	for (uint32_t i = 0; i < nodes; i++) {
		free(nd[i].st[0].buf);
		free(nd[i].st[1].buf);
	}
	free(nd);
	free(pfd);
	free(pfd_map);
	if (got_signal && !timed_out) {
		/* die of the same signal so the caller sees what happened */
		signal(got_signal, SIG_DFL);
		raise(got_signal);
		return 128 + got_signal;
	}
	return worst;
}
