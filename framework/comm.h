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

/* What a completed receive (or send) reports. */
struct lc_status {
	int src;        /* sending node */
	size_t len;     /* the message's true size, also when truncated */
	int err;        /* 0 or a negative lc_err */
};

/*
 * Open this process's node of the job started by commrun (the job is named
 * by the environment: LC_JOB, LC_NODE, LC_NODES).  Only one node per process.
 * Returns 0 and *out, or a negative lc_err (e.g. LC_ERR_CONFIG when the job
 * segment was made by a build of another config).
 */
int lc_open(lc_node **out);
/* Close the node: drain pending sends (bounded by the backpressure limit), then detach. */
int lc_close(lc_node *node);

int lc_rank(const lc_node *node);   /* this node's id, 0 .. size-1, or negative lc_err */
int lc_size(const lc_node *node);   /* number of nodes in the job, or negative lc_err */

/* Blocking send: returns when buf may be reused. */
int lc_send(lc_node *node, int dst, const void *buf, size_t len);
/*
 * Blocking receive from src (or LC_ANY_SOURCE) into buf of cap bytes.
 * A message larger than cap fills buf, returns LC_ERR_TRUNC and reports its
 * true size in st->len.  st may be NULL.
 */
int lc_recv(lc_node *node, int src, void *buf, size_t cap, struct lc_status *st);

/* Non-blocking variants: *req is completed by lc_test / lc_wait, which free it. */
int lc_isend(lc_node *node, int dst, const void *buf, size_t len, lc_req **req);
int lc_irecv(lc_node *node, int src, void *buf, size_t cap, lc_req **req);
/* *done = 1 when req completed (then req is freed and st filled). Returns 0 or the request's error. */
int lc_test(lc_node *node, lc_req *req, int *done, struct lc_status *st);
/* Wait for req, then free it. Returns 0 or the request's error (st->err too). */
int lc_wait(lc_node *node, lc_req *req, struct lc_status *st);

/* Drive the pipeline (and the MCP in inline mode). Returns the work done (>= 0) or a negative lc_err. */
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

#define LC_STAT_LIST(X) LC_PIPE_STAT_LIST(X) LC_NIC_STAT_LIST(X)

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
/* Text of the last error on this node, with detail; "" when none. Never NULL. */
const char *lc_last_error(const lc_node *node);
/* Name of the configuration this library was generated from. */
const char *lc_config_name(void);

#ifdef __cplusplus
}
#endif
#endif /* LC_COMM_H */
