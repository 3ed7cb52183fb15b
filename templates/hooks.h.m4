/* SPDX-License-Identifier: MIT */
LC_COMMENT(LC_NAME[[ protocol: its hooks, one per host pointcut (scaffold: fill in what it needs).]])
#ifndef LC_[[]]LC_UNAME[[]]_HOOKS_H
#define LC_[[]]LC_UNAME[[]]_HOOKS_H

/*
 * Parameters: none yet.  Add them to protocol.lua (params); they appear in
 * lc_config.h as LC_<PROTOCOL>_<PARAM> and in docs/config-reference.md.
 * Header fields: none yet (protocol.lua header; they appear in struct
 * lc_frame_hdr as <protocol>_<field>).
 * State: node->proto.<protocol>, struct in state.h.
 *
 * Every host pointcut of framework/pointcuts.lua is stubbed below with its
 * neutral result, and listed in protocol.lua (pointcuts).  A stub that stays
 * neutral costs nothing (it is static inline and inlined away); delete the
 * stubs the protocol does not need together with their names in
 * protocol.lua, and the generator supplies an empty dummy instead.
 * NIC-side pointcuts (nic_tx, nic_rx) go in a nic_hooks.h of this folder.
 * The hook contract (static inline, no side-effecting arguments, verdicts,
 * the node's progress lock) is written in framework/lc_proto.h.
 */
#include "lc_config.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

m4_define([[LC_PC_ITEM]], [[/*
 * $1: $7.
 * Returns $2; the composite folds the protocols' results by "$3".
 */
static inline $2 lc_[[]]LC_NAME[[]]_$1($4)
{
	$5[[]]m4_ifelse([[$6]], [[]], [[]], [[
	$6]])
}
]])m4_dnl
LC_PC_HOST_LIST
#endif
