/* SPDX-License-Identifier: MIT */
/* Channel member Datagram: one libcomm message per send, message boundaries kept. */
#include "epos_impl.h"

#if LC_EPOS_CHANNEL_DATAGRAM

int epos_datagram_open(epos_comm *c)
{
	(void)c; /* no state: libcomm's matching queues are the datagram's queue */
	return 0;
}

void epos_datagram_close(epos_comm *c)
{
	(void)c;
}

/* The match word carries both ports; the destination port selects the end-point. */
int epos_datagram_send(epos_comm *c, const struct epos_addr *dst, const void *buf, size_t len)
{
	int lrc = lc_send_match(c->node, dst->node, EPOS_MATCH(EPOS_KIND_DATA, c->port, dst->port),
				buf, len);
	return lrc ? epos_fail_lc(lrc, "epos_comm_send: lc_send_match") : 0;
}

int epos_datagram_receive(epos_comm *c, void *buf, size_t cap, size_t *len, struct epos_addr *from,
			  bool block)
{
	int src;
	uint64_t match, mask;
	struct lc_status st;
	EPOS_COMMUNICATOR(rx_filter)(c, &src, &match, &mask);
	int rc = epos_lc_receive(c, src, match, mask, buf, cap, &st, block);
	if (rc < 0)
		return rc;
	*len = st.len;
	if (from) {
		from->node = st.src;
		from->port = EPOS_MATCH_SPORT(st.match);
	}
	if (rc == 1)
		return epos_fail(EPOS_ERR_TRUNC, "epos_comm_receive: \"%s\": datagram of %zu bytes, buffer %zu",
				 c->name, st.len, cap);
	return 0;
}

int epos_datagram_ready(epos_comm *c, int *flag)
{
	return epos_probe_data(c, flag);
}

#endif /* LC_EPOS_CHANNEL_DATAGRAM */
