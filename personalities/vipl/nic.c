/* SPDX-License-Identifier: MIT */
/* VipOpenNic, VipCloseNic, VipQueryNic: the NIC is the process's libcomm node; the lock, handles, errors. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vipl_impl.h"

#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define LCVIPL_SINGLE_THREADED() (__libc_single_threaded != 0)
#endif
#endif

/*
 * One NIC per process, "nic0": the libcomm node of the job (lc_open once;
 * VipOpenNic again returns the same handle and counts).  Every call takes
 * the one lock (the NIC is thread-safe); the program's callbacks run after
 * it is released.
 */
struct lcvipl_nic lcvipl_nic;

#define LCVIPL_NIC_HANDLE ((VIP_NIC_HANDLE)&lcvipl_nic)
#define LCVIPL_DEVICE     "nic0"

/*
 * The lock: a spin lock that yields after a while, as libcomm's own
 * (comm.h, "Threads"): the calls hold it for a pass at most (the waits
 * leave it between passes, lcvipl_pause), and an uncontended take and
 * release cost a few instructions, a fraction of a mutex's.
 */
static __attribute__((noinline)) void lcvipl_lock_slow(void)
{
	unsigned spins = 0;
	do {
		while (atomic_load_explicit(&lcvipl_nic.lock, memory_order_relaxed))
			if (++spins > 256u)
				sched_yield();
	} while (atomic_exchange_explicit(&lcvipl_nic.lock, true, memory_order_acquire));
}

/*
 * A process that never started a thread (glibc's __libc_single_threaded)
 * cannot contend for the lock: a plain load and store take it, not a
 * locked exchange (about 20 cycles, and every VIPL call takes the lock:
 * five a ping-pong iteration).  The flag is cleared for good before a
 * process's first thread runs (the provider thread of the Notify calls, a
 * program's own), so from then on every take is the exchange; a lock held
 * across that moment is released as always (a release store).
 */
void lcvipl_lock(void)
{
#ifdef LCVIPL_SINGLE_THREADED
	if (LCVIPL_SINGLE_THREADED() && !atomic_load_explicit(&lcvipl_nic.lock, memory_order_relaxed)) {
		atomic_store_explicit(&lcvipl_nic.lock, true, memory_order_relaxed);
		return;
	}
#endif
	if (__builtin_expect(atomic_exchange_explicit(&lcvipl_nic.lock, true, memory_order_acquire), 0))
		lcvipl_lock_slow();
}

static inline void lcvipl_release(void)
{
	atomic_store_explicit(&lcvipl_nic.lock, false, memory_order_release);
}

static void lcvipl_default_handler(VIP_PVOID ctx, VIP_ERROR_DESCRIPTOR *e)
{
	(void)ctx;
	fprintf(stderr, "vipl: asynchronous error %d on resource %d (VI %p)\n", (int)e->ErrorCode,
		(int)e->ResourceCode, e->ViHandle);
}

static void lcvipl_unlock_errors(void);

void lcvipl_unlock(void)
{
	if (__builtin_expect(lcvipl_nic.nerr != 0, 0)) {
		lcvipl_unlock_errors();
		return;
	}
	lcvipl_release();
}

/* Release the lock, then give the queued asynchronous errors to the handler. */
static __attribute__((noinline)) void lcvipl_unlock_errors(void)
{
	VIP_ERROR_DESCRIPTOR q[LCVIPL_ERRQ];
	unsigned n = lcvipl_nic.nerr;
	VIP_ERROR_HANDLER h = lcvipl_nic.on_error ? lcvipl_nic.on_error : lcvipl_default_handler;
	VIP_PVOID ctx = lcvipl_nic.error_ctx;

	memcpy(q, lcvipl_nic.errq, n * sizeof q[0]);
	lcvipl_nic.nerr = 0;
	lcvipl_release();
	for (unsigned k = 0; k < n; k++)
		h(ctx, &q[k]);
}

double lcvipl_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The deadline of a wait of timeout_ms (VIP_INFINITE or more: none, a negative number). */
double lcvipl_deadline(VIP_ULONG timeout_ms)
{
	if (timeout_ms >= VIP_INFINITE)
		return -1.0;
	return lcvipl_now_us() + 1e3 * (double)timeout_ms;
}

