/* SPDX-License-Identifier: MIT */
/* active_net tests: the frame's switches, changes exact to the message, the quiet wait; end-to-end switching under faults. */
#include "../pipeline/lc_run.h"

#include "lc_config.h"
#include "lc_pc.h"
#include "node.h"

#if LC_PROTO_ACTIVE_NET
/* A node with no NIC: the hooks alone, its counters in memory of its own. */
static struct lc_node at_node;
static _Atomic uint64_t at_stats[LC_STAT_COUNT];
#if LC_PROTO_RELIABILITY
static struct lc_reliability_peer at_rel[4];
#endif

static void at_setup(void)
{
	memset(&at_node, 0, sizeof(at_node));
	memset(at_stats, 0, sizeof(at_stats));
	at_node.size = 4;
	at_node.stats = at_stats;
#if LC_PROTO_RELIABILITY
	memset(at_rel, 0, sizeof(at_rel));
	at_node.proto.reliability.peer = at_rel;    /* the quiet function reads una/next */
#endif
	cr_assert_eq(lc_active_net_init(&at_node), 0);
}

TestSuite(active_net, .init = at_setup, .timeout = 240 * LC_T_SLOWDOWN);

static struct lc_frame_hdr at_frame(uint8_t type, uint32_t dst, uint32_t seq, uint8_t flags)
{
	return (struct lc_frame_hdr){ .magic = LC_FRAME_MAGIC, .type = type, .flags = flags,
				      .src = 0, .dst = (uint16_t)dst, .seq = seq };
}

/* the switches active's send_frame gives a frame, or -1 when it holds it (LC_RETRY) */
static int at_send(uint8_t type, uint32_t dst, uint32_t seq, uint8_t flags)
{
	struct lc_frame_hdr h = at_frame(type, dst, seq, flags);

	if (lc_active_net_send_frame(&at_node, &h, NULL) == LC_RETRY)
		return -1;
	return (int)lc_switch_flags(&h);
}

/* queue a change of peer d's flags from message seq on, as lc_active_net_set does */
static void at_change(uint32_t d, uint32_t seq, unsigned on)
{
	struct lc_active_net_peer *p = &at_node.proto.active_net.peer[d];

	p->ch[(p->head + p->n) % LC_ACTIVE_NET_CHANGES] = (struct lc_active_net_change){ .seq = seq, .on = (uint8_t)on };
	p->n++;
}

Test(active_net, a_damaged_switch_byte_turns_every_protocol_on)
{
	struct lc_frame_hdr h = at_frame(LC_FT_DATA, 1, 0, LC_FF_FIRST | LC_FF_LAST);

	uint8_t *pair[2] = { &h.active_net_on, &h.active_net_chk };
	unsigned n = 0;

	/* every flag value, every 1, 2 and 3 bits flipped in the pair (the fault injector flips 1-3) */
	for (unsigned on = 0; on <= LC_SWITCHABLE; on++)
		for (unsigned a = 0; a < 16; a++)
			for (unsigned b = a; b < 16; b++)
				for (unsigned c = b; c < 16; c++) {
					lc_switch_set(&h, on);
					cr_assert_eq(lc_switch_flags(&h), on);
					*pair[a / 8] ^= (uint8_t)(1u << (a % 8));
					if (b != a)
						*pair[b / 8] ^= (uint8_t)(1u << (b % 8));
					if (c != b)
						*pair[c / 8] ^= (uint8_t)(1u << (c % 8));
					cr_assert_eq(lc_switch_flags(&h), LC_SWITCHABLE,
						     "flags 0x%x with bits %u %u %u flipped: every check must be on", on,
						     a, b, c);
					n++;
				}
	cr_assert_gt(n, 0u);
	memset(&h, 0, sizeof h);   /* a header nobody switched */
	cr_assert_eq(lc_switch_flags(&h), LC_SWITCHABLE);
}

