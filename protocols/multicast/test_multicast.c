/* SPDX-License-Identifier: MIT */
/* multicast tests: the group table, NIC replication, and group traffic among node processes. */
#include "../../tests/pipeline/lc_run.h"

#include <stdatomic.h>
#include <stdint.h>

#include "faults.h"
#include "geom.h"
#include "lc_config.h"
#include "lc_crc32c.h"
#include "lc_errors.h"
#include "lc_coop.h"
#include "lc_frame_hdr.h"
#include "nic.h"
#if LC_STAMPED
#include "lc_composite_nic.h"
#endif

/* ---- in-process NICs on one segment: the group table and replication ---- */

#define NODES 4
static char seg_name[64];
static struct lc_nic *nics[NODES];

/*
 * Detach every NIC and remove the segment: the suites' .fini, and at exit for
 * a test that leaves by exit(0) without .fini (LC_T_SKIPPED's cr_skip_test in
 * the configs without NIC replication), so no segment stays in /dev/shm.
 * Whatever is already gone is left alone.
 */
static void seg_down(void)
{
	for (uint32_t i = 0; i < NODES; i++)
		if (nics[i]) {
			lc_nic_detach(nics[i]);
			nics[i] = NULL;
		}
	if (seg_name[0]) {
		lc_seg_unlink(seg_name);
		seg_name[0] = '\0';
	}
}

/* A segment of NODES nodes with faults spec (NULL: none) and every NIC attached. */
static void seg_up_faults(const char *spec)
{
	static int at_exit;
	struct lc_nic_geom g;
	char err[256] = "";
	int rc;

	if (!at_exit++)
		atexit(seg_down);
	cr_assert_eq(lc_geom_from_config(&g, NODES), 0);
	cr_assert_eq(g.groups, LC_MULTICAST_MAX_GROUPS, "the geometry carries the group table");
	snprintf(seg_name, sizeof seg_name, "/lc.mctest.%d", (int)getpid());
	lc_seg_unlink(seg_name);
	cr_assert_eq(lc_seg_create(seg_name, &g, err, sizeof err), 0, "%s", err);
	if (spec) {
		struct lc_fault_cfg fc;

		cr_assert_eq(lc_faults_parse(spec, &fc, err, sizeof err), 0, "%s", err);
		cr_assert_eq(lc_seg_set_faults(seg_name, &fc), 0);
	}
	for (uint32_t i = 0; i < NODES; i++) {
		nics[i] = lc_nic_attach(seg_name, i, &g, err, sizeof err, &rc);
		cr_assert_not_null(nics[i], "attach %u: %s", i, err);
	}
}

static void seg_up(void)
{
	seg_up_faults(NULL);
}

TestSuite(mcast_nic, .init = seg_up, .fini = seg_down, .timeout = 30 * LC_T_SLOWDOWN);

/* Reasons of the tests a config compiles out (LC_T_SKIPPED). */
#define LC_T_NIC_WHY "needs multicast replicated by the NIC (multicast.mode = nic, LC_MULTICAST_MODE_NIC)"
#define LC_T_GROUPS_WHY "needs static groups in the config (multicast.groups: LC_MULTICAST_GROUPS_COUNT > 0)"
#define LC_T_EXACTLY_ONCE_WHY "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)"

