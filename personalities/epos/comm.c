/* SPDX-License-Identifier: MIT */
/* The Communicator family's inflated interface: argument checks, then the selected members, bound at compile time. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "epos_impl.h"

/*
 * The process's libcomm node, opened by the first end-point and closed by
 * the last; end-point ports numbered from 1.  Closed handles are kept (so a
 * call with one returns EPOS_ERR_CLOSED, not a use after free) and freed at
 * exit.
 */
static struct {
	pthread_mutex_t lock;
	lc_node *node;
	int refs;
	uint32_t next_port;
	epos_comm *shells;
} epos_proc = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 1, NULL };

__attribute__((destructor)) static void epos_free_shells(void)
{
	pthread_mutex_lock(&epos_proc.lock);
	for (epos_comm *c = epos_proc.shells, *n; c; c = n) {
		n = c->next_shell;
		free(c);
	}
	epos_proc.shells = NULL;
	pthread_mutex_unlock(&epos_proc.lock);
}

const char *epos_communicator_name(void)
{
	return LC_EPOS_COMMUNICATOR_LINK ? "link" : LC_EPOS_COMMUNICATOR_PORT ? "port" : "mailbox";
}

const char *epos_channel_name(void)
{
	return LC_EPOS_CHANNEL_DATAGRAM ? "datagram" : "stream";
}

int epos_communicator_bound(void)
{
	return LC_EPOS_COMMUNICATOR_LINK;
}

int epos_communicator_receivers(void)
{
	return LC_EPOS_COMMUNICATOR_MAILBOX ? 0 : 1;
}

int epos_channel_boundaries(void)
{
	return LC_EPOS_CHANNEL_DATAGRAM;
}

size_t epos_channel_window(void)
{
	return LC_EPOS_CHANNEL_STREAM ? EPOS_STREAM_WINDOW : 0;
}

static int epos_check(const epos_comm *c, const char *what)
{
	if (!c)
		return epos_fail(EPOS_ERR_INVAL, "%s: end-point NULL", what);
	if (c->magic == EPOS_MAGIC_CLOSED)
		return epos_fail(EPOS_ERR_CLOSED, "%s: end-point \"%s\" is closed", what, c->name);
	if (c->magic != EPOS_MAGIC_OPEN)
		return epos_fail(EPOS_ERR_INVAL, "%s: not an end-point", what);
	return 0;
}

static int epos_node_get(lc_node **out, uint32_t *port)
{
	int rc = 0;
	pthread_mutex_lock(&epos_proc.lock);
	if (epos_proc.next_port > EPOS_PORT_MAX) {
		rc = epos_fail(EPOS_ERR_NOMEM, "epos_comm_open: %u end-points opened, ports exhausted",
			       EPOS_PORT_MAX);
	} else if (!epos_proc.node && (rc = lc_open(&epos_proc.node)) != 0) {
		rc = epos_fail_lc(rc, "epos_comm_open: lc_open");
		epos_proc.node = NULL;
	} else {
		epos_proc.refs++;
		*port = epos_proc.next_port++;
		*out = epos_proc.node;
	}
	pthread_mutex_unlock(&epos_proc.lock);
	return rc;
}

static void epos_node_put(void)
{
	pthread_mutex_lock(&epos_proc.lock);
	if (--epos_proc.refs == 0) {
		lc_close(epos_proc.node);
		epos_proc.node = NULL;
	}
	pthread_mutex_unlock(&epos_proc.lock);
}

