/* SPDX-License-Identifier: MIT */
/* reliability over the fake NIC: the send window past 2^32, lost and duplicate acks, retransmission, the receive point. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../pipeline/lc_skip.h"
#include "comm.h"
#include "fake_nic.h"
#include "lc_composite_host.h"
#include "node.h"

/*
 * This process is node 0 of 4; nodes 1..3 exist only as frames on the fake
 * wire, which the tests read (what node 0 sent) and feed (acks and data with
 * a correct CRC, sealed by checksum too when it is composed).  Built in every
 * config of this suite; the tests run only when reliability is composed
 * without flow_control (whose credits would hold the window back first), and
 * are skipped with that reason in the other configs.
 */
#define LC_T_RELWIN_WHY "needs reliability without flow_control, whose credits would hold the window back " \
			"first (LC_PROTO_RELIABILITY && !LC_PROTO_FLOW_CONTROL)"
#if LC_PROTO_RELIABILITY && !LC_PROTO_FLOW_CONTROL

static lc_node *nd;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void setup(void)
{
	nd = lc_fake_open();
}

static void teardown(void)
{
	lc_fake_close(nd);
}

TestSuite(relwin, .init = setup, .fini = teardown, .timeout = 60);

static uint64_t stat(int i)
{
	uint64_t s[LC_STAT_COUNT];

	cr_assert_eq(lc_stats(nd, s), 0);
	return s[i];
}

static struct lc_reliability_peer *peer(uint32_t n)
{
	return &nd->proto.reliability.peer[n];
}

/*
 * Keep peer n's retransmission timer far away (30 s) and untimed, so no
 * resend can come between two looks at the wire however slowly this runs
 * (the test of the timer itself leaves it alone).
 */
static void slow_timer(uint32_t n)
{
	struct lc_reliability_peer *p = peer(n);

	p->rto_ns = p->rto_base_ns = 30ull * 1000000000ull;
	p->rtt_t0_ns = 0;
	if (p->deadline_ns)
		p->deadline_ns = now_ns() + p->rto_ns;
}

/* Data frames (not ack-only) node 0 put on the wire to dst; *last: the newest one. */
static uint32_t wire_data(uint32_t dst, const struct lc_fake_frame **last)
{
	uint32_t n = 0;

	for (int i = 0; i < 4; i++)
		lc_progress(nd);    /* posted frames reach the fake wire when the NIC steps */

	for (uint32_t i = 0; i < lc_fake_wire_count(); i++) {
		const struct lc_fake_frame *f = lc_fake_wire(i);

		if (f->hdr.dst == dst && !(f->hdr.reliability_flags & LC_REL_F_ACK)) {
			n++;
			if (last)
				*last = f;
		}
	}
	return n;
}

/* checksum, when composed, seals the header after reliability (send_frame runs in reverse). */
static void seal(struct lc_frame_hdr *h, const void *payload)
{
#if LC_PROTO_CHECKSUM
	h->checksum_crc = lc_checksum_frame_crc(h, payload);
#else
	(void)h;
	(void)payload;
#endif
}

/* An ack-only frame from src acknowledging every frame below ack. */
static void ack_from(uint32_t src, uint32_t ack, uint16_t flags)
{
	struct lc_frame_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = LC_FRAME_MAGIC;
	h.type = LC_FT_CTRL;
	h.src = (uint16_t)src;
	h.dst = 0;
	h.reliability_flags = (uint16_t)(LC_REL_F_ACK | flags);
	h.reliability_ack = ack;
	h.reliability_seq = 0;
	h.reliability_crc = lc_reliability_crc(&h, NULL);
	seal(&h, NULL);
	lc_fake_inject(&h, NULL);
	lc_progress(nd);
}

