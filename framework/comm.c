/* SPDX-License-Identifier: MIT */
/* The public API of comm.h: open/close, send/receive, test/wait, progress, stats, errors. */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "geom.h"
#include "lc_env.h"
#include "lc_marks.h"
#include "lc_pc.h"
#include "node.h"

/* lc_close gives pending sends this long (ns) beyond the backpressure limit. */
#define LC_CLOSE_GRACE_NS 1000000000ull

/* The process's one node: never freed, so that a closed node stays safe to check. */
struct lc_node lc_the_node;

/* Stands in for a NULL buffer of 0 bytes, so that memcpy never sees NULL. */
static uint8_t lc_empty[1];

/* Text of the last error, per thread (many threads may call the API at once). */
static _Thread_local char lc_err_text[512];

int lc_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lc_err_text, sizeof(lc_err_text), fmt, ap);
	va_end(ap);
	return err;
}

/* The protocol-facing twin of lc_fail (lc_proto.h): a hook that refuses explains why. */
int lc_proto_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lc_err_text, sizeof(lc_err_text), fmt, ap);
	va_end(ap);
	return err;
}

int lc_check_failed(const lc_node *node, const char *fn)
{
	if (!node)
		return lc_fail(LC_ERR_INVAL, "%s: node is NULL", fn);
	if (node != &lc_the_node)
		return lc_fail(LC_ERR_INVAL, "%s: not a node returned by lc_open", fn);
	/* acquire pairs with the release store in lc_open / lc_close */
	if (!atomic_load_explicit(&node->open, memory_order_acquire))
		return lc_fail(LC_ERR_CLOSED, "%s: node is closed", fn);
	return 0;
}

void lc_lock_contended(struct lc_node *node)
{
	unsigned spins = 0;

	while (!lc_trylock(node)) {
		/* on a core of its own the holder is another thread of this process on this core */
		if (atomic_load_explicit(&node->spin.limit, memory_order_relaxed) == LC_SPIN_OWN) {
			if (++spins > LC_SPIN_LIMIT)
				sched_yield();
		} else {
			lc_idle_round(node, &spins);
		}
	}
}

/*
 * Switches of the calling thread away from a CPU it still wanted (yields that
 * ran another process, preemptions), or -1: the sign of another process on
 * its CPU.  Its own sleeps (lc_yield's naps, an application's blocking calls)
 * are the voluntary ones and not counted.
 */
static long lc_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* The calling thread's switch count at its last look, and its yields at the least limit. */
static _Thread_local long lc_switches_seen = -1;
static _Thread_local unsigned lc_least_yields;
/* Until when the calling thread naps instead of yielding (lc_yield, LC_NAP_SPAN_NS). */
static _Thread_local uint64_t lc_nap_until;

void lc_yield(struct lc_node *node, unsigned *spins)
{
	struct lc_spin *sp = &node->spin;
	unsigned limit = atomic_load_explicit(&sp->limit, memory_order_relaxed);
	long was = lc_switches_seen, now;
	uint64_t t0, took;

	lc_poll_clock_due(node);
	if (limit == LC_SPIN_OWN) {
		/* a core of its own (lc_own_core): spin the whole limit again */
		sched_yield();
		*spins = 0;
		return;
	}
	t0 = lc_now_ns();
	if (t0 < lc_nap_until) {
		/* a yield here ran a process that does not yield back (node.h, LC_NAP_NS): nap */
		unsigned k = (*spins - limit) / LC_NAP_STEP;
		struct timespec ts = { 0, LC_NAP_NS << (k < LC_NAP_DOUBLINGS ? k : LC_NAP_DOUBLINGS) };

		LC_STAT_ADD(node, wait_naps, 1);
		nanosleep(&ts, NULL);
		return;
	}
	sched_yield();
	took = lc_now_ns() - t0;
	if (took > LC_YIELD_LONG_NS)
		lc_nap_until = t0 + took + LC_NAP_SPAN_NS;
	/*
	 * at the least limit -- the CPU shared, or not known yet to be free -- a
	 * look at the switch count (a getrusage, about as dear as the yield) comes
	 * only every LC_YIELD_LOOK-th yield; meanwhile every round past the limit yields
	 */
	if (limit <= LC_SPIN_LIMIT && ++lc_least_yields % LC_YIELD_LOOK != 0)
		return;
	lc_switches_seen = now = lc_switches();
	if (was < 0 || now < 0)
		return;
	if (now != was) {
		/* another thread ran on this CPU since the last look: it is shared, yield after the short spin */
		atomic_store_explicit(&sp->quick, 0, memory_order_relaxed);
		atomic_store_explicit(&sp->limit, LC_SPIN_LIMIT, memory_order_relaxed);
		return;
	}
	/* nobody else wanted the CPU: spin the limit again before the next yield */
	*spins = 0;
	if (limit < LC_SPIN_MAX &&
	    atomic_fetch_add_explicit(&sp->quick, 1, memory_order_relaxed) + 1 >= LC_SPIN_QUICK) {
		atomic_store_explicit(&sp->quick, 0, memory_order_relaxed);
		atomic_store_explicit(&sp->limit, 2 * limit, memory_order_relaxed);
	}
}

int lc_idle(lc_node *node, unsigned *spins, unsigned rounds)
{
	int rc = lc_check(node, "lc_idle");

	if (!spins)
		return lc_fail(LC_ERR_INVAL, "lc_idle: spins is NULL");
	if (rc) {
		/* no open node (closed under the caller's wait): the least limit, a plain yield past it */
		*spins += rounds ? rounds : 1;
		if (*spins > LC_SPIN_LIMIT)
			sched_yield();
		return rc;
	}
	*spins += rounds ? rounds - 1 : 0;
	lc_idle_round(node, spins);
	return 0;
}

