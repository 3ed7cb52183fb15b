/* SPDX-License-Identifier: MIT */
/* The CSN script: transports, names, Tx/Rx (blocking and not) and csn_test with fuzzed arguments. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "csn.h"
#include "lc_config.h"
#include "fuzz_personality.h"

/*
 * A session: CSN_TX (synchronous, or "eager") from the input, then one call
 * per opcode on up to FZ_TR transports of this process, then the drain
 * (every transmit received, every completion collected) and every
 * transport closed.  Each transport opened is named "fz<k>" and looked up,
 * so the script knows its netid; transmits go to those netids or to bad
 * ones (null, another node, port 0 or above CSN_MAX_TRANSPORTS: refused
 * with CsnIllegalNetId), never to a port nothing listens on (that
 * transmit could never finish, and csn_close waits for it: documented).
 * Handles: live ones, closed ones, NULL, garbage -- CsnUnitializedTransport.
 * The model: per destination, receives posted in order (csn_rxnb from any
 * transport) and transmits not received yet in order; a transmit goes to
 * the oldest receive posted on its destination, a receive takes the oldest
 * transmit waiting.  csn_test's completion is found by its buffer and
 * checked (kind, netid, status, bytes, what the buffer holds beyond them);
 * csn_tx, csn_rx and csn_test without a timeout are called only when the
 * model says they return.  The last csn_close closes the process's node,
 * and a node attaches once per job: a csn_open after it is CsnFailed.
 */

#define FZ_TR 6
#define FZ_OPS 48
#define FZ_GUARD 16
#define FZ_PREFILL 0xc5c5u

static const unsigned fz_lens[] = { 0, 1, 8, 100, 4096, 9000, 70000 };
static const unsigned fz_timeouts[] = { 0, 1, 50, CSN_WAIT_FOREVER };
static const csn_flags fz_flags[] = { CsnAnyFlag, CsnTxReadyFlag, CsnRxReadyFlag, 0, 4,
				      ~(csn_flags)0 };

struct fz_op {
	int live, rx;
	int tr;                 /* the transport it was posted on (-1: a transmit whose sender closed) */
	int to;                 /* transmit: the destination transport */
	uint8_t *buf;
	unsigned len;
	uint32_t seed;
	unsigned actual;        /* csn_rxnb's actualReceived */
	unsigned seq;
	int matched;            /* transmit: a receive took it; receive: it took a transmit */
	int reported;           /* its completion was returned (csn_test, or the blocking call) */
	netid from;             /* transmit: its sender; receive: the sender of what it took */
	unsigned m_len;         /* receive: the message it took */
	uint32_t m_seed;
};

static struct {
	transport tr[FZ_TR];
	netid id[FZ_TR];
	transport stale;        /* a closed transport's handle */
	int eager;
	int gone;               /* the last transport closed: so did the node, for good */
	struct fz_op op[FZ_OPS];
	unsigned seq;
	uint32_t seed;
} c;

static void fz_want(const char *call, csn_status got, csn_status want)
{
	if (got != want)
		fz_fail("%s: %s, expected %s (%s)", call, csn_strstatus(got), csn_strstatus(want),
			csn_last_error());
}

/* A transport argument: a live one (*k its index), or a bad handle (*k -1). */
static transport fz_tr(struct fz_in *in, int *k)
{
	static int local;
	unsigned b = fz_byte(in) % (FZ_TR + 4);

	*k = -1;
	if (b < FZ_TR && c.tr[b]) {
		*k = (int)b;
		return c.tr[b];
	}
	switch (b % 4) {
	case 0: return NULL;
	case 1: return c.stale;
	case 2: return &local;
	default: return (transport)(uintptr_t)0x1ff;
	}
}

static int fz_new_op(void)
{
	for (int i = 0; i < FZ_OPS; i++)
		if (!c.op[i].live) {
			memset(&c.op[i], 0, sizeof c.op[i]);
			c.op[i].live = 1;
			c.op[i].seq = c.seq++;
			return i;
		}
	return -1;
}

