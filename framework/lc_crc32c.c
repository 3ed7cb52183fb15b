/* SPDX-License-Identifier: MIT */
/* CRC32C (Castagnoli) for the protocols: VPCLMULQDQ folding, SSE4.2 chains or a table. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lc_crc32c.h"

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define LC_CRC32C_X86 1
#else
#define LC_CRC32C_X86 0
#endif
/* folding with VPCLMULQDQ over AVX-512 registers, where the CPU has both (probed at run time) */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LC_CRC32C_FOLD 1
#else
#define LC_CRC32C_FOLD 0
#endif

/* Reflected CRC32C table, polynomial 0x82F63B78 (one byte per step). */
static const uint32_t lc_crc32c_table[256] = {
	0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
	0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
	0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
	0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
	0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
	0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
	0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
	0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
	0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
	0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
	0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
	0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
	0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
	0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
	0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
	0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
	0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
	0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
	0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
	0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
	0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
	0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
	0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
	0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
	0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
	0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
	0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
	0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
	0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
	0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
	0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
	0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
	0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
	0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
	0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
	0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
	0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
	0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
	0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
	0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
	0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
	0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
	0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

uint32_t lc_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--)
		crc = lc_crc32c_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

/*
 * Shifting a CRC register over zeros.  The register (reflected, without the
 * inversions) after n more zero bytes is reg * x^(8n) mod P, a linear map, so
 * crc(A || B) = shift_|B|(reg after A) ^ (reg of B from 0).  That lets three
 * independent crc32 chains run over three adjacent blocks at once and be
 * joined: the crc32 instruction has a latency of 3 cycles and a throughput
 * of 1, so one chain feeds it a third of the time.  A join is a table
 * look-up per register byte (shift_|block|, four tables of 256 words, made
 * once at load from the polynomial).
 */
#define LC_CRC32C_POLY 0x82f63b78u
/* the two block lengths of the three-stream loops: a frame of a few KiB takes LONG then SHORT */
#define LC_CRC32C_LONG 2048u
#define LC_CRC32C_SHORT 256u

/* a * b mod P, both reflected (bit 31: x^0) */
static uint32_t lc_crc32c_mulmod(uint32_t a, uint32_t b)
{
	uint32_t prod = 0;

	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			prod ^= b;
		b = b & 1u ? (b >> 1) ^ LC_CRC32C_POLY : b >> 1;
	}
	return prod;
}

/* x^n mod P, reflected (bit 31: x^0), by squaring: the shift tables' x^(8 n), the folds' constants */
static uint32_t lc_crc32c_xn(size_t n)
{
	uint32_t r = 1u << 31, sq = 1u << 30;   /* x^0 and x^1 */

	for (; n; n >>= 1) {
		if (n & 1)
			r = lc_crc32c_mulmod(sq, r);
		sq = lc_crc32c_mulmod(sq, sq);
	}
	return r;
}

static uint32_t lc_crc32c_zeros_long[4][256], lc_crc32c_zeros_short[4][256];

#if LC_CRC32C_FOLD
/*
 * Folding by carry-less multiplication (VPCLMULQDQ on 512-bit registers).
 * A 128-bit lane L loaded from the buffer holds its first byte's least
 * significant bit as the highest power of x (a reflected CRC reads each byte
 * from bit 0), so with L = H x^64 + Lo (H: bytes 0-7, Lo: bytes 8-15) and D
 * bits between L and the lane it is folded onto,
 *     L x^D = H x^(D+64) + Lo x^D  =  H k0 x + Lo k1 x  (mod P),
 *     k0 = x^(D+63) mod P, k1 = x^(D-1) mod P,
 * and the carry-less product of two such reflected 64-bit words, bit s
 * standing for x^(126-s), read as a lane (bit s: x^(127-s)) is that product
 * times x: each fold is two multiplications and an xor, and the result is
 * again a lane.  Four registers of four lanes take 256 bytes a round (D =
 * 2048), are folded onto the last (D = 512 each), its lanes onto its last
 * (D = 384, 256, 128), and the remaining 16 bytes R are congruent to the
 * whole input: its CRC register is crc32(crc32(0, R.lo), R.hi).  The
 * register the CRC started from enters as an xor into the first 4 bytes.
 * Constants: each k as a reflected 32-bit remainder in the upper half of a
 * 64-bit word (bit 63 - d: x^d), made at load from the polynomial.
 */
