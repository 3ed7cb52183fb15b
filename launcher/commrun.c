/* SPDX-License-Identifier: MIT */
/* commrun: the launcher of libcomm jobs (creates the segment, runs N node processes, cleans up). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "comm.h"
#include "nic.h"
#include "launcher.h"

/*
 * Life of a job:
 *   1. parse the arguments, compute the geometry of this build's config for
 *      N nodes, create the segment /lc.<pid>.<counter> (mode 0600);
 *   2. fork+exec N nodes -- one program on all, several programs given
 *      with ':' or a specification file (jobspec.c) -- with LC_JOB,
 *      LC_NODE, LC_NODES set, stdout and
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
 * main runs these steps in order, one function each: the options
 * (options.c), the signal handlers and the segment (spawn.c, segment.c:
 * step 1 and the sweep of 7), the nodes and the loop (spawn.c: 2 to 5),
 * the end (lc_run_finish: 6).
 */

/*
 * The end of a job: --stats, remove the segment (always), free.  Returns
 * the exit status: the worst node's, 124 after --timeout; after a signal
 * forwarded to the nodes commrun dies of that signal itself.
 */
static int lc_run_finish(struct lc_run_job *j, int stats)
{
	int rc, worst = 0, worst_any = 0;

	if (stats)
		lc_run_print_stats(j->name, j->nodes);
	rc = lc_seg_unlink(j->name);
	if (rc != 0 && rc != LC_ERR_INVAL)
		lc_run_msg("cannot remove the job segment %s: %s", j->name, lc_strerror(rc));

	for (uint32_t i = 0; i < j->nodes; i++) {
		if (j->nd[i].status > worst_any)
			worst_any = j->nd[i].status;
		/* nodes we killed ourselves do not hide the status of the node that failed */
		if (!j->nd[i].killed_by_us && j->nd[i].status > worst)
			worst = j->nd[i].status;
	}
	if (worst == 0)
		worst = worst_any;
	if (j->start_failed && worst == 0)
		worst = LC_RUN_EXIT_FAIL;
	if (j->timed_out)
		worst = LC_RUN_EXIT_TIMEOUT;
	for (uint32_t i = 0; i < j->nodes; i++) {
		free(j->nd[i].st[0].buf);
		free(j->nd[i].st[1].buf);
	}
	free(j->nd);
	free(j->pfd);
	free(j->pfd_map);
	if (j->got_signal && !j->timed_out) {
		/* die of the same signal so the caller sees what happened */
		signal(j->got_signal, SIG_DFL);
		raise(j->got_signal);
		return 128 + j->got_signal;
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct lc_run_opts opt;
	int rc = lc_run_parse_options(argc, argv, &opt);

	if (rc != LC_RUN_GO)
		return rc;              /* --help, or a usage error */
	if (opt.routes) {
		rc = lc_run_print_routes(&opt);
		lc_run_apps_free(&opt);
		return rc;
	}
	struct lc_run_job job = { .nodes = opt.nodes, .timeout_ns = opt.timeout_ns, .bind = opt.bind };

	/* the handlers first: a signal from the moment the segment exists must not leave it behind */
	if (lc_run_signals_install() != 0 || lc_run_segment_create(&job, &opt) != 0 ||
	    lc_run_spawn(&job, opt.node_argv) != 0) {
		lc_run_apps_free(&opt);
		return LC_RUN_EXIT_FAIL;        /* said why; no segment is left */
	}
	lc_run_wait(&job);
	rc = lc_run_finish(&job, opt.stats);
	lc_run_apps_free(&opt);
	return rc;
}
