/* SPDX-License-Identifier: MIT */
/* VIPL internals: the NIC object, VIs, work queues, CQs, regions, the match-word layout. */
#ifndef VIPL_IMPL_H
#define VIPL_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_coop.h"       /* LC_PC_EXACTLY_ONCE: a composed protocol makes delivery exact */

#include "vipl.h"

#define LCVIPL_FUNC __attribute__((visibility("hidden")))

/*
 * The match word of every VIPL message (comm.h, "The matching envelope"):
 *
 *   63      56 55  52 51  49 48  47        32 31                     0
 *  | 0x56 'V' | kind | 0    | imm| VI number  | immediate data / subtype|
 *
 * kind DATA: a send; the VI number is the receiving VI's, bit 48 says the
 *   low word is immediate data.
 * kind NOTE: the notice of an RDMA write with immediate data
 *   (lc_iput_notify), to the receiving VI, immediate data in the low word.
 *   DATA and NOTE differ only in kind's bit 52, which a receive descriptor's
 *   lc receive masks out: both consume the VI's receive descriptors in
 *   arrival order.
 * kind CTRL: connection management and registration adverts, taken by the
 *   control dispatcher (conn.c) from any source; the low word is the
 *   subtype (LCVIPL_CTRL_LIST), the VI number the addressed VI (0: the NIC).
 */
#define LCVIPL_MAGIC      (UINT64_C(0x56) << 56)
#define LCVIPL_MAGIC_MASK (UINT64_C(0xFF) << 56)
#define LCVIPL_KIND_SHIFT 52
#define LCVIPL_KIND_DATA  (UINT64_C(0x0) << LCVIPL_KIND_SHIFT)
#define LCVIPL_KIND_NOTE  (UINT64_C(0x1) << LCVIPL_KIND_SHIFT)
#define LCVIPL_KIND_CTRL  (UINT64_C(0x2) << LCVIPL_KIND_SHIFT)
#define LCVIPL_KIND_MASK  (UINT64_C(0xF) << LCVIPL_KIND_SHIFT)
#define LCVIPL_IMM_BIT    (UINT64_C(1) << 48)
#define LCVIPL_VI_SHIFT   32
#define LCVIPL_VI_MASK    (UINT64_C(0xFFFF) << LCVIPL_VI_SHIFT)
/* a receive descriptor: DATA or NOTE to VI n */
#define LCVIPL_RX_MATCH(n)   (LCVIPL_MAGIC | ((uint64_t)(n) << LCVIPL_VI_SHIFT))
#define LCVIPL_RX_MASK       (LCVIPL_MAGIC_MASK | (LCVIPL_KIND_MASK & ~LCVIPL_KIND_NOTE) | \
			      LCVIPL_VI_MASK)
/* every control message */
#define LCVIPL_CTRL_MATCH    (LCVIPL_MAGIC | LCVIPL_KIND_CTRL)
#define LCVIPL_CTRL_MASK     (LCVIPL_MAGIC_MASK | LCVIPL_KIND_MASK)

/*
 * Control subtypes.  Columns: name, value, payload, meaning.  Every payload
 * starts with struct lcvipl_ctrl.
 */
#define LCVIPL_CTRL_LIST(X)                                                                  \
	X(REQ,     1, conn,   "client -> server node: connect VI from to the server's discriminator") \
	X(ACCEPT,  2, conn,   "server -> client VI: accepted, the server VI and its attributes") \
	X(REJECT,  3, conn,   "server -> client VI: refused")                                \
	X(CANCEL,  4, conn,   "client -> server node: forget request seq (the client gave up)") \
	X(DISC,    5, conn,   "either -> peer VI: the connection is gone")                   \
	X(PEER,    6, conn,   "peer -> peer node: peer-to-peer request")                     \
	X(ADVERT,  7, advert, "-> every connected node: a region an RDMA write may target")

enum lcvipl_ctrl_type {
#define LCVIPL_X_ENUM(name, value, ...) LCVIPL_CTRL_##name = (value),
	LCVIPL_CTRL_LIST(LCVIPL_X_ENUM)
#undef LCVIPL_X_ENUM
};

