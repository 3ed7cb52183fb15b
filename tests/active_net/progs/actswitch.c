/* SPDX-License-Identifier: MIT */
/* Node program: two nodes stream messages to each other while switching the active protocol's flags per run of messages. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: actswitch MESSAGES RUN | actswitch api
 * Each of two nodes sends MESSAGES messages to the other, a window of
 * AS_WINDOW in flight, and receives the other's.  Message i carries the
 * flags of run i / RUN: all on, checksum only, none, reliability only, in
 * turn (lc_active_net_set before the run's first message, while the window's
 * sends are still queued or in flight: the change must take effect exactly
 * at message i).  Its size is as_size(i) (one frame, several, empty
 * payload beyond the index), its first 8 bytes i and ~i, the rest
 * lc_ex_fill's pattern for (sender, i).  At the end each node switches every
 * protocol on and sends an end message.
 *
 * The receiver checks: indices strictly increase (no duplicate, no
 * reordering); every message of a run with reliability arrives, intact; one
 * with checksum arrives intact if it arrives; one with neither may be lost
 * or damaged (counted).  It prints
 *   "actswitch node <i>: <got> of <n> (reliable <r> of <r>), lost <l>, damaged <d>, aborted <a>"
 * and exits 0, or names the first bad message and exits 1.
 *
 * actswitch api: the calls' errors, and changes waiting for their messages:
 * node 1 sleeps while node 0 fills the Send Rings and its send queue with
 * large messages, then submits one message after each of
 * active_net.changes + 1 changes; the last change fails with LC_ERR_AGAIN (every
 * slot waits for a message not started), lc_active_net_get gives the pending
 * flags.  Node 1 then receives every message intact and node 0 prints
 * "actswitch api: ok (<k> changes waited, the next one LC_ERR_AGAIN)".  Without the
 * active protocol it prints "actswitch: skipped (no active protocol)".
 */
#if LC_PROTO_ACTIVE_NET
#define AS_WINDOW 16u
#define AS_HDR 8u

static unsigned as_ck, as_rel;   /* the bits of checksum and reliability (0 if not composed) */

static unsigned as_mask(uint32_t i, uint32_t run)
{
	static const int phase[4][2] = { { 1, 1 }, { 1, 0 }, { 0, 0 }, { 0, 1 } };
	const int *p = phase[(i / run) % 4];

	return (p[0] ? as_ck : 0) | (p[1] ? as_rel : 0);
}

static size_t as_size(uint32_t i)
{
	static const size_t sz[] = { AS_HDR, 64, LC_MTU, LC_MTU + 1, 3 * LC_MTU + 5, 200 };

	return sz[i % (sizeof sz / sizeof sz[0])];
}

static void as_fill(uint8_t *b, int me, uint32_t i, size_t len)
{
	uint32_t w[2] = { i, ~i };

	memcpy(b, w, sizeof w);
	lc_ex_fill(b + AS_HDR, len - AS_HDR, lc_ex_seed((uint64_t)me, i));
}

#define AS_HIST 16u

/* What a receive completed with: the index words, the length and the error. */
struct as_receipt {
	uint32_t w0, w1;
	size_t len;
	int err;
};

struct as_rx {
	uint32_t next;          /* every index below was accounted for */
	uint32_t got, rel_got, rel_sent, lost, damaged, aborted;
	int done;
	uint32_t nh;            /* receipts so far; the last AS_HIST of them, for a failure's report */
	struct as_receipt hist[AS_HIST];
};

/* Name the receipts before a failure (oldest first) on stderr, then fail. */
#define AS_FAIL(r, ...) \
	do { \
		as_dump(r); \
		lc_tp_fail(__VA_ARGS__); \
	} while (0)

static void as_dump(const struct as_rx *r)
{
	uint32_t from = r->nh > AS_HIST ? r->nh - AS_HIST : 0;

	for (uint32_t k = from; k < r->nh; k++) {
		const struct as_receipt *h = &r->hist[k % AS_HIST];

		fprintf(stderr, "receipt %u: words %u/~%u, %zu bytes, err %d\n", k, h->w0, ~h->w1, h->len, h->err);
	}
}

/* Account for indices next .. upto-1 as not received: a reliable one among them is a failure. */
static void as_missing(struct as_rx *r, uint32_t upto, uint32_t run, int from)
{
	for (; r->next < upto; r->next++) {
		if (as_mask(r->next, run) & as_rel)
			AS_FAIL(r, "message %u from %d was sent with reliability and never arrived", r->next, from);
		r->lost++;
	}
}

