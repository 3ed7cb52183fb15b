/* SPDX-License-Identifier: MIT */
/* The EPOS script: end-points of the config's Communicator and Channel, opened, sent to, received, closed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "epos.h"
#include "fuzz_personality.h"

/*
 * A session: up to FZ_EP end-points of this process, named "e<k>", opened
 * with fuzzed names and peers (NULL, empty, too long, taken, unknown: a
 * link looks its peer up, and with no other node alive an unknown name is
 * EPOS_ERR_PEER at once), then sends between them and receives, waits,
 * closes and misuse (NULL, closed, not an end-point); then every message
 * received and every end-point closed.  A link sends only to its peer.
 * The model: per receiver, datagrams in send order (a receive takes the
 * oldest, whole, EPOS_ERR_TRUNC with the true size when it does not fit),
 * or per (sender, receiver) pair a byte stream (a receive hands out up to
 * cap bytes of one pair, in order); a stream send stays within the pair's
 * credit (the bytes received as of the receiver's last credit, sent every
 * half window, plus the window): beyond it it waits for the receiver, a
 * blocking call the harness does not make alone.  A sender remembers the
 * names it resolved (documented): what it sends to a name closed since
 * goes to a dead port, so the script does not send it.  Blocking receives and
 * waits without a timeout only when something is there.  The last close
 * closes the process's node, and a node attaches once per job: an open
 * after it fails with EPOS_ERR_COMM.
 */

#define FZ_EP 4
#define FZ_CHUNKS 32

static const size_t fz_lens[] = { 0, 1, 10, 1000, 8192, 9000, 20000 };
static const int64_t fz_timeouts[] = { 0, 10, 2000, -1 };

struct fz_chunk {               /* bytes sent from one end-point to another, not received yet */
	int from, to;
	size_t len, off;        /* off: received already (streams) */
	uint32_t seed;
	unsigned seq;
};

static struct {
	epos_comm *ep[FZ_EP];
	int peer[FZ_EP];        /* a link's peer (-1: none) */
	uint32_t port[FZ_EP];   /* each end-point's port (epos_comm_addr) */
	unsigned known[FZ_EP];  /* the names each one resolved (remembered, as documented) */
	unsigned stale[FZ_EP];  /* ... of end-points closed since: sends go to a dead port */
	/* streams, per (sender, receiver): bytes sent, received, and received as of the last credit */
	size_t sent[FZ_EP][FZ_EP], used[FZ_EP][FZ_EP], credit[FZ_EP][FZ_EP];
	epos_comm *closed;      /* a closed end-point (its shell answers EPOS_ERR_CLOSED) */
	struct fz_chunk ch[FZ_CHUNKS];
	int nch;
	int dgram, link;
	int gone;               /* the last end-point closed: so did the node, for good */
	size_t window;
	unsigned seq;
	uint32_t seed;
} e;

static void fz_rc(const char *call, int got, int want)
{
	if (got != want)
		fz_fail("%s: %d (%s), expected %d (%s); %s", call, got, epos_strerror(got), want,
			epos_strerror(want), epos_last_error());
}

static const char *fz_name(int k)
{
	static char names[FZ_EP][8];
	snprintf(names[k], sizeof names[k], "e%d", k);
	return names[k];
}

/* An end-point argument: a live one (*k its index) or NULL, closed, not one (*k -1). */
static epos_comm *fz_ep(struct fz_in *in, int *k)
{
	static uint64_t junk[32];
	unsigned b = fz_byte(in) % (FZ_EP + 3);

	*k = -1;
	if (b < FZ_EP && e.ep[b]) {
		*k = (int)b;
		return e.ep[b];
	}
	switch (b % 3) {
	case 0: return NULL;
	case 1: return e.closed;
	default: return (epos_comm *)junk;
	}
}

static int fz_ep_want(int k, epos_comm *c)
{
	return k >= 0 ? EPOS_OK : !c ? EPOS_ERR_INVAL : c == e.closed ? EPOS_ERR_CLOSED : EPOS_ERR_INVAL;
}

static int fz_has(int to)
{
	for (int i = 0; i < e.nch; i++)
		if (e.ch[i].to == to && (e.dgram || e.ch[i].len > e.ch[i].off))
			return 1;
	return 0;
}

static void fz_drop(int i)
{
	memmove(&e.ch[i], &e.ch[i + 1], (size_t)(e.nch - i - 1) * sizeof e.ch[0]);
	e.nch--;
}