/* A one-frame message of 8 bytes from src: frame seq fseq, message seq mseq. */
static void data_put(uint32_t src, uint32_t fseq, uint32_t mseq, int damage)
{
	uint8_t p[8];
	struct lc_frame_hdr h;

	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(mseq * 13 + (uint32_t)i);
	memset(&h, 0, sizeof(h));
	h.magic = LC_FRAME_MAGIC;
	h.type = LC_FT_DATA;
	h.flags = LC_FF_FIRST | LC_FF_LAST;
	h.src = (uint16_t)src;
	h.dst = 0;
	h.len = 8;
	h.seq = mseq;
	h.msg_len = 8;
	h.reliability_seq = fseq;
	h.reliability_ack = peer(src)->next;
	h.reliability_crc = lc_reliability_crc(&h, p);
	seal(&h, p);
	if (damage)
		p[damage % 8] ^= 0x10;
	lc_fake_inject(&h, p);
}

/* The same, taken by a progress step at once. */
static void data_from(uint32_t src, uint32_t fseq, uint32_t mseq, int damage)
{
	data_put(src, fseq, mseq, damage);
	lc_progress(nd);
}

/* Start the send window to node 1 (and the receive point from it) at base. */
static void start_at(uint32_t n, uint32_t base)
{
	struct lc_reliability_peer *p = peer(n);

	cr_assert_eq(p->una, p->next, "nothing outstanding yet");
	p->next = p->una = p->rsnd = p->recover = base;
	p->expect = p->acked = base;
}

static void send8(uint32_t dst, uint32_t tag)
{
	uint8_t b[8];

	memset(b, (int)tag, sizeof(b));
	cr_assert_eq(lc_send(nd, (int)dst, b, sizeof(b)), 0, "%s", lc_last_error(nd));
}

/* The window fills, holds the next frame back, and slides when acks cross 2^32. */
Test(relwin, window_wraps_past_2_32)
{
	const uint32_t W = LC_RELIABILITY_W, base = 0xffffffffu - W / 2;
	const struct lc_fake_frame *f = NULL;
	lc_req *r;
	int done = 0;
	uint8_t b[8] = { 0 };

	start_at(1, base);
	slow_timer(1);
	for (uint32_t i = 0; i < W; i++)
		send8(1, i);
	slow_timer(1);
	cr_assert_eq(wire_data(1, &f), W, "%u on the wire of %u, next-una %u", wire_data(1, NULL), lc_fake_wire_count(), peer(1)->next - peer(1)->una);
	cr_expect_eq(f->hdr.reliability_seq, base + W - 1);
	cr_expect_eq(peer(1)->next - peer(1)->una, W);
	/* the window is full: one more frame stays queued */
	cr_assert_eq(lc_isend(nd, 1, b, sizeof(b), &r), 0);
	for (int i = 0; i < 10; i++)
		lc_progress(nd);
	cr_assert_eq(wire_data(1, NULL), W);
	cr_assert_eq(lc_test(nd, r, &done, NULL), 0);
	if (LC_RELIABILITY_W > 1) {
		/* half the window acknowledged, across the wrap */
		ack_from(1, base + W / 2 + 1, 0);
		cr_expect_eq(peer(1)->una, base + W / 2 + 1);
		cr_expect_lt(peer(1)->una, base, "una wrapped past 2^32");
	} else {
		ack_from(1, base + 1, 0);
	}
	cr_assert_eq(lc_wait(nd, r, NULL), 0);
	slow_timer(1);
	cr_assert_eq(wire_data(1, &f), W + 1);
	cr_expect_eq(f->hdr.reliability_seq, base + W);
	ack_from(1, base + W + 1, 0);
	cr_expect_eq(peer(1)->una, peer(1)->next);
	cr_expect_eq(peer(1)->deadline_ns, 0, "no timer with nothing outstanding");
}