static void fz_op_free(int i)
{
	free(c.op[i].buf);
	c.op[i].live = 0;
}

/* A transmit is forgotten once its sender saw it end and a receive took it. */
static void fz_tx_over(int i)
{
	if (c.op[i].live && !c.op[i].rx && c.op[i].reported && c.op[i].matched)
		fz_op_free(i);
}

/* The oldest receive posted on transport to that took nothing yet, or -1. */
static int fz_first_rx(int to)
{
	int best = -1;
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		if (o->live && o->rx && o->tr == to && !o->matched && !o->reported &&
		    (best < 0 || o->seq < c.op[best].seq))
			best = i;
	}
	return best;
}

/* The oldest transmit to transport to (from netid port `from`, 0: any) not taken yet, or -1. */
static int fz_first_tx(int to, unsigned from)
{
	int best = -1;
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		if (o->live && !o->rx && o->to == to && !o->matched && (!from || o->from.port == from) &&
		    (best < 0 || o->seq < c.op[best].seq))
			best = i;
	}
	return best;
}

/* Receive r took transmit t. */
static void fz_match(int r, int t)
{
	c.op[r].matched = 1;
	c.op[r].m_len = c.op[t].len;
	c.op[r].m_seed = c.op[t].seed;
	c.op[r].from = c.op[t].from;
	c.op[t].matched = 1;
	fz_tx_over(t);
}

static int fz_completes(const struct fz_op *o)
{
	return o->matched || (!o->rx && c.eager);
}

/* A received message: status s, got bytes, from netid n. */
static void fz_check_rx(const char *call, const struct fz_op *o, csn_status s, unsigned got, netid n)
{
	unsigned want = o->m_len < o->len ? o->m_len : o->len;

	fz_want(call, s, o->m_len > o->len ? CsnOverrun : CsnOk);
	if (got != want)
		fz_fail("%s: %u bytes received, expected %u", call, got, want);
	if (n.ip != o->from.ip || n.port != o->from.port)
		fz_fail("%s: from {%u,%u}, sent by {%u,%u}", call, n.ip, n.port, o->from.ip,
			o->from.port);
	if (o->buf && fz_check(o->buf, got, o->m_seed) != got)
		fz_fail("%s: the bytes received differ from those sent", call);
	for (size_t k = got; o->buf && k < o->len + FZ_GUARD; k++)
		if (o->buf[k] != fz_pattern(FZ_PREFILL, k))
			fz_fail("%s: byte %zu of a %u-byte buffer overwritten", call, k, o->len);
}

static void op_open(struct fz_in *in)
{
	unsigned b = fz_byte(in);
	transport t = NULL;
	char name[16];
	int k;

	if (b % 8 == 0) {
		fz_want("csn_open(NULL)", csn_open(NULL), CsnBadArgument);
		return;
	}
	for (k = 0; k < FZ_TR && c.tr[k]; k++)
		;
	if (k == FZ_TR)
		return;
	if (c.gone) {
		/* a node closes once per job segment (lc_open refuses it again) */
		fz_want("csn_open (node closed)", csn_open(&t), CsnFailed);
		return;
	}
	fz_want("csn_open", csn_open(&t), CsnOk);
	if (!t)
		fz_fail("csn_open gave NULL");
	c.tr[k] = t;
	snprintf(name, sizeof name, "fz%d", k);
	fz_want("csn_registername", csn_registername(t, name), CsnOk);
	fz_want("csn_lookupname", csn_lookupname(&c.id[k], name), CsnOk);
	if (c.id[k].ip != 1 || c.id[k].port < 1 || c.id[k].port > CSN_MAX_TRANSPORTS)
		fz_fail("csn_lookupname: {%u,%u} for a transport of node 0", c.id[k].ip, c.id[k].port);
}

/*
 * Would closing transport k wait forever or lose a message?  Its transmits
 * not reported (close waits for them), a transmit to it not taken yet, a
 * receive of it that took one but did not report (close cancels it: if the
 * message has not arrived, its synchronous sender never ends).
 */
