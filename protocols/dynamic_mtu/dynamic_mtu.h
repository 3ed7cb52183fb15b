/* SPDX-License-Identifier: MIT */
/* dynamic_mtu, public API: the frame size towards each peer (part of comm.h). */
#ifndef LC_DYNAMIC_MTU_H
#define LC_DYNAMIC_MTU_H

#include <stddef.h>

#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * In libraries whose config selects dynamic_mtu (LC_PROTO_DYNAMIC_MTU is 1 in
 * lc_config.h) this header is installed beside comm.h, which includes it.
 *
 * Each peer has a frame size: the payload bytes of every frame of a message
 * to it but the last.  A message takes the size its peer has when it enters
 * send (in the order the sends were called, once the messages before it
 * left), and keeps it.  With dynamic_mtu.adapt "on" the size follows what
 * the link loses (hooks.h); lc_dynamic_mtu_set fixes it.
 *
 * lc_dynamic_mtu_set(node, peer, bytes): peer's size is bytes from the next
 * message that enters send on, and stays so; bytes 0: the adaptation takes
 * over again (from the size set).  peer LC_ANY_SOURCE: every peer.  Returns
 * 0; LC_ERR_RANGE (peer), LC_ERR_INVAL (bytes outside dynamic_mtu.min ..
 * max, see lc_dynamic_mtu_bounds).
 */
int lc_dynamic_mtu_set(lc_node *node, int peer, size_t bytes);
/* The size the next message to peer will take, and whether it is fixed (1) or adapting (0). */
int lc_dynamic_mtu_get(lc_node *node, int peer, size_t *bytes, int *fixed);
/* The config's sizes: dynamic_mtu.min, the size a peer starts at, and max (0s resolved); any may be NULL. */
void lc_dynamic_mtu_bounds(size_t *min, size_t *start, size_t *max);

#ifdef __cplusplus
}
#endif

#endif /* LC_DYNAMIC_MTU_H */
