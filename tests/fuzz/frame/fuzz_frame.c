/* SPDX-License-Identifier: MIT */
/* Fuzz the frame ingress: a hostile or damaged peer's frames into the Receive Ring of a real node. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comm.h"
#include "geom.h"
#include "lc_config.h"
#include "nic.h"
#include "nic_impl.h"
#include "node.h"

/*
 * What is fed.  A job of two nodes: this process is node 1, a real libcomm
 * node (the config's framework, protocols and inline MCP); node 0 is a bare
 * NIC attached by this harness, the peer, whose frames reach node 1's Receive
 * Ring through the real link (lc_net_put: port lock, room, wire byte count).
 * The peer has two kinds of frames:
 *  - the RECORDING: at start-up a real node 0 (a child process) sends a
 *    script of messages (0 B .. several MTUs, a synchronous send, distinct
 *    match words) to a real node 1 that copies every frame out of its
 *    Receive Ring before its NIC takes it; node 1 then sends node 0 a
 *    reverse script (so node 0's acks, credits and synchronous-send ack are
 *    recorded too) and, with multicast, node 0 broadcasts a group message.
 *    These are well-formed frames of this config, every protocol's fields
 *    (sequence numbers, CRCs, credits, acks, group flags) as a real node
 *    fills them;
 *  - whatever the input says: each input is a program of operations on the
 *    recording (send frame i as recorded, with 1..3 bits flipped on the wire,
 *    twice, out of order, not at all) and hostile frames (any header field
 *    of a recorded frame overwritten; raw bytes of any length up to a slot,
 *    with a wire byte count that may disagree with the header), interleaved
 *    with node 1's own calls: progress, receives of any source, match, mask
 *    and capacity, sends to the peer (the reverse script in order, so that
 *    the recorded acks and credits answer them, or any size), cancels.
 * The oracle.  Node 1 must never crash, overflow, hang (libFuzzer's
 * -timeout; every wait here is bounded) or leak (LeakSanitizer at exit);
 * every frame Net-Recv took from its Receive Ring is either dropped and
 * counted (nic_drops_bad, nic_drops_proto) or moved to host staging
 * (checked after the run); lc_close returns within its bounds; the
 * job segment is removed.  With an integrity-checking protocol (reliability,
 * or checksum covering the payload) and no forged frame in the input (only
 * recorded frames, damaged by at most 3 flipped bits each -- what CRC32C
 * always detects), every message node 1 receives without an error is the
 * one that was sent: its length, match word and every byte.
 */

#define FZ_MSGS (LC_HOST_MAX_REQUESTS < 8 ? LC_HOST_MAX_REQUESTS : 8)   /* all in flight at once */
#define FZ_MAX_REC 256             /* frames kept from the recording */
#define FZ_MAX_REQS 64             /* node 1's requests of one input */
#define FZ_MAX_OPS 256             /* operations of one input */
#define FZ_PUT_TRIES 64            /* progress steps a full Receive Ring is given */

#if (LC_PROTO_CHECKSUM && LC_CHECKSUM_COVER_FRAME) || LC_PROTO_RELIABILITY
#define FZ_INTEGRITY 1
#else
#define FZ_INTEGRITY 0
#endif

struct fz_frame {
	uint32_t bytes;
	uint8_t *data;
};

static struct fz_frame rec[FZ_MAX_REC];
static uint32_t nrec;
static struct lc_nic_geom geom;
static char job[64];
static unsigned job_n;

/* The script: message i is sizes[i] bytes, match word fz_match(i), byte j fz_byte(i, j). */
static size_t fz_size(unsigned i)
{
	const size_t sizes[8] = { 0, 1, 8, LC_MTU - 1, LC_MTU, LC_MTU + 1, 3 * (size_t)LC_MTU + 7, 16 };
	return sizes[i % 8];
}

static uint64_t fz_match(unsigned i)
{
	return 0x0100000100000007ull * (i + 1);
}

static uint8_t fz_byte(unsigned i, size_t j)
{
	return (uint8_t)(i * 37u + j * 11u + (j >> 8));
}

static void fz_die(const char *what, int rc)
{
	fprintf(stderr, "fuzz_frame: %s: %d %s\n", what, rc, lc_last_error(NULL));
	abort();
}

static void fz_job_env(unsigned node)
{
	char v[16];

	setenv("LC_JOB", job, 1);
	snprintf(v, sizeof v, "%u", node);
	setenv("LC_NODE", v, 1);
	setenv("LC_NODES", "2", 1);
}