/*
 * libcomm requests (host.max_requests of the config) are a pool: descriptors
 * start while this library holds fewer than LCVIPL_REQ_DATA, keeping the
 * rest for control messages; the others wait, in order, and start as
 * requests come back (each progress pass).
 */
#define LCVIPL_REQ_DATA (LC_HOST_MAX_REQUESTS > 2 ? LC_HOST_MAX_REQUESTS - 2 : 1)

/* Limits (the NIC's attributes; LCVIPL_MAX_DISC: the name-service name must fit LC_NAME_MAX). */
#define LCVIPL_MAX_VI     1024u
#define LCVIPL_MAX_CQ     256u
#define LCVIPL_MAX_PTAG   256u
#define LCVIPL_MAX_CONN   256u
#define LCVIPL_MAX_QUEUE  256u          /* descriptors per work queue (a power of two) */
#define LCVIPL_MAX_SEGS   64u
#define LCVIPL_MAX_CQE    65536u
#define LCVIPL_MAX_REGION (LC_NIC_REG_ENTRIES)
#define LCVIPL_MAX_REMOTE 1024u         /* adverts kept of peers' regions */
#define LCVIPL_ADDR_LEN   4u            /* a host address: the node id, 32 bits little-endian */
#define LCVIPL_NAME_PREFIX "vipl:"
#define LCVIPL_MAX_DISC   ((LC_NAME_MAX - 1u - 16u) / 2u)
#define LCVIPL_MAX_XFER   ((VIP_ULONG)LC_MAX_MSG)

/*
 * Reliability.  Reliable delivery is offered only where a composed protocol
 * provides exactly_once (lost or damaged frames are resent or reported);
 * unreliable everywhere.
 */
#define LCVIPL_RELIABLE_OK LC_PC_EXACTLY_ONCE
#define LCVIPL_LEVELS      (VIP_SERVICE_UNRELIABLE | \
			    (LCVIPL_RELIABLE_OK ? VIP_SERVICE_RELIABLE_DELIVERY : 0))

/* Handles: (generation << 16) | (slot + 1), so a stale or foreign handle is refused, never followed. */
#define LCVIPL_HANDLE(slot, gen) ((VIP_PVOID)(uintptr_t)(((uintptr_t)(gen) << 16) | ((slot) + 1u)))

/* A VI's number in match words: its slot and 6 bits of its generation (1 .. 63), never 0. */
#define LCVIPL_VI_NUM(slot, gen) ((uint16_t)((((unsigned)(gen) & 63u) << 10) | (slot)))
#define LCVIPL_VI_SLOT(num)      ((unsigned)(num) & 1023u)

/* ---- Objects ---- */

struct lcvipl_ptag {
	bool live;
	uint16_t gen;
	unsigned users;                 /* VIs and regions */
};

struct lcvipl_region {
	bool live;
	uint8_t *addr;
	size_t len;
	uint32_t handle;                /* VIP_MEM_HANDLE: libcomm's handle, or our counter */
	unsigned ptag;                  /* slot of its tag */
	bool rdma_write;
	bool lc;                        /* registered with lc_mem_register */
};

/* A peer's region an RDMA write may target, from its advert. */
struct lcvipl_remote {
	bool live;
	int node;
	uint32_t handle;
	uint64_t base, len;
	uint32_t ptag;                  /* the peer's tag slot, to compare with the peer VI's */
	bool rdma_write;
};

/*
 * A descriptor's gather or scatter of at most this many bytes stages in the
 * descriptor's entry: 80, so that an entry is 128 bytes and finding one is
 * a shift (the Done calls and the completion find several a turn).
 */
#define LCVIPL_SMALL 80u

