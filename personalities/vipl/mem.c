/* SPDX-License-Identifier: MIT */
/* VipCreatePtag, VipDestroyPtag, VipRegisterMem, VipDeregisterMem, VipQueryMem, VipSetMemAttributes. */
#include <string.h>

#include "vipl_impl.h"

/*
 * Protection tags are this library's: a VI and the regions its descriptors
 * name must have the same tag (checked at post time), and an RDMA write
 * must target a region of the peer VI's tag (checked by the writer from
 * the target's advert, rdma.c).  A region is registered in the NIC's table
 * (lc_mem_register, with LC_MEM_REMOTE_WRITE when EnableRdmaWrite), its
 * libcomm handle is the VIP_MEM_HANDLE; regions RDMA may write are
 * advertised (handle, address, length, tag) to every node this NIC has a
 * connection with, and to each new one, so that a writer turns (handle,
 * address) into the region offset that lc_iput takes.
 */

VIP_RETURN VipCreatePtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE *ProtectionTag)
{
	if (ProtectionTag == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	VIP_RETURN r = VIP_ERROR_RESOURCE;
	if (!lcvipl_is_nic(NicHandle))
		r = VIP_INVALID_PARAMETER;
	else
		for (unsigned k = 0; k < LCVIPL_MAX_PTAG; k++) {
			struct lcvipl_ptag *t = &lcvipl_nic.ptags[k];
			if (t->live)
				continue;
			t->gen = (uint16_t)(t->gen + 1 ? t->gen + 1 : 1);
			t->live = true;
			t->users = 0;
			*ProtectionTag = LCVIPL_HANDLE(k, t->gen);
			r = VIP_SUCCESS;
			break;
		}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipDestroyPtag(VIP_NIC_HANDLE NicHandle, VIP_PROTECTION_HANDLE ProtectionTag)
{
	lcvipl_lock();
	int k = lcvipl_is_nic(NicHandle) ? lcvipl_ptag_of(ProtectionTag) : -1;
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (k >= 0 && lcvipl_nic.ptags[k].users > 0)
		r = VIP_INVALID_STATE;
	else if (k >= 0) {
		lcvipl_nic.ptags[k].live = false;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

/*
 * The region of a handle: lcvipl_region_of (vipl_impl.h) tries the slot
 * remembered for the handle (a Post call looks up its descriptor's region
 * and each segment's, mostly the same few), checked, never trusted; this
 * is the search behind it (lock held).
 */
unsigned lcvipl_region_hint[LCVIPL_REGION_HINTS];

struct lcvipl_region *lcvipl_region_find(uint32_t handle)
{
	for (unsigned k = 0; k < LCVIPL_MAX_REGION; k++)
		if (lcvipl_nic.regions[k].live && lcvipl_nic.regions[k].handle == handle) {
			lcvipl_region_hint[handle % LCVIPL_REGION_HINTS] = k;
			return &lcvipl_nic.regions[k];
		}
	return NULL;
}

/* The advert of region r (the peer learns it before any later message of this node). */
static void lcvipl_advertise(const struct lcvipl_region *r, int node)
{
	struct lcvipl_ctrl c = {
		.type = LCVIPL_CTRL_ADVERT, .handle = r->handle, .ptag = r->ptag,
		.base = (uint64_t)(uintptr_t)r->addr, .len = r->len, .rdma_write = r->rdma_write,
	};
	lcvipl_ctrl_send(node, 0, &c);
}

/* Every region RDMA may write, to node (a new connection's peer). */
void lcvipl_advertise_all(int node)
{
	for (unsigned k = 0; k < LCVIPL_MAX_REGION; k++)
		if (lcvipl_nic.regions[k].live && lcvipl_nic.regions[k].rdma_write)
			lcvipl_advertise(&lcvipl_nic.regions[k], node);
}

/* Region r (changed or new) to every node a VI of this NIC is connected to, once each. */
static void lcvipl_advertise_peers(const struct lcvipl_region *r)
{
	for (unsigned k = 0; k < LCVIPL_MAX_VI; k++) {
		struct lcvipl_vi *vi = lcvipl_nic.vis[k];
		if (vi == NULL || vi->state != VIP_STATE_CONNECTED)
			continue;
		unsigned j;
		for (j = 0; j < k; j++) {
			struct lcvipl_vi *o = lcvipl_nic.vis[j];
			if (o != NULL && o->state == VIP_STATE_CONNECTED && o->peer_node == vi->peer_node)
				break;
		}
		if (j == k)
			lcvipl_advertise(r, vi->peer_node);
	}
}

VIP_RETURN VipRegisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_ULONG Length,
			  VIP_MEM_ATTRIBUTES *MemAttributes, VIP_MEM_HANDLE *MemHandle)
{
	if (VirtualAddress == NULL || Length == 0 || MemAttributes == NULL || MemHandle == NULL)
		return VIP_INVALID_PARAMETER;
	if (MemAttributes->EnableRdmaRead)
		return VIP_INVALID_RDMAREAD;
	if (Length > LCVIPL_MAX_XFER)
		return VIP_ERROR_RESOURCE;
	lcvipl_lock();
	int tag = lcvipl_ptag_of(MemAttributes->Ptag);
	VIP_RETURN r = VIP_ERROR_RESOURCE;
	if (!lcvipl_is_nic(NicHandle))
		r = VIP_INVALID_PARAMETER;
	else if (tag < 0)
		r = VIP_INVALID_PTAG;
	else
		for (unsigned k = 0; k < LCVIPL_MAX_REGION; k++) {
			struct lcvipl_region *g = &lcvipl_nic.regions[k];
			if (g->live)
				continue;
			bool rw = MemAttributes->EnableRdmaWrite != VIP_FALSE, lc = false;
			uint32_t h;
			if ((r = lcvipl_mem_register(VirtualAddress, Length, rw, &h, &lc)) != VIP_SUCCESS)
				break;
			*g = (struct lcvipl_region){ .live = true, .addr = VirtualAddress, .len = Length,
				.handle = h, .ptag = (unsigned)tag, .rdma_write = rw, .lc = lc };
			lcvipl_nic.ptags[tag].users++;
			if (rw)
				lcvipl_advertise_peers(g);
			*MemHandle = h;
			break;
		}
	lcvipl_unlock();
	return r;
}

/* The region (VirtualAddress, MemHandle) of this NIC, or NULL. */
static struct lcvipl_region *lcvipl_region_at(VIP_NIC_HANDLE nic, VIP_PVOID va, VIP_MEM_HANDLE mh)
{
	struct lcvipl_region *g = lcvipl_is_nic(nic) ? lcvipl_region_of(mh) : NULL;
	return g != NULL && g->addr == (uint8_t *)va ? g : NULL;
}

VIP_RETURN VipDeregisterMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_MEM_HANDLE MemHandle)
{
	lcvipl_lock();
	struct lcvipl_region *g = lcvipl_region_at(NicHandle, VirtualAddress, MemHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (g != NULL) {
		if (g->lc)
			lcvipl_mem_deregister(g->handle);
		lcvipl_nic.ptags[g->ptag].users--;
		g->live = false;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipQueryMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_MEM_HANDLE MemHandle,
		       VIP_MEM_ATTRIBUTES *MemAttributes)
{
	if (MemAttributes == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_region *g = lcvipl_region_at(NicHandle, VirtualAddress, MemHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (g != NULL) {
		MemAttributes->Ptag = LCVIPL_HANDLE(g->ptag, lcvipl_nic.ptags[g->ptag].gen);
		MemAttributes->EnableRdmaWrite = g->rdma_write ? VIP_TRUE : VIP_FALSE;
		MemAttributes->EnableRdmaRead = VIP_FALSE;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

/*
 * The tag may change; the RDMA-write right is the NIC's registration's and
 * changes only by registering again (VIP_ERROR_NOT_SUPPORTED here).
 */
VIP_RETURN VipSetMemAttributes(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress, VIP_MEM_HANDLE MemHandle,
			       VIP_MEM_ATTRIBUTES *MemAttributes)
{
	if (MemAttributes == NULL)
		return VIP_INVALID_PARAMETER;
	if (MemAttributes->EnableRdmaRead)
		return VIP_INVALID_RDMAREAD;
	lcvipl_lock();
	struct lcvipl_region *g = lcvipl_region_at(NicHandle, VirtualAddress, MemHandle);
	int tag = lcvipl_ptag_of(MemAttributes->Ptag);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (g != NULL && tag < 0)
		r = VIP_INVALID_PTAG;
	else if (g != NULL && (MemAttributes->EnableRdmaWrite != VIP_FALSE) != g->rdma_write)
		r = VIP_ERROR_NOT_SUPPORTED;
	else if (g != NULL) {
		lcvipl_nic.ptags[g->ptag].users--;
		lcvipl_nic.ptags[tag].users++;
		g->ptag = (unsigned)tag;
		if (g->rdma_write)
			lcvipl_advertise_peers(g);
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}
