/* SPDX-License-Identifier: MIT */
/* What a protocol sees of the pipeline: the hook contract and a small API. */
#ifndef LC_PROTO_H
#define LC_PROTO_H

/*
 * The hook contract (docs/internals.md, "Hook contract")
 * -------------------------------------------------------
 * A protocol implements pointcuts of framework/pointcuts.lua as hooks
 * lc_<protocol>_<pointcut>() in protocols/<p>/hooks.h.  The generated
 * composite (lc_composite_host.h) calls them in composition order.
 *
 * 1. A hook is `static inline` in its header; it is never reached through a
 *    function pointer (no tables, not even `static const` ones) and never
 *    defined out of line in a .c file.  Helpers it calls may live in the
 *    protocol's .c file, but only on paths the protocol really takes.
 * 2. The pipeline passes only plain values and pointers without side
 *    effects; a hook computes what it needs itself.  A hook never modifies
 *    the pipeline's bookkeeping except through the API below.
 * 3. Hooks return a verdict (lc_verdict.h) or a status; they do not block,
 *    except send_msg / after_send of a protocol documented to do so.
 * 4. Host hooks run under the node's progress lock, one at a time, in the
 *    thread that happens to drive progress.  They must not call the public
 *    API (lc_send, lc_progress, ...): that would take the lock again.
 * 5. The payload of recv_frame is valid only during the hook (it sits in a
 *    host staging slot that is released afterwards): LC_CONSUMED means the
 *    protocol handled or copied the frame.  Control frames (LC_FT_CTRL) that
 *    no protocol consumes are dropped and counted (rx_drops_proto).
 * 6. The zero-cost property (an unselected protocol costs no instruction)
 *    holds at -O1 and above with inlining on; the proof compares the hot
 *    functions of framework/hot.c against a build with -DLC_ZEROCOST_REFERENCE=1.
 *
 * Order: every composite calls the protocols in composition order (registry
 * `order`, lowest first) except send_frame, which runs in reverse
 * (framework/pointcuts.lua, combine "verdict_reverse"): on send a frame goes
 * down the stack, so the lowest protocol seals the header after every field is set, and
 * a protocol that answers LC_RETRY (e.g. without a credit) does so
 * before the protocols below it commit anything.  A send_frame hook may be
 * called again for the same frame after a RETRY: commit state at after_send.
 *
 * Verdicts at each host pointcut, as the pipeline honours them:
 *   send_msg     CONTINUE: frames go out;  RETRY: the message stays at the head
 *                of the send queue (later messages wait behind it) and the
 *                pointcut is asked again on a later progress step;  DROP: the
 *                send fails with LC_ERR_LOST;  CONSUMED: the protocol owns the
 *                request and completes it with lc_proto_sreq_done().
 *   send_frame   CONTINUE: posted;  RETRY: not posted, asked again later;
 *                DROP / CONSUMED: not posted, the pipeline moves to the next frame.
 *   recv_frame   CONTINUE: accepted;  DROP: discarded, counted;  CONSUMED: forgotten.
 *   deliver_msg  CONTINUE: the receive completes;  DROP / CONSUMED: the message
 *                is forgotten (DROP counted); a receive it had matched is posted
 *                again at the head of the queue (its buffer may hold the bytes).
 */
#include <stdint.h>

#include "comm.h"
#include "lc_coop.h"
#include "lc_crc32c.h"
#include "lc_verdict.h"
#include "nic.h"
#include "node.h"

/* This node's id and the job size. */
static inline uint32_t lc_node_rank(const struct lc_node *node)
{
	return node->rank;
}

static inline uint32_t lc_node_size(const struct lc_node *node)
{
	return node->size;
}

/*
 * The message sequence number the next message submitted to dst will carry
 * (hdr->seq of its data frames; numbered at submission, in the order of the
 * calls): a protocol that acts from a given message on keys it by this.
 */
static inline uint32_t lc_proto_next_seq(const struct lc_node *node, uint32_t dst)
{
	return node->tx_seq[dst];
}

