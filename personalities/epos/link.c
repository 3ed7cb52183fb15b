/* SPDX-License-Identifier: MIT */
/* Communicator member Link: an end-point bound to one peer end-point, sending to and receiving from it only. */
#include <stdio.h>
#include <string.h>

#include "epos_impl.h"

#if LC_EPOS_COMMUNICATOR_LINK

/* Bind: look the peer up, waiting until it registers (LC_NAME_FOREVER). */
int epos_link_open(epos_comm *c, const char *peer)
{
	int rc = epos_resolve(c, peer, &c->peer);
	if (rc)
		return rc;
	snprintf(c->peer_name, sizeof c->peer_name, "%s", peer);
	return 0;
}

int epos_link_route(epos_comm *c, const char *to, struct epos_addr *dst)
{
	if (to && strcmp(to, c->peer_name) != 0)
		return epos_fail(EPOS_ERR_NOT_PEER, "epos_comm_send: link \"%s\" is bound to \"%s\", not \"%s\"",
				 c->name, c->peer_name, to);
	*dst = c->peer;
	return 0;
}

int epos_link_rx_admit(epos_comm *c)
{
	(void)c;
	return 0;
}

/* Only the peer's messages: its node, its port as the source port. */
void epos_link_rx_filter(const epos_comm *c, int *src, uint64_t *match, uint64_t *mask)
{
	*src = c->peer.node;
	*match = EPOS_MATCH(EPOS_KIND_DATA, c->peer.port, c->port);
	*mask = EPOS_MASK_PAIR;
}

#endif /* LC_EPOS_COMMUNICATOR_LINK */
