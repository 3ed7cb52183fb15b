/* SPDX-License-Identifier: MIT */
/* flow_control tests: credit exhaustion and return, wraparound, control frames, capacity check; end-to-end runs. */
#include "../../tests/pipeline/lc_run.h"

#include "lc_config.h"
#include "lc_pc.h"
#include "node.h"

/* A node with no NIC: the hooks alone (poll must not need to send in these cases). */
static struct lc_node fc_node;

static void fc_setup(void)
{
	memset(&fc_node, 0, sizeof(fc_node));
	fc_node.size = 4;
	fc_node.rank = 0;
	cr_assert_eq(lc_flow_control_init(&fc_node), 0, "%s", lc_last_error(NULL));
}

TestSuite(flow_control, .init = fc_setup, .timeout = 120 * LC_T_SLOWDOWN);

static struct lc_frame_hdr fc_data(uint32_t src, uint32_t dst)
{
	return (struct lc_frame_hdr){ .magic = LC_FRAME_MAGIC, .type = LC_FT_DATA,
				      .flags = LC_FF_FIRST | LC_FF_LAST, .src = (uint16_t)src,
				      .dst = (uint16_t)dst };
}

/* send one data frame to dst through send_frame + after_send; returns the verdict */
static lc_verdict fc_send(uint32_t dst)
{
	struct lc_frame_hdr h = fc_data(0, dst);
	lc_verdict v = lc_flow_control_send_frame(&fc_node, &h, NULL);

	if (v == LC_CONTINUE)
		lc_flow_control_after_send(&fc_node, &h, NULL);
	return v;
}

/* a frame from src carrying drained count `credit` */
static lc_verdict fc_recv(uint32_t src, uint8_t type, uint16_t credit, void *payload, uint32_t len)
{
	struct lc_frame_hdr h = fc_data(src, 0);

	h.type = type;
	h.flow_control_credit = credit;
	h.len = len;
	return lc_flow_control_recv_frame(&fc_node, &h, payload);
}

Test(flow_control, credits_exhaust_then_retry_without_committing)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;

	for (unsigned i = 0; i < LC_FLOW_CONTROL_CREDITS; i++)
		cr_assert_eq(fc_send(1), LC_CONTINUE, "frame %u", i);
	cr_assert_eq(fc_send(1), LC_RETRY);
	cr_assert_eq(fc_send(1), LC_RETRY);
	cr_expect_eq(st->peer[1].sent, LC_FLOW_CONTROL_CREDITS, "a RETRY must not count a frame");
	cr_expect_eq(st->waits, 2);
	/* another peer's credits are independent */
	cr_expect_eq(fc_send(2), LC_CONTINUE);
	/* control frames bypass credits */
	struct lc_frame_hdr c = fc_data(0, 1);
	c.type = LC_FT_CTRL;
	cr_expect_eq(lc_flow_control_send_frame(&fc_node, &c, NULL), LC_CONTINUE);
}

Test(flow_control, credits_return_piggybacked_and_stale_values_ignored)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;

	for (unsigned i = 0; i < LC_FLOW_CONTROL_CREDITS; i++)
		fc_send(1);
	cr_assert_eq(fc_send(1), LC_RETRY);
	/* node 1 drained one of ours: one frame may go, then none */
	cr_assert_eq(fc_recv(1, LC_FT_DATA, 1, NULL, 0), LC_CONTINUE);
	cr_assert_eq(fc_send(1), LC_CONTINUE);
	cr_assert_eq(fc_send(1), LC_RETRY);
	/* an older value (reordered / duplicated frame) changes nothing */
	fc_recv(1, LC_FT_DATA, 0, NULL, 0);
	cr_assert_eq(st->peer[1].adv, 1);
	cr_assert_eq(st->stale, 1);
	cr_assert_eq(fc_send(1), LC_RETRY);
	/* a value beyond what we ever sent is garbage: ignored and counted */
	fc_recv(1, LC_FT_DATA, (uint16_t)(LC_FLOW_CONTROL_CREDITS + 5), NULL, 0);
	cr_assert_eq(st->peer[1].adv, 1);
	cr_assert_eq(st->stale, 2);
	/* everything drained: the full allowance is back */
	fc_recv(1, LC_FT_DATA, (uint16_t)(LC_FLOW_CONTROL_CREDITS + 1), NULL, 0);
	for (unsigned i = 0; i < LC_FLOW_CONTROL_CREDITS; i++)
		cr_assert_eq(fc_send(1), LC_CONTINUE, "frame %u", i);
	cr_assert_eq(fc_send(1), LC_RETRY);
}

