/* SPDX-License-Identifier: MIT */
/* Per-node state of the checksum protocol (a member of struct lc_proto_state). */
#ifndef LC_CHECKSUM_STATE_H
#define LC_CHECKSUM_STATE_H

#include <stdint.h>

struct lc_checksum_state {
	uint64_t bad;   /* frames dropped on receive: CRC mismatch or impossible length */
};

#endif /* LC_CHECKSUM_STATE_H */
