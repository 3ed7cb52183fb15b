/* SPDX-License-Identifier: MIT */
/* LC_PC_NIC(): how the MCP calls a NIC-side pointcut of the composite protocol. */
#ifndef LC_PC_NIC_H
#define LC_PC_NIC_H

#include "lc_composite_nic.h"

/* As LC_PC() in framework/lc_pc.h, for the pointcuts the MCP calls (nic_tx, nic_rx). */
#if defined(LC_ZEROCOST_REFERENCE) && LC_ZEROCOST_REFERENCE
#define LC_PC_NIC(pc, ...) LC_PC_REF_##pc
#elif defined(LC_ZEROCOST_NEGATIVE) && LC_ZEROCOST_NEGATIVE
/* the proof's negative control, as LC_PC() in framework/lc_pc.h (defined in nic/nic.c) */
void lc_zc_negative_nic_tick(void);
#define LC_PC_NIC(pc, ...) (lc_zc_negative_nic_tick(), lc_pc_##pc(__VA_ARGS__))
#else
#define LC_PC_NIC(pc, ...) lc_pc_##pc(__VA_ARGS__)
#endif

#endif /* LC_PC_NIC_H */
