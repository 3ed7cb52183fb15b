/* SPDX-License-Identifier: MIT */
/* Communicator member Port: many senders, exactly one receiving thread (the first that receives). */
#include "epos_impl.h"

#if LC_EPOS_COMMUNICATOR_PORT

/* A thread's identity: the address of a thread-local byte. */
static _Thread_local char epos_port_self;

int epos_port_open(epos_comm *c, const char *peer)
{
	(void)peer; /* a port is not bound */
	atomic_init(&c->rx_owner, 0);
	return 0;
}

int epos_port_route(epos_comm *c, const char *to, struct epos_addr *dst)
{
	if (!to)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_send: port \"%s\": destination NULL", c->name);
	return epos_resolve(c, to, dst);
}

/* The first receiving thread owns the port (a CAS from 0); any other is refused. */
int epos_port_rx_admit(epos_comm *c)
{
	uintptr_t me = (uintptr_t)&epos_port_self, owner = 0;
	/* relaxed: the owner word orders nothing else, it only names a thread */
	if (atomic_compare_exchange_strong_explicit(&c->rx_owner, &owner, me, memory_order_relaxed,
						    memory_order_relaxed) ||
	    owner == me)
		return 0;
	return epos_fail(EPOS_ERR_THREAD, "epos_comm_receive: port \"%s\" already has its receiving thread",
			 c->name);
}

void epos_port_rx_filter(const epos_comm *c, int *src, uint64_t *match, uint64_t *mask)
{
	*src = LC_ANY_SOURCE;
	*match = EPOS_MATCH(EPOS_KIND_DATA, 0, c->port);
	*mask = EPOS_MASK_TO;
}

#endif /* LC_EPOS_COMMUNICATOR_PORT */
