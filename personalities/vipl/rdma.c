/* SPDX-License-Identifier: MIT */
/* RDMA write over lc_iput / lc_iput_notify: the NIC registration, the peers' adverts, the offset. */
#include "vipl_impl.h"

/*
 * libcomm's registration and put calls (comm.h) are called directly.
 * Built with -DLCVIPL_RDMA_WEAK=1 they are weak references instead, for a
 * libcomm that does not define them yet: NULL at run time, then this
 * personality registers regions in its own table only and refuses RDMA
 * write (VipPostSend: VIP_ERROR_NOT_SUPPORTED).  (A weak reference does
 * not pull an archive member in: with a libcomm.a that defines the calls
 * in an object nothing else needs, they would stay unseen -- hence not the
 * default.)
 */
#ifndef LCVIPL_RDMA_WEAK
#define LCVIPL_RDMA_WEAK 0
#endif
#if LCVIPL_RDMA_WEAK
#pragma weak lc_mem_register
#pragma weak lc_mem_deregister
#pragma weak lc_iput
#pragma weak lc_iput_notify
#endif

static const unsigned char lcvipl_note[1];

bool lcvipl_rdma_available(void)
{
#if LCVIPL_RDMA_WEAK
	return lc_mem_register != NULL && lc_mem_deregister != NULL && lc_iput != NULL && lc_iput_notify != NULL;
#else
	return true;
#endif
}

int lcvipl_mem_register(void *addr, size_t len, bool rdma_write, uint32_t *handle, bool *lc)
{
	*lc = false;
	if (!lcvipl_rdma_available()) {
		*handle = lcvipl_nic.next_handle++;
		return VIP_SUCCESS;
	}
	int rc = lc_mem_register(lcvipl_nic.node, addr, len, rdma_write ? LC_MEM_REMOTE_WRITE : 0, handle);
	if (rc == LC_ERR_AGAIN)
		return VIP_ERROR_RESOURCE;
	if (rc != 0)
		return VIP_INVALID_PARAMETER;
	*lc = true;
	return VIP_SUCCESS;
}

int lcvipl_mem_deregister(uint32_t handle)
{
	return lcvipl_rdma_available() ? lc_mem_deregister(lcvipl_nic.node, handle) : 0;
}

/* A peer's advert: (node, handle) -> base, length, tag, right. */
void lcvipl_remote_learn(int node, const struct lcvipl_ctrl *c)
{
	struct lcvipl_remote *free_slot = NULL;
	for (unsigned k = 0; k < LCVIPL_MAX_REMOTE; k++) {
		struct lcvipl_remote *m = &lcvipl_nic.remotes[k];
		if (!m->live) {
			if (free_slot == NULL)
				free_slot = m;
			continue;
		}
		if (m->node == node && m->handle == c->handle) {
			free_slot = m;
			break;
		}
	}
	if (free_slot == NULL)
		return;         /* full: a write to it fails with VIP_STATUS_RDMA_PROT_ERROR */
	*free_slot = (struct lcvipl_remote){ .live = true, .node = node, .handle = c->handle, .base = c->base,
		.len = c->len, .ptag = c->ptag, .rdma_write = c->rdma_write != 0 };
}

static struct lcvipl_remote *lcvipl_remote_of(int node, uint32_t handle)
{
	for (unsigned k = 0; k < LCVIPL_MAX_REMOTE; k++) {
		struct lcvipl_remote *m = &lcvipl_nic.remotes[k];
		if (m->live && m->node == node && m->handle == handle)
			return m;
	}
	return NULL;
}

/*
 * Start the RDMA write of e (len bytes at buf) to the address segment's
 * (handle, address) at the peer: 0, -1 when no request is free (try again
 * later), or the status error bit to complete it with.  The writer checks
 * what the target's NIC cannot -- that the region is of the peer VI's tag,
 * that the peer VI accepts RDMA writes -- and, from the advert, the
 * bounds; the target's NIC checks the handle, the right and the bounds
 * again (LC_ERR_ACCESS: a region revoked since its advert, for one).
 */
int lcvipl_post_rdma(struct lcvipl_vi *vi, struct lcvipl_wqe *e, const void *buf, size_t len)
{
	const VIP_ADDRESS_SEGMENT *a = &e->d->DS[0].Remote;
	struct lcvipl_remote *m = lcvipl_remote_of(vi->peer_node, a->Handle);

	if (m == NULL) {
		/* its advert arrived before the message that named the handle: take it */
		lcvipl_dispatch();
		m = lcvipl_remote_of(vi->peer_node, a->Handle);
	}
	if (!vi->peer_attr.EnableRdmaWrite || m == NULL || !m->rdma_write || m->ptag != vi->peer_ptag ||
	    a->Data.AddressBits < m->base || a->Data.AddressBits - m->base > m->len ||
	    len > m->len - (a->Data.AddressBits - m->base))
		return VIP_STATUS_RDMA_PROT_ERROR;
	uint64_t off = a->Data.AddressBits - m->base;
	int rc;
	if (e->d->CS.Control & VIP_CONTROL_IMMEDIATE) {
		uint64_t match = LCVIPL_MAGIC | LCVIPL_KIND_NOTE | LCVIPL_IMM_BIT |
				 ((uint64_t)vi->peer_vi << LCVIPL_VI_SHIFT) | e->d->CS.ImmediateData;
		rc = lc_iput_notify(lcvipl_nic.node, vi->peer_node, a->Handle, off, buf, len, match,
				    lcvipl_note, 0, &e->req);
	} else
		rc = lc_iput(lcvipl_nic.node, vi->peer_node, a->Handle, off, buf, len, &e->req);
	if (rc == LC_ERR_AGAIN)
		return -1;
	if (rc == LC_ERR_ACCESS)
		return VIP_STATUS_RDMA_PROT_ERROR;
	return rc == 0 ? 0 : VIP_STATUS_TRANSPORT_ERROR;
}
