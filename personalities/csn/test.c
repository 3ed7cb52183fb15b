/* SPDX-License-Identifier: MIT */
/* csn_test: the oldest completed non-blocking operation of the kinds asked, waiting as long as told. */
#include "csn_impl.h"

csn_status csn_test(transport t, csn_flags flags, unsigned int timeout, netid *n, void **a,
		    csn_status *s)
{
	struct csn_tr *tr;
	if (!(tr = csn_tr_get(t, "csn_test")))
		return CsnUnitializedTransport;
	if (flags & ~(csn_flags)CsnAnyFlag)
		return csn_fail(CsnBadArgument, "csn_test: flags %#x: only CSN_FLAG(CsnTxReady) and "
				"CSN_FLAG(CsnRxReady) are defined", flags);
	csn_status why = CsnTimeout;
	struct csn_desc *d = csn_take_done(tr, flags, timeout, &why);
	if (!d)
		return why;
	csn_status kind = d->kind;
	if (n)
		*n = d->peer;
	if (a)
		*a = d->buf;
	if (s)
		*s = d->status;
	csn_desc_free(tr, d);
	return kind;
}
