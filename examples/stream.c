/* SPDX-License-Identifier: MIT */
/* stream: windowed one-way bandwidth from node 0 to node 1, every message checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_ex_pattern.h"

/*
 * Usage: commrun -n 2 stream [-s min:max] [-i windows] [-w warmup] [--window W] [--verify]
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
 *   verified N/N messages, C corrupt, D duplicate, O out-of-order, L lost
 * Messages below 16 bytes are the pattern of their expected sequence number,
 * checked byte by byte (a mismatch counts as corrupt).  Without --verify the
 * payload after the header is filled once per slot and not re-summed, so the
 * measurement is not dominated by the check.  Exit status 1 on any error.
 *
 * With --verify a lossy network (commrun --faults, no reliability) does not
 * stop the run: each receive (and node 0's wait for the ack) is waited for at
 * most LC_ST_WAIT_MS (LC_ST_WAIT_NEXT_MS after a miss in the same window;
 * no bound in a config with reliability, which loses nothing);
 * a receive still pending stays posted and takes the slot's next message
 * (judged by its header), failed sends and receives (LC_ERR_LOST) are
 * counted by what never arrived, and a message never seen is lost; once the
 * sender has left (LC_ERR_PEER_DEAD) node 1 stops waiting.
 */

#if LC_PROTO_RELIABILITY
/* reliability delivers every message: a late one is only late (commrun --timeout bounds a hang) */
#define LC_ST_WAIT_MS 3600000u
#define LC_ST_WAIT_NEXT_MS 3600000u
#else
#define LC_ST_WAIT_MS 20u
#define LC_ST_WAIT_NEXT_MS 2u
#endif

/* verify: the sender left (LC_ERR_PEER_DEAD): what did not arrive is lost, no more waiting */
static int lc_st_gone;
static unsigned lc_st_dead_in_row;

struct lc_st_counts {
	unsigned long long total, ok, corrupt, duplicate, ooo, lost;
};

static double lc_st_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned lc_st_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

static int lc_st_fail(lc_node *node, const char *what, int rc)
{
	fprintf(stderr, "stream: node %d: %s: %s (%s)\n", lc_rank(node), what, lc_strerror(rc),
		lc_last_error(node));
	return 1;
}

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
 * Classify one received message (receiver side).  seen[] marks the sequence
 * numbers of this size already received; *top is one above the highest.
 */
