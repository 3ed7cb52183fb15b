/* SPDX-License-Identifier: MIT */
/* rendezvous protocol: large messages by announce, clear-to-send and RDMA into the receive buffer. */
#ifndef LC_RENDEZVOUS_HOOKS_H
#define LC_RENDEZVOUS_HOOKS_H

/*
 * Parameters (configs: rendezvous = { threshold = N, max_active = N, reg_cache = N }):
 *   threshold   a message of at least this many bytes goes by rendezvous;
 *   max_active  transfers one node drives at once, each way;
 *   reg_cache   receive buffers kept registered between transfers (<= nic.reg_entries).
 * No header field: the announce frame is the framework's (LC_FF_ANNOUNCE,
 * lc_proto_send_announce), the data frames are RDMA frames (LC_FT_RDMA:
 * rkey, off), clear-to-send and finish are our control frames.
 *
 * THE TRANSFER.  Sender S, receiver R, message M of len bytes >= threshold:
 *   1. S's send_msg takes M over (LC_CONSUMED) and announces it: the framework
 *      sends M's envelope as a first frame without payload, in M's order among
 *      S's messages to R.
 *   2. R matches it like any message -- to a posted receive at once, or, as an
 *      unexpected message holding no buffer, to the receive posted later --
 *      and match_announced runs: R registers the receive's buffer (the
 *      registration cache; a hit only takes a fresh generation of its handle,
 *      and its region may begin before the buffer), and sends clear-to-send
 *      (seq as S numbered it -- the announce's payload, lc_rmsg.sent_seq,
 *      which no recv_frame hook renumbers, where the header's seq may be
 *      mapped into the receiver's order -- handle, base = the buffer's
 *      offset in the region, bytes = min(len, buffer)).
 *   3. S posts bytes as RDMA frames from M's buffer (PIO or Tx DMA as any frame);
 *      R's NIC checks each against its registration table and DMAs its payload
 *      into the buffer: the copies of a byte are S's Tx DMA, Net-Send and R's
 *      Rx DMA -- three, where an eager message takes four (R's host copies it
 *      out of staging).  R counts the bytes of the frames it sees.
 *   4. S sends finish (seq, bytes) after the last frame, and completes M once
 *      its last Tx DMA block has read the buffer.  R, at finish, re-keys the
 *      handle (a late duplicate of this transfer is refused by its NIC, never
 *      written over the next one into the same buffer), waits until the Rx
 *      DMA blocks of the frames its NIC checked before the re-key are done
 *      (a protocol below may have sent some again: they land after the
 *      finish frame was taken), and completes the
 *      receive: every byte there, or LC_ERR_LOST when some never came (no
 *      exactly_once below, a frame lost); LC_ERR_TRUNC as usual when M was
 *      longer than the buffer.
 * LOSS.  The announce, clear-to-send and finish frames are sent once: on a
 * network that loses frames (injected faults) rendezvous needs a protocol
 * below that provides exactly_once; without one a lost control
 * frame leaves its transfer waiting, as a lost RDMA frame fails it
 * (LC_ERR_LOST at finish).  Frames of one pair arrive in order (one link; a protocol below that
 * provides exactly_once keeps it so under loss), so finish comes after every
 * RDMA frame of its transfer.  A peer that is gone (dead, exited, or given
 * up by a protocol below: lc_proto_peer_gone) or stopped for backpressure_timeout_us
 * -- the frames it sent before it went have reached us by then, as they do
 * for the framework's own receives -- ends its transfers: a send fails with
 * LC_ERR_PEER_DEAD once its buffer is no longer read, a receive with
 * LC_ERR_PEER_DEAD with the bytes that came.  A transfer that cannot start (every transfer
 * slot or the NIC's table in use) waits: the sender's send_msg answers
 * LC_RETRY, the receiver's match waits in a list poll looks at.
 * ORDER.  Messages of a pair complete in the order they were sent, on both
 * sides, as eager ones do: the receiver sends clear-to-send in match order (a
 * clear-to-send that waits for room holds back the later ones: ctsq), and the
 * sender posts the transfers' frames and finish frames in the order their
 * clear-to-send came, a transfer only once every earlier one posted its
 * finish, and completes them in that order (sendq).  Before, a transfer that
 * took a slot freed by an earlier one went first whenever the Send Ring was
 * full: in a sliding window the 17th message completed before the 8th.
 */