static int fz_tr_busy(int k)
{
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		if (!o->live)
			continue;
		if (!o->rx && ((o->tr == k && !o->reported && !c.eager) || (o->to == k && !o->matched)))
			return 1;
		if (o->rx && o->tr == k && o->matched && !o->reported)
			return 1;
	}
	return 0;
}

static void op_close(struct fz_in *in)
{
	int k;
	transport t = fz_tr(in, &k);

	if (fz_byte(in) % 8 == 0) {
		fz_want("csn_close(NULL)", csn_close(NULL), CsnBadArgument);
		return;
	}
	if (k < 0) {
		fz_want("csn_close (not a transport)", csn_close(&t), CsnUnitializedTransport);
		return;
	}
	if (fz_tr_busy(k))
		return;
	fz_want("csn_close", csn_close(&t), CsnOk);
	if (t)
		fz_fail("csn_close left the handle");
	/* its receives are cancelled, its unreported completions dropped */
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		if (!o->live || o->tr != k)
			continue;
		if (o->rx) {
			fz_op_free(i);
		} else {
			o->reported = 1;
			o->tr = -1;
			fz_tx_over(i);
		}
	}
	c.stale = c.tr[k];
	c.tr[k] = NULL;
	int open = 0;
	for (int j = 0; j < FZ_TR; j++)
		open |= c.tr[j] != NULL;
	c.gone |= !open;
}

static void op_names(struct fz_in *in)
{
	static const char *const names[] = { "fz0", "alpha", "", NULL, "long" };
	char longname[LC_NAME_MAX + 8];
	unsigned b = fz_byte(in);
	int k;
	transport t = fz_tr(in, &k);
	const char *name = names[b % 5];
	netid n = { 7, 7 };

	if (b % 5 == 4) {
		size_t len = LC_NAME_MAX - 1 + fz_byte(in) % 3;
		memset(longname, 'n', len);
		longname[len] = '\0';
		name = longname;
	}
	if ((b >> 3) & 1) {
		unsigned to = fz_timeouts[fz_byte(in) % 3];
		csn_status s = csn_lookupname_timeout(b & 64 ? NULL : &n, (char *)name, to);
		/* a name this job registered, or none: not yet (a timeout), or every other process ended */
		int open = 0;
		for (int j = 0; j < FZ_TR; j++)
			open |= c.tr[j] != NULL;
		if (!name || (b & 64))
			fz_want("csn_lookupname", s, CsnBadArgument);
		else if (!open)
			fz_want("csn_lookupname (no transport)", s, CsnUnitializedTransport);
		else if (s == CsnOk && (n.ip != 1 || n.port < 1 || n.port > CSN_MAX_TRANSPORTS))
			fz_fail("csn_lookupname(%s): {%u,%u}", name, n.ip, n.port);
		else if (s != CsnOk && s != CsnIllegalNetId && s != CsnBadArgument && s != CsnTimeout)
			fz_fail("csn_lookupname(%s): %s", name, csn_strstatus(s));
		return;
	}
	if (name == names[0])
		name = "beta";  /* "fz<k>" are the script's own: looked up, never taken */
	csn_status s = csn_registername(t, (char *)name);
	if (k < 0)
		fz_want("csn_registername (not a transport)", s, CsnUnitializedTransport);
	else if (!name || !*name || strlen(name) >= LC_NAME_MAX)
		fz_want("csn_registername (bad name)", s, CsnBadArgument);
	else if (s != CsnOk && s != CsnNetIdAlreadyRegistered && s != CsnNoHeap)
		fz_fail("csn_registername(%s): %s", name, csn_strstatus(s));
}

