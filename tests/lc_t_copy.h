/* SPDX-License-Identifier: MIT */
/* The check of a copy function shared by the unit tests: exactly the bytes asked for, at every alignment. */
#ifndef LC_T_COPY_H
#define LC_T_COPY_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * copy(dst, src, n) for each of the nlens lengths, at every destination
 * offset of a line and source offsets 0, 13, 26, 39, 52: the n bytes land,
 * nothing before or after them changes.  A failure names length, offsets and
 * the first wrong byte.
 */
static inline void lc_t_copy_exact(void (*copy)(void *, const void *, size_t), const size_t *lens,
				   size_t nlens)
{
	enum { PAD = 64 };
	size_t max = 0;

	for (size_t i = 0; i < nlens; i++)
		max = lens[i] > max ? lens[i] : max;
	uint8_t *src = malloc(max + PAD), *dst = malloc(max + 3 * PAD);

	cr_assert(src && dst);
	for (size_t i = 0; i < max + PAD; i++)
		src[i] = (uint8_t)(i * 7 + i / 251) == 0xee ? 0x11 : (uint8_t)(i * 7 + i / 251);
	for (size_t li = 0; li < nlens; li++)
		for (size_t da = 0; da < 64; da++)
			for (size_t sa = 0; sa < 64; sa += 13) {
				size_t n = lens[li];

				memset(dst, 0xee, max + 3 * PAD);
				copy(dst + PAD + da, src + sa, n);
				for (size_t k = 0; k < max + 3 * PAD; k++) {
					int in = k >= PAD + da && k < PAD + da + n;
					uint8_t want = in ? src[sa + k - PAD - da] : 0xee;

					if (dst[k] != want)
						cr_assert_fail("length %zu, dst offset %zu, src offset %zu: byte %zu is %#x, "
							       "not %#x", n, da, sa, k, dst[k], want);
				}
			}
	free(src);
	free(dst);
}

#endif /* LC_T_COPY_H */
