/* SPDX-License-Identifier: MIT */
/* Pipeline test: bidirectional windows of large messages while one node computes longer than the backpressure limit. */
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
	snprintf(work, sizeof work, "%lu", 2ul * (unsigned long)LC_BACKPRESSURE_TIMEOUT_US);
	snprintf(win, sizeof win, "%u", w);
	lc_t_commrun(&o, 2, 120, bibw, "-s", "1M:2M", "-i", "2", "-w", "1", "--window", win,
		     "--work-us", work, NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "[0] 1048576 "), "no 1 MiB line; output:\n%s", o.text);
	cr_assert(strstr(o.text, "[0] 2097152 "), "no 2 MiB line; output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "bibw: node"), 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}