struct lc_crc32c_fold_k {
	uint64_t k0, k1;
};
enum { LC_FOLD_2048, LC_FOLD_512, LC_FOLD_384, LC_FOLD_256, LC_FOLD_128, LC_FOLD_N };
static const unsigned lc_crc32c_fold_bits[LC_FOLD_N] = { 2048, 512, 384, 256, 128 };
static struct lc_crc32c_fold_k lc_crc32c_fold_k[LC_FOLD_N];
#endif

/*
 * The shift is linear: an entry is the xor of the entries of its bits, so
 * each table takes 8 products (of one bit each) and xors instead of 256
 * products (a product is a 32-step loop): 66 000 instructions at program
 * start instead of 295 000 (callgrind).
 */
static void lc_crc32c_zeros_table(uint32_t t[4][256], size_t n)
{
	uint32_t x = lc_crc32c_xn(8 * n);

	for (unsigned k = 0; k < 4; k++) {
		t[k][0] = 0;
		for (unsigned b = 1; b < 256; b++) {
			unsigned low = b & -b;   /* the lowest bit set */

			t[k][b] = low == b ? lc_crc32c_mulmod(x, (uint32_t)b << (8 * k)) : t[k][b ^ low] ^ t[k][low];
		}
	}
}

/* made before main (and before any thread), read-only afterwards */
__attribute__((constructor)) static void lc_crc32c_tables(void)
{
	lc_crc32c_zeros_table(lc_crc32c_zeros_long, LC_CRC32C_LONG);
	lc_crc32c_zeros_table(lc_crc32c_zeros_short, LC_CRC32C_SHORT);
#if LC_CRC32C_FOLD
	for (unsigned i = 0; i < LC_FOLD_N; i++) {
		lc_crc32c_fold_k[i].k0 = (uint64_t)lc_crc32c_xn(lc_crc32c_fold_bits[i] + 63) << 32;
		lc_crc32c_fold_k[i].k1 = (uint64_t)lc_crc32c_xn(lc_crc32c_fold_bits[i] - 1) << 32;
	}
#endif
}

static inline uint32_t lc_crc32c_shift(const uint32_t t[4][256], uint32_t c)
{
	return t[0][c & 0xffu] ^ t[1][(c >> 8) & 0xffu] ^ t[2][(c >> 16) & 0xffu] ^ t[3][c >> 24];
}

#if LC_CRC32C_X86
/*
 * CRC over len bytes at src, and when COPY the same bytes stored at dst in
 * the same pass (each word is loaded once, stored once and fed to crc32).
 * COPY is a constant at each call, so the two uses compile to two loops.
 */
