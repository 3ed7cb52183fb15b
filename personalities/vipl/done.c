/* SPDX-License-Identifier: MIT */
/* VipSendDone, VipRecvDone, VipSendWait, VipRecvWait, VipSendNotify, VipRecvNotify. */
#include "vipl_impl.h"

/* The oldest descriptor of q is complete already (no progress needed to take it). */
static inline bool lcvipl_head_done(const struct lcvipl_wq *q)
{
	return q->head != q->tail && q->e[q->head & (LCVIPL_MAX_QUEUE - 1)].done;
}

/*
 * The Done call on queue recv of ViHandle: the oldest if complete; when it
 * is not yet, one progress pass first (which stops once it completes).
 */
static VIP_RETURN lcvipl_done(VIP_VI_HANDLE ViHandle, bool recv, VIP_DESCRIPTOR **DescriptorPtr)
{
	if (DescriptorPtr == NULL)
		return VIP_INVALID_PARAMETER;
	*DescriptorPtr = NULL;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		struct lcvipl_wq *q = recv ? &vi->rq : &vi->sq;
		if (!lcvipl_head_done(q))
			lcvipl_poll_queue(vi, q, 1);
		r = lcvipl_take(vi, q, DescriptorPtr);
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
	double deadline = 0;            /* taken at the first look at the clock (after a pass) */
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL && (recv ? vi->rq.cq : vi->sq.cq) >= 0)
		r = VIP_INVALID_STATE;
	else if (vi != NULL) {
		unsigned spins = 0, polls = 0;
		for (;; polls++) {
			struct lcvipl_wq *q = recv ? &vi->rq : &vi->sq;
			if (!lcvipl_head_done(q))
				lcvipl_poll_queue(vi, q, LCVIPL_PASS_SPIN);
			if ((r = lcvipl_take(vi, q, DescriptorPtr)) != VIP_NOT_DONE)
				break;
			if (LCVIPL_CLOCK_DUE(polls, spins) &&
			    lcvipl_expired(polls == 0 ? (deadline = lcvipl_deadline(TimeOut)) : deadline)) {
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
