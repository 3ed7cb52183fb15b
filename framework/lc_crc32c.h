/* SPDX-License-Identifier: MIT */
/* CRC32C (Castagnoli) for protocols: a table, SSE4.2 crc32 chains or VPCLMULQDQ folding. */
#ifndef LC_CRC32C_H
#define LC_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * CRC32C (Castagnoli, reflected, init and final xor ~0) of len bytes at buf,
 * continuing from crc (0 to start): lc_crc32c(0, "123456789", 9) == 0xE3069283,
 * and lc_crc32c(lc_crc32c(0, a, n), b, m) is the CRC of a followed by b.
 * Uses the SSE4.2 crc32 instruction when the CPU has it (three chains at once
 * over a buffer of 768 bytes or more, lc_crc32c.c), the table otherwise.
 */
uint32_t lc_crc32c(uint32_t crc, const void *buf, size_t len);
/*
 * The CRC of len bytes at src, continuing from crc, and the same bytes copied
 * to dst, in one pass (dst and src must not overlap): a protocol that copies
 * a payload anyway gets its CRC for the price of the slower of the two.
 */
uint32_t lc_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);
/* The table-driven version (any CPU). */
uint32_t lc_crc32c_sw(uint32_t crc, const void *buf, size_t len);
/* The implementation in use (below: folding or the SSE4.2 chains where the CPU has them), else the table. */
uint32_t lc_crc32c_hw(uint32_t crc, const void *buf, size_t len);
/* 1 when this CPU has SSE4.2 (probed once, then cached). */
int lc_crc32c_hw_available(void);
/*
 * The implementations of lc_crc32c and lc_crc32c_copy: the table, SSE4.2's
 * crc32 in three chains, and (buffers of 1 KiB or more) folding by VPCLMULQDQ
 * over AVX-512 registers.  The fastest the CPU has is used, unless the
 * environment variable LC_CRC32C names another (table, sse42, fold) when
 * first probed.  lc_crc32c_select(name): switch to one (0), or -1 when the
 * name is unknown or the CPU lacks it (nothing changes).
 */
enum { LC_CRC32C_IMPL_TABLE = 1, LC_CRC32C_IMPL_SSE42 = 2, LC_CRC32C_IMPL_FOLD = 3 };
int lc_crc32c_select(const char *name);
int lc_crc32c_current(void);
const char *lc_crc32c_name(void);

/*
 * lc_crc32c_inline: the same CRC as lc_crc32c, for the per-frame paths of the
 * protocols.  Up to LC_CRC32C_INLINE_MAX bytes it runs inline: the crc32
 * instruction by inline assembly (so the caller needs no target("sse4.2") and
 * no call), 8 bytes a step, the CPU test a single load of the CPU model that
 * libgcc fills before main.  A frame header (its size a compile-time
 * constant) thus costs one crc32 per 8 bytes and no loop.  Longer buffers, a
 * CPU without SSE4.2 and other architectures take lc_crc32c.
 */
#define LC_CRC32C_INLINE_MAX 256u

#if defined(__x86_64__)
#define LC_CRC32C_INLINE_X86 1
#else
#define LC_CRC32C_INLINE_X86 0
#endif

#if LC_CRC32C_INLINE_X86
static inline uint64_t lc_crc32c_step64(uint64_t c, uint64_t w)
{
	__asm__("crc32q %1, %0" : "+r"(c) : "rm"(w));
	return c;
}

static inline uint32_t lc_crc32c_step32(uint32_t c, uint32_t w)
{
	__asm__("crc32l %1, %0" : "+r"(c) : "rm"(w));
	return c;
}

static inline uint32_t lc_crc32c_step16(uint32_t c, uint16_t w)
{
	__asm__("crc32w %1, %0" : "+r"(c) : "rm"(w));
	return c;
}

static inline uint32_t lc_crc32c_step8(uint32_t c, uint8_t w)
{
	__asm__("crc32b %1, %0" : "+r"(c) : "rm"(w));
	return c;
}

/*
 * crc32 over len bytes at p from the running (inverted) value c: 8 bytes a
 * step up to the last whole word, then 4, 2, 1.  The loop runs to an end
 * pointer and the tail is one test when len is a multiple of 8: a counted
 * loop on len (len -= 8 each step, the remainder recomputed after it) spent
 * 21 instructions on an 8-byte payload, this 9 (docs/internals.md,
 * thirty-third part).
 */