__attribute__((target("sse4.2"), always_inline))
static inline uint32_t lc_crc32c_sse42_run(uint32_t crc, unsigned char *dst, const unsigned char *src,
					   size_t len, const int copy)
{
#if defined(__x86_64__)
	uint64_t c = ~crc;

	/* three chains over three adjacent blocks, joined by shifts */
#define LC_CRC32C_3WAY(block, zeros)                                                    \
	for (; len >= 3 * (block); len -= 3 * (block)) {                                \
		uint64_t c1 = 0, c2 = 0;                                                 \
		for (size_t i = 0; i < (block); i += 8) {                                \
			uint64_t w0, w1, w2;                                             \
			memcpy(&w0, src + i, 8);                                         \
			memcpy(&w1, src + (block) + i, 8);                               \
			memcpy(&w2, src + 2 * (block) + i, 8);                           \
			if (copy) {                                                      \
				memcpy(dst + i, &w0, 8);                                 \
				memcpy(dst + (block) + i, &w1, 8);                       \
				memcpy(dst + 2 * (block) + i, &w2, 8);                   \
			}                                                                \
			c = _mm_crc32_u64(c, w0);                                        \
			c1 = _mm_crc32_u64(c1, w1);                                      \
			c2 = _mm_crc32_u64(c2, w2);                                      \
		}                                                                        \
		c = lc_crc32c_shift(zeros, (uint32_t)c) ^ (uint32_t)c1;                  \
		c = lc_crc32c_shift(zeros, (uint32_t)c) ^ (uint32_t)c2;                  \
		src += 3 * (block);                                                      \
		if (copy)                                                                \
			dst += 3 * (block);                                              \
	}
	LC_CRC32C_3WAY(LC_CRC32C_LONG, lc_crc32c_zeros_long)
	LC_CRC32C_3WAY(LC_CRC32C_SHORT, lc_crc32c_zeros_short)
#undef LC_CRC32C_3WAY
	for (; len >= 8; len -= 8, src += 8) {
		uint64_t w;

		memcpy(&w, src, sizeof w);      /* unaligned load */
		if (copy) {
			memcpy(dst, &w, sizeof w);
			dst += 8;
		}
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
#else
	crc = ~crc;
#endif
	for (; len; len--) {
		if (copy)
			*dst++ = *src;
		crc = _mm_crc32_u8(crc, *src++);
	}
	return ~crc;
}

__attribute__((target("sse4.2")))
static uint32_t lc_crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	return lc_crc32c_sse42_run(crc, NULL, buf, len, 0);
}

__attribute__((target("sse4.2")))
static uint32_t lc_crc32c_sse42_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	return lc_crc32c_sse42_run(crc, dst, src, len, 1);
}
#endif

#if LC_CRC32C_FOLD
#define LC_FOLD_TARGET "avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2"
/* Buffers this long or longer are folded (their whole 256-byte rounds; the rest by the chains). */
#define LC_CRC32C_FOLD_MIN 1024u

/* A 512-bit register of four copies of the fold constants for distance i. */
__attribute__((target(LC_FOLD_TARGET))) static inline __m512i lc_fold_k512(unsigned i)
{
	return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)lc_crc32c_fold_k[i].k1,
						     (long long)lc_crc32c_fold_k[i].k0));
}

/* x folded by the constants k, xored with y: x.q0 k.q0 ^ x.q1 k.q1 ^ y in each lane. */
__attribute__((target(LC_FOLD_TARGET))) static inline __m512i lc_fold512(__m512i x, __m512i k, __m512i y)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11), y, 0x96);
}