/*
 * Send a control frame (type LC_FT_CTRL, flags FIRST|LAST, len bytes of
 * payload copied by PIO) to dst, bypassing send_msg and the send queue;
 * send_frame and after_send hooks still run (they can tell it by hdr->type),
 * so never call this from those two hooks.  Call only from a host hook (the
 * lock is held).  Returns 0, LC_ERR_AGAIN (Send Ring full: try again on a
 * later poll), LC_ERR_RANGE (bad dst) or LC_ERR_INVAL (len > LC_MTU).
 */
int lc_proto_send_ctrl(struct lc_node *node, uint32_t dst, const void *payload, uint32_t len);

/*
 * Complete a send request that send_msg took over (LC_CONSUMED) with err
 * (0 or a negative lc_err).  From a host hook only.
 */
void lc_proto_sreq_done(struct lc_node *node, struct lc_sreq *s, int err);

/*
 * Sends a protocol holds (capability holds_sends, LC_PC_HOLDS_SENDS): a
 * protocol that keeps a frame's payload for a later resend may keep a
 * reference to the user's buffer instead of a copy, and hold the send so
 * that it completes only when the protocol releases it -- as a send on a
 * reliable connection completes when the receiver acknowledged it, not when
 * it left.  Only the frames of a non-blocking send of several frames
 * (lc_proto_sreq_holdable, from send_frame or after_send): a blocking send
 * returns when its frames left -- held, it would make a ping-pong's answer
 * arrive before its receive is posted, an unexpected message copied twice --
 * and a message of one frame is a few bytes' copy.
 * lc_proto_sreq_hold, from after_send of such a frame, holds the send the
 * frame belongs to (its buffer stays the user's until the release; holding
 * again is the same hold).  lc_proto_sreq_release, from a host hook but
 * send_frame / after_send: the send completes once every frame left too.  A
 * send that fails meanwhile (its peer given up: lc_proto_peer_failed, or
 * found dead) completes with its error at once; the release of its hold
 * then finds nothing (the hold's id).
 */
static inline int lc_proto_sreq_holdable(const struct lc_node *node, const struct lc_frame_hdr *hdr)
{
#if LC_PC_HOLDS_SENDS
	/*
	 * only lc_tx_frame sends data frames of a message of several (it sets
	 * tx_sreq); a message of one frame, the small message's path, is answered
	 * by the first test
	 */
	return (hdr->flags & (LC_FF_FIRST | LC_FF_LAST)) != (LC_FF_FIRST | LC_FF_LAST) &&
	       hdr->type == LC_FT_DATA && !(hdr->flags & LC_FF_GROUP) && node->tx_sreq->holdable;
#else
	(void)node;
	(void)hdr;
	return 0;
#endif
}

/* A hold of a send (lc_proto_sreq_hold): the send's request and the hold's id. */
struct lc_hold {
	struct lc_sreq *s;
	uint32_t id;
};

#if LC_PC_HOLDS_SENDS
static inline struct lc_hold lc_proto_sreq_hold(struct lc_node *node)
{
	/* s is the first member of its request */
	struct lc_req *r = (struct lc_req *)(void *)node->tx_sreq;

	if (!r->hold) {
		if (!++node->hold_ids)
			node->hold_ids = 1;
		r->hold = node->hold_ids;
	}
	return (struct lc_hold){ &r->s, r->hold };
}

void lc_proto_sreq_release(struct lc_node *node, struct lc_hold h);
#endif

/*
 * Leave the text of the error err (printf format) as the node's last error
 * (lc_last_error) and return err: for control-path hooks such as init that
 * refuse, so that lc_open's message names the reason.  Never on the fast path.
 */
int lc_proto_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Re-inject a frame a protocol kept (header as it was posted, then len bytes
 * of payload) into the Send Ring by PIO, without running send_frame or
 * after_send again: retransmission.  Every composed protocol's seal (seal
 * pointcut) is computed again over the copy in the slot, so a kept header
 * whose seal fields the Tx DMA filled (lc_proto_tx_crc_ask) or that a
 * protocol changed goes out sealed.  From a host hook (not send_frame /
 * after_send).  Returns 0, LC_ERR_AGAIN (Send Ring full: try on a later poll)
 * or LC_ERR_INVAL (hdr->len > LC_MTU).
 */
