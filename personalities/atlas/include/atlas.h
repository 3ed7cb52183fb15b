/* SPDX-License-Identifier: MIT */
/* ATLAS level-2 trigger message passing (seed 000): NodeFactory, Node, Buffer, Group over libcomm. */
#ifndef ATLAS_H
#define ATLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The Reference Software's four classes, in C (include/atlas.hpp wraps them
 * in C++ classes of the seed's names):
 *   atlas_factory  NodeFactory: the one instance per process (a singleton);
 *                  it opens this process's libcomm node and keeps the nodes.
 *   atlas_node     Node: a remote process = a libcomm node id of the job.
 *   atlas_buffer   Buffer: raw bytes the layer moves, never interprets.
 *   atlas_group    Group: a set of nodes; dynamic (add/remove) or static
 *                  (named at creation).
 * The technology (the seed's SCI/TCP/UDP NodeFactory choice) is the libcomm
 * configuration this library was built for: pick the build directory.
 *
 * Threads: any thread may send (to a node or a group) and create objects;
 * only one thread may receive -- the first that calls a receive function;
 * a receive from any other thread fails with ATLAS_ERR_THREAD.
 *
 * Errors: every call returns 0 (or a count, where documented) or a negative
 * atlas_err; atlas_last_error() gives the calling thread's last error with
 * its detail.
 */

/* Error codes.  Columns: name, value, text. */
#define ATLAS_ERROR_LIST(X)                                                              \
	X(ATLAS_OK,           0,  "success")                                             \
	X(ATLAS_ERR_INVAL,   -1,  "invalid argument")                                    \
	X(ATLAS_ERR_RANGE,   -2,  "node id out of range")                                \
	X(ATLAS_ERR_NOMEM,   -3,  "out of memory")                                       \
	X(ATLAS_ERR_AGAIN,   -4,  "send queue full (back-pressure): the buffer stays yours, retry") \
	X(ATLAS_ERR_THREAD,  -5,  "only one thread may receive")                         \
	X(ATLAS_ERR_STATIC,  -6,  "a static group cannot be changed")                    \
	X(ATLAS_ERR_MEMBER,  -7,  "node already in / not in the group")                  \
	X(ATLAS_ERR_PARAM,   -8,  "bad configuration parameter")                         \
	X(ATLAS_ERR_BUSY,    -9,  "already done / in use")                               \
	X(ATLAS_ERR_CLOSED,  -10, "no factory: atlas_factory_get first")                 \
	X(ATLAS_ERR_COMM,    -11, "libcomm failed (the detail names the call and error)") \
	X(ATLAS_ERR_PEER,    -12, "the remote node died or its messages were lost")

enum atlas_err {
#define ATLAS_X_ENUM(name, value, ...) name = (value),
	ATLAS_ERROR_LIST(ATLAS_X_ENUM)
#undef ATLAS_X_ENUM
};

/* Static text of an error code ("unknown error" for any other value). */
const char *atlas_strerror(int err);
/* The calling thread's last error with detail ("" when none); never NULL. */
const char *atlas_last_error(void);

/*
 * Parameters of the personality itself (seed section 10; the others map
 * onto libcomm config keys: README.md).  Columns: name, default, min, max,
 * environment variable, meaning.  The environment overrides the values the
 * program gave (atlas_factory_init) or the defaults; a value that is not a
 * decimal integer in range fails atlas_factory_get with ATLAS_ERR_PARAM
 * naming the variable.
 */
#define ATLAS_PARAM_LIST(X)                                                                    \
	X(max_outst_buffers, 1,    1, 15,        "ATLAS_MAX_OUTST_BUFFERS",                       \
	  "sends outstanding to one node at once (libcomm requests not yet completed)")       \
	X(max_queued,        1024, 1, 1u << 20,  "ATLAS_MAX_QUEUED",                              \
	  "buffers a node's send queue holds; a send beyond it returns ATLAS_ERR_AGAIN")       \
	X(use_send_pool,     0,    0, 1,         "ATLAS_USE_SEND_POOL",                           \
	  "0: send buffers from the heap; 1: from a pool allocated at init")                  \
	X(send_buffer_no,    127,  1, 1u << 20,  "ATLAS_SEND_BUFFER_NO",                          \
	  "buffers of the send pool (use_send_pool 1)")                                       \
	X(send_buffer_size,  8192, 1, 1u << 30,  "ATLAS_SEND_BUFFER_SIZE",                        \
	  "bytes of each pool buffer; a larger buffer comes from the heap")

typedef struct atlas_params {
#define ATLAS_X_FIELD(name, ...) unsigned name;
	ATLAS_PARAM_LIST(ATLAS_X_FIELD)
#undef ATLAS_X_FIELD
} atlas_params;

typedef struct atlas_factory atlas_factory;
typedef struct atlas_node atlas_node;
typedef struct atlas_buffer atlas_buffer;
typedef struct atlas_group atlas_group;

/* Fill *p with the defaults (the environment not applied). */
void atlas_params_default(atlas_params *p);

/*
 * NodeFactory.  atlas_factory_init creates the single instance with the
 * parameters p (NULL: defaults), then the environment applied; it fails
 * with ATLAS_ERR_BUSY when the instance exists already.  atlas_factory_get
 * returns the instance, creating it with the defaults on first use; both
 * count a reference.  Creating opens this process's libcomm node (lc_open:
 * the process must be started by commrun).  atlas_factory_release drops a
 * reference; the last one drains every send queue (waiting for the
 * receivers), frees every node, group and pool and closes the node.
 * Returns 0 or ATLAS_ERR_PARAM / ATLAS_ERR_COMM / ATLAS_ERR_NOMEM /
 * ATLAS_ERR_INVAL (out NULL); *out NULL on error.
 */
int atlas_factory_init(const atlas_params *p, atlas_factory **out);
int atlas_factory_get(atlas_factory **out);
int atlas_factory_release(atlas_factory *f);
/* The parameters in force; this process's node id; the number of nodes of the job. */
int atlas_factory_params(const atlas_factory *f, atlas_params *out);
int atlas_factory_self(const atlas_factory *f);
int atlas_factory_size(const atlas_factory *f);
/*
 * Push every node's send queue as far as it goes now (non-blocking): the
 * queued buffers that can be transferred are, completed transfers release
 * their buffers; and one libcomm progress step (lc_progress), so that a
 * process busy with other work keeps its peers flowing (with the inline
 * NIC, arrivals move into host memory only inside library calls).  Returns the number of buffers still queued or outstanding
 * in all, or a negative atlas_err (a transfer that failed).
 */
int atlas_factory_flush(atlas_factory *f);

/*
 * The node id (0 .. size-1; this node itself too: loopback).  The factory
 * keeps one object per id: the same id gives the same object, valid until
 * the factory is gone.  ATLAS_ERR_RANGE for an id out of the job.
 */
int atlas_factory_create_node(atlas_factory *f, int node_id, atlas_node **out);
/*
 * A buffer of size bytes (0 allowed), from the send pool when use_send_pool
 * and size <= send_buffer_size (ATLAS_ERR_AGAIN when the pool is empty: its
 * buffers come back as their transfers complete), else from the heap.
 */
int atlas_factory_create_buffer(atlas_factory *f, size_t size, atlas_buffer **out);
/* An empty dynamic group (atlas_group_add / atlas_group_remove). */
int atlas_factory_create_group(atlas_factory *f, atlas_group **out);
/*
 * A static group named name, its members fixed from creation (their nodes
 * created as needed):
 *   "all"      every node of the job, this one too
 *   "others"   every node but this one
 *   "0-3,6"    a list of ids and ranges (ascending or not; a repeated id once)
 * ATLAS_ERR_INVAL for another name, ATLAS_ERR_RANGE for an id out of the job.
 */
int atlas_factory_create_static_group(atlas_factory *f, const char *name, atlas_group **out);

/* Buffer: its bytes, its size, a new size (keeps min(old, new) bytes), release. */
void *atlas_buffer_data(const atlas_buffer *b);
size_t atlas_buffer_size(const atlas_buffer *b);
int atlas_buffer_resize(atlas_buffer *b, size_t size);
/*
 * Give the buffer back (to the pool or the heap).  ATLAS_ERR_BUSY for a
 * buffer a send took (the layer releases it when transferred).  NULL: 0.
 */
int atlas_buffer_release(atlas_buffer *b);

/* The node's id. */
int atlas_node_id(const atlas_node *n);
/*
 * Non-blocking ordered send (seed section 7): 1) when the node's send queue
 * is not empty, flush it as far as possible; 2) when it is now empty, try to
 * transfer buf, else append buf to the queue; 3) a transfer that cannot be
 * made (max_outst_buffers outstanding, or no libcomm request free) appends
 * buf.  Transfers to a node happen in the order the sends took its lock, so
 * each thread's sends arrive in its order.  On 0 the buffer belongs to the
 * layer, which releases it once transferred.  ATLAS_ERR_AGAIN: the queue
 * holds max_queued buffers (back-pressure): buf stays the caller's, retry
 * later (each call flushes).  ATLAS_ERR_PEER / ATLAS_ERR_COMM: a transfer to
 * this node failed (now, or an earlier one that completed with an error: it
 * is reported once); buf stays the caller's.
 */
int atlas_node_send(atlas_node *n, atlas_buffer *buf);
/* Buffers in the node's send queue (not yet handed to libcomm), and outstanding (handed, not done). */
int atlas_node_queued(const atlas_node *n);
int atlas_node_outstanding(const atlas_node *n);
/*
 * Non-blocking receive from the node: 1) flush the send queues; 2) when a
 * message from it has arrived, return 1 and *out, a buffer of its size that
 * the caller releases; else 0 and *out NULL.  Blocking receive: a loop on
 * the non-blocking one (spin, then yield).  Negative atlas_err on error
 * (ATLAS_ERR_THREAD: not the receiving thread).
 */
int atlas_node_try_recv(atlas_node *n, atlas_buffer **out);
int atlas_node_recv(atlas_node *n, atlas_buffer **out);

/* Group membership (dynamic groups; a static group refuses with ATLAS_ERR_STATIC). */
int atlas_group_add(atlas_group *g, atlas_node *n);
int atlas_group_remove(atlas_group *g, atlas_node *n);
/* Members now; is_static 1 for a static group. */
int atlas_group_size(atlas_group *g);
int atlas_group_is_static(const atlas_group *g);
/* The members (up to cap of them) into nodes[]; returns how many there are. */
int atlas_group_members(atlas_group *g, atlas_node **nodes, int cap);
/*
 * Send buf to every member: a copy to each but the last, which takes buf.
 * A member whose queue is full (back-pressure) is retried, flushing, until
 * it accepts -- the one case where a group send waits.  buf always belongs
 * to the layer afterwards; the first error of a member's send is returned
 * (the others are still sent).  An empty group releases buf and returns 0.
 */
int atlas_group_send(atlas_group *g, atlas_buffer *buf);
/*
 * Receive from any member with a fair rotating start: each call tries the
 * members in turn starting after the one served last, so members that all
 * have messages are served round robin.  Returns 1, *out and *from (from
 * may be NULL), or 0 (none), or a negative atlas_err.  Messages of nodes
 * that are not members stay queued for a later receive.  atlas_group_recv
 * blocks (an empty group waits until a member is added and sends).
 */
int atlas_group_try_recv(atlas_group *g, atlas_buffer **out, atlas_node **from);
int atlas_group_recv(atlas_group *g, atlas_buffer **out, atlas_node **from);
/* Free a group (its nodes stay). */
int atlas_group_destroy(atlas_group *g);

#ifdef __cplusplus
}
#endif
#endif /* ATLAS_H */
