/* SPDX-License-Identifier: MIT */
/* struct lc_node and the pipeline's internal types: requests, queues, per-peer state. */
#ifndef LC_NODE_H
#define LC_NODE_H

/*
 * Internal to framework/ (and visible to protocols through lc_proto.h).
 * Applications see only the opaque types of comm.h.
 *
 * Locking: every field below except `open` is touched only under the node's
 * progress lock (node->lock).  Hooks of host pointcuts run under it too.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_coop.h"
#include "lc_copy.h"
#include "lc_count.h"
#include "lc_frame_hdr.h"
#include "lc_protocols.h"
#include "lc_verdict.h"
#include "lc_proto_state.h"
#include "nic.h"

/* Visibility of functions shared between framework/ translation units. */
#define LC_INTERNAL __attribute__((visibility("hidden")))

#ifndef LC_HOST_MAX_REQUESTS
#error "lc_config.h must define LC_HOST_MAX_REQUESTS (config key host.max_requests)"
#endif
#if LC_HOST_MAX_REQUESTS < 1
#error "host.max_requests must be at least 1"
#endif

/* Number of active protocols (0 in the baseline): gates per-progress work such as the clock read. */
#define LC_X_ONE(...) + 1
#if (0 LC_ACTIVE_PROTOCOLS(LC_X_ONE)) > 0
#define LC_PROTO_ANY_ACTIVE 1
#else
#define LC_PROTO_ANY_ACTIVE 0
#endif
#undef LC_X_ONE

/*
 * The clock of the poll pointcut (lc_progress_locked).  A read costs more
 * than an idle progress step (vDSO clock_gettime, 25-45 ns on the test
 * machine, against about 20 ns for the step), so it is not read on every
 * step.  Sustained work reads it on every step (a step with at least
 * LC_POLL_CLOCK_SPAN units of work, or past LC_POLL_CLOCK_BURST busy steps in
 * a row), so the timers see the time of a long transfer as before.  A short
 * burst (a ping-pong's frame: received, answered, sent) does not, so the read
 * is not on the path of a message; an idle run reads it every
 * LC_POLL_CLOCK_SPAN-th step, while it waits.  The timers thus see a time at
 * most LC_POLL_CLOCK_BURST light steps or LC_POLL_CLOCK_SPAN idle steps old:
 * microseconds, far below any of their timeouts.
 *
 * A wait also reads it at its first idle step, and the step after a yield or
 * a nap reads it (lc_poll_clock_due): a wait starts right after the caller's
 * own send, a round trip before its answer can land, so a read there is off
 * a message's path, where one among the wait's later steps delays the frame
 * that lands during it (`reliable`'s 8 B ping-pong read it 0.6 times a turn
 * on each node, at a random step of the wait); and a yield may have lasted a
 * time slice.  In wall time the move was within the placement's noise
 * (docs/internals.md, thirty-third part).
 */
#define LC_POLL_CLOCK_SPAN 16
#define LC_POLL_CLOCK_BURST 4

/* Frames drained from host staging per progress call (bounded batch). */
#define LC_RX_BATCH 32
/* Progress calls without work before liveness/drop counters of blocked peers are read. */
#define LC_IDLE_CHECK 1024

/*
 * A send as the pointcuts see it (send_msg).  Fields dst..len never change
 * after lc_isend; the pipeline advances `off` as frames are posted.
 */
struct lc_sreq {
	uint64_t match;           /* the message's match word (comm.h; 0 for lc_isend) */
	uint32_t dst;             /* destination node */
	uint32_t seq;             /* message sequence number for (me, dst); set when admitted */
	const uint8_t *buf;       /* the user's buffer (read until the request completes) */
	uint32_t len;             /* message bytes */
	uint32_t off;             /* bytes handed to the NIC so far */
	uint32_t ticket;          /* ticket of the last Tx DMA block of this message */
	uint8_t admitted;         /* send_msg said LC_CONTINUE; a seq number is assigned */
	uint8_t posted;           /* every frame was handed to the NIC (or a protocol) */
	uint8_t dma;              /* some frame went by DMA: wait for `ticket` */
	uint8_t consumed;         /* a protocol took it over (LC_CONSUMED) */
	uint8_t sync;             /* LC_FF_SYNC for a synchronous send (lc_issend) or a put, else 0 */
	uint8_t put;              /* a put (lc_iput, framework/rdma.c): RDMA frames, never send_msg */
#if LC_PC_HOLDS_SENDS
	uint8_t holdable;         /* a non-blocking send: a protocol may hold it (lc_proto_sreq_holdable) */
#endif
	uint32_t frame;           /* payload bytes per frame, LC_FRAME_MIN..LC_MTU, set at send_msg by a
				   * protocol that provides frame_sizes (lc_proto.h); 0: LC_MTU */
};

/*
 * An unexpected message of up to LC_UQ_SMALL bytes gets a buffer of that
 * size, and a freed one is kept for the next (up to LC_UQ_SPARES of them, 22
 * KB): a message that arrives before its receive -- every message a program
 * probes for before it receives it (ATLAS's receive, MPI_Probe) -- costs
 * no malloc and free.  An 8 B ATLAS ping-pong's turn: docs/internals.md,
 * thirty-fifth part.
 */
#define LC_UQ_SMALL 256u
#define LC_UQ_SPARES 64u

/*
 * A message being received as the pointcuts see it (deliver_msg).  `data`
 * holds the first `cap` bytes; bytes beyond cap are counted but discarded.
 */
struct lc_rmsg {
	uint64_t match;           /* its match word */
	uint32_t src;             /* sending node */
	uint32_t seq;             /* its sequence number for (src, me) */
	uint32_t len;             /* the message's true size */
	uint32_t got;             /* payload bytes arrived so far */
	uint8_t *data;            /* where it is assembled (user buffer or unexpected buffer) */
	size_t cap;               /* bytes of data that may be written */
	struct lc_req *req;       /* matched receive, or NULL while unexpected */
	struct lc_rmsg *next;     /* link in the unexpected queue */
	uint8_t done;             /* every frame arrived (unexpected message waiting for its receive) */
	uint8_t unexpected;       /* lives in a malloc'd buffer of the unexpected queue */
	uint8_t sync;             /* a synchronous send: ack its sender when a receive matches it */
	uint8_t announced;        /* its first frame announced it (LC_FF_ANNOUNCE): no frame of it
				   * follows; the protocol that announced it moves its data into
				   * `data` and completes it (lc_proto_rmsg_done) */
	uint32_t sent_seq;        /* announced: seq as its sender numbered it (the announce's payload) */
	size_t held;              /* unexpected: bytes of the unexpected budget it holds, its
				   * buffer's bytes (LC_UQ_SMALL up to that: lc_uq_free keeps it) */
};

enum lc_req_kind { LC_REQ_FREE = 0, LC_REQ_SEND = 1, LC_REQ_RECV = 2 };