static void op_open(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int k = (int)(fz_byte(in) % FZ_EP), p = (int)(fz_byte(in) % (FZ_EP + 4));
	char longname[LC_NAME_MAX + 4];
	epos_comm *c = NULL;
	const char *name = fz_name(k), *peer = NULL;

	memset(longname, 'l', sizeof longname - 1);
	longname[LC_NAME_MAX] = '\0';
	switch (how % 8) {
	case 0: name = NULL; break;
	case 1: name = ""; break;
	case 2: name = longname; break;
	default: break;
	}
	int pk = -1;
	if (p < FZ_EP) {
		peer = fz_name(p);
		/* its own name is registered before the lookup; -2: nobody's, no other node to wait for */
		pk = e.ep[p] || p == k ? p : -2;
	} else if (p == FZ_EP) {
		peer = NULL;
	} else if (p == FZ_EP + 1) {
		peer = "";
	} else if (p == FZ_EP + 2) {
		peer = longname;
	} else {
		peer = "nobody";
		pk = -2;
	}
	if ((how >> 3) % 16 == 0) {
		fz_rc("epos_comm_open(NULL)", epos_comm_open(NULL, name, peer), EPOS_ERR_INVAL);
		return;
	}
	int want = !name || !*name || name == longname ? EPOS_ERR_INVAL :
		   peer && (!*peer || peer == longname) ? EPOS_ERR_INVAL :
		   e.link && !peer ? EPOS_ERR_INVAL : e.ep[k] ? EPOS_ERR_NAME :
		   e.link && pk == -2 ? EPOS_ERR_PEER : EPOS_OK;
	if (e.gone && (!want || want == EPOS_ERR_PEER))
		want = EPOS_ERR_COMM;   /* the node comes before the peer's lookup */   /* a node closes once per job segment (lc_open refuses it again) */
	int rc = epos_comm_open(&c, name, peer);
	fz_rc("epos_comm_open", rc, want);
	if (rc) {
		/* one that failed after taking the node gave it back: the last one closed it */
		int open = 0;
		for (int j = 0; j < FZ_EP; j++)
			open |= e.ep[j] != NULL;
		e.gone |= !open && (want == EPOS_ERR_PEER || want == EPOS_ERR_COMM);
		return;
	}
	struct epos_addr a;
	fz_rc("epos_comm_addr", epos_comm_addr(c, &a), EPOS_OK);
	e.ep[k] = c;
	e.peer[k] = e.link ? pk : -1;
	e.port[k] = a.port;
	e.known[k] = e.link && pk >= 0 ? 1u << pk : 0;
	e.stale[k] = 0;
	for (int j = 0; j < FZ_EP; j++)         /* its pairs start afresh */
		e.sent[k][j] = e.used[k][j] = e.credit[k][j] = e.sent[j][k] = e.used[j][k] =
			e.credit[j][k] = 0;
}

static void op_send(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int k, to = (int)(fz_byte(in) % (FZ_EP + 2));
	epos_comm *c = fz_ep(in, &k);
	size_t len = fz_lens[fz_byte(in) % FZ_N(fz_lens)];
	const char *name = to < FZ_EP ? fz_name(to) : to == FZ_EP ? NULL : "nobody";
	int null = (how >> 1) % 8 == 0;
	uint32_t seed = e.seed++;

	int want = fz_ep_want(k, c);
	if (!want && null && len)
		want = EPOS_ERR_INVAL;
	if (!want && e.link) {
		/* a link sends to its peer: "to" NULL or the peer's name */
		if (to == FZ_EP)
			to = e.peer[k];
		else if (to != e.peer[k])
			want = EPOS_ERR_NOT_PEER;
	}
	if (!want && to >= 0 && to < FZ_EP && (e.stale[k] >> to & 1))
		return;         /* remembered, closed since: it goes to a dead port, unseen */
	if (!want && (to < 0 || to >= FZ_EP || !e.ep[to]))
		want = to == FZ_EP ? EPOS_ERR_INVAL : EPOS_ERR_PEER;
	uint8_t *buf = null ? NULL : malloc(len ? len : 1);
	if (buf)
		fz_fill(buf, len, seed);
	if (want) {
		int rc = epos_comm_send(c, name, buf, len);
		/* a name nobody registered: the lookup finds every other node gone */
		if (!(want == EPOS_ERR_PEER && rc == EPOS_ERR_NAME && to >= FZ_EP))
			fz_rc("epos_comm_send", rc, want);
		free(buf);
		return;
	}
	/* a link receives from its peer only: what another sends it would never be received */
	if (e.nch == FZ_CHUNKS || (!e.dgram && e.sent[k][to] + len > e.credit[k][to] + e.window) ||
	    (e.link && e.peer[to] != k)) {
		free(buf);
		return;         /* beyond the window it waits for the receiver */
	}
	fz_rc("epos_comm_send", epos_comm_send(c, e.link && (how & 1) ? NULL : fz_name(to), buf, len),
	      EPOS_OK);
	e.known[k] |= 1u << to;
	e.sent[k][to] += len;
	if (buf && fz_check(buf, len, seed) != len)
		fz_fail("epos_comm_send changed its buffer");
	free(buf);
	if (!e.dgram && len == 0)
		return;         /* nothing in the stream */
	e.ch[e.nch++] = (struct fz_chunk){ k, to, len, 0, seed, e.seq++ };
}

