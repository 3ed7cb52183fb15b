/* SPDX-License-Identifier: MIT */
/* csn_open, csn_close: the process's transports on its one libcomm node; errors and status texts. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csn_impl.h"

/*
 * A handle is (gen << 8) | (slot + 1): never NULL, and a handle kept after
 * its transport closed (the slot reopened: another gen) is refused.
 */
#define CSN_SLOT_BITS 8
_Static_assert(CSN_MAX_TRANSPORTS < (1 << CSN_SLOT_BITS), "slot + 1 must fit the handle's low bits");

lc_node *csn_node;                      /* open while csn_refs > 0 */
int csn_tx_eager;
static int csn_refs;
static int csn_size;                    /* the job's nodes while csn_node is open, else 0 */
static struct csn_tr csn_trs[CSN_MAX_TRANSPORTS];
/*
 * The handle of each slot's open transport, 0 when the slot is free: csn_tr_get's
 * check is one acquire load (release by csn_open after the slot is set up,
 * R/A as the lock gave it), not a lock and unlock -- every Tx and Rx checks
 * its handle, and the pair was 2 x 60 Ir of an 8 B ping-pong's turn.  Apart
 * from the slots, which csn_open clears whole under the lock.
 */
static _Atomic uintptr_t csn_live[CSN_MAX_TRANSPORTS];
static pthread_mutex_t csn_lock = PTHREAD_MUTEX_INITIALIZER;    /* the table, csn_node, csn_refs */
static _Thread_local char csn_err[256];

static const char *const csn_status_text[] = {
#define CSN_X_TEXT(name, text, ...) [name] = #name ": " text,
	CSN_STATUS_LIST(CSN_X_TEXT)
#undef CSN_X_TEXT
};
_Static_assert(sizeof csn_status_text / sizeof csn_status_text[0] == CsnStatusCount,
	       "one text per status");

const char *csn_strstatus(csn_status s)
{
	if ((unsigned)s >= CsnStatusCount)
		return "unknown csn_status";
	return csn_status_text[s];
}

const char *csn_last_error(void)
{
	return csn_err;
}

csn_status csn_fail(csn_status s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(csn_err, sizeof csn_err, fmt, ap);
	va_end(ap);
	return s;
}

csn_status csn_from_lc(int rc)
{
	switch (rc) {
	case 0: return CsnOk;
	case LC_ERR_TRUNC: return CsnOverrun;
	case LC_ERR_RANGE:
	case LC_ERR_PEER_DEAD: return CsnIllegalNetId;
	case LC_ERR_AGAIN:
	case LC_ERR_NOMEM: return CsnNoHeap;
	case LC_ERR_TIMEOUT: return CsnTimeout;
	case LC_ERR_BUSY: return CsnNetIdAlreadyRegistered;
	case LC_ERR_INVAL: return CsnBadArgument;
	case LC_ERR_CLOSED: return CsnUnitializedTransport;
	default: return CsnFailed;
	}
}

struct csn_tr *csn_tr_get(transport t, const char *fn)
{
	uintptr_t h = (uintptr_t)t, slot = (h & ((1u << CSN_SLOT_BITS) - 1)) - 1;
	struct csn_tr *tr = NULL;
	/* acquire: pairs with csn_open's release of the handle (the slot's fields before it) */
	if (h != 0 && slot < CSN_MAX_TRANSPORTS &&
	    atomic_load_explicit(&csn_live[slot], memory_order_acquire) == h)
		tr = &csn_trs[slot];
	if (!tr)
		csn_fail(CsnUnitializedTransport, "%s: %p is not an open transport", fn, t);
	return tr;
}

int csn_netid_ok(netid n)
{
	/* the size kept at open: lc_size's checks were 25 Ir of every Tx and Rx */
	return n.ip >= 1 && n.ip <= (unsigned)csn_size && n.port >= 1 && n.port <= CSN_MAX_TRANSPORTS;
}

csn_status csn_open(transport *t)
{
	if (!t)
		return csn_fail(CsnBadArgument, "csn_open: t is NULL");
	pthread_mutex_lock(&csn_lock);
	int slot = 0;
	while (slot < CSN_MAX_TRANSPORTS && atomic_load_explicit(&csn_live[slot], memory_order_relaxed))
		slot++;
	if (slot == CSN_MAX_TRANSPORTS) {
		pthread_mutex_unlock(&csn_lock);
		return csn_fail(CsnNoHeap, "csn_open: %d transports open already", CSN_MAX_TRANSPORTS);
	}
	if (csn_refs == 0) {
		const char *tx = getenv("CSN_TX");
		csn_tx_eager = tx && strcmp(tx, "eager") == 0;
		int rc = lc_open(&csn_node);
		if (rc != 0) {
			pthread_mutex_unlock(&csn_lock);
			return csn_fail(CsnFailed, "csn_open: %s", lc_last_error(NULL));
		}
		csn_size = lc_size(csn_node);
	}
	csn_refs++;
	struct csn_tr *tr = &csn_trs[slot];
	unsigned gen = tr->gen + 1;
	struct csn_desc *keep = tr->free;       /* descriptors of an earlier life of the slot */
	memset(tr, 0, sizeof *tr);
	tr->id = (uint32_t)slot;
	tr->gen = gen & ((~0u) >> CSN_SLOT_BITS);
	tr->free = keep;
	*t = (transport)(((uintptr_t)tr->gen << CSN_SLOT_BITS) | (uintptr_t)(slot + 1));
	/* release: the slot set up above before its handle is valid (csn_tr_get's acquire) */
	atomic_store_explicit(&csn_live[slot], (uintptr_t)*t, memory_order_release);
	pthread_mutex_unlock(&csn_lock);
	return CsnOk;
}

csn_status csn_close(transport *t)
{
	struct csn_tr *tr;
	if (!t)
		return csn_fail(CsnBadArgument, "csn_close: t is NULL");
	if (!(tr = csn_tr_get(*t, "csn_close")))
		return CsnUnitializedTransport;
	csn_tr_drain(tr);
	for (int i = 0; i < tr->nnames; i++)
		lc_name_unregister(csn_node, tr->names[i]);
	pthread_mutex_lock(&csn_lock);
	atomic_store_explicit(&csn_live[tr->id], 0, memory_order_relaxed);
	tr->nnames = 0;
	*t = NULL;
	csn_status s = CsnOk;
	if (--csn_refs == 0) {
		int rc = lc_close(csn_node);
		csn_node = NULL;
		csn_size = 0;
		if (rc != 0)
			s = csn_fail(CsnFailed, "csn_close: %s", lc_last_error(NULL));
	}
	pthread_mutex_unlock(&csn_lock);
	return s;
}
