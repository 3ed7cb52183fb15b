/* SPDX-License-Identifier: MIT */
/* zc_loop: a fixed 2-node ping-pong for the zero-cost proof's callgrind instruction counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

/*
 * Usage: commrun -n 2 zc_loop ITERS SIZE
 * Node 0 sends ITERS messages of SIZE bytes to node 1 and waits for each
 * echo; node 1 echoes.  Each node thus sends ITERS and receives ITERS
 * messages, whatever the build, so the instructions collected in
 * lc_tx_frame/lc_rx_frame per message compare between builds.  The bytes
 * are checked so that a broken build cannot pass with a short count.
 * Prints "zc_loop: node R: ITERS round trips of SIZE bytes".
 */
static int lc_zc_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "zc_loop: %s: %s (%s)\n", what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

int main(int argc, char **argv)
{
	lc_node *node = NULL;
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 8;
	unsigned char *buf, *want;
	int rc, me;

	rc = lc_open(&node);
	if (rc)
		return lc_zc_fail(NULL, "lc_open", rc);
	me = lc_rank(node);
	if (lc_size(node) != 2) {
		fprintf(stderr, "zc_loop: run with commrun -n 2\n");
		return 2;
	}
	buf = malloc(size ? size : 1);
	want = malloc(size ? size : 1);
	if (!buf || !want)
		return lc_zc_fail(node, "malloc", LC_ERR_NOMEM);
	for (unsigned long i = 0; i < iters; i++) {
		struct lc_status st;

		for (size_t k = 0; k < size; k++)
			want[k] = (unsigned char)(i * 131 + k * 7 + 1);
		if (me == 0) {
			memcpy(buf, want, size);
			rc = lc_send(node, 1, buf, size);
			if (rc)
				return lc_zc_fail(node, "lc_send", rc);
			memset(buf, 0, size);
		}
		rc = lc_recv(node, 1 - me, buf, size, &st);
		if (rc)
			return lc_zc_fail(node, "lc_recv", rc);
		if (st.len != size || memcmp(buf, want, size) != 0) {
			fprintf(stderr, "zc_loop: node %d: iteration %lu: wrong message\n", me, i);
			return 1;
		}
		if (me == 1) {
			rc = lc_send(node, 0, buf, size);
			if (rc)
				return lc_zc_fail(node, "lc_send", rc);
		}
	}
	printf("zc_loop: node %d: %lu round trips of %zu bytes\n", me, iters, size);
	free(buf);
	free(want);
	rc = lc_close(node);
	return rc ? lc_zc_fail(NULL, "lc_close", rc) : 0;
}