int lc_lock_closed(struct lc_node *node, const char *fn)
{
	lc_unlock(node);
	return lc_fail(LC_ERR_CLOSED, "%s: node is closed", fn);
}

/* lc_test/lc_wait: take the lock and check req is pending; on failure the lock is not held. */
static inline int lc_lock_req_pending(struct lc_node *node, const lc_req *req, const char *fn)
{
	int rc = lc_lock_open(node, fn);

	if (rc)
		return rc;
	if (!lc_req_valid(node, req)) {
		lc_unlock(node);
		return lc_fail(LC_ERR_INVAL, "%s: req is not a pending request", fn);
	}
	return 0;
}

/* ---- open / close ---- */

static int lc_env_u32(const char *name, uint32_t *out)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return lc_fail(LC_ERR_INVAL,
			       "%s is not set: start the program with commrun -n N PROG", name);
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 0 || n > (long)UINT32_MAX)
		return lc_fail(LC_ERR_INVAL, "%s=\"%s\" is not a node number", name, v);
	*out = (uint32_t)n;
	return 0;
}

/*
 * 1 when the calling thread runs on a core of its own in the job: commrun
 * --bind core bound the node to core LC_CORE, which no other node of the job
 * runs on, the thread may run there alone, and no MCP thread shares it.
 */