Test(flow_control, sixteen_bit_field_wraps_past_65535_and_2_pow_32)
{
	static const uint32_t starts[] = { 65530u, 131070u, 0xfffffff0u };
	struct lc_flow_control_peer *p = &fc_node.proto.flow_control.peer[3];

	for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
		p->sent = p->adv = starts[k];
		for (unsigned round = 0; round < 40; round++) {
			while (fc_send(3) == LC_CONTINUE)
				;
			cr_assert_eq(p->sent - p->adv, LC_FLOW_CONTROL_CREDITS);
			fc_recv(3, LC_FT_DATA, (uint16_t)p->sent, NULL, 0);
			cr_assert_eq(p->adv, p->sent, "start %u round %u", starts[k], round);
		}
	}
}

Test(flow_control, receiver_owes_a_credit_frame_at_half_and_piggyback_pays_it)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;
	unsigned half = (LC_FLOW_CONTROL_CREDITS + 1) / 2;

	for (unsigned i = 0; i + 1 < half; i++)
		fc_recv(2, LC_FT_DATA, 0, NULL, 0);
	cr_assert_eq(st->ntodo, 0, "no credit frame owed below the threshold");
	fc_recv(2, LC_FT_DATA, 0, NULL, 0);
	cr_assert_eq(st->ntodo, 1);
	cr_assert(st->peer[2].flags & LC_FC_F_CREDIT);
	/* reverse traffic carries the count: the owed frame is no longer needed */
	struct lc_frame_hdr h = fc_data(0, 2);
	cr_assert_eq(lc_flow_control_send_frame(&fc_node, &h, NULL), LC_CONTINUE);
	cr_assert_eq(h.flow_control_credit, half);
	lc_flow_control_after_send(&fc_node, &h, NULL);
	/* poll finds nothing to send (no NIC here: it would crash if it tried) */
	lc_flow_control_poll(&fc_node, 1);
	cr_assert_eq(st->ntodo, 0);
	cr_assert_eq(st->ctrl_sent, 0);
	cr_assert_eq(st->peer[2].told, half);
}

Test(flow_control, own_control_frames_are_consumed_others_pass)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;
	struct lc_fc_ctrl credit = { .tag = LC_FC_TAG, .kind = LC_FC_CREDIT };
	struct lc_fc_ctrl probe = { .tag = LC_FC_TAG, .kind = LC_FC_PROBE };
	struct lc_fc_ctrl other = { .tag = 0x12345678u, .kind = LC_FC_CREDIT };

	fc_send(1);
	cr_assert_eq(fc_recv(1, LC_FT_CTRL, 1, &credit, sizeof(credit)), LC_CONSUMED);
	cr_assert_eq(st->peer[1].adv, 1, "an explicit credit frame returns credits");
	cr_assert_eq(fc_recv(1, LC_FT_CTRL, 1, &other, sizeof(other)), LC_CONTINUE);
	cr_assert_eq(fc_recv(1, LC_FT_CTRL, 1, &other, 3), LC_CONTINUE);
	cr_assert_eq(st->peer[1].drained, 0, "control frames are never counted as drained");
	cr_assert_eq(fc_recv(2, LC_FT_CTRL, 0, &probe, sizeof(probe)), LC_CONSUMED);
	cr_assert(st->peer[2].flags & LC_FC_F_ANSWER, "a probe must be answered");
}