static int members(struct lc_nic *nic, uint32_t gid, uint32_t *out)
{
	uint64_t bits[LC_NIC_GROUP_WORDS];
	int n = lc_nic_group_members(nic, gid, bits), k = 0;

	if (n < 0)
		return n;
	for (uint32_t i = 0; i < LC_MAX_NODES; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			out[k++] = i;
	cr_assert_eq(k, n, "count and bitmap agree");
	return n;
}

Test(mcast_nic, create_join_leave_seen_by_every_nic)
{
	uint32_t m[] = { 0, 2, 2 }, out[LC_MAX_NODES], gid = 99;

	cr_assert_eq(lc_nic_group_create(nics[0], m, 3, &gid), 0);
	cr_assert_eq(gid, 0);
	cr_assert_eq(members(nics[3], gid, out), 2, "duplicates count once");
	cr_assert(out[0] == 0 && out[1] == 2);
	cr_assert_eq(lc_nic_group_join(nics[3], gid, 3), 0);
	cr_assert_eq(lc_nic_group_join(nics[3], gid, 3), 0, "join is idempotent");
	cr_assert_eq(members(nics[1], gid, out), 3);
	cr_assert_eq(lc_nic_group_leave(nics[2], gid, 2), 0);
	cr_assert_eq(lc_nic_group_leave(nics[2], gid, 2), 0, "leave is idempotent");
	cr_assert_eq(members(nics[0], gid, out), 2);
	cr_assert(out[0] == 0 && out[1] == 3);
	cr_assert_eq(lc_nic_group_join(nics[0], gid, NODES), LC_ERR_RANGE, "node out of range");
	cr_assert_eq(lc_nic_group_join(nics[0], gid + 1, 1), LC_ERR_RANGE, "no such group");
	cr_assert_eq(lc_nic_group_destroy(nics[1], gid), 0);
	cr_assert_eq(members(nics[0], gid, out), LC_ERR_RANGE, "destroyed for everyone");
	cr_assert_eq(lc_nic_group_destroy(nics[1], gid), LC_ERR_RANGE);
	cr_assert_eq(members(nics[2], LC_NIC_GROUP_WORLD(nics[2]), out), NODES, "world = every node");
}

Test(mcast_nic, table_full_then_an_id_comes_back)
{
	uint32_t m = 1, gid, last = 0;

	for (uint32_t i = 0; i < LC_MULTICAST_MAX_GROUPS; i++) {
		cr_assert_eq(lc_nic_group_create(nics[i % NODES], &m, 1, &gid), 0, "group %u", i);
		cr_assert_eq(gid, i);
		last = gid;
	}
	cr_assert_eq(lc_nic_group_create(nics[0], &m, 1, &gid), LC_ERR_AGAIN, "table full");
	cr_assert_eq(lc_nic_group_destroy(nics[0], last / 2), 0);
	cr_assert_eq(lc_nic_group_create(nics[1], &m, 1, &gid), 0);
	cr_assert_eq(gid, last / 2, "the freed id is reused");
	m = NODES;
	cr_assert_eq(lc_nic_group_create(nics[0], &m, 1, &gid), LC_ERR_RANGE, "member out of range");
}

#if LC_MULTICAST_MODE_NIC
/*
 * Post a one-frame group message of 8 bytes (tag) from nics[0] to gid, as
 * the host's send_frame hooks do (multicast/hooks.h): the members of the
 * group now, the sender aside, in the slot's stamp table, LC_FF_GROUP set.
 */
static void post_group(uint32_t gid, uint32_t tag)
{
	uint8_t *slot = lc_nic_tx_slot(nics[0]);
	void *t = lc_nic_tx_stamp(nics[0]);
	uint64_t bits[LC_NIC_GROUP_WORDS];
	struct lc_frame_hdr h = { .magic = LC_FRAME_MAGIC, .type = LC_FT_DATA,
				  .flags = LC_FF_FIRST | LC_FF_LAST | LC_FF_GROUP, .src = 0,
				  .dst = (uint16_t)LC_NIC_GROUP_DST(gid), .len = 8, .seq = tag,
				  .msg_len = 8 };
	uint64_t v = tag;

	cr_assert_not_null(slot);
#if LC_STAMPED
	cr_assert_not_null(t, "a stamp table per Send Ring slot");
	cr_assert_geq(lc_nic_group_members(nics[0], gid, bits), 0);
	{
		struct lc_stamps *st = t;

		st->n = 0;
		for (uint32_t i = 1; i < NODES; i++)
			if (bits[i / 64] >> (i % 64) & 1)
				st->m[st->n++] = (struct lc_stamp){ .member = (uint16_t)i };
	}
#else
	/* nic mode alone: no table, the NIC marks the frame and reads the group */
	cr_assert_null(t, "no stamp table without a per-member protocol");
	(void)bits;
	h.flags &= (uint8_t)~LC_FF_GROUP;
#endif
	memcpy(slot, &h, sizeof h);
	memcpy(slot + sizeof h, &v, 8);
	lc_nic_tx_post_pio(nics[0]);
}

/* Step every MCP a while. */
static void step_all(int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (uint32_t i = 0; i < NODES; i++)
			lc_nic_step(nics[i]);
}

/* Take every frame in node i's staging (stepping only its MCP); tags[] of the first cap. */
static uint32_t drain(uint32_t i, uint32_t gid, uint32_t *tags, uint32_t cap)
{
	struct lc_frame_hdr *h;
	uint32_t n = 0;

	(void)gid;   /* the wire carries no group id: LC_FF_GROUP and dst = member */
	while ((h = lc_nic_rx_peek(nics[i]))) {
		uint64_t v;

		cr_assert_eq(h->dst, i, "each copy is addressed to its member");
		cr_assert(h->flags & LC_FF_GROUP);
		memcpy(&v, (uint8_t *)h + sizeof *h, 8);
		if (n < cap)
			tags[n] = (uint32_t)v;
		n++;
		lc_nic_rx_release(nics[i]);
		lc_nic_step(nics[i]);
	}
	return n;
}

Test(mcast_nic, the_sender_nic_copies_each_frame_to_every_member_but_itself)
{
	uint32_t m[] = { 0, 1, 3 }, gid, tags[8];
	_Atomic uint64_t *st = lc_nic_stats(nics[0]);

	cr_assert_eq(lc_nic_group_create(nics[0], m, 3, &gid), 0);
	post_group(gid, 7);
	step_all(8);
	cr_assert_eq(drain(0, gid, tags, 8), 0, "the root gets no copy");
	cr_assert_eq(drain(1, gid, tags, 8), 1);
	cr_assert_eq(tags[0], 7);
	cr_assert_eq(drain(2, gid, tags, 8), 0, "not a member");
	cr_assert_eq(drain(3, gid, tags, 8), 1);
	cr_assert_eq(atomic_load_explicit(&st[LC_NIC_STAT_mcast_frames], memory_order_relaxed), 1);
	cr_assert_eq(atomic_load_explicit(&st[LC_NIC_STAT_net_tx_frames], memory_order_relaxed), 2, "one injection per member");
	/* membership is read at the first frame of the next message */
	cr_assert_eq(lc_nic_group_leave(nics[1], gid, 1), 0);
	cr_assert_eq(lc_nic_group_join(nics[2], gid, 2), 0);
	post_group(gid, 8);
	step_all(8);
	cr_assert_eq(drain(1, gid, tags, 8), 0, "left before the message");
	cr_assert_eq(drain(2, gid, tags, 8), 1, "joined before the message");
	cr_assert_eq(drain(3, gid, tags, 8), 1);
}

Test(mcast_nic, a_full_member_ring_holds_the_frame_others_keep_their_single_copy)
{
	uint32_t m[] = { 1, 2 }, gid, tags[4096], n1 = 0, n2, total = LC_NIC_RECV_RING + 4;

	cr_assert_eq(lc_nic_group_create(nics[0], m, 2, &gid), 0);
	/* node 2 never drains: its Receive Ring and staging fill up, node 1 drains */
	for (uint32_t k = 0; k < total; k++) {
		while (!lc_nic_tx_slot(nics[0])) {
			lc_nic_step(nics[0]);
			lc_nic_step(nics[1]);
			n1 += drain(1, gid, tags + (n1 < 4000 ? n1 : 0), 4096 - n1);
		}
		post_group(gid, k);
		lc_nic_step(nics[0]);
		lc_nic_step(nics[1]);
		n1 += drain(1, gid, tags + (n1 < 4000 ? n1 : 0), 4096 - n1);
	}
	for (int r = 0; r < 64; r++) {
		lc_nic_step(nics[0]);
		lc_nic_step(nics[1]);
		n1 += drain(1, gid, tags + n1, 4096 - n1);
	}
	cr_assert_lt(n1, total, "node 1 is held back with the frame that node 2 has no room for");
	for (uint32_t k = 0; k < n1; k++)
		cr_assert_eq(tags[k], k, "node 1: each frame once, in order");
	/* node 2 drains now: every frame reaches both, exactly once, in order */
	n2 = 0;
	for (int r = 0; r < 100000 && (n1 < total || n2 < total); r++) {
		uint32_t t2[64], got;

		step_all(1);
		n1 += drain(1, gid, tags + n1, 4096 - n1);
		got = drain(2, gid, t2, 64);
		for (uint32_t k = 0; k < got && k < 64; k++)
			cr_assert_eq(t2[k], n2 + k, "node 2: in order");
		n2 += got;
	}
	cr_assert_eq(n1, total);
	cr_assert_eq(n2, total);
	for (uint32_t k = 0; k < n1; k++)
		cr_assert_eq(tags[k], k);
	cr_assert_eq(atomic_load_explicit(&lc_nic_stats(nics[0])[LC_NIC_STAT_bp_drops], memory_order_relaxed), 0);
}

#if LC_STAMPED
/* Header h with every seal field (lc_coop.h, LC_HDR_SEAL_MASK) as 0. */
static void unseal(struct lc_frame_hdr *h)
{
	unsigned char *b = (unsigned char *)h;

	for (unsigned i = 0; i < sizeof(*h) && i < 64; i++)
		if ((LC_HDR_SEAL_MASK >> i) & 1u)
			b[i] = 0;
}

Test(mcast_nic, each_copy_carries_its_members_stamp_and_is_sealed_over_its_final_header)
{
	uint32_t m[] = { 1, 2, 3 }, gid, seen = 0;
	uint8_t *slot;
	struct lc_stamps *t;
	struct lc_frame_hdr h = { .magic = LC_FRAME_MAGIC, .type = LC_FT_DATA,
				  .flags = LC_FF_FIRST | LC_FF_LAST | LC_FF_GROUP, .src = 0,
				  .len = 8, .seq = 5, .msg_len = 8 };
	uint64_t v = 0x1122334455667788ull;

	cr_assert_eq(lc_nic_group_create(nics[0], m, 3, &gid), 0);
	h.dst = (uint16_t)LC_NIC_GROUP_DST(gid);
	slot = lc_nic_tx_slot(nics[0]);
	t = lc_nic_tx_stamp(nics[0]);
	cr_assert_not_null(slot);
	cr_assert_not_null(t);
	/* members out of group order, each member field at its wrap for one and small for the other */
	t->n = 2;
	t->m[0] = (struct lc_stamp){ .member = 3 };
	t->m[1] = (struct lc_stamp){ .member = 1 };
#define LC_X_SET(f)           \
	t->m[0].f -= 2;       \
	t->m[1].f = 40;
	LC_STAMP_FIELDS(LC_X_SET)
#undef LC_X_SET
	memcpy(slot, &h, sizeof h);
	memcpy(slot + sizeof h, &v, 8);
	lc_nic_tx_post_pio(nics[0]);
	step_all(8);
	for (uint32_t i = 1; i < NODES; i++) {
		struct lc_frame_hdr *r;

		while ((r = lc_nic_rx_peek(nics[i]))) {
			const struct lc_stamp *want = i == 3 ? &t->m[0] : &t->m[1];
			/* the header, then the payload right after it (a seal covers both; the header
			 * may end 4 bytes past a multiple of 8, so no struct of the two) */
			union {
				struct lc_frame_hdr h;
				unsigned char b[sizeof(struct lc_frame_hdr) + sizeof(uint64_t)];
			} copy;
			uint64_t cv;

			cr_assert_neq(i, 2, "node 2 is in the group but not in the table");
			cr_assert_eq(r->dst, i);
#define LC_X_CHECK(f) cr_assert_eq(r->f, want->f, "node %u: its own " #f, i);
			LC_STAMP_FIELDS(LC_X_CHECK)
#undef LC_X_CHECK
			/* sealed over the copy as stamped: sealing it again changes nothing */
			memcpy(copy.b, r, sizeof copy.b);
			unseal(&copy.h);
			lc_pc_seal(&copy.h);
			cr_assert(memcmp(copy.b, r, sizeof copy.b) == 0, "node %u: seal of the copy as stamped", i);
			memcpy(&cv, copy.b + sizeof(struct lc_frame_hdr), sizeof cv);
			cr_assert_eq(cv, v);
			seen |= 1u << i;
			lc_nic_rx_release(nics[i]);
			lc_nic_step(nics[i]);
		}
	}
	cr_assert_eq(seen, (1u << 1) | (1u << 3), "one copy to each member of the table");
}
#else
LC_T_SKIPPED(mcast_nic, each_copy_carries_its_members_stamp_and_is_sealed_over_its_final_header,
	     "needs NIC replication with a protocol that has per-member header fields, so that each copy "
	     "carries a stamp (LC_STAMPED)")
#endif

/* ---- NIC-made copies go through the per-link fault injector ---- */

static void seg_up_lossy(void)
{
	seg_up_faults("drop=0.3,dup=0.2,seed=11");
}

TestSuite(mcast_nic_faults, .init = seg_up_lossy, .fini = seg_down, .timeout = 30 * LC_T_SLOWDOWN);

Test(mcast_nic_faults, each_copy_draws_and_counts_its_own_faults_on_its_link)
{
	enum { MSGS = 200 };
	uint32_t m[] = { 0, 1, 2, 3 }, gid, tags[4 * MSGS], got[NODES] = { 0 };
	uint64_t f[NODES * LC_FAULT_COUNT];
	uint32_t n = 0;

	cr_assert_eq(lc_nic_group_create(nics[0], m, 4, &gid), 0);
	for (uint32_t k = 0; k < MSGS; k++) {
		while (!lc_nic_tx_slot(nics[0]))
			step_all(1);
		post_group(gid, k);
		step_all(2);
		for (uint32_t i = 1; i < NODES; i++)
			got[i] += drain(i, gid, tags, 0);
	}
	step_all(64);
	for (uint32_t i = 1; i < NODES; i++)
		got[i] += drain(i, gid, tags, 0);
	cr_assert_eq(lc_seg_read_faults(seg_name, 0, f, NODES * LC_FAULT_COUNT, &n), 0);
	cr_assert_eq(n, NODES);
	for (uint32_t i = 0; i < LC_FAULT_COUNT; i++)
		cr_assert_eq(f[0 * LC_FAULT_COUNT + i], 0, "no copy to the root itself");
	for (uint32_t i = 1; i < NODES; i++) {
		uint64_t drops = f[i * LC_FAULT_COUNT + LC_FAULT_drop];
		uint64_t dups = f[i * LC_FAULT_COUNT + LC_FAULT_dup];

		cr_assert_gt(drops, 0, "link 0->%u: copies dropped", i);
		cr_assert_gt(dups, 0, "link 0->%u: copies duplicated", i);
		cr_assert_eq(got[i], MSGS - drops + dups, "member %u: every copy counted on its own link "
			     "(got %u, drops %llu, dups %llu)", i, got[i], (unsigned long long)drops,
			     (unsigned long long)dups);
	}
	/* each link draws from its own generator: the members do not lose the same messages */
	cr_assert(f[1 * LC_FAULT_COUNT + LC_FAULT_drop] != f[2 * LC_FAULT_COUNT + LC_FAULT_drop] ||
		  f[2 * LC_FAULT_COUNT + LC_FAULT_drop] != f[3 * LC_FAULT_COUNT + LC_FAULT_drop],
		  "three links, three independent loss patterns");
}
#else
LC_T_SKIPPED(mcast_nic, the_sender_nic_copies_each_frame_to_every_member_but_itself, LC_T_NIC_WHY)
LC_T_SKIPPED(mcast_nic, a_full_member_ring_holds_the_frame_others_keep_their_single_copy, LC_T_NIC_WHY)
LC_T_SKIPPED(mcast_nic, each_copy_carries_its_members_stamp_and_is_sealed_over_its_final_header,
	     LC_T_NIC_WHY)

/* no .init: its one test is skipped, no segment to set up */
TestSuite(mcast_nic_faults, .timeout = 30 * LC_T_SLOWDOWN);

LC_T_SKIPPED(mcast_nic_faults, each_copy_draws_and_counts_its_own_faults_on_its_link, LC_T_NIC_WHY)
#endif

/* ---- node programs (tests/multicast/progs/mcast.c) ---- */

TestSuite(mcast_run, .timeout = 200 * LC_T_SLOWDOWN);

Test(mcast_run, broadcast_to_8_nodes_intact_in_order)
{
	struct lc_t_out o;

	lc_t_commrun(&o, 8, 150, "mcast", "bcast", "64", NULL);
	lc_t_expect_ok(&o, "mcast ok:", 8);
	cr_assert_eq(lc_t_count(&o, "received 64 broadcasts intact in order"), 7, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(mcast_run, group_and_unicast_from_one_root_keep_their_order)
{
	struct lc_t_out o;

	lc_t_commrun(&o, 4, 150, "mcast", "order", "600", NULL);
	lc_t_expect_ok(&o, "mcast ok:", 4);
	cr_assert_eq(lc_t_count(&o, " messages in order"), 3, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/* commrun [opts...] -n nodes mcast args... (opts and args NULL-terminated lists). */
static void run_mcast(struct lc_t_out *o, int nodes, const char *const *opts, const char *const *args)
{
	char crun[512], prog[512], n[16];
	char *argv[40];
	int a = 0;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(prog, sizeof prog, "tests/progs/mcast");
	snprintf(n, sizeof n, "%d", nodes);
	argv[a++] = crun;
	argv[a++] = "--timeout";
	argv[a++] = "150";
	for (int i = 0; opts[i]; i++)
		argv[a++] = (char *)opts[i];
	argv[a++] = "-n";
	argv[a++] = n;
	argv[a++] = prog;
	for (int i = 0; args[i]; i++)
		argv[a++] = (char *)args[i];
	argv[a] = NULL;
	lc_t_exec_alarm(o, argv, NULL, 170);
}

Test(mcast_run, join_and_leave_while_traffic_flows)
{
	static const char *const opts[] = { "--group", "0,1,2", NULL };
	static const char *const args[] = { "joinleave", "400", NULL };
	struct lc_t_out o;

	run_mcast(&o, 4, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "mcast ok:"), 4, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "node 1 received 800 group messages, k 0..799"), "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(mcast_run, launcher_refuses_a_bad_group)
{
	static const char *const opts[] = { "--group", "0,9", NULL };
	static const char *const args[] = { "bcast", "1", NULL };
	struct lc_t_out o;

	run_mcast(&o, 4, opts, args);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.text, "--group 0,9: node 9 out of range 0..3"), "output:\n%s", o.text);
	lc_t_out_free(&o);
}

#if LC_MULTICAST_GROUPS_COUNT > 0
Test(mcast_run, static_groups_from_the_config_come_first_then_the_launchers)
{
	static const char *const opts[] = { "--group", "0,3", NULL };
	static const char *const args[] = { "static", "50", NULL };
	struct lc_t_out o;

	run_mcast(&o, 4, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "mcast ok:"), 4, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(mcast_run, a_static_group_naming_a_node_past_the_job_is_refused)
{
	static const char *const opts[] = { NULL };
	static const char *const args[] = { "bcast", "1", NULL };
	struct lc_t_out o;

	run_mcast(&o, 1, opts, args);
	cr_assert_neq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "multicast.groups: group 0 lists node 1, out of range 0..0"),
		  "output:\n%s", o.text);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mcast_run, static_groups_from_the_config_come_first_then_the_launchers, LC_T_GROUPS_WHY)
LC_T_SKIPPED(mcast_run, a_static_group_naming_a_node_past_the_job_is_refused, LC_T_GROUPS_WHY)
#endif

#if LC_PC_EXACTLY_ONCE
Test(mcast_run, reliable_broadcast_to_8_nodes_under_faults)
{
	static const char *const opts[] = {
		"--stats", "--faults", "drop=0.05,corrupt=0.01,dup=0.01,reorder=0.02,seed=7", NULL };
	static const char *const args[] = { "bcast", "200", NULL };
	struct lc_t_out o;

	run_mcast(&o, 8, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "received 200 broadcasts intact in order"), 7, "output:\n%s", o.text);
	/* the faults were real: commrun --stats lists the drops injected per link */
	const char *t = strstr(o.text, "# faults injected per link");
	unsigned long long drops = 0, d;
	unsigned a, b;

	cr_assert(t, "no fault table:\n%s", o.text);
	while ((t = strchr(t + 1, '\n')))
		if (sscanf(t + 1, "%*[^0-9]%u->%u %llu", &a, &b, &d) == 3)
			drops += d;
	cr_assert_gt(drops, 0, "no frame was dropped:\n%s", o.text);
#if LC_MULTICAST_MODE_NIC
	{
		/* the root posted each message once; its NIC made the copies */
		const char *tm = strstr(o.text, "\ntx_msgs "), *mf = strstr(o.text, "\nmcast_frames ");
		unsigned long long msgs = 0, frames = 0;

		cr_assert(tm && sscanf(tm, " tx_msgs %llu", &msgs) == 1, "output:\n%s", o.text);
		cr_assert(mf && sscanf(mf, " mcast_frames %llu", &frames) == 1, "output:\n%s", o.text);
		cr_assert_eq(msgs, 200, "root messages: one per broadcast:\n%s", o.text);
		cr_assert_gt(frames, 0, "no frame replicated by the root's NIC:\n%s", o.text);
	}
#endif
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mcast_run, reliable_broadcast_to_8_nodes_under_faults, LC_T_EXACTLY_ONCE_WHY)
#endif

/* A member that leaves the job (closes) mid-stream never blocks the group: the others get everything. */
Test(mcast_run, a_member_that_leaves_the_job_does_not_block_the_others)
{
	static const char *const opts[] = { NULL };
	static const char *const args[] = { "dropout", "400", NULL };
	struct lc_t_out o;

	run_mcast(&o, 4, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "received 400 broadcasts intact in order"), 2, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "received 100 broadcasts intact in order, then left"), 1,
		     "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "node 0 broadcast 400 messages"), 1, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

#if LC_PC_EXACTLY_ONCE
Test(mcast_run, reliable_group_and_unicast_from_one_root_keep_their_order_under_faults)
{
	static const char *const opts[] = {
		"--stats", "--faults", "drop=0.05,corrupt=0.01,dup=0.01,reorder=0.02,seed=3", NULL };
	static const char *const args[] = { "order", "600", NULL };
	struct lc_t_out o;

	run_mcast(&o, 4, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "mcast ok:"), 4, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, " messages in order"), 3, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "# faults injected per link"), "no fault table:\n%s", o.text);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mcast_run, reliable_group_and_unicast_from_one_root_keep_their_order_under_faults,
	     LC_T_EXACTLY_ONCE_WHY)
