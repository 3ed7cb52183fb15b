/* SPDX-License-Identifier: MIT */
/* Per-node state of the rendezvous protocol (a member of struct lc_proto_state). */
#ifndef LC_RENDEZVOUS_STATE_H
#define LC_RENDEZVOUS_STATE_H

#include <stdint.h>

#include "lc_config.h"
#include "nic.h"

struct lc_sreq;
struct lc_rmsg;

/* A transfer this node sends: announced, then its RDMA frames, then its finish frame. */
enum lc_rndv_send_state {
	LC_RNDV_S_FREE = 0,
	LC_RNDV_S_WAIT_CTS,     /* announced; the receiver has no receive for it yet */
	LC_RNDV_S_SENDING,      /* clear to send: RDMA frames go out from off */
	LC_RNDV_S_FIN,          /* every frame posted; the finish frame waits for room */
	LC_RNDV_S_DRAIN,        /* finish posted; the last Tx DMA block still reads the buffer */
};

struct lc_rndv_send {
	struct lc_sreq *s;
	uint32_t dst, seq;
	uint32_t rkey;          /* the receiver's handle of its buffer's region */
	uint32_t base;          /* the buffer's offset in that region */
	uint32_t bytes;         /* what the receiver takes: min(message, its buffer) */
	uint32_t off;           /* bytes posted so far */
	uint32_t ticket;        /* Tx DMA ticket of the last RDMA frame */
	uint32_t nacks;         /* the receiver's REFUSED nacks of our RDMA frames at clear-to-send */
	int16_t next;           /* the next transfer cleared to send after this one (-1: none) */
	uint8_t state;
};

/* A transfer this node receives: matched, registered, clear-to-send told, RDMA frames counted. */
enum lc_rndv_recv_state {
	LC_RNDV_R_FREE = 0,
	LC_RNDV_R_CTS,          /* matched and registered: the clear-to-send frame waits for room */
	LC_RNDV_R_RECVING,      /* clear-to-send sent: RDMA frames land until the finish frame */
	LC_RNDV_R_QUIET,        /* over and re-keyed: blocks checked under the old handle still land */
};

struct lc_rndv_recv {
	struct lc_rmsg *m;
	uint32_t src, seq;      /* seq: the message's as its sender numbered it (lc_rmsg.sent_seq) */
	uint32_t handle;        /* this transfer's own handle (a fresh generation) */
	uint32_t base;          /* the buffer's offset in the handle's region */
	uint32_t bytes;         /* min(message, buffer) */
	uint32_t got;           /* RDMA payload bytes accepted */
	uint32_t fence;         /* QUIET: the chain-0 index of the re-key (lc_proto_reg_quiet) */
	int err;                /* QUIET: how the receive completes */
	uint16_t reg;           /* its registration cache entry */
	int16_t next;           /* R_CTS: the next transfer whose clear-to-send waits (-1: none) */
	uint8_t state;
};

/* A receive buffer kept registered with the NIC. */
struct lc_rndv_reg {
	uint64_t addr, len;
	uint64_t used;          /* LRU clock of its last transfer */
	uint32_t handle;
	uint8_t valid, busy;
};

struct lc_rendezvous_state {
	uint32_t nsend, nrecv;              /* transfers in progress */
	uint32_t nquiet;                    /* of the receives, those over and waiting for quiet (R_QUIET) */
	uint64_t clock;
	struct lc_rndv_send send[LC_RENDEZVOUS_MAX_ACTIVE];
	struct lc_rndv_recv recv[LC_RENDEZVOUS_MAX_ACTIVE];
	/*
	 * In the order they must go (hooks.h, "ORDER"): the sends cleared to send
	 * (SENDING, FIN, DRAIN) in the order their clear-to-send came, and the
	 * receives whose clear-to-send waits for room (R_CTS) in match order;
	 * indices into send[] and recv[], linked through next, -1: empty
	 */
	struct lc_rndv_fifo {
		int16_t head, tail;
	} sendq, ctsq;
	/* matched messages waiting for a free transfer or registration, linked through ->next */
	struct lc_rmsg *pend_head, *pend_tail;
	struct lc_rndv_reg reg[LC_RENDEZVOUS_REG_CACHE];
	uint64_t gone_ns[LC_MAX_NODES];     /* when a peer was first seen gone, 0 while alive */
	uint64_t live_ns;                   /* poll's clock when it last read the peers' liveness */
};

#endif /* LC_RENDEZVOUS_STATE_H */
