/* SPDX-License-Identifier: MIT */
/* EPOS internals: the end-point, the match-word layout, the compile-time dispatch to the selected members. */
#ifndef EPOS_IMPL_H
#define EPOS_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "comm.h"
#include "lc_config.h"
#include "lc_coop.h"       /* LC_PC_EXACTLY_ONCE */

#include "epos.h"

#if LC_EPOS_COMMUNICATOR_LINK + LC_EPOS_COMMUNICATOR_PORT + LC_EPOS_COMMUNICATOR_MAILBOX != 1
#error "epos: exactly one Communicator member must be selected (epos.communicator)"
#endif
#if LC_EPOS_CHANNEL_DATAGRAM + LC_EPOS_CHANNEL_STREAM != 1
#error "epos: exactly one Channel member must be selected (epos.channel)"
#endif
/* the generator refuses this selection already (gen/schema.lua, epos.channel needs) */
#if LC_EPOS_CHANNEL_STREAM && !LC_PC_EXACTLY_ONCE
#error "epos: the Stream channel needs a protocol that provides exactly_once (a lost segment breaks the stream)"
#endif

#define EPOS_FUNC __attribute__((visibility("hidden")))

/*
 * Compile-time dispatch: EPOS_COMMUNICATOR(open) is epos_link_open,
 * epos_port_open or epos_mailbox_open, whichever the config selected;
 * EPOS_CHANNEL(send) epos_datagram_send or epos_stream_send.  No function
 * pointer, no switch: the inflated interface (comm.c) calls the member
 * directly, and the members not selected are compiled to nothing.
 */
#if LC_EPOS_COMMUNICATOR_LINK
#define EPOS_COMMUNICATOR(fn) epos_link_##fn
#elif LC_EPOS_COMMUNICATOR_PORT
#define EPOS_COMMUNICATOR(fn) epos_port_##fn
#else
#define EPOS_COMMUNICATOR(fn) epos_mailbox_##fn
#endif
#if LC_EPOS_CHANNEL_DATAGRAM
#define EPOS_CHANNEL(fn) epos_datagram_##fn
#else
#define EPOS_CHANNEL(fn) epos_stream_##fn
#endif

/*
 * The match word of every EPOS message (comm.h, "The matching envelope"):
 *
 *   63      56 55    48 47      32 31          16 15           0
 *  | 0xE9     | kind   | 0        | source port  | dest. port    |
 *
 * kind: DATA (a datagram, a stream segment) or CREDIT (stream window
 * update, receiver -> sender).  Ports are the end-points' numbers in the
 * name service (16 bits: one process numbers its end-points 1, 2, ...).
 * A receive for an end-point takes DATA with its destination port
 * (EPOS_MASK_TO); a link also fixes the source port and node (EPOS_MASK_PAIR).
 */
#define EPOS_MATCH_MAGIC   ((uint64_t)0xE9 << 56)
#define EPOS_KIND_DATA     1u
#define EPOS_KIND_CREDIT   2u
#define EPOS_MATCH(kind, sport, dport) \
	(EPOS_MATCH_MAGIC | (uint64_t)(kind) << 48 | (uint64_t)(sport) << 16 | (uint64_t)(dport))
#define EPOS_MASK_TO       (((uint64_t)0xFFFF << 48) | 0xFFFFu)
#define EPOS_MASK_PAIR     (((uint64_t)0xFFFF << 48) | 0xFFFFFFFFu)
#define EPOS_MATCH_SPORT(m) ((uint32_t)((m) >> 16) & 0xFFFFu)
#define EPOS_PORT_MAX      0xFFFFu

/* Stream window (bytes in flight per pair), a power of two. */
#define EPOS_STREAM_WINDOW ((size_t)16384)

#define EPOS_MAGIC_OPEN   0x45504f53u /* "EPOS" */
#define EPOS_MAGIC_CLOSED 0x434c4f53u /* "CLOS" */

/* A name resolved once (port, mailbox: the send destinations). */
struct epos_dest {
	char name[LC_NAME_MAX];
	struct epos_addr addr;
};

