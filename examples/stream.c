/* SPDX-License-Identifier: MIT */
/* stream: windowed one-way bandwidth from node 0 to node 1, every message checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#define LC_EX_PROG "stream"
#include "lc_ex_common.h"
#include "lc_config.h"

/*
 * Usage: commrun -n 2 stream [-s min:max] [-i windows] [-w warmup] [--window W] [--verify]
 *                           [--tail-ms MS]
 *
 * For each size node 0 posts W isends (W = 64 by default), waits for them,
 * then waits for a 1-byte ack from node 1, which posted W irecvs; repeated
 * for the warm-up and then the timed windows.  Every message has its own
 * buffer (slot) on both sides so each one can be checked after it landed.
 *
 * Every message of 16 bytes or more starts with struct lc_ex_hdr (sequence
 * number, length, payload checksum, header checksum); node 1 checks the
 * header of every message.  With --verify the payload of every message is
 * made from its sequence number and its checksum is checked as well, and
 * node 1 ends with one line:
 *   verified N/N messages, C corrupt, D duplicate, O out-of-order, L lost, T late
 * Messages below 16 bytes are the pattern of their expected sequence number,
 * checked byte by byte (a mismatch counts as corrupt).  Without --verify the
 * payload after the header is filled once per slot and not re-summed, so the
 * measurement is not dominated by the check.  Exit status 1 on any error.
 *
 * With --verify a lossy network (commrun --faults, no reliability) does not
 * stop the run, and loss is read from sequence numbers, not from timeouts:
 * node 1 keeps a ring of receives posted (slot-sized, reposted as they
 * complete, so it never waits for one particular message) and messages from
 * one source arrive in order or not at all, so the header's sequence number
 * says what happened: a gap is lost, a repeat is a duplicate, a smaller one is
 * out of order, a bad checksum is corrupt.  Messages below 16 bytes carry no
 * header: the first sequence number of the next window's worth whose pattern
 * they match (a 0-byte message: the next one).  A window ends for node 1 when
 * its last message (or a later one) came; only when nothing at all comes for
 * the tail bound (--tail-ms, default 2 x LC_BACKPRESSURE_TIMEOUT_US; 60 s with
 * reliability, which loses nothing) is the rest of the window lost.  Node 0
 * waits for each window's ack at most twice the tail bound (a lost ack: it
 * goes on, the receive stays posted, and it reports how many it missed).
 * A stall longer than the tail bound (a descheduled node) moves the two nodes
 * apart by a size: an intact message of an earlier size is late (counted
 * lost at its own size, not corrupt); one of the next size ends this size for
 * node 1 and is judged as the first of the next (node 0 went on without the
 * last ack).  Corrupt is damage only: a message no size of the run explains.
 * Every wait polls and yields (sched_yield) after a few idle polls.  Once the
 * sender has left (LC_ERR_PEER_DEAD) node 1 stops waiting.
 */

#if LC_PROTO_RELIABILITY
#define LC_ST_TAIL_MS 60000u
#else
#define LC_ST_TAIL_MS (2u * (unsigned)(LC_BACKPRESSURE_TIMEOUT_US / 1000))
#endif
#define LC_ST_IDLE_POLLS 64u    /* idle polls before each sched_yield */

/* verify: the sender left (LC_ERR_PEER_DEAD): what did not arrive is lost, no more waiting */
static int lc_st_gone;
static unsigned lc_st_dead_in_row;

struct lc_st_counts {
	unsigned long long total, ok, corrupt, duplicate, ooo, lost, late;
};

/* Fill the message seq of a slot (sender side). */
static void lc_st_make(unsigned char *buf, size_t size, uint32_t seq, int verify,
		       uint32_t *slot_sum)
{
	if (size < LC_EX_HDR_BYTES) {
		lc_ex_fill(buf, size, lc_ex_seed(size, seq));
		return;
	}
	struct lc_ex_hdr h;
	if (verify) {
		lc_ex_fill(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES, lc_ex_seed(size, seq));
		h.sum = lc_ex_sum(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES);
	} else {
		h.sum = *slot_sum;
	}
	h.seq = seq;
	h.len = (uint32_t)size;
	h.hsum = lc_ex_hdr_sum(&h);
	memcpy(buf, &h, sizeof h);
}

