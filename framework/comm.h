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
/*
 * The matching envelope.  Every message carries a 64-bit match word (its
 * tag, chosen by the sender: lc_isend_match; 0 for lc_send/lc_isend).  A
 * receive names a source (or LC_ANY_SOURCE), a match word and a mask: it
 * takes a message whose bits under the mask equal its own,
 *     ((msg_match ^ match) & mask) == 0,
 * so LC_MATCH_ALL (all ones) asks for exactly `match` and 0 takes any word.
 * lc_recv/lc_irecv are match 0, mask LC_MATCH_ALL.  Order: a receive takes
 * the oldest matching message of the messages that arrived (in arrival
 * order, which per source is send order), and an arriving message the
 * oldest matching posted receive; so two messages from one source that the
 * same receive could take are received in the order they were sent (MPI's
 * non-overtaking rule), whatever other match words travel between them.
 */
#define LC_MATCH_ALL (~(uint64_t)0)
/*
 * Unexpected messages (arrived before a matching receive) are kept in
 * buffers of their size, at most host.unexpected_bytes in all (config,
 * LC_HOST_UNEXPECTED_BYTES).  A message that would go beyond waits in the
 * NIC -- and so does every frame that arrived after it, from any source --
 * until a receive for it is posted or held messages are received: its
 * sender, and the node's other senders, are held back by link
 * backpressure, never dropped while the node lives.  lc_iprobe sees such a
 * message, so probe-then-receive always progresses; a message larger than
 * the whole budget is received only into a posted receive.  The limit: a
 * node that waits for a message stuck behind one that waits, and receives
 * neither the waiting message nor enough of the held ones, waits for ever;
 * size the budget above what the program leaves unreceived at once
 * (docs/internals.md, "The matching envelope").
 */
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
 * Waiting spins: lc_wait / lc_send / lc_recv spin, then sched_yield(); how
 * long they spin adapts to whether a yield runs another process (lc_idle).
 * Once a yield ran a process that does not yield back (a CPU-bound one on
 * the same CPU) for its time slice, a wait naps a few tens of us instead of
 * yielding for a while (stat wait_naps): it then looks again every nap, not
 * every time slice.
 */