/* A lost ack is covered by the next cumulative one; a duplicate or stale ack changes nothing. */
Test(relwin, lost_and_duplicate_acks)
{
	const uint32_t n = LC_RELIABILITY_W < 4 ? LC_RELIABILITY_W : 4;
	uint32_t u0 = peer(1)->una, frames;
	uint64_t rtx = stat(LC_STAT_rel_retransmits);

	slow_timer(1);
	for (uint32_t i = 0; i < n; i++)
		send8(1, i);
	slow_timer(1);
	frames = wire_data(1, NULL);
	cr_assert_eq(frames, n);
	/* the ack of frame u0 is "lost": never injected.  A duplicate of a later one: */
	ack_from(1, u0 + n / 2, 0);
	cr_expect_eq(peer(1)->una, u0 + n / 2);
	ack_from(1, u0 + n / 2, 0);
	ack_from(1, u0, 0);                      /* stale: behind una */
	ack_from(1, u0 + n + 5, 0);              /* beyond what was sent: ignored */
	cr_expect_eq(peer(1)->una, u0 + n / 2);
	cr_expect_eq(peer(1)->rsnd, peer(1)->next, "no go-back on ordinary duplicate acks");
	cr_expect_eq(wire_data(1, NULL), frames);
	cr_expect_eq(stat(LC_STAT_rel_retransmits), rtx);
	/* the next cumulative ack covers everything */
	ack_from(1, u0 + n, 0);
	cr_expect_eq(peer(1)->una, u0 + n);
	cr_expect_eq(peer(1)->una, peer(1)->next);
	cr_expect_eq(peer(1)->retries, 0);
}

#if !LC_RELIABILITY_MODE_STOP_AND_WAIT && LC_RELIABILITY_WINDOW >= 8
/*
 * Fast retransmit: a gap ack goes back to una at once (no timer); after a
 * partial ack (the resend lost a frame again) a gap ack at the new una goes
 * back again; more gap acks at the same una do not.
 */
Test(relwin, gap_acks_and_partial_ack_go_back)
{
	const struct lc_fake_frame *f = NULL;
	uint32_t u0 = peer(1)->una, w;

	slow_timer(1);
	for (uint32_t i = 0; i < 8; i++)
		send8(1, i);
	slow_timer(1);
	cr_assert_eq(wire_data(1, NULL), 8);
	ack_from(1, u0, LC_REL_F_GAP);           /* frame u0 lost: the rest drew a gap ack */
	cr_assert_eq(wire_data(1, &f), 16, "go-back-N resends the 8 outstanding frames");
	cr_expect_eq(f->hdr.reliability_seq, u0 + 7);
	ack_from(1, u0, LC_REL_F_GAP);           /* late gap acks of the first pass: nothing */
	cr_assert_eq(wire_data(1, NULL), 16);
	ack_from(1, u0 + 3, 0);                  /* partial: u0 + 3 lost again */
	ack_from(1, u0 + 3, LC_REL_F_GAP);
	cr_assert_eq(wire_data(1, &f), 21, "a second go-back from the new una");
	cr_expect_eq(f->hdr.reliability_seq, u0 + 7);
	ack_from(1, u0 + 3, LC_REL_F_GAP);
	cr_expect_eq(wire_data(1, NULL), 21);
	w = wire_data(1, NULL);
	ack_from(1, u0 + 8, 0);
	cr_expect_eq(peer(1)->una, peer(1)->next);
	cr_expect_eq(wire_data(1, NULL), w);
	cr_expect_eq(stat(LC_STAT_rel_timeouts), 0, "all of it without the timer");
}
#else
LC_T_SKIPPED(relwin, gap_acks_and_partial_ack_go_back,
	     "needs reliability's window mode with a window of 8 or more "
	     "(!LC_RELIABILITY_MODE_STOP_AND_WAIT && LC_RELIABILITY_WINDOW >= 8)")
#endif