Test(flow_control, capacity_check_refuses_with_the_numbers)
{
	unsigned cap = LC_FC_CAPACITY, per = LC_FLOW_CONTROL_CREDITS + LC_FC_RESERVE;

	cr_assert_eq(lc_flow_control_check(cap / per, LC_FLOW_CONTROL_CREDITS), 0);
	cr_assert_eq(lc_flow_control_check(cap / per + 1, LC_FLOW_CONTROL_CREDITS), LC_ERR_CONFIG);
	char want[64];
	snprintf(want, sizeof want, "%u nodes x (%u credits", cap / per + 1, LC_FLOW_CONTROL_CREDITS);
	cr_assert(strstr(lc_last_error(NULL), want), "message: %s", lc_last_error(NULL));
	cr_assert_eq(lc_flow_control_check(1, cap), LC_ERR_CONFIG);
}

/*
 * Credits that come back while a sender stays blocked restart its probe
 * clock: the next probe is a whole LC_FC_PROBE_US away, never due at once
 * (a zero interval made every poll probe again: a storm of probes).
 */
Test(flow_control, probe_clock_restarts_when_credits_come_back)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;
	struct lc_flow_control_peer *p = &st->peer[1];
	const uint64_t t0 = 1000000000u, t1 = t0 + 500000u;

	for (unsigned i = 0; i < LC_FLOW_CONTROL_CREDITS; i++)
		fc_send(1);
	cr_assert_eq(fc_send(1), LC_RETRY);
	cr_assert(p->flags & LC_FC_F_BLOCKED);
	lc_flow_control_poll(&fc_node, t0);
	cr_assert_eq(p->probe_at, t0 + LC_FC_PROBE_US * 1000ull, "first probe LC_FC_PROBE_US after blocking");
	/* one credit back, spent at once: still blocked, never unblocked by a poll in between */
	fc_recv(1, LC_FT_DATA, 1, NULL, 0);
	cr_assert_eq(fc_send(1), LC_CONTINUE);
	cr_assert_eq(fc_send(1), LC_RETRY);
	lc_flow_control_poll(&fc_node, t1);
	cr_assert(p->flags & LC_FC_F_BLOCKED);
	cr_assert_geq(p->probe_gap, LC_FC_PROBE_US, "probe interval %u us", p->probe_gap);
	cr_assert_eq(p->probe_at, t1 + (uint64_t)p->probe_gap * 1000u,
		     "the clock must restart at the credit return, not keep the old deadline");
	cr_assert_eq(st->probes, 0);
}

/*
 * Another protocol's control frame may be consumed below flow_control at the
 * receiver (e.g. an ack-only frame) and never reach its recv_frame: sending
 * one is not telling the peer our drained count, so the credit frame stays
 * owed.  A data frame or our own control frame does carry it.
 */
Test(flow_control, another_protocols_control_frame_does_not_pay_a_credit_return)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;
	struct lc_flow_control_peer *p = &st->peer[2];
	struct lc_fc_ctrl c = { .tag = LC_FC_TAG, .kind = LC_FC_CREDIT };
	struct lc_frame_hdr h = fc_data(0, 2);

	for (unsigned i = 0; i < st->threshold; i++)
		fc_recv(2, LC_FT_DATA, 0, NULL, 0);
	cr_assert(p->flags & LC_FC_F_CREDIT);
	h.type = LC_FT_CTRL;
	cr_assert_eq(lc_flow_control_send_frame(&fc_node, &h, NULL), LC_CONTINUE);
	lc_flow_control_after_send(&fc_node, &h, NULL);
	cr_assert_eq(p->told, 0, "another protocol's control frame counted as a credit return");
	/* a foreign control frame as long as ours, with another tag */
	c.tag = ~LC_FC_TAG;
	h.len = sizeof(c);
	lc_flow_control_after_send(&fc_node, &h, &c);
	cr_assert_eq(p->told, 0, "a control frame with a foreign tag counted as a credit return");
	/* our credit frame carries it */
	c.tag = LC_FC_TAG;
	cr_assert_eq(lc_flow_control_send_frame(&fc_node, &h, &c), LC_CONTINUE);
	lc_flow_control_after_send(&fc_node, &h, &c);
	cr_assert_eq(p->told, st->threshold);
	cr_assert_eq(p->sent, 0, "a control frame is not a data frame");
}

/* ---- end-to-end runs (tests/flowctl/progs/fc_traffic.c) ---- */