int epos_resolve(epos_comm *c, const char *name, struct epos_addr *out)
{
	int rc = 0;
	pthread_mutex_lock(&c->dest_lock);
	for (size_t i = 0; i < c->ndests; i++)
		if (strcmp(c->dests[i].name, name) == 0) {
			*out = c->dests[i].addr;
			pthread_mutex_unlock(&c->dest_lock);
			return 0;
		}
	pthread_mutex_unlock(&c->dest_lock);
	int node;
	uint32_t port;
	int lrc = lc_name_lookup(c->node, name, LC_NAME_FOREVER, &node, &port);
	if (lrc == LC_ERR_INVAL)
		return epos_fail(EPOS_ERR_NAME, "\"%s\": not a valid name", name);
	if (lrc == LC_ERR_PEER_DEAD)
		return epos_fail(EPOS_ERR_PEER, "\"%s\" is not registered and every other node left",
				 name);
	if (lrc)
		return epos_fail_lc(lrc, "lc_name_lookup");
	out->node = node;
	out->port = port;
	pthread_mutex_lock(&c->dest_lock);
	if (c->ndests == c->cap_dests) {
		size_t n = c->cap_dests ? 2 * c->cap_dests : 8;
		struct epos_dest *d = realloc(c->dests, n * sizeof *d);
		if (!d)
			rc = epos_fail(EPOS_ERR_NOMEM, "epos: %zu destinations", n);
		else {
			c->dests = d;
			c->cap_dests = n;
		}
	}
	if (rc == 0) {
		snprintf(c->dests[c->ndests].name, LC_NAME_MAX, "%s", name);
		c->dests[c->ndests++].addr = *out;
	}
	pthread_mutex_unlock(&c->dest_lock);
	return rc;
}

int epos_comm_open(epos_comm **out, const char *name, const char *peer)
{
	if (!out)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_open: out NULL");
	*out = NULL;
	if (!name || !*name || strlen(name) >= LC_NAME_MAX)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_open: name NULL, empty or longer than %d",
				 LC_NAME_MAX - 1);
	if (peer && (!*peer || strlen(peer) >= LC_NAME_MAX))
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_open: peer empty or longer than %d",
				 LC_NAME_MAX - 1);
	if (LC_EPOS_COMMUNICATOR_LINK && !peer)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_open: a link needs its peer's name");

	epos_comm *c = calloc(1, sizeof *c);
	if (!c)
		return epos_fail(EPOS_ERR_NOMEM, "epos_comm_open: end-point");
	int rc = epos_node_get(&c->node, &c->port);
	if (rc) {
		free(c);
		return rc;
	}
	snprintf(c->name, sizeof c->name, "%s", name);
	pthread_mutex_init(&c->dest_lock, NULL);
	int lrc = lc_name_register(c->node, name, c->port);
	if (lrc) {
		rc = lrc == LC_ERR_CLOSED ? epos_fail_lc(lrc, "lc_name_register")
					  : epos_fail(EPOS_ERR_NAME, "epos_comm_open: \"%s\": %s", name,
						      lc_last_error(NULL));
		goto fail_node;
	}
	c->magic = EPOS_MAGIC_OPEN;
	if ((rc = EPOS_CHANNEL(open)(c)) != 0)
		goto fail_name;
	if ((rc = EPOS_COMMUNICATOR(open)(c, peer)) != 0)
		goto fail_channel;
	*out = c;
	return 0;
fail_channel:
	EPOS_CHANNEL(close)(c);
fail_name:
	lc_name_unregister(c->node, name);
fail_node:
	pthread_mutex_destroy(&c->dest_lock);
	epos_node_put();
	free(c);
	return rc;
}

int epos_comm_send(epos_comm *c, const char *to, const void *buf, size_t len)
{
	int rc = epos_check(c, "epos_comm_send");
	if (rc)
		return rc;
	if (!buf && len)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_send: buf NULL with len %zu", len);
	if (len > LC_MAX_MSG)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_send: len %zu above %zu", len, LC_MAX_MSG);
	struct epos_addr dst;
	if ((rc = EPOS_COMMUNICATOR(route)(c, to, &dst)) != 0)
		return rc;
	return EPOS_CHANNEL(send)(c, &dst, buf, len);
}

static int epos_receive(epos_comm *c, void *buf, size_t cap, size_t *len, struct epos_addr *from,
			bool block, const char *what)
{
	int rc = epos_check(c, what);
	if (rc)
		return rc;
	if (!len)
		return epos_fail(EPOS_ERR_INVAL, "%s: len NULL", what);
	*len = 0;
	if (!buf && cap)
		return epos_fail(EPOS_ERR_INVAL, "%s: buf NULL with cap %zu", what, cap);
	if (LC_EPOS_CHANNEL_STREAM && cap == 0)
		return epos_fail(EPOS_ERR_INVAL, "%s: a stream receive needs cap > 0", what);
	if ((rc = EPOS_COMMUNICATOR(rx_admit)(c)) != 0)
		return rc;
	return EPOS_CHANNEL(receive)(c, buf, cap, len, from, block);
}