#endif

#if LC_PC_CREDITS
/*
 * A member that sleeps while the root broadcasts: credits (LC_PC_CREDITS) hold the
 * root (a credit at every member per group frame) and every member gets
 * every message, none dropped at the backpressure limit.  (With exactly_once its window alone may bound what a
 * member holds; the config without it, flowctl_multicast_nic, shows the
 * credits at work.)
 */
Test(mcast_run, a_sleeping_member_never_overflows)
{
	static const char *const opts[] = { NULL };
	const char *args[] = { "sleepy", "200", NULL, "4", NULL };
	char nap[16];
	/* naps of twice the backpressure limit, at most 1 s */
	uint64_t twice_ms = lc_backpressure_ns() / 500000u;
	long ms = twice_ms < 1000 ? (long)twice_ms : 1000;
	struct lc_t_out o;
	const char *c;
	int seen = 0;

	snprintf(nap, sizeof nap, "%ld", ms);
	args[2] = nap;
	run_mcast(&o, 4, opts, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "received 200 broadcasts intact in order"), 3, "output:\n%s", o.text);
	for (c = o.text; (c = strstr(c, "mcast counters: node ")); c++) {
		unsigned long long stalls = 1, drops = 1, frames = 0;
		int node;

		cr_assert_eq(sscanf(c, "mcast counters: node %d bp_stalls %llu bp_drops %llu mcast_frames %llu",
				    &node, &stalls, &drops, &frames), 4,
			     "output:\n%s", o.text);
		cr_assert_eq(drops, 0, "node %d dropped frames at the backpressure limit:\n%s", node, o.text);
		if (node == 0)
			cr_assert_eq(frames > 0, LC_MULTICAST_MODE_NIC, "the root's NIC replicated (nic mode only):\n%s",
				     o.text);
		seen++;
	}
	cr_assert_eq(seen, 4, "counters of %d nodes:\n%s", seen, o.text);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mcast_run, a_sleeping_member_never_overflows, "needs a protocol that provides credits (LC_PC_CREDITS)")
#endif
