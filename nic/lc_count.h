/* SPDX-License-Identifier: MIT */
/* A counter of one writer at a time, read by other processes: one add to memory. */
#ifndef LC_COUNT_H
#define LC_COUNT_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Add v to counter c.  Its writer is one at a time (a NIC engine, or a host
 * under its node's progress lock); other threads and processes (commrun
 * --stats, lc_stats) read it with relaxed loads while it counts.
 *
 * x86-64: one add to memory, not locked.  The writer needs no atomic
 * read-modify-write, and the add's store is one aligned 8-byte store, which
 * a reader's load sees whole.  GCC 12 compiles the portable form below as a
 * load, an add and a store, and loads the counters' array pointer again for
 * each counter (an atomic access is not moved across): 4 instructions a
 * count where this is 1-2, and an 8 B message counts about 19 times on
 * each node (the framework's and the NIC's counters).
 */
static inline void lc_count_add(_Atomic uint64_t *c, uint64_t v)
{
#if defined(__x86_64__)
	__asm__("addq %1, %0" : "+m"(*(uint64_t *)(void *)c) : "er"(v));
#else
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v, memory_order_relaxed);
#endif
}

#endif /* LC_COUNT_H */
