/* SPDX-License-Identifier: MIT */
/* VipCreateCQ, VipDestroyCQ, VipResizeCQ, VipCQDone, VipCQWait, VipCQNotify. */
#include <stdlib.h>
#include <string.h>

#include "vipl_impl.h"

/*
 * A CQ is a ring of (VI, queue) entries, one per completed descriptor of
 * the work queues bound to it, in completion order (post.c, lcvipl_report).
 * The program takes an entry, then the descriptor with the Done call.  The
 * ring grows rather than lose an entry when more completions than
 * EntryCount are outstanding.
 */

static uint32_t lcvipl_pow2(VIP_ULONG n)
{
	uint32_t c = 1;
	while (c < n)
		c <<= 1;
	return c;
}

VIP_RETURN VipCreateCQ(VIP_NIC_HANDLE NicHandle, VIP_ULONG EntryCount, VIP_CQ_HANDLE *CQHandle)
{
	if (CQHandle == NULL || EntryCount == 0 || EntryCount > LCVIPL_MAX_CQE)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	VIP_RETURN r = VIP_ERROR_RESOURCE;
	if (!lcvipl_is_nic(NicHandle))
		r = VIP_INVALID_PARAMETER;
	else
		for (unsigned k = 0; k < LCVIPL_MAX_CQ; k++) {
			struct lcvipl_cq *cq = &lcvipl_nic.cqs[k];
			if (cq->live)
				continue;
			uint32_t cap = lcvipl_pow2(EntryCount);
			struct lcvipl_cqe *e = calloc(cap, sizeof *e);
			if (e == NULL)
				break;
			uint16_t gen = (uint16_t)(cq->gen + 1 ? cq->gen + 1 : 1);
			free(cq->e);
			*cq = (struct lcvipl_cq){ .live = true, .gen = gen, .cap = cap, .e = e };
			*CQHandle = LCVIPL_HANDLE(k, gen);
			r = VIP_SUCCESS;
			break;
		}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipDestroyCQ(VIP_CQ_HANDLE CQHandle)
{
	lcvipl_lock();
	struct lcvipl_cq *cq = lcvipl_cq_of(CQHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (cq != NULL && cq->users > 0)
		r = VIP_INVALID_STATE;
	else if (cq != NULL) {
		free(cq->e);
		cq->e = NULL;
		cq->live = false;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipResizeCQ(VIP_CQ_HANDLE CQHandle, VIP_ULONG EntryCount)
{
	lcvipl_lock();
	struct lcvipl_cq *cq = lcvipl_cq_of(CQHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (cq != NULL && EntryCount > 0 && EntryCount <= LCVIPL_MAX_CQE &&
	    EntryCount >= cq->tail - cq->head) {
		uint32_t cap = lcvipl_pow2(EntryCount);
		struct lcvipl_cqe *e = calloc(cap, sizeof *e);
		if (e == NULL)
			r = VIP_ERROR_RESOURCE;
		else {
			uint32_t n = cq->tail - cq->head;
			for (uint32_t k = 0; k < n; k++)
				e[k] = cq->e[(cq->head + k) & (cq->cap - 1)];
			free(cq->e);
			cq->e = e;
			cq->cap = cap;
			cq->head = 0;
			cq->tail = n;
			r = VIP_SUCCESS;
		}
	}
	lcvipl_unlock();
	return r;
}

/* Take the oldest entry of cq (lock held; inline: VipCQWait's path). */
static inline __attribute__((always_inline)) VIP_RETURN lcvipl_cq_take(struct lcvipl_cq *cq, VIP_VI_HANDLE *vi, VIP_BOOLEAN *recvq)
{
	while (cq->head != cq->tail) {
		struct lcvipl_cqe *e = &cq->e[cq->head++ & (cq->cap - 1)];
		struct lcvipl_vi *v = lcvipl_nic.vis[e->vi];
		if (v == NULL || v->gen != e->gen)
			continue;       /* the VI was destroyed since */
		*vi = LCVIPL_HANDLE(e->vi, e->gen);
		*recvq = e->recvq ? VIP_TRUE : VIP_FALSE;
		return VIP_SUCCESS;
	}
	return VIP_NOT_DONE;
}

VIP_RETURN VipCQDone(VIP_CQ_HANDLE CQHandle, VIP_VI_HANDLE *ViHandle, VIP_BOOLEAN *RecvQueue)
{
	if (ViHandle == NULL || RecvQueue == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_cq *cq = lcvipl_cq_of(CQHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (cq != NULL) {
		/* an entry there already needs no progress; else one pass (stopping at the first entry) */
		if ((r = lcvipl_cq_take(cq, ViHandle, RecvQueue)) == VIP_NOT_DONE) {
			lcvipl_pass(NULL, NULL, cq, lcvipl_nic.polls++ % LCVIPL_CTRL_POLLS == 0, 1);
			r = lcvipl_cq_take(cq, ViHandle, RecvQueue);
		}
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipCQWait(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_VI_HANDLE *ViHandle,
		     VIP_BOOLEAN *RecvQueue)
{
	if (ViHandle == NULL || RecvQueue == NULL)
		return VIP_INVALID_PARAMETER;
	double deadline = 0;            /* taken at the first look at the clock (after a pass) */
	lcvipl_lock();
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	unsigned spins = 0, polls = 0;
	for (struct lcvipl_cq *cq; (cq = lcvipl_cq_of(CQHandle)) != NULL; polls++) {
		if ((r = lcvipl_cq_take(cq, ViHandle, RecvQueue)) != VIP_NOT_DONE)
			break;
		LCVIPL_WAIT_PASS(NULL, NULL, cq);
		if ((r = lcvipl_cq_take(cq, ViHandle, RecvQueue)) != VIP_NOT_DONE)
			break;
		if (LCVIPL_CLOCK_DUE(polls, spins) &&
		    lcvipl_expired(polls == 0 ? (deadline = lcvipl_deadline(Timeout)) : deadline)) {
			r = VIP_TIMEOUT;
			break;
		}
		lcvipl_pause(&spins);
		r = VIP_INVALID_PARAMETER;
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipCQNotify(VIP_CQ_HANDLE CQHandle, VIP_PVOID Context, VIP_CQ_CALLBACK Handler)
{
	if (Handler == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_cq *cq = lcvipl_cq_of(CQHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (cq != NULL) {
		cq->notify = Handler;
		cq->notify_ctx = Context;
		lcvipl_notifier_start();
		r = lcvipl_nic.notifier_on ? VIP_SUCCESS : VIP_ERROR_RESOURCE;
	}
	lcvipl_unlock();
	return r;
}