Test(active_net, control_frames_carry_every_switch)
{
	at_node.proto.active_net.peer[1].on = 0;
	cr_assert_eq(at_send(LC_FT_DATA, 1, 0, LC_FF_FIRST), 0, "data follows the peer's flags");
	cr_assert_eq(at_send(LC_FT_CTRL, 1, 0, LC_FF_FIRST | LC_FF_LAST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_FRAMEWORK, 1, 0, LC_FF_FIRST | LC_FF_LAST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_RDMA, 1, 0, 0), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 2, 0, LC_FF_FIRST), (int)LC_SWITCHABLE, "another peer's flags");
}

Test(active_net, a_change_takes_effect_at_its_message_and_not_before)
{
	unsigned ck = LC_SWITCHABLE & 1u;   /* the first switchable protocol's bit */

	at_change(1, 10, ck);
	at_change(1, 12, LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 9, LC_FF_FIRST), (int)LC_SWITCHABLE, "message 9: before the change");
	cr_assert_eq(at_send(LC_FT_DATA, 1, 9, 0), (int)LC_SWITCHABLE, "message 9's later frames too");
	cr_assert_eq(at_send(LC_FT_DATA, 1, 10, LC_FF_FIRST), (int)ck);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 10, LC_FF_LAST), (int)ck);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 11, LC_FF_FIRST), (int)ck);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 12, LC_FF_FIRST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_node.proto.active_net.peer[1].n, 0);
	cr_assert_eq(at_stats[LC_STAT_active_changes], 2);
	/* sequence numbers wrap: a change at 2 after 0xfffffffe comes after it */
	at_node.proto.active_net.peer[3].on = LC_SWITCHABLE;
	at_change(3, 2, 0);
	cr_assert_eq(at_send(LC_FT_DATA, 3, 0xfffffffeu, LC_FF_FIRST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 3, 1, LC_FF_FIRST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 3, 2, LC_FF_FIRST), 0);
}

#if LC_PROTO_RELIABILITY
Test(active_net, switching_a_protocol_off_waits_until_it_is_quiet)
{
	at_rel[1].next = 5;
	at_rel[1].una = 3;        /* two frames to node 1 not acknowledged yet */
	at_change(1, 7, LC_SWITCHABLE & ~LC_SWITCH_BIT_RELIABILITY);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 6, LC_FF_FIRST), (int)LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 7, LC_FF_FIRST), -1, "held while reliability has frames out");
	cr_assert_eq(at_send(LC_FT_DATA, 1, 7, LC_FF_FIRST), -1);
	cr_assert_eq(at_stats[LC_STAT_active_waits], 1, "a wait is counted once");
	cr_assert_eq(at_send(LC_FT_CTRL, 1, 0, LC_FF_FIRST | LC_FF_LAST), (int)LC_SWITCHABLE,
		     "control frames (acks) still go");
	at_rel[1].una = 5;
	cr_assert_eq(at_send(LC_FT_DATA, 1, 7, LC_FF_FIRST), (int)(LC_SWITCHABLE & ~LC_SWITCH_BIT_RELIABILITY));
	/* switching it on again does not wait */
	at_rel[1].next = 9;
	at_change(1, 8, LC_SWITCHABLE);
	cr_assert_eq(at_send(LC_FT_DATA, 1, 8, LC_FF_FIRST), (int)LC_SWITCHABLE);
	/* a peer given up is quiet */
	at_rel[2].next = 4;
	at_rel[2].dead = 1;
	at_change(2, 0, 0);
	cr_assert_eq(at_send(LC_FT_DATA, 2, 0, LC_FF_FIRST), 0);
}
#else
LC_T_SKIPPED(active_net, switching_a_protocol_off_waits_until_it_is_quiet,
	     "reliability is not composed with active_net here (LC_PROTO_RELIABILITY): no quiet function to wait for")
#endif

/* commrun --stats [--faults SPEC] -n 2 actswitch A1 [A2] */
static void at_run(struct lc_t_out *o, const char *faults, const char *a1, const char *a2)
{
	char crun[512], prog[512];
	char *argv[16];
	int k = 0;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(prog, sizeof prog, "tests/progs/actswitch");
	argv[k++] = crun;
	argv[k++] = "--show-job";
	argv[k++] = "--stats";
	argv[k++] = "--timeout";
	argv[k++] = "200";
	if (faults) {
		argv[k++] = "--faults";
		argv[k++] = (char *)faults;
	}
	argv[k++] = "-n";
	argv[k++] = "2";
	argv[k++] = prog;
	argv[k++] = (char *)a1;
	argv[k++] = (char *)a2;   /* NULL ends the list when there is no second argument */
	argv[k] = NULL;
	lc_t_exec(o, argv, NULL);
	cr_assert(o->job[0] == '/', "commrun did not name its job; output:\n%s", o->text);
	cr_assert(!lc_t_seg_exists(o->job), "segment /dev/shm%s left behind", o->job);
	cr_assert_eq(o->status, 0, "actswitch failed:\n%s", o->text);
}