int lc_proto_resend(struct lc_node *node, const struct lc_frame_hdr *hdr, const void *payload);

/*
 * Frames lc_proto_resend re-injected towards dst since the node opened
 * (whichever protocol resent them; wraps at 2^32: compare by difference).
 * What a protocol observes of the link's losses without naming the protocol
 * that repairs them.
 */
static inline uint32_t lc_proto_resent(const struct lc_node *node, uint32_t dst)
{
	return node->resent[dst];
}

/*
 * Frame sizes per message (capability frame_sizes, LC_PC_FRAME_SIZES): a
 * protocol that provides it may set s->frame in send_msg, the payload bytes
 * of each frame of that message but its last, between LC_FRAME_MIN and
 * LC_MTU (0 or beyond LC_MTU: LC_MTU).  Receivers take frames of any size
 * (a message's frames arrive in order, each at its offset); with the
 * capability composed, a first frame shorter than its message and than
 * LC_FRAME_MIN is taken as damaged.
 */
#define LC_FRAME_MIN 64u

/*
 * A protocol gave up on peer dst (it stopped answering): every send to dst
 * still queued fails with err (e.g. LC_ERR_PEER_DEAD) and every send in
 * flight to it completes with err; dst is gone for good (lc_proto_peer_gone).  From poll or recv_frame only (not while
 * the pipeline walks its send queue: send_msg, send_frame, after_send).
 * Returns the queued sends failed.
 */
int lc_proto_peer_failed(struct lc_node *node, uint32_t dst, int err);

/*
 * Liveness of a peer's process, as the job segment tells it: alive (attached:
 * running, computing, asleep or descheduled -- slow, never lost) and stopped
 * (the launcher saw it stopped, e.g. SIGSTOP: the one live state in which a
 * peer may be given up after a time limit).
 */
static inline int lc_proto_peer_alive(const struct lc_node *node, uint32_t peer)
{
	return lc_nic_peer_alive(node->nic, peer);
}

static inline int lc_proto_peer_stopped(const struct lc_node *node, uint32_t peer)
{
	return lc_nic_peer_stopped(node->nic, peer);
}

/*
 * The backpressure time limit of the job, ns: the config's
 * backpressure_timeout_us unless the job runs with another (LC_BACKPRESSURE_US,
 * framework/geom.h).  The time after which a stopped peer may be given up.
 */
static inline uint64_t lc_proto_limit_ns(const struct lc_node *node)
{
	return node->limit_ns;
}

/*
 * 1 once peer closed its node (lc_close) -- not alive, but not crashed or
 * killed either: it took what it was going to take of this node's frames
 * before it left, and acknowledged it (a last ack may still be lost on the
 * way).  A protocol that holds sends to their acks completes those whose
 * frames all left then, as a send completes that leaves without a hold.
 */
static inline int lc_proto_peer_closed(const struct lc_node *node, uint32_t peer)
{
	return lc_nic_peer_exited(node->nic, peer);
}

/*
 * 1 when peer is gone for this node: dead in the job segment, or given up by
 * a protocol (lc_proto_peer_failed).  Lets a protocol leave a peer out of
 * what it sends to several nodes without knowing which protocol gave it up.
 */
static inline int lc_proto_peer_gone(const struct lc_node *node, uint32_t peer)
{
	return ((node->peer_gone[peer / 64] >> (peer % 64)) & 1u) || !lc_nic_peer_alive(node->nic, peer);
}

#if LC_STAMPED
/*
 * The stamp table (lc_coop.h) of the frame being sent, in NIC SRAM: the
 * table of the Send Ring slot the frame takes.  In send_frame of a frame the
 * NIC replicates (LC_FF_GROUP); the protocol that replicates fills the
 * members first (send_frame runs in reverse order), each protocol then its
 * own member fields.  The posting moves the Send Ring's head, so after_send
 * reads the same table with lc_proto_stamps_posted.
 */