/* A posted descriptor. */
struct lcvipl_wqe {
	VIP_DESCRIPTOR *d;
	lc_req *req;                    /* the libcomm request, NULL once complete or when none */
	void *bounce;                   /* gathered send / scattered receive staging, or NULL */
	const void *buf;                /* send: the bytes to send (a segment, or bounce) */
	size_t cap;                     /* receive: bytes of the scatter list; send: bytes to send */
	bool done;                      /* Status written */
	/* the bounce buffer of a small gather or scatter (no malloc): LCVIPL_SMALL bytes */
	uint64_t small[LCVIPL_SMALL / 8];
};
_Static_assert(sizeof(struct lcvipl_wqe) == 128, "a queue entry is 128 bytes (LCVIPL_SMALL)");

/* A work queue: a ring of LCVIPL_MAX_QUEUE descriptors, free-running indices. */
struct lcvipl_wq {
	struct lcvipl_wqe e[LCVIPL_MAX_QUEUE];
	uint32_t head;                  /* oldest not taken back by Done/Wait */
	uint32_t rep;                   /* first not yet reported (CQ) */
	uint32_t armed;                 /* first not started yet (no lc request: none free) */
	uint32_t tail;                  /* next free */
	int cq;                         /* CQ slot, -1: none */
	VIP_VI_CALLBACK notify;         /* VipSendNotify/VipRecvNotify, once */
	VIP_PVOID notify_ctx;
};

struct lcvipl_vi {
	bool live;
	uint16_t gen;
	uint16_t num;                   /* the VI number in match words: LCVIPL_VI_NUM */
	VIP_VI_STATE state;
	VIP_VI_ATTRIBUTES attr;
	unsigned ptag;
	int peer_node;
	uint16_t peer_vi;
	VIP_VI_ATTRIBUTES peer_attr;
	uint32_t peer_ptag;
	uint32_t seq;                   /* connection attempt (client) */
	int answer;                     /* client: 0 waiting, LCVIPL_CTRL_ACCEPT / _REJECT */
	/* peer-to-peer */
	bool peer_pending;
	double peer_deadline_us;
	uint8_t peer_disc[LCVIPL_MAX_DISC], local_disc[LCVIPL_MAX_DISC];
	uint16_t peer_disc_len, local_disc_len;
	struct lcvipl_wq sq, rq;
};

struct lcvipl_cq {
	bool live;
	uint16_t gen;
	uint32_t cap;                   /* a power of two */
	uint32_t head, tail;
	struct lcvipl_cqe {
		uint16_t vi;            /* VI slot */
		uint16_t gen;
		bool recvq;
	} *e;
	unsigned users;                 /* work queues bound to it */
	VIP_CQ_CALLBACK notify;
	VIP_PVOID notify_ctx;
};

/* A connection request held by the server (VipConnectWait) or a peer-to-peer request seen. */
struct lcvipl_conn {
	bool live;
	bool taken;                     /* handed to the program by VipConnectWait */
	bool peer;                      /* a PEER request */
	uint16_t gen;
	int node;
	uint16_t vi;
	uint32_t seq;
	VIP_VI_ATTRIBUTES attr;
	uint32_t ptag;
	uint8_t disc[LCVIPL_MAX_DISC];          /* the server's (or peer's remote) discriminator */
	uint16_t disc_len;
	uint8_t from_disc[LCVIPL_MAX_DISC];     /* the requester's own discriminator */
	uint16_t from_disc_len;
};

/* The wire forms of the control messages (both ends are this build: host byte order). */
struct lcvipl_wire_attr {
	uint16_t reliability;
	uint16_t rdma_write;
	uint32_t ptag;
	uint64_t mtu;
};

struct lcvipl_ctrl {
	uint32_t type;
	uint16_t vi;                    /* the sender's VI number (0: none) */
	uint16_t to_vi;                 /* the addressed VI number (0: the NIC) */
	uint32_t seq;
	uint16_t disc_len, from_disc_len;
	struct lcvipl_wire_attr attr;
	uint8_t disc[LCVIPL_MAX_DISC];
	uint8_t from_disc[LCVIPL_MAX_DISC];
	/* ADVERT */
	uint32_t handle, ptag;
	uint64_t base, len;
	uint32_t rdma_write, pad;
};