/* A receive of end-point k gave rc, n bytes from `from` into buf (cap). */
static void fz_check_recv(const char *call, int k, int rc, const uint8_t *buf, size_t cap, size_t n,
			  const struct epos_addr *from, int with_from)
{
	int i = -1;
	if (e.dgram) {
		for (int j = 0; j < e.nch && i < 0; j++)
			if (e.ch[j].to == k)
				i = j;
	} else {
		/* the pair it came from: the sender whose port it names (else the oldest) */
		for (int j = 0; j < e.nch && i < 0; j++)
			if (e.ch[j].to == k && e.ch[j].off < e.ch[j].len &&
			    (!with_from || e.port[e.ch[j].from] == from->port))
				i = j;
	}
	if (i < 0)
		fz_fail("%s: something arrived that was never sent", call);
	struct fz_chunk *ch = &e.ch[i];
	if (e.dgram) {
		fz_rc(call, rc, ch->len > cap ? EPOS_ERR_TRUNC : EPOS_OK);
		size_t got = ch->len < cap ? ch->len : cap;
		if (n != ch->len)
			fz_fail("%s: length %zu, the datagram had %zu", call, n, ch->len);
		if (buf && fz_check(buf, got, ch->seed) != got)
			fz_fail("%s: the datagram's bytes differ", call);
		fz_drop(i);
		return;
	}
	fz_rc(call, rc, EPOS_OK);
	if (n == 0 || n > cap)
		fz_fail("%s: %zu bytes for a buffer of %zu", call, n, cap);
	/* n bytes of this pair's stream, across its chunks in order */
	int from_k = ch->from;
	size_t done = 0;
	for (int j = 0; j < e.nch && done < n;) {
		struct fz_chunk *c = &e.ch[j];
		if (c->to != k || c->from != from_k) {
			j++;
			continue;
		}
		size_t take = c->len - c->off < n - done ? c->len - c->off : n - done;
		for (size_t b = 0; b < take; b++)
			if (buf[done + b] != fz_pattern(c->seed, c->off + b))
				fz_fail("%s: byte %zu of the stream differs", call, done + b);
		c->off += take;
		done += take;
		if (c->off == c->len)
			fz_drop(j);
		else
			j++;
	}
	if (done != n)
		fz_fail("%s: %zu bytes, the stream from that sender held %zu", call, n, done);
	/* the receiver credits its sender every half window received */
	e.used[from_k][k] += n;
	if (e.used[from_k][k] - e.credit[from_k][k] >= e.window / 2)
		e.credit[from_k][k] = e.used[from_k][k];
}

static void op_recv(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int k, blocking = how & 1, nolen = (how >> 1) % 8 == 0, nobuf = (how >> 4) % 8 == 0;
	epos_comm *c = fz_ep(in, &k);
	size_t cap = fz_lens[fz_byte(in) % FZ_N(fz_lens)], n = 12345;
	struct epos_addr from = { -7, 7 };

	int want = fz_ep_want(k, c);
	if (!want && ((nobuf && cap) || nolen))
		want = EPOS_ERR_INVAL;
	uint8_t *buf = nobuf ? NULL : malloc(cap ? cap : 1);
	if (want) {
		fz_rc(blocking ? "epos_comm_receive" : "epos_comm_try_receive",
		      blocking ? epos_comm_receive(c, buf, cap, nolen ? NULL : &n, &from)
			       : epos_comm_try_receive(c, buf, cap, nolen ? NULL : &n, &from), want);
		free(buf);
		return;
	}
	if (!fz_has(k) && blocking) {
		free(buf);
		return;         /* it would wait forever */
	}
	if (!e.dgram && cap == 0) {
		free(buf);
		return;         /* a stream receive of 0 bytes: nothing to hand out */
	}
	int nofrom = e.dgram && (how >> 5) & 1;        /* a stream's pair is told by its sender */
	int rc = blocking ? epos_comm_receive(c, buf, cap, &n, nofrom ? NULL : &from)
			  : epos_comm_try_receive(c, buf, cap, &n, nofrom ? NULL : &from);
	if (rc == EPOS_ERR_AGAIN && !blocking) {
		free(buf);
		return;         /* nothing yet (what was sent may still be on its way) */
	}
	fz_check_recv(blocking ? "epos_comm_receive" : "epos_comm_try_receive", k, rc, buf, cap, n,
		      &from, !nofrom);
	free(buf);
}

