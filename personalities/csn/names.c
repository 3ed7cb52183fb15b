/* SPDX-License-Identifier: MIT */
/* csn_registername, csn_lookupname: the job's name service (lc_name_*) naming transports. */
#include <string.h>
#include "csn_impl.h"

csn_status csn_registername(transport t, char *name)
{
	struct csn_tr *tr;
	if (!(tr = csn_tr_get(t, "csn_registername")))
		return CsnUnitializedTransport;
	if (!name || !*name || strlen(name) >= LC_NAME_MAX)
		return csn_fail(CsnBadArgument, "csn_registername: name %s", name ? "of a bad length" : "NULL");
	if (tr->nnames == CSN_MAX_NAMES)
		return csn_fail(CsnNoHeap, "csn_registername: transport holds %d names already",
				CSN_MAX_NAMES);
	int rc = lc_name_register(csn_node, name, tr->id + 1);
	if (rc != 0) {
		csn_status s = csn_from_lc(rc);
		return csn_fail(s == CsnTimeout ? CsnFailed : s, "csn_registername: %s",
				lc_last_error(csn_node));
	}
	strcpy(tr->names[tr->nnames++], name);
	return CsnOk;
}

csn_status csn_lookupname_timeout(netid *n, char *name, unsigned int timeout_us)
{
	if (!n || !name)
		return csn_fail(CsnBadArgument, "csn_lookupname: %s is NULL", n ? "name" : "n");
	if (!csn_node)
		return csn_fail(CsnUnitializedTransport, "csn_lookupname: no transport open in this "
				"process (csn_open first)");
	int node = -1;
	uint32_t port = 0;
	int rc = lc_name_lookup(csn_node, name,
				timeout_us == CSN_WAIT_FOREVER ? LC_NAME_FOREVER : (int64_t)timeout_us,
				&node, &port);
	if (rc == LC_ERR_PEER_DEAD)
		return csn_fail(CsnIllegalNetId, "csn_lookupname: \"%s\" is not registered and every "
				"other process of the job has ended", name);
	if (rc != 0)
		return csn_fail(csn_from_lc(rc), "csn_lookupname: %s", lc_last_error(csn_node));
	*n = (netid){ (unsigned)node + 1, port };
	return CsnOk;
}

csn_status csn_lookupname(netid *n, char *name)
{
	return csn_lookupname_timeout(n, name, CSN_WAIT_FOREVER);
}

csn_status csn_nameserver(void)
{
	return CsnOk;
}

csn_status csn_resolvconf(char *file)
{
	(void)file;
	return CsnOk;
}