bool lcvipl_expired(double deadline_us)
{
	return deadline_us >= 0 && lcvipl_now_us() >= deadline_us;
}

/*
 * Between two progress passes of a wait: release the lock (another thread
 * may call in) and count the pass's steps; past libcomm's spin limit also
 * yield the CPU, as libcomm's own waits do (lc_idle).
 */
void lcvipl_pause(unsigned *spins)
{
	lcvipl_unlock();
	(void)lc_idle(lcvipl_nic.node, spins, LCVIPL_PASS_SPIN);
	lcvipl_lock();
}

bool lcvipl_is_nic(VIP_NIC_HANDLE h)
{
	return h == LCVIPL_NIC_HANDLE && lcvipl_nic.refs > 0;
}

/* The slot a handle names (and its generation), or -1. */
int lcvipl_slot(VIP_PVOID h, unsigned max, uint16_t *gen)
{
	uintptr_t v = (uintptr_t)h;
	uintptr_t s = v & 0xFFFFu;

	if (lcvipl_nic.refs <= 0 || s == 0 || s > max || (v >> 32) != 0)
		return -1;
	*gen = (uint16_t)(v >> 16);
	return (int)(s - 1);
}

struct lcvipl_cq *lcvipl_cq_of(VIP_CQ_HANDLE h)
{
	uint16_t gen;
	int s = lcvipl_slot(h, LCVIPL_MAX_CQ, &gen);
	struct lcvipl_cq *cq = s < 0 ? NULL : &lcvipl_nic.cqs[s];
	return cq && cq->live && cq->gen == gen ? cq : NULL;
}

int lcvipl_ptag_of(VIP_PROTECTION_HANDLE h)
{
	uint16_t gen;
	int s = lcvipl_slot(h, LCVIPL_MAX_PTAG, &gen);
	return s >= 0 && lcvipl_nic.ptags[s].live && lcvipl_nic.ptags[s].gen == gen ? s : -1;
}

/* Queue an asynchronous error for the program's handler (delivered by lcvipl_unlock). */
void lcvipl_async_error(struct lcvipl_vi *vi, VIP_ERROR_CODE code, VIP_RESOURCE_CODE res)
{
	if (lcvipl_nic.nerr == LCVIPL_ERRQ)
		return;
	VIP_ERROR_DESCRIPTOR *e = &lcvipl_nic.errq[lcvipl_nic.nerr++];
	memset(e, 0, sizeof *e);
	e->NicHandle = LCVIPL_NIC_HANDLE;
	e->ViHandle = vi ? LCVIPL_HANDLE(LCVIPL_VI_SLOT(vi->num), vi->gen) : NULL;
	e->ResourceCode = res;
	e->ErrorCode = code;
}

VIP_RETURN VipOpenNic(const VIP_CHAR *DeviceName, VIP_NIC_HANDLE *NicHandle)
{
	VIP_RETURN r = VIP_SUCCESS;

	if (DeviceName == NULL || NicHandle == NULL || strcmp(DeviceName, LCVIPL_DEVICE) != 0)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	if (lcvipl_nic.refs == 0) {
		int rc = lc_open(&lcvipl_nic.node);
		if (rc == LC_ERR_BUSY || rc == LC_ERR_INVAL || rc == LC_ERR_RANGE)
			r = VIP_INVALID_PARAMETER;
		else if (rc != 0)
			r = VIP_ERROR_RESOURCE;
		else {
			lcvipl_nic.rank = lc_rank(lcvipl_nic.node);
			lcvipl_nic.size = lc_size(lcvipl_nic.node);
			for (unsigned k = 0; k < LCVIPL_ADDR_LEN; k++)
				lcvipl_nic.addr[k] = (uint8_t)((unsigned)lcvipl_nic.rank >> (8 * k));
			lcvipl_nic.next_handle = 1;
			lcvipl_nic.next_seq = 1;
			lcvipl_nic.ns = false;
			lcvipl_nic.nlisten = 0;
			lcvipl_nic.peers = false;
			lcvipl_ctrl_post();
		}
	}
	if (r == VIP_SUCCESS) {
		lcvipl_nic.refs++;
		*NicHandle = LCVIPL_NIC_HANDLE;
	}
	lcvipl_unlock();
	return r;
}