static inline struct lc_stamps *lc_proto_stamps(struct lc_node *node)
{
	return node->tx_stamps = lc_nic_tx_stamp(node->nic);
}

/* after_send of a replicated frame: its stamp table, as send_frame filled it. */
static inline const struct lc_stamps *lc_proto_stamps_posted(const struct lc_node *node)
{
	return node->tx_stamps;
}
#endif

/* ---- announced messages and RDMA (for a protocol that provides the capability "announce") ---- */

/*
 * Announce message s, which send_msg is about to take over (it returns
 * LC_CONSUMED after a 0 here): its first frame goes out now with
 * LC_FF_ANNOUNCE and the message's envelope (seq, match, msg_len); its
 * payload (LC_ANNOUNCE_BYTES) is s->seq once more, which reaches the
 * receiver's lc_rmsg as sent_seq whatever a recv_frame hook makes of the
 * header's seq (one that maps sequence numbers into its own order), so
 * that both sides name the message alike.
 * The receiver matches it like any message; when a receive takes it the
 * match_announced pointcut runs there, and the protocol moves the data and
 * calls lc_proto_rmsg_done; the sender's request completes by
 * lc_proto_sreq_done.  From send_msg only.  0, or LC_ERR_AGAIN (the Send
 * Ring is full or a send_frame hook said LC_RETRY: return LC_RETRY).
 */
int lc_proto_send_announce(struct lc_node *node, const struct lc_sreq *s);

/*
 * An announced message matched to its receive (match_announced) is over:
 * got bytes are in msg->data, err 0 or a negative lc_err (LC_ERR_LOST...).
 * deliver_msg runs, then the receive completes (LC_ERR_TRUNC when the
 * message was longer than the receive's buffer).  From a host hook.
 */
void lc_proto_rmsg_done(struct lc_node *node, struct lc_rmsg *msg, uint32_t got, int err);

/*
 * One RDMA frame (type LC_FT_RDMA) to dst: len <= LC_MTU bytes from buf,
 * written by dst's NIC at offset off of its region rkey (nic.h, "registered
 * memory and RDMA"); end is the offset where the whole transfer ends (the
 * frame's msg_len).  By PIO up to the PIO threshold (buf is read at once,
 * *ticket left as it is), else by Tx DMA: then *ticket is set to the block's
 * ticket and buf must stay untouched until lc_proto_tx_done says so (so a
 * transfer's last ticket covers every frame of it before).  send_frame and after_send run as for any frame.  From a host hook
 * but send_frame / after_send.  0, LC_ERR_AGAIN (full, or LC_RETRY of a
 * send_frame hook: try again later), LC_ERR_RANGE, LC_ERR_INVAL.
 */
int lc_proto_send_rdma(struct lc_node *node, uint32_t dst, uint32_t rkey, uint32_t off, uint32_t end,
		       const void *buf, uint32_t len, uint32_t *ticket);

/* 1 once the Tx DMA block of ticket is done (its source buffer is no longer read). */
static inline int lc_proto_tx_done(const struct lc_node *node, uint32_t ticket)
{
	return (int32_t)(lc_nic_tx_dma_done(node->nic) - ticket) >= 0;
}

/*
 * This node's registered memory (nic.h): register buf (len bytes, under this
 * endpoint's tag, remote write allowed) -> *handle; a new generation for a
 * handle, or revoke one (*fence: wait for lc_proto_reg_quiet before the
 * memory's bytes are final or it goes back to the user; a re-key's fence
 * may be NULL when nothing was written under the old handle since the
 * last wait).  Return codes as the NIC's.
 */
static inline int lc_proto_reg(struct lc_node *node, void *buf, uint64_t len, uint32_t *handle)
{
	return lc_nic_reg(node->nic, buf, len, lc_nic_vi_tag(node->nic), LC_NIC_REG_WRITE, handle);
}

static inline int lc_proto_reg_rekey(struct lc_node *node, uint32_t *handle, uint32_t *fence)
{
	return lc_nic_reg_rekey(node->nic, handle, fence);
}