static void lc_st_judge(const unsigned char *buf, size_t got, size_t size, uint32_t expect,
			uint32_t total, int verify, unsigned char *seen, uint32_t *top,
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
	if (h.hsum != lc_ex_hdr_sum(&h) || h.len != size || h.seq >= total ||
	    (verify && lc_ex_sum(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES) != h.sum)) {
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
 * Wait for req at most ms milliseconds: 0 (completed, freed), 1 (still
 * pending) or the request's error (freed).
 */
static int lc_st_wait_for(lc_node *node, lc_req *req, struct lc_status *st, unsigned ms)
{
	double end = lc_st_now_s() + ms / 1e3;
	unsigned spins = 0;
	int done = 0, rc;

	for (;;) {
		rc = lc_test(node, req, &done, st);
		if (done || rc != 0)
			return rc;
		if ((++spins & 255) == 0 && lc_st_now_s() > end)
			return 1;
	}
}

/*
 * Wait for one receive and judge its message. 0, or 1 after printing the
 * error.  With verify (*pending: the request stays posted) the wait is
 * bounded and a lost receive is not an error: what never arrives is lost.
 */
static int lc_st_finish(lc_node *node, lc_req *req, const unsigned char *buf, size_t size,
			uint32_t expect, uint32_t total, int verify, unsigned char *seen, uint32_t *top,
			struct lc_st_counts *c, unsigned char *pending, int *missed)
{
	struct lc_status st;
	int rc;

	if (!verify) {
		rc = lc_wait(node, req, &st);
		if (rc != 0)
			return lc_st_fail(node, "wait (recv)", rc);
	} else {
		rc = lc_st_wait_for(node, req, &st, *missed ? LC_ST_WAIT_NEXT_MS : LC_ST_WAIT_MS);
		*pending = rc == 1;
		if (rc == 1) {
			*missed = 1;
			return 0;
		}
		/* a stalled partial message also reads as PEER_DEAD: gone only when it lasts */
		if (rc == LC_ERR_PEER_DEAD)
			lc_st_gone = ++lc_st_dead_in_row >= 64;
		else
			lc_st_dead_in_row = 0;
		if (rc == LC_ERR_LOST || rc == LC_ERR_PEER_DEAD)
			return 0;
		if (rc != 0)
			return lc_st_fail(node, "wait (recv)", rc);
	}
	lc_st_judge(buf, st.len, size, expect, total, verify, seen, top, c);
	return 0;
}

static void lc_st_usage(void)
{
	fprintf(stderr, "usage: commrun -n 2 stream [-s min:max] [-i windows] [-w warmup] "
			"[--window W] [--verify]\n"
			"  sizes take K/M suffixes; default -s 1:4M -i 100 -w 10 --window 64\n");
}

int main(int argc, char **argv)
{
	size_t lo = 1, hi = 4u << 20;
	unsigned iters = 100, warmup = 10, window = 64;
	int verify = 0;

	for (int a = 1; a < argc; a++) {
		char *end = NULL;
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0) {
				fprintf(stderr, "stream: bad size range '%s'\n", argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
			window = (unsigned)strtoul(argv[++a], &end, 10);
		} else if (strcmp(argv[a], "--verify") == 0) {
			verify = 1;
		} else {
			lc_st_usage();
			return 2;
		}
		if (end && (*end || iters == 0 || window == 0 || window > 4096)) {
			fprintf(stderr, "stream: bad number '%s'\n", argv[a]);
			return 2;
		}
	}

	lc_node *node;
	int rc = lc_open(&node);
	if (rc != 0) {
		fprintf(stderr, "stream: lc_open: %s\n", lc_strerror(rc));
		return 1;
	}
	int me = lc_rank(node), n = lc_size(node);
	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "stream: needs exactly 2 nodes (commrun -n 2), got %d\n", n);
		lc_close(node);
		return 2;
	}
	size_t slot = hi ? hi : 1;
	unsigned char *bufs = malloc(slot * window);
	uint32_t *slot_sum = calloc(window, sizeof *slot_sum);
	lc_req **req = calloc(window, sizeof *req);
	unsigned char *pending = calloc(window, 1);     /* verify: req[j] still posted */
	lc_req *ack_req = NULL;                         /* verify: node 0's ack receive still posted */
	if (!bufs || !slot_sum || !req || !pending) {
		fprintf(stderr, "stream: out of memory for %u x %zu bytes\n", window, slot);
		return 1;
	}
	if (me == 0) {
		printf("# libcomm stream (config %s, window %u%s)\n", lc_config_name(), window,
		       verify ? ", verify" : "");
		printf("# Size  Bandwidth (MB/s)  Messages/s\n");
		fflush(stdout);
	}

	struct lc_st_counts cnt = { 0 };
	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		/* fewer windows as messages grow (OSU's large-message loop): at 4 MiB one window
		 * is already 256 MiB, so two timed windows bound the cost of the largest sizes */
		unsigned w_timed = lc_st_scaled(iters, size, 2);
		unsigned w_warm = lc_st_scaled(warmup, size, warmup ? 1 : 0);
		uint32_t total = (w_warm + w_timed) * window;
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
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			unsigned char ack = 0;
			if (w == w_warm)
				t0 = lc_st_now_s();
			if (me == 0) {
				unsigned first = 0;     /* oldest send not waited for */
				for (unsigned j = 0; j < window; j++) {
					unsigned char *b = bufs + j * slot;
					lc_st_make(b, size, w * window + j, verify, &slot_sum[j]);
					/* a config with fewer requests than the window: finish the oldest */
					while ((rc = lc_isend(node, 1, b, size, &req[j])) == LC_ERR_AGAIN &&
					       first < j)
						if ((rc = lc_wait(node, req[first++], NULL)) != 0)
							return lc_st_fail(node, "wait (send)", rc);
					if (rc != 0)
						return lc_st_fail(node, "isend", rc);
				}
				for (unsigned j = first; j < window; j++)
					if ((rc = lc_wait(node, req[j], NULL)) != 0 &&
					    !(verify && rc == LC_ERR_LOST))
						return lc_st_fail(node, "wait (send)", rc);
				if (!verify) {
					if ((rc = lc_recv(node, 1, &ack, 1, NULL)) != 0)
						return lc_st_fail(node, "recv (ack)", rc);
				} else {
					/* a lost ack: go on, the receive stays posted for the next one */
					if (!ack_req && (rc = lc_irecv(node, 1, &ack, 1, &ack_req)) != 0)
						return lc_st_fail(node, "irecv (ack)", rc);
					rc = lc_st_wait_for(node, ack_req, NULL, LC_ST_WAIT_MS);
					if (rc != 1)
						ack_req = NULL;
					if (rc < 0 && rc != LC_ERR_LOST)
						return lc_st_fail(node, "recv (ack)", rc);
				}
			} else {
				unsigned first = 0;     /* oldest receive not waited for */
				int missed = 0;         /* verify: a receive of this window timed out */
				if (lc_st_gone)
					continue;
				for (unsigned j = 0; j < window; j++) {
					if (pending[j])
						continue;       /* still posted: it takes the next message */
					/* a config with fewer requests than the window: finish the oldest.
					 * verify: the whole slot, as a receive left pending may take a
					 * message of the next size (judged corrupt, not truncated) */
					while ((rc = lc_irecv(node, 0, bufs + j * slot, verify ? slot : size,
							      &req[j])) ==
						       LC_ERR_AGAIN && first < j) {
						if (req[first] &&
						    (rc = lc_st_finish(node, req[first], bufs + first * slot, size,
								       w * window + first, total, verify, seen,
								       &top, &cnt, &pending[first], &missed)) != 0)
							return rc;
						first++;
					}
					if (rc == LC_ERR_AGAIN && verify) {
						/* receives left pending hold every request: this slot
						 * posts none this window (what it misses counts as lost) */
						req[j] = NULL;
						continue;
					}
					if (rc != 0)
						return lc_st_fail(node, "irecv", rc);
				}
				for (; first < window && !lc_st_gone; first++)
					if (req[first] &&
					    (rc = lc_st_finish(node, req[first], bufs + first * slot, size,
							       w * window + first, total, verify, seen, &top,
							       &cnt, &pending[first], &missed)) != 0)
						return rc;
				/* verify: an ack not sent (pending receives hold every request) is
				 * a lost ack for node 0, which goes on after its bounded wait */
				if (!lc_st_gone && (rc = lc_send(node, 0, &ack, 1)) != 0 &&
				    !(verify && (rc == LC_ERR_LOST || rc == LC_ERR_PEER_DEAD ||
						 rc == LC_ERR_AGAIN)))
					return lc_st_fail(node, "send (ack)", rc);
			}
		}
		double dt = lc_st_now_s() - t0;
		if (me == 0) {
			double msgs = (double)w_timed * window;
			printf("%-12zu%16.2f%14.0f\n", size, (double)size * msgs / dt / 1e6, msgs / dt);
			fflush(stdout);
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
		if (size == hi)
			break;
	}
	int bad = 0;
	if (verify && me == 0) {
		/* node 1 may still be receiving: leave after its last word (bounded) */
		unsigned char bye = 0;
		lc_req *bye_req = NULL;
		if (ack_req)
			lc_st_wait_for(node, ack_req, NULL, LC_ST_WAIT_MS);
		if (lc_irecv(node, 1, &bye, 1, &bye_req) == 0)
			lc_st_wait_for(node, bye_req, NULL, 10000);
	} else if (verify && !lc_st_gone) {
		unsigned char bye = 1;
		lc_send(node, 0, &bye, 1);
	}
	if (me == 1) {
		bad = cnt.corrupt || cnt.duplicate || cnt.ooo || cnt.lost;
		if (verify) {
			printf("verified %llu/%llu messages, %llu corrupt, %llu duplicate, "
			       "%llu out-of-order, %llu lost\n", cnt.ok, cnt.total, cnt.corrupt,
			       cnt.duplicate, cnt.ooo, cnt.lost);
			fflush(stdout);
		}
	}
	free(bufs);
	free(slot_sum);
	free(req);
	free(pending);
	rc = lc_close(node);
	if (rc != 0) {
		fprintf(stderr, "stream: lc_close: %s\n", lc_strerror(rc));
		return 1;
	}
	return bad;
}
