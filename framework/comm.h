/* SPDX-License-Identifier: MIT */
/* libcomm public API: open a node, send and receive messages, progress, stats. */
#ifndef LC_COMM_H
#define LC_COMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error codes (LC_ERROR_LIST in lc_errors.h, the one list shared with nic/).
 * Control-path calls return 0 or a negative enum lc_err; the text of the
 * last error (with the detail: which id, what size) is lc_last_error().
 */
#include "lc_errors.h"

/* Receive from any node. */
#define LC_ANY_SOURCE (-1)
/* Largest message (bytes); frame offsets are 32-bit. */
#define LC_MAX_MSG ((size_t)UINT32_MAX)

struct lc_node;
struct lc_req;
typedef struct lc_node lc_node;
typedef struct lc_req lc_req;

/*
 * Threads.  Any number of threads may call any function on the open node at
 * once: every call that touches the node's queues takes the node's progress
 * lock (a spin lock that yields after a while); lc_progress only tries it, so
 * whichever thread holds it drives progress for all.  A request belongs to
 * the thread that made it: test or wait it from one thread only.  Messages
 * from one node to another are delivered in the order their sends were
 * called (for sends from several threads: the order their lc_isend calls
 * took the lock); a receive is matched against messages in arrival order.
 * lc_close must not race with calls that still use the node: they fail with
 * LC_ERR_CLOSED once it has started.  Error texts (lc_last_error) are kept
 * per thread.
 *
 * Waiting never sleeps: lc_wait / lc_send / lc_recv spin, then sched_yield().
 */

/* What a completed receive (or send) reports. */
struct lc_status {
	int src;        /* sending node (for a send: this node) */
	size_t len;     /* the message's true size, also when truncated */
	int err;        /* 0 or a negative lc_err */
};

/*
 * Open this process's node of the job started by commrun (the job is named
 * by the environment: LC_JOB, LC_NODE, LC_NODES).  Only one node per process.
 * Returns 0 and *out, or a negative lc_err: LC_ERR_INVAL (environment
 * missing: not started by commrun; out NULL), LC_ERR_RANGE (LC_NODE or
 * LC_NODES out of range), LC_ERR_CONFIG (the job segment was made by a build
 * of another config or is stale), LC_ERR_BUSY (a node is already open),
 * or an error a protocol's init returned.  *out is NULL on error.
 */
int lc_open(lc_node **out);
/*
 * Close the node: drain pending sends (bounded by the backpressure limit
 * plus one second, a bound that restarts while the NIC waits at a live
 * receiver's full Receive Ring; LC_ERR_TIMEOUT when some could not leave), run the
 * protocols' fini, detach from the NIC.  Pending receives are forgotten.
 * Every later call with this node returns LC_ERR_CLOSED; lc_open may open
 * a node again.  Returns 0 or a negative lc_err.
 */
int lc_close(lc_node *node);

int lc_rank(const lc_node *node);   /* this node's id, 0 .. size-1, or negative lc_err */
int lc_size(const lc_node *node);   /* number of nodes in the job, or negative lc_err */

/*
 * Blocking send of len bytes (0 .. LC_MAX_MSG) to dst (0 .. size-1; this
 * node itself is allowed: loopback through the NIC).  Returns when buf may
 * be reused: 0, or LC_ERR_RANGE / LC_ERR_INVAL / LC_ERR_TOOBIG (bad
 * arguments), LC_ERR_AGAIN (every request of the pool, host.max_requests,
 * is in use), LC_ERR_PEER_DEAD (dst died or left), LC_ERR_LOST (the network
 * dropped frames to dst: its process was stopped for the backpressure limit),
 * LC_ERR_TIMEOUT (no Send Ring slot for the backpressure limit while the NIC
 * made no progress at all).
 */
int lc_send(lc_node *node, int dst, const void *buf, size_t len);
/*
 * Blocking receive from src (or LC_ANY_SOURCE) into buf of cap bytes.
 * A message larger than cap fills buf, returns LC_ERR_TRUNC and reports its
 * true size in st->len.  st may be NULL.  Fails with LC_ERR_PEER_DEAD when
 * src (for LC_ANY_SOURCE: every other node) has been dead or gone for the
 * backpressure limit, LC_ERR_LOST when the message lost frames.
 */
int lc_recv(lc_node *node, int src, void *buf, size_t cap, struct lc_status *st);