/* What a completed receive (or send) reports. */
struct lc_status {
	int src;        /* sending node (for a send: this node) */
	size_t len;     /* the message's true size, also when truncated */
	int err;        /* 0 or a negative lc_err (LC_ERR_CANCELED: lc_cancel took it) */
	uint64_t match; /* the message's match word (for a send: the one it was sent with) */
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
 * The same with a match word (comm.h top, "The matching envelope"):
 * lc_isend_match sends `match` with the message; lc_irecv_match takes the
 * oldest message from src (or LC_ANY_SOURCE) with ((its match ^ match) &
 * mask) == 0; st->match reports the word the message carried.
 */
int lc_isend_match(lc_node *node, int dst, uint64_t match, const void *buf, size_t len,
		   lc_req **req);
/*
 * lc_isend_match for a program that posts many small sends: a message that
 * can leave at once (one PIO frame, no send queued before it, a Send Ring
 * slot free, no composed protocol that takes every send over) is sent
 * without a request -- *req is NULL, the send is complete and buf is the
 * caller's again, as lc_isend's request would be complete at once.  Any
 * other message gets a request as from lc_isend_match (*req non-NULL, to
 * lc_test / lc_wait).  Errors as lc_isend_match's; a frame the NIC dropped at
 * once fails the call as it would fail lc_wait.
 */
int lc_isend_now(lc_node *node, int dst, uint64_t match, const void *buf, size_t len, lc_req **req);
int lc_irecv_match(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf, size_t cap,
		   lc_req **req);
int lc_send_match(lc_node *node, int dst, uint64_t match, const void *buf, size_t len);
int lc_recv_match(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf, size_t cap,
		  struct lc_status *st);
/*
 * Synchronous send: completes only once the receiver matched the message
 * with a receive (posted before it arrived, or posted later and finding it
 * unexpected), and the buffer may be reused.  The receiver's framework
 * tells the sender with a control frame of its own (LC_FT_FRAMEWORK), which
 * the composed protocols carry like any frame: with a protocol that provides
 * exactly_once (lc_coop.h) the ack survives losses; without one, a lost
 * message or ack leaves the send pending until the peer dies (as a receive
 * of a lost message waits).  Errors as lc_isend, and LC_ERR_PEER_DEAD when
 * the receiver dies or is given up before it matched the message.
 */
int lc_issend(lc_node *node, int dst, uint64_t match, const void *buf, size_t len, lc_req **req);
int lc_ssend(lc_node *node, int dst, uint64_t match, const void *buf, size_t len);

/*
 * Probe: is there a message from src (or LC_ANY_SOURCE) that a receive with
 * (match, mask) would take now?  One progress step, then *flag = 1 and *st
 * (src, match, true size len, err 0) describe the message the receive would
 * take -- the oldest matching one -- without taking it: a receive with the
 * same src, match and mask then gets that message (unless another receive
 * took it first).  *flag = 0 when none has arrived yet.  A message counts
 * once its first frame arrived (it may still be arriving).  lc_probe waits
 * until there is one (or src is dead for the backpressure limit:
 * LC_ERR_PEER_DEAD).  st must not be NULL.  Returns 0 or a negative lc_err.
 */
int lc_iprobe(lc_node *node, int src, uint64_t match, uint64_t mask, int *flag,
	      struct lc_status *st);
int lc_probe(lc_node *node, int src, uint64_t match, uint64_t mask, struct lc_status *st);

/*
 * Cancel a pending receive that no message matched yet: it completes at
 * once with LC_ERR_CANCELED (lc_test/lc_wait then report and free it, as
 * for any completed request).  Returns 1 when it was cancelled, 0 when it
 * could not be -- it matched a message already, or is a send (sends are
 * never cancelled) -- and then completes as usual; a negative lc_err when
 * req is not a pending request of node.
 */
int lc_cancel(lc_node *node, lc_req *req);

/*
 * One progress step, then *done = 1 when req completed (then req is freed
 * and st, which may be NULL, filled). Returns 0 or the request's error.
 */
int lc_test(lc_node *node, lc_req *req, int *done, struct lc_status *st);
/*
 * lc_test with up to `steps` progress steps (one when steps is 0 or 1),
 * ending after the first step that completed req: a bounded lc_wait for a
 * caller that polls something else between calls (a personality's
 * completion queue).  Cheaper than steps lc_test calls: req is checked
 * once, and completed in the step's own holding of the lock.  *done, st
 * and the result as lc_test's.
 */
int lc_test_steps(lc_node *node, lc_req *req, unsigned steps, int *done, struct lc_status *st);
/*
 * An idle round of a wait loop of the caller's own (a personality's
 * completion queue polled with lc_test_steps): *spins counts the progress
 * steps since the wait last did work (rounds of them made since the last
 * call; the caller sets *spins = 0 when a step did work), and past the
 * node's spin limit the CPU is yielded, as libcomm's own waits do.  The
 * limit is short (64 steps) while yields run other processes, so a peer
 * sharing this core runs soon, and grows (to 16384) while yields find the
 * CPU free, since such a yield is a system call that only delays the next
 * look at the ring.  Returns 0, or LC_ERR_INVAL / LC_ERR_CLOSED (a node that
 * is not open: the round still counts, and past 64 steps it yields).
 */
int lc_idle(lc_node *node, unsigned *spins, unsigned rounds);
/* Wait for req, then free it. Returns 0 or the request's error (st->err too). */
int lc_wait(lc_node *node, lc_req *req, struct lc_status *st);
/*
 * Several requests: reqs[0..n-1], NULL entries ignored (a completed one is
 * set to NULL, so an array can be passed again).  Every non-NULL entry must be
 * a pending request of node (else LC_ERR_INVAL, nothing completed).
 * lc_testany: one progress step; when some request completed, the first in
 * array order is freed, reqs[i] = NULL, *index = i, *done = 1, st filled, and
 * its error returned; else *index = -1 and *done = 0; with no non-NULL entry
 * *index = -1 and *done = 1.  lc_waitany: the same, waiting until one
 * completes (*index = -1 at once when none is non-NULL).
 * lc_testall: one progress step; when every request completed, all are
 * freed and set to NULL, sts[i] filled (sts may be NULL, else n entries),
 * *done = 1 and the first error returned (each in sts[i].err); else nothing
 * is freed and *done = 0.  lc_waitall waits for all of them.
 * lc_testsome: one progress step; every request that completed is freed and
 * set to NULL, its index in indices[j] and its status in sts[j] (sts may be
 * NULL; indices and sts hold n entries), j < *count; the first error is
 * returned (each in sts[j].err); *count = 0 when none completed, -1 when no
 * entry is non-NULL.  lc_waitsome: the same, waiting until one completes.
 * One scan of reqs reports all the completions there are (MPI_Testsome).
 */
int lc_testany(lc_node *node, int n, lc_req **reqs, int *index, int *done, struct lc_status *st);
int lc_waitany(lc_node *node, int n, lc_req **reqs, int *index, struct lc_status *st);
int lc_testall(lc_node *node, int n, lc_req **reqs, int *done, struct lc_status *sts);
int lc_waitall(lc_node *node, int n, lc_req **reqs, struct lc_status *sts);
int lc_testsome(lc_node *node, int n, lc_req **reqs, int *count, int *indices, struct lc_status *sts);
int lc_waitsome(lc_node *node, int n, lc_req **reqs, int *count, int *indices, struct lc_status *sts);

/*
 * The job's name service.  A process names an endpoint of its node -- the
 * node and a 32-bit port of its own choosing (a personality's transport,
 * endpoint or queue number) -- and any process of the job, whatever program
 * it runs, looks the name up.  The table lives in the job segment, so it
 * goes with the job; a node's names go when it closes (lc_close) or dies,
 * and a name held by a node that is gone may be registered again.
 * A name is 1 .. LC_NAME_MAX - 1 bytes of printable ASCII without spaces.
 * The table holds LC_NAME_ENTRIES(nodes) names.
 */
#include "lc_names.h"    /* LC_NAME_MAX, LC_NAME_ENTRIES, LC_NAME_FOREVER */
/*
 * Register name -> (this node, port).  Returns 0, or LC_ERR_INVAL (name
 * NULL, empty, too long or not printable), LC_ERR_BUSY (a live node holds
 * the name: the message names it), LC_ERR_AGAIN (the table is full),
 * LC_ERR_CLOSED.
 */
int lc_name_register(lc_node *node, const char *name, uint32_t port);
/* Remove a name this node registered.  0, or LC_ERR_INVAL (no such name, or another node's). */
int lc_name_unregister(lc_node *node, const char *name);
/*
 * Look name up: *out_node, *out_port (either may be NULL) of its
 * registration.  timeout_us 0 looks once, LC_NAME_FOREVER (any negative)
 * waits until the name is registered, otherwise at most timeout_us
 * microseconds; waiting drives lc_progress (so a waiting node's peers are
 * not held up) and sleeps briefly between looks.  Returns 0, or
 * LC_ERR_TIMEOUT (not registered in time; with timeout 0: not registered
 * now), LC_ERR_PEER_DEAD (not registered, and every other node of the job
 * has exited or died: no one is left to register it), LC_ERR_INVAL,
 * LC_ERR_CLOSED.
 */
int lc_name_lookup(lc_node *node, const char *name, int64_t timeout_us, int *out_node,
		   uint32_t *out_port);

/*
 * Registered memory and one-sided writes (RDMA; docs/internals.md,
 * "Registered memory and RDMA").  A node registers a region of its memory in
 * its NIC's registration table under its endpoint's protection tag; the
 * 32-bit handle names the region to other nodes (send it to them in a
 * message).  A put writes bytes into a region of another node: its frames
 * carry the handle and the offset, and the receiving NIC checks handle,
 * rights, tag and bounds before it DMAs the payload straight into the region
 * (no staging copy, no receive posted, the target's host copies nothing).
 * A refused frame writes nothing and is reported to the writer.
 *
 * Register addr .. addr + len - 1 (1 .. 4 GiB - 1 bytes) with rights
 * (LC_MEM_REMOTE_WRITE: other nodes may put into it; 0: registered, not
 * writable from outside).  Returns 0 and *handle, LC_ERR_INVAL (NULL, len 0
 * or too large, unknown rights), LC_ERR_AGAIN (the table, nic.reg_entries
 * entries, is full), LC_ERR_CLOSED.
 */
#define LC_MEM_REMOTE_WRITE 1u
int lc_mem_register(lc_node *node, void *addr, size_t len, unsigned rights, uint32_t *handle);
/*
 * Revoke handle: frames that arrive for it from now on are refused; returns
 * once every write the NIC accepted under it is in memory (the bytes are
 * final, the memory may be reused).  0, or LC_ERR_INVAL (not a handle of
 * this node), LC_ERR_CLOSED.
 */
int lc_mem_deregister(lc_node *node, uint32_t handle);
/*
 * Put len bytes (0 .. 4 GiB - 1) of buf into dst's region handle at offset
 * off.  The request completes once dst acknowledged the write: 0 when every
 * byte is in dst's memory (a later message to dst arrives after them:
 * messages and puts to one node keep their order), LC_ERR_ACCESS when dst's
 * NIC refused frames of it (handle not registered there, revoked, without
 * LC_MEM_REMOTE_WRITE, of another protection tag, or off + len beyond the
 * region: nothing of a refused frame is written), LC_ERR_LOST when frames
 * were lost in the network, LC_ERR_PEER_DEAD.  Until then buf belongs to
 * the library.  Without a protocol that provides exactly_once, a lost last
 * frame leaves the put pending until dst dies (as a synchronous send).
 * Returns 0 and *req, or LC_ERR_RANGE / LC_ERR_INVAL / LC_ERR_TOOBIG /
 * LC_ERR_AGAIN (no request free) / LC_ERR_CLOSED.  lc_put: the same, blocking.
 */
int lc_iput(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf, size_t len,
	    lc_req **req);
int lc_put(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf, size_t len);
/*
 * A put followed by a notice: once dst acknowledged every byte, a message
 * of note_len bytes of note with match word `match` goes to dst, which
 * receives it like any message (lc_irecv_match) and so knows the data is in
 * place (VIA's RDMA write with immediate data).  The put holds this node's
 * send queue until then, so the notice precedes every message sent after
 * it.  A put that fails sends no notice.  The request completes when the
 * notice left, with the put's result; st->len is the put's len.
 */
int lc_iput_notify(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf,
		   size_t len, uint64_t match, const void *note, size_t note_len, lc_req **req);

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
	X(tx_frames,        "frames handed to the NIC (pio_frames + dma_frames)")\
	X(rx_frames,        "frames taken from host staging")                 \
	X(tx_bytes,         "payload bytes sent")                             \
	X(rx_bytes,         "payload bytes received")                         \
	X(pio_frames,       "frames PIO-copied into the Send Ring")           \
	X(dma_frames,       "frames sent by a Tx DMA request")                \
	X(dma_bytes,        "payload bytes of those frames")                  \
	X(tx_ring_full,     "times the Send Ring or Tx DMA chain was full")   \
	X(rx_drops_bad,     "corrupt or foreign frames dropped by the host")  \
	X(rx_drops_proto,   "frames dropped by a protocol's verdict")         \
	X(rx_refused,       "RDMA frames the NIC refused, seen by the protocols, then dropped")\
	X(unexpected_msgs,  "messages that arrived before their receive")     \
	X(unexpected_hwm,   "unexpected bytes held, high-water mark")         \
	X(rx_parked,        "first frames parked at the unexpected budget")   \
	X(rx_held,          "data frames held behind a parked first frame")   \
	X(sync_acks,        "synchronous-send acks sent (messages matched)")  \
	X(send_queue_hwm,   "queued send requests, high-water mark")        \
	X(wait_naps,        "idle rounds of waits that napped: a yield had run a process that does not yield back")\
	X(puts,             "puts made (lc_iput, lc_iput_notify)")            \
	X(put_rx_bytes,     "bytes other nodes' puts placed in this node's memory (its NIC's Rx DMA)") \
	X(host_copy_bytes,  "payload bytes the host CPU copied (PIO into the Send Ring; staging, "\
	  "unexpected or held buffers to the user): with the NIC's DMA and Net-Send bytes, the copies "\
	  "per delivered byte")

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
/*
 * The pipeline's counters as stored in a node's counter area, made the ones
 * lc_stats reports (lc_stats does it; commrun --stats, which reads a job's
 * segment, calls it): a sent frame is counted by what carried it
 * (pio_frames or dma_frames) and its bytes, and the rest follows --
 * tx_frames, and host_copy_bytes's share of PIO copies (tx_bytes less
 * dma_bytes).  The stores a sender makes for a message queue behind its
 * frame's store into the peer's Receive Ring (docs/internals.md,
 * thirty-fifth part): two fewer a frame.  pipe: the first LC_STAT_COUNT -
 * LC_NIC_STAT_COUNT counters.
 */
void lc_stats_derive(uint64_t *pipe);
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
