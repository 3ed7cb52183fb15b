/* SPDX-License-Identifier: MIT */
/* VipSendDone, VipRecvDone, VipSendWait, VipRecvWait, VipSendNotify, VipRecvNotify. */
#include "vipl_impl.h"

/* The Done call on queue recv of ViHandle: one progress pass, then the oldest if complete. */
static VIP_RETURN lcvipl_done(VIP_VI_HANDLE ViHandle, bool recv, VIP_DESCRIPTOR **DescriptorPtr)
{
	if (DescriptorPtr == NULL)
		return VIP_INVALID_PARAMETER;
	*DescriptorPtr = NULL;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		lcvipl_progress();
		r = lcvipl_take(vi, recv ? &vi->rq : &vi->sq, DescriptorPtr);
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipSendDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr)
{
	return lcvipl_done(ViHandle, false, DescriptorPtr);
}

VIP_RETURN VipRecvDone(VIP_VI_HANDLE ViHandle, VIP_DESCRIPTOR **DescriptorPtr)
{
	return lcvipl_done(ViHandle, true, DescriptorPtr);
}

/*
 * The Wait call: the Done call until a descriptor completes or TimeOut ms
 * passed (VIP_TIMEOUT).  A queue bound to a CQ is waited for there
 * (VIP_INVALID_STATE).
 */
static VIP_RETURN lcvipl_wait(VIP_VI_HANDLE ViHandle, bool recv, VIP_ULONG TimeOut,
			      VIP_DESCRIPTOR **DescriptorPtr)
{
	if (DescriptorPtr == NULL)
		return VIP_INVALID_PARAMETER;
	*DescriptorPtr = NULL;
	double deadline = lcvipl_deadline(TimeOut);
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL && (recv ? vi->rq.cq : vi->sq.cq) >= 0)
		r = VIP_INVALID_STATE;
	else if (vi != NULL) {
		unsigned spins = 0;
		for (;;) {
			lcvipl_progress();
			if ((r = lcvipl_take(vi, recv ? &vi->rq : &vi->sq, DescriptorPtr)) != VIP_NOT_DONE)
				break;
			if (lcvipl_expired(deadline)) {
				r = VIP_TIMEOUT;
				break;
			}
			lcvipl_pause(&spins);
			/* the VI may have been destroyed by another thread meanwhile */
			if ((vi = lcvipl_vi_of(ViHandle)) == NULL) {
				r = VIP_INVALID_PARAMETER;
				break;
			}
		}
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipSendWait(VIP_VI_HANDLE ViHandle, VIP_ULONG TimeOut, VIP_DESCRIPTOR **DescriptorPtr)
{
	return lcvipl_wait(ViHandle, false, TimeOut, DescriptorPtr);
}

VIP_RETURN VipRecvWait(VIP_VI_HANDLE ViHandle, VIP_ULONG TimeOut, VIP_DESCRIPTOR **DescriptorPtr)
{
	return lcvipl_wait(ViHandle, true, TimeOut, DescriptorPtr);
}

/* Arm the queue's one-shot callback, run by the provider thread (nic.c). */
static VIP_RETURN lcvipl_notify(VIP_VI_HANDLE ViHandle, bool recv, VIP_PVOID Context, VIP_VI_CALLBACK Callback)
{
	if (Callback == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		struct lcvipl_wq *q = recv ? &vi->rq : &vi->sq;
		if (q->cq >= 0)
			r = VIP_INVALID_STATE;
		else {
			q->notify = Callback;
			q->notify_ctx = Context;
			lcvipl_notifier_start();
			r = lcvipl_nic.notifier_on ? VIP_SUCCESS : VIP_ERROR_RESOURCE;
		}
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipSendNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context, VIP_VI_CALLBACK Callback)
{
	return lcvipl_notify(ViHandle, false, Context, Callback);
}

VIP_RETURN VipRecvNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context, VIP_VI_CALLBACK Callback)
{
	return lcvipl_notify(ViHandle, true, Context, Callback);
}