#include <stdint.h>

#include "lc_config.h"
#include "lc_frame_hdr.h"
#include "lc_proto.h"
#include "lc_verdict.h"

#if LC_RENDEZVOUS_REG_CACHE > LC_NIC_REG_ENTRIES
#error "rendezvous.reg_cache is larger than nic.reg_entries: the NIC's table cannot hold the cache"
#endif

/* Payload of our control frames: a tag (no other protocol's frame is taken) and a kind. */
#define LC_RNDV_TAG 0x56444e52u   /* "RNDV" */
enum lc_rndv_kind { LC_RNDV_CTS = 1, LC_RNDV_FIN = 2 };
struct lc_rndv_ctrl {
	uint32_t tag;
	uint32_t kind;
	uint32_t seq;     /* the message's sequence number for (sender, receiver), as the sender gave it */
	uint32_t rkey;    /* clear-to-send: the receiver's handle */
	uint32_t bytes;   /* clear-to-send: what to send; finish: what was sent */
	uint32_t base;    /* clear-to-send: where the receive buffer starts in the handle's region */
};

/* Out of line (rendezvous.c). */
int lc_rendezvous_init_slow(struct lc_node *node);
void lc_rendezvous_fini_slow(struct lc_node *node);
lc_verdict lc_rendezvous_send(struct lc_node *node, struct lc_sreq *s);
lc_verdict lc_rendezvous_frame(struct lc_node *node, struct lc_frame_hdr *hdr, void *payload);
void lc_rendezvous_matched(struct lc_node *node, struct lc_rmsg *m);
void lc_rendezvous_poll_slow(struct lc_node *node, uint64_t now_ns);

static inline int lc_rendezvous_init(struct lc_node *node)
{
	return lc_rendezvous_init_slow(node);
}

static inline void lc_rendezvous_fini(struct lc_node *node)
{
	lc_rendezvous_fini_slow(node);
}

static inline lc_verdict lc_rendezvous_send_msg(struct lc_node *node, struct lc_sreq *req)
{
	/*
	 * Small messages go eagerly; so do a group's (dst beyond the nodes: no one
	 * receiver) and one to this node itself (a blocking send to itself before
	 * its receive would wait for a clear-to-send that only it could give).
	 */
	if (req->len < LC_RENDEZVOUS_THRESHOLD || req->dst >= lc_node_size(node) ||
	    req->dst == lc_node_rank(node))
		return LC_CONTINUE;
	return lc_rendezvous_send(node, req);
}

/* 1 when the frame is one of our control frames. */
static inline int lc_rndv_is_ctrl(const struct lc_frame_hdr *hdr, const void *payload)
{
	uint32_t tag;

	if (hdr->type != LC_FT_CTRL || hdr->len != sizeof(struct lc_rndv_ctrl))
		return 0;
	__builtin_memcpy(&tag, payload, sizeof(tag));
	return tag == LC_RNDV_TAG;
}

static inline lc_verdict lc_rendezvous_recv_frame(struct lc_node *node, struct lc_frame_hdr *hdr,
						  void *payload)
{
	/*
	 * not ours: data, a control frame of another, an RDMA frame of the framework's
	 * puts or one its NIC refused (nothing placed: the framework drops it)
	 */
	if (hdr->type == LC_FT_DATA || (hdr->flags & (LC_FF_PUT | LC_FF_REFUSED)) ||
	    (hdr->type != LC_FT_RDMA && !lc_rndv_is_ctrl(hdr, payload)))
		return LC_CONTINUE;
	return lc_rendezvous_frame(node, hdr, payload);
}

static inline void lc_rendezvous_match_announced(struct lc_node *node, struct lc_rmsg *msg)
{
	lc_rendezvous_matched(node, msg);
}

static inline void lc_rendezvous_poll(struct lc_node *node, uint64_t now_ns)
{
	struct lc_rendezvous_state *st = &node->proto.rendezvous;

	if (st->nsend || st->nrecv || st->pend_head)
		lc_rendezvous_poll_slow(node, now_ns);
}

#endif /* LC_RENDEZVOUS_HOOKS_H */