__attribute__((target(LC_FOLD_TARGET))) static inline __m128i lc_fold128(__m128i x, unsigned i)
{
	__m128i k = _mm_set_epi64x((long long)lc_crc32c_fold_k[i].k1, (long long)lc_crc32c_fold_k[i].k0);

	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The 64 bytes at src + i, stored at dst + i as they were read when COPY. */
__attribute__((target(LC_FOLD_TARGET), always_inline))
static inline __m512i lc_fold_take(unsigned char *dst, const unsigned char *src, size_t i, const int copy)
{
	__m512i v = _mm512_loadu_si512((const void *)(src + i));

	if (copy)
		_mm512_storeu_si512((void *)(dst + i), v);
	return v;
}

/*
 * The CRC register after the whole 256-byte rounds of len (>= 256) bytes at
 * src, from register c, and when COPY those bytes stored at dst; *done: the
 * bytes taken.  The bytes are stored as read: the register enters the fold
 * only.
 */
__attribute__((target(LC_FOLD_TARGET), always_inline))
static inline uint64_t lc_crc32c_fold_run(uint64_t c, unsigned char *dst, const unsigned char *src,
					  size_t len, const int copy, size_t *done)
{
	size_t n = len & ~(size_t)255;
	__m512i x0 = lc_fold_take(dst, src, 0, copy), x1 = lc_fold_take(dst, src, 64, copy),
		x2 = lc_fold_take(dst, src, 128, copy), x3 = lc_fold_take(dst, src, 192, copy),
		k = lc_fold_k512(LC_FOLD_2048);
	__m128i r;

	/* the register into the first 4 bytes: a cast leaves the upper lanes undefined, the mask clears them */
	x0 = _mm512_xor_si512(x0, _mm512_maskz_mov_epi32(1, _mm512_castsi128_si512(
						     _mm_cvtsi32_si128((int)(uint32_t)c))));
	for (size_t i = 256; i < n; i += 256) {
		x0 = lc_fold512(x0, k, lc_fold_take(dst, src, i, copy));
		x1 = lc_fold512(x1, k, lc_fold_take(dst, src, i + 64, copy));
		x2 = lc_fold512(x2, k, lc_fold_take(dst, src, i + 128, copy));
		x3 = lc_fold512(x3, k, lc_fold_take(dst, src, i + 192, copy));
	}
	k = lc_fold_k512(LC_FOLD_512);
	x1 = lc_fold512(x0, k, x1);
	x2 = lc_fold512(x1, k, x2);
	x3 = lc_fold512(x2, k, x3);
	r = _mm_xor_si128(lc_fold128(_mm512_extracti32x4_epi32(x3, 0), LC_FOLD_384),
			  lc_fold128(_mm512_extracti32x4_epi32(x3, 1), LC_FOLD_256));
	r = _mm_xor_si128(r, lc_fold128(_mm512_extracti32x4_epi32(x3, 2), LC_FOLD_128));
	r = _mm_xor_si128(r, _mm512_extracti32x4_epi32(x3, 3));
	*done = n;
	c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(r));
	return _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(r, 1));
}

/* lc_crc32c / lc_crc32c_copy by folding: the rounds folded, the rest by the chains. */
__attribute__((target(LC_FOLD_TARGET)))
static uint32_t lc_crc32c_fold(uint32_t crc, const void *buf, size_t len)
{
	size_t done;
	uint64_t c = lc_crc32c_fold_run(~crc, NULL, buf, len, 0, &done);

	return lc_crc32c_sse42_run(~(uint32_t)c, NULL, (const unsigned char *)buf + done, len - done, 0);
}

__attribute__((target(LC_FOLD_TARGET)))
static uint32_t lc_crc32c_fold_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	size_t done;
	uint64_t c = lc_crc32c_fold_run(~crc, dst, src, len, 1, &done);

	return lc_crc32c_sse42_run(~(uint32_t)c, (unsigned char *)dst + done,
				   (const unsigned char *)src + done, len - done, 1);
}
#endif

/*
 * The implementation in use: 0 = not probed yet, else an LC_CRC32C_IMPL_*.
 * Probing is idempotent, so a race between two first callers only repeats
 * it: relaxed order suffices (no other memory is published through it).
 * The environment variable LC_CRC32C (table, sse42, fold) picks one the
 * CPU has, for measurements side by side in one binary; lc_crc32c_select
 * does the same for a test.
 */
static _Atomic int lc_crc32c_impl;
static const char *const lc_crc32c_impl_names[] = { "", "table", "sse42", "fold" };

/* 1 when this CPU (and its OS) can run implementation impl. */
static int lc_crc32c_impl_ok(int impl)
{
#if LC_CRC32C_X86
	__builtin_cpu_init();
	if (impl == LC_CRC32C_IMPL_SSE42)
		return __builtin_cpu_supports("sse4.2");
#if LC_CRC32C_FOLD
	if (impl == LC_CRC32C_IMPL_FOLD)
		return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("pclmul") &&
		       __builtin_cpu_supports("vpclmulqdq");
#endif
#endif
	return impl == LC_CRC32C_IMPL_TABLE;
}