static void fz_job_create(void)
{
	char err[256];
	int rc;

	snprintf(job, sizeof job, "/lc.fz.%d.%u", (int)getpid(), job_n++);
	if ((rc = lc_seg_create(job, &geom, err, sizeof err)) != 0) {
		fprintf(stderr, "fuzz_frame: lc_seg_create %s: %s\n", job, err);
		abort();
	}
}

/* ---- the recording ---- */

/*
 * The reverse script: node 1 sends these to node 0 (after node 0's script
 * arrived), so that the recording holds node 0's answers too -- the acks,
 * credits and synchronous-send acks its protocols and framework send.
 * Message k is fz_rsize(k) bytes, match word fz_rmatch(k); the last one is
 * synchronous.
 */
#define FZ_RMSGS 3
static size_t fz_rsize(unsigned k)
{
	const size_t sizes[FZ_RMSGS] = { 8, LC_MTU + 1, 16 };
	return sizes[k % FZ_RMSGS];
}

static uint64_t fz_rmatch(unsigned k)
{
	return 0x7700000000000000ull + k;
}

/* The group message node 0 sends last when multicast is composed: FZ_GSIZE bytes, fz_byte(FZ_GMSG, j). */
#define FZ_GMSG 100u
#define FZ_GSIZE ((size_t)LC_MTU + 3)

static int fz_isend(lc_node *n, int dst, int sync, uint64_t match, size_t len, unsigned pattern, lc_req **r,
		    uint8_t **buf)
{
	*buf = malloc(len + 1);
	for (size_t j = 0; j < len; j++)
		(*buf)[j] = fz_byte(pattern, j);
	return sync ? lc_issend(n, dst, match, *buf, len, r) : lc_isend_match(n, dst, match, *buf, len, r);
}

/* Node 0 of the recording: the script, the reverse script, the group message; then close. */
static void fz_record_sender(void)
{
	lc_node *n;
	lc_req *r[FZ_MSGS];
	uint8_t *buf[FZ_MSGS];
	int rc;

	fz_job_env(0);
	if ((rc = lc_open(&n)) != 0)
		fz_die("recording: node 0 lc_open", rc);
	for (unsigned i = 0; i < FZ_MSGS; i++)
		if ((rc = fz_isend(n, 1, i == 7, fz_match(i), fz_size(i), i, &r[i], &buf[i])) != 0)
			fz_die("recording: node 0 send", rc);
	for (unsigned i = 0; i < FZ_MSGS; i++) {
		if ((rc = lc_wait(n, r[i], NULL)) != 0)
			fz_die("recording: node 0 wait", rc);
		free(buf[i]);
	}
	for (unsigned k = 0; k < FZ_RMSGS; k++) {
		buf[k] = malloc(fz_rsize(k) + 1);
		if ((rc = lc_recv_match(n, 1, fz_rmatch(k), LC_MATCH_ALL, buf[k], fz_rsize(k), NULL)) != 0)
			fz_die("recording: node 0 receive", rc);
		free(buf[k]);
	}
#if LC_PROTO_MULTICAST
	buf[0] = malloc(FZ_GSIZE);
	for (size_t j = 0; j < FZ_GSIZE; j++)
		buf[0][j] = fz_byte(FZ_GMSG, j);
	if ((rc = lc_bcast(n, buf[0], FZ_GSIZE)) != 0)
		fz_die("recording: node 0 bcast", rc);
	free(buf[0]);
#endif
	if ((rc = lc_close(n)) != 0)
		fz_die("recording: node 0 close", rc);
	_exit(0);
}

/* Copy the frames that reached node 1's Receive Ring since *seen, before its NIC takes them. */
static void fz_capture(struct lc_nic *nic, uint32_t *seen)
{
	uint32_t head = atomic_load_explicit(&nic->ctrl->recv_head.v, memory_order_acquire);

	for (; *seen != head; (*seen)++) {
		int64_t w = lc_recv_wire(nic->sram, &nic->g, *seen);
		uint32_t bytes = (uint32_t)w;

		if (nrec == FZ_MAX_REC || w < 0 || bytes > nic->g.slot_bytes - LC_NIC_RECV_WORD_BYTES)
			continue;
		rec[nrec].data = malloc(bytes);
		memcpy(rec[nrec].data, lc_recv_slot(nic->sram, &nic->g, *seen), bytes);
		rec[nrec++].bytes = bytes;
	}
}

