/* SPDX-License-Identifier: MIT */
/* Channel member Stream: an in-order, flow-controlled byte stream per (sender, receiver) pair. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "epos_impl.h"

#if LC_EPOS_CHANNEL_STREAM

/*
 * Segments and credit.  A send cuts its bytes into segments, each one libcomm
 * message (kind DATA, the pair's ports in the match word), no larger than the
 * window the receiver left the sender: at most EPOS_STREAM_WINDOW bytes of a
 * pair are sent and not yet consumed.  The receiver appends each segment to
 * the pair's ring (which therefore never overflows) and a receive copies out
 * up to cap bytes of one pair's ring; boundaries are gone.  Every
 * EPOS_STREAM_WINDOW / 2 bytes consumed, the receiver sends a CREDIT message
 * carrying the pair's total consumed count; the sender's limit is that count
 * plus the window.  A sender whose window is used up waits for a credit (in
 * lc_recv_match, which drives progress).  Order comes from libcomm's
 * per-source order (one pair = one source node, one match word); loss is
 * the reliability protocol's, which the config composes with the stream.
 * Two end-points that both send more than a window to each other before
 * receiving wait for each other, as with any flow-controlled stream.
 */
#define EPOS_STREAM_CREDIT_EVERY (EPOS_STREAM_WINDOW / 2)
_Static_assert((EPOS_STREAM_WINDOW & (EPOS_STREAM_WINDOW - 1)) == 0, "window: a power of two");

struct epos_tx_flow {
	struct epos_addr dst;
	uint64_t sent;    /* bytes sent on the pair */
	uint64_t limit;   /* consumed (last credit) + window */
};

struct epos_rx_flow {
	int node;
	uint32_t sport;
	uint64_t consumed, credited;
	uint32_t head, tail; /* free-running, masked on access */
	unsigned char ring[EPOS_STREAM_WINDOW];
};

struct epos_stream {
	pthread_mutex_t tx_lock, rx_lock;
	struct epos_tx_flow *tx;
	size_t ntx, cap_tx;
	struct epos_rx_flow **rx;
	size_t nrx, cap_rx, next_rx;
	unsigned char seg[EPOS_STREAM_WINDOW];
};

int epos_stream_open(epos_comm *c)
{
	struct epos_stream *s = calloc(1, sizeof *s);
	if (!s)
		return epos_fail(EPOS_ERR_NOMEM, "epos_comm_open: stream state");
	pthread_mutex_init(&s->tx_lock, NULL);
	pthread_mutex_init(&s->rx_lock, NULL);
	c->channel = s;
	return 0;
}

void epos_stream_close(epos_comm *c)
{
	struct epos_stream *s = c->channel;
	if (!s)
		return;
	for (size_t i = 0; i < s->nrx; i++)
		free(s->rx[i]);
	free(s->rx);
	free(s->tx);
	pthread_mutex_destroy(&s->tx_lock);
	pthread_mutex_destroy(&s->rx_lock);
	free(s);
	c->channel = NULL;
}

static struct epos_tx_flow *epos_stream_tx_flow(struct epos_stream *s, const struct epos_addr *dst)
{
	for (size_t i = 0; i < s->ntx; i++)
		if (s->tx[i].dst.node == dst->node && s->tx[i].dst.port == dst->port)
			return &s->tx[i];
	if (s->ntx == s->cap_tx) {
		size_t n = s->cap_tx ? 2 * s->cap_tx : 4;
		struct epos_tx_flow *t = realloc(s->tx, n * sizeof *t);
		if (!t)
			return NULL;
		s->tx = t;
		s->cap_tx = n;
	}
	struct epos_tx_flow *f = &s->tx[s->ntx++];
	f->dst = *dst;
	f->sent = 0;
	f->limit = EPOS_STREAM_WINDOW;
	return f;
}