/*
 * Where folding is the default: measured in the pipeline, not alone.  On an
 * AMD EPYC (Zen 5, 2 vCPUs) folding made a 64 KiB ping-pong with a CRC per
 * frame 10.2-10.9 us against 12.3-12.8 with the chains, and a 1 MiB stream
 * with a CRC and a kept copy per frame 6.5-7.0 GB/s against 4.3-5.2 (5
 * interleaved rounds, LC_CRC32C in one binary); on an
 * Intel Xeon it was 2x faster alone but 3-13 % slower in the pipeline (both
 * processes' 512-bit work on two vCPUs, docs/internals.md).  Elsewhere the
 * chains stay the default; LC_CRC32C=fold picks folding on any CPU that has it.
 */
static int lc_crc32c_fold_pays(void)
{
#if LC_CRC32C_X86
	__builtin_cpu_init();
	return __builtin_cpu_is("amd");
#else
	return 0;
#endif
}

int lc_crc32c_select(const char *name)
{
	for (int i = LC_CRC32C_IMPL_TABLE; i <= LC_CRC32C_IMPL_FOLD; i++)
		if (name && strcmp(name, lc_crc32c_impl_names[i]) == 0) {
			if (!lc_crc32c_impl_ok(i))
				return -1;
			atomic_store_explicit(&lc_crc32c_impl, i, memory_order_relaxed);
			return 0;
		}
	return -1;
}

int lc_crc32c_current(void)
{
	int impl = atomic_load_explicit(&lc_crc32c_impl, memory_order_relaxed);

	if (impl == 0) {
		const char *env = getenv("LC_CRC32C");

		if (env && lc_crc32c_select(env) == 0)
			return atomic_load_explicit(&lc_crc32c_impl, memory_order_relaxed);
		impl = lc_crc32c_fold_pays() ? LC_CRC32C_IMPL_FOLD : LC_CRC32C_IMPL_SSE42;
		while (!lc_crc32c_impl_ok(impl))
			impl--;
		atomic_store_explicit(&lc_crc32c_impl, impl, memory_order_relaxed);
	}
	return impl;
}

const char *lc_crc32c_name(void)
{
	return lc_crc32c_impl_names[lc_crc32c_current()];
}

int lc_crc32c_hw_available(void)
{
	return lc_crc32c_current() >= LC_CRC32C_IMPL_SSE42;
}

uint32_t lc_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	switch (lc_crc32c_current()) {
#if LC_CRC32C_FOLD
	case LC_CRC32C_IMPL_FOLD:
		if (len >= LC_CRC32C_FOLD_MIN)
			return lc_crc32c_fold(crc, buf, len);
		__attribute__((fallthrough));   /* a short buffer: the chains */
#endif
#if LC_CRC32C_X86
	case LC_CRC32C_IMPL_SSE42:
		return lc_crc32c_sse42(crc, buf, len);
#endif
	default:
		return lc_crc32c_sw(crc, buf, len);
	}
}

uint32_t lc_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return lc_crc32c_hw(crc, buf, len);
}

uint32_t lc_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	switch (lc_crc32c_current()) {
#if LC_CRC32C_FOLD
	case LC_CRC32C_IMPL_FOLD:
		if (len >= LC_CRC32C_FOLD_MIN)
			return lc_crc32c_fold_copy(crc, dst, src, len);
		__attribute__((fallthrough));   /* a short buffer: the chains */
#endif
#if LC_CRC32C_X86
	case LC_CRC32C_IMPL_SSE42:
		return lc_crc32c_sse42_copy(crc, dst, src, len);
#endif
	default:
		memcpy(dst, src, len);
		return lc_crc32c_sw(crc, dst, len);
	}
}