struct epos_flow; /* stream.c */

struct epos_comm {
	uint32_t magic;
	uint32_t port;
	lc_node *node;
	char name[LC_NAME_MAX];
	struct epos_addr peer;           /* link: the bound peer */
	char peer_name[LC_NAME_MAX];
	_Atomic uintptr_t rx_owner;      /* port: the receiving thread (0: none yet) */
	pthread_mutex_t dest_lock;       /* dests */
	struct epos_dest *dests;
	size_t ndests, cap_dests;
	void *channel;                   /* the channel member's state (stream.c) */
	struct epos_comm *next_shell;    /* closed handles, freed at exit */
};

/* errors.c */
EPOS_FUNC int epos_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
EPOS_FUNC int epos_fail_lc(int lrc, const char *what);

/* comm.c: look a name up (cached per end-point), waiting until it is registered. */
EPOS_FUNC int epos_resolve(epos_comm *c, const char *name, struct epos_addr *out);

/*
 * Communicator members (link.c, port.c, mailbox.c), each:
 *   open(c, peer)        after the name is registered: bind / check peer
 *   route(c, to, dst)    the destination of a send (resolving the name)
 *   rx_admit(c)          may the calling thread receive on c?
 *   rx_filter(c, &src, &match, &mask)  which messages c takes
 */
#define EPOS_COMMUNICATOR_DECLARE(m)                                                         \
	EPOS_FUNC int epos_##m##_open(epos_comm *c, const char *peer);                       \
	EPOS_FUNC int epos_##m##_route(epos_comm *c, const char *to, struct epos_addr *dst); \
	EPOS_FUNC int epos_##m##_rx_admit(epos_comm *c);                                     \
	EPOS_FUNC void epos_##m##_rx_filter(const epos_comm *c, int *src, uint64_t *match,   \
					    uint64_t *mask);
/*
 * Channel members (datagram.c, stream.c), each:
 *   open(c) / close(c)   the channel's state of c
 *   send(c, dst, buf, len)
 *   receive(c, buf, cap, len, from, block)   block 0: EPOS_ERR_AGAIN when none
 *   ready(c, flag)       one look: can a receive take something now?
 */
#define EPOS_CHANNEL_DECLARE(m)                                                              \
	EPOS_FUNC int epos_##m##_open(epos_comm *c);                                         \
	EPOS_FUNC void epos_##m##_close(epos_comm *c);                                       \
	EPOS_FUNC int epos_##m##_send(epos_comm *c, const struct epos_addr *dst,             \
				      const void *buf, size_t len);                          \
	EPOS_FUNC int epos_##m##_receive(epos_comm *c, void *buf, size_t cap, size_t *len,   \
					 struct epos_addr *from, bool block);                \
	EPOS_FUNC int epos_##m##_ready(epos_comm *c, int *flag);

#if LC_EPOS_COMMUNICATOR_LINK
EPOS_COMMUNICATOR_DECLARE(link)
#elif LC_EPOS_COMMUNICATOR_PORT
EPOS_COMMUNICATOR_DECLARE(port)
#else
EPOS_COMMUNICATOR_DECLARE(mailbox)
#endif
#if LC_EPOS_CHANNEL_DATAGRAM
EPOS_CHANNEL_DECLARE(datagram)
#else
EPOS_CHANNEL_DECLARE(stream)
#endif

/*
 * One receive (blocking, or one test then cancel), shared by the channels: 0, 1 when
 * the message was truncated (st->len its size), EPOS_ERR_AGAIN (not blocking: none), or
 * another negative epos_err.
 */
EPOS_FUNC int epos_lc_receive(epos_comm *c, int src, uint64_t match, uint64_t mask, void *buf,
			      size_t cap, struct lc_status *st, bool block);

/* comm.c: one look for data the end-point's receive would take (lc_iprobe): *flag 1 when there is. */
EPOS_FUNC int epos_probe_data(epos_comm *c, int *flag);

#endif /* EPOS_IMPL_H */