/* One request of the pool.  `s` is first so a struct lc_sreq * converts back. */
struct lc_req {
	struct lc_sreq s;          /* send: the message */
	union {
		struct lc_rmsg m;  /* receive: posted message (when matched on arrival) */
		/*
		 * a put (framework/rdma.c; s.buf/s.len its bytes, s.seq its id for dst):
		 * a send, which never uses m, so its state shares m's bytes and the pool
		 * (zeroed at each lc_req_alloc) stays the size it was without puts
		 */
		struct {
			const uint8_t *note;   /* lc_iput_notify: the notice's bytes, length, match word */
			uint32_t note_len;
			uint32_t note_seq;     /* its message sequence number, reserved at the call */
			uint64_t note_match;
			uint32_t put_key;      /* the region's handle at dst */
			uint32_t put_base;     /* offset in the region of the put's first byte */
			uint32_t put_len;      /* its bytes (s.len is the notice's once it became one) */
			uint32_t put_refused;  /* dst's refusals of our RDMA frames when it started */
			uint32_t put_frames;   /* its RDMA frames posted (one even of 0 bytes: the NIC checks it) */
			int put_err;           /* its result, from its ack (0, LC_ERR_LOST, LC_ERR_ACCESS) */
		};
	};
	struct lc_req *next;       /* free list, send queue, in-flight list, posted queue */
	struct lc_rmsg *um;        /* receive matched to an unexpected message still arriving */
	int src;                   /* receive: wanted source or LC_ANY_SOURCE */
	uint64_t match, mask;      /* receive: takes a message with ((its match ^ match) & mask) == 0 */
	void *ubuf;                /* receive: user buffer */
	size_t ucap;               /* receive: its capacity */
	uint64_t dead_since;       /* receive: peer(s) first seen dead; send: stalled since; or 0 */
	uint32_t polls;            /* lc_test / lc_wait rounds (liveness is read every 1024) */
	uint32_t seen_off;         /* send: s.off at the last liveness check (stall detection) */
	uint32_t seen_left;        /* send: lc_nic_tx_left at the last liveness check (stall detection) */
	int err;                   /* 0 or negative lc_err once done */
	uint8_t held;              /* send: a send_frame hook said LC_RETRY (e.g. no credit) since
				    * the last check: a protocol holds it back, not a full Send Ring */
	uint8_t kind;              /* enum lc_req_kind */
	uint8_t done;              /* completed: lc_test/lc_wait may free it */
	uint8_t synced;            /* synchronous send: the receiver's ack arrived */
	uint8_t sync_wait;         /* synchronous send: every frame left, waiting for the ack */
	uint8_t put_note;          /* lc_iput_notify: 1 the put (a notice follows once it is
				    * acknowledged), 2 the notice it became; else 0 */
#if LC_PC_HOLDS_SENDS
	/*
	 * both 0 whenever the request is done or free: every way a held send
	 * completes zeroes them; aligned so that the request stays a multiple of
	 * 16 bytes (lc_req_zero)
	 */
	_Alignas(16) uint32_t hold; /* send: a protocol holds it (lc_proto_sreq_hold): the hold's id; 0 none */
	uint8_t hold_wait;         /* send: held, and every frame left: lc_proto_sreq_release completes it */
#endif
};
_Static_assert(offsetof(struct lc_req, put_err) + sizeof(int) <=
	       offsetof(struct lc_req, m) + sizeof(struct lc_rmsg), "a put's state fits in the bytes of m");

/* FIFO of requests linked through ->next. */
struct lc_reqq {
	struct lc_req *head;
	struct lc_req *tail;
	uint32_t count;
};

/*
 * Resynchronising the per-source message sequence (lc_rx_frame).  Without
 * a protocol that provides exactly_once whole messages may vanish, so a first frame may be ahead of
 * rx[src].expect; one whose seq a bit flip damaged may be anywhere.  Rule:
 * a first frame less than LC_RX_SEQ_SLACK messages ahead is taken at once
 * (ordinary losses); one further ahead is taken only when the previous
 * far-ahead first frame from src (rx[src].cand, itself dropped as bad) is
 * less than LC_RX_SEQ_SLACK behind it, i.e. two consecutive first frames
 * agree on the jump.  A damaged seq therefore costs its own message and
 * never moves expect far ahead (which would make every later message of src
 * look old); a true long outage costs one extra message.  A first frame
 * behind expect is a duplicate or damaged and dropped.  With exactly_once
 * first frames arrive in order and exactly once, so the rule never fires.
 */
#define LC_RX_SEQ_SLACK 16u

/*
 * A first frame a protocol providing exactly_once accepted
 * (LC_PC_EXACTLY_ONCE_FRAME) carries its true seq and comes in order, after
 * every message of its source sent before it: the rule above is skipped for
 * it.  Where such a protocol is switched per frame, a frame it did not check
 * may be damaged and take a seq a few messages ahead; the messages it jumped
 * over that are delivered exactly once are then taken all the same (a later
 * unchecked one, below expect, is still dropped), and an unchecked frame
 * never cuts short or continues a message whose frames are delivered exactly
 * once (rx[src].cur_once): every frame of a message carries its first
 * frame's switches, and its sender sends no unchecked frame before every
 * frame of that message was acknowledged.
 */
#if LC_PC_EXACTLY_ONCE && !LC_PC_EXACTLY_ONCE_ALWAYS
#define LC_RX_CUR_ONCE(rs) ((rs)->cur_once)
#define LC_RX_CUR_ONCE_SET(rs, hdr) ((rs)->cur_once = (uint8_t)LC_PC_EXACTLY_ONCE_FRAME(hdr))
#else
#define LC_RX_CUR_ONCE(rs) 0
#define LC_RX_CUR_ONCE_SET(rs, hdr) ((void)0)
#endif

/*
 * An ack the framework owes dst (framework/pipeline.c, lc_tx_acks): of kind
 * LC_FW_SYNC_ACK (word[0]: the seq of a synchronous send a receive matched)
 * or LC_FW_PUT_ACK (word[0]: a put's id, word[1]: its bytes this node took).
 */
struct lc_sync_ack {
	uint32_t dst;
	uint32_t kind;
	uint32_t word[2];
};

/*
 * The payload of a framework control frame (LC_FT_FRAMEWORK): a kind, a
 * count, then count 32-bit words.  LC_FW_SYNC_ACK: the sequence numbers of
 * messages from the frame's destination that a receive matched.
 * LC_FW_PUT_END: a put's id, after its last RDMA frame (a control frame is
 * never refused, and the NIC takes a pair's frames in order: when it
 * arrives every frame of the put was placed or refused).  LC_FW_PUT_ACK:
 * pairs (put id, bytes placed) of puts from the frame's destination whose
 * end arrived.
 */
