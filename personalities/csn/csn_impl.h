/* SPDX-License-Identifier: MIT */
/* CSN personality internals: transports, descriptors, the match-word layout, the progress engine. */
#ifndef CSN_IMPL_H
#define CSN_IMPL_H

#include <stdint.h>
#include "comm.h"
#include "csn.h"

/* Functions shared between this personality's files, not part of csn.h. */
#define CSN_FUNC __attribute__((visibility("hidden"))) extern

/*
 * The match word of every CSN message (comm.h, "The matching envelope"):
 *     bits  0..31  the destination transport's number (its netid port - 1)
 *     bits 32..63  the source transport's number
 * A receive from any sender compares the low half only (CSN_MATCH_DST);
 * from one sender, the whole word and that sender's node.  The receiver
 * learns the sender's netid from the status: {src node + 1, high half + 1}.
 */
#define CSN_MATCH_DST 0xffffffffull
static inline uint64_t csn_match(uint32_t dst_id, uint32_t src_id)
{
	return (uint64_t)dst_id | (uint64_t)src_id << 32;
}

_Static_assert(CSN_NAME_MAX == LC_NAME_MAX, "csn.h's name limit is the name service's");

/* Outstanding operations per transport (libcomm's request pool bounds them first). */
#define CSN_MAX_PENDING 256
/* Names one transport may hold. */
#define CSN_MAX_NAMES 8

/* One operation: a txdesc or an rxdesc (kind). */
struct csn_desc {
	struct csn_desc *next;  /* done queue or free list */
	lc_req *req;            /* libcomm request while pending */
	csn_status kind;        /* CsnTxReady or CsnRxReady */
	int blocking;           /* csn_tx/csn_rx: never queued, its waiter takes it */
	int done;
	void *buf;
	unsigned int len;
	unsigned int *actual;   /* csn_rxnb's count, written at completion (may be NULL) */
	netid peer;             /* tx: destination; rx: sender once complete */
	csn_status status;      /* CsnOk, CsnOverrun, ... once complete */
};

struct csn_tr {
	/* open while its handle is in csn_live[id] (transport.c) */
	uint32_t id;            /* slot: netid port - 1 */
	unsigned gen;           /* bumped at each open, part of the handle */
	int npend;              /* pend[] and reqs[] in post order */
	struct csn_desc *pend[CSN_MAX_PENDING];
	lc_req *reqs[CSN_MAX_PENDING];
	struct csn_desc *dq_head, *dq_tail;     /* done queue, completion order */
	struct csn_desc *free;
	int nnames;
	char names[CSN_MAX_NAMES][LC_NAME_MAX];
};

/* The process-wide state: the node, shared by every transport. */
CSN_FUNC lc_node *csn_node;
/*
 * Extension, for measurements: CSN_TX=eager in the environment (read when
 * the node opens) makes transmits complete when the buffer may be reused
 * (lc_isend_match), not once received (lc_issend, the seed's semantics).
 */
CSN_FUNC int csn_tx_eager;

/* Record this thread's error text (printf-style) and return s. */
CSN_FUNC csn_status csn_fail(csn_status s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The status for a libcomm error code (0 -> CsnOk). */
CSN_FUNC csn_status csn_from_lc(int rc);
/* The transport of handle t, or NULL (with CsnUnitializedTransport recorded for fn). */
CSN_FUNC struct csn_tr *csn_tr_get(transport t, const char *fn);
/* Is n a netid of this job?  (n.ip in 1..nodes, n.port in 1..CSN_MAX_TRANSPORTS) */
CSN_FUNC int csn_netid_ok(netid n);

/* A fresh descriptor of tr, or NULL (no memory). */
CSN_FUNC struct csn_desc *csn_desc_new(struct csn_tr *tr);
CSN_FUNC void csn_desc_free(struct csn_tr *tr, struct csn_desc *d);
/* Start d (its fields set) as a send (issend) or a receive (match, mask from src node). */
CSN_FUNC csn_status csn_post_tx(struct csn_tr *tr, struct csn_desc *d, const char *fn);
CSN_FUNC csn_status csn_post_rx(struct csn_tr *tr, struct csn_desc *d, int src, uint64_t match,
				uint64_t mask, const char *fn);
/* Wait until the blocking descriptor d completes (others go to the done queue); frees d. */
CSN_FUNC csn_status csn_wait_desc(struct csn_tr *tr, struct csn_desc *d, netid *peer,
				  unsigned int *actual);
/*
 * Drive tr until the done queue holds an operation of a kind in flags or
 * timeout_us passes; 0 polls once.  Returns it unlinked, or NULL (*st the
 * reason: CsnTimeout, CsnFailed).
 */
CSN_FUNC struct csn_desc *csn_take_done(struct csn_tr *tr, csn_flags flags, unsigned timeout_us,
					csn_status *st);
/* Cancel or finish every pending operation and drop the done queue (csn_close). */
CSN_FUNC void csn_tr_drain(struct csn_tr *tr);

#endif /* CSN_IMPL_H */