static void op_wait_close(struct fz_in *in)
{
	unsigned how = fz_byte(in);
	int k;
	epos_comm *c = fz_ep(in, &k);
	int64_t t = fz_timeouts[fz_byte(in) % FZ_N(fz_timeouts)];
	struct epos_addr a;

	switch (how % 3) {
	case 0: {
		int want = fz_ep_want(k, c);
		if (!want && t < 0 && !fz_has(k))
			return;         /* it would wait forever */
		int rc = epos_comm_wait(c, t);
		if (want)
			fz_rc("epos_comm_wait", rc, want);
		else if (rc != EPOS_OK && rc != EPOS_ERR_TIMEOUT)
			fz_rc("epos_comm_wait", rc, EPOS_OK);
		else if (rc == EPOS_ERR_TIMEOUT && t < 0)
			fz_fail("epos_comm_wait without a timeout timed out");
		return;
	}
	case 1:
		fz_rc("epos_comm_addr", epos_comm_addr(c, (how >> 2) & 1 ? NULL : &a),
		      fz_ep_want(k, c) ? fz_ep_want(k, c) : (how >> 2) & 1 ? EPOS_ERR_INVAL : EPOS_OK);
		if (k >= 0 && !((how >> 2) & 1) && (a.node != 0 || a.port == 0))
			fz_fail("epos_comm_addr: node %d port %u", a.node, a.port);
		return;
	default:
		if (k >= 0) {
			/* a link whose peer is this one sends nowhere once it closes: only idle ones close */
			for (int j = 0; j < FZ_EP; j++)
				if (e.ep[j] && j != k && e.peer[j] == k)
					return;
			for (int i = 0; i < e.nch; i++)
				if (e.ch[i].from == k || e.ch[i].to == k)
					return;
		}
		fz_rc("epos_comm_close", epos_comm_close(c), fz_ep_want(k, c));
		if (k >= 0) {
			e.ep[k] = NULL;
			e.closed = c;
			for (int j = 0; j < FZ_EP; j++)
				e.stale[j] |= e.known[j] & (1u << k);
			int open = 0;
			for (int j = 0; j < FZ_EP; j++)
				open |= e.ep[j] != NULL;
			e.gone |= !open;
		}
		return;
	}
}

void fz_epos(struct fz_in *in)
{
	static void (*const ops[])(struct fz_in *) = { op_open, op_open, op_send, op_send, op_recv,
						       op_recv, op_wait_close };

	memset(&e, 0, sizeof e);
	e.dgram = epos_channel_boundaries();
	e.link = epos_communicator_bound();
	e.window = epos_channel_window();
	if (!epos_communicator_name() || !epos_channel_name() || (!e.dgram && !e.window))
		fz_fail("epos: no member names, or a stream without a window");
	for (int n = 0; fz_more(in) && n < 200; n++)
		ops[fz_byte(in) % FZ_N(ops)](in);
	/* the drain: everything received, then every end-point closed */
	while (e.nch > 0) {
		int k = e.ch[0].to;
		size_t cap = 32768, n = 0;
		uint8_t *buf = malloc(cap);
		struct epos_addr from;
		int rc = epos_comm_receive(e.ep[k], buf, cap, &n, &from);
		fz_check_recv("epos_comm_receive (drain)", k, rc, buf, cap, n, &from, 1);
		free(buf);
	}
	for (int k = 0; k < FZ_EP; k++)
		if (e.ep[k])
			fz_rc("epos_comm_close", epos_comm_close(e.ep[k]), EPOS_OK);
	if (e.closed || fz_byte(in) & 1)
		fz_rc("epos_comm_close (closed)", epos_comm_close(e.closed), e.closed ? EPOS_ERR_CLOSED
										 : EPOS_ERR_INVAL);
}