/* A destination: a live transport's netid (*to its index), or a bad one (*to -1). */
static netid fz_dest(struct fz_in *in, int *to)
{
	unsigned b = fz_byte(in) % (FZ_TR + 4);

	*to = -1;
	if (b < FZ_TR && c.tr[b]) {
		*to = (int)b;
		return c.id[b];
	}
	switch (b % 4) {
	case 0: return csn_nullnetid;
	case 1: return (netid){ 2, 1 };
	case 2: return (netid){ 1, 0 };
	default: return (netid){ 1, CSN_MAX_TRANSPORTS + 1 };
	}
}

static void op_tx(struct fz_in *in)
{
	unsigned b = fz_byte(in);
	int k, to, blocking = b & 1, null = (b >> 1) % 8 == 0;
	transport t = fz_tr(in, &k);
	netid n = fz_dest(in, &to);
	unsigned len = fz_lens[fz_byte(in) % FZ_N(fz_lens)];
	const char *fn = blocking ? "csn_tx" : "csn_txnb";
	uint32_t seed = c.seed++;

	csn_status want = k < 0 ? CsnUnitializedTransport : null && len ? CsnBadArgument :
			  to < 0 ? CsnIllegalNetId : CsnOk;
	if (want != CsnOk) {
		uint8_t *buf = null ? NULL : malloc(len ? len : 1);
		fz_want(fn, blocking ? csn_tx(t, n, buf, len) : csn_txnb(t, n, buf, len), want);
		free(buf);
		return;
	}
	int r = fz_first_rx(to);
	if (blocking && r < 0 && !c.eager)
		return;         /* nobody receives it: it would wait forever */
	int i = fz_new_op();
	if (i < 0)
		return;
	struct fz_op *o = &c.op[i];
	o->tr = k;
	o->to = to;
	o->len = len;
	o->seed = seed;
	o->from = c.id[k];
	o->buf = null ? NULL : malloc(len ? len : 1);
	if (o->buf)
		fz_fill(o->buf, len, seed);
	if (blocking)
		fz_want("csn_tx", csn_tx(t, n, o->buf, len), CsnOk);
	else
		fz_want("csn_txnb", csn_txnb(t, n, o->buf, len), CsnOk);
	if (o->buf && fz_check(o->buf, len, seed) != len)
		fz_fail("%s changed its buffer", fn);
	o->reported = blocking;
	if (r >= 0)
		fz_match(r, i);
	else
		fz_tx_over(i);
}

static void op_rx(struct fz_in *in)
{
	unsigned b = fz_byte(in);
	int k, from = -1, blocking = b & 1, null = (b >> 1) % 8 == 0, nulln = (b >> 4) % 8 == 0;
	transport t = fz_tr(in, &k);
	unsigned len = fz_lens[fz_byte(in) % FZ_N(fz_lens)], got = 7777;
	netid n = csn_nullnetid;

	if (blocking && fz_byte(in) & 1) {
		n = fz_dest(in, &from);         /* from one transport (or a bad netid) */
		if (from < 0 && !(n.ip == 0 && n.port == 0))
			from = -2;
	}
	csn_status want = k < 0 ? CsnUnitializedTransport :
			  (null && len) || (blocking && nulln) ? CsnBadArgument :
			  from == -2 ? CsnIllegalNetId : CsnOk;
	uint8_t *buf = null ? NULL : malloc(len + FZ_GUARD);
	if (buf)
		fz_fill(buf, len + FZ_GUARD, FZ_PREFILL);
	if (want != CsnOk) {
		fz_want(blocking ? "csn_rx" : "csn_rxnb",
			blocking ? csn_rx(t, nulln ? NULL : &n, buf, len, &got) : csn_rxnb(t, buf, len, &got),
			want);
		free(buf);
		return;
	}
	int tx = fz_first_tx(k, from >= 0 ? c.id[from].port : 0);
	int i = blocking && tx < 0 ? -1 : fz_new_op();
	if (i < 0) {
		free(buf);
		return;         /* nothing would ever arrive, or no room */
	}
	struct fz_op *o = &c.op[i];
	o->rx = 1;
	o->tr = k;
	o->buf = buf;
	o->len = len;
	if (tx >= 0)
		fz_match(i, tx);
	if (blocking) {
		csn_status s = csn_rx(t, &n, buf, len, &got);
		fz_check_rx("csn_rx", o, s, got, n);
		fz_op_free(i);
	} else {
		fz_want("csn_rxnb", csn_rxnb(t, buf, len, &o->actual), CsnOk);
	}
}