/* "actswitch node N: got of n (reliable r of r), lost l, damaged d, aborted a" of node `me` */
static void at_result(const struct lc_t_out *o, int me, unsigned v[7])
{
	char key[64];
	const char *p;

	snprintf(key, sizeof key, "actswitch node %d: ", me);
	p = strstr(o->text, key);
	cr_assert(p, "no result line of node %d:\n%s", me, o->text);
	cr_assert_eq(sscanf(p + strlen(key), "%u of %u (reliable %u of %u), lost %u, damaged %u, aborted %u",
			    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]), 7, "%s", p);
}

Test(active_net, switching_while_traffic_flows_loses_nothing)
{
	struct lc_t_out o;
	const char *n = LC_T_N("2000", "400");
	unsigned v[7];

	at_run(&o, NULL, n, "50");
	for (int me = 0; me < 2; me++) {
		at_result(&o, me, v);
		cr_assert_eq(v[0], v[1], "node %d got %u of %u on a clean link", me, v[0], v[1]);
		cr_assert_eq(v[4] + v[5] + v[6], 0u);
		/* a change at every run of 50: 4 phases, back to all on at the end */
		cr_assert_eq(lc_t_stat(&o, "active_changes", me), (unsigned long long)v[1] / 50u,
			     "node %d: changes applied", me);
	}
	lc_t_out_free(&o);
}

#if LC_PROTO_RELIABILITY
Test(active_net, switching_under_faults_keeps_what_was_sent_reliably)
{
	struct lc_t_out o;
	unsigned v[7];

	at_run(&o, "drop=0.03,corrupt=0.01,dup=0.01,reorder=0.02,seed=7", LC_T_N("2000", "400"), "50");
	for (int me = 0; me < 2; me++) {
		at_result(&o, me, v);
		cr_assert_eq(v[2], v[3], "node %d: reliable %u of %u", me, v[2], v[3]);
		/* the runs without reliability really ran without it: the link lost some of them */
		cr_assert_gt(v[4] + v[6], 0u, "node %d: nothing sent unreliably was lost on a link that "
			     "drops 3 %% of frames:\n%s", me, o.text);
		cr_assert_gt(lc_t_stat(&o, "active_waits", me), 0ull, "node %d never waited for quiet", me);
	}
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(active_net, switching_under_faults_keeps_what_was_sent_reliably,
	     "needs reliability composed with active_net (LC_PROTO_RELIABILITY): the link loses frames")
#endif

Test(active_net, api_errors_and_changes_waiting_for_their_messages)
{
	struct lc_t_out o;

	at_run(&o, NULL, "api", NULL);
	cr_assert(strstr(o.text, "actswitch api: ok"), "%s", o.text);
	lc_t_out_free(&o);
}
#else
#define WHY "needs active_net composed (LC_PROTO_ACTIVE_NET)"
LC_T_SKIPPED(active_net, a_damaged_switch_byte_turns_every_protocol_on, WHY)
LC_T_SKIPPED(active_net, control_frames_carry_every_switch, WHY)
LC_T_SKIPPED(active_net, a_change_takes_effect_at_its_message_and_not_before, WHY)
LC_T_SKIPPED(active_net, switching_a_protocol_off_waits_until_it_is_quiet, WHY)
LC_T_SKIPPED(active_net, switching_while_traffic_flows_loses_nothing, WHY)
LC_T_SKIPPED(active_net, switching_under_faults_keeps_what_was_sent_reliably, WHY)
LC_T_SKIPPED(active_net, api_errors_and_changes_waiting_for_their_messages, WHY)
#endif
