/* SPDX-License-Identifier: MIT */
/* Communicator member Mailbox: many senders, many receiving threads, each message taken once. */
#include "epos_impl.h"

#if LC_EPOS_COMMUNICATOR_MAILBOX

int epos_mailbox_open(epos_comm *c, const char *peer)
{
	(void)c;
	(void)peer; /* a mailbox is not bound */
	return 0;
}

int epos_mailbox_route(epos_comm *c, const char *to, struct epos_addr *dst)
{
	if (!to)
		return epos_fail(EPOS_ERR_INVAL, "epos_comm_send: mailbox \"%s\": destination NULL",
				 c->name);
	return epos_resolve(c, to, dst);
}

/*
 * Any thread may receive: libcomm hands each message to one receive (a
 * datagram), and the stream's buffers are taken under the end-point's lock.
 */
int epos_mailbox_rx_admit(epos_comm *c)
{
	(void)c;
	return 0;
}

void epos_mailbox_rx_filter(const epos_comm *c, int *src, uint64_t *match, uint64_t *mask)
{
	*src = LC_ANY_SOURCE;
	*match = EPOS_MATCH(EPOS_KIND_DATA, 0, c->port);
	*mask = EPOS_MASK_TO;
}

#endif /* LC_EPOS_COMMUNICATOR_MAILBOX */
