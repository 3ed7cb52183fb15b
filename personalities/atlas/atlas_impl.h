/* SPDX-License-Identifier: MIT */
/* ATLAS personality internals: the factory, nodes with their send queues, buffers, groups. */
#ifndef ATLAS_IMPL_H
#define ATLAS_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "atlas.h"
#include "comm.h"

#define ATLAS_FUNC __attribute__((visibility("hidden")))

/* Argument checks (STYLE 14): 1 always; the guarded blocks keep them apart from the call. */
#define ATLAS_PARAM_CHECK 1

/*
 * Match word: every ATLAS message carries ATLAS_MATCH ("ATLS" in the high
 * 32 bits, 0 below) and every ATLAS receive asks for it under ATLAS_MASK,
 * so a program may use libcomm directly beside this layer without the two
 * taking each other's messages.  Per-source order is libcomm's.
 */
#define ATLAS_MATCH ((uint64_t)0x41544c53u << 32)
#define ATLAS_MASK (~(uint64_t)0)

#define ATLAS_OUTST_MAX 15      /* the seed's bound on max_outst_buffers */

/* Where a buffer is: the caller's, in a send queue, or in a libcomm transfer. */
enum atlas_buf_state { ATLAS_BUF_USER, ATLAS_BUF_QUEUED, ATLAS_BUF_SENDING };

struct atlas_buffer {
	atlas_factory *f;       /* its factory (a pool buffer goes back to its pool) */
	unsigned char *data;
	size_t size;            /* bytes in use */
	size_t cap;             /* bytes allocated */
	enum atlas_buf_state state;
	int pooled;             /* data belongs to the send pool (cap = send_buffer_size) */
	int cached;             /* data follows the struct in one block (cap = ATLAS_CACHE_BYTES):
				 * released, it goes to the factory's cache of free buffers */
	atlas_buffer *next;     /* send queue link / pool free list */
};

struct atlas_node {
	atlas_factory *f;
	int id;
	/*
	 * The send queue and the outstanding transfers, under lock (any
	 * sending thread, and the receiving thread's flush, which only tries
	 * it).  Each libcomm request is tested only under lock, so one thread
	 * at a time tests it (comm.h: a request is tested from one thread).
	 */
	pthread_mutex_t lock;
	atlas_buffer *qhead, *qtail;
	unsigned queued;
	unsigned outst;
	lc_req *req[ATLAS_OUTST_MAX];   /* [0 .. outst-1], oldest first */
	atlas_buffer *rbuf[ATLAS_OUTST_MAX];
	int err;                /* an asynchronous transfer error to report once, or 0 */
	_Atomic unsigned queued_now;    /* queued, readable without lock */
	_Atomic unsigned outst_now;     /* outst, readable without lock */
};

struct atlas_group {
	atlas_factory *f;
	int is_static;
	pthread_mutex_t lock;   /* members (add/remove from any thread, receive from one) */
	atlas_node **m;
	int n, cap;
	int start;              /* the member the next receive tries first */
	atlas_group *next;      /* the factory's list */
};

struct atlas_factory {
	lc_node *lc;
	int self, size;
	atlas_params p;
	int refs;               /* under atlas_lock (factory.c) */
	pthread_mutex_t lock;   /* nodes[] creation, groups list, pool */
	atlas_node *_Atomic *nodes;     /* [size], created on demand */
	atlas_group *groups;
	/* the send pool (use_send_pool) */
	unsigned char *pool_mem;
	atlas_buffer *pool_free;
	atlas_buffer *pool_bufs;
	atlas_buffer *cache;    /* released small heap buffers for reuse, under lock (buffer.c) */
	unsigned cached;        /* how many */
	/*
	 * The receiving thread: recv_claimed 0 until the first receive stores
	 * receiver and then 1 (release; the acquire in atlas_recv_check pairs).
	 */
	_Atomic int recv_claimed;
	pthread_t receiver;
};

/* errors.c: record err with its detail for atlas_last_error(); returns err. */
ATLAS_FUNC int atlas_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* errors.c: the fast path's failure (back-pressure): err with a static text, nothing formatted. */
ATLAS_FUNC int atlas_fail_fast(int err, const char *text);
/* errors.c: a libcomm error of call `what` as an atlas_err (detail: lc_last_error). */
ATLAS_FUNC int atlas_fail_lc(atlas_factory *f, int lrc, const char *what);
/* params.c: p with the environment applied; 0 or ATLAS_ERR_PARAM naming the variable. */
ATLAS_FUNC int atlas_params_env(atlas_params *p);
ATLAS_FUNC int atlas_params_check(const atlas_params *p);
/* buffer.c: free a buffer whatever its state (the layer's own release). */
ATLAS_FUNC void atlas_buffer_free(atlas_factory *f, atlas_buffer *b);
/* buffer.c: a heap buffer of size bytes, or NULL. */
ATLAS_FUNC atlas_buffer *atlas_buffer_heap(atlas_factory *f, size_t size);
ATLAS_FUNC int atlas_pool_init(atlas_factory *f);
ATLAS_FUNC void atlas_pool_fini(atlas_factory *f);
/* send.c: flush one node's queue (lock held); flush every node (trylock); drain all (blocking). */
ATLAS_FUNC int atlas_flush_locked(atlas_node *n);
ATLAS_FUNC int atlas_flush_all(atlas_factory *f, int wait_lock);
ATLAS_FUNC int atlas_drain_all(atlas_factory *f);
ATLAS_FUNC void atlas_node_free(atlas_node *n);
/* recv.c: is the calling thread the receiver (claims it on first use)?  0 or ATLAS_ERR_THREAD. */
ATLAS_FUNC int atlas_recv_check(atlas_factory *f, const char *fn);
/* recv.c: one non-blocking receive from n (the receiver's checks done): 1, 0 or negative. */
ATLAS_FUNC int atlas_recv_one(atlas_node *n, atlas_buffer **out);
/* recv.c: the waiting loop's pause after idle rounds. */
/* group.c */
ATLAS_FUNC void atlas_group_free(atlas_group *g);

#endif /* ATLAS_IMPL_H */
