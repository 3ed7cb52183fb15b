/* SPDX-License-Identifier: MIT */
/* commrun: start the nodes, then forward their output and our signals until all are reaped. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comm.h"
#include "nic.h"
#include "launcher.h"

/* Written by the signal handler, read by the wait loop's poll(2). */
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

/*
 * A self-pipe wakes the poll loop.  Installed before the segment exists,
 * so a SIGINT/SIGTERM from the moment the job is named on never leaves the
 * segment behind.
 */
int lc_run_signals_install(void)
{
	struct sigaction sa;

	if (pipe2(lc_run_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		lc_run_msg("pipe: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = lc_run_on_signal;
	/* no SA_NOCLDSTOP: a node that stops or continues is marked in the segment (lc_run_reap) */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int lc_run_status_of(int wst)
{
	if (WIFSIGNALED(wst))
		return 128 + WTERMSIG(wst);
	if (WIFEXITED(wst))
		return WEXITSTATUS(wst);
	return LC_RUN_EXIT_FAIL;
}

/* Child side after fork: wire the pipes, set the environment, exec. Never returns. */
static void lc_run_exec_node(char **argv, const char *job, uint32_t node, uint32_t nodes,
			     int out_w, int err_w, pid_t launcher, int cpu)
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
	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			fprintf(stderr, "commrun: node %u: cannot bind to core %d: %s\n", node, cpu,
				strerror(errno));
		snprintf(v, sizeof v, "%d", cpu);
		setenv("LC_CORE", v, 1);
	} else {
		unsetenv("LC_CORE");
	}
	setenv("LC_JOB", job, 1);
	snprintf(v, sizeof v, "%u", node);
	setenv("LC_NODE", v, 1);
	snprintf(v, sizeof v, "%u", nodes);
	setenv("LC_NODES", v, 1);
	execvp(argv[0], argv);
	fprintf(stderr, "commrun: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * The core of each node for --bind core (cpu[i] for node i, from the cores
 * commrun may run on), or none (cpu[i] = -1): more nodes than cores, or bind
 * none.  Says so on stderr when it cannot bind.  cpu has `nodes` entries.
 */
static void lc_run_bind_plan(enum lc_run_bind bind, uint32_t nodes, int *cpu)
{
	cpu_set_t allowed;
	uint32_t n = 0;

	for (uint32_t i = 0; i < nodes; i++)
		cpu[i] = -1;
	if (bind != LC_RUN_BIND_CORE)
		return;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
		lc_run_msg("--bind core: cannot read the cores this process may run on (%s): "
			   "nodes not bound", strerror(errno));
		return;
	}
	if ((uint32_t)CPU_COUNT(&allowed) < nodes) {
		lc_run_msg("--bind core: %u nodes on %d cores: nodes not bound (oversubscribed)",
			   nodes, CPU_COUNT(&allowed));
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && n < nodes; c++)
		if (CPU_ISSET(c, &allowed))
			cpu[n++] = c;
}

/*
 * Fork and exec the nodes, each with its stdout and stderr on pipes of
 * ours.  A pipe or fork that fails stops the job like an interrupt: the
 * nodes already started get SIGTERM, then SIGKILL after the grace period.
 */
int lc_run_spawn(struct lc_run_job *j, char ***node_argv)
{
	const uint32_t nodes = j->nodes;
	const pid_t launcher = getpid();
	int *cpu = calloc(nodes, sizeof *cpu);

	j->nd = calloc(nodes, sizeof *j->nd);
	j->pfd = calloc(2 * (size_t)nodes + 1, sizeof *j->pfd);
	j->pfd_map = calloc(2 * (size_t)nodes + 1, sizeof *j->pfd_map);
	if (!j->nd || !j->pfd || !j->pfd_map || !cpu) {
		lc_run_msg("out of memory");
		lc_seg_unlink(j->name);
		free(cpu);
		free(j->nd);
		free(j->pfd);
		free(j->pfd_map);
		return -1;
	}
	j->running = 0;
	j->start_failed = 0;
	lc_run_bind_plan(j->bind, nodes, cpu);
	fflush(NULL);
	for (uint32_t i = 0; i < nodes; i++) {
		int po[2], pe[2];
		if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
			lc_run_msg("pipe: %s", strerror(errno));
			j->start_failed = 1;
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			lc_run_msg("fork: %s", strerror(errno));
			close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
			j->start_failed = 1;
			break;
		}
		if (pid == 0) {
			/* O_CLOEXEC closes the other nodes' pipes at exec */
			lc_run_exec_node(node_argv[i], j->name, i, nodes, po[1], pe[1], launcher,
					 cpu[i]);
		}
		close(po[1]);
		close(pe[1]);
		fcntl(po[0], F_SETFL, O_NONBLOCK);
		fcntl(pe[0], F_SETFL, O_NONBLOCK);
		j->nd[i].pid = pid;
		if (lc_run_stream_init(&j->nd[i].st[0], po[0], 1, (int)i) != 0 ||
		    lc_run_stream_init(&j->nd[i].st[1], pe[0], 2, (int)i) != 0) {
			lc_run_msg("out of memory");
			j->start_failed = 1;
			j->running++;
			break;
		}
		j->running++;
	}

	free(cpu);
	j->grace_ns = 2 * j->geom.backpressure_timeout_ns + LC_RUN_GRACE_EXTRA_NS;
	j->t0 = lc_run_now_ns();
	j->kill_at = 0;
	j->timed_out = j->got_signal = j->killed_all = 0;
	j->open_streams = 0;
	for (uint32_t i = 0; i < nodes; i++)
		j->open_streams += (j->nd[i].st[0].buf != NULL) + (j->nd[i].st[1].buf != NULL);
	if (j->start_failed) {
		/* treat it like an interrupt: stop the nodes already started */
		for (uint32_t i = 0; i < nodes; i++)
			if (j->nd[i].pid > 0)
				kill(j->nd[i].pid, SIGTERM);
		j->kill_at = lc_run_now_ns() + j->grace_ns;
	}
	return 0;
}

/* How long poll(2) may sleep (ms): until the first deadline; not at all once all are reaped. */
static int lc_run_wait_ms(const struct lc_run_job *j)
{
	uint64_t now = lc_run_now_ns(), next = 0;

	if (j->timeout_ns && !j->timed_out)
		next = j->t0 + j->timeout_ns;
	if (j->kill_at && !j->killed_all && (next == 0 || j->kill_at < next))
		next = j->kill_at;
	if (j->running == 0) {
		/* all reaped: only drain what is buffered in the pipes, do not wait for
		 * descendants that may hold a pipe open */
		return 0;
	}
	if (next)
		return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
	return -1;
}

/* Fill j->pfd: the signal pipe first, then every open stream.  Returns the count. */
static int lc_run_poll_set(struct lc_run_job *j)
{
	int np = 0;

	j->pfd[np].fd = lc_run_sigpipe[0];
	j->pfd[np].events = POLLIN;
	j->pfd_map[np++] = -1;
	for (uint32_t i = 0; i < j->nodes; i++)
		for (int k = 0; k < 2; k++)
			if (j->nd[i].st[k].buf && j->nd[i].st[k].fd >= 0) {
				j->pfd[np].fd = j->nd[i].st[k].fd;
				j->pfd[np].events = POLLIN;
				j->pfd_map[np++] = (int)(2 * i + (uint32_t)k);
			}
	return np;
}

/* Copy what the ready streams hold, prefixed; returns 1 when any stream was ready. */
static int lc_run_forward_output(struct lc_run_job *j, int np)
{
	int any_data = 0;

	for (int p = 1; p < np; p++) {
		if (!j->pfd[p].revents)
			continue;
		struct lc_run_stream *s = &j->nd[j->pfd_map[p] / 2].st[j->pfd_map[p] % 2];
		any_data = 1;
		if (lc_run_stream_read(s) == 0)
			j->open_streams--;
	}
	return any_data;
}

/* Every node reaped and its pipes drained: close what descendants keep open. */
static void lc_run_close_streams(struct lc_run_job *j)
{
	for (uint32_t i = 0; i < j->nodes; i++)
		for (int k = 0; k < 2; k++)
			if (j->nd[i].st[k].buf && j->nd[i].st[k].fd >= 0) {
				lc_run_stream_flush(&j->nd[i].st[k], 1);
				close(j->nd[i].st[k].fd);
				j->nd[i].st[k].fd = -1;
				j->open_streams--;
			}
}

/* SIGINT, SIGTERM, SIGHUP to us go to every node still running, then the grace period runs. */
static void lc_run_forward_signals(struct lc_run_job *j)
{
	unsigned char sb[64];
	ssize_t r;

	while ((r = read(lc_run_sigpipe[0], sb, sizeof sb)) > 0) {
		for (ssize_t b = 0; b < r; b++) {
			int sig = sb[b];
			if (sig == SIGCHLD)
				continue;
			if (!j->got_signal) {
				j->got_signal = sig;
				lc_run_msg("got signal %d (%s): forwarding it to the nodes",
					   sig, strsignal(sig));
			}
			for (uint32_t i = 0; i < j->nodes; i++)
				if (j->nd[i].pid > 0)
					kill(j->nd[i].pid, sig);
			if (!j->kill_at)
				j->kill_at = lc_run_now_ns() + j->grace_ns;
		}
	}
}

/*
 * Reap the nodes that ended; mark the ones that stopped or continued in
 * the segment.  A node that failed is marked dead and arms the grace period.
 */
static void lc_run_reap(struct lc_run_job *j)
{
	for (;;) {
		int wst;
		pid_t pid = waitpid(-1, &wst, WNOHANG | WUNTRACED | WCONTINUED);
		if (pid <= 0)
			break;
		for (uint32_t i = 0; i < j->nodes; i++) {
			struct lc_run_node *n = &j->nd[i];

			if (n->pid != pid)
				continue;
			if (WIFSTOPPED(wst) || WIFCONTINUED(wst)) {
				/* a stopped node's senders drop at the backpressure limit; a running one's wait */
				lc_seg_mark_stopped(j->name, i, WIFSTOPPED(wst));
				break;
			}
			n->pid = 0;
			n->status = lc_run_status_of(wst);
			n->failed = n->status != 0;
			j->running--;
			if (!n->failed && lc_seg_mark_gone(j->name, i) && !n->killed_by_us)
				/* exited with its node open: it serves nobody; its peers must not wait */
				lc_run_msg("node %u exited (status 0) without lc_close: its peers see it dead", i);
			if (n->failed) {
				/* its peers' pending operations must fail, not hang */
				lc_seg_mark_dead(j->name, i);
				if (!n->killed_by_us && !j->timed_out) {
					if (WIFSIGNALED(wst))
						lc_run_msg("node %u died: signal %d (%s)", i,
							   WTERMSIG(wst), strsignal(WTERMSIG(wst)));
					else
						lc_run_msg("node %u exited with status %d", i, n->status);
				}
				if (!j->kill_at && j->running > 0)
					j->kill_at = lc_run_now_ns() + j->grace_ns;
			}
			break;
		}
	}
}

/* --timeout: SIGKILL the job.  The grace period after a failure: SIGKILL what still runs. */
static void lc_run_deadlines(struct lc_run_job *j)
{
	uint64_t now = lc_run_now_ns();

	if (j->timeout_ns && !j->timed_out && now >= j->t0 + j->timeout_ns && j->running > 0) {
		j->timed_out = 1;
		lc_run_msg("timeout after %.3f s: killing the job", (double)j->timeout_ns / 1e9);
		for (uint32_t i = 0; i < j->nodes; i++)
			if (j->nd[i].pid > 0) {
				j->nd[i].killed_by_us = 1;
				kill(j->nd[i].pid, SIGKILL);
			}
		j->killed_all = 1;
	}
	if (j->kill_at && !j->killed_all && now >= j->kill_at && j->running > 0) {
		j->killed_all = 1;
		for (uint32_t i = 0; i < j->nodes; i++)
			if (j->nd[i].pid > 0) {
				lc_run_msg("node %u still running %.1f s after the failure: killing it",
					   i, (double)j->grace_ns / 1e9);
				j->nd[i].killed_by_us = 1;
				kill(j->nd[i].pid, SIGKILL);
			}
	}
}

/*
 * The loop: poll the nodes' pipes and the signal pipe until every node is
 * reaped and its output drained (or poll fails).
 */
void lc_run_wait(struct lc_run_job *j)
{
	while (j->running > 0 || j->open_streams > 0) {
		int wait_ms = lc_run_wait_ms(j);
		int np = lc_run_poll_set(j);
		int pr = poll(j->pfd, (nfds_t)np, wait_ms);
		if (pr < 0 && errno != EINTR) {
			lc_run_msg("poll: %s", strerror(errno));
			break;
		}
		int any_data = pr > 0 && lc_run_forward_output(j, np);
		if (j->running == 0 && !any_data) {
			lc_run_close_streams(j);
			break;
		}
		if (pr > 0 && (j->pfd[0].revents & POLLIN))
			lc_run_forward_signals(j);
		lc_run_reap(j);
		lc_run_deadlines(j);
	}
}