/*
 * Check one received message (receiver side, no verify: header only).  seen[] marks the sequence
 * numbers of this size already received; *top is one above the highest.
 */
static void lc_st_check(const unsigned char *buf, size_t got, size_t size, uint32_t expect,
			uint32_t total, unsigned char *seen, uint32_t *top,
			struct lc_st_counts *c)
{
	/* a corrupt message is counted once: as corrupt, in place of the expected one */
	if (got != size) {
		c->corrupt++;
		seen[expect] = 1;
		return;
	}
	if (size < LC_EX_HDR_BYTES) {
		if (lc_ex_check(buf, size, lc_ex_seed(size, expect)) != size) {
			c->corrupt++;
			seen[expect] = 1;
			return;
		}
		seen[expect] = 1;
		c->ok++;
		*top = expect + 1;
		return;
	}
	struct lc_ex_hdr h;
	memcpy(&h, buf, sizeof h);
	if (h.hsum != lc_ex_hdr_sum(&h) || h.len != size || h.seq >= total) {
		c->corrupt++;
		seen[expect] = 1;
		return;
	}
	if (seen[h.seq]) {
		c->duplicate++;
		return;
	}
	seen[h.seq] = 1;
	if (h.seq + 1 < *top) {
		c->ooo++;
		return;
	}
	*top = h.seq + 1;
	c->ok++;
}

/*
 * The sequence number of buf as an intact message of size bytes, or -1: below
 * total by its header (16 bytes and more), else the first of from .. to - 1
 * whose pattern it is.
 */
static long lc_st_ident(const unsigned char *buf, size_t size, uint32_t from, uint32_t to, uint32_t total)
{
	if (size < LC_EX_HDR_BYTES) {
		for (uint32_t s = from; s < to; s++)
			if (lc_ex_check(buf, size, lc_ex_seed(size, s)) == size)
				return (long)s;
		return -1;
	}
	struct lc_ex_hdr h;
	memcpy(&h, buf, sizeof h);
	return h.hsum == lc_ex_hdr_sum(&h) && h.len == size && h.seq < total &&
	       lc_ex_sum(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES) == h.sum ? (long)h.seq : -1;
}

/*
 * Judge one received message of got bytes (receiver side, verify).  seen[]
 * marks the sequence numbers of this size already accounted for; *top is one
 * above the highest.  Returns the sequence number the message stands for
 * (a corrupt one stands for *top), or -1 (duplicate, out of order: no progress).
 */
static long lc_st_judge(const unsigned char *buf, size_t got, size_t size, uint32_t total,
			uint32_t window, unsigned char *seen, uint32_t *top, struct lc_st_counts *c)
{
	long seq = -1;

	if (got == size)
		seq = lc_st_ident(buf, size, *top, total - *top > window ? *top + window : total, total);
	if (seq < 0) {
		/* a corrupt message is counted once: as corrupt, in place of the next one */
		if (*top >= total)
			return -1;      /* nothing left to stand for: still counted corrupt */
		c->corrupt++;
		seen[*top] = 1;
		return (long)(*top)++;
	}
	if (seen[seq]) {
		c->duplicate++;
		return -1;
	}
	seen[seq] = 1;
	if ((uint32_t)seq + 1 < *top) {
		c->ooo++;
		return -1;
	}
	*top = (uint32_t)seq + 1;
	c->ok++;
	return seq;
}

/*
 * Wait for req at most ms milliseconds, yielding when idle: 0 (completed,
 * freed), 1 (still pending) or the request's error (freed).
 */
static int lc_st_wait_for(lc_node *node, lc_req *req, struct lc_status *st, unsigned ms)
{
	double end = lc_ex_now_s() + ms / 1e3;
	unsigned spins = 0;
	int done = 0, rc;

	for (;;) {
		rc = lc_test(node, req, &done, st);
		if (done || rc != 0)
			return rc;
		if (++spins % LC_ST_IDLE_POLLS == 0) {
			if (lc_ex_now_s() > end)
				return 1;
			sched_yield();
		}
	}
}

