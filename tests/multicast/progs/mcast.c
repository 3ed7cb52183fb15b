/* SPDX-License-Identifier: MIT */
/* Node program of the multicast tests: broadcast sizes, order with unicast, join/leave under traffic. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

#if LC_PROTO_MULTICAST
/*
 * mcast bcast N       node 0 broadcasts N messages (sizes cycle over every
 *                     frame boundary), every other node checks each one.
 * mcast order N       node 0 interleaves broadcasts with unicasts to each
 *                     node (k % 3 == 0: broadcast, else unicast to
 *                     1 + (k/3 + k%3) % (n-1)); each node checks it gets exactly its
 *                     messages, in the order sent.
 * mcast joinleave N   group COUNT = {0,1,2} comes from the launcher (--group;
 *                     COUNT = the config's static groups, usually 0);
 *                     node 0 sends N group messages, node 2 leaves after N/4,
 *                     node 3 joins at once; each tells node 0, which then
 *                     sends N more: node 2 must get none of those, node 3
 *                     all of them, node 1 all 2N; then an end unicast.
 * mcast static N     the config's multicast.groups are groups 0..COUNT-1 with
 *                     exactly their members, the launcher's --group 0,3 is
 *                     group COUNT; node 0 sends N messages to each static
 *                     group, every member gets them all, in order.
 * mcast sleepy N NAP_MS NAPS
 *                     node 0 broadcasts N messages; node 1 sleeps NAPS times
 *                     NAP_MS spread over its receives, the others receive at
 *                     once; every node ends with
 *                     "mcast counters: node <i> bp_stalls <s> bp_drops <a> mcast_frames <c>"
 *                     (with flow control no copy may wait in the sender's NIC
 *                     until the backpressure limit drops it).
 * mcast dropout N     node 0 broadcasts N messages; the last node takes N/4
 *                     and closes (it leaves the job); the others must get
 *                     all N, in order.  A broadcast after the dropout may
 *                     report LC_ERR_PEER_DEAD (host mode: the send to that
 *                     member failed) but never blocks the group.
 * Every message: uint32 kind (G group, U unicast, E end), uint32 k, pattern.
 */
enum { K_GROUP = 'G', K_UNI = 'U', K_END = 'E', K_NOTE = 'N' };