/* Is an operation of transport k of a kind in flags outstanding (only_done: one that completes)? */
static int fz_outstanding(int k, csn_flags flags, int only_done)
{
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		if (o->live && o->tr == k && !o->reported && (!only_done || fz_completes(o)) &&
		    (!flags || (flags & CSN_FLAG(o->rx ? CsnRxReady : CsnTxReady))))
			return 1;
	}
	return 0;
}

/* csn_test on transport k: returns 1 when it reported a completion (checked by its buffer). */
static int fz_test(int k, transport t, csn_flags flags, unsigned timeout, unsigned b)
{
	netid n = { 9, 9 };
	void *a = (void *)&n;
	csn_status s = CsnBusy;
	int can = fz_outstanding(k, flags, 1);

	if (timeout == CSN_WAIT_FOREVER && !can && fz_outstanding(k, flags, 0))
		return 0;       /* one may come, none will: it would wait forever */
	csn_status kind = csn_test(t, flags, timeout, b & 1 ? NULL : &n, b & 2 ? NULL : &a,
				   b & 4 ? NULL : &s);
	if (kind == CsnTimeout) {
		if (timeout == CSN_WAIT_FOREVER && can)
			fz_fail("csn_test without a timeout: CsnTimeout, yet an operation completes");
		return 0;
	}
	if (kind != CsnTxReady && kind != CsnRxReady)
		fz_fail("csn_test: %s (%s)", csn_strstatus(kind), csn_last_error());
	if (flags && !(flags & CSN_FLAG(kind)))
		fz_fail("csn_test: %s, not asked for", csn_strstatus(kind));
	/* which operation: by its buffer (NULL buffers: the oldest such that completes) */
	int found = -1;
	for (int i = 0; i < FZ_OPS; i++) {
		struct fz_op *o = &c.op[i];
		netid want = o->rx ? o->from : o->to >= 0 ? c.id[o->to] : csn_nullnetid;
		if (o->live && o->tr == k && !o->reported && o->rx == (kind == CsnRxReady) &&
		    fz_completes(o) && (b & 2 || (void *)o->buf == a) &&
		    (b & 1 || (n.ip == want.ip && n.port == want.port)) &&
		    (found < 0 || o->seq < c.op[found].seq))
			found = i;
	}
	if (found < 0)
		fz_fail("csn_test: %s, yet no such operation of the transport could complete",
			csn_strstatus(kind));
	struct fz_op *o = &c.op[found];
	if (o->rx) {
		if (!(b & 2))
			fz_check_rx("csn_test (rxnb)", o,
				    b & 4 ? (o->m_len > o->len ? CsnOverrun : CsnOk) : s, o->actual,
				    b & 1 ? o->from : n);
		fz_op_free(found);
	} else {
		if (!(b & 4))
			fz_want("csn_test (txnb)", s, CsnOk);
		if (!(b & 1) && (n.ip != c.id[o->to].ip || n.port != c.id[o->to].port))
			fz_fail("csn_test (txnb): netid {%u,%u}, sent to {%u,%u}", n.ip, n.port,
				c.id[o->to].ip, c.id[o->to].port);
		o->reported = 1;
		fz_tx_over(found);
	}
	return 1;
}