/* The verify receiver's ring of posted receives (node 1); it lives across sizes. */
struct lc_st_rx {
	lc_req **req;
	unsigned char *bufs;
	size_t slot;
	unsigned window, head, count, cap;
	unsigned long long posted, grand;       /* receives posted so far / messages of the run */
	size_t lo, hi;                          /* the sweep (-s lo:hi) */
	unsigned iters, warmup;                 /* -i, -w */
	int carry;                              /* a message of the next size ended the last one: */
	unsigned carry_slot;                    /* its slot */
	size_t carry_len;                       /* and length */
};

/* Messages of size in the run: its warm-up and timed windows. */
static uint32_t lc_st_total(const struct lc_st_rx *rx, size_t size)
{
	unsigned w_warm, w_timed = lc_ex_rounds(rx->iters, rx->warmup, size, 2, 1, &w_warm);

	return (w_warm + w_timed) * rx->window;
}

/*
 * A message of got bytes while node 1 receives size ones (a stall longer than
 * the tail bound moved the nodes apart): -1 when it is an intact message of an
 * earlier size of the sweep (late: counted lost at its size), 1 when it is one
 * of the next size (node 0 went on: this size is over), 0 when no size explains
 * it (corrupt).
 */
static int lc_st_other_size(const struct lc_st_rx *rx, const unsigned char *buf, size_t got, size_t size)
{
	size_t next = lc_ex_sweep_next(size, rx->lo, rx->hi);
	uint32_t total;

	if (got == next) {
		total = lc_st_total(rx, got);
		return lc_st_ident(buf, got, 0, total, total) >= 0;
	}
	for (size_t s = rx->lo; s < size; s = lc_ex_sweep_next(s, rx->lo, rx->hi))
		if (s == got) {
			total = lc_st_total(rx, got);
			return lc_st_ident(buf, got, 0, total, total) >= 0 ? -1 : 0;
		}
	return 0;
}

/* Post receives until the ring holds cap (or every message of the run has one). */
static int lc_st_refill(lc_node *node, struct lc_st_rx *rx)
{
	while (rx->count < rx->cap && rx->posted < rx->grand) {
		unsigned j = (rx->head + rx->count) % rx->window;
		int rc = lc_irecv(node, 0, rx->bufs + (size_t)j * rx->slot, rx->slot, &rx->req[j]);
		if (rc == LC_ERR_AGAIN) {
			/* fewer requests than the window: keep one free for the ack */
			rx->cap = rx->count > 1 ? rx->count - 1 : 1;
			return 0;
		}
		if (rc != 0)
			return lc_ex_fail(node, "irecv", rc);
		rx->count++;
		rx->posted++;
	}
	return 0;
}

/* Tell node 0 a window is over; a lost or unsendable ack is node 0's bounded wait. */
static int lc_st_ack(lc_node *node)
{
	unsigned char ack = 0;
	int rc = lc_send(node, 0, &ack, 1);

	if (rc == LC_ERR_PEER_DEAD)
		lc_st_gone = 1;
	if (rc != 0 && rc != LC_ERR_LOST && rc != LC_ERR_PEER_DEAD && rc != LC_ERR_AGAIN)
		return lc_ex_fail(node, "send (ack)", rc);
	return 0;
}

/*
 * Judge one message of node 1's ring (verify) and ack its window when it ends
 * one (or a later one began: node 0 went on without the ack).  0, or 1 after
 * printing the error.
 */
static int lc_st_take(lc_node *node, const struct lc_st_rx *rx, const unsigned char *buf, size_t got,
		      size_t size, uint32_t total, uint32_t *top, uint32_t *w, unsigned char *seen,
		      struct lc_st_counts *c)
{
	uint32_t nwin = total / rx->window;
	long seq = lc_st_judge(buf, got, size, total, rx->window, seen, top, c);
	int rc;

