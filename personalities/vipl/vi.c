/* SPDX-License-Identifier: MIT */
/* VipCreateVi, VipDestroyVi, VipQueryVi, VipSetViAttributes. */
#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

/*
 * The attributes a VI may have on this NIC: one supported reliability
 * level, a transfer size within the NIC's, a live tag of the NIC, no RDMA
 * read.  VIP_SUCCESS or the code of the first problem; *ptag: the tag's slot.
 */
static VIP_RETURN lcvipl_vi_attr_check(const VIP_VI_ATTRIBUTES *a, int *ptag)
{
	VIP_RELIABILITY_LEVEL l = a->ReliabilityLevel;

	if (l == 0 || (l & (l - 1)) != 0 || (l & ~(VIP_RELIABILITY_LEVEL)LCVIPL_LEVELS) != 0)
		return VIP_INVALID_RELIABILITY_LEVEL;
	if (a->MaxTransferSize > LCVIPL_MAX_XFER)
		return VIP_INVALID_MTU;
	if ((*ptag = lcvipl_ptag_of(a->Ptag)) < 0)
		return VIP_INVALID_PTAG;
	if (a->EnableRdmaRead)
		return VIP_INVALID_RDMAREAD;
	return VIP_SUCCESS;
}

/* Bind queue q to the CQ named h (NULL: none). VIP_SUCCESS or VIP_INVALID_PARAMETER. */
static VIP_RETURN lcvipl_bind(struct lcvipl_wq *q, VIP_CQ_HANDLE h)
{
	q->cq = -1;
	if (h == NULL)
		return VIP_SUCCESS;
	struct lcvipl_cq *cq = lcvipl_cq_of(h);
	if (cq == NULL)
		return VIP_INVALID_PARAMETER;
	q->cq = (int)(cq - lcvipl_nic.cqs);
	return VIP_SUCCESS;
}

VIP_RETURN VipCreateVi(VIP_NIC_HANDLE NicHandle, VIP_VI_ATTRIBUTES *ViAttributes, VIP_CQ_HANDLE SendCQHandle,
		       VIP_CQ_HANDLE RecvCQHandle, VIP_VI_HANDLE *ViHandle)
{
	if (ViAttributes == NULL || ViHandle == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	int ptag = -1;
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	struct lcvipl_wq sq, rq;
	if (lcvipl_is_nic(NicHandle) && (r = lcvipl_vi_attr_check(ViAttributes, &ptag)) == VIP_SUCCESS &&
	    (r = lcvipl_bind(&sq, SendCQHandle)) == VIP_SUCCESS && (r = lcvipl_bind(&rq, RecvCQHandle)) == VIP_SUCCESS) {
		static uint16_t gens[LCVIPL_MAX_VI];
		unsigned k;
		r = VIP_ERROR_RESOURCE;
		for (k = 0; k < LCVIPL_MAX_VI && lcvipl_nic.vis[k] != NULL; k++)
			;
		struct lcvipl_vi *vi = k < LCVIPL_MAX_VI ? calloc(1, sizeof *vi) : NULL;
		if (vi != NULL) {
			gens[k] = (uint16_t)(gens[k] % 63u + 1u);       /* 1 .. 63 */
			vi->live = true;
			vi->gen = gens[k];
			vi->num = LCVIPL_VI_NUM(k, vi->gen);
			vi->state = VIP_STATE_IDLE;
			vi->attr = *ViAttributes;
			vi->ptag = (unsigned)ptag;
			vi->peer_node = -1;
			vi->sq.cq = sq.cq;
			vi->rq.cq = rq.cq;
			if (sq.cq >= 0)
				lcvipl_nic.cqs[sq.cq].users++;
			if (rq.cq >= 0)
				lcvipl_nic.cqs[rq.cq].users++;
			lcvipl_nic.ptags[ptag].users++;
			lcvipl_nic.vis[k] = vi;
			if (k + 1 > lcvipl_nic.vi_end)
				lcvipl_nic.vi_end = k + 1;
			*ViHandle = LCVIPL_HANDLE(k, vi->gen);
			r = VIP_SUCCESS;
		}
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipDestroyVi(VIP_VI_HANDLE ViHandle)
{
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL && (vi->state != VIP_STATE_IDLE || vi->peer_pending || vi->sq.head != vi->sq.tail ||
			   vi->rq.head != vi->rq.tail))
		r = VIP_INVALID_STATE;
	else if (vi != NULL) {
		if (vi->sq.cq >= 0)
			lcvipl_nic.cqs[vi->sq.cq].users--;
		if (vi->rq.cq >= 0)
			lcvipl_nic.cqs[vi->rq.cq].users--;
		lcvipl_nic.ptags[vi->ptag].users--;
		lcvipl_nic.vis[LCVIPL_VI_SLOT(vi->num)] = NULL;
		free(vi);
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipQueryVi(VIP_VI_HANDLE ViHandle, VIP_VI_STATE *State, VIP_VI_ATTRIBUTES *Attributes,
		      VIP_BOOLEAN *SendQueueEmpty, VIP_BOOLEAN *RecvQueueEmpty)
{
	if (State == NULL || Attributes == NULL || SendQueueEmpty == NULL || RecvQueueEmpty == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		lcvipl_progress();      /* a peer's disconnect shows in the state */
		*State = vi->state;
		*Attributes = vi->attr;
		*SendQueueEmpty = vi->sq.head == vi->sq.tail;
		*RecvQueueEmpty = vi->rq.head == vi->rq.tail;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

/* Idle: any valid attributes; connected: only those the peer does not depend on (the tag). */
VIP_RETURN VipSetViAttributes(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *Attributes)
{
	if (Attributes == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	int ptag = -1;
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL && (r = lcvipl_vi_attr_check(Attributes, &ptag)) == VIP_SUCCESS) {
		const VIP_VI_ATTRIBUTES *o = &vi->attr;
		if (vi->state != VIP_STATE_IDLE &&
		    (Attributes->ReliabilityLevel != o->ReliabilityLevel ||
		     Attributes->MaxTransferSize != o->MaxTransferSize ||
		     Attributes->EnableRdmaWrite != o->EnableRdmaWrite || (unsigned)ptag != vi->ptag))
			r = VIP_INVALID_STATE;
		else {
			lcvipl_nic.ptags[vi->ptag].users--;
			lcvipl_nic.ptags[ptag].users++;
			vi->ptag = (unsigned)ptag;
			vi->attr = *Attributes;
		}
	}
	lcvipl_unlock();
	return r;
}
