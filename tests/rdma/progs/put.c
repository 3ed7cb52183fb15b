/* SPDX-License-Identifier: MIT */
/*
 * Puts (comm.h: lc_mem_register, lc_iput, lc_iput_notify, lc_mem_deregister)
 * between node 0 (the writer) and node 1 (the target), public API only.
 *
 *   put sizes [ROUNDS]   every size boundary (0, 1, PIO threshold +-1, MTU +-1, several
 *                        frames, 1 MiB) at offsets 0, 1, odd and flush with the region's
 *                        end; each checked byte for byte with the guard bytes around it
 *   put notify [ROUNDS]  message, put with a notice, message: the target receives the
 *                        three in that order with any-match receives, and at the notice
 *                        the put's bytes are already in place
 *   put refused          forged, out-of-bounds, read-only and revoked handles: each put
 *                        fails with LC_ERR_ACCESS, writes nothing, sends no notice; after 40
 *                        refused puts with notices a good put and a message still land
 *   put misuse           argument errors, a full registration table, a loopback put
 *
 * Prints "put <mode>: N checked" on success; "FAIL node i: ..." and exit 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pipeline/progs/lc_tprog.h"

#define GUARD 0xEE
#define REGION (((size_t)1 << 20) + 8192 + 3 * LC_MTU) /* the largest put at offset 4093 fits */
#define M_HANDLE 1u     /* target -> writer: the handles */
#define M_DESC 2u       /* writer -> target: what to check */
#define M_OK 3u         /* target -> writer: checked, go on */

struct desc {
	uint64_t off, len, seed;
};

static lc_node *node;

static void send_u(int dst, uint64_t match, const void *p, size_t n)
{
	LC_TP_OK(node, lc_send_match(node, dst, match, p, n));
}

static void recv_u(int src, uint64_t match, void *p, size_t n)
{
	struct lc_status st;

	LC_TP_OK(node, lc_recv_match(node, src, match, LC_MATCH_ALL, p, n, &st));
	if (st.len != n)
		lc_tp_fail("message %llu of %zu bytes, expected %zu", (unsigned long long)match,
			   st.len, n);
}

/* region[off, off+len) holds the pattern of seed, every other byte is GUARD; then all GUARD again. */
static void check_region(uint8_t *region, size_t cap, const struct desc *d, const char *what)
{
	size_t bad = lc_ex_check(region + d->off, d->len, d->seed);

	if (bad != d->len)
		lc_tp_fail("%s: put of %llu bytes at %llu differs at byte %zu", what,
			   (unsigned long long)d->len, (unsigned long long)d->off, bad);
	for (size_t i = 0; i < cap; i++)
		if ((i < d->off || i >= d->off + d->len) && region[i] != GUARD)
			lc_tp_fail("%s: byte %zu outside the put of %llu bytes at %llu was written",
				   what, i, (unsigned long long)d->len, (unsigned long long)d->off);
	memset(region + d->off, GUARD, d->len);
}

static uint8_t *guarded(size_t n)
{
	uint8_t *p = lc_tp_alloc(n);

	memset(p, GUARD, n);
	return p;
}

/* ---- sizes ---- */

