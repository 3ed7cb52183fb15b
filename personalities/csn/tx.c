/* SPDX-License-Identifier: MIT */
/* csn_tx, csn_txnb: transmits, complete once the receiving transport matched them (synchronous). */
#include "csn_impl.h"

/*
 * The seed: "Tx returns once the data has been received by another
 * process".  Both calls send with lc_issend, which completes when a receive
 * of the destination matched the message; csn_tx is csn_txnb's descriptor
 * plus a wait for that descriptor alone (csn_wait_desc), so it never takes
 * the completion of another operation from the done queue.
 */
static csn_status csn_start_tx(transport t, netid n, void *a, unsigned int l, int blocking,
			       const char *fn, struct csn_tr **out_tr, struct csn_desc **out_d)
{
	struct csn_tr *tr;
	struct csn_desc *d = NULL;
	if (!(tr = csn_tr_get(t, fn)))
		return CsnUnitializedTransport;
	if (!a && l > 0)
		return csn_fail(CsnBadArgument, "%s: buffer NULL for %u bytes", fn, l);
	if (!csn_netid_ok(n))
		return csn_fail(CsnIllegalNetId, "%s: netid {%u,%u} is no transport of this job of %d "
				"nodes", fn, n.ip, n.port, lc_size(csn_node));
	if (!(d = csn_desc_new(tr)))
		return csn_fail(CsnNoHeap, "%s: no memory for a descriptor", fn);
	d->blocking = blocking;
	d->buf = a;
	d->len = l;
	d->peer = n;
	*out_tr = tr;
	*out_d = d;
	return csn_post_tx(tr, d, fn);
}

csn_status csn_txnb(transport t, netid n, void *a, unsigned int l)
{
	struct csn_tr *tr;
	struct csn_desc *d = NULL;
	return csn_start_tx(t, n, a, l, 0, "csn_txnb", &tr, &d);
}

csn_status csn_tx(transport t, netid n, void *a, unsigned int l)
{
	struct csn_tr *tr;
	struct csn_desc *d = NULL;
	csn_status s = csn_start_tx(t, n, a, l, 1, "csn_tx", &tr, &d);
	if (s != CsnOk)
		return s;
	return csn_wait_desc(tr, d, NULL, NULL);
}
