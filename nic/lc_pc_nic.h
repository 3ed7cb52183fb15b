/* SPDX-License-Identifier: MIT */
/* LC_PC_NIC(): how the MCP calls a NIC-side pointcut of the composite protocol. */
#ifndef LC_PC_NIC_H
#define LC_PC_NIC_H

#include "lc_composite_nic.h"

/* As LC_PC() in framework/lc_pc.h, for the pointcuts the MCP calls (nic_tx, nic_rx). */
#if defined(LC_ZEROCOST_REFERENCE) && LC_ZEROCOST_REFERENCE
#define LC_PC_NIC(pc, ...) LC_PC_REF_##pc
#else
#define LC_PC_NIC(pc, ...) lc_pc_##pc(__VA_ARGS__)
#endif

#endif /* LC_PC_NIC_H */
