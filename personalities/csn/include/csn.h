/* SPDX-License-Identifier: MIT */
/* Meiko CSN (seed 001) over libcomm: transports, names, blocking and non-blocking Tx/Rx, Test. */
#ifndef CSN_H
#define CSN_H

/*
 * Source-compatible with the C header of the free CSN re-implementation
 * (libcsn): the same type names, status names and values, the same call
 * names and argument lists -- except csn_test, whose outputs are pointers
 * here (below).  A program written for that header builds unmodified with
 * bin/csncc.  README.md (personalities/csn) says what differs and why.
 */
#include <limits.h>
#include <stdio.h>      /* debugf */

#ifdef __cplusplus
extern "C" {
#endif

/* A transport: an endpoint of this process, made by csn_open.  NULL is never a valid one. */
typedef void *transport;

/*
 * A transport's network address.  ip = libcomm node + 1, port = the
 * transport's number in its process + 1, so that csn_nullnetid {0, 0} is no
 * endpoint; in receives it means "from any transport".
 */
typedef struct netid_t {
	unsigned int ip;
	unsigned int port;
} netid;

/*
 * Status codes, one list (columns: name, meaning).  The first ten are
 * libcsn's, in its order and with its values; the last two are this
 * library's extensions (appended, so no value moves).
 */
#define CSN_STATUS_LIST(X)                                                                  \
	X(CsnTxReady,                "csn_test: a transmit completed")                    \
	X(CsnRxReady,                "csn_test: a receive completed")                     \
	X(CsnTimeout,                "nothing completed (or was registered) in time")     \
	X(CsnOk,                     "success")                                           \
	X(CsnNoHeap,                 "out of descriptors or memory")                      \
	X(CsnIllegalNetId,           "no such endpoint (bad netid, unknown or dead peer)") \
	X(CsnUnitializedTransport,   "not an open transport")                             \
	X(CsnNetIdAlreadyRegistered, "the name is registered by a live process")          \
	X(CsnOverrun,                "the message was larger than the buffer: truncated") \
	X(CsnBusy,                   "the operation cannot be done now")                  \
	X(CsnBadArgument,            "extension: a bad argument (NULL pointer, bad flags, bad name)") \
	X(CsnFailed,                 "extension: the communication layer failed (csn_last_error)")

typedef enum {
#define CSN_X_ENUM(name, ...) name,
	CSN_STATUS_LIST(CSN_X_ENUM)
#undef CSN_X_ENUM
	CsnStatusCount
} csn_status;

/*
 * csn_test's flags: a bit set of the completion kinds it may report,
 * CSN_FLAG(CsnTxReady) | CSN_FLAG(CsnRxReady) (the seed's Modula-2 set
 * {CsnRxReady, CsnTxReady}).  0 means either.  Other bits: CsnBadArgument.
 */
typedef unsigned int csn_flags;
#define CSN_FLAG(x) (1u << (x))
#define CsnTxReadyFlag CSN_FLAG(CsnTxReady)
#define CsnRxReadyFlag CSN_FLAG(CsnRxReady)
#define CsnAnyFlag (CsnTxReadyFlag | CsnRxReadyFlag)

/* csn_test's and csn_lookupname_timeout's timeout (microseconds): wait for ever; 0 polls. */
#define CSN_WAIT_FOREVER UINT_MAX
#define CsnInfinite CSN_WAIT_FOREVER

#define debugf(X) printf("%s:%d in function %s %s\n", __FILE__, __LINE__, __FUNCTION__, X)
#define csn_nullnetid ((netid){ 0, 0 })

/* Longest name + 1 (the job's name service, LC_NAME_MAX). */
#define CSN_NAME_MAX 64
/* Transports of one process open at once. */
#define CSN_MAX_TRANSPORTS 64

/*
 * Threads.  csn_open, csn_close and the name calls may be called from any
 * thread.  A transport is used by one thread at a time (its descriptors and
 * done queue are not locked); distinct transports may be used by distinct
 * threads at once (the libcomm node is thread-safe).  csn_last_error is per
 * thread.
 */

/*
 * Open a transport.  The first one of the process opens its libcomm node
 * (the process must run under commrun); the node closes with the last.
 * CsnOk and *t, or CsnBadArgument (t NULL), CsnNoHeap (CSN_MAX_TRANSPORTS
 * open, or no memory), CsnFailed (lc_open failed: csn_last_error says why).
 */
csn_status csn_open(transport *t);
/*
 * Close *t and set it to NULL.  Its names are unregistered; pending receives
 * are cancelled (a receive that a message matched already completes first);
 * pending transmits are waited for (until received, or the receiver is
 * gone); completed operations not yet reported by csn_test are dropped.
 * CsnOk, CsnBadArgument (t NULL), CsnUnitializedTransport.
 */
csn_status csn_close(transport *t);

/*
 * Register name (1..CSN_NAME_MAX-1 printable characters, no space) for transport t in
 * the job's name service.  A transport may hold several names.  CsnOk,
 * CsnNetIdAlreadyRegistered (a live process holds it), CsnNoHeap (the
 * job's table is full), CsnBadArgument, CsnUnitializedTransport.
 */
csn_status csn_registername(transport t, char *name);
/*
 * Look name up: *n is the transport that registered it.  Waits until the
 * name is registered.  Needs an open transport in this process
 * (CsnUnitializedTransport otherwise).  CsnIllegalNetId when it can never
 * come: every other process of the job has ended without registering it.
 */
csn_status csn_lookupname(netid *n, char *name);
/* Extension: the same, waiting at most timeout_us (0: look once; CSN_WAIT_FOREVER): CsnTimeout. */
csn_status csn_lookupname_timeout(netid *n, char *name, unsigned int timeout_us);
/* libcsn's name-server set-up calls: no-ops returning CsnOk (the job's launcher provides the service). */
csn_status csn_nameserver(void);
csn_status csn_resolvconf(char *file);

/*
 * Blocking transmit of l bytes at a to n.  Returns once the data has been
 * received by the other process (matched by a receive of transport n:
 * libcomm's synchronous send), so a at once reusable.  (Extension, for
 * measurements: CSN_TX=eager in the environment when the first transport
 * opens makes transmits complete once a may be reused instead, received or
 * not.)  CsnOk,
 * CsnIllegalNetId (n out of the job, or its node died before receiving),
 * CsnUnitializedTransport, CsnBadArgument (a NULL with l > 0), CsnNoHeap,
 * CsnFailed.  A transmit to a transport that never receives waits for ever.
 */
csn_status csn_tx(transport t, netid n, void *a, unsigned int l);
/*
 * Blocking receive into a (l bytes) on t.  *n names the sender to receive
 * from, or is csn_nullnetid for any; on return *n is the sender and
 * *actualReceived the bytes stored (at most l).  CsnOk, CsnOverrun (the
 * message was larger: the first l bytes stored), CsnIllegalNetId (*n not a
 * netid of the job, or that sender's node died), CsnUnitializedTransport,
 * CsnBadArgument, CsnNoHeap, CsnFailed.
 */
csn_status csn_rx(transport t, netid *n, void *a, unsigned int l, unsigned int *actualReceived);
/*
 * Start a transmit (as csn_tx) and return at once; a belongs to the library
 * until csn_test reports it (CsnTxReady, *a = a, *n = n, *s its status).
 */
csn_status csn_txnb(transport t, netid n, void *a, unsigned int l);
/*
 * Post a receive from any sender into a (l bytes); csn_test reports it
 * (CsnRxReady, *n the sender, *a = a, *s CsnOk or CsnOverrun).
 * *actualReceived (may be NULL) is written when the receive completes, by the
 * csn call that finds it complete: it holds the count by the time csn_test
 * reports the receive.  Posted receives take arriving messages in post order.
 */
csn_status csn_rxnb(transport t, void *a, unsigned int l, unsigned int *actualReceived);
/*
 * Report the oldest completed non-blocking operation of t whose kind is in
 * flags (0: either), waiting at most timeout microseconds (0 polls,
 * CSN_WAIT_FOREVER waits for ever).  Returns CsnTxReady or CsnRxReady and
 * fills *n (peer), *a (the operation's buffer), *s (CsnOk, CsnOverrun,
 * CsnIllegalNetId: peer gone, CsnFailed); n, a and s may be NULL.  Returns
 * CsnTimeout when none came in time -- at once, whatever the timeout, when
 * no operation of those kinds is outstanding (none could come); completed
 * operations of other kinds stay queued for a later test.  Blocking csn_tx/csn_rx never take
 * completions of non-blocking operations.
 * Differs from libcsn, whose csn_test takes n, a and s by value (so the
 * caller never sees them): here they are pointers, as in the seed's
 * Modula-2 definition (VAR parameters).
 */
csn_status csn_test(transport t, csn_flags flags, unsigned int timeout, netid *n, void **a,
		    csn_status *s);

/*
 * Extensions.  csn_last_error: text of this thread's last failure with
 * detail ("csn_tx: netid {9,1}: node 8 out of range 0..2"), "" when none;
 * never NULL.  csn_strstatus: static text of a status.
 */
const char *csn_last_error(void);
const char *csn_strstatus(csn_status s);

/* libcsn's header spells the non-blocking calls without the prefix too. */
static inline csn_status txnb(transport t, netid n, void *a, unsigned int l)
{
	return csn_txnb(t, n, a, l);
}

static inline csn_status rxnb(transport t, void *a, unsigned int l, unsigned int *actualReceived)
{
	return csn_rxnb(t, a, l, actualReceived);
}

#ifdef __cplusplus
}
#endif
#endif /* CSN_H */