static int sizes(int me, int rounds)
{
	const size_t lens[] = { 0, 1, 7, LC_PIO_THRESHOLD - 1, LC_PIO_THRESHOLD,
				LC_PIO_THRESHOLD + 1, LC_MTU - 1, LC_MTU, LC_MTU + 1,
				2 * LC_MTU + 7, 65536, (size_t)1 << 20 };
	const size_t nl = sizeof(lens) / sizeof(lens[0]);
	int checked = 0;

	if (me == 1) {
		uint8_t *region = guarded(REGION);
		uint64_t before[LC_STAT_COUNT], after[LC_STAT_COUNT], total = 0;
		uint32_t h;

		LC_TP_OK(node, lc_mem_register(node, region, REGION, LC_MEM_REMOTE_WRITE, &h));
		LC_TP_OK(node, lc_stats(node, before));
		send_u(0, M_HANDLE, &h, sizeof h);
		for (int k = 0; k < rounds * (int)nl * 4; k++) {
			struct desc d;
			uint32_t ok = 1;

			recv_u(0, M_DESC, &d, sizeof d);
			check_region(region, REGION, &d, "sizes");
			total += d.len;
			send_u(0, M_OK, &ok, sizeof ok);
			checked++;
		}
		LC_TP_OK(node, lc_stats(node, after));
		/* the puts' bytes came by the NIC's Rx DMA: the host copied only the small messages */
		if (after[LC_STAT_put_rx_bytes] - before[LC_STAT_put_rx_bytes] < total)
			lc_tp_fail("put_rx_bytes grew by %llu, the puts wrote %llu",
				   (unsigned long long)(after[LC_STAT_put_rx_bytes] -
							before[LC_STAT_put_rx_bytes]),
				   (unsigned long long)total);
		if (after[LC_STAT_host_copy_bytes] - before[LC_STAT_host_copy_bytes] > total / 64)
			lc_tp_fail("the target's host copied %llu bytes for %llu put",
				   (unsigned long long)(after[LC_STAT_host_copy_bytes] -
							before[LC_STAT_host_copy_bytes]),
				   (unsigned long long)total);
		LC_TP_OK(node, lc_mem_deregister(node, h));
		free(region);
	} else if (me == 0) {
		uint8_t *src = lc_tp_alloc(REGION);
		uint32_t h, ok;

		recv_u(1, M_HANDLE, &h, sizeof h);
		for (int r = 0; r < rounds; r++)
			for (size_t i = 0; i < nl; i++)
				for (int o = 0; o < 4; o++) {
					size_t len = lens[i];
					struct desc d = { .len = len, .seed = 77 + 1000 * (uint64_t)r + 10 * i + (uint64_t)o,
							  .off = o == 0 ? 0 : o == 1 ? 1 : o == 2 ? 4093 : REGION - len };
					struct lc_status st;
					lc_req *q;

					lc_ex_fill(src, len, d.seed);
					LC_TP_OK(node, lc_iput(node, 1, h, d.off, src, len, &q));
					LC_TP_OK(node, lc_wait(node, q, &st));
					if (st.len != len || st.err)
						lc_tp_fail("put status len %zu err %d, expected %zu 0", st.len,
							   st.err, len);
					send_u(1, M_DESC, &d, sizeof d);
					recv_u(1, M_OK, &ok, sizeof ok);
					checked++;
				}
		free(src);
	}
	return checked;
}

/* ---- notify ---- */