/* The group message's match word, as node 1 received it in the recording. */
static uint64_t fz_gmatch __attribute__((unused));

/*
 * Node 1 of the recording.  Its NIC takes frames off the Receive Ring only
 * inside libcomm calls (inline MCP): fz_capture runs before each one (a frame
 * that lands between a capture and the call is missed: the recording is a
 * set of real frames, not necessarily every one).  Every wait is bounded.
 */
static void fz_record_wait(lc_node *n, lc_req **r, unsigned count, uint32_t *seen, struct lc_status *st)
{
	unsigned left = count;

	for (unsigned spin = 0; left; spin++) {
		if (spin > 20000000u)
			fz_die("recording: node 1 waits for ever", (int)left);
		for (unsigned i = 0; i < count; i++) {
			int done = 0;

			if (!r[i])
				continue;
			fz_capture(n->nic, seen);
			if (lc_test(n, r[i], &done, &st[i]) != 0 || (done && st[i].err))
				fz_die("recording: node 1 request failed", st[i].err);
			if (done) {
				r[i] = NULL;
				left--;
			}
		}
	}
}

static void fz_record(void)
{
	lc_node *n;
	lc_req *r[FZ_MSGS];
	uint8_t *buf[FZ_MSGS];
	struct lc_status st[FZ_MSGS];
	uint32_t seen = 0;
	int rc, status = 0;
	pid_t pid;

	fz_job_create();
	pid = fork();
	if (pid < 0)
		fz_die("fork", -errno);
	if (pid == 0)
		fz_record_sender();
	fz_job_env(1);
	if ((rc = lc_open(&n)) != 0)
		fz_die("recording: node 1 lc_open", rc);
	for (unsigned i = 0; i < FZ_MSGS; i++) {
		buf[i] = malloc(fz_size(i) + 1);
		fz_capture(n->nic, &seen);
		if ((rc = lc_irecv_match(n, 0, fz_match(i), LC_MATCH_ALL, buf[i], fz_size(i), &r[i])) != 0)
			fz_die("recording: node 1 irecv", rc);
	}
	fz_record_wait(n, r, FZ_MSGS, &seen, st);
	for (unsigned i = 0; i < FZ_MSGS; i++) {
		if (st[i].len != fz_size(i))
			fz_die("recording: a message did not arrive intact", (int)i);
		for (size_t j = 0; j < fz_size(i); j++)
			if (buf[i][j] != fz_byte(i, j))
				fz_die("recording: a message did not arrive intact", (int)i);
		free(buf[i]);
	}
	for (unsigned k = 0; k < FZ_RMSGS; k++) {
		fz_capture(n->nic, &seen);
		if ((rc = fz_isend(n, 0, k == FZ_RMSGS - 1, fz_rmatch(k), fz_rsize(k), k, &r[k], &buf[k])) != 0)
			fz_die("recording: node 1 send", rc);
	}
	fz_record_wait(n, r, FZ_RMSGS, &seen, st);
	for (unsigned k = 0; k < FZ_RMSGS; k++)
		free(buf[k]);
#if LC_PROTO_MULTICAST
	buf[0] = malloc(FZ_GSIZE);
	fz_capture(n->nic, &seen);
	if ((rc = lc_irecv_match(n, 0, 0, 0, buf[0], FZ_GSIZE, &r[0])) != 0)
		fz_die("recording: node 1 irecv", rc);
	fz_record_wait(n, r, 1, &seen, st);
	if (st[0].len != FZ_GSIZE)
		fz_die("recording: the group message did not arrive intact", 0);
	for (size_t j = 0; j < FZ_GSIZE; j++)
		if (buf[0][j] != fz_byte(FZ_GMSG, j))
			fz_die("recording: the group message did not arrive intact", 0);
	fz_gmatch = st[0].match;
	free(buf[0]);
#endif
	/* node 0 closes once its last frames are acknowledged: keep answering until it has gone */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		fz_capture(n->nic, &seen);
		lc_progress(n);
	}
	for (int k = 0; k < 1000; k++) {
		fz_capture(n->nic, &seen);
		lc_progress(n);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fz_die("recording: node 0 failed", status);
	lc_close(n);
	lc_seg_unlink(job);
	if (nrec == 0)
		fz_die("recording: no frame", 0);
}

/* ---- one input ---- */

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static uint32_t fz_take(struct fz_in *in, unsigned bytes)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < bytes; k++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