/*
 * Every node's "fc counters" line: nothing dropped at the
 * backpressure limit; with max_stalls 0 also no stall at a full Receive Ring
 * (the credits held the sender back before its link had to).
 */
static void fc_expect_no_bp_loss(const struct lc_t_out *o, int nodes, unsigned long long max_stalls)
{
	const char *c = o->text;
	int seen = 0;

	while ((c = strstr(c, "fc counters: node "))) {
		unsigned long long stalls, drops = 1;
		int node;

		cr_assert_eq(sscanf(c, "fc counters: node %d bp_stalls %llu bp_drops %llu",
				    &node, &stalls, &drops), 3, "output:\n%s", o->text);
		cr_assert_leq(stalls, max_stalls, "node %d stalled at a full Receive Ring:\n%s", node, o->text);
		cr_assert_eq(drops, 0, "node %d dropped frames at the backpressure limit:\n%s", node, o->text);
		seen++;
		c++;
	}
	cr_assert_eq(seen, nodes, "counters of %d nodes, expected %d:\n%s", seen, nodes, o->text);
}

Test(flow_control, sleeping_receiver_two_seconds_never_overflows)
{
	struct lc_t_out o;
	char nap[16];

	/* naps of 500 ms: without credits the sender's link would stall at the full ring */
	snprintf(nap, sizeof nap, "%d", 500);
	lc_t_commrun(&o, 2, 60, "fc_traffic", "sleepy", "400", nap, "4", NULL);
	lc_t_expect_ok(&o, "fc_traffic ok:", 1);
	fc_expect_no_bp_loss(&o, 2, 0);
	lc_t_out_free(&o);
}

Test(flow_control, incast_seven_to_one_with_naps)
{
	struct lc_t_out o;
	char nap[16];

	snprintf(nap, sizeof nap, "%d", 100);
	lc_t_commrun(&o, 8, 90, "fc_traffic", "incast", "100", nap, "5", NULL);
	lc_t_expect_ok(&o, "fc_traffic ok:", 1);
	fc_expect_no_bp_loss(&o, 8, ~0ull);
	lc_t_out_free(&o);
}

Test(flow_control, both_directions_among_four_no_deadlock)
{
	struct lc_t_out o;

	lc_t_commrun(&o, 4, 90, "fc_traffic", "bidir", "200", NULL);
	lc_t_expect_ok(&o, "fc_traffic ok:", 4);
	fc_expect_no_bp_loss(&o, 4, ~0ull);
	lc_t_out_free(&o);
}

#if !LC_PC_EXACTLY_ONCE
/*
 * Without exactly_once a lost data frame never drains: the blocked sender's
 * probe carries its `sent`, the receiver declares the missing frames lost,
 * and the answer returns every credit.  A duplicate counted twice is taken
 * back the same way, and the answer is then believed by the sender.
 */
