/* SPDX-License-Identifier: MIT */
/* VipNSInit, VipNSGetHostByName, VipNSGetHostByAddr, VipNSShutdown: "node<k>" is node k's NIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

/*
 * The hosts of the job are its nodes: host name "node<k>" (k in decimal,
 * 0 .. size-1, no leading zeros) has one address, node k's NIC address
 * (LCVIPL_ADDR_LEN bytes, the node id little-endian).  No file to read:
 * NSInitInfo is ignored.
 */

VIP_RETURN VipNSInit(VIP_NIC_HANDLE NicHandle, VIP_PVOID NSInitInfo)
{
	(void)NSInitInfo;
	lcvipl_lock();
	VIP_RETURN r = lcvipl_is_nic(NicHandle) ? VIP_SUCCESS : VIP_INVALID_PARAMETER;
	if (r == VIP_SUCCESS)
		lcvipl_nic.ns = true;
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipNSShutdown(VIP_NIC_HANDLE NicHandle)
{
	lcvipl_lock();
	VIP_RETURN r = !lcvipl_is_nic(NicHandle) ? VIP_INVALID_PARAMETER :
		       !lcvipl_nic.ns ? VIP_ERROR_NAMESERVICE : VIP_SUCCESS;
	if (r == VIP_SUCCESS)
		lcvipl_nic.ns = false;
	lcvipl_unlock();
	return r;
}

/* The node a host name names, or -1. */
static int lcvipl_host_node(const char *name, int size)
{
	if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9' || (name[4] == '0' && name[5]))
		return -1;
	char *end;
	long v = strtol(name + 4, &end, 10);
	return *end == '\0' && v >= 0 && v < size ? (int)v : -1;
}

VIP_RETURN VipNSGetHostByName(VIP_NIC_HANDLE NicHandle, VIP_CHAR *Name, VIP_NET_ADDRESS *Address,
			      VIP_ULONG NameIndex)
{
	if (Name == NULL || Address == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	VIP_RETURN r = VIP_SUCCESS;
	int node = -1;
	if (!lcvipl_is_nic(NicHandle))
		r = VIP_INVALID_PARAMETER;
	else if (!lcvipl_nic.ns || NameIndex != 0 || (node = lcvipl_host_node(Name, lcvipl_nic.size)) < 0)
		r = VIP_ERROR_NAMESERVICE;
	else {
		Address->HostAddressLen = LCVIPL_ADDR_LEN;
		Address->DiscriminatorLen = 0;
		for (unsigned k = 0; k < LCVIPL_ADDR_LEN; k++)
			Address->HostAddress[k] = (VIP_UINT8)((unsigned)node >> (8 * k));
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipNSGetHostByAddr(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *Address, VIP_CHAR *Name,
			      VIP_ULONG *NameLen)
{
	if (Address == NULL || Name == NULL || NameLen == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	VIP_RETURN r = VIP_SUCCESS;
	uint32_t v = 0;
	if (!lcvipl_is_nic(NicHandle))
		r = VIP_INVALID_PARAMETER;
	else if (!lcvipl_nic.ns || Address->HostAddressLen != LCVIPL_ADDR_LEN)
		r = VIP_ERROR_NAMESERVICE;
	else {
		for (unsigned k = 0; k < LCVIPL_ADDR_LEN; k++)
			v |= (uint32_t)Address->HostAddress[k] << (8 * k);
		if (v >= (uint32_t)lcvipl_nic.size)
			r = VIP_ERROR_NAMESERVICE;
	}
	if (r == VIP_SUCCESS) {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "node%u", (unsigned)v);
		if (*NameLen < (VIP_ULONG)n + 1)
			r = VIP_ERROR_RESOURCE;
		else
			memcpy(Name, buf, (size_t)n + 1);
		*NameLen = (VIP_ULONG)n + 1;
	}
	lcvipl_unlock();
	return r;
}