/* Errors waiting for delivery to the program's handler (outside the lock). */
#define LCVIPL_ERRQ 64u

struct lcvipl_nic {
	_Atomic bool lock;              /* every call holds it; callbacks run without it (nic.c) */
	lc_node *node;
	int refs;                       /* VipOpenNic calls not yet closed */
	int rank, size;
	bool ns;                        /* VipNSInit done */
	uint8_t addr[LCVIPL_ADDR_LEN];
	uint32_t next_handle;           /* our handles when lc_mem_register is absent */
	uint32_t next_seq;
	VIP_ERROR_HANDLER on_error;
	VIP_PVOID error_ctx;
	VIP_ERROR_DESCRIPTOR errq[LCVIPL_ERRQ];
	unsigned nerr;
	char listen[8][LC_NAME_MAX];    /* names this node registered (VipConnectWait) */
	unsigned nlisten;
	unsigned reqs;                  /* libcomm requests this library holds */
	unsigned vi_end;                /* slots of vis[] in use are below it */
	lc_req *ctrl_req;               /* the standing receive of control messages (conn.c), or NULL */
	struct lcvipl_ctrl ctrl_buf;    /* its buffer */
	bool peers;                     /* a peer-to-peer VI may be waiting: match held PEER requests */
	unsigned polls;                 /* passes of the Done and Wait calls (LCVIPL_CTRL_POLLS) */
	bool arm_due;                   /* VipPostRecv left receives to start (lcvipl_arm_due) */
	pthread_t notifier;             /* the provider thread of the Notify calls */
	bool notifier_on, notifier_stop;
	struct lcvipl_ptag ptags[LCVIPL_MAX_PTAG];
	struct lcvipl_region regions[LCVIPL_MAX_REGION];
	struct lcvipl_remote remotes[LCVIPL_MAX_REMOTE];
	struct lcvipl_cq cqs[LCVIPL_MAX_CQ];
	struct lcvipl_conn conns[LCVIPL_MAX_CONN];
	struct lcvipl_vi *vis[LCVIPL_MAX_VI];
};

extern struct lcvipl_nic lcvipl_nic;

/* ---- Between the files ---- */

/* nic.c: the lock, time, handles */
LCVIPL_FUNC void lcvipl_lock(void);
LCVIPL_FUNC void lcvipl_unlock(void);       /* then delivers queued asynchronous errors */
LCVIPL_FUNC double lcvipl_now_us(void);
LCVIPL_FUNC bool lcvipl_expired(double deadline_us);
LCVIPL_FUNC double lcvipl_deadline(VIP_ULONG timeout_ms);
LCVIPL_FUNC void lcvipl_pause(unsigned *spins); /* unlock, (after a while) yield, lock */
LCVIPL_FUNC bool lcvipl_is_nic(VIP_NIC_HANDLE h);
LCVIPL_FUNC int lcvipl_slot(VIP_PVOID h, unsigned max, uint16_t *gen);
/* The live VI a handle names, or NULL (lcvipl_slot's checks, inline: every VI call makes it). */
static inline struct lcvipl_vi *lcvipl_vi_of(VIP_VI_HANDLE h)
{
	uintptr_t v = (uintptr_t)h, s = v & 0xFFFFu;
	if (lcvipl_nic.refs <= 0 || s == 0 || s > LCVIPL_MAX_VI || (v >> 32) != 0)
		return NULL;
	struct lcvipl_vi *vi = lcvipl_nic.vis[s - 1];
	return vi && vi->live && vi->gen == (uint16_t)(v >> 16) ? vi : NULL;
}
LCVIPL_FUNC struct lcvipl_cq *lcvipl_cq_of(VIP_CQ_HANDLE h);
LCVIPL_FUNC int lcvipl_ptag_of(VIP_PROTECTION_HANDLE h);
LCVIPL_FUNC void lcvipl_async_error(struct lcvipl_vi *vi, VIP_ERROR_CODE code, VIP_RESOURCE_CODE res);
LCVIPL_FUNC void lcvipl_notifier_start(void);