static void as_take(struct as_rx *r, const uint8_t *b, const struct lc_status *st, uint32_t n, uint32_t run,
		    int from)
{
	uint32_t w[2], i;
	unsigned m;

	memcpy(w, b, sizeof w);
	r->hist[r->nh++ % AS_HIST] = (struct as_receipt){ w[0], w[1], st->len, st->err };
	if (st->err) {
		/* an unreliable multi-frame message lost a frame: the framework aborted it */
		if (st->err != LC_ERR_LOST)
			AS_FAIL(r, "receive from %d: %s", from, lc_tp_errname(st->err));
		if (w[0] == ~w[1] && w[0] < n && (as_mask(w[0], run) & as_rel))
			AS_FAIL(r, "message %u from %d was sent with reliability and was aborted", w[0], from);
		r->aborted++;
		return;
	}
	if (w[0] != ~w[1] || st->len < AS_HDR) {
		/* damaged where the index is: only a message without checksum or reliability may be */
		r->damaged++;
		return;
	}
	i = w[0];
	if (i == n) {
		as_missing(r, n, run, from);
		r->done = 1;
		return;
	}
	if (i >= n || i < r->next)
		AS_FAIL(r, "message %u from %d out of order or duplicated (next expected %u)", i, from, r->next);
	as_missing(r, i, run, from);
	m = as_mask(i, run);
	r->next = i + 1;
	if (st->len != as_size(i) || lc_ex_check(b + AS_HDR, as_size(i) - AS_HDR,
						 lc_ex_seed((uint64_t)from, i)) != as_size(i) - AS_HDR) {
		if (m & (as_ck | as_rel))
			AS_FAIL(r, "message %u from %d (flags 0x%x) arrived damaged: %zu bytes", i, from, m,
				   st->len);
		r->damaged++;
		return;
	}
	r->got++;
	if (m & as_rel)
		r->rel_got++;
}

/*
 * Post the next receive into a->buf, its index words cleared first: an
 * aborted message's first frame may never have reached the buffer (it was
 * unexpected, assembled in the library's own buffer), and the previous
 * message's index left there would be taken for the aborted one's.  {0, 0}
 * is no index (w[0] == ~w[1] fails); a reliable message aborted without its
 * index is still caught, as missing, when a later one arrives (as_missing).
 */
static void as_post(lc_node *node, int peer, uint8_t *buf, size_t cap, lc_req **req)
{
	memset(buf, 0, AS_HDR);
	LC_TP_OK(node, lc_irecv(node, peer, buf, cap, req));
}

struct as_recv {
	lc_node *node;
	int peer;
	uint8_t *buf;
	size_t cap;
	lc_req *req;
	uint32_t n, run;
	struct as_rx rx;
};

/* Take the message the receive got, if it got one, and post the next receive. */
static void as_poll(struct as_recv *a)
{
	struct lc_status st;
	int done, rc;

	if (a->rx.done)
		return;
	/* an aborted message completes its receive with LC_ERR_LOST (as_take judges it) */
	rc = lc_test(a->node, a->req, &done, &st);
	if (rc && !(rc == LC_ERR_LOST && done))
		lc_tp_fail("lc_test (receive) -> %s (%s)", lc_tp_errname(rc), lc_last_error(a->node));
	if (!done)
		return;
	as_take(&a->rx, a->buf, &st, a->n, a->run, a->peer);
	if (!a->rx.done)
		as_post(a->node, a->peer, a->buf, a->cap, &a->req);
}

/*
 * Complete a send while receiving: a send whose message switches a protocol
 * off completes once that protocol is quiet towards the peer (its acks in),
 * so, as with MPI_Send, a program keeps receiving meanwhile.
 */
static void as_wait_send(struct as_recv *a, lc_req **r)
{
	int done = 0;

	while (*r && !done) {
		LC_TP_OK(a->node, lc_test(a->node, *r, &done, NULL));
		as_poll(a);
	}
	*r = NULL;
}

#define AS_API_FILL 12u     /* messages of 3 MTUs: more frames than two rings hold */