	if (seq < 0)
		return 0;
	while (*w < nwin && (uint32_t)seq >= (*w + 1) * rx->window)
		(*w)++;
	if (*w < nwin && (uint32_t)seq + 1 == (*w + 1) * rx->window) {
		if ((rc = lc_st_ack(node)) != 0)
			return rc;
		(*w)++;
	}
	return 0;
}

/*
 * Receive and judge every message of one size (verify, node 1), acking each
 * window.  0, or 1 after printing the error.
 */
static int lc_st_rx_size(lc_node *node, struct lc_st_rx *rx, size_t size, uint32_t total,
			 unsigned tail_ms, unsigned char *seen, struct lc_st_counts *c)
{
	uint32_t top = 0, w = 0, nwin = total / rx->window;
	double last = lc_ex_now_s();
	unsigned spins = 0;
	int rc;

	/* the message that ended the last size: the first of this one (before its slot is posted again) */
	if (rx->carry) {
		rx->carry = 0;
		if ((rc = lc_st_take(node, rx, rx->bufs + (size_t)rx->carry_slot * rx->slot, rx->carry_len, size,
				     total, &top, &w, seen, c)) != 0)
			return rc;
	}
	while (w < nwin && !lc_st_gone) {
		int done = 0;
		if ((rc = lc_st_refill(node, rx)) != 0)
			return rc;
		struct lc_status st = { 0 };
		unsigned j = rx->head;
		if (rx->count)
			rc = lc_test(node, rx->req[j], &done, &st);
		if (!done && rc == 0) {
			if (++spins % LC_ST_IDLE_POLLS)
				continue;
			sched_yield();
			if (lc_ex_now_s() - last < tail_ms / 1e3)
				continue;
			/* nothing for the tail bound: the rest of this window is lost; unless
			 * nothing of it came, when node 0 still waits for the last ack (lost):
			 * send it again (a spare ack only lets node 0 run one window ahead) */
			if ((rc = lc_st_ack(node)) != 0)
				return rc;
			if (top > w * rx->window)
				w++;
			last = lc_ex_now_s();
			continue;
		}
		rx->head = (rx->head + 1) % rx->window;
		rx->count--;
		spins = 0;
		last = lc_ex_now_s();
		/* a stalled partial message also reads as PEER_DEAD: gone only when it lasts */
		if (rc == LC_ERR_PEER_DEAD)
			lc_st_gone = ++lc_st_dead_in_row >= 64;
		else
			lc_st_dead_in_row = 0;
		if (rc == LC_ERR_LOST || rc == LC_ERR_PEER_DEAD)
			continue;       /* never seen: lost */
		if (rc != 0)
			return lc_ex_fail(node, "wait (recv)", rc);
		const unsigned char *buf = rx->bufs + (size_t)j * rx->slot;
		int other = st.len != size ? lc_st_other_size(rx, buf, st.len, size) : 0;
		if (other < 0) {
			c->late++;
			continue;
		}
		if (other > 0) {
			rx->carry = 1;
			rx->carry_slot = j;
			rx->carry_len = st.len;
			return 0;
		}
		if ((rc = lc_st_take(node, rx, buf, st.len, size, total, &top, &w, seen, c)) != 0)
			return rc;
	}
	return 0;
}

/* Wait for one receive and check it (no verify): 0, or 1 after printing the error. */
static int lc_st_finish(lc_node *node, lc_req *req, const unsigned char *buf, size_t size,
			uint32_t expect, uint32_t total, unsigned char *seen, uint32_t *top,
			struct lc_st_counts *c)
{
	struct lc_status st;
	int rc = lc_wait(node, req, &st);

	if (rc != 0)
		return lc_ex_fail(node, "wait (recv)", rc);
	lc_st_check(buf, st.len, size, expect, total, seen, top, c);
	return 0;
}

