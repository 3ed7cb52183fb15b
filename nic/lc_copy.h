/* SPDX-License-Identifier: MIT */
/* The copies of a small frame or payload, host's and NIC's: small lengths inline, the rest by the C library. */
#ifndef LC_COPY_H
#define LC_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Copy len bytes (dst and src do not overlap): the host's copies of a
 * frame's payload, into the Send Ring (PIO) and out of staging (framework/
 * hot.c), the same copies of the NIC model's own floor (tools/bench/
 * nic_floor.c), and Net-Send's copy of a frame into the remote Receive
 * Ring (nic/nic.c).  A small message's payload is 0-16 bytes.
 *
 * Up to 64 bytes: two moves of the largest size of 1, 4, 8, 16 or 32 bytes
 * that fits (a 32-byte move is two 16-byte registers), the second ending at
 * len (they overlap when len is not twice the size), as glibc's own small
 * path does -- without its call, the PLT and its size dispatch: the 8 B
 * copy out of staging was 23 of msgrate's receiver's Ir a message through
 * the C library, 9 here.  Both moves' loads come before their stores.  A
 * memcpy of constant size is plain loads and stores.  Net-Send's frame
 * copy: a 36-byte frame costs about the Ir of glibc's and its call, but not
 * the call's stores -- the registers lc_net_put saves around it and the
 * return address: msgrate's sender 23 -> 19 stores a message in lc_net_put,
 * and a sender's stores queue behind its frames' stores into the remote
 * Receive Ring (docs/internals.md, nineteenth part).
 *
 * Longer: the C library's memcpy.  Where the compiler knows the length's
 * bound (a payload of at most LC_MTU or LC_PIO_THRESHOLD bytes) GCC 12 at
 * -O2 copies inline with `rep movsq`, microcoded: 27-59 TSC ticks at 8-512 B
 * on the AMD EPYC (Zen 5) we measure on, against 3.5-10 for glibc's vector
 * copy (one process, in cache, best of 7 x 200000 copies).  The empty asm
 * hides the bound, so the copy is a call.
 */
/* 16 bytes in one register, at any alignment (GCC's vector extension: movdqu, no stack copy) */
typedef unsigned char lc_copy_v16 __attribute__((vector_size(16), aligned(1), may_alias));

#define LC_COPY_MOVES(T)                                                   \
	do {                                                               \
		T a_, b_;                                                  \
		memcpy(&a_, s, sizeof(T));                                 \
		memcpy(&b_, s + len - sizeof(T), sizeof(T));               \
		memcpy(d, &a_, sizeof(T));                                 \
		memcpy(d + len - sizeof(T), &b_, sizeof(T));               \
	} while (0)

static inline void lc_copy(void *dst, const void *src, size_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* the most common first: a small payload, then a small frame */
	if (len <= 16) {
		if (len >= 8) {
			LC_COPY_MOVES(uint64_t);
		} else if (len >= 4) {
			LC_COPY_MOVES(uint32_t);
		} else if (len) {
			unsigned char a = s[0], b = s[len / 2], c = s[len - 1];

			d[0] = a;
			d[len / 2] = b;
			d[len - 1] = c;
		}
	} else if (len <= 32) {
		LC_COPY_MOVES(lc_copy_v16);
	} else if (len <= 64) {
		lc_copy_v16 a0, a1, b0, b1;

		memcpy(&a0, s, 16);
		memcpy(&a1, s + 16, 16);
		memcpy(&b0, s + len - 32, 16);
		memcpy(&b1, s + len - 16, 16);
		memcpy(d, &a0, 16);
		memcpy(d + 16, &a1, 16);
		memcpy(d + len - 32, &b0, 16);
		memcpy(d + len - 16, &b1, 16);
	} else {
		__asm__("" : "+r"(len));
		memcpy(dst, src, len);
	}
}

#undef LC_COPY_MOVES
#endif /* LC_COPY_H */
