/* SPDX-License-Identifier: MIT */
/* Node program: every misuse of the API returns its error code and leaves a message. */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Usage: misuse   (2 nodes)
 * Node 0 checks, in order: bad node ids (send, isend, recv, irecv: n, n+3,
 * -5), NULL buffer with length > 0 (send, recv), NULL requests, a second
 * lc_open, a receive buffer too small (blocking and non-blocking: the first
 * cap bytes are delivered, LC_ERR_TRUNC, the true size in st.len) and that
 * the next message still arrives whole, a NULL buffer with length 0 (a valid
 * empty message), then use after close.  Node 1 sends what node 0 receives.
 * Each case prints "misuse <case>: <LC_ERR_...> ok"; at the end
 * "misuse ok: node 0 checked <k> cases".
 */
static int lc_tp_cases;

static void lc_tp_want(lc_node *node, const char *what, int rc, int want)
{
	if (rc != want)
		lc_tp_fail("misuse %s: got %s, expected %s", what, lc_tp_errname(rc), lc_tp_errname(want));
	if (want != 0 && node && lc_last_error(node)[0] == '\0')
		lc_tp_fail("misuse %s: %s but lc_last_error() is empty", what, lc_tp_errname(rc));
	printf("misuse %s: %s ok%s%s\n", what, lc_tp_errname(rc), want ? " -- " : "",
	       want && node ? lc_last_error(node) : "");
	lc_tp_cases++;
}

int main(void)
{
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	size_t big = 3 * (size_t)LC_MTU + 5;
	unsigned char *b = lc_tp_alloc(big), *r = lc_tp_alloc(big);
	struct lc_status st;
	lc_req *req = NULL;

	if (n != 2)
		lc_tp_fail("needs 2 nodes");
	if (me == 1) {
		lc_ex_fill(b, 1000, lc_ex_seed(1, 1000));
		LC_TP_OK(node, lc_send(node, 0, b, 1000));
		lc_ex_fill(b, big, lc_ex_seed(2, big));
		LC_TP_OK(node, lc_send(node, 0, b, big));
		lc_ex_fill(b, 77, lc_ex_seed(3, 77));
		LC_TP_OK(node, lc_send(node, 0, b, 77));
		LC_TP_OK(node, lc_send(node, 0, NULL, 0));
		/* wait until node 0 is done before closing */
		LC_TP_OK(node, lc_recv(node, 0, NULL, 0, &st));
		LC_TP_OK(node, lc_close(node));
		printf("misuse peer: node 1 done\n");
		free(b);
		free(r);
		return 0;
	}

	/* bad node ids */
	lc_tp_want(node, "send to node n", lc_send(node, n, b, 1), LC_ERR_RANGE);
	lc_tp_want(node, "send to node n+3", lc_send(node, n + 3, b, 1), LC_ERR_RANGE);
	lc_tp_want(node, "send to node -5", lc_send(node, -5, b, 1), LC_ERR_RANGE);
	lc_tp_want(node, "send to any-source", lc_send(node, LC_ANY_SOURCE, b, 1), LC_ERR_RANGE);
	lc_tp_want(node, "isend to node n", lc_isend(node, n, b, 1, &req), LC_ERR_RANGE);
	lc_tp_want(node, "recv from node n", lc_recv(node, n, r, 1, &st), LC_ERR_RANGE);
	lc_tp_want(node, "irecv from node -5", lc_irecv(node, -5, r, 1, &req), LC_ERR_RANGE);
	/* NULL buffers with a length */
	lc_tp_want(node, "send NULL buffer len 5", lc_send(node, 1, NULL, 5), LC_ERR_INVAL);
	lc_tp_want(node, "isend NULL buffer len 5", lc_isend(node, 1, NULL, 5, &req), LC_ERR_INVAL);
	lc_tp_want(node, "recv NULL buffer cap 5", lc_recv(node, 1, NULL, 5, &st), LC_ERR_INVAL);
	lc_tp_want(node, "irecv NULL buffer cap 5", lc_irecv(node, 1, NULL, 5, &req), LC_ERR_INVAL);
	lc_tp_want(node, "isend NULL request", lc_isend(node, 1, b, 1, NULL), LC_ERR_INVAL);
	lc_tp_want(node, "wait NULL request", lc_wait(node, NULL, &st), LC_ERR_INVAL);
	/* one node per process */
	lc_node *again = NULL;
	lc_tp_want(NULL, "second lc_open", lc_open(&again), LC_ERR_BUSY);

	/* truncation, blocking: 1000 bytes into 10 */
	memset(&st, 0, sizeof st);
	lc_tp_want(node, "recv 1000 bytes into 10", lc_recv(node, 1, r, 10, &st), LC_ERR_TRUNC);
	if (st.len != 1000 || st.src != 1 || lc_ex_check(r, 10, lc_ex_seed(1, 1000)) != 10)
		lc_tp_fail("truncated receive: st.len %zu (want 1000), src %d, first 10 bytes %s", st.len,
			   st.src, lc_ex_check(r, 10, lc_ex_seed(1, 1000)) == 10 ? "ok" : "wrong");
	/* truncation, non-blocking: 3 MTU + 5 into 1 MTU */
	LC_TP_OK(node, lc_irecv(node, 1, r, LC_MTU, &req));
	memset(&st, 0, sizeof st);
	lc_tp_want(node, "wait for 3 MTU+5 bytes into 1 MTU", lc_wait(node, req, &st), LC_ERR_TRUNC);
	if (st.len != big || st.err != LC_ERR_TRUNC ||
	    lc_ex_check(r, LC_MTU, lc_ex_seed(2, big)) != (size_t)LC_MTU)
		lc_tp_fail("truncated irecv: st.len %zu (want %zu), st.err %s", st.len, big,
			   lc_tp_errname(st.err));
	/* the stream goes on intact after a truncation */
	LC_TP_OK(node, lc_recv(node, 1, r, big, &st));
	lc_tp_expect(r, &st, 1, 77, lc_ex_seed(3, 77), "message after the truncations");
	lc_tp_want(node, "recv NULL buffer cap 0 (empty message)", lc_recv(node, 1, NULL, 0, &st), 0);
	if (st.len != 0)
		lc_tp_fail("empty message reported %zu bytes", st.len);
	LC_TP_OK(node, lc_send(node, 1, NULL, 0));

	/* use after close */
	LC_TP_OK(node, lc_close(node));
	lc_tp_want(NULL, "send after close", lc_send(node, 1, b, 1), LC_ERR_CLOSED);
	lc_tp_want(NULL, "recv after close", lc_recv(node, 1, r, 1, &st), LC_ERR_CLOSED);
	lc_tp_want(NULL, "progress after close", lc_progress(node), LC_ERR_CLOSED);
	lc_tp_want(NULL, "close after close", lc_close(node), LC_ERR_CLOSED);
	if (lc_rank(node) >= 0)
		lc_tp_fail("lc_rank after close returned %d", lc_rank(node));
	printf("misuse ok: node 0 checked %d cases\n", lc_tp_cases);
	free(b);
	free(r);
	return 0;
}
