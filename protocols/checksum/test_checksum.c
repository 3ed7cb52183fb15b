/* SPDX-License-Identifier: MIT */
/* checksum protocol: CRC32C vectors, SSE4.2 vs table, and every flipped bit of a frame caught. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lc_composite_host.h"

TestSuite(checksum, .timeout = 60);

static uint64_t lc_test_rng = 0x9e3779b97f4a7c15ull;

static uint64_t lc_test_next(void)
{
	/* xorshift64: fixed seed, so a failure repeats */
	lc_test_rng ^= lc_test_rng << 13;
	lc_test_rng ^= lc_test_rng >> 7;
	lc_test_rng ^= lc_test_rng << 17;
	return lc_test_rng;
}

/* Columns: bytes, length, expected CRC32C (RFC 3720 B.4 and the usual check value). */
struct lc_crc_vec {
	const char *what;
	unsigned char data[48];
	size_t len;
	uint32_t crc;
};

static void lc_fill_vectors(struct lc_crc_vec *v)
{
	memset(v, 0, 5 * sizeof *v);
	v[0] = (struct lc_crc_vec){ "check \"123456789\"", "123456789", 9, 0xE3069283u };
	v[1] = (struct lc_crc_vec){ "empty", "", 0, 0x00000000u };
	v[2] = (struct lc_crc_vec){ "32 zero bytes", { 0 }, 32, 0x8A9136AAu };
	v[3].what = "32 bytes 0xff";
	memset(v[3].data, 0xff, 32);
	v[3].len = 32;
	v[3].crc = 0x62A8AB43u;
	v[4].what = "32 bytes 0..31";
	for (int i = 0; i < 32; i++)
		v[4].data[i] = (unsigned char)i;
	v[4].len = 32;
	v[4].crc = 0x46DD794Eu;
}

Test(checksum, known_vectors)
{
	struct lc_crc_vec v[5];

	lc_fill_vectors(v);
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(lc_crc32c_sw(0, v[i].data, v[i].len), v[i].crc, "table, %s", v[i].what);
		cr_expect_eq(lc_crc32c_hw(0, v[i].data, v[i].len), v[i].crc, "hw, %s", v[i].what);
		cr_expect_eq(lc_crc32c(0, v[i].data, v[i].len), v[i].crc, "lc_crc32c, %s", v[i].what);
	}
}

Test(checksum, chaining_equals_whole)
{
	const char *s = "123456789";

	for (size_t cut = 0; cut <= 9; cut++) {
		uint32_t c = lc_crc32c(lc_crc32c(0, s, cut), s + cut, 9 - cut);

		cr_expect_eq(c, 0xE3069283u, "split at %zu", cut);
	}
}

Test(checksum, sse42_and_table_agree_every_length_and_alignment)
{
	unsigned char buf[300 + 8];

	cr_log_info("SSE4.2 %s", lc_crc32c_hw_available() ? "present" : "absent: hw = table");
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)lc_test_next();
	for (size_t len = 0; len <= 300; len++) {
		for (size_t off = 0; off < 8; off++) {
			uint32_t seed = (uint32_t)lc_test_next();
			uint32_t a = lc_crc32c_sw(seed, buf + off, len);
			uint32_t b = lc_crc32c_hw(seed, buf + off, len);

			cr_assert_eq(a, b, "len %zu off %zu: table %08x, hw %08x", len, off, a, b);
		}
	}
}

/*
 * The implementation in use (impl names it in a failure) against the table
 * for len bytes at src + off from a random seed, lc_crc32c and lc_crc32c_copy
 * into dst + doff (dst: dsize bytes, doff >= 1): the table's CRC, the bytes
 * copied exactly, nothing written past them.
 */
static void lc_check_against_table(const char *impl, const unsigned char *src, size_t off, size_t len,
				   unsigned char *dst, size_t dsize, size_t doff)
{
	uint32_t seed = (uint32_t)lc_test_next();
	uint32_t a = lc_crc32c_sw(seed, src + off, len);
	uint32_t h = lc_crc32c(seed, src + off, len);
	uint32_t c;

	memset(dst, 0xa5, dsize);
	c = lc_crc32c_copy(seed, dst + doff, src + off, len);
	cr_assert_eq(h, a, "len %zu off %zu: table %08x, %s %08x", len, off, a, impl, h);
	cr_assert_eq(c, a, "len %zu off %zu: table %08x, %s copy %08x", len, off, a, impl, c);
	cr_assert(memcmp(dst + doff, src + off, len) == 0, "len %zu: bytes copied wrong", len);
	cr_assert(dst[doff - 1] == 0xa5 && dst[doff + len] == 0xa5, "len %zu: written past", len);
}

/*
 * The three-chain loops (lc_crc32c.c: blocks of 3 x 2048 and 3 x 256 bytes,
 * joined by shift tables) at every length around their edges, each alignment
 * of source and destination, and lc_crc32c_copy: the table's CRC, and the
 * bytes copied exactly, nothing written past them.
 */
Test(checksum, three_chains_and_fused_copy_agree_with_the_table)
{
	enum { LONG3 = 3 * 2048, SHORT3 = 3 * 256, MAX = 2 * LONG3 + 2 * SHORT3 + 16 };
	static const size_t base[] = { 0, SHORT3, 2 * SHORT3, LONG3, LONG3 + SHORT3, 2 * LONG3 + SHORT3 };
	static unsigned char src[MAX + 8], dst[MAX + 24];

	if (lc_crc32c_select("sse42") != 0)     /* the chains, also where folding is the default */
		cr_skip_test("this CPU lacks SSE4.2: no crc32 chains to test");
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (unsigned char)lc_test_next();
	for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
		for (size_t len = base[b] ? base[b] - 9 : 0; len <= base[b] + 9; len++)
			lc_check_against_table("chains", src, len % 8, len, dst, sizeof dst, 8 + (len * 3) % 8);
	}
}