static int as_api(lc_node *node, int me)
{
	size_t len = 3 * LC_MTU + 5;
	uint32_t total = AS_API_FILL + LC_ACTIVE_NET_CHANGES;
	uint8_t *b = lc_tp_alloc(total * len);
	lc_req **r = lc_tp_alloc(total * sizeof *r);
	unsigned bit, on;
	struct lc_status st;
	int rc;

	if (me == 1) {
		struct timespec ts = { 0, 300 * 1000000L };

		nanosleep(&ts, NULL);   /* its NIC runs only in its calls: node 0's frames pile up */
		for (uint32_t i = 0; i < total; i++) {
			LC_TP_OK(node, lc_recv(node, 0, b, len, &st));
			if (st.len != len || lc_ex_check(b + AS_HDR, len - AS_HDR, lc_ex_seed(0, i)) != len - AS_HDR)
				lc_tp_fail("api message %u: %zu bytes, damaged", i, st.len);
		}
		free(r);
		free(b);
		return 0;
	}
	if ((rc = lc_active_net_set(node, 1, 0x80u)) != (lc_active_net_mask() & 0x80u ? 0 : LC_ERR_INVAL))
		lc_tp_fail("lc_active_net_set(0x80) -> %s", lc_tp_errname(rc));
	if ((rc = lc_active_net_set(node, 2, 0)) != LC_ERR_RANGE)
		lc_tp_fail("lc_active_net_set(node 2 of 2) -> %s", lc_tp_errname(rc));
	if ((rc = lc_active_net_bit("no_such_protocol", &bit)) != LC_ERR_INVAL)
		lc_tp_fail("lc_active_net_bit(no_such_protocol) -> %s", lc_tp_errname(rc));
	if ((rc = lc_active_net_get(node, 1, NULL)) != LC_ERR_INVAL)
		lc_tp_fail("lc_active_net_get(NULL) -> %s", lc_tp_errname(rc));
	for (uint32_t i = 0; i < total; i++) {
		/* after the fill, a change before each message: each waits for its message */
		if (i >= AS_API_FILL) {
			on = (i & 1) ? lc_active_net_mask() : 0;
			LC_TP_OK(node, lc_active_net_set(node, 1, on));
			LC_TP_OK(node, lc_active_net_get(node, 1, &bit));
			if (bit != on)
				lc_tp_fail("lc_active_net_get: 0x%x after lc_active_net_set(0x%x)", bit, on);
		}
		as_fill(b + i * len, 0, i, len);
		LC_TP_OK(node, lc_isend(node, 1, b + i * len, len, &r[i]));
	}
	on = (total & 1) ? lc_active_net_mask() : 0;
	if ((rc = lc_active_net_set(node, 1, on)) != LC_ERR_AGAIN)
		lc_tp_fail("change %u with %u waiting -> %s, expected LC_ERR_AGAIN", LC_ACTIVE_NET_CHANGES + 1,
			   LC_ACTIVE_NET_CHANGES, lc_tp_errname(rc));
	LC_TP_OK(node, lc_waitall(node, (int)total, r, NULL));
	LC_TP_OK(node, lc_active_net_set(node, 1, on));   /* the messages left: room again */
	printf("actswitch api: ok (%u changes waited, the next one LC_ERR_AGAIN)\n", LC_ACTIVE_NET_CHANGES);
	free(r);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2000;
	uint32_t run = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 50;
	int me, size;
	lc_node *node = lc_tp_open(&me, &size);
	size_t cap = 3 * LC_MTU + 5;
	uint8_t *sbuf;
	lc_req *sreq[AS_WINDOW] = { 0 };
	struct as_recv a = { .node = node, .cap = cap, .n = n, .run = run };
	unsigned cur = ~0u;

	if (argc > 1 && strcmp(argv[1], "api") == 0) {
		int rc = as_api(node, me);

		LC_TP_OK(node, lc_close(node));
		return rc;
	}
	sbuf = lc_tp_alloc(AS_WINDOW * cap);
	a.buf = lc_tp_alloc(cap);
	if (size != 2 || run == 0)
		lc_tp_fail("usage: commrun -n 2 actswitch MESSAGES RUN (RUN > 0)");
	a.peer = 1 - me;
	if (lc_active_net_bit("checksum", &as_ck))
		as_ck = 0;
	if (lc_active_net_bit("reliability", &as_rel))
		as_rel = 0;
	for (uint32_t i = 0; i < n; i++)
		if (as_mask(i, run) & as_rel)
			a.rx.rel_sent++;
	as_post(node, a.peer, a.buf, cap, &a.req);
	for (uint32_t i = 0; i <= n; i++) {
		unsigned m = i == n ? lc_active_net_mask() : as_mask(i, run);
		uint32_t k = i % AS_WINDOW;
		size_t len = i == n ? AS_HDR : as_size(i);
		int rc;

		as_wait_send(&a, &sreq[k]);
		while (m != cur && (rc = lc_active_net_set(node, a.peer, m)) != 0) {
			/* every change slot waits for its message: let the queue move */
			if (rc != LC_ERR_AGAIN)
				lc_tp_fail("lc_active_net_set(0x%x) -> %s (%s)", m, lc_tp_errname(rc), lc_last_error(node));
			as_wait_send(&a, &sreq[(k + 1) % AS_WINDOW]);
		}
		cur = m;
		as_fill(sbuf + k * cap, me, i, len);
		LC_TP_OK(node, lc_isend(node, a.peer, sbuf + k * cap, len, &sreq[k]));
		as_poll(&a);
	}
	for (uint32_t k = 0; k < AS_WINDOW; k++)
		as_wait_send(&a, &sreq[k]);
	while (!a.rx.done)
		as_poll(&a);
	if (a.rx.rel_got != a.rx.rel_sent)
		lc_tp_fail("reliable messages: %u of %u", a.rx.rel_got, a.rx.rel_sent);
	printf("actswitch node %d: %u of %u (reliable %u of %u), lost %u, damaged %u, aborted %u\n", me,
	       a.rx.got, n, a.rx.rel_got, a.rx.rel_sent, a.rx.lost, a.rx.damaged, a.rx.aborted);
	fflush(stdout);
	LC_TP_OK(node, lc_close(node));
	free(a.buf);
	free(sbuf);
	return 0;
}
#else
int main(void)
{
	printf("actswitch: skipped (no active protocol)\n");
	return 0;
}
#endif