/*
 * Non-blocking variants: same arguments and errors as above; *req is
 * completed by lc_test / lc_wait, which free it.  Until then buf belongs to
 * the library.  Returns 0 and *req, or a negative lc_err (*req NULL).
 */
int lc_isend(lc_node *node, int dst, const void *buf, size_t len, lc_req **req);
int lc_irecv(lc_node *node, int src, void *buf, size_t cap, lc_req **req);
/*
 * One progress step, then *done = 1 when req completed (then req is freed
 * and st, which may be NULL, filled). Returns 0 or the request's error.
 */
int lc_test(lc_node *node, lc_req *req, int *done, struct lc_status *st);
/* Wait for req, then free it. Returns 0 or the request's error (st->err too). */
int lc_wait(lc_node *node, lc_req *req, struct lc_status *st);

/*
 * Drive the pipeline (and the MCP in inline mode). Returns the work done (>= 0) or a negative lc_err.
 * In inline mode the NIC runs only inside library calls: a node that computes without one leaves
 * its Receive Ring full, and a peer sending to it waits (link backpressure, counted as bp_stalls)
 * until it calls again; nothing is lost between live nodes.  Only a node whose process is stopped
 * (SIGSTOP; the launcher marks it) makes its senders drop a frame after backpressure_timeout_us
 * (the send fails with LC_ERR_LOST; counted as bp_drops).  Long local work (filling large
 * buffers, checking them) may call lc_progress now and then so that its peers are not delayed,
 * as examples/bibw does.  In thread mode the NIC keeps draining into host staging meanwhile,
 * until host.staging_bytes are full.
 */
int lc_progress(lc_node *node);

/*
 * Statistics: every pipeline counter (here) and every NIC counter
 * (LC_NIC_STAT_LIST in lc_nic_stats.h).  Columns: name, one line of meaning.
 * lc_stats() fills an array indexed by enum lc_stat.
 */
#include "lc_nic_stats.h"

#define LC_PIPE_STAT_LIST(X)                                                  \
	X(tx_msgs,          "messages sent")                                  \
	X(rx_msgs,          "messages received")                              \
	X(tx_frames,        "frames handed to the NIC")                       \
	X(rx_frames,        "frames taken from host staging")                 \
	X(tx_bytes,         "payload bytes sent")                             \
	X(rx_bytes,         "payload bytes received")                         \
	X(pio_frames,       "frames PIO-copied into the Send Ring")           \
	X(dma_frames,       "frames sent by a Tx DMA request")                \
	X(tx_ring_full,     "times the Send Ring or Tx DMA chain was full")   \
	X(rx_drops_bad,     "corrupt or foreign frames dropped by the host")  \
	X(rx_drops_proto,   "frames dropped by a protocol's verdict")         \
	X(unexpected_msgs,  "messages that arrived before their receive")     \
	X(send_queue_hwm,   "queued send requests, high-water mark")

/* The protocols' counters: LC_PROTO_STAT_LIST, generated from the registry (stats). */
#include "lc_proto_stats.h"

#define LC_STAT_LIST(X) LC_PIPE_STAT_LIST(X) LC_PROTO_STAT_LIST(X) LC_NIC_STAT_LIST(X)

enum lc_stat {
#define LC_X_ENUM(name, ...) LC_STAT_##name,
	LC_STAT_LIST(LC_X_ENUM)
#undef LC_X_ENUM
	LC_STAT_COUNT
};

/* Fill out[LC_STAT_COUNT]. Returns 0 or a negative lc_err. */
int lc_stats(const lc_node *node, uint64_t out[LC_STAT_COUNT]);
/* Name of counter i (lc_stat), or NULL. */
const char *lc_stat_name(int i);

/* Static text of an error code. */
const char *lc_strerror(int err);
/*
 * Text of the calling thread's last error, with detail ("lc_isend: node 7
 * out of range 0..3"); "" when none.  node may be NULL (e.g. after a failed
 * lc_open).  Never NULL.
 */
const char *lc_last_error(const lc_node *node);
/* Name of the configuration this library was generated from. */
const char *lc_config_name(void);

/*
 * The public API of the composed protocols that declare one (registry api),
 * installed beside this header for the composed protocols only:
 * generated, so this header names no protocol.
 */
#include "lc_proto_api.h"

#ifdef __cplusplus
}
#endif
#endif /* LC_COMM_H */