/* Without an ack the oldest frame is sent again from the kept copy, bytes unchanged. */
Test(relwin, retransmit_after_timeout)
{
	const struct lc_fake_frame *f = NULL;
	struct lc_fake_frame first;
	uint64_t deadline, t0 = stat(LC_STAT_rel_timeouts);
	uint32_t s;

	send8(2, 0x5a);
	/* wait for the first copy, then for the timer (bounded: the cap is far below this) */
	deadline = now_ns() + 20ull * 1000000000ull;
	while (wire_data(2, NULL) < 1)
		cr_assert_lt(now_ns(), deadline, "the frame never left");
	first = *lc_fake_wire(0);
	cr_assert_eq(first.hdr.dst, 2);
	s = first.hdr.reliability_seq;
	while (wire_data(2, NULL) < 2)
		cr_assert_lt(now_ns(), deadline, "no retransmission");
	cr_assert_geq(wire_data(2, &f), 2);
	cr_expect_eq(f->hdr.reliability_seq, s);
	cr_expect_eq(f->hdr.len, 8);
	cr_expect_eq(f->hdr.reliability_crc, lc_reliability_crc(&f->hdr, f->payload));
	cr_expect_eq(memcmp(f->payload, first.payload, 8), 0);
	cr_expect_geq(stat(LC_STAT_rel_timeouts), t0 + 1);
	cr_expect_geq(stat(LC_STAT_rel_retransmits), 1);
	ack_from(2, s + 1, 0);
	cr_expect_eq(peer(2)->una, peer(2)->next);
	cr_expect_eq(peer(2)->deadline_ns, 0);
}

/*
 * A silent peer whose process is live (computing, asleep, descheduled) is
 * never given up; once the launcher marks it stopped, it is given up within
 * the bound.  1.5 x the bound with peer 3 live: the timeouts at the cap pile
 * up past max_retries, which gave the peer up before it had to be stopped.
 */
Test(relwin, silent_live_peer_kept_stopped_peer_given_up)
{
	uint8_t b[8] = { 0 };
	uint64_t t0;

	send8(3, 0x11);
	t0 = now_ns();
	while (now_ns() - t0 < LC_RELIABILITY_GIVE_UP_NS / 2 * 3)
		lc_progress(nd);
	cr_assert_gt(peer(3)->retries, LC_RELIABILITY_MAX_RETRIES, "the timer did not run at the cap");
	cr_assert_eq(peer(3)->dead, 0, "a live peer was given up");
	cr_assert_eq(stat(LC_STAT_rel_peers_dead), 0);
	lc_fake_set_stopped(3, 1);
	t0 = now_ns();
	while (!peer(3)->dead) {
		lc_progress(nd);
		cr_assert_lt(now_ns() - t0, LC_RELIABILITY_GIVE_UP_NS + 1000000000ull,
			     "a stopped peer was not given up within the bound");
	}
	cr_expect_eq(stat(LC_STAT_rel_peers_dead), 1);
	cr_expect_eq(lc_send(nd, 3, b, sizeof(b)), LC_ERR_PEER_DEAD);
	lc_fake_set_stopped(3, 0);
}