/* Release everything made on the NIC, then close the node (the last VipCloseNic). */
static void lcvipl_release_all(void)
{
	struct lcvipl_nic *n = &lcvipl_nic;

	for (unsigned k = 0; k < LCVIPL_MAX_VI; k++) {
		struct lcvipl_vi *vi = n->vis[k];
		if (vi == NULL)
			continue;
		if (vi->state == VIP_STATE_CONNECTED) {
			struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_DISC, .vi = vi->num };
			lcvipl_ctrl_send(vi->peer_node, vi->peer_vi, &c);
		}
		lcvipl_flush(vi);
		free(vi);
		n->vis[k] = NULL;
	}
	for (unsigned k = 0; k < LCVIPL_MAX_REGION; k++)
		if (n->regions[k].live && n->regions[k].lc)
			lcvipl_mem_deregister(n->regions[k].handle);
	for (unsigned k = 0; k < LCVIPL_MAX_CQ; k++)
		free(n->cqs[k].e);
	memset(n->ptags, 0, sizeof n->ptags);
	memset(n->regions, 0, sizeof n->regions);
	memset(n->remotes, 0, sizeof n->remotes);
	memset(n->cqs, 0, sizeof n->cqs);
	memset(n->conns, 0, sizeof n->conns);
	for (unsigned k = 0; k < n->nlisten; k++)
		lc_name_unregister(n->node, n->listen[k]);
	n->nlisten = 0;
	if (n->ctrl_req != NULL) {
		lc_cancel(n->node, n->ctrl_req);
		lc_wait(n->node, n->ctrl_req, NULL);
		n->ctrl_req = NULL;
	}
	n->peers = false;
	n->reqs = 0;
	n->vi_end = 0;
	lc_close(n->node);
	n->node = NULL;
}

VIP_RETURN VipCloseNic(VIP_NIC_HANDLE NicHandle)
{
	lcvipl_lock();
	if (!lcvipl_is_nic(NicHandle)) {
		lcvipl_unlock();
		return VIP_INVALID_PARAMETER;
	}
	if (--lcvipl_nic.refs == 0) {
		bool join = lcvipl_nic.notifier_on;
		lcvipl_nic.notifier_stop = true;
		if (join) {
			lcvipl_unlock();
			pthread_join(lcvipl_nic.notifier, NULL);
			lcvipl_lock();
		}
		lcvipl_nic.notifier_stop = false;
		lcvipl_release_all();
	}
	lcvipl_unlock();
	return VIP_SUCCESS;
}

VIP_RETURN VipQueryNic(VIP_NIC_HANDLE NicHandle, VIP_NIC_ATTRIBUTES *Attributes)
{
	if (Attributes == NULL)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	if (!lcvipl_is_nic(NicHandle)) {
		lcvipl_unlock();
		return VIP_INVALID_PARAMETER;
	}
	VIP_NIC_ATTRIBUTES *a = Attributes;
	memset(a, 0, sizeof *a);
	snprintf(a->Name, sizeof a->Name, "%s", LCVIPL_DEVICE);
	a->HardwareVersion = 1;
	a->ProviderVersion = 1;
	a->NicAddressLen = LCVIPL_ADDR_LEN;
	a->LocalNicAddress = lcvipl_nic.addr;
	a->ThreadSafe = VIP_TRUE;
	a->MaxDiscriminatorLen = LCVIPL_MAX_DISC;
	a->MaxRegisterBytes = LCVIPL_MAX_XFER;
	a->MaxRegisterRegions = LCVIPL_MAX_REGION;
	a->MaxRegisterBlockBytes = LCVIPL_MAX_XFER;
	a->MaxVI = LCVIPL_MAX_VI;
	a->MaxDescriptorsPerQueue = LCVIPL_MAX_QUEUE;
	a->MaxSegmentsPerDesc = LCVIPL_MAX_SEGS;
	a->MaxCQ = LCVIPL_MAX_CQ;
	a->MaxCQEntries = LCVIPL_MAX_CQE;
	a->MaxTransferSize = LCVIPL_MAX_XFER;
	a->NativeMTU = LC_MTU;
	a->MaxPtags = LCVIPL_MAX_PTAG;
	a->ReliabilityLevelSupport = LCVIPL_LEVELS;
	a->RDMAReadSupport = 0;
	lcvipl_unlock();
	return VIP_SUCCESS;
}