struct fz_run {
	lc_node *n;
	struct lc_nic *peer;            /* node 0: the bare NIC */
	uint32_t put;                   /* frames that reached node 1's Receive Ring */
	int forged;                     /* a frame not as recorded (beyond <= 3 flipped bits) */
	lc_req *req[FZ_MAX_REQS];
	uint8_t *buf[FZ_MAX_REQS];
	int want[FZ_MAX_REQS];          /* the script message the receive asks for, -1: none */
	size_t cap[FZ_MAX_REQS];
	unsigned nreq;
};

/* The peer's host and NIC: whatever node 1 sends it is taken off its Receive Ring unread. */
static void fz_peer_drain(struct fz_run *r)
{
	struct lc_nic_ctrl *c = r->peer->ctrl;

	atomic_store_explicit(&c->recv_tail.v, atomic_load_explicit(&c->recv_head.v, memory_order_acquire),
			      memory_order_release);
}

static void fz_progress(struct fz_run *r, unsigned steps)
{
	for (unsigned k = 0; k < steps; k++) {
		fz_peer_drain(r);
		lc_progress(r->n);
	}
}

/*
 * Put bytes on the link to node 1 as the peer's Net-Send does, then damage the
 * copy in the Receive Ring as the wire would: flips[] bit positions, and a wire
 * byte count of `wire` (0: the copy's own).  Returns 1 when the frame reached the ring.
 */
static int fz_put(struct fz_run *r, const uint8_t *bytes, uint32_t n, const uint32_t *flips, unsigned nflips,
		  uint32_t wire)
{
	uint8_t frame[LC_NIC_SLOT_BYTES];
	struct lc_frame_hdr *h = (struct lc_frame_hdr *)frame;
	uint32_t busy = 0, rh;
	uint8_t *slot;

	if (n < geom.hdr_bytes || n > geom.slot_bytes - LC_NIC_RECV_WORD_BYTES)
		return 0;
	memcpy(frame, bytes, n);
	/*
	 * lc_net_put copies header + hdr->len bytes, the length as the peer's NIC
	 * believes it; as a control frame it passes a source node 1 holds (a
	 * hostile peer ignores lc_nic_rx_hold).  The copy is then overwritten
	 * with the bytes as given.
	 */
	h->len = n - geom.hdr_bytes;
	h->type = LC_FT_CTRL;
	for (unsigned t = 0; lc_net_put(r->peer, h, 1, &busy) != LC_NET_PUT_SENT; t++) {
		if (t == FZ_PUT_TRIES)
			return 0;       /* node 1's Receive Ring stays full: the peer gives up */
		fz_progress(r, 1);
	}
	rh = atomic_load_explicit(&lc_seg_ctrl(r->peer, 1)->recv_head.v, memory_order_relaxed) - 1;
	slot = lc_recv_slot(lc_seg_sram(r->peer, 1), &geom, rh);
	memcpy(slot, bytes, n);         /* the bytes as given, header length field included */
	for (unsigned k = 0; k < nflips; k++)
		slot[(flips[k] >> 3) % n] ^= (uint8_t)(1u << (flips[k] & 7));
	if (wire)
		lc_recv_publish_word(lc_recv_word(lc_seg_sram(r->peer, 1), &geom, rh), &geom, rh, wire);
	r->put++;
	return 1;
}

static void fz_post(struct fz_run *r, int src, uint64_t match, uint64_t mask, size_t cap, int want)
{
	unsigned i = r->nreq;

	if (i == FZ_MAX_REQS)
		return;
	r->buf[i] = malloc(cap ? cap : 1);
	r->cap[i] = cap;
	r->want[i] = want;
	if (lc_irecv_match(r->n, src, match, mask, r->buf[i], cap, &r->req[i]) != 0) {
		free(r->buf[i]);
		return;
	}
	r->nreq++;
}

/* Check a completed receive: with integrity and nothing forged, what arrived is what was sent. */
static void fz_check(const struct fz_run *r, unsigned i, const struct lc_status *s)
{
	int w = r->want[i];
	size_t size;

	if (!FZ_INTEGRITY || r->forged || w < 0 || s->err != 0)
		return;
	size = (unsigned)w == FZ_GMSG ? FZ_GSIZE : fz_size((unsigned)w);
	if (s->src != 0 || s->len != size) {
		fprintf(stderr, "fuzz_frame: message %d delivered from %d with %zu bytes, sent %zu\n", w, s->src,
			s->len, size);
		abort();
	}
	for (size_t j = 0; j < s->len && j < r->cap[i]; j++)
		if (r->buf[i][j] != fz_byte((unsigned)w, j)) {
			fprintf(stderr, "fuzz_frame: message %d delivered as good with byte %zu damaged\n", w, j);
			abort();
		}
}