static int notify(int me, int rounds)
{
	int checked = 0;

	if (me == 1) {
		uint8_t *region = guarded(REGION);
		uint32_t h;

		LC_TP_OK(node, lc_mem_register(node, region, REGION, LC_MEM_REMOTE_WRITE, &h));
		send_u(0, M_HANDLE, &h, sizeof h);
		for (int k = 0; k < rounds; k++) {
			struct lc_status st;
			uint64_t a = 0, b = 0;
			uint32_t imm = 0, ok = 1;
			size_t len = ((size_t)k * 7919) % (4 * LC_MTU + 3);
			struct desc d = { .off = (size_t)k % 61, .len = len, .seed = 5000 + (uint64_t)k };

			/* any match word: the order of arrival is the order of the writer's calls */
			LC_TP_OK(node, lc_recv_match(node, 0, 0, 0, &a, sizeof a, &st));
			if (st.match != 100000u + (unsigned)k || a != (uint64_t)k)
				lc_tp_fail("round %d: first message match %llu, expected the one before the put",
					   k, (unsigned long long)st.match);
			LC_TP_OK(node, lc_recv_match(node, 0, 0, 0, &imm, sizeof imm, &st));
			if (st.match != 200000u + (unsigned)k || st.len != sizeof imm || imm != 0xC0DE0000u + (unsigned)k)
				lc_tp_fail("round %d: second message match %llu len %zu imm 0x%x, expected the "
					   "put's notice", k, (unsigned long long)st.match, st.len, imm);
			/* the notice came after the put's last byte: nothing else waited for them */
			check_region(region, REGION, &d, "notify");
			LC_TP_OK(node, lc_recv_match(node, 0, 0, 0, &b, sizeof b, &st));
			if (st.match != 300000u + (unsigned)k)
				lc_tp_fail("round %d: third message match %llu, expected the one after the put",
					   k, (unsigned long long)st.match);
			send_u(0, M_OK, &ok, sizeof ok);
			checked++;
		}
		LC_TP_OK(node, lc_mem_deregister(node, h));
		free(region);
	} else if (me == 0) {
		uint8_t *src = lc_tp_alloc(4 * LC_MTU + 3);
		uint32_t h, ok;

		recv_u(1, M_HANDLE, &h, sizeof h);
		for (int k = 0; k < rounds; k++) {
			size_t len = ((size_t)k * 7919) % (4 * LC_MTU + 3);
			uint64_t a = (uint64_t)k, b = (uint64_t)k;
			uint32_t imm = 0xC0DE0000u + (unsigned)k;
			lc_req *q[3];
			struct lc_status st[3];

			lc_ex_fill(src, len, 5000 + (uint64_t)k);
			/* all three in flight at once: the order is the library's to keep */
			LC_TP_OK(node, lc_isend_match(node, 1, 100000u + (unsigned)k, &a, sizeof a, &q[0]));
			LC_TP_OK(node, lc_iput_notify(node, 1, h, (size_t)k % 61, src, len,
						      200000u + (unsigned)k, &imm, sizeof imm, &q[1]));
			LC_TP_OK(node, lc_isend_match(node, 1, 300000u + (unsigned)k, &b, sizeof b, &q[2]));
			/*
			 * the target's go first, then the put's request freed last: the next
			 * round's first send, which leaves at once, takes it from the pool as
			 * it was left -- its status must be the send's, not the put's
			 */
			recv_u(1, M_OK, &ok, sizeof ok);
			lc_req *w[3] = { q[0], q[2], q[1] };
			LC_TP_OK(node, lc_waitall(node, 3, w, st));
			if (st[2].len != len)
				lc_tp_fail("round %d: the put's status says %zu bytes, it put %zu", k,
					   st[2].len, len);
			if (st[0].len != sizeof a || st[1].len != sizeof b || st[0].err || st[1].err ||
			    st[0].match != 100000u + (unsigned)k || st[1].match != 300000u + (unsigned)k)
				lc_tp_fail("round %d: the sends' statuses say %zu and %zu bytes, matches %llu "
					   "%llu", k, st[0].len, st[1].len, (unsigned long long)st[0].match,
					   (unsigned long long)st[1].match);
			checked++;
		}
		free(src);
	}
	return checked;
}

/* ---- refused ---- */

#define SMALL (4 * LC_MTU)