/* The receive point: in order across 2^32, duplicates, gaps and damaged frames dropped and counted. */
Test(relwin, receive_in_order_past_2_32)
{
	const uint32_t base = 0xfffffffeu;
	uint64_t dup = stat(LC_STAT_rel_dup_drops), ooo = stat(LC_STAT_rel_ooo_drops);
	uint64_t crc = stat(LC_STAT_rel_crc_drops);
	uint8_t b[8];
	struct lc_status st;
	lc_req *r;
	int done;

	start_at(3, base);
	data_from(3, base, 0, 0);
	data_from(3, base, 0, 0);           /* duplicate */
	data_from(3, base + 2, 2, 0);       /* beyond a gap */
	uint64_t proto = stat(LC_STAT_rx_drops_proto);
	data_from(3, base + 1, 1, 3);       /* damaged payload */
	cr_expect_eq(stat(LC_STAT_rel_dup_drops), dup + 1);
	cr_expect_eq(stat(LC_STAT_rel_ooo_drops), ooo + 1);
	/*
	 * The damaged frame is dropped once: by checksum when it is composed
	 * (order 10, it sees the frame before reliability), else by
	 * reliability's own CRC.
	 */
	cr_expect_eq(stat(LC_STAT_rx_drops_proto), proto + 1);
	cr_expect_eq(stat(LC_STAT_rel_crc_drops), crc + (LC_PROTO_CHECKSUM ? 0 : 1),
		     "reliability's CRC check runs only when checksum did not drop the frame first");
	cr_expect_eq(peer(3)->expect, base + 1);
	data_from(3, base + 1, 1, 0);       /* 0xffffffff */
	data_from(3, base + 2, 2, 0);       /* 0 */
	data_from(3, base + 3, 3, 0);       /* 1 */
	cr_expect_eq(peer(3)->expect, base + 4);
	for (uint32_t m = 0; m < 4; m++) {
		cr_assert_eq(lc_recv(nd, 3, b, sizeof(b), &st), 0);
		cr_expect_eq(st.len, 8);
		for (int i = 0; i < 8; i++)
			cr_expect_eq(b[i], (uint8_t)(m * 13 + (uint32_t)i), "message %u byte %d", m, i);
	}
	/* nothing else was delivered */
	cr_assert_eq(lc_irecv(nd, 3, b, sizeof(b), &r), 0);
	lc_progress(nd);
	cr_assert_eq(lc_test(nd, r, &done, NULL), 0);
	cr_expect_eq(done, 0);
	data_from(3, base + 4, 4, 0);
	cr_assert_eq(lc_wait(nd, r, NULL), 0);
}

/*
 * The timers' clock after a yield: the poll reads it at the next idle step
 * (lc_poll_clock_due), not at the end of the LC_POLL_CLOCK_SPAN idle steps
 * counted since its last read -- a yield may have lasted a time slice, and a
 * wait that yields at every round would otherwise leave the timers that many
 * slices behind.  Steps until a read (the poll's time moves), then a 2 ms
 * sleep, a yield through lc_idle and one idle step: the poll's time is the
 * time after the sleep.
 */
Test(relwin, a_yield_hands_the_poll_a_fresh_clock)
{
	uint64_t seen = nd->proto.reliability.now_ns, t;
	struct timespec nap = { 0, 2000000 };
	unsigned spins = 0;
	int steps = 0;

	while (nd->proto.reliability.now_ns == seen) {
		lc_progress(nd);
		cr_assert_lt(++steps, 1000, "the poll's clock never moved");
	}
	nanosleep(&nap, NULL);
	t = now_ns();
	cr_assert_eq(lc_idle(nd, &spins, 1u << 16), 0);   /* past any spin limit: a yield or a nap */
	cr_assert_eq(lc_progress(nd), 0);
	cr_expect_geq(nd->proto.reliability.now_ns, t, "the poll's time is %llu ns behind the yield's end",
		      (unsigned long long)(t - nd->proto.reliability.now_ns));
}

/*
 * Blocking receives whose every step takes the message waited for: such a
 * step leaves its poll to the next step (lc_progress_rest), but never two in
 * a row -- the ack owed after half a window of frames goes out while the
 * receives run.
 */
Test(relwin, back_to_back_receives_still_poll)
{
	uint32_t n = 2 * LC_RELIABILITY_ACK_BATCH;
	uint64_t a0 = stat(LC_STAT_rel_acks_sent);
	struct lc_status st;
	uint8_t b[8];

	for (uint32_t m = 0; m < n; m++) {
		data_put(3, m, m, 0);   /* its frame waits in the Rx FIFO for the receive's step */
		cr_assert_eq(lc_recv(nd, 3, b, sizeof(b), &st), 0);
		cr_assert_eq(b[0], (uint8_t)(m * 13), "message %u", m);
	}
	cr_expect_geq(stat(LC_STAT_rel_acks_sent), a0 + 1, "no ack during %u receives: the poll did not run", n);
	cr_expect_eq(peer(3)->expect, n);
}

