/* SPDX-License-Identifier: MIT */
/* Pipeline tests: bidirectional windows of large messages while one node computes longer than the backpressure limit; msgrate's windows timed by phase. */
#include "lc_run.h"
#include "lc_config.h"

TestSuite(pipeline_bibw, .timeout = 150 * LC_T_SLOWDOWN);

/*
 * Both nodes post a window of 16 irecvs and 16 isends (fewer when
 * host.max_requests is smaller) of 1 MiB and 2 MiB
 * (128 and 256 frames each, far beyond the Receive Ring and host staging)
 * at once, in both directions.  Before each size node 1 works locally for
 * twice the backpressure limit while node 0 already sends the size's first
 * window: a node that computes must keep its NIC draining (examples/bibw
 * calls lc_progress between slices of local work), or node 0's NIC drops a
 * frame after backpressure_timeout_us and the run fails with LC_ERR_LOST.
 */
Test(pipeline_bibw, both_sides_send_windows_while_one_node_computes)
{
	struct lc_t_out o;
	char bibw[512], work[32], win[16];
	/* a window of irecvs and one of isends must fit the request pool */
	unsigned w = LC_HOST_MAX_REQUESTS / 2 < 16 ? LC_HOST_MAX_REQUESTS / 2 : 16;

	lc_t_path(bibw, sizeof bibw, "bin/bibw");
	snprintf(work, sizeof work, "%llu", 2ull * (unsigned long long)(lc_backpressure_ns() / 1000u));
	snprintf(win, sizeof win, "%u", w);
	lc_t_commrun(&o, 2, 120, bibw, "-s", "1M:2M", "-i", "2", "-w", "1", "--window", win,
		     "--work-us", work, NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "[0] 1048576 "), "no 1 MiB line; output:\n%s", o.text);
	cr_assert(strstr(o.text, "[0] 2097152 "), "no 2 MiB line; output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "bibw: node"), 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* The figures of the line that starts with `head` in o: n doubles after it (sscanf fmt), or fail. */
static void lc_t_line(const struct lc_t_out *o, const char *head, const char *fmt, double *a, double *b,
		      double *c, unsigned *n)
{
	const char *l = strstr(o->text, head);
	int got;

	cr_assert(l, "no line \"%s\"; output:\n%s", head, o->text);
	got = n ? sscanf(l + strlen(head), fmt, a, b, c, n) : sscanf(l + strlen(head), fmt, a, b);
	cr_assert_eq(got, n ? 4 : 2, "line \"%s\" unreadable; output:\n%s", head, o->text);
}

/*
 * msgrate --phases: each node of the pair reports, per size, where its timed
 * windows' time went -- posting, waiting for the window, the rest -- in ns a
 * message.  The three parts are cut from the one clock the rate is measured
 * with, over the same windows, so on node 0 their sum is the rate's own time
 * a message (within the rounding of the printed figures); node 1 reports its
 * windows too.  A program without windows refuses the option.
 */
Test(pipeline_bibw, msgrate_phases_make_up_the_rate)
{
	struct lc_t_out o;
	char prog[512], head[96], win[16];
	double post, wait, rest, mbs, rate;
	unsigned n;

	/* a window of requests and the ack's within the request pool (small_rings: 8) */
	snprintf(win, sizeof win, "%u", LC_HOST_MAX_REQUESTS / 2 < 16 ? LC_HOST_MAX_REQUESTS / 2 : 16);
	lc_t_path(prog, sizeof prog, "bin/msgrate");
	lc_t_commrun(&o, 2, 60, prog, "-s", "8:64", "-i", "50", "-w", "5", "--window", win, "--phases",
		     NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	for (size_t size = 8; size <= 64; size *= 2) {
		snprintf(head, sizeof head, "[0] # phases %zu B node 0 (sender): post ", size);
		lc_t_line(&o, head, "%lf wait %lf rest %lf ns a message, %u windows", &post, &wait, &rest, &n);
		cr_assert_eq(n, 50, "%zu B: %u windows timed on node 0", size, n);
		cr_assert(post > 0 && wait >= 0 && rest > 0, "%zu B: node 0's phases %g %g %g", size, post,
			  wait, rest);
		snprintf(head, sizeof head, "[0] %-12zu", size);
		lc_t_line(&o, head, "%lf%lf", &mbs, &rate, NULL, NULL);
		double per = 1e9 / rate, sum = post + wait + rest;
		cr_assert(sum > per * 0.995 && sum < per * 1.005,
			  "%zu B: node 0's phases add up to %.2f ns a message, the rate to %.2f; output:\n%s",
			  size, sum, per, o.text);
		snprintf(head, sizeof head, "[1] # phases %zu B node 1 (receiver): post ", size);
		lc_t_line(&o, head, "%lf wait %lf rest %lf ns a message, %u windows", &post, &wait, &rest, &n);
		cr_assert(n == 50 && post > 0 && wait >= 0 && rest > 0, "%zu B: node 1's phases %g %g %g, "
			  "%u windows", size, post, wait, rest, n);
	}
	lc_t_out_free(&o);
	lc_t_path(prog, sizeof prog, "bin/pingpong");
	lc_t_commrun(&o, 2, 60, prog, "-s", "8:8", "-i", "10", "--phases", NULL);
	cr_assert_neq(o.status, 0, "pingpong took --phases; output:\n%s", o.text);
	cr_assert(strstr(o.text, "usage:"), "no usage for pingpong --phases; output:\n%s", o.text);
	lc_t_out_free(&o);
}