struct lc_fw_ctrl {
	uint32_t kind;
	uint32_t count;
	uint32_t word[];
};
#define LC_FW_SYNC_ACK 1u
#define LC_FW_PUT_ACK 2u
#define LC_FW_PUT_END 3u        /* word[0]: the id of a put whose frames were all sent before it */
#define LC_FW_SEQ_SKIP 4u       /* word[0]: a message sequence number that will never be sent */
/* 32-bit words one ack of kind k takes in a frame */
#define LC_FW_ACK_WORDS(k) ((k) == LC_FW_PUT_ACK ? 2u : 1u)
/* Acks per frame (one frame's payload; more go in the next frame). */
#define LC_FW_ACKS_PER_FRAME ((LC_MTU - sizeof(struct lc_fw_ctrl)) / 4 < 64 ? \
			      (LC_MTU - sizeof(struct lc_fw_ctrl)) / 4 : 64)

/* Receive state of one source. */
/* A data frame held behind a first frame parked at the unexpected budget (lc_rx_nomsg). */
struct lc_held {
	struct lc_held *next;
	_Alignas(8) uint8_t frame[];        /* header then payload */
};

struct lc_rx_src {
	struct lc_rmsg *cur;      /* message in assembly, or NULL */
	struct lc_held *held, *held_tail; /* parked first frame and the frames behind it, or NULL */
	uint32_t expect;          /* sequence number of the next message */
	uint32_t off;             /* offset of the next frame of cur */
	uint32_t cand;            /* seq of the last first frame dropped for being far ahead */
#if LC_PC_EXACTLY_ONCE && !LC_PC_EXACTLY_ONCE_ALWAYS
	uint8_t cur_once;         /* cur's frames are delivered exactly once (LC_PC_EXACTLY_ONCE_FRAME) */
#endif
};

/* The put from one source whose frames arrive now (framework/rdma.c). */
struct lc_put_rx {
	uint32_t id;
	uint32_t bytes;           /* of it placed so far */
};

/* The waits' spin limit (lc_idle_round); atomics: threads of one node share it. */
struct lc_spin {
	atomic_uint limit;                  /* idle rounds before a wait yields; LC_SPIN_OWN: a core of its own */
	atomic_uint quick;                  /* looks in a row that found nobody else ran */
};

struct lc_node {
	atomic_uchar lock;                  /* the progress lock (lc_trylock, lc_unlock) */
	atomic_int open;                    /* 1 between lc_open and lc_close */
	struct lc_nic *nic;
	_Atomic uint64_t *stats;            /* host counter area in the segment, by enum lc_stat */
	const _Atomic uint32_t *dst_drops;  /* the NIC's frames dropped per destination (lc_nic_dst_drop_counts) */
	uint32_t rank, size;
	uint32_t idle;                      /* progress calls in a row without work */
	struct lc_spin spin;                /* the waits' spin limit, adapted (lc_idle_round) */
	uint32_t multi_polls;               /* rounds of waits on several requests (lc_reqs_round) */
#if LC_PROTO_ANY_ACTIVE
	/*
	 * idle steps before the poll clock is read again; atomic (relaxed: plain
	 * loads and stores here) because a yield sets it without the lock
	 * (lc_poll_clock_due), where a step's store may overwrite it -- a read
	 * at most LC_POLL_CLOCK_SPAN steps late, as before
	 */
	atomic_int poll_left;
	uint32_t poll_busy;                 /* progress calls in a row with work */
	uint64_t poll_ns;                   /* the clock the poll pointcut gets (lc_progress_locked) */
	const struct lc_req *waited;        /* the request a single wait waits for (lc_wait_held), or NULL */
	uint8_t poll_owed;                  /* the last step left its poll to this one (lc_progress_rest) */
#endif

	struct lc_req *free;                /* request pool free list */
	uint32_t reqs_used;
	struct lc_reqq sendq;               /* admitted or waiting send requests, in order */
	struct lc_reqq inflight;            /* every frame posted, last DMA not done yet */
	struct lc_reqq posted;              /* posted receives, oldest first */
	struct lc_rmsg *uq_head, *uq_tail;  /* unexpected messages, arrival order */
	uint64_t uq_bytes;                  /* bytes of unexpected buffers held (host.unexpected_bytes) */
	struct lc_rmsg *uq_spare;           /* small unexpected buffers kept for reuse (LC_UQ_SMALL) */
	uint32_t uq_spares;                 /* how many (at most LC_UQ_SPARES) */
	struct lc_sync_ack *acks;           /* synchronous-send acks not sent yet (malloc'd) */
	uint32_t acks_n, acks_cap;
	uint32_t park_now;                  /* lc_rx_unexpected -> lc_rx_nomsg: hold the frame (budget) */
	uint32_t holding;                   /* sources with held frames (rx[].held) */
	const void *replaying;              /* the held frame lc_rx_unhold is replaying, or NULL */

	uint32_t tx_seq[LC_MAX_NODES];      /* next message sequence number per destination */
	uint32_t tx_drops_seen[LC_MAX_NODES]; /* lc_dst_drops last read, per destination */
	struct lc_rx_src rx[LC_MAX_NODES];
	struct lc_put_rx put_rx[LC_MAX_NODES]; /* puts arriving, per source (framework/rdma.c) */
	uint32_t put_next;                  /* id of this node's last put (framework/rdma.c) */
	uint64_t peer_gone[LC_MAX_NODES / 64]; /* peers a protocol gave up (lc_proto_peer_failed) */
	uint32_t resent[LC_MAX_NODES];      /* frames lc_proto_resend re-injected, per destination */
	struct lc_stamps *tx_stamps;        /* stamp table of the replicated frame being sent (lc_proto_stamps) */
#if LC_PC_HOLDS_SENDS
	struct lc_sreq *tx_sreq;            /* the send lc_tx_frame sends a frame of (lc_proto_sreq_holdable) */
	uint32_t hold_ids;                  /* the last hold's id (lc_proto_sreq_hold; never 0) */
	uint8_t hold_sends;                 /* LC_HOLD_SENDS (lc_open): non-blocking sends may be held */
#endif
#if LC_PC_TX_CRC
	uint32_t tx_ask;                    /* the frame in send_frame: 1 + owner of its Tx DMA CRC, 0 none */
	uint32_t tx_ask_seed;               /* and its seed (lc_proto_tx_crc_ask) */
#endif
	char tx_stuck[320];                 /* the NIC's transmit side when a send last timed out (lc_req_check) */
	uint64_t limit_ns;                  /* the job's backpressure limit (lc_backpressure_ns, geom.h) */

	struct lc_proto_state proto;        /* one member per active protocol */
	struct lc_req pool[LC_HOST_MAX_REQUESTS];
};

/* ---- counters (single writer: the holder of the progress lock) ---- */
_Static_assert(LC_STAT_COUNT - LC_NIC_STAT_COUNT <= LC_HOST_STATS_MAX,
	       "pipeline counters must fit the segment's host area");

/*
 * Add n to pipeline counter `name` (lc_count_add): the lock makes us the only
 * writer.  Not tx_frames, nor host_copy_bytes for a PIO frame: derived
 * (lc_stats_derive) from what lc_count_pio and lc_count_dma count.
 */
