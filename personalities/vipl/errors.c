/* SPDX-License-Identifier: MIT */
/* VipErrorCallback, VipQuerySystemManagementInfo, and the status texts. */
#include <string.h>

#include "vipl_impl.h"

/* The text of each VIP_RETURN, from the header's one list. */
static const char *const lcvipl_texts[] = {
#define LCVIPL_X_TEXT(name, value, text) [value] = text,
	LCVIPL_RETURN_LIST(LCVIPL_X_TEXT)
#undef LCVIPL_X_TEXT
};

const char *lcvipl_return_text(VIP_RETURN r)
{
	unsigned u = (unsigned)r;
	return u < sizeof lcvipl_texts / sizeof lcvipl_texts[0] && lcvipl_texts[u] ? lcvipl_texts[u] : "unknown";
}

/*
 * The handler runs for each asynchronous error (a lost connection, ...) in
 * the thread of the VIPL call that found it, after the call released the
 * NIC's lock (so it may call VIPL itself), or on the provider thread.
 */
VIP_RETURN VipErrorCallback(VIP_NIC_HANDLE NicHandle, VIP_PVOID Context, VIP_ERROR_HANDLER ErrorHandler)
{
	lcvipl_lock();
	VIP_RETURN r = lcvipl_is_nic(NicHandle) ? VIP_SUCCESS : VIP_INVALID_PARAMETER;
	if (r == VIP_SUCCESS) {
		lcvipl_nic.on_error = ErrorHandler;
		lcvipl_nic.error_ctx = Context;
	}
	lcvipl_unlock();
	return r;
}

/*
 * VIP_SMI_AUTODISCOVERY: the NICs reachable from this one, every node of
 * the job, one hop away (one switch).  The caller provides NumAdAddrs
 * addresses in ADAddrArray (each with room for a host address); they are
 * filled, and NumAdAddrs becomes the number of nodes (VIP_ERROR_RESOURCE
 * when there are more than room).
 */
VIP_RETURN VipQuerySystemManagementInfo(VIP_NIC_HANDLE NicHandle, VIP_ULONG InfoType, VIP_PVOID SysManInfo)
{
	VIP_AUTODISCOVERY_LIST *l = SysManInfo;

	if (l == NULL)
		return VIP_INVALID_PARAMETER;
	if (InfoType != VIP_SMI_AUTODISCOVERY)
		return VIP_ERROR_NOT_SUPPORTED;
	lcvipl_lock();
	VIP_RETURN r = VIP_SUCCESS;
	if (!lcvipl_is_nic(NicHandle) || (l->NumAdAddrs > 0 && l->ADAddrArray == NULL))
		r = VIP_INVALID_PARAMETER;
	else {
		VIP_ULONG n = (VIP_ULONG)lcvipl_nic.size;
		for (VIP_ULONG k = 0; k < n && k < l->NumAdAddrs; k++) {
			VIP_NET_ADDRESS *a = l->ADAddrArray[k];
			if (a == NULL) {
				r = VIP_INVALID_PARAMETER;
				break;
			}
			a->HostAddressLen = LCVIPL_ADDR_LEN;
			a->DiscriminatorLen = 0;
			for (unsigned b = 0; b < LCVIPL_ADDR_LEN; b++)
				a->HostAddress[b] = (VIP_UINT8)((unsigned)k >> (8 * b));
		}
		if (r == VIP_SUCCESS && n > l->NumAdAddrs)
			r = VIP_ERROR_RESOURCE;
		l->NumberOfHops = 1;
		l->NumAdAddrs = n;
	}
	lcvipl_unlock();
	return r;
}