/* Take the pair's credits: every one waiting (block 0), or at least one (block 1). */
static int epos_stream_credits(epos_comm *c, struct epos_tx_flow *f, bool block)
{
	uint64_t match = EPOS_MATCH(EPOS_KIND_CREDIT, f->dst.port, c->port);
	for (;;) {
		uint64_t consumed;
		struct lc_status st;
		if (!block) {
			int flag = 0;
			int lrc = lc_iprobe(c->node, f->dst.node, match, EPOS_MASK_PAIR, &flag, &st);
			if (lrc)
				return epos_fail_lc(lrc, "epos_comm_send: lc_iprobe");
			if (!flag)
				return 0;
		}
		int rc = epos_lc_receive(c, f->dst.node, match, EPOS_MASK_PAIR, &consumed,
					 sizeof consumed, &st, true);
		if (rc < 0)
			return rc;
		if (rc == 1 || st.len != sizeof consumed)
			return epos_fail(EPOS_ERR_COMM, "epos_comm_send: credit of %zu bytes", st.len);
		if (consumed + EPOS_STREAM_WINDOW > f->limit)
			f->limit = consumed + EPOS_STREAM_WINDOW;
		block = false;
	}
}

int epos_stream_send(epos_comm *c, const struct epos_addr *dst, const void *buf, size_t len)
{
	struct epos_stream *s = c->channel;
	int rc = 0;
	pthread_mutex_lock(&s->tx_lock);
	struct epos_tx_flow *f = epos_stream_tx_flow(s, dst);
	if (!f) {
		rc = epos_fail(EPOS_ERR_NOMEM, "epos_comm_send: stream to %d:%u", dst->node, dst->port);
		goto out;
	}
	if ((rc = epos_stream_credits(c, f, false)) != 0)
		goto out;
	const unsigned char *p = buf;
	uint64_t match = EPOS_MATCH(EPOS_KIND_DATA, c->port, dst->port);
	while (len > 0) {
		uint64_t room = f->limit - f->sent;
		if (room == 0) {
			if ((rc = epos_stream_credits(c, f, true)) != 0)
				goto out;
			continue;
		}
		size_t n = len < room ? len : (size_t)room;
		int lrc = lc_send_match(c->node, dst->node, match, p, n);
		if (lrc) {
			rc = epos_fail_lc(lrc, "epos_comm_send: lc_send_match");
			goto out;
		}
		f->sent += n;
		p += n;
		len -= n;
	}
out:
	pthread_mutex_unlock(&s->tx_lock);
	return rc;
}

static struct epos_rx_flow *epos_stream_rx_flow(struct epos_stream *s, int node, uint32_t sport)
{
	for (size_t i = 0; i < s->nrx; i++)
		if (s->rx[i]->node == node && s->rx[i]->sport == sport)
			return s->rx[i];
	if (s->nrx == s->cap_rx) {
		size_t n = s->cap_rx ? 2 * s->cap_rx : 4;
		struct epos_rx_flow **t = realloc(s->rx, n * sizeof *t);
		if (!t)
			return NULL;
		s->rx = t;
		s->cap_rx = n;
	}
	struct epos_rx_flow *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->node = node;
	f->sport = sport;
	s->rx[s->nrx++] = f;
	return f;
}

/* The next pair (round robin) with bytes buffered, or NULL. */
static struct epos_rx_flow *epos_stream_buffered(struct epos_stream *s)
{
	for (size_t k = 0; k < s->nrx; k++) {
		size_t i = (s->next_rx + k) % s->nrx;
		if (s->rx[i]->head != s->rx[i]->tail) {
			s->next_rx = i + 1;
			return s->rx[i];
		}
	}
	return NULL;
}