#define LC_STAT_ADD(node, name, n) lc_count_add(&(node)->stats[LC_STAT_##name], (n))

/* A frame of len payload bytes went into the Send Ring by PIO (the host's copy): its counters. */
static inline void lc_count_pio(struct lc_node *node, uint32_t len)
{
	LC_STAT_ADD(node, pio_frames, 1);
	LC_STAT_ADD(node, tx_bytes, len);
}

/* A frame of len payload bytes went to the NIC as a Tx DMA request: its counters. */
static inline void lc_count_dma(struct lc_node *node, uint32_t len)
{
	LC_STAT_ADD(node, dma_frames, 1);
	LC_STAT_ADD(node, dma_bytes, len);
	LC_STAT_ADD(node, tx_bytes, len);
}

/* ---- the progress lock ---- */

/*
 * A process that has never started a thread (glibc's __libc_single_threaded,
 * the flag libstdc++ reads to skip atomic reference counts) cannot contend
 * for the lock: it is taken with a plain load and store, not a locked
 * exchange.  An exchange costs about 20 cycles, and a blocking call takes the
 * lock once per round, so a ping-pong's 8 B message paid it about four times
 * on its path.  The flag is cleared for good when the process first starts a
 * thread (the thread-mode NIC's engines, a program's own), before the thread
 * runs, so from then on every acquire is the exchange; a lock held across
 * that moment is released as always (a release store in both modes).
 */
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define LC_SINGLE_THREADED() (__libc_single_threaded != 0)
#endif
#endif
#ifndef LC_SINGLE_THREADED
#define LC_SINGLE_THREADED() 0
#endif

/* Try to take the lock. 1 on success.  The acquire pairs with the release in lc_unlock. */
static inline int lc_trylock(struct lc_node *node)
{
	if (LC_SINGLE_THREADED()) {
		if (atomic_load_explicit(&node->lock, memory_order_relaxed))
			return 0;
		atomic_store_explicit(&node->lock, 1, memory_order_relaxed);
		return 1;
	}
	return !atomic_exchange_explicit(&node->lock, 1, memory_order_acquire);
}

/* Release: publishes every queue change to the next lc_trylock (acquire). */
static inline void lc_unlock(struct lc_node *node)
{
	atomic_store_explicit(&node->lock, 0, memory_order_release);
}

/* ---- queues ---- */

static inline void lc_reqq_push(struct lc_reqq *q, struct lc_req *r)
{
	r->next = NULL;
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	q->count++;
}

static inline void lc_reqq_push_front(struct lc_reqq *q, struct lc_req *r)
{
	r->next = q->head;
	q->head = r;
	if (!q->tail)
		q->tail = r;
	q->count++;
}

static inline struct lc_req *lc_reqq_pop(struct lc_reqq *q)
{
	struct lc_req *r = q->head;

	if (r) {
		q->head = r->next;
		if (!q->head)
			q->tail = NULL;
		r->next = NULL;
		q->count--;
	}
	return r;
}

/* Unlink r from q; prev is its predecessor or NULL when r is the head. */
static inline void lc_reqq_unlink(struct lc_reqq *q, struct lc_req *prev, struct lc_req *r)
{
	if (prev)
		prev->next = r->next;
	else
		q->head = r->next;
	if (q->tail == r)
		q->tail = prev;
	r->next = NULL;
	q->count--;
}

/* Complete request r with err: lc_test and lc_wait may report and free it. */
static inline void lc_req_complete(struct lc_req *r, int err)
{
	r->err = err;
	r->done = 1;
}

/*
 * Mark send request r done with err (it left every queue).  Lock held.
 * A send that leaves at once, never synchronous, completes with
 * lc_req_complete in the call (lc_send_start).
 */
static inline void lc_send_done(struct lc_node *node, struct lc_req *r, int err)
{
	(void)node;
#if LC_PC_HOLDS_SENDS
	if (r->hold) {
		if (!err) {
			r->hold_wait = 1;     /* every frame left: the protocol's release completes it */
			return;
		}
		r->hold = 0;                    /* failed: a release of the hold finds nothing */
	}
#endif
	if (r->s.sync && !err) {
		if (!r->synced) {
			r->sync_wait = 1;       /* every frame left: the receiver's ack completes it */
			return;
		}
		err = r->put_err;       /* acked: 0 for a synchronous send, a put's result */
	}
	lc_req_complete(r, err);
}

/*
 * 1 when the NIC dropped frames to dst since lc_check_peers last looked:
 * checked as a send completes, so that one whose frames were dropped while it
 * was being posted (a stopped receiver) fails even when no idle poll ran
 * lc_check_peers meanwhile.  With a protocol that provides exactly_once
 * (lc_coop.h) a dropped frame is sent again.
 */
/*
 * The NIC's count of frames to dst it dropped, read in place (node->dst_drops,
 * lc_nic_dst_drop_counts), not by a call into nic/: lc_tx_dropped reads it
 * after every send (a ping-pong's turn paid 13 Ir for the call).
 */
static inline uint32_t lc_dst_drops(const struct lc_node *node, uint32_t dst)
{
	return atomic_load_explicit(&node->dst_drops[dst], memory_order_acquire);
}

static inline int lc_tx_dropped(const struct lc_node *node, uint32_t dst)
{
#if !LC_PC_EXACTLY_ONCE
	return dst < node->size && lc_dst_drops(node, dst) != node->tx_drops_seen[dst];
#else
	(void)node;
	(void)dst;
	return 0;
#endif
}

/*
 * Send request r, every frame posted, leaves the head of the send queue:
 * complete with err, or wait in the in-flight list for its last Tx DMA block.
 */
static inline void lc_sendq_leave(struct lc_node *node, struct lc_req *r, int err)
{
	lc_reqq_pop(&node->sendq);
	if (r->s.dma && (int32_t)(lc_nic_tx_dma_done(node->nic) - r->s.ticket) < 0) {
		r->err = err;
		lc_reqq_push(&node->inflight, r);
	} else {
		lc_send_done(node, r, err);
	}
}

/*
 * A frame of send request r was posted and more follow: with the inline MCP
 * the NIC moves each frame as it is posted, so the receiver works on it (its
 * copy out, a protocol's per-frame check) while this side prepares the next.
 */
static inline void lc_tx_frame_moved(struct lc_node *node, const struct lc_req *r)
{
#if !LC_NIC_MCP_THREAD
	if (!r->s.posted)
		lc_nic_step_held(node->nic);
#else
	(void)node;
	(void)r;
#endif
}

/* ---- the baseline frame header ---- */

/*
 * Fill the baseline fields of a data frame carrying bytes [off, off+len) of
 * s; every protocol field is zero (the send_frame hooks fill them).  The
 * first frame (off 0) carries the match word: low half in off (match_lo),
 * high half in match_hi.
 */