/*
 * LATER (hooks.h): the ack a data frame carries is not taken on the
 * message's path -- a wait returns with the window as it was -- but by the
 * next poll, or first by a send that finds the window full.
 */
Test(relwin, a_data_frames_ack_waits_for_the_next_poll)
{
	const uint32_t W = LC_RELIABILITY_W;
	struct lc_status st;
	uint8_t b[8] = { 0 };
	uint32_t next;
	lc_req *r;

	slow_timer(3);
	for (uint32_t i = 0; i < W; i++)
		send8(3, i);
	slow_timer(3);
	cr_assert_eq(peer(3)->next - peer(3)->una, W, "the window is full");
	cr_assert_eq(lc_irecv(nd, 3, b, sizeof(b), &r), 0);
	data_put(3, 0, 0, 0);                      /* it acks every frame sent to 3 */
	cr_assert_eq(lc_wait(nd, r, &st), 0);
	cr_expect_eq(peer(3)->expect, 1);
	cr_expect_eq(peer(3)->next - peer(3)->una, W, "the ack was taken on the message's path");
	/* a send finds the window full: it takes the ack and goes at once */
	next = peer(3)->next;
	cr_assert_eq(lc_isend(nd, 3, b, sizeof(b), &r), 0);
	cr_expect_eq(peer(3)->una, next);
	cr_expect_eq(peer(3)->next, next + 1, "the send waited for a poll to take the ack");
	cr_assert_eq(lc_wait(nd, r, NULL), 0);
	/* no send: the poll takes it */
	data_put(3, 1, 1, 0);
	lc_progress(nd);
	cr_expect_eq(peer(3)->una, peer(3)->next);
	cr_expect_eq(peer(3)->expect, 2);
	cr_assert_eq(lc_recv(nd, 3, b, sizeof(b), &st), 0);
}

/*
 * The step that completes a wait's request leaves its poll to the next step,
 * but takes the frames behind that request's all the same: a stream received
 * one wait a message keeps its batches (lc_progress_rest).
 */
Test(relwin, a_wait_takes_the_frames_behind_its_message)
{
	uint64_t f0 = stat(LC_STAT_rx_frames);
	struct lc_status st;
	uint8_t b[2][8];
	lc_req *r[2];

	cr_assert_eq(lc_irecv(nd, 3, b[0], sizeof(b[0]), &r[0]), 0);
	cr_assert_eq(lc_irecv(nd, 3, b[1], sizeof(b[1]), &r[1]), 0);
	data_put(3, 0, 0, 0);
	data_put(3, 1, 1, 0);
	cr_assert_eq(lc_wait(nd, r[0], &st), 0);
	cr_expect_eq(stat(LC_STAT_rx_frames), f0 + 2, "the wait's step left a frame in the Rx FIFO");
	cr_assert_eq(lc_wait(nd, r[1], &st), 0);
	cr_expect_eq(b[1][0], 13);
	cr_expect_eq(peer(3)->expect, 2);
}

#else
/* no .init: the skipped tests need no node */
TestSuite(relwin, .timeout = 60);

LC_T_SKIPPED(relwin, window_wraps_past_2_32, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, lost_and_duplicate_acks, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, gap_acks_and_partial_ack_go_back, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, retransmit_after_timeout, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, silent_live_peer_kept_stopped_peer_given_up, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, receive_in_order_past_2_32, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, a_yield_hands_the_poll_a_fresh_clock, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, back_to_back_receives_still_poll, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, a_data_frames_ack_waits_for_the_next_poll, LC_T_RELWIN_WHY)
LC_T_SKIPPED(relwin, a_wait_takes_the_frames_behind_its_message, LC_T_RELWIN_WHY)
#endif /* LC_PROTO_RELIABILITY && !LC_PROTO_FLOW_CONTROL */