/* Copy up to cap bytes out of f's ring; credit the sender every half window consumed. */
static int epos_stream_take(epos_comm *c, struct epos_rx_flow *f, void *buf, size_t cap,
			    size_t *len, struct epos_addr *from)
{
	size_t n = f->head - f->tail, done = 0;
	if (n > cap)
		n = cap;
	while (done < n) {
		size_t at = f->tail & (EPOS_STREAM_WINDOW - 1), run = EPOS_STREAM_WINDOW - at;
		if (run > n - done)
			run = n - done;
		memcpy((unsigned char *)buf + done, f->ring + at, run);
		done += run;
		f->tail += (uint32_t)run;
	}
	f->consumed += n;
	*len = n;
	if (from) {
		from->node = f->node;
		from->port = f->sport;
	}
	if (f->consumed - f->credited >= EPOS_STREAM_CREDIT_EVERY) {
		uint64_t consumed = f->consumed;
		int lrc = lc_send_match(c->node, f->node, EPOS_MATCH(EPOS_KIND_CREDIT, c->port, f->sport),
					&consumed, sizeof consumed);
		/* a sender that left needs no credit */
		if (lrc && lrc != LC_ERR_PEER_DEAD)
			return epos_fail_lc(lrc, "epos_comm_receive: credit");
		f->credited = consumed;
	}
	return 0;
}

int epos_stream_receive(epos_comm *c, void *buf, size_t cap, size_t *len, struct epos_addr *from,
			bool block)
{
	struct epos_stream *s = c->channel;
	int src, rc;
	uint64_t match, mask;
	if (LC_EPOS_COMMUNICATOR_MAILBOX) {
		/*
		 * Many receiving threads: none may wait holding the lock (a
		 * try_receive would wait behind it), so a blocking receive is a
		 * loop of non-blocking ones, and a non-blocking one that finds
		 * another thread receiving reports nothing (EPOS_ERR_AGAIN).
		 */
		if (block) {
			for (unsigned spin = 0;;) {
				rc = epos_stream_receive(c, buf, cap, len, from, false);
				if (rc != EPOS_ERR_AGAIN)
					return rc;
				(void)lc_idle(c->node, &spin, 1);
			}
		}
		if (pthread_mutex_trylock(&s->rx_lock) != 0)
			return EPOS_ERR_AGAIN;
	} else {
		pthread_mutex_lock(&s->rx_lock);
	}
	EPOS_COMMUNICATOR(rx_filter)(c, &src, &match, &mask);
	struct epos_rx_flow *f;
	while ((f = epos_stream_buffered(s)) == NULL) {
		struct lc_status st;
		rc = epos_lc_receive(c, src, match, mask, s->seg, sizeof s->seg, &st, block);
		if (rc < 0)
			goto out;
		if (rc == 1) {
			rc = epos_fail(EPOS_ERR_COMM, "epos_comm_receive: segment of %zu bytes above the window",
				       st.len);
			goto out;
		}
		f = epos_stream_rx_flow(s, st.src, EPOS_MATCH_SPORT(st.match));
		if (!f) {
			rc = epos_fail(EPOS_ERR_NOMEM, "epos_comm_receive: stream from %d", st.src);
			goto out;
		}
		if (st.len > EPOS_STREAM_WINDOW - (size_t)(f->head - f->tail)) {
			rc = epos_fail(EPOS_ERR_COMM, "epos_comm_receive: %d:%u sent beyond its window",
				       st.src, f->sport);
			goto out;
		}
		for (size_t done = 0; done < st.len;) {
			size_t at = f->head & (EPOS_STREAM_WINDOW - 1), run = EPOS_STREAM_WINDOW - at;
			if (run > st.len - done)
				run = st.len - done;
			memcpy(f->ring + at, s->seg + done, run);
			done += run;
			f->head += (uint32_t)run;
		}
	}
	rc = epos_stream_take(c, f, buf, cap, len, from);
out:
	pthread_mutex_unlock(&s->rx_lock);
	return rc;
}

int epos_stream_ready(epos_comm *c, int *flag)
{
	struct epos_stream *s = c->channel;
	*flag = 0;
	if (pthread_mutex_trylock(&s->rx_lock) != 0)
		return 0; /* another thread is receiving */
	bool any = epos_stream_buffered(s) != NULL;
	pthread_mutex_unlock(&s->rx_lock);
	if (any) {
		*flag = 1;
		return 0;
	}
	return epos_probe_data(c, flag);
}

#endif /* LC_EPOS_CHANNEL_STREAM */