static inline void lc_hdr_fill(struct lc_frame_hdr *h, uint32_t me, const struct lc_sreq *s,
			       uint32_t off, uint32_t len)
{
	uint8_t flags = (uint8_t)((off == 0 ? LC_FF_FIRST | s->sync : 0) |
				  (off + len == s->len ? LC_FF_LAST : 0));
	/* the first frame's offset is 0: its low match half rides there (frame.lua) */
	uint32_t word = off == 0 ? (uint32_t)s->match : off;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * Three stores, not GCC's seven field-wide ones: the first 8 bytes
	 * (magic, type, flags, src, dst) composed in a register, the next 16 one
	 * vector, then match_hi.  The header is written straight into the Send
	 * Ring slot, and a sender's stores queue behind its frames' stores into
	 * the remote Receive Ring (docs/internals.md, nineteenth part); built on
	 * the stack and copied, its loads would wait for the field stores.
	 */
	_Static_assert(offsetof(struct lc_frame_hdr, dst) == 6 && offsetof(struct lc_frame_hdr, len) == 8 &&
		       offsetof(struct lc_frame_hdr, msg_len) == 20 &&
		       offsetof(struct lc_frame_hdr, match_hi) == 24 && sizeof(*h) >= 28,
		       "lc_hdr_fill's three stores follow the header's layout (frame.lua)");
	uint64_t w0 = LC_FRAME_MAGIC | (uint64_t)LC_FT_DATA << 16 | (uint64_t)flags << 24 |
		      (uint64_t)(uint16_t)me << 32 | (uint64_t)(uint16_t)s->dst << 48;
	uint32_t mid[4] = { len, s->seq, word, s->len };
	uint32_t hi = (uint32_t)(s->match >> 32);

	memcpy(h, &w0, 8);
	memcpy((unsigned char *)h + 8, mid, 16);
	memcpy((unsigned char *)h + 24, &hi, 4);
	/* the protocols' fields after the baseline's 28 bytes (none in the baseline) */
	if (sizeof(*h) > 28)
		memset((unsigned char *)h + 28, 0, sizeof(*h) - 28);
#else
	*h = (struct lc_frame_hdr){
		.magic = LC_FRAME_MAGIC,
		.type = LC_FT_DATA,
		.flags = flags,
		.src = (uint16_t)me,
		.dst = (uint16_t)s->dst,
		.len = len,
		.seq = s->seq,
		.off = word,
		.msg_len = s->len,
		.match_hi = (uint32_t)(s->match >> 32),
	};
#endif
}

/* ---- request pool (framework/pipeline.c) ---- */

/*
 * A request is zeroed by 16-byte stores of one zero register, unrolled:
 * GCC 12 at -O2 zeroes the 208 bytes of `(struct lc_req){ 0 }` -- and a
 * loop of such stores of a known zero -- with `rep stosq`, 30-42 TSC ticks
 * on the AMD EPYC we measure on; a copy of a zero request (the way before)
 * took 13 vector loads and 13 stores, 26 instructions; these are 14 (the
 * empty asm hides the zero from the memset idiom).  Every post allocates
 * one: msgrate's receiver 702.0 -> 695.0 Ir a message, its sender 656.4 -> 647.3.
 */
_Static_assert(sizeof(struct lc_req) % 16 == 0, "a request is zeroed 16 bytes at a time");
static inline void lc_req_zero(struct lc_req *r)
{
	lc_copy_v16 z = { 0 };

	__asm__("" : "+x"(z));
#pragma GCC unroll 16
	for (size_t k = 0; k < sizeof(*r) / 16; k++)
		memcpy((unsigned char *)r + 16 * k, &z, 16);
}

/* Take a request from the pool as it was left (lc_req_alloc zeroes it), or NULL when all are in use. */
static inline struct lc_req *lc_req_take(struct lc_node *node)
{
	struct lc_req *r = node->free;

	if (__builtin_expect(!r, 0))
		return NULL;
	node->free = r->next;
	node->reqs_used++;
	return r;
}

/*
 * Take a request from the pool, zeroed, or NULL when all are in use.
 * Inline: a receive post's request, without the call's frame.
 */
static inline struct lc_req *lc_req_alloc(struct lc_node *node)
{
	struct lc_req *r = lc_req_take(node);

	if (r)
		lc_req_zero(r);
	return r;
}

/*
 * lc_req_take's r, whose r->s lc_sreq_init wrote whole, made a send request
 * that completes in the call (lc_send_start): the fields anything reads of
 * a done send besides r->s -- the waits, lc_req_status and lc_req_free,
 * the pool's scans (lc_sync_fail, lc_rx_ctrl, lc_put_acked: kind, done,
 * synced, sync_wait), lc_tx_frame (held) -- written; err at completion
 * (lc_req_complete).  Not lc_req_zero's 13 stores: a sender's stores queue
 * behind its frames' stores into the remote Receive Ring (docs/
 * internals.md, nineteenth part).  One that has to wait in the send queue
 * after all is zeroed then (lc_req_settle).
 */
static inline void lc_req_now(struct lc_req *r)
{
	r->held = 0;
	r->done = 0;
	r->synced = 0;
	r->sync_wait = 0;
	r->put_note = 0;
}

/* A request of lc_req_now joins the send queue: the rest of it zeroed, as lc_req_alloc's is. */
static inline void lc_req_settle(struct lc_req *r)
{
	struct lc_sreq s = r->s;
	uint8_t held = r->held;

	lc_req_zero(r);
	r->s = s;
	r->held = held;
	r->kind = LC_REQ_SEND;
}
/* The announce frame (LC_FF_ANNOUNCE) of message m from hdr->src: 1 (pipeline.c). */
LC_INTERNAL int lc_rx_announced(struct lc_node *node, const struct lc_frame_hdr *hdr, struct lc_rmsg *m);
/* Return r to the pool. */
static inline void lc_req_free(struct lc_node *node, struct lc_req *r)
{
	r->kind = LC_REQ_FREE;
	r->done = 0;
	r->next = node->free;
	node->free = r;
	node->reqs_used--;
}
/* Reset the pipeline state of node (pool, queues, sequence numbers); no NIC call. */
LC_INTERNAL void lc_node_reset(struct lc_node *node);

/* ---- the hot functions (framework/hot.c) ---- */

/*
 * Hand the next frame of send request r to the NIC.  Returns 1 when a frame
 * left the host side (posted, or dropped/consumed by a send_frame hook) and
 * LC_ERR_AGAIN when the Send Ring is full or a hook said LC_RETRY.
 * Never waits.
 */
int lc_tx_frame(struct lc_node *node, struct lc_req *r);
/*
 * Take in one frame of host staging (hdr, payload after it): check it, run
 * recv_frame, assemble, and on the last frame run deliver_msg and complete.
 * The caller releases the staging slot afterwards.  Returns 1 when the frame
 * was accepted, 0 when it was dropped.
 */
int lc_rx_frame(struct lc_node *node, struct lc_frame_hdr *hdr);

/* ---- cold helpers of the receive path (framework/pipeline.c) ---- */