/* post.c: the completion engine */
LCVIPL_FUNC void lcvipl_progress(void);
LCVIPL_FUNC void lcvipl_pass(struct lcvipl_vi *want_vi, struct lcvipl_wq *want_q, const struct lcvipl_cq *want_cq,
			     bool ctrl, unsigned spin);
/*
 * The passes of the Done and Wait calls take control messages (and test
 * every queue) one pass in LCVIPL_CTRL_POLLS, counted over all calls
 * (lcvipl_nic.polls); the others test the waited queue or CQ only, a single
 * request up to LCVIPL_PASS_SPIN steps.
 */
#define LCVIPL_CTRL_POLLS 16u
#define LCVIPL_PASS_SPIN  16u
#define LCVIPL_WAIT_PASS(vi, q, cq) \
	lcvipl_pass((vi), (q), (cq), lcvipl_nic.polls++ % LCVIPL_CTRL_POLLS == 0, LCVIPL_PASS_SPIN)
LCVIPL_FUNC int lcvipl_poll_head(struct lcvipl_vi *vi, struct lcvipl_wq *q, unsigned spin);
/*
 * The poll of a Done or Wait call on queue q of vi: the queue's oldest
 * descriptor tested alone (lcvipl_poll_head), a pass when that cannot be
 * or control messages are due.
 */
static inline void lcvipl_poll_queue(struct lcvipl_vi *vi, struct lcvipl_wq *q, unsigned spin)
{
	bool ctrl = lcvipl_nic.polls++ % LCVIPL_CTRL_POLLS == 0;
	if (ctrl || lcvipl_poll_head(vi, q, spin) < 0)
		lcvipl_pass(vi, q, NULL, ctrl, spin);
}
/* ... and look at the clock every LCVIPL_CLOCK_POLLS (a timeout is counted in ms). */
#define LCVIPL_CLOCK_POLLS 32u
/*
 * A wait counts its idle progress steps (LCVIPL_PASS_SPIN a pass) and
 * lc_idle yields the CPU past libcomm's spin limit, which adapts; past
 * LCVIPL_SPINS steps, the least limit, a wait may be yielding at every pass.
 */
#define LCVIPL_SPINS       64u
/* a wait looks at the clock now: every LCVIPL_CLOCK_POLLS passes, and at every pass once it yields */
#define LCVIPL_CLOCK_DUE(polls, spins) ((polls) % LCVIPL_CLOCK_POLLS == 0 || (spins) > LCVIPL_SPINS)
LCVIPL_FUNC void lcvipl_arm_recvs(struct lcvipl_vi *vi);
LCVIPL_FUNC void lcvipl_arm_due_all(void);
/* Before any libcomm progress step: start the receives VipPostRecv left (post.c). */
#define lcvipl_arm_due() do { if (lcvipl_nic.arm_due) lcvipl_arm_due_all(); } while (0)
LCVIPL_FUNC void lcvipl_start_sends(struct lcvipl_vi *vi);
LCVIPL_FUNC void lcvipl_flush(struct lcvipl_vi *vi);
LCVIPL_FUNC void lcvipl_report_q(struct lcvipl_vi *vi, struct lcvipl_wq *q);
/* Something of queue q completed that is not reported yet. */
static inline bool lcvipl_report_due(const struct lcvipl_wq *q)
{
	return q->rep != q->tail && q->e[q->rep & (LCVIPL_MAX_QUEUE - 1)].done;
}
/*
 * Queue q's (of vi) completed descriptors, in order, to its CQ, when due; a
 * queue without a CQ only counts them reported (inline: the send's path).
 * Every place that completes a descriptor reports its queue after.
 */