/*
 * Folding (lc_crc32c.c, LC_CRC32C_IMPL_FOLD: VPCLMULQDQ over AVX-512, for
 * buffers of 1 KiB or more in whole 256-byte rounds, the rest by the chains):
 * every length around the threshold and a round's edges, up to several
 * rounds of the main loop and beyond 64 KiB, every source alignment, a seed
 * carried in, and the fused copy -- the table's CRC, the bytes copied
 * exactly, nothing written past them.  A CPU without the instructions skips,
 * saying so; selecting it there must fail and change nothing.
 */
Test(checksum, folding_agrees_with_the_table)
{
	static const size_t base[] = { 1024, 1280, 2048, 4096, 8192, 65536 + 256 };
	static unsigned char src[65536 + 256 + 64 + 8];
	/* every distance of the copy's destination from a 64-byte boundary (the fused copy aligns its stores) */
	static _Alignas(64) unsigned char dst[65536 + 256 + 66 + 64 + 8];
	int before = lc_crc32c_current();

	if (lc_crc32c_select("fold") != 0) {
		cr_assert_eq(lc_crc32c_current(), before, "a failed select changed the implementation");
		cr_skip_test("this CPU lacks AVX-512 or VPCLMULQDQ: folding cannot run here");
	}
	cr_assert_str_eq(lc_crc32c_name(), "fold");
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (unsigned char)lc_test_next();
	for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
		for (size_t len = base[b] - 9; len <= base[b] + 66; len++)
			lc_check_against_table("folded", src, len % 8, len, dst, sizeof dst, 1 + (len * 5) % 64);
	}
	cr_assert_eq(lc_crc32c_select("no such"), -1, "an unknown implementation is refused");
	cr_assert_str_eq(lc_crc32c_name(), "fold", "and changes nothing");
	cr_assert_eq(lc_crc32c_select("sse42"), 0, "back to the chains");
	cr_assert_eq(lc_crc32c(0, "123456789", 9), 0xE3069283u);
}

/* A frame as the send side fills it: baseline fields set, payload of LC_MTU bytes. */
static void lc_make_frame(struct lc_frame_hdr *hdr, unsigned char *payload, uint32_t len)
{
	memset(hdr, 0, sizeof *hdr);
	hdr->magic = LC_FRAME_MAGIC;
	hdr->type = LC_FT_DATA;
	hdr->flags = LC_FF_FIRST | LC_FF_LAST;
	hdr->src = 1;
	hdr->dst = 0;
	hdr->len = len;
	hdr->seq = 7;
	hdr->off = 0;
	hdr->msg_len = len;
	for (uint32_t i = 0; i < LC_MTU; i++)
		payload[i] = (unsigned char)lc_test_next();
}

Test(checksum, every_flipped_bit_is_caught)
{
	static struct lc_node node;
	struct lc_frame_hdr hdr;
	unsigned char *payload = malloc(LC_MTU);
	uint32_t len = LC_MTU > 100 ? 100 : LC_MTU;
	uint64_t expect_bad = 0;

	cr_assert_not_null(payload);
	lc_make_frame(&hdr, payload, len);
	cr_assert_eq(lc_checksum_send_frame(&node, &hdr, payload), LC_CONTINUE);
	cr_assert_eq(lc_checksum_recv_frame(&node, &hdr, payload), LC_CONTINUE, "intact frame");
	cr_assert_eq(node.proto.checksum.bad, 0);

	/* every bit of the header, the crc field and any padding included */
	for (size_t byte = 0; byte < sizeof hdr; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			((unsigned char *)&hdr)[byte] ^= (unsigned char)(1u << bit);
			cr_assert_eq(lc_checksum_recv_frame(&node, &hdr, payload), LC_DROP,
				     "header byte %zu bit %d not caught", byte, bit);
			((unsigned char *)&hdr)[byte] ^= (unsigned char)(1u << bit);
			expect_bad++;
		}
	}
	/* every bit of the payload: caught when the CRC covers the frame */
	for (uint32_t byte = 0; byte < len; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			payload[byte] ^= (unsigned char)(1u << bit);
#if LC_CHECKSUM_COVER_FRAME
			cr_assert_eq(lc_checksum_recv_frame(&node, &hdr, payload), LC_DROP,
				     "payload byte %u bit %d not caught", byte, bit);
			expect_bad++;
#else
			cr_assert_eq(lc_checksum_recv_frame(&node, &hdr, payload), LC_CONTINUE,
				     "cover=header must not read the payload");
#endif
			payload[byte] ^= (unsigned char)(1u << bit);
		}
	}
	cr_expect_eq(node.proto.checksum.bad, expect_bad);
	cr_expect_eq(lc_checksum_recv_frame(&node, &hdr, payload), LC_CONTINUE, "restored frame");
	free(payload);
}

Test(checksum, impossible_length_dropped_without_reading_payload)
{
	static struct lc_node node;
	struct lc_frame_hdr hdr;
	unsigned char *payload = malloc(LC_MTU);

	cr_assert_not_null(payload);
	lc_make_frame(&hdr, payload, 0);
	cr_assert_eq(lc_checksum_send_frame(&node, &hdr, payload), LC_CONTINUE);
	cr_assert_eq(lc_checksum_recv_frame(&node, &hdr, NULL), LC_CONTINUE, "empty frame");
	hdr.len = LC_MTU + 1;
	cr_expect_eq(lc_checksum_recv_frame(&node, &hdr, NULL), LC_DROP);
	cr_expect_eq(node.proto.checksum.bad, 1);
	free(payload);
}