/*
 * A first frame of a message from src: match a posted receive or make an
 * unexpected buffer.  NULL when out of memory, or when the message would
 * take the unexpected budget beyond host.unexpected_bytes: then node->park_now
 * is set and the caller parks the frame (lc_rx_nomsg).
 */
LC_INTERNAL __attribute__((noinline)) struct lc_rmsg *lc_rx_unexpected(struct lc_node *node,
									 const struct lc_frame_hdr *hdr,
									 uint64_t match);
/* A synchronous message's first frame matched: its sender's ack (lc_rx_begin's cold part). */
LC_INTERNAL __attribute__((noinline)) struct lc_rmsg *lc_rx_begin_sync(struct lc_node *node,
									const struct lc_frame_hdr *hdr,
									struct lc_rmsg *m);

/*
 * Inline in lc_rx_frame: a call's frame and the caller's registers saved
 * around it were about 15 of the 8 B msgrate receiver's Ir a message.  Its
 * cold parts (no posted receive matches; a synchronous send) stay calls.
 */
static inline struct lc_rmsg *lc_rx_begin(struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	struct lc_req *r, *prev = NULL;
	uint64_t match = (uint64_t)hdr->match_hi << 32 | hdr->match_lo;

	for (r = node->posted.head; r; prev = r, r = r->next)
		if ((r->src == LC_ANY_SOURCE || (uint32_t)r->src == hdr->src) &&
		    !((match ^ r->match) & r->mask))
			break;
	if (!r)
		return lc_rx_unexpected(node, hdr, match);
	lc_reqq_unlink(&node->posted, prev, r);
	/*
	 * a posted receive's m is zero (lc_req_alloc; lc_rx_complete_rest zeroes it
	 * again when it puts r back): only its other fields are written, not a
	 * whole struct's zeros again (with lc_rx_data's message of one frame: the
	 * 8 B ping-pong's lc_rx_frame 177 -> 172 Ir)
	 */
	r->m.match = match;
	r->m.src = hdr->src;
	r->m.seq = hdr->seq;
	r->m.len = hdr->msg_len;
	r->m.data = r->ubuf;
	r->m.cap = r->ucap;
	r->m.req = r;
	if (hdr->flags & LC_FF_SYNC)
		return lc_rx_begin_sync(node, hdr, &r->m);
	return &r->m;
}
/* lc_rx_begin returned NULL for hdr: park it (returns 2) or count it dropped (0). */
LC_INTERNAL int lc_rx_nomsg(struct lc_node *node, struct lc_frame_hdr *hdr);
/* A data frame from a source with a parked frame: hold it behind that one (returns 2). */
LC_INTERNAL int lc_rx_hold(struct lc_node *node, const struct lc_frame_hdr *hdr);
/* A frame that is not data (type != LC_FT_DATA) passed recv_frame: the framework's own, or dropped. */
LC_INTERNAL int lc_rx_ctrl(struct lc_node *node, const struct lc_frame_hdr *hdr, const void *payload);
/*
 * The data part of lc_rx_frame for a held frame (lc_rx_src.held), whose
 * recv_frame ran when it first arrived: 1 taken, 0 dropped, 2 parked again.
 */
LC_INTERNAL int lc_rx_replay(struct lc_node *node, struct lc_frame_hdr *hdr);
/* Free an unexpected message's buffer, returning its bytes to the budget. Lock held. */
LC_INTERNAL void lc_uq_free(struct lc_node *node, struct lc_rmsg *m);
/* Free the small unexpected buffers kept for reuse (lc_close). */
LC_INTERNAL void lc_uq_spares_free(struct lc_node *node);
/* Owe dst an ack of kind (LC_FW_*_ACK) with words w0, w1 (sent by lc_tx_acks). Lock held. */
LC_INTERNAL void lc_fw_ack(struct lc_node *node, uint32_t dst, uint32_t kind, uint32_t w0, uint32_t w1);
/* Fail every synchronous send to dst waiting for its ack with err. Lock held. */
LC_INTERNAL void lc_sync_fail(struct lc_node *node, uint32_t dst, int err);
/* Send the owed acks as the Send Ring allows. Lock held. Returns the frames sent. */
LC_INTERNAL int lc_tx_acks(struct lc_node *node);
/* ---- puts (framework/rdma.c) ---- */

/*
 * One RDMA frame to dst (lc_proto_send_rdma's contract, framework/pipeline.c)
 * with flags and match_hi = word: 1 posted by Tx DMA (*ticket set), 0 by PIO
 * or taken by a send_frame hook, LC_ERR_AGAIN (Send Ring full), LC_ERR_BUSY
 * (a send_frame hook said LC_RETRY), LC_ERR_RANGE, LC_ERR_INVAL.
 */
LC_INTERNAL int lc_tx_rdma(struct lc_node *node, uint32_t dst, uint32_t rkey, uint32_t off, uint32_t end,
			   const void *buf, uint32_t len, uint8_t flags, uint32_t word, uint32_t *ticket);

/*
 * Put r at the head of the send queue: post what the Send Ring takes of its
 * frames and its end (adding to *work), then take it out of the queue, or
 * (lc_iput_notify) hold the queue until its ack and turn it into its notice.
 * 1 when the queue may go on, 0 when it waits. Lock held.
 */
LC_INTERNAL int lc_tx_put_push(struct lc_node *node, struct lc_req *r, int *work);
/* A frame of a put from hdr->src that the NIC placed and recv_frame passed: 1. Lock held. */
LC_INTERNAL int lc_rx_put(struct lc_node *node, const struct lc_frame_hdr *hdr);
/* The end of put id from src: owe src its ack. Lock held. */
LC_INTERNAL void lc_rx_put_end(struct lc_node *node, uint32_t src, uint32_t id);
/* dst acknowledged this node's put id with `bytes` placed. Lock held. */
LC_INTERNAL void lc_put_acked(struct lc_node *node, uint32_t dst, uint32_t id, uint32_t bytes);
/*
 * A control frame of the framework's own (LC_FT_FRAMEWORK) to dst, by PIO: 0,
 * LC_ERR_AGAIN (no Send Ring slot) or LC_ERR_BUSY (a protocol holds it back,
 * e.g. its window of frames is full: a request waiting for it is held, not
 * stalled on the ring -- lc_req_check).  Lock held.
 */
LC_INTERNAL int lc_send_fw(struct lc_node *node, uint32_t dst, const void *payload, uint32_t len);
/* Take the held frames of every source again, in order, as far as they go now. Lock held. Returns the frames that went. */
LC_INTERNAL int lc_rx_unhold(struct lc_node *node);
/* Drop every held frame (a closing node). Lock held. */
LC_INTERNAL void lc_rx_hold_clear(struct lc_node *node);
/*
 * Receive r is complete with message m (err, or 0: LC_ERR_TRUNC when m was
 * longer than r's buffer).  m is r->m itself for a message that matched a
 * posted receive at its first frame (lc_rx_begin): then nothing is copied.
 */