static const char lc_st_usage[] =
	"usage: commrun -n 2 stream [-s min:max] [-i windows] [-w warmup] [--window W] [--verify] "
	"[--tail-ms MS]\n"
	"  sizes take K/M suffixes; default -s 1:4M -i 100 -w 10 --window 64\n";

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 1, .hi = 4u << 20, .iters = 100, .warmup = 10, .window = 64,
				.tail_ms = LC_ST_TAIL_MS };
	int rc = lc_ex_options(argc, argv, LC_EX_OPT_WINDOW | LC_EX_OPT_VERIFY, &o, lc_st_usage);
	if (rc != 0)
		return rc;
	size_t lo = o.lo, hi = o.hi;
	unsigned iters = o.iters, warmup = o.warmup, window = o.window, tail_ms = o.tail_ms;
	int verify = o.verify;

	lc_node *node;
	if ((rc = lc_ex_open(&node, 1)) != 0)
		return rc;
	int me = lc_rank(node);
	size_t slot = hi ? hi : 1;
	unsigned char *bufs = malloc(slot * window);
	uint32_t *slot_sum = calloc(window, sizeof *slot_sum);
	lc_req **req = calloc(window, sizeof *req);
	lc_req *ack_req = NULL;                         /* verify: node 0's ack receive still posted */
	unsigned char ack_buf = 0;                      /* verify: what it receives into */
	if (!bufs || !slot_sum || !req) {
		fprintf(stderr, "stream: out of memory for %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0)
		lc_ex_header(window, verify ? ", verify" : "", "Bandwidth (MB/s)  Messages/s");

	struct lc_st_counts cnt = { 0 };
	struct lc_st_rx rx = { .req = req, .bufs = bufs, .slot = slot, .window = window, .cap = window,
			       .lo = lo, .hi = hi, .iters = iters, .warmup = warmup };
	unsigned long long acks_missed = 0;     /* verify, node 0: window acks not come in time */
	for (size_t size = lo; size <= hi; size = lc_ex_sweep_next(size, lo, hi))
		rx.grand += lc_st_total(&rx, size);
	for (size_t size = lo; size <= hi; size = lc_ex_sweep_next(size, lo, hi)) {
		/* fewer windows as messages grow (OSU's large-message loop): at 4 MiB one window
		 * is already 256 MiB, so two timed windows bound the cost of the largest sizes */
		unsigned w_warm, w_timed = lc_ex_rounds(iters, warmup, size, 2, 1, &w_warm);
		uint32_t total = lc_st_total(&rx, size);
		unsigned char *seen = NULL;
		uint32_t top = 0;
		double t0 = 0;

		if (me == 0 && !verify && size >= LC_EX_HDR_BYTES) {
			for (unsigned j = 0; j < window; j++) {
				unsigned char *b = bufs + j * slot;
				lc_ex_fill(b + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES, lc_ex_seed(size, j));
				slot_sum[j] = lc_ex_sum(b + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES);
			}
		}
		if (me == 1) {
			seen = calloc(total, 1);
			if (!seen) {
				fprintf(stderr, "stream: out of memory\n");
				return 1;
			}
			cnt.total += total;
		}
		if (me == 1 && verify && (rc = lc_st_rx_size(node, &rx, size, total, tail_ms, seen, &cnt)) != 0)
			return rc;
		for (unsigned w = 0; w < w_warm + w_timed && !(me == 1 && verify); w++) {
			unsigned char ack = 0;
			if (w == w_warm)
				t0 = lc_ex_now_s();
			if (me == 0) {
				unsigned first = 0;     /* oldest send not waited for */
				for (unsigned j = 0; j < window; j++) {
					unsigned char *b = bufs + j * slot;
					lc_st_make(b, size, w * window + j, verify, &slot_sum[j]);
					/* a config with fewer requests than the window: finish the oldest */
					while ((rc = lc_isend(node, 1, b, size, &req[j])) == LC_ERR_AGAIN &&
					       first < j)
						if ((rc = lc_wait(node, req[first++], NULL)) != 0 &&
						    !(verify && rc == LC_ERR_LOST))
							return lc_ex_fail(node, "wait (send)", rc);
					if (rc != 0)
						return lc_ex_fail(node, "isend", rc);
				}
				for (unsigned j = first; j < window; j++)
					if ((rc = lc_wait(node, req[j], NULL)) != 0 &&
					    !(verify && rc == LC_ERR_LOST))
						return lc_ex_fail(node, "wait (send)", rc);
				if (!verify) {
					if ((rc = lc_recv(node, 1, &ack, 1, NULL)) != 0)
						return lc_ex_fail(node, "recv (ack)", rc);
				} else {
					/* a lost ack: go on, the receive stays posted for the next one */
					if (!ack_req && (rc = lc_irecv(node, 1, &ack_buf, 1, &ack_req)) != 0)
						return lc_ex_fail(node, "irecv (ack)", rc);
					rc = lc_st_wait_for(node, ack_req, NULL, 2 * tail_ms);
					if (rc != 1)
						ack_req = NULL;
					else
						acks_missed++;
					if (rc < 0 && rc != LC_ERR_LOST)
						return lc_ex_fail(node, "recv (ack)", rc);
				}
			} else {
				unsigned first = 0;     /* oldest receive not waited for */
				for (unsigned j = 0; j < window; j++) {
					/* a config with fewer requests than the window: finish the oldest */
					while ((rc = lc_irecv(node, 0, bufs + j * slot, size, &req[j])) ==
						       LC_ERR_AGAIN && first < j) {
						if ((rc = lc_st_finish(node, req[first], bufs + first * slot, size,
								       w * window + first, total, seen, &top,
								       &cnt)) != 0)
							return rc;
						first++;
					}
					if (rc != 0)
						return lc_ex_fail(node, "irecv", rc);
				}
				for (; first < window; first++)
					if ((rc = lc_st_finish(node, req[first], bufs + first * slot, size,
							       w * window + first, total, seen, &top, &cnt)) != 0)
						return rc;
				if ((rc = lc_send(node, 0, &ack, 1)) != 0)
					return lc_ex_fail(node, "send (ack)", rc);
			}
		}
		double dt = lc_ex_now_s() - t0;
		if (me == 0) {
			lc_ex_row_rate(size, (double)w_timed * window, dt);
		} else {
			for (uint32_t s = 0; s < total; s++)
				cnt.lost += !seen[s];
			free(seen);
			if (!verify && (cnt.corrupt || cnt.duplicate || cnt.ooo || cnt.lost)) {
				fprintf(stderr, "stream: node 1: size %zu: %llu corrupt, %llu duplicate, "
						"%llu out-of-order, %llu lost\n", size, cnt.corrupt,
					cnt.duplicate, cnt.ooo, cnt.lost);
				return 1;
			}
		}
	}
	int bad = 0;
	if (verify && me == 0) {
		/* node 1 may still be receiving: leave after its last word, bye = 1 (bounded; a
		 * window ack still posted for takes whatever comes first) */
		double end = lc_ex_now_s() + 4 * tail_ms / 1e3;
		ack_buf = 0;
		while (ack_buf != 1 && lc_ex_now_s() < end) {
			if (!ack_req && lc_irecv(node, 1, &ack_buf, 1, &ack_req) != 0)
				break;
			rc = lc_st_wait_for(node, ack_req, NULL, 4 * tail_ms);
			if (rc == 1)
				break;
			ack_req = NULL;
			if (rc != 0 && rc != LC_ERR_LOST)
				break;
		}
		if (acks_missed) {
			printf("# verify: %llu window acks did not come within %u ms (lost acks or "
			       "lost last messages)\n", acks_missed, 2 * tail_ms);
			fflush(stdout);
		}
	} else if (verify && !lc_st_gone) {
		unsigned char bye = 1;
		lc_send(node, 0, &bye, 1);
	}
	if (me == 1) {
		bad = cnt.corrupt || cnt.duplicate || cnt.ooo || cnt.lost;
		if (verify) {
			printf("verified %llu/%llu messages, %llu corrupt, %llu duplicate, "
			       "%llu out-of-order, %llu lost, %llu late\n", cnt.ok, cnt.total, cnt.corrupt,
			       cnt.duplicate, cnt.ooo, cnt.lost, cnt.late);
			fflush(stdout);
		}
	}
	/* pending receives (verify) still point into bufs until the node is closed */
	rc = lc_ex_close(node);
	free(bufs);
	free(slot_sum);
	free(req);
	return rc ? rc : bad;
}