/* ---- The provider thread of the Notify calls ---- */

struct lcvipl_call {
	int kind;                       /* 0 CQ, 1 VI */
	VIP_PVOID ctx;
	VIP_CQ_CALLBACK cqf;
	VIP_VI_CALLBACK vif;
	VIP_VI_HANDLE vi;
	VIP_BOOLEAN recvq;
	VIP_DESCRIPTOR *d;
};

/* Collect the callbacks that are due (at most max) into out; *armed: some are still waiting. */
static unsigned lcvipl_due(struct lcvipl_call *out, unsigned max, bool *armed)
{
	struct lcvipl_nic *n = &lcvipl_nic;
	unsigned k = 0;

	*armed = false;
	for (unsigned c = 0; c < LCVIPL_MAX_CQ && k < max; c++) {
		struct lcvipl_cq *cq = &n->cqs[c];
		if (!cq->live || cq->notify == NULL)
			continue;
		if (cq->head == cq->tail) {
			*armed = true;
			continue;
		}
		struct lcvipl_cqe *e = &cq->e[cq->head & (cq->cap - 1)];
		struct lcvipl_vi *vi = n->vis[e->vi];
		out[k++] = (struct lcvipl_call){ .kind = 0, .ctx = cq->notify_ctx, .cqf = cq->notify,
			.vi = vi ? LCVIPL_HANDLE(e->vi, vi->gen) : NULL, .recvq = e->recvq };
		cq->head++;
		cq->notify = NULL;
	}
	for (unsigned v = 0; v < LCVIPL_MAX_VI && k < max; v++) {
		struct lcvipl_vi *vi = n->vis[v];
		for (int r = 0; vi && r < 2 && k < max; r++) {
			struct lcvipl_wq *q = r ? &vi->rq : &vi->sq;
			VIP_DESCRIPTOR *d;
			if (q->notify == NULL)
				continue;
			if (lcvipl_take(vi, q, &d) == VIP_NOT_DONE) {
				*armed = true;
				continue;
			}
			out[k++] = (struct lcvipl_call){ .kind = 1, .ctx = q->notify_ctx, .vif = q->notify,
				.vi = LCVIPL_HANDLE(v, vi->gen), .d = d };
			q->notify = NULL;
		}
	}
	return k;
}

static void *lcvipl_notifier(void *arg)
{
	(void)arg;
	for (;;) {
		struct lcvipl_call calls[16];
		bool armed;
		lcvipl_lock();
		if (lcvipl_nic.notifier_stop) {
			lcvipl_nic.notifier_on = false;
			lcvipl_unlock();
			return NULL;
		}
		lcvipl_progress();
		unsigned n = lcvipl_due(calls, 16, &armed);
		lcvipl_unlock();
		for (unsigned k = 0; k < n; k++) {
			if (calls[k].kind == 0)
				calls[k].cqf(calls[k].ctx, LCVIPL_NIC_HANDLE, calls[k].vi, calls[k].recvq);
			else
				calls[k].vif(calls[k].ctx, LCVIPL_NIC_HANDLE, calls[k].vi, calls[k].d);
		}
		if (n == 0) {
			struct timespec ts = { 0, armed ? 50000L : 1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

/* Start the provider thread once (lock held); it runs until the last VipCloseNic. */
void lcvipl_notifier_start(void)
{
	if (lcvipl_nic.notifier_on)
		return;
	if (pthread_create(&lcvipl_nic.notifier, NULL, lcvipl_notifier, NULL) == 0)
		lcvipl_nic.notifier_on = true;
}