static inline void lc_recv_done(struct lc_req *r, const struct lc_rmsg *m, int err)
{
	if (m != &r->m) {
		r->m.src = m->src;
		r->m.len = m->len;
		r->m.seq = m->seq;
		r->m.match = m->match;
		r->um = NULL;   /* m was its unexpected message (r->m's never is: um is NULL then) */
	}
	lc_req_complete(r, err ? err : (m->len > r->ucap ? LC_ERR_TRUNC : 0));
}

/* lc_rx_complete's other cases: a verdict other than LC_CONTINUE, an unexpected message. */
LC_INTERNAL void lc_rx_complete_rest(struct lc_node *node, struct lc_rmsg *m, lc_verdict v);

/*
 * The last frame of m arrived; v is deliver_msg's verdict.  The common case
 * inline (a posted receive's message delivered): it is every message of a
 * stream of expected receives.
 */
static inline void lc_rx_complete(struct lc_node *node, struct lc_rmsg *m, lc_verdict v)
{
	if (__builtin_expect(v == LC_CONTINUE && !m->unexpected, 1)) {
		LC_STAT_ADD(node, rx_msgs, 1);
		lc_recv_done(m->req, m, 0);
		return;
	}
	lc_rx_complete_rest(node, m, v);
}
/* The message m in assembly lost frames: fail its receive (LC_ERR_LOST) or drop it. */
LC_INTERNAL void lc_rx_abort(struct lc_node *node, struct lc_rmsg *m);
/* Take m out of the unexpected queue (m->next = NULL); nothing when it is not in it. Lock held. */
LC_INTERNAL void lc_uq_unlink(struct lc_node *node, struct lc_rmsg *m);

/* ---- progress (framework/pipeline.c) ---- */

/* Push queued sends in order as the Send Ring allows. Lock held. Returns the frames posted. */
LC_INTERNAL int lc_tx_push(struct lc_node *node);
/* One progress step with the lock held. Returns the work done. */
LC_INTERNAL int lc_progress_locked(struct lc_node *node);
/* Read peers' liveness and drop counters; fail the pending sends they doom. Lock held. */
LC_INTERNAL void lc_check_peers(struct lc_node *node);
/* The verdict of the network about dst: 0, LC_ERR_PEER_DEAD or LC_ERR_LOST. */
LC_INTERNAL int lc_peer_state(struct lc_node *node, uint32_t dst);

/* ---- helpers of the public calls, for API files beside comm.c (framework/comm.c) ---- */

/*
 * Idle rounds before waiting loops start to sched_yield(): LC_SPIN_LIMIT
 * while the CPU is shared, growing to LC_SPIN_MAX while it is not.  Short
 * when the peer process shares this core (2 cores, other load): every
 * handoff costs the whole spin before the peer may run -- 2000 rounds made
 * 8 B pingpong 180 us one-way and msgrate 35 K msgs/s with both nodes on one
 * core (the slow mode of the bimodal rates); 64 rounds: 4.5 us and 500 K
 * msgs/s.  But a yield with nobody else runnable is a system call that
 * returns without running anyone, 1.4 us on this machine's guest kernel,
 * and a frame that lands during it waits for it: with 64 rounds a ping-pong
 * whose round trip outlasts them (512 B and up) yielded on every message,
 * 1 KiB one-way 1.64-1.80 us against 0.84-0.91 without yields.  So a yield
 * looks at the thread's involuntary switches (getrusage; lc_yield): when none
 * happened since the last look nobody else wanted the CPU, and after
 * LC_SPIN_QUICK such looks in a row the limit doubles (up to LC_SPIN_MAX
 * rounds, a few hundred us); a switch brings it back to LC_SPIN_LIMIT at
 * once.  (The yield's duration does not tell: on a CPU shared by two waiting
 * processes every yield runs the other, and the quickest of them passed for
 * "alone": 8 B ping-pong 70-110 us one-way against 6.6.)  At the least limit
 * only every LC_YIELD_LOOK-th yield looks (a getrusage costs about as much
 * as the yield).
 */
#define LC_SPIN_LIMIT 64
#define LC_SPIN_MAX 1024u
#define LC_SPIN_QUICK 4
#define LC_YIELD_LOOK 32

/*
 * A yield that lasted more than LC_YIELD_LONG_NS ran a process that does not
 * yield back (a CPU-bound one, a peer computing) for its time slice: the
 * scheduler returns to a yielding thread only when that slice ends, 2-8 ms
 * here (EEVDF, 250 Hz; a yield beside a busy loop on one CPU: 65 % return
 * within 10 us, the rest in 2-8 ms), so a wait that went on yielding looked
 * at its frames once a slice.  Beside two CPU-bound processes on the 2 cores
 * a 2-node transfer of 34 messages up to 8 MiB (tests/pipeline/progs/sizes,
 * the load suite's case with two CPU hogs) took 0.7-9.3 s against 0.17 s
 * alone.  So for LC_NAP_SPAN_NS after such a yield the thread's idle rounds
 * past the spin limit nap LC_NAP_NS instead (nanosleep; with the kernel's
 * timer slack 50-100 us): a thread that wakes from a sleep is run ahead of a
 * CPU-bound one, and the wait looks again every nap, not every slice (the
 * same transfer 0.69-0.82 s).  A wait's nap doubles every LC_NAP_STEP idle
 * rounds, up to LC_NAP_DOUBLINGS times (20 us to 1.28 ms): a waiting process
 * that woke every 70 us took a working one's CPU as often (the suites of six
 * configs under four lanes, two interleaved rounds: 193 / 202 s with the
 * fixed nap, 164 / 190 s doubling).  A yield that ran a waiting peer, or
 * nobody, takes a few us, and a peer's copy of a 1 MiB message well under
 * 1 ms: there nothing changes (8 B ping-pong on free cores, both nodes on
 * one core, 1 MiB on one core: old and new alike).  A core of its own
 * (LC_SPIN_OWN) never naps.  The naps are counted: wait_naps.
 */
#define LC_YIELD_LONG_NS 1000000u
#define LC_NAP_NS 20000L
#define LC_NAP_SPAN_NS 8000000u
#define LC_NAP_STEP 8u
#define LC_NAP_DOUBLINGS 6u

/*
 * Idle rounds before a wait yields on a core of its own (lc_own_core: commrun
 * --bind core gave the node a core no other node of the job runs on, and no
 * MCP thread shares it).  There a yield can only hand the core to a stranger,
 * and one that never yields (a busy process) is handed it at every wait that
 * outlasts the adaptive limit.  With a busy loop beside a 2-node job on the 2
 * cores (baseline, 8 B, `msgrate -i 3000`, `pingpong -i 30000`, two rounds
 * each, old and new interleaved): loop bound to node 0's core, msgrate
 * 2.3-3.3 -> 4.0-4.1 M msgs/s and ping-pong 4.4-5.4 -> 0.40-0.41 us one-way;
 * to node 1's core, 1.2-3.5 -> 2.4-3.6 M and 4.8-42.6 -> 0.51-0.85 us;
 * unbound, 0.67-1.31 -> 4.0-4.65 M and 2.9-3.2 -> 0.43 us.  Without the loop
 * nothing changes (new/old 1.00 ping-pong, 12 rounds; 1.03 msgrate, 10).  So
 * on a core of its own a wait spins this many rounds (about a ms) between
 * yields and takes its share of the core as the scheduler gives it -- what
 * an MPI library that does not yield gets; a yield still comes, for the
 * application's own other threads.
 */
