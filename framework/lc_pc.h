/* SPDX-License-Identifier: MIT */
/* LC_PC(): how the host pipeline calls a pointcut of the composite protocol. */
#ifndef LC_PC_H
#define LC_PC_H

#include "lc_composite_host.h"

/*
 * LC_PC(pc, args...) calls the generated composite lc_pc_<pc>(args...).
 * The zero-cost proof compiles the same pipeline with
 * -DLC_ZEROCOST_REFERENCE=1, where every call is replaced by the value the
 * pointcut has when no protocol acts (LC_PC_REF_<pc>) and its arguments are
 * not even evaluated.  With every protocol unselected both builds must give
 * identical machine code: see framework/lc_proto.h for the hook contract.
 */
#if defined(LC_ZEROCOST_REFERENCE) && LC_ZEROCOST_REFERENCE
#define LC_PC(pc, ...) LC_PC_REF_##pc
#elif defined(LC_ZEROCOST_NEGATIVE) && LC_ZEROCOST_NEGATIVE
/*
 * The proof's negative control (tools/zerocost.py): every pointcut first
 * calls an out-of-line function, the mistake of DESIGN.md's "a stub not
 * static inline in a header".  The proof must call this build different
 * from the reference on every run, or it proves nothing.
 */
void lc_zc_negative_tick(void);
#define LC_PC(pc, ...) (lc_zc_negative_tick(), lc_pc_##pc(__VA_ARGS__))
#else
#define LC_PC(pc, ...) lc_pc_##pc(__VA_ARGS__)
#endif

#endif /* LC_PC_H */
