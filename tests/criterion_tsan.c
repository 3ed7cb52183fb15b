/* SPDX-License-Identifier: MIT */
/* mode=tsan: linked into every Criterion suite so that Criterion's arenas land where ThreadSanitizer lets them. */

/*
 * Criterion's sandbox (BoxFort) maps each of its shared arenas with
 * MAP_FIXED at 0x200000000000 + r * 16 MiB, r = rand_r() & 0x3fffff, after
 * checking with mincore() that the pages are free, 10 tries.  Under
 * ThreadSanitizer almost all of that range is its shadow or is reserved
 * (PROT_NONE), so Criterion stops at start with "Could not initialize
 * inheritable arena" or a SEGV (Criterion issue 274).  This rand_r, found
 * by libcriterion before the C library's, gives successive candidates from
 * 0x567000000000 upwards: the top of ThreadSanitizer's application range for
 * position-independent programs on x86-64 (0x550000000000-0x568000000000 in
 * the runtimes of gcc 12 and clang 14), above where the kernel places them.
 * Nothing else in the suites calls rand_r.  Built only in mode=tsan.
 */
#include <stdlib.h>

#if !defined(__x86_64__)
#error "mode=tsan: Criterion's arena placement under ThreadSanitizer is known for x86-64 only"
#endif

int rand_r(unsigned int *seed)
{
	return 0x367000 + (int)((*seed)++ % 0x800);
}