static size_t msg_len(uint32_t k)
{
	const size_t sizes[] = { 8, 9, LC_MTU - 1, LC_MTU, LC_MTU + 1, 3 * LC_MTU + 7, 100, 65536 };

	return sizes[k % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void make(uint8_t *buf, size_t len, uint32_t kind, uint32_t k)
{
	memcpy(buf, &kind, 4);
	memcpy(buf + 4, &k, 4);
	lc_ex_fill(buf + 8, len - 8, lc_ex_seed(kind, k));
}

/* Receive one message from src; check its pattern; return kind, set *k. */
static uint32_t take(lc_node *node, int src, uint8_t *buf, size_t cap, uint32_t *k)
{
	struct lc_status st;
	uint32_t kind;

	LC_TP_OK(node, lc_recv(node, src, buf, cap, &st));
	if (st.len < 8)
		lc_tp_fail("message of %zu bytes from %d", st.len, st.src);
	memcpy(&kind, buf, 4);
	memcpy(k, buf + 4, 4);
	if (kind != K_END && kind != K_NOTE && st.len != msg_len(*k))
		lc_tp_fail("message k %u kind %c: %zu bytes, expected %zu", *k, kind, st.len,
			   msg_len(*k));
	if (lc_ex_check(buf + 8, st.len - 8, lc_ex_seed(kind, *k)) != st.len - 8)
		lc_tp_fail("message k %u kind %c from %d: payload damaged", *k, kind, st.src);
	return kind;
}

static int run_bcast(lc_node *node, int me, int n, uint32_t count, uint8_t *buf, size_t cap)
{
	uint32_t k, got;

	if (me == 0) {
		for (k = 0; k < count; k++) {
			make(buf, msg_len(k), K_GROUP, k);
			LC_TP_OK(node, lc_bcast(node, buf, msg_len(k)));
		}
		printf("[0] mcast ok: node 0 broadcast %u messages to %d nodes\n", count, n - 1);
		return 0;
	}
	for (got = 0; got < count; got++)
		if (take(node, 0, buf, cap, &k) != K_GROUP || k != got)
			lc_tp_fail("broadcast %u arrived as k %u", got, k);
	printf("[%d] mcast ok: node %d received %u broadcasts intact in order\n", me, me, got);
	return 0;
}

static int run_order(lc_node *node, int me, int n, uint32_t count, uint8_t *buf, size_t cap)
{
	uint32_t k, got = 0, want = 0;

	if (n < 2)
		lc_tp_fail("order needs 2 nodes");
	if (me == 0) {
		for (k = 0; k < count; k++) {
			if (k % 3 == 0) {
				make(buf, msg_len(k), K_GROUP, k);
				LC_TP_OK(node, lc_mcast(node, LC_GROUP_WORLD, buf, msg_len(k)));
			} else {
				make(buf, msg_len(k), K_UNI, k);
				LC_TP_OK(node, lc_send(node, 1 + (int)((k / 3 + k % 3) % (uint32_t)(n - 1)), buf,
						       msg_len(k)));
			}
		}
		printf("[0] mcast ok: node 0 sent %u messages\n", count);
		return 0;
	}
	for (k = 0; k < count; k++) {
		uint32_t kind = k % 3 == 0 ? K_GROUP : K_UNI, rk;

		if (kind == K_UNI && 1 + (int)((k / 3 + k % 3) % (uint32_t)(n - 1)) != me)
			continue;
		want++;
		if (take(node, LC_ANY_SOURCE, buf, cap, &rk) != kind || rk != k)
			lc_tp_fail("expected k %u kind %c, got k %u", k, kind, rk);
		got++;
	}
	printf("[%d] mcast ok: node %d received %u of %u messages in order\n", me, me, got, want);
	return 0;
}

/* the launcher's --group comes after the config's static groups */
#define JL_GID LC_MULTICAST_GROUPS_COUNT

static int run_joinleave(lc_node *node, int me, int n, uint32_t count, uint8_t *buf, size_t cap)
{
	int members[8], m;
	uint32_t k, rk, kind, got = 0, last = 0, first = UINT32_MAX, mark = UINT32_MAX;

	if (n != 4)
		lc_tp_fail("joinleave needs 4 nodes");
	m = lc_group_members(node, JL_GID, members, 8);
	if (me == 0) {
		uint8_t note[8];
		struct lc_status st;

		if (m < 3)
			lc_tp_fail("group 0 has %d members at the start (launcher --group 0,1,2)", m);
		for (k = 0; k < count; k++) {
			make(buf, msg_len(k), K_GROUP, k);
			LC_TP_OK(node, lc_mcast(node, JL_GID, buf, msg_len(k)));
		}
		/* the notes of nodes 2 and 3: both changes are done before what follows */
		for (int i = 0; i < 2; i++) {
			LC_TP_OK(node, lc_recv(node, LC_ANY_SOURCE, note, sizeof note, &st));
		}
		m = lc_group_members(node, JL_GID, members, 8);
		if (m != 3 || members[0] != 0 || members[1] != 1 || members[2] != 3)
			lc_tp_fail("group 0 after the changes: %d members", m);
		for (k = count; k < 2 * count; k++) {
			make(buf, msg_len(k), K_GROUP, k);
			LC_TP_OK(node, lc_mcast(node, JL_GID, buf, msg_len(k)));
		}
		for (int i = 1; i < 4; i++) {
			make(buf, 8, K_END, 2 * count);
			LC_TP_OK(node, lc_send(node, i, buf, 8));
		}
		printf("[0] mcast ok: node 0 sent %u group messages\n", 2 * count);
		return 0;
	}
	if (me == 3) {
		LC_TP_OK(node, lc_group_join(node, JL_GID));
		LC_TP_OK(node, lc_group_join(node, JL_GID));   /* idempotent */
		LC_TP_OK(node, lc_send(node, 0, "joined..", 8));
	}
	for (;;) {
		kind = take(node, 0, buf, cap, &rk);
		if (kind == K_END)
			break;
		if (kind != K_GROUP || (got && rk <= last))
			lc_tp_fail("k %u kind %c after k %u", rk, kind, last);
		if (first == UINT32_MAX)
			first = rk;
		last = rk;
		got++;
		if (me == 2 && got == count / 4) {
			LC_TP_OK(node, lc_group_leave(node, JL_GID));
			LC_TP_OK(node, lc_send(node, 0, "left....", 8));
			mark = rk;
		}
	}
	if (me == 1 && (got != 2 * count || first != 0))
		lc_tp_fail("node 1 got %u of %u", got, 2 * count);
	if (me == 2 && (last >= count || mark == UINT32_MAX || first != 0 || got != last + 1))
		lc_tp_fail("node 2 got %u, last k %u after leaving at k %u", got, last, mark);
	if (me == 3 && (got == 0 || last != 2 * count - 1 || got != last - first + 1 || first > count))
		lc_tp_fail("node 3 got %u, k %u..%u", got, first, last);
	printf("[%d] mcast ok: node %d received %u group messages, k %u..%u\n", me, me, got,
	       got ? first : 0, last);
	return 0;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int run_sleepy(lc_node *node, int me, int n, uint32_t count, long nap, uint32_t naps,
		      uint8_t *buf, size_t cap)
{
	uint64_t c[LC_STAT_COUNT];
	uint32_t k, got, every = naps ? count / naps : 0, napped = 0;

	if (me == 0) {
		for (k = 0; k < count; k++) {
			make(buf, msg_len(k), K_GROUP, k);
			LC_TP_OK(node, lc_bcast(node, buf, msg_len(k)));
		}
		printf("[0] mcast ok: node 0 broadcast %u messages to %d nodes\n", count, n - 1);
	} else {
		for (got = 0; got < count; got++) {
			if (me == 1 && every && got % every == 0 && napped < naps) {
				nap_ms(nap);
				napped++;
			}
			if (take(node, 0, buf, cap, &k) != K_GROUP || k != got)
				lc_tp_fail("broadcast %u arrived as k %u", got, k);
		}
		printf("[%d] mcast ok: node %d received %u broadcasts intact in order\n", me, me, got);
	}
	/* the root's counters are final once every member told it got everything */
	if (me == 0) {
		for (int i = 1; i < n; i++)
			if (take(node, LC_ANY_SOURCE, buf, cap, &k) != K_END)
				lc_tp_fail("expected an end message");
	} else {
		make(buf, 8, K_END, (uint32_t)me);
		LC_TP_OK(node, lc_send(node, 0, buf, 8));
	}
	LC_TP_OK(node, lc_stats(node, c));
	printf("mcast counters: node %d bp_stalls %llu bp_drops %llu mcast_frames %llu\n", me,
	       (unsigned long long)c[LC_STAT_bp_stalls], (unsigned long long)c[LC_STAT_bp_drops],
	       (unsigned long long)c[LC_STAT_mcast_frames]);
	return 0;
}

static int run_dropout(lc_node *node, int me, int n, uint32_t count, uint8_t *buf, size_t cap)
{
	uint32_t k, got, dead = 0, stop = me == n - 1 ? count / 4 : count;
	int rc;

	if (n < 3)
		lc_tp_fail("dropout needs 3 nodes");
	if (me == 0) {
		for (k = 0; k < count; k++) {
			make(buf, msg_len(k), K_GROUP, k);
			rc = lc_bcast(node, buf, msg_len(k));
			if (rc == LC_ERR_PEER_DEAD)
				dead++;
			else
				LC_TP_OK(node, rc);
		}
		printf("[0] mcast ok: node 0 broadcast %u messages, %u reported a dead member\n", count, dead);
		return 0;
	}
	for (got = 0; got < stop; got++)
		if (take(node, 0, buf, cap, &k) != K_GROUP || k != got)
			lc_tp_fail("broadcast %u arrived as k %u", got, k);
	printf("[%d] mcast ok: node %d received %u broadcasts intact in order%s\n", me, me, got,
	       stop < count ? ", then left" : "");
	return 0;
}

/* The config's static groups: members as listed, then traffic to each. */
static int run_static(lc_node *node, int me, int n, uint32_t count, uint8_t *buf, size_t cap)
{
	int members[64], m, got = 0, expect = 0;
	uint32_t len = 64;

	(void)n;
#define LC_X_CHECK(i, cnt, ...)                                                               \
	{                                                                                     \
		static const int want[] = { __VA_ARGS__ };                                    \
		int mine = 0;                                                                 \
		m = lc_group_members(node, (i), members, 64);                       \
		if (m != (cnt))                                                               \
			lc_tp_fail("static group %d has %d members, the config lists %d", (i), m, (cnt)); \
		for (int k = 0; k < (cnt); k++) {                                             \
			int found = 0;                                                        \
			for (int j = 0; j < m; j++)                                           \
				found |= members[j] == want[k];                               \
			if (!found)                                                           \
				lc_tp_fail("static group %d lacks node %d", (i), want[k]);    \
			mine |= want[k] == me;                                                \
		}                                                                             \
		if (mine && me != 0)                                                          \
			expect += (int)count;                                                 \
	}
	LC_MULTICAST_GROUPS(LC_X_CHECK)
#undef LC_X_CHECK
	m = lc_group_members(node, LC_MULTICAST_GROUPS_COUNT, members, 64);
	if (m != 2 || members[0] != 0 || members[1] != 3)
		lc_tp_fail("--group 0,3 is not group %d (%d members)", LC_MULTICAST_GROUPS_COUNT, m);
	if (me == 0) {
		for (int g = 0; g < LC_MULTICAST_GROUPS_COUNT; g++)
			for (uint32_t k = 0; k < count; k++) {
				make(buf, len, K_GROUP, (uint32_t)g * count + k);
				LC_TP_OK(node, lc_mcast(node, g, buf, len));
			}
		printf("[0] mcast ok: sent %u to each of %d static groups\n", count,
		       LC_MULTICAST_GROUPS_COUNT);
		return 0;
	}
	int64_t prev = -1;

	while (got < expect) {
		struct lc_status st;
		uint32_t kind, kk;

		LC_TP_OK(node, lc_recv(node, 0, buf, cap, &st));
		memcpy(&kind, buf, 4);
		memcpy(&kk, buf + 4, 4);
		if (kind != K_GROUP || st.len != len || (int64_t)kk <= prev)
			lc_tp_fail("message kind %u k %u len %zu after k %lld", kind, kk, (size_t)st.len,
				   (long long)prev);
		prev = kk;
		got++;
	}
	printf("[%d] mcast ok: received %d static-group messages\n", me, got);
	return 0;
}

int main(int argc, char **argv)
{
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	uint32_t count = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100;
	size_t cap = 65536 + 64;
	uint8_t *buf = lc_tp_alloc(cap);
	int rc = 2;

	if (argc < 2)
		lc_tp_fail("usage: mcast bcast|order|joinleave|static|sleepy|dropout [N [NAP_MS NAPS]]");
	if (strcmp(argv[1], "bcast") == 0)
		rc = run_bcast(node, me, n, count, buf, cap);
	else if (strcmp(argv[1], "order") == 0)
		rc = run_order(node, me, n, count, buf, cap);
	else if (strcmp(argv[1], "static") == 0)
		rc = run_static(node, me, n, count, buf, cap);
	else if (strcmp(argv[1], "dropout") == 0)
		rc = run_dropout(node, me, n, count, buf, cap);
	else if (strcmp(argv[1], "sleepy") == 0)
		rc = run_sleepy(node, me, n, count, argc > 3 ? strtol(argv[3], NULL, 10) : 100,
				argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 4, buf, cap);
	else if (strcmp(argv[1], "joinleave") == 0)
		rc = run_joinleave(node, me, n, count, buf, cap);
	else
		lc_tp_fail("unknown test %s", argv[1]);
	LC_TP_OK(node, lc_close(node));
	free(buf);
	return rc;
}
#else
int main(void)
{
	fprintf(stderr, "mcast: config %s has no multicast protocol\n", LC_CONFIG_NAME);
	return 2;
}
#endif