static int refused(int me)
{
	int checked = 0;

	if (me == 1) {
		uint8_t *r1 = guarded(SMALL), *r2 = guarded(SMALL), *r3 = guarded(SMALL);
		uint32_t h[3], ok = 1;
		struct desc d;
		struct lc_status st;

		LC_TP_OK(node, lc_mem_register(node, r1, SMALL, LC_MEM_REMOTE_WRITE, &h[0]));
		LC_TP_OK(node, lc_mem_register(node, r2, SMALL, 0, &h[1]));        /* read-only */
		LC_TP_OK(node, lc_mem_register(node, r3, SMALL, LC_MEM_REMOTE_WRITE, &h[2]));
		LC_TP_OK(node, lc_mem_deregister(node, h[2]));                     /* revoked */
		send_u(0, M_HANDLE, h, sizeof h);
		/* the first message after the refused puts is the writer's description of its good one */
		LC_TP_OK(node, lc_recv_match(node, 0, 0, 0, &d, sizeof d, &st));
		if (st.match != M_DESC)
			lc_tp_fail("a message of match %llu arrived before the good put's: a refused "
				   "put sent its notice", (unsigned long long)st.match);
		check_region(r1, SMALL, &d, "refused: r1");
		for (size_t i = 0; i < SMALL; i++)
			if (r2[i] != GUARD || r3[i] != GUARD)
				lc_tp_fail("byte %zu of the %s region was written", i,
					   r2[i] != GUARD ? "read-only" : "revoked");
		send_u(0, M_OK, &ok, sizeof ok);
		checked = 1;
		LC_TP_OK(node, lc_mem_deregister(node, h[0]));
		LC_TP_OK(node, lc_mem_deregister(node, h[1]));
		free(r1);
		free(r2);
		free(r3);
	} else if (me == 0) {
		uint8_t *src = lc_tp_alloc(SMALL + 1);
		uint32_t h[3], ok, imm = 7;

		recv_u(1, M_HANDLE, h, sizeof h);
		struct bad {
			const char *what;
			uint32_t handle;
			uint64_t off, len;
			int notify;
		} bad[] = {
			{ "forged generation", h[0] ^ 0x10000u, 0, 64, 0 },
			{ "entry beyond the table", 0xffffu, 0, 64, 0 },
			{ "past the region's end", h[0], SMALL - 10, 20, 0 },
			{ "several frames past the end", h[0], 1, SMALL, 0 },
			{ "read-only region", h[1], 0, 64, 0 },
			{ "revoked handle", h[2], 0, 64, 0 },
			{ "notice after a forged put", h[0] ^ 0x10000u, 0, 3 * LC_MTU, 1 },
		};
		int nb = (int)(sizeof(bad) / sizeof(bad[0]));
		struct desc d = { .off = 100, .len = 2 * LC_MTU + 1, .seed = 99 };
		lc_req *q;

		lc_ex_fill(src, SMALL + 1, 1);
		for (int i = 0; i < nb; i++) {
			int rc = bad[i].notify ?
				 lc_iput_notify(node, 1, bad[i].handle, bad[i].off, src, bad[i].len, 4242,
						&imm, sizeof imm, &q) :
				 lc_iput(node, 1, bad[i].handle, bad[i].off, src, bad[i].len, &q);

			if (rc)
				lc_tp_fail("%s: lc_iput -> %s", bad[i].what, lc_tp_errname(rc));
			rc = lc_wait(node, q, NULL);
			if (rc != LC_ERR_ACCESS)
				lc_tp_fail("%s: the put completed with %s, expected LC_ERR_ACCESS (%s)",
					   bad[i].what, lc_tp_errname(rc), lc_last_error(node));
			checked++;
		}
		/*
		 * a run of refused puts with notices, longer than the receiver's sequence
		 * slack: the message after them still arrives (each gave its number up)
		 */
		for (int i = 0; i < 40; i++) {
			LC_TP_OK(node, lc_iput_notify(node, 1, h[0] ^ 0x10000u, 0, src, 64, 4243, &imm,
						      sizeof imm, &q));
			int rc = lc_wait(node, q, NULL);
			if (rc != LC_ERR_ACCESS)
				lc_tp_fail("refused notice %d: %s, expected LC_ERR_ACCESS", i, lc_tp_errname(rc));
			checked++;
		}
		lc_ex_fill(src, d.len, d.seed);
		LC_TP_OK(node, lc_put(node, 1, h[0], d.off, src, d.len));
		send_u(1, M_DESC, &d, sizeof d);
		recv_u(1, M_OK, &ok, sizeof ok);
		free(src);
	}
	return checked;
}

/* ---- misuse ---- */