Test(flow_control, probe_resyncs_lost_and_duplicated_frames)
{
	struct lc_flow_control_state *st = &fc_node.proto.flow_control;
	const uint32_t cr = LC_FLOW_CONTROL_CREDITS;
	_Atomic uint64_t stats[LC_STAT_COUNT] = { 0 };
	struct lc_fc_ctrl probe = { .tag = LC_FC_TAG, .kind = LC_FC_PROBE };

	fc_node.stats = stats;
	/* receiver side: peer 1 sent cr frames, two of them were lost */
	for (uint32_t i = 0; i + 2 < cr; i++)
		cr_assert_eq(fc_recv(1, LC_FT_DATA, 0, NULL, 0), LC_CONTINUE);
	cr_assert_eq(st->peer[1].drained, cr - 2 < cr ? cr - 2 : 0);
	probe.sent = cr;
	probe.adv = 0;   /* blocked: sent - adv = credits */
	cr_assert_eq(fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe)), LC_CONSUMED);
	cr_assert_eq(st->peer[1].drained, cr, "the probe's count is taken");
	cr_assert_eq(st->resync_lost, cr >= 2 ? 2 : cr);
	cr_assert_eq(atomic_load_explicit(&stats[LC_STAT_fc_resync_lost], memory_order_relaxed),
		     st->resync_lost, "fc_resync_lost reaches --stats");
	cr_assert(st->peer[1].flags & LC_FC_F_ANSWER, "the probe is answered");
	/* a second probe with the same count (the answer was slow) changes nothing */
	cr_assert_eq(fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe)), LC_CONSUMED);
	cr_assert_eq(st->peer[1].drained, cr);
	cr_assert_eq(st->resync_lost, cr >= 2 ? 2 : cr);
	/* a duplicated frame counted twice: the next probe lowers drained again */
	fc_recv(1, LC_FT_DATA, 0, NULL, 0);
	fc_recv(1, LC_FT_DATA, 0, NULL, 0);
	probe.sent = cr + 1;
	probe.adv = 1;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));
	cr_assert_eq(st->peer[1].drained, cr + 1);
	cr_assert_eq(st->resync_extra, 1);
	cr_assert_eq((int32_t)(st->peer[1].drained - st->peer[1].told) >= 0, 1,
		     "told never runs ahead of drained");
	/*
	 * damaged, ignored: a probe that breaks the sender's bound (sent - adv <=
	 * credits), lies far below our count, or whose adv lies far above it
	 */
	uint64_t stale = st->stale;
	probe.sent = cr + 1 + cr + 1;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));
	probe.sent = 0x80000000u;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));
	probe.sent = probe.adv = 0x80000000u;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));
	cr_assert_eq(st->peer[1].drained, cr + 1);
	cr_assert_eq(st->stale, stale + 3);
	cr_assert_eq(st->resync_lost, cr >= 2 ? 2 : cr);

	/*
	 * A late probe (resent by a protocol below after data frames sent later
	 * went without it) lowers drained below what the sender heard: 3 frames
	 * counted and told, then the old probe.  The sender, blocked again at
	 * adv + credits, probes: sent - drained is now credits + 3, and that
	 * probe must still be taken, or the sender waits forever.
	 */
	for (int i = 0; i < 3; i++)
		fc_recv(1, LC_FT_DATA, 0, NULL, 0);
	cr_assert_eq(st->peer[1].drained, cr + 4);
	probe.sent = cr + 1;
	probe.adv = 1;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));   /* the late one */
	cr_assert_eq(st->peer[1].drained, cr + 1, "a late probe is taken as it stands");
	probe.sent = cr + 4 + cr;
	probe.adv = cr + 4;
	fc_recv(1, LC_FT_CTRL, 0, &probe, sizeof(probe));
	cr_assert_eq(st->peer[1].drained, cr + 4 + cr,
		     "the blocked sender's probe repairs what a late one did (stale %llu)",
		     (unsigned long long)st->stale);
	cr_assert_eq(st->stale, stale + 3);

	/* sender side, across 2^32: blocked at the credit bound, one frame lost */
	st->peer[2].sent = st->peer[2].adv = UINT32_MAX - 1;
	for (uint32_t i = 0; i < cr; i++)
		cr_assert_eq(fc_send(2), LC_CONTINUE, "frame %u", i);
	cr_assert_eq(fc_send(2), LC_RETRY);
	cr_assert(st->peer[2].flags & LC_FC_F_BLOCKED, "a blocked sender will probe");
	/* the answer to its probe carries drained = sent: every credit is back */
	struct lc_fc_ctrl credit = { .tag = LC_FC_TAG, .kind = LC_FC_CREDIT };
	cr_assert_eq(fc_recv(2, LC_FT_CTRL, (uint16_t)(UINT32_MAX - 1 + cr), &credit, sizeof(credit)),
		     LC_CONSUMED);
	cr_assert_eq(st->peer[2].adv, UINT32_MAX - 1 + cr);
	for (uint32_t i = 0; i < cr; i++)
		cr_assert_eq(fc_send(2), LC_CONTINUE, "frame %u after the resync", i);
	cr_assert_eq(fc_send(2), LC_RETRY);
	fc_node.stats = NULL;
}
#else
LC_T_SKIPPED(flow_control, probe_resyncs_lost_and_duplicated_frames,
	     "without exactly_once only: with a protocol that provides it no data frame is lost or "
	     "duplicated for the probe to resync (!LC_PC_EXACTLY_ONCE)")
#endif
