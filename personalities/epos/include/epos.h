/* SPDX-License-Identifier: MIT */
/* EPOS communication families: the inflated interfaces of Communicator and Channel (seed 004, section 3). */
#ifndef EPOS_H
#define EPOS_H

#include <stddef.h>
#include <stdint.h>

#include "epos_network.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Three families, each behind one interface that is the same whatever member
 * the configuration selected (the family's "inflated interface"):
 *
 *  Communicator (epos.communicator) -- the end-point an application holds:
 *    link     bound to one peer end-point; sends to and receives from it only;
 *    port     many senders, one receiving thread;
 *    mailbox  many senders, many receiving threads, each message taken once.
 *  Channel (epos.channel) -- the protocol every send and receive goes through:
 *    datagram one message per send, boundaries kept;
 *    stream   a flow-controlled byte stream per (sender, receiver) pair:
 *             in order, boundaries dissolved (a receive returns up to cap
 *             bytes of what is buffered from one sender).
 *  Network (epos.network) -- the technology: epos_network.h.
 *
 * The member is chosen at compile time; the members not chosen are not in
 * the library at all.  End-points are addressed by name (the job's name
 * service, comm.h): epos_comm_open registers the end-point's name.
 */

/* Error codes.  Columns: name, value, text. */
#define EPOS_ERROR_LIST(X)                                                                   \
	X(EPOS_OK,            0, "success")                                                  \
	X(EPOS_ERR_INVAL,    -1, "invalid argument")                                         \
	X(EPOS_ERR_NOT_PEER, -2, "a link sends only to its peer")                            \
	X(EPOS_ERR_THREAD,   -3, "a port has one receiving thread")                          \
	X(EPOS_ERR_CLOSED,   -4, "end-point closed")                                         \
	X(EPOS_ERR_AGAIN,    -5, "nothing to receive now")                                   \
	X(EPOS_ERR_TIMEOUT,  -6, "timed out")                                                \
	X(EPOS_ERR_TRUNC,    -7, "message larger than the buffer: truncated")                \
	X(EPOS_ERR_NAME,     -8, "name service: name taken, invalid or table full")          \
	X(EPOS_ERR_NOMEM,    -9, "out of memory")                                            \
	X(EPOS_ERR_PEER,    -10, "peer gone or unreachable")                                 \
	X(EPOS_ERR_COMM,    -11, "libcomm error")

enum epos_err {
#define EPOS_X_ENUM(name, value, text) name = (value),
	EPOS_ERROR_LIST(EPOS_X_ENUM)
#undef EPOS_X_ENUM
};

/* Static text of an error code ("unknown error" for any other value). */
const char *epos_strerror(int err);
/* The calling thread's last error with its detail; "" when none.  Never NULL. */
const char *epos_last_error(void);

/* Names of the selected members: "link" | "port" | "mailbox", "datagram" | "stream". */
const char *epos_communicator_name(void);
const char *epos_channel_name(void);
/*
 * Traits of the selected members: the Communicator's bound peer (1 for link),
 * the number of receiving threads it admits (0: any), the Channel's boundary
 * keeping (1 for datagram) and its window in bytes (0: none, datagram).
 */
int epos_communicator_bound(void);
int epos_communicator_receivers(void);
int epos_channel_boundaries(void);
size_t epos_channel_window(void);

/* Where a received message came from: the sending end-point's node and port. */
struct epos_addr {
	int node;
	uint32_t port;
};

typedef struct epos_comm epos_comm;

/*
 * Open an end-point and register `name` (1 .. LC_NAME_MAX - 1 printable
 * bytes, no spaces) in the job's name service.  The first end-point of the
 * process opens its libcomm node, the last close closes it.  A link needs
 * `peer`, the name of the end-point it is bound to, and waits until that name
 * is registered; a port and a mailbox ignore `peer` (NULL allowed).
 * Returns 0 and *out, or EPOS_ERR_INVAL (out or name NULL; a link without
 * peer), EPOS_ERR_NAME (name taken or invalid), EPOS_ERR_PEER (the peer
 * never registers: every other node left), EPOS_ERR_NOMEM, EPOS_ERR_COMM.
 */
int epos_comm_open(epos_comm **out, const char *name, const char *peer);
/*
 * Send len bytes to the end-point named `to` (NULL for a link: its peer; a
 * link given another name: EPOS_ERR_NOT_PEER).  The name is looked up (and
 * remembered), waiting until it is registered.  Datagram: one message;
 * stream: bytes appended to the pair's stream, blocking while the receiver's
 * window is used up.  Returns 0 or a negative epos_err.
 */
int epos_comm_send(epos_comm *c, const char *to, const void *buf, size_t len);
/*
 * Receive into buf of cap bytes: *len bytes arrived, from *from (may be
 * NULL).  Datagram: one message (larger than cap: buf filled, *len its true
 * size, EPOS_ERR_TRUNC); stream: 1 .. cap bytes of one sender's stream (cap
 * must be > 0).  epos_comm_receive blocks; epos_comm_try_receive returns
 * EPOS_ERR_AGAIN when nothing has arrived.  A port admits one receiving
 * thread (the first to receive); another gets EPOS_ERR_THREAD.
 */
int epos_comm_receive(epos_comm *c, void *buf, size_t cap, size_t *len, struct epos_addr *from);
int epos_comm_try_receive(epos_comm *c, void *buf, size_t cap, size_t *len,
			  struct epos_addr *from);
/*
 * Wait until something can be received: 0, or EPOS_ERR_TIMEOUT after
 * timeout_us microseconds (negative: wait for ever).
 */
int epos_comm_wait(epos_comm *c, int64_t timeout_us);
/*
 * Close: unregister the name, free the end-point's state.  The handle stays
 * valid as a closed end-point: every later call with it returns
 * EPOS_ERR_CLOSED.  Returns 0 or a negative epos_err.
 */
int epos_comm_close(epos_comm *c);
/* This end-point's address (its node and port in the name service). */
int epos_comm_addr(const epos_comm *c, struct epos_addr *out);

#ifdef __cplusplus
}
#endif
#endif /* EPOS_H */