static uint64_t fz_nic_stat(struct lc_nic *nic, enum lc_nic_stat s)
{
	return atomic_load_explicit(&lc_nic_stats(nic)[s], memory_order_relaxed);
}

static void fz_finish(struct fz_run *r)
{
	struct lc_nic *nic = r->n->nic;
	uint64_t seen, dropped, staged;

	fz_progress(r, 64);
	/*
	 * every frame Net-Recv took was staged, or dropped and counted (the drop
	 * counters also count Net-Send's drops of node 1's own frames, hence <=);
	 * Net-Recv may leave frames in the ring while host staging is full of held ones
	 */
	seen = fz_nic_stat(nic, LC_NIC_STAT_net_rx_frames);
	dropped = fz_nic_stat(nic, LC_NIC_STAT_nic_drops_bad) + fz_nic_stat(nic, LC_NIC_STAT_nic_drops_proto);
	staged = fz_nic_stat(nic, LC_NIC_STAT_dma_blocks_c0);
	if (seen > r->put || staged > seen || seen - staged > dropped) {
		fprintf(stderr, "fuzz_frame: %u frames put, Net-Recv took %llu: %llu dropped, %llu staged\n", r->put,
			(unsigned long long)seen, (unsigned long long)dropped, (unsigned long long)staged);
		abort();
	}
	for (unsigned i = 0; i < r->nreq; i++) {
		struct lc_status s;
		int done = 0;

		lc_test(r->n, r->req[i], &done, &s);
		if (done)
			fz_check(r, i, &s);
		else if (lc_cancel(r->n, r->req[i]) == 1)
			lc_wait(r->n, r->req[i], &s);
		else
			continue;       /* matched a message still arriving: lc_close ends it */
		r->req[i] = NULL;
		free(r->buf[i]);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_unlink(void)
{
	if (job[0])
		lc_seg_unlink(job);
}

/*
 * An input that aborts (a failed check), crashes or hangs (the replay's
 * alarm) leaves no segment behind: its name holds this process's pid, and a
 * later process given the same pid would find it and fail to create its own.
 * lc_seg_unlink is shm_unlink, async-signal-safe; the signal then ends the
 * process as before.
 */
static const int fz_fatal_sigs[] = { SIGABRT, SIGALRM, SIGSEGV, SIGBUS, SIGFPE, SIGILL };

static void fz_fatal(int sig)
{
	fz_unlink();
	signal(sig, SIG_DFL);
	raise(sig);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (lc_geom_from_config(&geom, 2) != 0 || geom.mcp_thread)
		fz_die("this harness needs the inline MCP (geometry)", 0);
	/*
	 * Every input opens a job of its own and times nothing: its nodes' SRAM
	 * and staging fault in as first used, not at attach (nic.c, lc_prefault;
	 * 10.1 -> 4.3 CPU-s a replay of the corpus).  LC_PREFAULT=1 from the
	 * caller still makes them resident.
	 */
	setenv("LC_PREFAULT", "0", 0);
	atexit(fz_unlink);
	for (size_t i = 0; i < sizeof fz_fatal_sigs / sizeof fz_fatal_sigs[0]; i++)
		signal(fz_fatal_sigs[i], fz_fatal);
	fz_record();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_run r = { 0 };
	lc_req *sreq[8];
	uint8_t *sbuf[8];
	unsigned nsend = 0, nrev = 0, ops = 0;
	char err[256];
	int rc;

	if (nrec == 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fz_job_create();
	fz_job_env(1);
	if ((rc = lc_open(&r.n)) != 0)
		fz_die("lc_open", rc);
	r.peer = lc_nic_attach(job, 0, &geom, err, sizeof err, &rc);
	if (!r.peer) {
		fprintf(stderr, "fuzz_frame: attach the peer: %s\n", err);
		abort();
	}
	/* the script's receives, in order */
	for (unsigned i = 0; i < FZ_MSGS; i++)
		fz_post(&r, 0, fz_match(i), LC_MATCH_ALL, fz_size(i), (int)i);
#if LC_PROTO_MULTICAST
	fz_post(&r, 0, fz_gmatch, LC_MATCH_ALL, FZ_GSIZE, (int)FZ_GMSG);
#endif
	while (in.n && ops++ < FZ_MAX_OPS) {
		uint32_t op = fz_take(&in, 1), flips[3], nflips = 0;
		const struct fz_frame *f = &rec[fz_take(&in, 1) % nrec];

		switch (op & 7) {
		case 0:         /* a recorded frame, as recorded */
			fz_put(&r, f->data, f->bytes, NULL, 0, 0);
			break;
		case 1:         /* a recorded frame with 1..3 bits flipped on the wire */
			nflips = 1 + op / 8 % 3;
			for (unsigned k = 0; k < nflips; k++)
				flips[k] = fz_take(&in, 2);
			fz_put(&r, f->data, f->bytes, flips, nflips, 0);
			break;
		case 2: {       /* a recorded frame with a header field overwritten: a forgery */
			uint8_t copy[LC_NIC_SLOT_BYTES];
			uint32_t off = fz_take(&in, 1) % geom.hdr_bytes, width = 1u << (op / 8 % 3);
			uint32_t v = fz_take(&in, 4);

			memcpy(copy, f->data, f->bytes);
			for (uint32_t k = 0; k < width && off + k < geom.hdr_bytes; k++)
				copy[off + k] = (uint8_t)(v >> (8 * k));
			r.forged = 1;
			fz_put(&r, copy, f->bytes, NULL, 0, 0);
			break;
		}
		case 3: {       /* raw bytes, a wire byte count that may disagree with the header */
			uint8_t raw[LC_NIC_SLOT_BYTES] = { 0 };
			uint32_t n = geom.hdr_bytes + fz_take(&in, 2) % (geom.slot_bytes - geom.hdr_bytes + 1);
			uint32_t wire = op & 8 ? geom.hdr_bytes + fz_take(&in, 2) % (geom.slot_bytes + 1) : 0;

			for (uint32_t k = 0; k < n && in.n; k++)
				raw[k] = (uint8_t)fz_take(&in, 1);
			if (op & 16) {  /* this job's magic and addresses, so that the rest is looked at */
				struct lc_frame_hdr *h = (struct lc_frame_hdr *)raw;

				h->magic = LC_FRAME_MAGIC;
				h->src = 0;
				h->dst = 1;
			}
			r.forged = 1;
			fz_put(&r, raw, n, NULL, 0, wire);
			break;
		}
		case 4:         /* node 1 makes progress */
			fz_progress(&r, 1 + op / 8 % 32);
			break;
		case 5: {       /* node 1 posts a receive of any source, match, mask, capacity */
			int src = op & 8 ? LC_ANY_SOURCE : (int)(op / 16 % 2);
			uint64_t match = (uint64_t)fz_take(&in, 4) << 32 | fz_take(&in, 4);
			uint64_t mask = op & 32 ? LC_MATCH_ALL : op & 64 ? 0 : (uint64_t)fz_take(&in, 4) << 32;
			size_t cap = fz_take(&in, 2) % (4 * (size_t)LC_MTU);

			fz_post(&r, src, match, mask, cap, -1);
			break;
		}
		case 6: {       /* node 1 sends to the peer (acks and credits from the peer now matter) */
			unsigned k = nrev++;
			size_t len = op & 8 ? fz_rsize(k) : fz_take(&in, 2) % (3 * (size_t)LC_MTU);

			if (nsend == 8)
				break;
			/* with bit 3: the reverse script, in order, so the recorded answers fit */
			rc = fz_isend(r.n, 0, op & 8 && k % FZ_RMSGS == FZ_RMSGS - 1, op & 8 ? fz_rmatch(k) : op,
				      len, k, &sreq[nsend], &sbuf[nsend]);
			if (rc == 0)
				nsend++;
			else
				free(sbuf[nsend]);
			break;
		}
		case 7:         /* every recorded frame in order */
			for (uint32_t i = 0; i < nrec; i++)
				fz_put(&r, rec[i].data, rec[i].bytes, NULL, 0, 0);
			break;
		}
	}
	fz_finish(&r);
	/* the peer leaves first: node 1's sends to it fail, its close does not wait for acks */
	lc_nic_detach(r.peer);
	for (unsigned i = 0; i < nsend; i++) {
		lc_wait(r.n, sreq[i], NULL);
		free(sbuf[i]);
	}
	rc = lc_close(r.n);
	(void)rc;       /* a close may report sends the departed peer never acknowledged */
	for (unsigned i = 0; i < r.nreq; i++)
		if (r.req[i])
			free(r.buf[i]);
	lc_seg_unlink(job);
	job[0] = '\0';
	return 0;
}