static inline int lc_proto_dereg(struct lc_node *node, uint32_t handle, uint32_t *fence)
{
	return lc_nic_dereg(node->nic, handle, fence);
}

static inline int lc_proto_reg_quiet(const struct lc_node *node, uint32_t fence)
{
	return lc_nic_rdma_quiet(node->nic, fence);
}

/* RDMA frames from this node that dst's NIC refused so far for reason kind (free-running, nic.h). */
static inline uint32_t lc_proto_rdma_nacks(const struct lc_node *node, uint32_t dst, enum lc_nic_nack kind)
{
	return lc_nic_rdma_nacks(node->nic, dst, kind);
}

/*
 * Whether a protocol's nic_rx hook asks the Rx DMA for a received frame's CRC
 * (lc_nic_rx_crc_ask): a payload longer than the inline CRC takes, not an
 * RDMA frame (checked in nic_rx before it is placed), and a frame of a
 * message of several.  A message of one frame is checked on the host after
 * the engine's plain copy: measured, the fused pass (lc_crc32c_copy out of
 * the Receive Ring) made a lone 1-8 KiB frame's round trip 5-12 % slower, while
 * the frames of longer messages stream 4-9 % faster with it (docs/internals.md).
 */
static inline int lc_proto_rx_crc_pays(const struct lc_frame_hdr *hdr)
{
	return hdr->type != LC_FT_RDMA && hdr->len > LC_CRC32C_INLINE_MAX &&
	       (hdr->flags & (LC_FF_FIRST | LC_FF_LAST)) != (LC_FF_FIRST | LC_FF_LAST);
}

/*
 * The CRC this node's NIC computed in its Rx DMA of the frame recv_frame has
 * at hdr, for owner (asked by the protocol's nic_rx hook with
 * lc_nic_rx_crc_ask): 1 and *crc; 0 when it did not (compute it) or the node
 * has no NIC (a protocol's unit test).  From recv_frame only, on the frame it
 * was given.
 */
static inline int lc_proto_rx_crc(const struct lc_node *node, const struct lc_frame_hdr *hdr, uint32_t owner,
				  uint32_t *crc)
{
	return node->nic && lc_nic_rx_crc(node->nic, hdr, owner, crc);
}

/*
 * The sender's CRC in its Tx DMA (capability tx_crc, LC_PC_TX_CRC): a
 * send_frame hook of a frame that goes by Tx DMA may ask that DMA block to
 * compute the CRC32C of the payload from seed (the CRC of the header as the
 * protocol covers it) as it copies the payload into the Send Ring slot, and
 * to store it at offset owner of the slot's header (the protocol's CRC
 * field: leave the field 0 in hdr, so a copy of the header a protocol keeps
 * says the CRC was not computed on the host).  Which frames
 * (lc_proto_tx_crc_pays): a message's data frame longer than the PIO
 * threshold, which lc_tx_frame posts by Tx DMA (not a replicated one: the
 * MCP seals each copy).  The first protocol to ask for a frame is served: 1,
 * else 0 (compute it).  The frame's header must be final but for owner's
 * field: a protocol whose seal covers that field (one that seals after the
 * asker, lc_coop.h LC_HDR_SEALED_AFTER_<P>) must not see it 0.
 */
static inline int lc_proto_tx_crc_pays(const struct lc_frame_hdr *hdr)
{
	return hdr->type == LC_FT_DATA && hdr->len > LC_PIO_THRESHOLD && !(hdr->flags & LC_FF_GROUP);
}

#if LC_PC_TX_CRC
static inline int lc_proto_tx_crc_ask(struct lc_node *node, uint32_t owner, uint32_t seed)
{
	if (node->tx_ask)
		return 0;
	node->tx_ask = owner + 1u;
	node->tx_ask_seed = seed;
	return 1;
}
#endif

/* Monotonic time in ns (vDSO clock, no system call); for poll and timers. */
uint64_t lc_now_ns(void);

/* A protocol's own state is node->proto.<protocol> (struct lc_<protocol>_state). */

#endif /* LC_PROTO_H */