static inline void lcvipl_report_wq(struct lcvipl_vi *vi, struct lcvipl_wq *q)
{
	if (!lcvipl_report_due(q))
		return;
	if (q->cq >= 0)
		lcvipl_report_q(vi, q);
	else
		do
			q->rep++;
		while (lcvipl_report_due(q));
}
/* The VI's queues' completed descriptors, in order, to their CQs (each queue only when due). */
static inline void lcvipl_report(struct lcvipl_vi *vi)
{
	lcvipl_report_wq(vi, &vi->sq);
	lcvipl_report_wq(vi, &vi->rq);
}
/* Take the oldest descriptor of q (of vi) if it completed (inline: the Done call's path). */
static inline VIP_RETURN lcvipl_take(struct lcvipl_vi *vi, struct lcvipl_wq *q, VIP_DESCRIPTOR **out)
{
	if (q->head == q->tail || !q->e[q->head & (LCVIPL_MAX_QUEUE - 1)].done) {
		*out = NULL;
		return VIP_NOT_DONE;
	}
	lcvipl_report_wq(vi, q);        /* it reaches the CQ before the program has it */
	struct lcvipl_wqe *e = &q->e[q->head++ & (LCVIPL_MAX_QUEUE - 1)];
	if ((int32_t)(q->armed - q->head) < 0)
		q->armed = q->head;
	*out = e->d;
	return e->d->CS.Status & VIP_STATUS_ERROR_MASK ? VIP_DESCRIPTOR_ERROR : VIP_SUCCESS;
}

/* conn.c: control messages */
LCVIPL_FUNC void lcvipl_dispatch(void);
LCVIPL_FUNC void lcvipl_ctrl_post(void);
LCVIPL_FUNC void lcvipl_ctrl_taken(const struct lc_status *st, int rc);
LCVIPL_FUNC void lcvipl_peers(void);
LCVIPL_FUNC int lcvipl_ctrl_send(int node, uint16_t to_vi, const struct lcvipl_ctrl *c);
LCVIPL_FUNC void lcvipl_wire_attr(struct lcvipl_wire_attr *w, const VIP_VI_ATTRIBUTES *a, unsigned ptag);
LCVIPL_FUNC void lcvipl_unwire_attr(VIP_VI_ATTRIBUTES *a, const struct lcvipl_wire_attr *w);
LCVIPL_FUNC void lcvipl_connected(struct lcvipl_vi *vi, int node, uint16_t peer_vi,
				  const struct lcvipl_wire_attr *w);

/* mem.c: regions */
LCVIPL_FUNC struct lcvipl_region *lcvipl_region_find(uint32_t handle);
/* The slot of the region last found for a handle, per handle % LCVIPL_REGION_HINTS (mem.c). */
#define LCVIPL_REGION_HINTS 8u
extern unsigned lcvipl_region_hint[LCVIPL_REGION_HINTS];
/* The live region of a handle, or NULL: the remembered slot, checked, else a search. */
static inline struct lcvipl_region *lcvipl_region_of(uint32_t handle)
{
	struct lcvipl_region *g = &lcvipl_nic.regions[lcvipl_region_hint[handle % LCVIPL_REGION_HINTS]];
	return g->live && g->handle == handle ? g : lcvipl_region_find(handle);
}
/* r (may be NULL) holds p .. p + len - 1. */
static inline bool lcvipl_region_covers(const struct lcvipl_region *r, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b;
	if (r == NULL)
		return false;
	b = (uintptr_t)r->addr;
	return a >= b && a - b <= r->len && len <= r->len - (a - b);
}
LCVIPL_FUNC void lcvipl_advertise_all(int node);

/* rdma.c: RDMA write */
LCVIPL_FUNC bool lcvipl_rdma_available(void);
LCVIPL_FUNC int lcvipl_post_rdma(struct lcvipl_vi *vi, struct lcvipl_wqe *e, const void *buf, size_t len);
LCVIPL_FUNC void lcvipl_remote_learn(int node, const struct lcvipl_ctrl *c);
LCVIPL_FUNC int lcvipl_mem_register(void *addr, size_t len, bool rdma_write, uint32_t *handle, bool *lc);
LCVIPL_FUNC int lcvipl_mem_deregister(uint32_t handle);

/* Status text of a VIP_RETURN. */
LCVIPL_FUNC const char *lcvipl_return_text(VIP_RETURN r);

#endif /* VIPL_IMPL_H */
