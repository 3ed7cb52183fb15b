/* SPDX-License-Identifier: MIT */
LC_COMMENT(LC_NAME[[ protocol: per-node state, node->proto.]]LC_NAME[[ (a member of struct lc_proto_state).]])
#ifndef LC_[[]]LC_UNAME[[]]_STATE_H
#define LC_[[]]LC_UNAME[[]]_STATE_H

#include <stdint.h>

struct lc_[[]]LC_NAME[[]]_state {
	uint64_t frames;        /* a first field (C has no empty struct): replace with real state */
};

#endif
