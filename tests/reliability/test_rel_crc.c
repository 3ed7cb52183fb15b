/* SPDX-License-Identifier: MIT */
/* The inline CRC32C of the per-frame paths (lc_crc32c_inline, lc_crc32c_inline_frame) against the table, and reliability's frame CRC. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/lc_skip.h"
#include "lc_composite_host.h"
#include "lc_crc32c.h"

TestSuite(rel_crc, .timeout = 60);

static uint64_t lc_test_rng = 0x2545f4914f6cdd1dull;

static uint64_t lc_test_next(void)
{
	/* xorshift64: fixed seed, so a failure repeats */
	lc_test_rng ^= lc_test_rng << 13;
	lc_test_rng ^= lc_test_rng >> 7;
	lc_test_rng ^= lc_test_rng << 17;
	return lc_test_rng;
}

Test(rel_crc, check_value_and_empty)
{
	cr_expect_eq(lc_crc32c_inline(0, "123456789", 9), 0xE3069283u);
	cr_expect_eq(lc_crc32c_inline(0, "", 0), 0u);
	cr_expect_eq(lc_crc32c_inline(0x12345678u, "", 0), 0x12345678u, "no bytes: the CRC goes through");
}

/*
 * Every length across the inline limit (LC_CRC32C_INLINE_MAX: the inline loop
 * below it, lc_crc32c above), every alignment, the 4/2/1-byte tails, and a
 * continued CRC: the same value as the table.
 */
Test(rel_crc, inline_equals_table_every_length_alignment_and_seed)
{
	enum { MAX = LC_CRC32C_INLINE_MAX + 40 };
	unsigned char buf[MAX + 8];

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)lc_test_next();
	for (size_t len = 0; len <= MAX; len++) {
		for (size_t off = 0; off < 8; off++) {
			uint32_t seed = (uint32_t)lc_test_next();
			uint32_t a = lc_crc32c_sw(seed, buf + off, len);
			uint32_t b = lc_crc32c_inline(seed, buf + off, len);

			cr_assert_eq(a, b, "len %zu off %zu: table %08x, inline %08x", len, off, a, b);
		}
	}
}

Test(rel_crc, chaining_equals_whole)
{
	unsigned char buf[64];

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)lc_test_next();
	for (size_t cut = 0; cut <= sizeof buf; cut++) {
		uint32_t c = lc_crc32c_inline(lc_crc32c_inline(0, buf, cut), buf + cut, sizeof buf - cut);

		cr_expect_eq(c, lc_crc32c_sw(0, buf, sizeof buf), "split at %zu", cut);
	}
}

#if LC_PROTO_RELIABILITY
/*
 * reliability's frame CRC is the CRC32C of the header (reliability_crc, and
 * checksum_crc when composed, as 0) followed by the payload, and every flipped
 * bit of the header (outside those fields) or of the payload changes it.
 */
Test(rel_crc, frame_crc_covers_header_and_payload)
{
	uint32_t lens[] = { 0, 1, 7, 8, 9, 63, 255, 256, 257, 1000 };
	unsigned char *payload = malloc(1000);

	cr_assert(payload);
	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
		struct lc_frame_hdr hdr, h0;
		unsigned char *whole = malloc(sizeof hdr + lens[li]);
		uint32_t crc;

		cr_assert(whole);
		memset(&hdr, 0, sizeof hdr);
		for (size_t i = 0; i < sizeof hdr; i++)
			((unsigned char *)&hdr)[i] = (unsigned char)lc_test_next();
		hdr.len = lens[li];
		for (uint32_t i = 0; i < lens[li]; i++)
			payload[i] = (unsigned char)lc_test_next();
		crc = lc_reliability_crc(&hdr, payload);
		h0 = hdr;
		h0.reliability_crc = 0;
#if LC_PROTO_CHECKSUM
		h0.checksum_crc = 0;
#endif
		memcpy(whole, &h0, sizeof h0);
		memcpy(whole + sizeof h0, payload, lens[li]);
		cr_assert_eq(crc, lc_crc32c_sw(0, whole, sizeof h0 + lens[li]), "len %u", lens[li]);
		free(whole);

		for (size_t bit = 0; bit < 8 * sizeof hdr; bit++) {
			struct lc_frame_hdr h = hdr;
			size_t byte = bit / 8;

			if ((byte >= offsetof(struct lc_frame_hdr, reliability_crc) &&
			     byte < offsetof(struct lc_frame_hdr, reliability_crc) + sizeof hdr.reliability_crc) ||
			    (byte >= offsetof(struct lc_frame_hdr, len) &&
			     byte < offsetof(struct lc_frame_hdr, len) + sizeof hdr.len))
				continue;       /* the CRC itself; len picks the bytes covered (below) */
#if LC_PROTO_CHECKSUM
			if (byte >= offsetof(struct lc_frame_hdr, checksum_crc) &&
			    byte < offsetof(struct lc_frame_hdr, checksum_crc) + sizeof hdr.checksum_crc)
				continue;
#endif
			((unsigned char *)&h)[byte] ^= (unsigned char)(1u << (bit % 8));
			cr_assert_neq(lc_reliability_crc(&h, payload), crc, "len %u: header bit %zu", lens[li], bit);
		}
		for (uint32_t bit = 0; bit < 8 * lens[li]; bit++) {
			payload[bit / 8] ^= (unsigned char)(1u << (bit % 8));
			cr_assert_neq(lc_reliability_crc(&hdr, payload), crc, "len %u: payload bit %u", lens[li], bit);
			payload[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		}
	}
	free(payload);
}
#else
LC_T_SKIPPED(rel_crc, frame_crc_covers_header_and_payload,
	     "needs reliability, whose frame CRC it checks (LC_PROTO_RELIABILITY)")
#endif