static int lc_own_core(void)
{
#if LC_NIC_MCP_THREAD
	return 0;
#else
	const char *v = getenv("LC_CORE");
	cpu_set_t set;
	char *end;
	long core;

	if (!v || !*v)
		return 0;
	errno = 0;
	core = strtol(v, &end, 10);
	if (errno || *end || core < 0 || core >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	return CPU_COUNT(&set) == 1 && CPU_ISSET((int)core, &set);
#endif
}

/*
 * LC_LINK_ENGINE=sender|either: nic.link_engine for this process (whether a
 * receiving NIC may pull its DMA frames across the link), for side-by-side
 * runs of one build; unset or empty keeps the config's.
 */
static int lc_env_link_engine(struct lc_nic_geom *g)
{
	char err[128];
	int pick;

	if (lc_env_switch("LC_LINK_ENGINE", "sender", "either", &pick, err, sizeof err))
		return lc_fail(LC_ERR_INVAL, "%s", err);
	if (pick >= 0)          /* "sender" (pick 0) or "either" (1); unset (-1): the config's */
		g->pull = (uint16_t)pick;
	return 0;
}

/*
 * LC_HOLD_SENDS=1|0: whether a protocol that provides holds_sends may hold a
 * non-blocking send of several frames to its ack instead of keeping a copy
 * of it (lc_proto_sreq_hold; default 1), for side-by-side runs of one build;
 * unset or empty keeps 1.  Read in every config (a wrong value is an error
 * wherever it is set); *hold 1 or 0.
 */
static int lc_env_hold_sends(int *hold)
{
	char err[128];
	int pick;

	*hold = 1;
	if (lc_env_switch("LC_HOLD_SENDS", "1", "0", &pick, err, sizeof err))
		return lc_fail(LC_ERR_INVAL, "%s", err);
	*hold = pick != 1;      /* "1" (pick 0) or unset (-1): 1; "0" (pick 1): 0 */
	return 0;
}

int lc_open(lc_node **out)
{
	struct lc_node *node = &lc_the_node;
	struct lc_nic_geom g;
	const char *job, *net;
	char err[256] = "";
	uint32_t rank, size, i;
	int rc, hold;

	if (!out)
		return lc_fail(LC_ERR_INVAL, "lc_open: out is NULL");
	*out = NULL;
	if (atomic_load_explicit(&node->open, memory_order_acquire))
		return lc_fail(LC_ERR_BUSY, "lc_open: this process already has an open node "
			       "(one node per process)");
	job = getenv("LC_JOB");
	if (!job || !*job)
		return lc_fail(LC_ERR_INVAL,
			       "LC_JOB is not set: start the program with commrun -n N PROG");
	if ((rc = lc_env_u32("LC_NODES", &size)) || (rc = lc_env_u32("LC_NODE", &rank)))
		return rc;
	if (size < 1 || size > LC_MAX_NODES)
		return lc_fail(LC_ERR_RANGE, "LC_NODES=%u out of range 1..%d", size, LC_MAX_NODES);
	if (rank >= size)
		return lc_fail(LC_ERR_RANGE, "LC_NODE=%u out of range 0..%u", rank, size - 1);
	rc = lc_geom_from_config(&g, size);
	if (rc == LC_ERR_CONFIG)        /* the environment's limit, refused as the other variables are */
		return lc_fail(LC_ERR_INVAL, LC_BACKPRESSURE_US_WHY, getenv("LC_BACKPRESSURE_US"));
	if (rc)
		return lc_fail(rc, "lc_open: no geometry for %u nodes", size);
	/* endpoints per NIC (commrun --per-node): the segment checks it like the geometry */
	if (getenv("LC_PER_NIC") && (rc = lc_env_u32("LC_PER_NIC", &g.per_nic)))
		return rc;
	/* the network the job runs on (commrun --network): the segment checks it too */
	net = getenv("LC_NETWORK");
	if (net && *net && (rc = lc_net_override(&g, net, err, sizeof err)))
		return lc_fail(rc, "lc_open: LC_NETWORK=%s: %s", net, err);
	if ((rc = lc_env_link_engine(&g)) || (rc = lc_env_hold_sends(&hold)))
		return rc;

	lc_lock(node);
	lc_node_reset(node);
#if LC_PC_HOLDS_SENDS
	node->hold_sends = (uint8_t)hold;
#else
	(void)hold;
#endif
	rc = 0;
	node->nic = lc_nic_attach(job, rank, &g, err, sizeof(err), &rc);
	if (!node->nic) {
		lc_unlock(node);
		return lc_fail(rc ? rc : LC_ERR_SYS, "lc_open: job %s, node %u: %s", job, rank,
			       err[0] ? err : "cannot attach the NIC");
	}
	node->stats = lc_nic_host_stats(node->nic);
	node->dst_drops = lc_nic_dst_drop_counts(node->nic);
	if (lc_own_core())
		atomic_store_explicit(&node->spin.limit, LC_SPIN_OWN, memory_order_relaxed);
	node->rank = rank;
	node->size = size;
	node->limit_ns = g.backpressure_timeout_ns;
	for (i = 0; i < size; i++)
		node->tx_drops_seen[i] = lc_dst_drops(node, i);
	lc_err_text[0] = '\0';
	rc = LC_PC(init, node);
	if (rc) {
		char why[sizeof(lc_err_text)];

		lc_nic_detach(node->nic);
		node->nic = NULL;
		lc_unlock(node);
		/* a hook that called lc_proto_fail left its reason in lc_err_text */
		snprintf(why, sizeof(why), "%s", lc_err_text[0] ? lc_err_text : lc_strerror(rc));
		return lc_fail(rc, "lc_open: a protocol refused to start: %s", why);
	}
	/* release pairs with the acquire in lc_check */
	atomic_store_explicit(&node->open, 1, memory_order_release);
	lc_unlock(node);
	*out = node;
	return 0;
}

/*
 * 1 when the NIC's transmit side moved since *seen_left (frames left the
 * Send Ring: *seen_left is updated) or waits at a destination's full Receive
 * Ring (link backpressure: a live receiver is only slow, and the NIC bounds
 * the wait at a stopped one).  The host's own limits on a send run only
 * while this is 0: the NIC made no progress at all.
 */
static int lc_tx_progressing(struct lc_node *node, uint32_t *seen_left)
{
	uint32_t left = lc_nic_tx_left(node->nic);

	if (left != *seen_left) {
		*seen_left = left;
		return 1;
	}
	return lc_nic_tx_waiting(node->nic);
}

int lc_close(lc_node *node)
{
	uint64_t deadline = 0;
	struct lc_rmsg *m, *next;
	unsigned rounds = 0, idle = 0;
	uint32_t seen_left = 0;
	int rc = lc_check(node, "lc_close");

	if (rc)
		return rc;
	lc_lock(node);
	/* release pairs with the acquire in lc_check: later calls see the node closed */
	atomic_store_explicit(&node->open, 0, memory_order_release);
	/*
	 * from now on a first frame beyond the unexpected budget is dropped, not
	 * parked (lc_rx_begin), a parked one too when progress looks at it again,
	 * and the frames held behind it with it: nothing will receive them, and
	 * their sources' NICs must not wait at this node for the drain below
	 */
	/*
	 * drain the sends and the synchronous-send acks still owed (a receive
	 * matched the message but the Send Ring had no slot for its ack: its
	 * sender waits for it), bounded: the clock restarts while the NIC makes
	 * progress (lc_tx_progressing) or a protocol holds the first send back
	 * (a live receiver is only slow; the NIC bounds the wait at a stopped one,
	 * and a dead one fails the sends)
	 */
	while (node->sendq.head || node->inflight.head || node->acks_n ||
	       !lc_nic_tx_idle(node->nic)) {
		if (lc_progress_locked(node))
			idle = 0;
		if ((++rounds & 1023) == 0) {
			struct lc_req *h;
			int held;

			lc_check_peers(node);
			h = node->sendq.head;
			/* a send a protocol holds back (e.g. no credit from a live peer yet) */
			held = h && h->held;
			if (h)
				h->held = 0;
			if (lc_tx_progressing(node, &seen_left) || !deadline || held)
				deadline = lc_now_ns() + node->limit_ns +
					   LC_CLOSE_GRACE_NS;
			else if (lc_now_ns() > deadline) {
				rc = lc_fail(LC_ERR_TIMEOUT, "lc_close: %u sends still pending%s",
					     node->sendq.count + node->inflight.count,
					     lc_nic_tx_idle(node->nic) ? "" :
					     ", the NIC Send Ring not drained");
				break;
			}
		}
		lc_idle_round(node, &idle);
	}
	LC_PC(fini, node);
	/*
	 * the frames a protocol's fini posted (its last acks: a peer may hold a
	 * send until it has them) leave before the NIC detaches; the engines
	 * alone, the protocols' state is gone.  Bounded as the drain above.
	 */
	deadline = lc_now_ns() + node->limit_ns + LC_CLOSE_GRACE_NS;
	while (!lc_nic_tx_idle(node->nic) && lc_now_ns() < deadline) {
#if !LC_NIC_MCP_THREAD
		lc_nic_step_held(node->nic);
#else
		lc_nic_assist(node->nic);
#endif
	}
	/*
	 * A message still being assembled is rx[i].cur; an unexpected one is on
	 * the queue until a receive matches it: free the matched ones here (they
	 * left the queue) before the queue frees the others.
	 */
	for (uint32_t i = 0; i < node->size; i++) {
		m = node->rx[i].cur;
		if (m && m->unexpected && m->req)
			lc_uq_free(node, m);
		node->rx[i].cur = NULL;
	}
	for (m = node->uq_head; m; m = next) {
		next = m->next;
		lc_uq_free(node, m);
	}
	node->uq_head = node->uq_tail = NULL;
	lc_uq_spares_free(node);
	free(node->acks);
	node->acks = NULL;
	node->acks_n = node->acks_cap = 0;
	lc_rx_hold_clear(node);
	lc_nic_detach(node->nic);
	node->nic = NULL;
	node->stats = NULL;
	lc_unlock(node);
	return rc;
}

int lc_rank(const lc_node *node)
{
	int rc = lc_check(node, "lc_rank");

	return rc ? rc : (int)node->rank;
}

int lc_size(const lc_node *node)
{
	int rc = lc_check(node, "lc_size");

	return rc ? rc : (int)node->size;
}

/* ---- send / receive ---- */

static int lc_wait_held(lc_node *node, lc_req *req, struct lc_status *st);

/* The error of a send that failed, with its text (worded as lc_wait's for the blocking calls). */
static int lc_send_failed(const struct lc_node *node, int err, const char *fn, size_t len, int peer)
{
	if (err == LC_ERR_TIMEOUT && node->tx_stuck[0])
		return lc_fail(err, "%s: send of %zu bytes to node %d: %s: no Send Ring slot and the NIC "
			       "made no progress for the backpressure limit (%s)", fn, len, peer,
			       lc_strerror(err), node->tx_stuck);
	return lc_fail(err, "%s: send of %zu bytes to node %d: %s", fn, len, peer, lc_strerror(err));
}

/* What every send checks before it takes the lock: 0 or the error (with its text). */
/* inlined: it is every send's first step (a call of its own cost lc_isend 20 Ir) */
static inline __attribute__((always_inline)) int lc_send_check(lc_node *node, int dst,
							       const void *buf, size_t len,
							       lc_req **req, const char *fn)
{
	int rc = lc_send_args(node, dst, req, fn);

	if (rc)
		return rc;
	if (!buf && len)
		return lc_fail(LC_ERR_INVAL, "%s: buf is NULL with len %zu", fn, len);
	if (len > LC_MAX_MSG)
		return lc_fail(LC_ERR_TOOBIG, "%s: %zu bytes > LC_MAX_MSG (%zu)", fn, len,
			       LC_MAX_MSG);
	return 0;
}

/* Send request r's message, the whole of r->s; takes the message's sequence number. */
static inline void lc_sreq_init(lc_node *node, struct lc_req *r, int dst, uint64_t match,
				uint8_t sync, const void *buf, size_t len)
{
	r->kind = LC_REQ_SEND;
	r->s = (struct lc_sreq){ .match = match, .sync = sync, .dst = (uint32_t)dst,
				 .seq = node->tx_seq[dst]++, .buf = len ? buf : lc_empty,
				 .len = (uint32_t)len };
}

/* Send request r joins the send queue (lock held); the head of the queue goes to the NIC. */
static void lc_send_queue(lc_node *node, struct lc_req *r)
{
	lc_reqq_push(&node->sendq, r);
	if (node->sendq.count > atomic_load_explicit(&node->stats[LC_STAT_send_queue_hwm],
						     memory_order_relaxed))
		atomic_store_explicit(&node->stats[LC_STAT_send_queue_hwm], node->sendq.count,
				      memory_order_relaxed);
	if (node->sendq.head == r && lc_tx_push(node) && (r->s.dma || !r->s.posted)) {
#if !LC_NIC_MCP_THREAD
		/*
		 * inline MCP: the frame leaves now, not at the next progress call (8 B msgrate
		 * 1.9-2.2 -> 2.6-3.5 M msgs/s, load ~3.9; the frames no longer pile up in the
		 * Send Ring until the first wait).  Only the doorbell service and
		 * Net-Send (with the lock taken once by the blocking calls, lc_send 917 ->
		 * 785 Ir per 8 B message).  A message whose frames all went by PIO was
		 * moved frame by frame as they were posted (lc_tx_frame); this step moves
		 * a message that went by DMA, and what a protocol's send_msg posted for
		 * a message it took over or dropped (a request-to-send it posted instead).
		 */
		lc_nic_step_send_held(node->nic);
#endif
	}
}

/*
 * A send that leaves at once needs no request of the pool.  Where no
 * protocol hooks send_msg (nothing can take a message over, hold it in the
 * queue or give it another frame size), a message of one PIO frame behind an
 * empty send queue is complete as soon as its frame is in the Send Ring: its
 * request lives on the stack for lc_tx_frame and is never queued nor seen by
 * a protocol (send_frame and after_send see the header and the payload).
 * The request's pool slot, its queue passes, lc_tx_push's loop and the wait
 * were about 170 Ir of lc_send's 790 per 8 B message, about 100 of them
 * before the frame's publication in the peer's Receive Ring.
 */
#define LC_SEND_NOW_MAX (LC_PIO_THRESHOLD < LC_MTU ? LC_PIO_THRESHOLD : LC_MTU)

/*
 * Every send once checked: under the lock, the message leaves at once (no
 * request: *out NULL; 0, or the error of a frame the NIC dropped, its text
 * naming lost_fn) or joins the send queue in a request of the
 * pool (*out; 0).  sync is LC_FF_SYNC or 0.  Returns with the lock held
 * when *out is a request, released otherwise.
 *
 * keep (a non-blocking send: lc_isend, lc_isend_match, lc_issend) asks for a
 * request in every case: a message that leaves at once gets one of the pool,
 * complete (its error, that of a frame the NIC dropped, is the wait's), and
 * skips the send queue, lc_tx_push's loop and the queue's leaving: 8 B
 * msgrate's sender 818 -> 724 Ir a message with lc_send_check inline
 * (callgrind, node 0).
 */
/* inlined into its callers: a call made lc_send 18 Ir dearer (callgrind) */
__attribute__((always_inline)) static inline int lc_send_start(lc_node *node, int dst, uint64_t match,
							       uint8_t sync, const void *buf, size_t len,
							       lc_req **out, const char *fn,
							       const char *lost_fn, int keep)
{
	struct lc_req *r;

	(void)lost_fn;  /* unread where a protocol hooks send_msg */
	(void)keep;
	/* *out is NULL already: every caller checked the send first (lc_send_check) */
#if !LC_PC_USED_send_msg
	if (keep && !sync && len <= LC_SEND_NOW_MAX && !node->sendq.head) {
		/* not zeroed: what is read of a send done in the call is written (lc_req_now) */
		if (!(r = lc_req_take(node)))
			return lc_no_request(node, fn);
		lc_sreq_init(node, r, dst, match, 0, buf, len);
		r->s.admitted = 1;
		lc_req_now(r);
		LC_STAT_ADD(node, tx_msgs, 1);
		if (lc_tx_frame(node, r) > 0) {
			/* a frame the NIC dropped (a stopped or dead peer) fails it, as lc_tx_push does */
			int rc = lc_tx_dropped(node, (uint32_t)dst) ? lc_peer_state(node, (uint32_t)dst) : 0;

			if (rc)
				lc_check_peers(node);
			lc_req_complete(r, rc);   /* not synchronous: lc_send_done's test folded */
			*out = r;
			return 0;
		}
		/* no Send Ring slot (or a protocol held the frame back): it waits in the queue */
		lc_req_settle(r);
		goto queue;
	}
	if (!keep && !sync && len <= LC_SEND_NOW_MAX && !node->sendq.head) {
		struct lc_req now;
		int rc;

		now.held = 0;
		lc_sreq_init(node, &now, dst, match, 0, buf, len);
		now.s.admitted = 1;
		LC_STAT_ADD(node, tx_msgs, 1);
		if (lc_tx_frame(node, &now) > 0) {
			/* a frame the NIC dropped (a stopped or dead peer) fails it, as lc_tx_push does */
			rc = lc_tx_dropped(node, (uint32_t)dst) ? lc_peer_state(node, (uint32_t)dst) : 0;
			if (rc)
				lc_check_peers(node);
			lc_unlock(node);
			return rc ? lc_send_failed(node, rc, lost_fn, len, dst) : 0;
		}
		/* no Send Ring slot (or a protocol held the frame back): it waits in the queue */
		if (!(r = lc_req_alloc(node)))
			return lc_no_request(node, fn);
		r->kind = LC_REQ_SEND;
		r->s = now.s;
		r->held = now.held;
		goto queue;
	}
#endif
	if (!(r = lc_req_alloc(node)))
		return lc_no_request(node, fn);
	lc_sreq_init(node, r, dst, match, sync, buf, len);
#if !LC_PC_USED_send_msg
queue:
#endif
#if LC_PC_HOLDS_SENDS
	/*
	 * a protocol may hold a non-blocking send to its ack (lc_proto_sreq_hold;
	 * LC_HOLD_SENDS=0: never);
	 * a blocking one returns when its frames left: held, a ping-pong's answer
	 * would arrive before the receive is posted and be copied twice (docs/internals.md)
	 */
	r->s.holdable = (uint8_t)(keep && node->hold_sends);
#endif
	lc_send_queue(node, r);
	*out = r;
	return 0;
}

/*
 * Every non-blocking send: checks, then a request in the send queue; sync is
 * LC_FF_SYNC or 0.  On success the progress lock is still held
 * (lc_isend_common releases it).
 */
static inline __attribute__((always_inline)) int lc_isend_held(lc_node *node, int dst, uint64_t match, uint8_t sync, const void *buf,
			 size_t len, lc_req **req, const char *fn)
{
	int rc = lc_send_check(node, dst, buf, len, req, fn);

	if (rc || (rc = lc_lock_open(node, fn)))
		return rc;
	return lc_send_start(node, dst, match, sync, buf, len, req, fn, fn, 1);
}

/* Every blocking send (lc_send, lc_send_match, lc_ssend): the call and its wait under one lock. */
static int lc_send_blocking(lc_node *node, int dst, uint64_t match, uint8_t sync, const void *buf,
			    size_t len, const char *fn)
{
	struct lc_req *r;
	int rc = lc_send_check(node, dst, buf, len, &r, fn);

	if (rc || (rc = lc_lock_open(node, fn)))
		return rc;
	rc = lc_send_start(node, dst, match, sync, buf, len, &r, fn, "lc_wait", 0);
	return r ? lc_wait_held(node, r, NULL) : rc;
}

int lc_isend_now(lc_node *node, int dst, uint64_t match, const void *buf, size_t len, lc_req **req)
{
	int rc = lc_send_check(node, dst, buf, len, req, "lc_isend_now");

	if (rc || (rc = lc_lock_open(node, "lc_isend_now")))
		return rc;
	rc = lc_send_start(node, dst, match, 0, buf, len, req, "lc_isend_now", "lc_isend_now", 0);
	if (*req)
		lc_unlock(node);
	return rc;
}

static inline __attribute__((always_inline)) int lc_isend_common(lc_node *node, int dst, uint64_t match, uint8_t sync, const void *buf,
			   size_t len, lc_req **req, const char *fn)
{
	int rc = lc_isend_held(node, dst, match, sync, buf, len, req, fn);

	if (!rc)
		lc_unlock(node);
	return rc;
}

int lc_isend(lc_node *node, int dst, const void *buf, size_t len, lc_req **req)
{
	return lc_isend_common(node, dst, 0, 0, buf, len, req, "lc_isend");
}

int lc_isend_match(lc_node *node, int dst, uint64_t match, const void *buf, size_t len,
		   lc_req **req)
{
	return lc_isend_common(node, dst, match, 0, buf, len, req, "lc_isend_match");
}

int lc_issend(lc_node *node, int dst, uint64_t match, const void *buf, size_t len, lc_req **req)
{
	return lc_isend_common(node, dst, match, LC_FF_SYNC, buf, len, req, "lc_issend");
}

/* 1 when a receive for (src, match, mask) takes message m. */
static inline int lc_matches(int src, uint64_t match, uint64_t mask, const struct lc_rmsg *m)
{
	return (src == LC_ANY_SOURCE || (uint32_t)src == m->src) && !((m->match ^ match) & mask);
}

/* The oldest unexpected message (complete or still arriving) a receive (src, match, mask) takes. */
static struct lc_rmsg *lc_uq_find(struct lc_node *node, int src, uint64_t match, uint64_t mask)
{
	struct lc_rmsg *m;

	for (m = node->uq_head; m; m = m->next)
		if (lc_matches(src, match, mask, m))
			break;
	return m;
}

/*
 * Every receive: checks, then a request matched or posted; on success the
 * lock is still held.  Inlined into each receive call (lc_irecv, lc_recv and
 * their match forms), as are the lock and the request's allocation: one
 * function's frame a post instead of four (msgrate's receiver posts every
 * message; 166 Ir a post before).
 */
static inline __attribute__((always_inline)) int lc_irecv_held(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf,
			 size_t cap, lc_req **req, const char *fn)
{
	struct lc_rmsg *m;
	struct lc_req *r;
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (!req)
		return lc_fail(LC_ERR_INVAL, "%s: req is NULL", fn);
	*req = NULL;
	if (src != LC_ANY_SOURCE && (src < 0 || (uint32_t)src >= node->size))
		return lc_fail(LC_ERR_RANGE, "%s: node %d out of range 0..%u", fn, src,
			       node->size - 1);
	if (!buf && cap)
		return lc_fail(LC_ERR_INVAL, "%s: buf is NULL with cap %zu", fn, cap);
	if ((rc = lc_lock_req_new(node, fn, &r)))
		return rc;
	r->kind = LC_REQ_RECV;
	r->src = src;
	r->match = match;
	r->mask = mask;
	r->ubuf = cap ? buf : lc_empty;
	r->ucap = cap;
	/* the oldest matching unexpected message, complete or still arriving */
	m = lc_uq_find(node, src, match, mask);
	if (!m) {
		/* a parked first frame it matches goes at the next progress step */
		lc_reqq_push(&node->posted, r);
	} else {
		lc_uq_unlink(node, m);
		if (m->sync)
			lc_fw_ack(node, m->src, LC_FW_SYNC_ACK, m->seq, 0);
		if (m->done) {
			memcpy(r->ubuf, m->data, m->len < cap ? m->len : cap);
			LC_STAT_ADD(node, host_copy_bytes, m->len < cap ? m->len : cap);
			r->m.src = m->src;
			r->m.len = m->len;
			r->m.match = m->match;
			lc_req_complete(r, m->len > cap ? LC_ERR_TRUNC : 0);
			lc_uq_free(node, m);
		} else {
			m->req = r;
			r->um = m;
#if LC_PC_ANNOUNCE
			if (m->announced) {
				/* its data goes straight to this receive's buffer */
				m->data = r->ubuf;
				m->cap = r->ucap;
				LC_PC(match_announced, node, m);
			}
#endif
		}
		if (node->acks_n)
			lc_tx_acks(node);
	}
	*req = r;
	return 0;
}

static inline __attribute__((always_inline)) int lc_irecv_common(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf,
			   size_t cap, lc_req **req, const char *fn)
{
	int rc = lc_irecv_held(node, src, match, mask, buf, cap, req, fn);

	if (!rc)
		lc_unlock(node);
	return rc;
}

int lc_irecv(lc_node *node, int src, void *buf, size_t cap, lc_req **req)
{
	return lc_irecv_common(node, src, 0, LC_MATCH_ALL, buf, cap, req, "lc_irecv");
}

int lc_irecv_match(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf, size_t cap,
		   lc_req **req)
{
	return lc_irecv_common(node, src, match, mask, buf, cap, req, "lc_irecv_match");
}

/* Fill st, write the error text, free r, release the lock. Returns r's error. */
/* lc_finish of a request that failed: free r, release the lock, write the error text; r's error. */
static __attribute__((noinline)) int lc_finish_failed(struct lc_node *node, struct lc_req *r, const char *fn)
{
	int err = r->err;
	int send = r->kind == LC_REQ_SEND;
	int peer = send ? (int)r->s.dst : (int)r->m.src;
	size_t len = send ? r->s.len : r->m.len;
	size_t cap = r->ucap;
	int rsrc = r->src;

	lc_req_free(node, r);
	lc_unlock(node);
	if (err == LC_ERR_TRUNC)
		return lc_fail(err, "%s: message of %zu bytes from node %d truncated to the "
			       "buffer's %zu bytes", fn, len, peer, cap);
	if (send)
		return lc_send_failed(node, err, fn, len, peer);
	if (rsrc == LC_ANY_SOURCE)
		return lc_fail(err, "%s: receive from any node: %s", fn, lc_strerror(err));
	return lc_fail(err, "%s: receive from node %d: %s", fn, rsrc, lc_strerror(err));
}

int lc_finish(struct lc_node *node, struct lc_req *r, struct lc_status *st, const char *fn)
{
	/* the error's text and its fields only once there is an error (an 8 B ping-pong turn 503 -> 493 Ir) */
	if (st)
		lc_req_status(node, r, st);
	if (__builtin_expect(r->err != 0, 0))
		return lc_finish_failed(node, r, fn);
	lc_req_free(node, r);
	lc_unlock(node);
	return 0;
}

/*
 * Every 1024 rounds of test/wait on a pending r: a send fails once its peer
 * is dead or dropped frames (LC_ERR_PEER_DEAD / LC_ERR_LOST), or when it is
 * the head of the send queue and got no Send Ring slot for the backpressure
 * limit while the NIC made no progress (LC_ERR_TIMEOUT; lc_tx_progressing);
 * a receive fails when its peer (any peer but this node for LC_ANY_SOURCE)
 * has been dead for the backpressure limit.
 */
void lc_req_check(struct lc_node *node, struct lc_req *r)
{
	uint64_t now;
	uint32_t i;
	int dead;

	if (r->kind == LC_REQ_SEND) {
		if (r->s.consumed)
			return;
#if LC_PC_HOLDS_SENDS
		/*
		 * a protocol holds it (lc_proto_sreq_hold) until the receiver has every
		 * frame: the protocol bounds that wait (it gives a dead peer up,
		 * lc_proto_peer_failed).  Not the receiver's death here: a receiver
		 * may ack and exit, and its ack still waits in the Receive Ring.
		 */
		if (r->hold_wait)
			return;
#endif
		if (r->sync_wait) {
			/* a synchronous send waits for its receiver's ack: only the receiver's death ends it */
			if (!lc_nic_peer_alive(node->nic, r->s.dst) ||
			    ((node->peer_gone[r->s.dst / 64] >> (r->s.dst % 64)) & 1u))
				lc_sync_fail(node, r->s.dst, LC_ERR_PEER_DEAD);
			return;
		}
		lc_check_peers(node);
		/*
		 * the head of the send queue gets no Send Ring slot: backpressure time
		 * limit; a send a protocol holds back (e.g. waiting for
		 * credits) is not stalled on the ring: the protocol bounds that wait
		 */
		if (r->done || node->sendq.head != r || !r->s.admitted || r->s.off != r->seen_off ||
		    r->held || (r->s.put && r->s.posted) || lc_tx_progressing(node, &r->seen_left)) {
			r->held = 0;
			r->seen_off = r->s.off;
			r->dead_since = 0;
			return;
		}
		now = lc_now_ns();
		if (!r->dead_since) {
			r->dead_since = now;
		} else if (now - r->dead_since >= node->limit_ns) {
			/* what the NIC was doing, for the error's text (lc_send_failed) */
			lc_nic_tx_describe(node->nic, node->tx_stuck, sizeof(node->tx_stuck));
			lc_reqq_pop(&node->sendq);
			r->err = LC_ERR_TIMEOUT;
			if (r->s.dma && (int32_t)(lc_nic_tx_dma_done(node->nic) - r->s.ticket) < 0)
				lc_reqq_push(&node->inflight, r);
			else
				lc_send_done(node, r, LC_ERR_TIMEOUT);
		}
		return;
	}
	if (r->src != LC_ANY_SOURCE) {
		dead = !lc_nic_peer_alive(node->nic, (uint32_t)r->src);
	} else {
		dead = node->size > 1;
		for (i = 0; i < node->size && dead; i++)
			if (i != node->rank && lc_nic_peer_alive(node->nic, i))
				dead = 0;
	}
	if (!dead) {
		r->dead_since = 0;
		return;
	}
	now = lc_now_ns();
	if (!r->dead_since) {
		r->dead_since = now;
		return;
	}
	if (now - r->dead_since < node->limit_ns)
		return;
	/* give up: take r out of the posted queue or the message it is assembled from */
	if (r->um) {
		r->um->req = NULL;
		for (i = 0; i < node->size; i++)
			if (node->rx[i].cur == r->um)
				node->rx[i].cur = NULL;
		lc_uq_free(node, r->um);
		r->um = NULL;
	} else if (r->m.req == r) {
		for (i = 0; i < node->size; i++)
			if (node->rx[i].cur == &r->m)
				node->rx[i].cur = NULL;
	} else {
		struct lc_req *p, *prev = NULL;

		for (p = node->posted.head; p && p != r; prev = p, p = p->next)
			;
		if (p)
			lc_reqq_unlink(&node->posted, prev, r);
	}
	r->m.src = r->src == LC_ANY_SOURCE ? 0 : (uint32_t)r->src;
	r->m.len = 0;
	lc_req_complete(r, LC_ERR_PEER_DEAD);
}

/*
 * One round of a wait or test on pending req (lock held): a progress step
 * unless req is complete, and every 1024 rounds its liveness and
 * backpressure check (lc_req_check).  The step's work.
 */
static inline int lc_wait_round(lc_node *node, lc_req *req)
{
	int work = 0;

	if (!req->done) {
		work = lc_progress_locked(node);
		if (!req->done && (++req->polls & 1023) == 0)
			lc_req_check(node, req);
	}
	return work;
}

/*
 * lc_test and lc_test_steps: up to steps progress steps while req is not
 * complete (none when it is), the lock left between them as lc_wait_held
 * leaves it between rounds.
 */
static int lc_test_common(lc_node *node, lc_req *req, unsigned steps, int *done,
			  struct lc_status *st, const char *fn)
{
	int rc = lc_check(node, fn);

	if (rc)
		return rc;
	if (!done)
		return lc_fail(LC_ERR_INVAL, "%s: done is NULL", fn);
	*done = 0;
	if (!req)
		return lc_fail(LC_ERR_INVAL, "%s: req is NULL", fn);
	if ((rc = lc_lock_req_pending(node, req, fn)))
		return rc;
	for (;;) {
		lc_wait_round(node, req);
		if (req->done) {
			LC_PATH_BEGIN();
			*done = 1;
			return lc_finish(node, req, st, fn);
		}
		lc_unlock(node);
		if (steps <= 1)
			return 0;
		steps--;
		if ((rc = lc_lock_open(node, fn)))
			return rc;
	}
}

int lc_test(lc_node *node, lc_req *req, int *done, struct lc_status *st)
{
	return lc_test_common(node, req, 1, done, st, "lc_test");
}

int lc_test_steps(lc_node *node, lc_req *req, unsigned steps, int *done, struct lc_status *st)
{
	return lc_test_common(node, req, steps, done, st, "lc_test_steps");
}

/*
 * Wait for req, a pending request of node, with the lock held; returns with
 * it released.  Never inlined: the benchmark's count of the blocking calls
 * leaves out this loop's polling by its name (tools/bench/run.py API_WAIT).
 */
static __attribute__((noinline)) int lc_wait_held(lc_node *node, lc_req *req, struct lc_status *st)
{
	unsigned spins = 0;
	int rc;

	lc_poll_clock_due(node);
#if LC_PROTO_ANY_ACTIVE && LC_PC_USED_poll
	node->waited = req;     /* the step that completes it leaves its poll to the next (lc_progress_rest) */
#endif
	for (;;) {
		/* yield only after a run of idle rounds, never while work flows */
		if (lc_wait_round(node, req))
			spins = 0;
		if (req->done) {
			LC_PATH_BEGIN();
#if LC_PROTO_ANY_ACTIVE && LC_PC_USED_poll
			node->waited = NULL;
#endif
			return lc_finish(node, req, st, "lc_wait");
		}
		lc_unlock(node);
		lc_idle_round(node, &spins);
		if ((rc = lc_lock_open(node, "lc_wait")))
			return rc;
	}
}

int lc_wait(lc_node *node, lc_req *req, struct lc_status *st)
{
	int rc = lc_check(node, "lc_wait");

	if (rc)
		return rc;
	if (!req)
		return lc_fail(LC_ERR_INVAL, "lc_wait: req is NULL");
	if ((rc = lc_lock_req_pending(node, req, "lc_wait")))
		return rc;
	return lc_wait_held(node, req, st);
}

/*
 * The blocking calls: the non-blocking call and its wait under one holding
 * of the lock (the request is our own, pending: no second lc_check,
 * lc_lock_open, lc_req_valid), errors worded as lc_wait's.
 */
int lc_send(lc_node *node, int dst, const void *buf, size_t len)
{
	return lc_send_blocking(node, dst, 0, 0, buf, len, "lc_send");
}

int lc_recv(lc_node *node, int src, void *buf, size_t cap, struct lc_status *st)
{
	lc_req *r;
	int rc = lc_irecv_held(node, src, 0, LC_MATCH_ALL, buf, cap, &r, "lc_recv");

	return rc ? rc : lc_wait_held(node, r, st);
}

int lc_send_match(lc_node *node, int dst, uint64_t match, const void *buf, size_t len)
{
	return lc_send_blocking(node, dst, match, 0, buf, len, "lc_send_match");
}

int lc_ssend(lc_node *node, int dst, uint64_t match, const void *buf, size_t len)
{
	return lc_send_blocking(node, dst, match, LC_FF_SYNC, buf, len, "lc_ssend");
}

int lc_recv_match(lc_node *node, int src, uint64_t match, uint64_t mask, void *buf, size_t cap,
		  struct lc_status *st)
{
	lc_req *r;
	int rc = lc_irecv_held(node, src, match, mask, buf, cap, &r, "lc_recv_match");

	return rc ? rc : lc_wait_held(node, r, st);
}

int lc_progress(lc_node *node)
{
	int rc = lc_check(node, "lc_progress");

	if (rc)
		return rc;
	/* try-lock: whoever holds the lock is driving progress already */
	if (!lc_trylock(node))
		return 0;
	rc = lc_progress_locked(node);
	lc_unlock(node);
	return rc;
}

/* ---- statistics and names ---- */

int lc_stats(const lc_node *node, uint64_t out[LC_STAT_COUNT])
{
	struct lc_node *n = (struct lc_node *)node;
	_Atomic uint64_t *nic;
	int i, rc = lc_check(node, "lc_stats");

	if (rc)
		return rc;
	if (!out)
		return lc_fail(LC_ERR_INVAL, "lc_stats: out is NULL");
	nic = lc_nic_stats(n->nic);
	for (i = 0; i < LC_STAT_COUNT - LC_NIC_STAT_COUNT; i++)
		out[i] = atomic_load_explicit(&n->stats[i], memory_order_relaxed);
	lc_stats_derive(out);
	for (i = 0; i < LC_NIC_STAT_COUNT; i++)
		out[LC_STAT_COUNT - LC_NIC_STAT_COUNT + i] =
			atomic_load_explicit(&nic[i], memory_order_relaxed);
	return 0;
}

void lc_stats_derive(uint64_t *pipe)
{
	pipe[LC_STAT_tx_frames] = pipe[LC_STAT_pio_frames] + pipe[LC_STAT_dma_frames];
	pipe[LC_STAT_host_copy_bytes] += pipe[LC_STAT_tx_bytes] - pipe[LC_STAT_dma_bytes];
}

static const char *const lc_stat_names[] = {
#define LC_X_NAME(name, ...) [LC_STAT_##name] = #name,
	LC_STAT_LIST(LC_X_NAME)
#undef LC_X_NAME
};
_Static_assert(sizeof(lc_stat_names) / sizeof(lc_stat_names[0]) == LC_STAT_COUNT,
	       "one name per counter");
/* the NIC's counters come last, in the NIC's order */
#define LC_X_CHECK(name, ...)                                                   \
	_Static_assert(LC_STAT_##name - (LC_STAT_COUNT - LC_NIC_STAT_COUNT) ==  \
		       (int)LC_NIC_STAT_##name, "NIC counter order");
LC_NIC_STAT_LIST(LC_X_CHECK)
#undef LC_X_CHECK

const char *lc_stat_name(int i)
{
	return i >= 0 && i < LC_STAT_COUNT ? lc_stat_names[i] : NULL;
}

const char *lc_strerror(int err)
{
	switch (err) {
#define LC_X_CASE(name, value, text) case name: return text;
	LC_ERROR_LIST(LC_X_CASE)
#undef LC_X_CASE
	}
	return "unknown error";
}

const char *lc_last_error(const lc_node *node)
{
	(void)node;
	return lc_err_text;
}

const char *lc_config_name(void)
{
	return LC_CONFIG_NAME;
}