static void op_test(struct fz_in *in)
{
	unsigned b = fz_byte(in);
	int k;
	transport t = fz_tr(in, &k);
	csn_flags flags = fz_flags[fz_byte(in) % FZ_N(fz_flags)];
	unsigned timeout = fz_timeouts[fz_byte(in) % FZ_N(fz_timeouts)];
	netid n;
	void *a;
	csn_status s;

	if (k < 0 || (flags & ~(csn_flags)CsnAnyFlag)) {
		fz_want("csn_test", csn_test(t, flags, timeout, &n, &a, &s),
			k < 0 ? CsnUnitializedTransport : CsnBadArgument);
		return;
	}
	/*
	 * The completion is told by its buffer and netid: without either (b & 2,
	 * b & 1) only when one operation at most could be it, else both are asked.
	 */
	int cands = 0;
	for (int i = 0; i < FZ_OPS; i++)
		cands += c.op[i].live && c.op[i].tr == k && !c.op[i].reported && fz_completes(&c.op[i]);
	if (cands > 1 || fz_outstanding(k, flags, 0) != fz_outstanding(k, flags, 1))
		b &= ~3u;
	fz_test(k, t, flags, timeout, b);
}

static void op_misc(struct fz_in *in)
{
	int s = (int)(fz_u32(in) % 20) - 2;
	const char *t = csn_strstatus((csn_status)s);
	if (!t || !*t || !csn_last_error())
		fz_fail("csn_strstatus(%d) or csn_last_error gave nothing", s);
	fz_want("csn_nameserver", csn_nameserver(), CsnOk);
	fz_want("csn_resolvconf", csn_resolvconf(fz_byte(in) & 1 ? NULL : "x"), CsnOk);
}

void fz_csn(struct fz_in *in)
{
	static void (*const ops[])(struct fz_in *) = {
		op_open, op_open, op_close, op_names, op_tx, op_tx, op_rx, op_rx, op_test, op_test,
		op_misc,
	};
	netid n;

	memset(&c, 0, sizeof c);
	c.eager = fz_byte(in) % 4 == 0;
	if (c.eager)
		setenv("CSN_TX", "eager", 1);
	else
		unsetenv("CSN_TX");
	fz_want("csn_lookupname before any transport", csn_lookupname(&n, "fz0"),
		CsnUnitializedTransport);
	for (int i = 0; fz_more(in) && i < 200; i++)
		ops[fz_byte(in) % FZ_N(ops)](in);
	/* the drain: every transmit received, oldest first (a blocking receive from its sender) ... */
	for (;;) {
		int i = -1;
		for (int j = 0; j < FZ_OPS; j++)
			if (c.op[j].live && !c.op[j].rx && !c.op[j].matched &&
			    (i < 0 || c.op[j].seq < c.op[i].seq))
				i = j;
		if (i < 0)
			break;
		struct fz_op *o = &c.op[i];
		unsigned got = 0;
		int r = fz_new_op();
		if (r < 0)
			fz_fail("harness: no room to drain");
		struct fz_op *q = &c.op[r];
		q->rx = 1;
		q->tr = o->to;
		q->len = o->len;
		q->buf = malloc(o->len + FZ_GUARD);
		if (!q->buf)
			fz_fail("out of memory");
		fz_fill(q->buf, o->len + FZ_GUARD, FZ_PREFILL);
		netid from = o->from;
		fz_match(r, i);
		csn_status st = csn_rx(c.tr[q->tr], &from, q->buf, q->len, &got);
		fz_check_rx("csn_rx (drain)", q, st, got, from);
		fz_op_free(r);
	}
	/* ... every completion collected ... */
	for (int k = 0; k < FZ_TR; k++)
		while (c.tr[k] && fz_outstanding(k, 0, 1))
			if (!fz_test(k, c.tr[k], CsnAnyFlag, CSN_WAIT_FOREVER, 0))
				fz_fail("harness: csn_test found nothing to collect");
	/* ... and every transport closed (its receives that took nothing are cancelled) */
	for (int k = 0; k < FZ_TR; k++)
		if (c.tr[k])
			fz_want("csn_close (drain)", csn_close(&c.tr[k]), CsnOk);
	for (int i = 0; i < FZ_OPS; i++)
		if (c.op[i].live)
			fz_op_free(i);
	unsetenv("CSN_TX");
}
