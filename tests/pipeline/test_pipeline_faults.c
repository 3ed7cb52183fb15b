/* SPDX-License-Identifier: MIT */
/* Pipeline tests: a node killed mid-transfer, misuse, a mismatched config, and the launcher's own errors. */
#include "lc_run.h"

#include <sys/prctl.h>

#include "comm.h"
#include "geom.h"
#include "nic.h"

TestSuite(pipeline_faults, .timeout = 120 * LC_T_SLOWDOWN);

/* A node SIGKILLs itself: commrun exits 128+9, every survivor saw LC_ERR_PEER_DEAD, no segment left. */
static void lc_t_killed(int nodes)
{
	struct lc_t_out o;
	char want[64];
	lc_t_commrun(&o, nodes, 60, "killed", "16", NULL);
	cr_assert_eq(o.status, 128 + 9, "commrun exit %d, expected 137; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "node 1 died: signal 9"), "output:\n%s", o.text);
	for (int i = 0; i < nodes; i++) {
		if (i == 1)
			continue;
		snprintf(want, sizeof want, "[%d] peer dead reported: node %d", i, i);
		cr_assert(strstr(o.text, want), "node %d did not report LC_ERR_PEER_DEAD; output:\n%s",
			  i, o.text);
	}
	/* survivors returned (exit 3), commrun did not have to kill them */
	cr_assert_eq(lc_t_count(&o, "still running"), 0, "a survivor hung; output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "FAIL"), 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(pipeline_faults, node_killed_mid_transfer_2)
{
	lc_t_killed(2);
}

Test(pipeline_faults, node_killed_mid_transfer_3)
{
	lc_t_killed(3);
}

Test(pipeline_faults, every_misuse_returns_its_error)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 60, "misuse", NULL);
	lc_t_expect_ok(&o, "misuse ok:", 1);
	static const char *const cases[] = {
		"send to node n: LC_ERR_RANGE", "send to node -5: LC_ERR_RANGE",
		"recv from node n: LC_ERR_RANGE", "irecv from node -5: LC_ERR_RANGE",
		"send NULL buffer len 5: LC_ERR_INVAL", "recv NULL buffer cap 5: LC_ERR_INVAL",
		"second lc_open: LC_ERR_BUSY", "recv 1000 bytes into 10: LC_ERR_TRUNC",
		"wait for 3 MTU+5 bytes into 1 MTU: LC_ERR_TRUNC",
		"recv NULL buffer cap 0 (empty message): LC_OK", "send after close: LC_ERR_CLOSED",
		"recv after close: LC_ERR_CLOSED", "close after close: LC_ERR_CLOSED",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert(strstr(o.text, cases[i]), "missing \"%s\"; output:\n%s", cases[i], o.text);
	lc_t_out_free(&o);
}

/* Run progs/openonly directly (no commrun) with the given environment. */
static void lc_t_openonly(struct lc_t_out *o, char *const env[])
{
	char prog[512];
	lc_t_path(prog, sizeof prog, "tests/progs/openonly");
	char *argv[] = { prog, NULL };
	lc_t_exec_alarm(o, argv, env, 30);   /* the segment is unlinked by the caller even if it hangs */
}

/* Make a segment whose geometry or fingerprint differs (by `how`), open it, expect LC_ERR_CONFIG. */
static void lc_t_mismatch(int how)
{
	struct lc_nic_geom g;
	char name[64], err[256] = "", envjob[96];
	cr_assert_eq(lc_geom_from_config(&g, 2), 0);
	if (how == 0)
		g.fingerprint ^= 0x1;           /* a build of another config */
	else
		g.staging_slots *= 2;           /* same fingerprint, other layout */
	snprintf(name, sizeof name, "/lc.%ld.test%d", (long)getpid(), how);
	int rc = lc_seg_create(name, &g, err, sizeof err);
	cr_assert_eq(rc, 0, "lc_seg_create: %s", err);
	snprintf(envjob, sizeof envjob, "LC_JOB=%s", name);
	char *env[] = { envjob, "LC_NODE=0", "LC_NODES=2", NULL };
	struct lc_t_out o;
	lc_t_openonly(&o, env);
	lc_seg_unlink(name);
	cr_assert(!lc_t_seg_exists(name));
	cr_assert_eq(o.status, 4, "openonly exit %d; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "open -> LC_ERR_CONFIG"), "expected LC_ERR_CONFIG; output:\n%s",
		  o.text);
	lc_t_out_free(&o);
}

Test(pipeline_faults, segment_of_another_config_is_refused)
{
	lc_t_mismatch(0);
}

Test(pipeline_faults, segment_of_another_geometry_is_refused)
{
	lc_t_mismatch(1);
}

Test(pipeline_faults, missing_segment_or_environment_is_an_error)
{
	struct lc_t_out o;
	char *env1[] = { "LC_JOB=/lc.0.does-not-exist", "LC_NODE=0", "LC_NODES=2", NULL };
	lc_t_openonly(&o, env1);
	cr_assert_eq(o.status, 4, "open of a missing segment: exit %d; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "open -> LC_ERR_"), "output:\n%s", o.text);
	lc_t_out_free(&o);
	/* no LC_JOB at all (unsetenv in the child through an empty value) */
	char *env2[] = { "LC_JOB=", "LC_NODE=", "LC_NODES=", NULL };
	lc_t_openonly(&o, env2);
	cr_assert_eq(o.status, 4, "open without a job: exit %d; output:\n%s", o.status, o.text);
	lc_t_out_free(&o);
}

/*
 * A node refused at lc_open says why, not only the error's class: the
 * examples print lc_last_error (here a wrong LC_PREFAULT in the job's
 * environment, which every attach refuses); the job ends and leaves no
 * segment.
 */
Test(pipeline_faults, a_node_refused_at_open_says_why)
{
	char crun[512], prog[512], t[16];
	char *env[] = { "LC_PREFAULT=maybe", NULL };
	struct lc_t_out o;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(prog, sizeof prog, "bin/pingpong");
	snprintf(t, sizeof t, "%d", 30 * LC_T_SLOWDOWN);
	char *argv[] = { crun, "--show-job", "--timeout", t, "-n", "2", prog, NULL };
	lc_t_exec(&o, argv, env);
	cr_assert(o.status != 0 && o.status != 124, "exit %d; output:\n%s", o.status, o.text);
	cr_assert_eq(lc_t_count(&o, "pingpong: lc_open: invalid argument ("), 2, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "LC_PREFAULT=maybe: not 1 or 0)"), 2, "output:\n%s", o.text);
	cr_assert(o.job[0] == '/' && !lc_t_seg_exists(o.job), "segment %s left behind; output:\n%s",
		  o.job, o.text);
	lc_t_out_free(&o);
}

Test(pipeline_faults, node_id_outside_the_job_is_refused)
{
	struct lc_nic_geom g;
	char name[64], err[256] = "", envjob[96];
	cr_assert_eq(lc_geom_from_config(&g, 2), 0);
	snprintf(name, sizeof name, "/lc.%ld.test-id", (long)getpid());
	cr_assert_eq(lc_seg_create(name, &g, err, sizeof err), 0, "%s", err);
	snprintf(envjob, sizeof envjob, "LC_JOB=%s", name);
	char *env[] = { envjob, "LC_NODE=5", "LC_NODES=2", NULL };
	struct lc_t_out o;
	lc_t_openonly(&o, env);
	lc_seg_unlink(name);
	cr_assert_eq(o.status, 4, "node 5 of 2 opened: exit %d; output:\n%s", o.status, o.text);
	lc_t_out_free(&o);
}

/* ---- the launcher itself ---- */

static void lc_t_commrun_raw(struct lc_t_out *o, char *a1, char *a2, char *a3, char *a4, char *a5)
{
	char crun[512];
	lc_t_path(crun, sizeof crun, "bin/commrun");
	char *argv[] = { crun, a1, a2, a3, a4, a5, NULL };
	lc_t_exec(o, argv, NULL);
}

Test(pipeline_faults, commrun_usage_errors)
{
	struct lc_t_out o;
	lc_t_commrun_raw(&o, "/bin/true", NULL, NULL, NULL, NULL);
	cr_assert_eq(o.status, 2, "no -n: %d\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "missing -n N"), "%s", o.text);
	lc_t_out_free(&o);
	lc_t_commrun_raw(&o, "-n", "0", "/bin/true", NULL, NULL);
	cr_assert_eq(o.status, 2, "-n 0: %d\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "bad node count '0'"), "%s", o.text);
	lc_t_out_free(&o);
	lc_t_commrun_raw(&o, "-n", "257", "/bin/true", NULL, NULL);
	cr_assert_eq(o.status, 2, "-n 257: %d\n%s", o.status, o.text);
	lc_t_out_free(&o);
	lc_t_commrun_raw(&o, "-n", "2", NULL, NULL, NULL);
	cr_assert_eq(o.status, 2, "no program: %d\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "missing the program"), "%s", o.text);
	lc_t_out_free(&o);
	lc_t_commrun_raw(&o, "-n", "2", "--frobnicate", "/bin/true", NULL);
	cr_assert_eq(o.status, 2, "unknown option: %d\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "unknown option '--frobnicate'"), "%s", o.text);
	lc_t_out_free(&o);
	lc_t_commrun_raw(&o, "-n", "2", "--timeout", "-3", "/bin/true");
	cr_assert_eq(o.status, 2, "negative timeout: %d\n%s", o.status, o.text);
	lc_t_out_free(&o);
}

Test(pipeline_faults, commrun_worst_status_prefix_and_env)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 4, 30, "/bin/sh", "-c",
		     "echo \"env $LC_NODE/$LC_NODES $LC_JOB\"; printf 'no newline'; exit $LC_NODE", NULL);
	cr_assert_eq(o.status, 3, "worst status of 0..3 is 3, got %d; output:\n%s", o.status, o.text);
	char want[160];
	for (int i = 0; i < 4; i++) {
		snprintf(want, sizeof want, "[%d] env %d/4 %s\n", i, i, o.job);
		cr_assert(strstr(o.text, want), "missing \"%s\"; output:\n%s", want, o.text);
		snprintf(want, sizeof want, "[%d] no newline\n", i);
		cr_assert(strstr(o.text, want), "missing \"%s\"; output:\n%s", want, o.text);
	}
	lc_t_out_free(&o);
}

Test(pipeline_faults, commrun_missing_program_127)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 30, "/nonexistent/program", NULL);
	cr_assert_eq(o.status, 127, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "cannot run /nonexistent/program"), 2, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(pipeline_faults, commrun_timeout_kills_the_job_124)
{
	struct lc_t_out o;
	char crun[512];
	lc_t_path(crun, sizeof crun, "bin/commrun");
	char *argv[] = { crun, "--show-job", "--timeout", "1", "-n", "2", "/bin/sleep", "60", NULL };
	lc_t_exec(&o, argv, NULL);
	cr_assert_eq(o.status, 124, "output:\n%s", o.text);
	cr_assert(o.job[0] == '/' && !lc_t_seg_exists(o.job), "segment left; output:\n%s", o.text);
	lc_t_out_free(&o);
}

/*
 * Start "commrun --show-job --timeout 60 -n 3 /bin/sleep 60" in the
 * background, its stdout and stderr on *fd; read up to its job line and put
 * the segment name in job.  Returns commrun's pid.
 */
static pid_t lc_t_start_sleepers(int *fd, char *job)
{
	char crun[512], buf[4096] = "";
	size_t len = 0;
	int p[2];

	lc_t_path(crun, sizeof crun, "bin/commrun");
	cr_assert(pipe(p) == 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execl(crun, crun, "--show-job", "--timeout", "60", "-n", "3", "/bin/sleep", "60",
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* the job line comes before the nodes start */
	while (!strstr(buf, "commrun: job ") || !strchr(strstr(buf, "commrun: job "), '\n')) {
		ssize_t r = read(p[0], buf + len, sizeof buf - 1 - len);
		cr_assert(r > 0, "commrun ended before naming its job: %s", buf);
		len += (size_t)r;
		buf[len] = '\0';
	}
	sscanf(strstr(buf, "commrun: job ") + 13, "%95s", job);
	cr_assert(lc_t_seg_exists(job), "segment %s should exist while the job runs", job);
	*fd = p[0];
	return pid;
}

Test(pipeline_faults, commrun_sigterm_is_forwarded_and_cleans_up)
{
	char job[96] = "", buf[4096];
	int fd, wst;
	pid_t pid = lc_t_start_sleepers(&fd, job);

	kill(pid, SIGTERM);
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
	cr_assert_eq(waitpid(pid, &wst, 0), pid);
	cr_assert(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGTERM, "commrun should die of SIGTERM");
	cr_assert(!lc_t_seg_exists(job), "segment %s left after SIGTERM", job);
}

/*
 * The children of pid that run comm (a node that has exec'd its program: its
 * death signal is set, launcher/spawn.c), or -1 when /proc does not list a
 * process's children.
 */
static int lc_t_children_running(pid_t pid, const char *comm)
{
	char path[64], name[64];
	int n = 0, c;
	FILE *f, *g;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fscanf(f, "%d", &c) == 1) {
		snprintf(path, sizeof path, "/proc/%d/comm", c);
		if ((g = fopen(path, "r"))) {
			if (fgets(name, sizeof name, g)) {
				name[strcspn(name, "\n")] = '\0';
				n += strcmp(name, comm) == 0;
			}
			fclose(g);
		}
	}
	fclose(f);
	return n;
}

/*
 * commrun SIGKILLed (no handler can run): its nodes die with it (PDEATHSIG)
 * and the next commrun removes the segment it left.  The test process is a
 * child subreaper, so the orphaned nodes become its children and are reaped
 * here: each must die of SIGKILL within 5 s, not run its 60 s.  The kill
 * comes once the three nodes run /bin/sleep: a node forked but killed before
 * its prctl exits on its own (launcher/spawn.c), which a fixed 300 ms let
 * happen on a loaded machine.
 */
Test(pipeline_faults, commrun_sigkill_nodes_follow_and_segment_is_swept)
{
	char crun[512], job[96] = "";
	int fd, wst, reaped = 0;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0, "prctl: %s", strerror(errno));
	pid_t pid = lc_t_start_sleepers(&fd, job);

	/* the job line comes before the forks: wait for the three nodes (or 300 ms without /proc's list) */
	for (int i = 0; i < 1000; i++) {
		int n = lc_t_children_running(pid, "sleep");

		if (n >= 3 || (n < 0 && i >= 30))
			break;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &wst, 0), pid);
	cr_assert(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL);
	close(fd);
	/* the three orphaned nodes, reaped here */
	for (int tries = 0; reaped < 3 && tries < 500; tries++) {
		pid_t c = waitpid(-1, &wst, WNOHANG);
		if (c > 0) {
			cr_assert(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL,
				  "a node of the killed launcher ended otherwise (status %#x)", wst);
			reaped++;
		} else {
			usleep(10000);
		}
	}
	if (reaped < 3) {
		/* do not leave the sleepers behind: they are our children now */
		char path[64];
		long c;
		snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
		FILE *f = fopen(path, "r");
		while (f && fscanf(f, "%ld", &c) == 1)
			kill((pid_t)c, SIGKILL);
		if (f)
			fclose(f);
		cr_assert_fail("only %d of 3 nodes died within 5 s of their launcher", reaped);
	}
	/* the segment is left (or another launcher of this user already swept it) ... */
	struct lc_t_out o;
	char *argv[] = { crun, "--show-job", "-n", "2", "/bin/true", NULL };
	int was_left = lc_t_seg_exists(job);

	lc_t_exec(&o, argv, NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	/* ... and the next commrun removes it, and says so */
	cr_assert(!lc_t_seg_exists(job), "segment %s of the killed launcher is still there:\n%s", job,
		  o.text);
	/*
	 * the sweep names what it removed; another commrun of this user running
	 * at the same time (a parallel suite) may have swept it first
	 */
	if (was_left && !(strstr(o.text, "removed the segment") && strstr(o.text, job)))
		cr_log_info("segment %s was swept by another launcher of this user", job);
	lc_t_out_free(&o);
}

Test(pipeline_faults, commrun_stats_prints_every_counter)
{
	struct lc_t_out o;
	char crun[512], prog[512];
	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(prog, sizeof prog, "tests/progs/order");
	char *argv[] = { crun, "--show-job", "--stats", "--timeout", "60", "-n", "2", prog, "50", NULL };
	lc_t_exec(&o, argv, NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(!lc_t_seg_exists(o.job));
	cr_assert(strstr(o.text, "node 0") && strstr(o.text, "node 1"), "output:\n%s", o.text);
	for (int k = 0; k < LC_STAT_COUNT; k++) {
		char row[96];
		unsigned long long v0, v1;
		snprintf(row, sizeof row, "\n%s ", lc_stat_name(k));
		const char *r = strstr(o.text, row);
		cr_assert(r, "counter %s missing; output:\n%s", lc_stat_name(k), o.text);
		cr_assert_eq(sscanf(r + strlen(row), "%llu %llu", &v0, &v1), 2, "row %s", row);
		/* node 0 sent the 50 messages, node 1 received them */
		if (strcmp(lc_stat_name(k), "tx_msgs") == 0)
			cr_assert(v0 == 50 && v1 == 0, "tx_msgs %llu %llu", v0, v1);
		if (strcmp(lc_stat_name(k), "rx_msgs") == 0)
			cr_assert(v0 == 0 && v1 == 50, "rx_msgs %llu %llu", v0, v1);
	}
	lc_t_out_free(&o);
}