int epos_comm_receive(epos_comm *c, void *buf, size_t cap, size_t *len, struct epos_addr *from)
{
	return epos_receive(c, buf, cap, len, from, true, "epos_comm_receive");
}

int epos_comm_try_receive(epos_comm *c, void *buf, size_t cap, size_t *len,
			  struct epos_addr *from)
{
	return epos_receive(c, buf, cap, len, from, false, "epos_comm_try_receive");
}

static double epos_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int epos_comm_wait(epos_comm *c, int64_t timeout_us)
{
	int rc = epos_check(c, "epos_comm_wait");
	if (rc)
		return rc;
	double end = timeout_us < 0 ? 0 : epos_now_us() + (double)timeout_us;
	for (unsigned spin = 0;;) {
		int flag = 0;
		if ((rc = EPOS_CHANNEL(ready)(c, &flag)) != 0)
			return rc;
		if (flag)
			return 0;
		if (timeout_us >= 0 && epos_now_us() >= end)
			return epos_fail(EPOS_ERR_TIMEOUT, "epos_comm_wait: \"%s\": nothing in %lld us",
					 c->name, (long long)timeout_us);
		(void)lc_idle(c->node, &spin, 1);
	}
}

int epos_comm_close(epos_comm *c)
{
	int rc = epos_check(c, "epos_comm_close");
	if (rc)
		return rc;
	c->magic = EPOS_MAGIC_CLOSED;
	EPOS_CHANNEL(close)(c);
	lc_name_unregister(c->node, c->name);
	free(c->dests);
	c->dests = NULL;
	pthread_mutex_destroy(&c->dest_lock);
	c->node = NULL;
	epos_node_put();
	pthread_mutex_lock(&epos_proc.lock);
	c->next_shell = epos_proc.shells;
	epos_proc.shells = c;
	pthread_mutex_unlock(&epos_proc.lock);
	return 0;
}

int epos_comm_addr(const epos_comm *c, struct epos_addr *out)
{
	int rc = epos_check(c, "epos_comm_addr");
	if (rc)
		return rc;
	if (!out)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_addr: out NULL");
	out->node = lc_rank(c->node);
	out->port = c->port;
	return 0;
}

int epos_lc_receive(epos_comm *c, int src, uint64_t match, uint64_t mask, void *buf, size_t cap,
		    struct lc_status *st, bool block)
{
	int lrc;
	if (block) {
		lrc = lc_recv_match(c->node, src, match, mask, buf, cap, st);
		return lrc == LC_ERR_TRUNC ? 1 : lrc ? epos_fail_lc(lrc, "lc_recv_match") : 0;
	}
	lc_req *req;
	int done = 0;
	if ((lrc = lc_irecv_match(c->node, src, match, mask, buf, cap, &req)) != 0)
		return epos_fail_lc(lrc, "lc_irecv_match");
	lrc = lc_test(c->node, req, &done, st);
	if (!done) {
		/* nothing yet: take the receive back, unless a message matched it meanwhile */
		int took = lc_cancel(c->node, req);
		lrc = lc_wait(c->node, req, st);
		if (took == 1)
			return EPOS_ERR_AGAIN;
	}
	return lrc == LC_ERR_TRUNC ? 1 : lrc ? epos_fail_lc(lrc, "lc_irecv_match") : 0;
}

int epos_probe_data(epos_comm *c, int *flag)
{
	int src;
	uint64_t match, mask;
	struct lc_status st;
	EPOS_COMMUNICATOR(rx_filter)(c, &src, &match, &mask);
	int lrc = lc_iprobe(c->node, src, match, mask, flag, &st);
	return lrc ? epos_fail_lc(lrc, "epos_comm_wait: lc_iprobe") : 0;
}
