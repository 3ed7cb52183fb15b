/* SPDX-License-Identifier: MIT */
/* csn_rx, csn_rxnb: receives on a transport, from one sender (csn_rx) or from any. */
#include "csn_impl.h"

static csn_status csn_start_rx(struct csn_tr *tr, void *a, unsigned int l, int blocking,
			       unsigned int *actual, int src, uint64_t match, uint64_t mask,
			       const char *fn, struct csn_desc **out_d)
{
	struct csn_desc *d = NULL;
	if (!(d = csn_desc_new(tr)))
		return csn_fail(CsnNoHeap, "%s: no memory for a descriptor", fn);
	d->blocking = blocking;
	d->buf = a;
	d->len = l;
	d->actual = actual;
	*out_d = d;
	return csn_post_rx(tr, d, src, match, mask, fn);
}

csn_status csn_rxnb(transport t, void *a, unsigned int l, unsigned int *actualReceived)
{
	struct csn_tr *tr;
	struct csn_desc *d = NULL;
	if (!(tr = csn_tr_get(t, "csn_rxnb")))
		return CsnUnitializedTransport;
	if (!a && l > 0)
		return csn_fail(CsnBadArgument, "csn_rxnb: buffer NULL for %u bytes", l);
	return csn_start_rx(tr, a, l, 0, actualReceived, LC_ANY_SOURCE, csn_match(tr->id, 0),
			    CSN_MATCH_DST, "csn_rxnb", &d);
}

/*
 * *n = csn_nullnetid: the oldest message for t from any transport; else
 * only from transport *n (its node, and its number in the match word's high
 * half).  Receives posted earlier by csn_rxnb take arriving messages first.
 */
csn_status csn_rx(transport t, netid *n, void *a, unsigned int l, unsigned int *actualReceived)
{
	struct csn_tr *tr;
	struct csn_desc *d = NULL;
	if (!(tr = csn_tr_get(t, "csn_rx")))
		return CsnUnitializedTransport;
	if (!n || (!a && l > 0))
		return csn_fail(CsnBadArgument, "csn_rx: %s is NULL", n ? "the buffer" : "n");
	int any = n->ip == 0 && n->port == 0;
	if (!any && !csn_netid_ok(*n))
		return csn_fail(CsnIllegalNetId, "csn_rx: netid {%u,%u} is no transport of this job "
				"of %d nodes", n->ip, n->port, lc_size(csn_node));
	csn_status s = any ? csn_start_rx(tr, a, l, 1, NULL, LC_ANY_SOURCE, csn_match(tr->id, 0),
					  CSN_MATCH_DST, "csn_rx", &d)
			   : csn_start_rx(tr, a, l, 1, NULL, (int)n->ip - 1,
					  csn_match(tr->id, n->port - 1), LC_MATCH_ALL, "csn_rx", &d);
	if (s != CsnOk)
		return s;
	d->peer = *n;
	unsigned got = 0;
	s = csn_wait_desc(tr, d, n, &got);
	if (actualReceived)
		*actualReceived = got;
	return s;
}