__attribute__((always_inline)) static inline uint32_t lc_crc32c_steps(uint64_t c, const unsigned char *p,
								     size_t len)
{
	const unsigned char *end8 = p + (len & ~(size_t)7);
	uint32_t c32;

	for (; p != end8; p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof w);        /* unaligned load */
		c = lc_crc32c_step64(c, w);
	}
	c32 = (uint32_t)c;
	if (__builtin_expect(len & 7, 0)) {
		if (len & 4) {
			uint32_t w;

			memcpy(&w, p, sizeof w);
			c32 = lc_crc32c_step32(c32, w);
			p += 4;
		}
		if (len & 2) {
			uint16_t w;

			memcpy(&w, p, sizeof w);
			c32 = lc_crc32c_step16(c32, w);
			p += 2;
		}
		if (len & 1)
			c32 = lc_crc32c_step8(c32, *p);
	}
	return c32;
}
#endif

__attribute__((always_inline)) static inline uint32_t lc_crc32c_inline(uint32_t crc, const void *buf, size_t len)
{
#if LC_CRC32C_INLINE_X86
	if (len <= LC_CRC32C_INLINE_MAX && __builtin_cpu_supports("sse4.2"))
		return ~lc_crc32c_steps((uint32_t)~crc, buf, len);
#endif
	return lc_crc32c(crc, buf, len);
}

/* The zero mask of lc_crc32c_inline_frame for the size bytes at offset off (a header field). */
#define LC_CRC32C_ZERO_BYTES(off, size) ((((uint64_t)1 << (size)) - 1u) << (off))

/* The mask of the n header bytes at offset off that count (bit i of zero: byte i counts as 0). */
__attribute__((always_inline)) static inline uint64_t lc_crc32c_keep(uint64_t zero, size_t off, unsigned n)
{
	uint64_t keep = ~(uint64_t)0;

#pragma GCC unroll 8
	for (unsigned b = 0; b < n; b++)
		if ((zero >> (off + b)) & 1u)
			keep &= ~((uint64_t)0xff << (8 * b));
	return keep;
}

/*
 * CRC32C of a frame: hlen header bytes (a compile-time constant multiple of 4,
 * at most 64) in which the bytes marked in zero (bit i: byte i, a constant:
 * the header's CRC fields) count as 0, then len payload bytes.  Equal to
 * lc_crc32c(lc_crc32c(0, h, hlen), payload, len) with h the header so
 * zeroed, but with one CPU test and no copy of the header: each header word
 * is loaded, masked when it holds a zeroed byte, and fed to crc32.
 */
__attribute__((always_inline)) static inline uint32_t lc_crc32c_inline_frame(const void *hdr, size_t hlen,
									    uint64_t zero, const void *payload,
									    size_t len)
{
#if LC_CRC32C_INLINE_X86
	if (hlen % 4 == 0 && hlen <= 64 && len <= LC_CRC32C_INLINE_MAX && __builtin_cpu_supports("sse4.2")) {
		const unsigned char *h = hdr;
		uint64_t c = 0xffffffffu;

#pragma GCC unroll 8
		for (size_t i = 0; i < hlen / 8; i++) {
			uint64_t w;

			memcpy(&w, h + 8 * i, sizeof w);
			c = lc_crc32c_step64(c, w & lc_crc32c_keep(zero, 8 * i, 8));
		}
		if (hlen % 8) {
			/* a header 4 bytes past a multiple of 8 (gen/model.lua): its last word */
			uint32_t w;

			memcpy(&w, h + hlen - 4, sizeof w);
			c = lc_crc32c_step32((uint32_t)c, w & (uint32_t)lc_crc32c_keep(zero, hlen - 4, 4));
		}
		return ~lc_crc32c_steps(c, payload, len);
	}
#endif
	{
		unsigned char h[64];
		uint32_t crc;

		memcpy(h, hdr, hlen <= sizeof h ? hlen : sizeof h);
		for (size_t i = 0; i < hlen && i < sizeof h; i++)
			if ((zero >> i) & 1u)
				h[i] = 0;
		crc = lc_crc32c(0, h, hlen <= sizeof h ? hlen : sizeof h);
		return len ? lc_crc32c(crc, payload, len) : crc;
	}
}

#endif /* LC_CRC32C_H */