#define LC_SPIN_OWN (1u << 14)

/*
 * The poll clock is read at the next idle step (LC_POLL_CLOCK_SPAN above): a
 * wait starts (the lock held), a yield ended (lc_yield: the lock free).
 */
static inline void lc_poll_clock_due(struct lc_node *node)
{
#if LC_PROTO_ANY_ACTIVE
	atomic_store_explicit(&node->poll_left, 0, memory_order_relaxed);
#else
	(void)node;
#endif
}

/* The lock is held: spin, then yield, until lc_trylock takes it. */
LC_INTERNAL void lc_lock_contended(struct lc_node *node);

/* Yield the CPU once and adapt the spin limit (above); *spins restarts after a look that saw no switch. */
LC_INTERNAL void lc_yield(struct lc_node *node, unsigned *spins);

/* One idle round of a wait: past the spin limit, yield (lc_yield). */
static inline void lc_idle_round(struct lc_node *node, unsigned *spins)
{
	if (++*spins > atomic_load_explicit(&node->spin.limit, memory_order_relaxed))
		lc_yield(node, spins);
}

/*
 * Take the progress lock, spinning then yielding.  The free lock's case
 * inline: every call of the API takes the lock once or twice, and the
 * out-of-line loop's frame cost about 15 Ir a call (callgrind).
 */
static inline void lc_lock(struct lc_node *node)
{
	if (__builtin_expect(!lc_trylock(node), 0))
		lc_lock_contended(node);
}
/*
 * 1 when r is a pending (allocated) request of node's pool.  Inline: an
 * all-of wait checks every request of its window (msgrate's receiver: 64 a
 * call), and the call was a third of the check's cost.
 */
static inline int lc_req_valid(const struct lc_node *node, const struct lc_req *r)
{
	uintptr_t p = (uintptr_t)r, lo = (uintptr_t)&node->pool[0];

	return p >= lo && p < (uintptr_t)&node->pool[LC_HOST_MAX_REQUESTS] &&
	       (p - lo) % sizeof(struct lc_req) == 0 && r->kind != LC_REQ_FREE;
}
/* What completed request r reports.  Inline: an all-of wait reports every request of its window. */
static inline void lc_req_status(const struct lc_node *node, const struct lc_req *r, struct lc_status *st)
{
	int send = r->kind == LC_REQ_SEND;

	st->src = send ? (int)node->rank : (int)r->m.src;
	/* a put (or the notice it became) reports the put's bytes */
	st->len = send ? (r->s.put || r->put_note ? r->put_len : r->s.len) : r->m.len;
	st->err = r->err;
	st->match = send ? r->s.match : r->m.match;
}

/*
 * Completed r: fill st (may be NULL), free r, release the lock, write the
 * error text; r's error.  A call of its own: the bench's instruction count of
 * the API calls puts it back beside the wait loop it leaves out (run.py,
 * API_PUT_BACK).
 */
LC_INTERNAL int lc_finish(struct lc_node *node, struct lc_req *r, struct lc_status *st, const char *fn);
/* Every 1024 rounds of waiting on pending r: liveness and the backpressure limit. Lock held. */
LC_INTERNAL void lc_req_check(struct lc_node *node, struct lc_req *r);

/* Record the calling thread's error text (lc_last_error); returns err. */
LC_INTERNAL int lc_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The process's one node (framework/comm.c). */
LC_INTERNAL extern struct lc_node lc_the_node;
/* Why node is not the open node: a negative lc_err with a message naming fn. */
LC_INTERNAL int lc_check_failed(const struct lc_node *node, const char *fn);

/* 0 when node is the open node, else a negative lc_err with a message naming fn. */
static inline int lc_check(const struct lc_node *node, const char *fn)
{
	/* acquire pairs with the release store in lc_open / lc_close */
	if (__builtin_expect(node == &lc_the_node && atomic_load_explicit(&node->open, memory_order_acquire),
			     1))
		return 0;
	return lc_check_failed(node, fn);
}
/* lc_lock_open found the node closed under the lock: release it, return the error with its text. */
LC_INTERNAL int lc_lock_closed(struct lc_node *node, const char *fn);

/*
 * Take the progress lock of a node lc_check found open; fails (unlocked) if
 * it was closed meanwhile.  Inline: every call of the API takes it, and the
 * out-of-line call's frame was 23 Ir of a receive post's 166 (msgrate).
 */
static inline int lc_lock_open(struct lc_node *node, const char *fn)
{
	lc_lock(node);
	if (__builtin_expect(!atomic_load_explicit(&node->open, memory_order_relaxed), 0))
		return lc_lock_closed(node, fn);
	return 0;
}

/*
 * What every send-like call checks first: node open, req not NULL (then
 * *req = NULL), dst a node of the job.  0 or the error (with its text).
 */
static inline int lc_send_args(const struct lc_node *node, int dst, lc_req **req, const char *fn)
{
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (!req)
		return lc_fail(LC_ERR_INVAL, "%s: req is NULL", fn);
	*req = NULL;
	if (dst < 0 || (uint32_t)dst >= node->size)
		return lc_fail(LC_ERR_RANGE, "%s: node %d out of range 0..%u", fn, dst,
			       node->size - 1);
	return 0;
}

/*
 * What a call naming one peer or every one checks first (a protocol's public
 * calls that set something per peer): node open, peer a node of the job or
 * LC_ANY_SOURCE.  0 or the error (with its text).
 */
static inline int lc_peer_args(const struct lc_node *node, int peer, const char *fn)
{
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (peer != LC_ANY_SOURCE && (peer < 0 || (uint32_t)peer >= node->size))
		return lc_fail(LC_ERR_RANGE, "%s: node %d out of range 0..%u", fn, peer, node->size - 1);
	return 0;
}

/* Every request of the pool is in use: release the lock, return the error with its text. */
static inline int lc_no_request(struct lc_node *node, const char *fn)
{
	lc_unlock(node);
	return lc_fail(LC_ERR_AGAIN, "%s: all %d requests in use: complete some "
		       "with lc_test/lc_wait (config host.max_requests)", fn, LC_HOST_MAX_REQUESTS);
}

/* lc_isend/lc_irecv/lc_iput: take the lock and a free request; on failure the lock is not held. */
static inline int lc_lock_req_new(struct lc_node *node, const char *fn, struct lc_req **r)
{
	int rc = lc_lock_open(node, fn);

	if (rc)
		return rc;
	*r = lc_req_alloc(node);
	return *r ? 0 : lc_no_request(node, fn);
}

#endif /* LC_NODE_H */