#define EXPECT(call, want)                                                                    \
	do {                                                                                  \
		int rc_ = (call);                                                             \
		if (rc_ != (want))                                                            \
			lc_tp_fail("%s -> %s, expected %s", #call, lc_tp_errname(rc_), #want); \
		if (rc_ && !*lc_last_error(node))                                             \
			lc_tp_fail("%s -> %s with no error text", #call, lc_tp_errname(rc_));  \
		checked++;                                                                    \
	} while (0)

static int misuse(int me, int n)
{
	static uint8_t cells[LC_NIC_REG_ENTRIES + 1];
	uint32_t hs[LC_NIC_REG_ENTRIES + 1], h;
	uint8_t buf[64], region[256];
	int checked = 0, got = 0;
	lc_req *q;

	EXPECT(lc_mem_register(node, NULL, 8, LC_MEM_REMOTE_WRITE, &h), LC_ERR_INVAL);
	EXPECT(lc_mem_register(node, buf, 0, LC_MEM_REMOTE_WRITE, &h), LC_ERR_INVAL);
	EXPECT(lc_mem_register(node, buf, 8, 2u, &h), LC_ERR_INVAL);
	EXPECT(lc_mem_register(node, buf, 8, LC_MEM_REMOTE_WRITE, NULL), LC_ERR_INVAL);
	EXPECT(lc_mem_register(node, buf, (size_t)1 << 32, LC_MEM_REMOTE_WRITE, &h), LC_ERR_INVAL);
	EXPECT(lc_mem_deregister(node, 0x7fff0000u), LC_ERR_INVAL);
	/* the table: exactly nic.reg_entries regions, then LC_ERR_AGAIN; free again after */
	for (int i = 0; i <= LC_NIC_REG_ENTRIES; i++) {
		int rc = lc_mem_register(node, &cells[i], 1, LC_MEM_REMOTE_WRITE, &hs[i]);

		if (rc == LC_ERR_AGAIN)
			break;
		if (rc)
			lc_tp_fail("registration %d -> %s", i, lc_tp_errname(rc));
		got++;
	}
	if (got != LC_NIC_REG_ENTRIES)
		lc_tp_fail("%d regions registered, the table has %d entries", got, LC_NIC_REG_ENTRIES);
	checked++;
	for (int i = 0; i < got; i++)
		LC_TP_OK(node, lc_mem_deregister(node, hs[i]));
	if (got)
		EXPECT(lc_mem_deregister(node, hs[0]), LC_ERR_INVAL);  /* twice */
	EXPECT(lc_iput(node, n, 1, 0, buf, 8, &q), LC_ERR_RANGE);
	EXPECT(lc_iput(node, -1, 1, 0, buf, 8, &q), LC_ERR_RANGE);
	EXPECT(lc_iput(node, me, 1, 0, NULL, 8, &q), LC_ERR_INVAL);
	EXPECT(lc_iput(node, me, 1, 0, buf, 8, NULL), LC_ERR_INVAL);
	EXPECT(lc_iput(node, me, 1, UINT32_MAX - 4, buf, 8, &q), LC_ERR_TOOBIG);
	EXPECT(lc_iput_notify(node, me, 1, 0, buf, 8, 1, NULL, 4, &q), LC_ERR_INVAL);
	/* a put into this node's own memory: loopback through the NIC, as a message to itself */
	memset(region, GUARD, sizeof region);
	LC_TP_OK(node, lc_mem_register(node, region, sizeof region, LC_MEM_REMOTE_WRITE, &h));
	lc_ex_fill(buf, sizeof buf, 3);
	LC_TP_OK(node, lc_put(node, me, h, 17, buf, sizeof buf));
	{
		struct desc d = { .off = 17, .len = sizeof buf, .seed = 3 };

		check_region(region, sizeof region, &d, "loopback");
	}
	LC_TP_OK(node, lc_mem_deregister(node, h));
	return checked + 1;
}

int main(int argc, char **argv)
{
	int me, n, checked = 0;
	const char *mode = argc > 1 ? argv[1] : "";
	int rounds = argc > 2 ? atoi(argv[2]) : 1;

	node = lc_tp_open(&me, &n);
	if (n < 2 && strcmp(mode, "misuse"))
		lc_tp_fail("put %s needs 2 nodes", mode);
	if (!strcmp(mode, "sizes"))
		checked = sizes(me, rounds);
	else if (!strcmp(mode, "notify"))
		checked = notify(me, rounds);
	else if (!strcmp(mode, "refused"))
		checked = refused(me);
	else if (!strcmp(mode, "misuse"))
		checked = misuse(me, n);
	else
		lc_tp_fail("usage: put sizes|notify|refused|misuse [ROUNDS]");
	LC_TP_OK(node, lc_close(node));
	printf("put %s: node %d: %d checked\n", mode, me, checked);
	return 0;
}
