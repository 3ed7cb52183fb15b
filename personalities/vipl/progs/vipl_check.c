/* SPDX-License-Identifier: MIT */
/* VIPL personality test driver: each call's behaviour and errors, one mode per family, under commrun -n 2. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vipl.h>

/*
 * Usage: commrun -n 2 vipl_check MODE; every node prints "vipl_check ok:
 * MODE node N" when its part passed, "FAIL ..." otherwise (exit 1).
 *   calls    each node alone: NIC, name service, tags, registration, CQs,
 *            VIs and their argument errors; descriptors on an unconnected
 *            VI; a connection to an address nobody serves times out
 *   xfer     node 0 serves, node 1 connects: immediate data, gather and
 *            scatter over several segments, zero bytes, a receive too
 *            small, the CQ and Wait paths, notify callbacks, a rejected
 *            request, mismatched attributes, disconnect and flush
 *   peer     both nodes connect peer to peer, exchange, disconnect
 *   rdma     RDMA write with and without immediate data, every byte
 *            checked, gathered from several segments
 *   rdma_refused  the same, then the writes that must complete with
 *            VIP_STATUS_RDMA_PROT_ERROR: past the region's end, a region
 *            without the right, an unknown handle, below the region (the
 *            writer refuses them)
 *   rdma_revoked  rdma_refused, then a region revoked after its advert (the
 *            target's NIC refuses it: LC_ERR_ACCESS); not with a protocol
 *            that provides exactly_once, which resends a refused frame until
 *            it gives the peer up (docs/internals.md, "Puts")
 * The VIs use reliable delivery where the NIC offers it, else unreliable.
 */

#define PROG "vipl_check"
#define TMO  20000u             /* ms, every wait that should succeed */
/* ms, every wait that should time out: both nodes poll through it */
#define TMO_LATE 100u

static int me = -1;

#define FAIL(...)                                                     \
	do {                                                          \
		printf("FAIL node %d line %d: ", me, __LINE__);       \
		printf(__VA_ARGS__);                                  \
		printf("\n");                                         \
		fflush(stdout);                                       \
		exit(1);                                              \
	} while (0)
#define CHECK(cond, ...)                                              \
	do {                                                          \
		if (!(cond))                                          \
			FAIL(__VA_ARGS__);                            \
	} while (0)
/* A call that must return want. */
#define EXPECT(call, want)                                                            \
	do {                                                                          \
		VIP_RETURN r_ = (call);                                               \
		if (r_ != (want))                                                     \
			FAIL("%s returned %d, want %d (%s)", #call, (int)r_, (int)(want), #want); \
	} while (0)

/* ---- Set-up shared by the modes ---- */

#define MEM_BYTES (1u << 20)
#define NDESC     64u

static VIP_NIC_HANDLE nic;
static VIP_NIC_ATTRIBUTES na;
static VIP_PROTECTION_HANDLE tag;
static unsigned char *mem;      /* MEM_BYTES: descriptors first, then data */
static VIP_MEM_HANDLE mh;
static VIP_DESCRIPTOR *desc;    /* NDESC descriptors at mem */
static unsigned char *data;     /* the rest of mem */
static VIP_RELIABILITY_LEVEL level;

static void setup(void)
{
	void *p;
	EXPECT(VipOpenNic("nic0", &nic), VIP_SUCCESS);
	EXPECT(VipQueryNic(nic, &na), VIP_SUCCESS);
	me = (int)(na.LocalNicAddress[0] | na.LocalNicAddress[1] << 8);
	level = (na.ReliabilityLevelSupport & VIP_SERVICE_RELIABLE_DELIVERY) ? VIP_SERVICE_RELIABLE_DELIVERY
									       : VIP_SERVICE_UNRELIABLE;
	EXPECT(VipNSInit(nic, NULL), VIP_SUCCESS);
	EXPECT(VipCreatePtag(nic, &tag), VIP_SUCCESS);
	CHECK(posix_memalign(&p, 4096, MEM_BYTES) == 0, "posix_memalign");
	mem = p;
	memset(mem, 0, MEM_BYTES);
	VIP_MEM_ATTRIBUTES ma = { .Ptag = tag, .EnableRdmaWrite = VIP_FALSE, .EnableRdmaRead = VIP_FALSE };
	EXPECT(VipRegisterMem(nic, mem, MEM_BYTES, &ma, &mh), VIP_SUCCESS);
	desc = (VIP_DESCRIPTOR *)(void *)mem;
	data = mem + NDESC * sizeof(VIP_DESCRIPTOR);
}

static void teardown(void)
{
	EXPECT(VipDeregisterMem(nic, mem, mh), VIP_SUCCESS);
	EXPECT(VipDestroyPtag(nic, tag), VIP_SUCCESS);
	EXPECT(VipNSShutdown(nic), VIP_SUCCESS);
	EXPECT(VipCloseNic(nic), VIP_SUCCESS);
	free(mem);
}

static VIP_VI_ATTRIBUTES vi_attr(VIP_BOOLEAN rdma)
{
	return (VIP_VI_ATTRIBUTES){ .ReliabilityLevel = level, .MaxTransferSize = 1u << 20, .QoS = NULL,
				    .Ptag = tag, .EnableRdmaWrite = rdma, .EnableRdmaRead = VIP_FALSE };
}

/* An address of node n with discriminator disc, in a static buffer of its own (k: which). */
static VIP_NET_ADDRESS *addr(int k, int n, const char *disc)
{
	static unsigned char room[4][sizeof(VIP_NET_ADDRESS) + 64];
	VIP_NET_ADDRESS *a = (VIP_NET_ADDRESS *)(void *)room[k];
	char host[16];
	snprintf(host, sizeof host, "node%d", n);
	EXPECT(VipNSGetHostByName(nic, host, a, 0), VIP_SUCCESS);
	a->DiscriminatorLen = (VIP_UINT16)strlen(disc);
	memcpy(a->HostAddress + a->HostAddressLen, disc, strlen(disc));
	return a;
}

/* Descriptor k as a send/receive of the segments (p[i], len[i]), n of them. */
static VIP_DESCRIPTOR *sr(unsigned k, unsigned n, unsigned char *const p[], const size_t len[])
{
	VIP_DESCRIPTOR *d = &desc[k];
	size_t total = 0;
	CHECK(n <= 2 || k + 1 < NDESC, "descriptor room");
	memset(d, 0, sizeof *d + (n > 2 ? (n - 2) * sizeof d->DS[0] : 0));
	d->CS.SegCount = (VIP_UINT16)n;
	for (unsigned i = 0; i < n; i++) {
		d->DS[i].Local.Data.Address = p[i];
		d->DS[i].Local.Handle = mh;
		d->DS[i].Local.Length = (VIP_UINT32)len[i];
		total += len[i];
	}
	d->CS.Length = (VIP_UINT32)total;
	return d;
}

static unsigned char pat(unsigned seed, size_t i)
{
	return (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

/* Wait for the next send completion of vi, which must be d, without error. */
static void send_ok(VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d)
{
	VIP_DESCRIPTOR *got;
	EXPECT(VipSendWait(vi, TMO, &got), VIP_SUCCESS);
	CHECK(got == d, "send completed another descriptor");
	CHECK((got->CS.Status & VIP_STATUS_DONE) && !(got->CS.Status & VIP_STATUS_ERROR_MASK),
	      "send status 0x%x", (unsigned)got->CS.Status);
}

/* The next receive of vi through cq (or VipRecvWait when cq is NULL); returns its descriptor. */
static VIP_DESCRIPTOR *recv_next(VIP_VI_HANDLE vi, VIP_CQ_HANDLE cq, VIP_RETURN want)
{
	VIP_DESCRIPTOR *got = NULL;
	if (cq != NULL) {
		VIP_VI_HANDLE v;
		VIP_BOOLEAN rq;
		EXPECT(VipCQWait(cq, TMO, &v, &rq), VIP_SUCCESS);
		CHECK(v == vi && rq, "CQ entry of another queue");
		EXPECT(VipRecvDone(vi, &got), want);
	} else
		EXPECT(VipRecvWait(vi, TMO, &got), want);
	CHECK(got != NULL && (got->CS.Status & VIP_STATUS_DONE), "receive not done");
	return got;
}

/* Connect: node 0 waits on disc and accepts, node 1 requests. */
static void connect_vi(VIP_VI_HANDLE vi, const char *disc, VIP_VI_ATTRIBUTES *peer)
{
	if (me == 0) {
		VIP_CONN_HANDLE c;
		VIP_NET_ADDRESS *remote = addr(1, 0, "");
		EXPECT(VipConnectWait(nic, addr(0, 0, disc), TMO, remote, peer, &c), VIP_SUCCESS);
		CHECK(remote->HostAddress[0] == 1, "request from node %d", remote->HostAddress[0]);
		EXPECT(VipConnectAccept(c, vi), VIP_SUCCESS);
		EXPECT(VipConnectAccept(c, vi), VIP_INVALID_PARAMETER);        /* taken */
	} else
		EXPECT(VipConnectRequest(vi, addr(0, 1, "client"), addr(1, 0, disc), TMO, peer), VIP_SUCCESS);
}

/* ---- calls: every node alone ---- */

static int errors_seen;

static void on_error(VIP_PVOID ctx, VIP_ERROR_DESCRIPTOR *e)
{
	(void)ctx;
	(void)e;
	errors_seen++;
}

static atomic_int cq_notified;
static VIP_VI_HANDLE cq_notified_vi;

static void on_cq(VIP_PVOID ctx, VIP_NIC_HANDLE n, VIP_VI_HANDLE vi, VIP_BOOLEAN recvq)
{
	(void)n;
	/* before the flag: the waiter reads them once it saw the flag (release, acquire) */
	cq_notified_vi = vi;
	*(int *)ctx += 1;
	atomic_store(&cq_notified, recvq ? 2 : 1);
}

/* Wait (at most 20 s) until *flag is set. */
static void wait_flag(atomic_int *flag)
{
	struct timespec ts = { 0, 1000000 };
	for (int i = 0; i < 20000 && !atomic_load(flag); i++)
		nanosleep(&ts, NULL);
}

static void mode_calls(void)
{
	VIP_NIC_HANDLE n2;
	EXPECT(VipOpenNic("nic7", &n2), VIP_INVALID_PARAMETER);
	EXPECT(VipOpenNic(NULL, &n2), VIP_INVALID_PARAMETER);
	setup();
	EXPECT(VipOpenNic("nic0", &n2), VIP_SUCCESS);   /* the same NIC, counted */
	CHECK(n2 == nic, "a second open gives another handle");
	EXPECT(VipCloseNic(n2), VIP_SUCCESS);
	EXPECT(VipQueryNic((VIP_NIC_HANDLE)&na, &na), VIP_INVALID_PARAMETER);
	CHECK(strcmp(na.Name, "nic0") == 0 && na.NicAddressLen == 4 && na.MaxSegmentsPerDesc >= 2 &&
	      na.MaxTransferSize > 0 && na.NativeMTU > 0 && (na.ReliabilityLevelSupport & VIP_SERVICE_UNRELIABLE),
	      "attributes");
	EXPECT(VipErrorCallback(nic, NULL, on_error), VIP_SUCCESS);

	/* name service */
	unsigned char room[sizeof(VIP_NET_ADDRESS) + 16];
	VIP_NET_ADDRESS *a = (VIP_NET_ADDRESS *)(void *)room;
	char name[16];
	VIP_ULONG nl = sizeof name;
	EXPECT(VipNSGetHostByName(nic, "node1", a, 0), VIP_SUCCESS);
	CHECK(a->HostAddressLen == 4 && a->HostAddress[0] == 1, "node1's address");
	EXPECT(VipNSGetHostByAddr(nic, a, name, &nl), VIP_SUCCESS);
	CHECK(strcmp(name, "node1") == 0 && nl == 6, "name %s length %lu", name, nl);
	nl = 3;
	EXPECT(VipNSGetHostByAddr(nic, a, name, &nl), VIP_ERROR_RESOURCE);
	CHECK(nl == 6, "room needed %lu", nl);
	EXPECT(VipNSGetHostByName(nic, "node2", a, 0), VIP_ERROR_NAMESERVICE);
	EXPECT(VipNSGetHostByName(nic, "node01", a, 0), VIP_ERROR_NAMESERVICE);
	EXPECT(VipNSGetHostByName(nic, "node0", a, 1), VIP_ERROR_NAMESERVICE);
	EXPECT(VipNSGetHostByName(nic, "node0", a, 0), VIP_SUCCESS);

	/* autodiscovery: both nodes */
	unsigned char r0[sizeof(VIP_NET_ADDRESS) + 8], r1[sizeof(VIP_NET_ADDRESS) + 8];
	VIP_NET_ADDRESS *arr[2] = { (VIP_NET_ADDRESS *)(void *)r0, (VIP_NET_ADDRESS *)(void *)r1 };
	VIP_AUTODISCOVERY_LIST ad = { .ADAddrArray = arr, .NumAdAddrs = 2 };
	EXPECT(VipQuerySystemManagementInfo(nic, VIP_SMI_AUTODISCOVERY, &ad), VIP_SUCCESS);
	CHECK(ad.NumAdAddrs == 2 && arr[1]->HostAddress[0] == 1, "autodiscovery");
	EXPECT(VipQuerySystemManagementInfo(nic, 99, &ad), VIP_ERROR_NOT_SUPPORTED);

	/* tags and registration */
	VIP_PROTECTION_HANDLE t2, bogus = (VIP_PROTECTION_HANDLE)(uintptr_t)0x777;
	VIP_MEM_HANDLE h2;
	VIP_MEM_ATTRIBUTES ma = { .Ptag = bogus };
	EXPECT(VipCreatePtag(nic, &t2), VIP_SUCCESS);
	EXPECT(VipRegisterMem(nic, data, 4096, &ma, &h2), VIP_INVALID_PTAG);
	ma.Ptag = t2;
	ma.EnableRdmaRead = VIP_TRUE;
	EXPECT(VipRegisterMem(nic, data, 4096, &ma, &h2), VIP_INVALID_RDMAREAD);
	ma.EnableRdmaRead = VIP_FALSE;
	EXPECT(VipRegisterMem(nic, data, 0, &ma, &h2), VIP_INVALID_PARAMETER);
	EXPECT(VipRegisterMem(nic, data, 4096, &ma, &h2), VIP_SUCCESS);
	EXPECT(VipDestroyPtag(nic, t2), VIP_INVALID_STATE);     /* the region uses it */
	VIP_MEM_ATTRIBUTES q;
	EXPECT(VipQueryMem(nic, data, h2, &q), VIP_SUCCESS);
	CHECK(q.Ptag == t2 && !q.EnableRdmaWrite, "queried attributes");
	ma.Ptag = tag;
	EXPECT(VipSetMemAttributes(nic, data, h2, &ma), VIP_SUCCESS);
	EXPECT(VipDestroyPtag(nic, t2), VIP_SUCCESS);             /* no user left */
	EXPECT(VipDestroyPtag(nic, t2), VIP_INVALID_PARAMETER);
	EXPECT(VipDeregisterMem(nic, data + 1, h2), VIP_INVALID_PARAMETER);
	EXPECT(VipDeregisterMem(nic, data, h2), VIP_SUCCESS);
	EXPECT(VipDeregisterMem(nic, data, h2), VIP_INVALID_PARAMETER);

	/* CQs */
	VIP_CQ_HANDLE cq, cq2;
	VIP_VI_HANDLE vv;
	VIP_BOOLEAN rq;
	EXPECT(VipCreateCQ(nic, 0, &cq), VIP_INVALID_PARAMETER);
	EXPECT(VipCreateCQ(nic, 4, &cq), VIP_SUCCESS);
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_NOT_DONE);
	EXPECT(VipCQWait(cq, 0, &vv, &rq), VIP_TIMEOUT);
	EXPECT(VipResizeCQ(cq, 64), VIP_SUCCESS);

	/* VIs: attribute errors */
	VIP_VI_ATTRIBUTES va = vi_attr(VIP_FALSE);
	VIP_VI_HANDLE vi;
	va.ReliabilityLevel = VIP_SERVICE_RELIABLE_RECEPTION;
	EXPECT(VipCreateVi(nic, &va, NULL, NULL, &vi), VIP_INVALID_RELIABILITY_LEVEL);
	va = vi_attr(VIP_FALSE);
	va.MaxTransferSize = na.MaxTransferSize + 1;
	if (na.MaxTransferSize < (VIP_ULONG)-1)
		EXPECT(VipCreateVi(nic, &va, NULL, NULL, &vi), VIP_INVALID_MTU);
	va = vi_attr(VIP_FALSE);
	va.Ptag = bogus;
	EXPECT(VipCreateVi(nic, &va, NULL, NULL, &vi), VIP_INVALID_PTAG);
	va = vi_attr(VIP_FALSE);
	va.EnableRdmaRead = VIP_TRUE;
	EXPECT(VipCreateVi(nic, &va, NULL, NULL, &vi), VIP_INVALID_RDMAREAD);
	va = vi_attr(VIP_FALSE);
	EXPECT(VipCreateVi(nic, &va, cq, cq, &vi), VIP_SUCCESS);
	EXPECT(VipDestroyCQ(cq), VIP_INVALID_STATE);            /* the VI's queues report to it */
	EXPECT(VipDestroyPtag(nic, tag), VIP_INVALID_STATE);

	VIP_VI_STATE st;
	VIP_VI_ATTRIBUTES got;
	VIP_BOOLEAN sqe, rqe;
	EXPECT(VipQueryVi(vi, &st, &got, &sqe, &rqe), VIP_SUCCESS);
	CHECK(st == VIP_STATE_IDLE && sqe && rqe && got.ReliabilityLevel == level, "idle VI");
	EXPECT(VipSetViAttributes(vi, &va), VIP_SUCCESS);

	/* descriptors on the unconnected VI: a send completes flushed, a receive waits */
	unsigned char *p[3] = { data, data + 100, data + 200 };
	size_t len[3] = { 100, 100, 100 };
	VIP_DESCRIPTOR *d = sr(0, 1, p, len), *out;
	EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
	EXPECT(VipCQWait(cq, TMO, &vv, &rq), VIP_SUCCESS);
	CHECK(vv == vi && !rq, "CQ: the send queue");
	EXPECT(VipSendDone(vi, &out), VIP_DESCRIPTOR_ERROR);
	CHECK(out == d && (d->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR), "flushed: 0x%x", (unsigned)d->CS.Status);
	EXPECT(VipSendWait(vi, 0, &out), VIP_INVALID_STATE);     /* bound to a CQ */
	/* misaligned, outside its region, unknown handles */
	EXPECT(VipPostSend(vi, (VIP_DESCRIPTOR *)(void *)(data + 8), mh), VIP_INVALID_PARAMETER);
	EXPECT(VipPostSend(vi, d, mh + 1000), VIP_INVALID_PARAMETER);
	EXPECT(VipPostSend((VIP_VI_HANDLE)(uintptr_t)0x12345, d, mh), VIP_INVALID_PARAMETER);
	/* a data segment of another region's handle: a protection error */
	d = sr(1, 1, p, len);
	d->DS[0].Local.Handle = mh + 1000;
	EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
	EXPECT(VipSendDone(vi, &out), VIP_DESCRIPTOR_ERROR);
	CHECK(out == d && (d->CS.Status & VIP_STATUS_PROTECTION_ERROR), "protection: 0x%x", (unsigned)d->CS.Status);
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_SUCCESS);   /* its CQ entry */
	CHECK(vv == vi && !rq, "CQ: the send queue");
	/* Length not the sum of the segments: a format error */
	d = sr(2, 2, p, len);
	d->CS.Length = 7;
	EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
	EXPECT(VipSendDone(vi, &out), VIP_DESCRIPTOR_ERROR);
	CHECK(out == d && (d->CS.Status & VIP_STATUS_FORMAT_ERROR), "format: 0x%x", (unsigned)d->CS.Status);
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_SUCCESS);
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_NOT_DONE);
	/*
	 * a CQ of one entry given three completions, of two VIs in turn: it
	 * grows, none is lost or overwritten, they come in order
	 */
	VIP_VI_HANDLE vi2, who[3];
	EXPECT(VipCreateVi(nic, &va, cq, NULL, &vi2), VIP_SUCCESS);
	EXPECT(VipResizeCQ(cq, 1), VIP_SUCCESS);
	for (unsigned k = 0; k < 3; k++) {
		who[k] = k == 1 ? vi2 : vi;
		EXPECT(VipPostSend(who[k], sr(k, 1, p, len), mh), VIP_SUCCESS);
	}
	for (unsigned k = 0; k < 3; k++) {
		EXPECT(VipCQDone(cq, &vv, &rq), VIP_SUCCESS);
		CHECK(vv == who[k] && !rq, "grown CQ: entry %u of another queue", k);
		EXPECT(VipSendDone(vv, &out), VIP_DESCRIPTOR_ERROR);
		CHECK(out == &desc[k], "grown CQ: descriptor %u out of order", k);
	}
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_NOT_DONE);
	EXPECT(VipDestroyVi(vi2), VIP_SUCCESS);
	/* receives may be posted before connecting; the VI then is not destroyable */
	d = sr(3, 1, p, len);
	EXPECT(VipPostRecv(vi, d, mh), VIP_SUCCESS);
	EXPECT(VipRecvDone(vi, &out), VIP_NOT_DONE);
	CHECK(out == NULL, "no descriptor");
	EXPECT(VipQueryVi(vi, &st, &got, &sqe, &rqe), VIP_SUCCESS);
	CHECK(!rqe, "receive queue not empty");
	EXPECT(VipDestroyVi(vi), VIP_INVALID_STATE);

	/* nobody serves this address: the request times out */
	VIP_VI_ATTRIBUTES peer;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT(VipConnectRequest(vi, addr(0, me, "me"), addr(1, 1 - me, "nobody-serves-this"), TMO_LATE,
				 &peer), VIP_TIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	CHECK(ms >= TMO_LATE - 10 && ms < 5000, "timed out after %.0f ms", ms);
	EXPECT(VipQueryVi(vi, &st, &got, &sqe, &rqe), VIP_SUCCESS);
	CHECK(st == VIP_STATE_IDLE, "idle after the timeout");
	EXPECT(VipConnectWait(nic, addr(0, me, "x"), 0, addr(1, 0, ""), &peer, &(VIP_CONN_HANDLE){ 0 }),
	       VIP_TIMEOUT);
	EXPECT(VipConnectWait(nic, addr(0, 1 - me, "x"), 0, addr(1, 0, ""), &peer, &(VIP_CONN_HANDLE){ 0 }),
	       VIP_INVALID_PARAMETER);  /* not this NIC's address */

	/* disconnect an idle VI: the posted receive comes back flushed; a CQ callback takes its entry */
	static int calls;
	EXPECT(VipCQNotify(cq, &calls, on_cq), VIP_SUCCESS);
	EXPECT(VipDisconnect(vi), VIP_SUCCESS);
	wait_flag(&cq_notified);
	CHECK(atomic_load(&cq_notified) == 2 && cq_notified_vi == vi && calls == 1, "CQ callback: %d",
	      atomic_load(&cq_notified));
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_NOT_DONE);           /* the callback took the entry */
	EXPECT(VipRecvDone(vi, &out), VIP_DESCRIPTOR_ERROR);
	CHECK(out == &desc[3] && (out->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR), "flushed receive");
	EXPECT(VipDestroyVi(vi), VIP_SUCCESS);
	EXPECT(VipDestroyVi(vi), VIP_INVALID_PARAMETER);
	EXPECT(VipDestroyCQ(cq), VIP_SUCCESS);
	EXPECT(VipCQDone(cq, &vv, &rq), VIP_INVALID_PARAMETER);
	(void)cq2;
	CHECK(errors_seen == 0, "asynchronous errors: %d", errors_seen);
	teardown();
	EXPECT(VipCreatePtag(nic, &t2), VIP_INVALID_PARAMETER);   /* closed */
}

/* ---- xfer: node 0 serves, node 1 connects ---- */

static atomic_int notified;

static void on_recv(VIP_PVOID ctx, VIP_NIC_HANDLE n, VIP_VI_HANDLE vi, VIP_DESCRIPTOR *d)
{
	(void)n;
	(void)vi;
	*(VIP_DESCRIPTOR **)ctx = d;
	atomic_store(&notified, 1);
}

static void mode_xfer(void)
{
	setup();
	VIP_CQ_HANDLE cq;
	VIP_VI_HANDLE vi;
	VIP_VI_ATTRIBUTES va = vi_attr(VIP_FALSE), peer;
	VIP_DESCRIPTOR *d, *got;
	unsigned char *buf = data + 65536;      /* the data of this run */

	EXPECT(VipCreateCQ(nic, 8, &cq), VIP_SUCCESS);

	/* a request refused, then one with mismatched attributes, then the good one */
	if (me == 0) {
		VIP_CONN_HANDLE c;
		VIP_NET_ADDRESS *remote = addr(1, 0, "");
		VIP_VI_HANDLE small;
		VIP_VI_ATTRIBUTES sa = vi_attr(VIP_FALSE);
		sa.MaxTransferSize = 4096;
		EXPECT(VipCreateVi(nic, &sa, NULL, NULL, &small), VIP_SUCCESS);
		EXPECT(VipConnectWait(nic, addr(0, 0, "x"), TMO, remote, &peer, &c), VIP_SUCCESS);
		EXPECT(VipConnectReject(c), VIP_SUCCESS);
		EXPECT(VipConnectWait(nic, addr(0, 0, "x"), TMO, remote, &peer, &c), VIP_SUCCESS);
		EXPECT(VipConnectAccept(c, small), VIP_INVALID_MTU);
		EXPECT(VipConnectReject(c), VIP_SUCCESS);
		EXPECT(VipDestroyVi(small), VIP_SUCCESS);
	} else {
		VIP_VI_HANDLE v2;
		EXPECT(VipCreateVi(nic, &va, NULL, NULL, &v2), VIP_SUCCESS);
		EXPECT(VipConnectRequest(v2, addr(0, 1, "c"), addr(1, 0, "x"), TMO, &peer), VIP_REJECT);
		EXPECT(VipConnectRequest(v2, addr(0, 1, "c"), addr(1, 0, "x"), TMO, &peer), VIP_REJECT);
		EXPECT(VipDestroyVi(v2), VIP_SUCCESS);
	}

	EXPECT(VipCreateVi(nic, &va, NULL, cq, &vi), VIP_SUCCESS);
	/* receives pre-posted before connecting: 4 slots of 8 KiB */
	for (unsigned k = 0; k < 4; k++) {
		unsigned char *p[1] = { buf + k * 8192 };
		size_t len[1] = { 8192 };
		EXPECT(VipPostRecv(vi, sr(k, 1, p, len), mh), VIP_SUCCESS);
	}
	connect_vi(vi, "xfer", &peer);
	CHECK(peer.ReliabilityLevel == level && peer.MaxTransferSize == va.MaxTransferSize, "peer attributes");
	VIP_VI_STATE st;
	VIP_VI_ATTRIBUTES a2;
	VIP_BOOLEAN e1, e2;
	EXPECT(VipQueryVi(vi, &st, &a2, &e1, &e2), VIP_SUCCESS);
	CHECK(st == VIP_STATE_CONNECTED, "connected");
	EXPECT(VipConnectRequest(vi, addr(0, me, "c"), addr(1, 1 - me, "xfer"), 10, &peer), VIP_INVALID_STATE);

	unsigned char *src = data + 200000;
	if (me == 1) {
		/* 1. immediate data with 1000 bytes; 2. a gather of three segments; 3. zero bytes + immediate */
		for (size_t i = 0; i < 3000; i++)
			src[i] = pat(1, i);
		unsigned char *p1[1] = { src };
		size_t l1[1] = { 1000 };
		d = sr(10, 1, p1, l1);
		d->CS.Control = VIP_CONTROL_IMMEDIATE;
		d->CS.ImmediateData = 0xC0FFEE01u;
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		unsigned char *p3[3] = { src, src + 7, src + 1500 };
		size_t l3[3] = { 7, 1493, 1500 };
		d = sr(10, 3, p3, l3);
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		d = sr(10, 0, NULL, NULL);
		d->CS.Control = VIP_CONTROL_IMMEDIATE;
		d->CS.ImmediateData = 7;
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		/* 4. one byte; 5. 8000 bytes into node 0's receive of 100: a length error there */
		d = sr(10, 1, p1, (size_t[]){ 1 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		d = sr(10, 1, p1, (size_t[]){ 8000 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		/* 5. node 0 echoes a scatter check: wait for its send */
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[0] && got->CS.Length == 2500, "echo length %u", (unsigned)got->CS.Length);
		for (size_t i = 0; i < 2500; i++)
			CHECK(buf[i] == pat(2, i), "echo byte %zu", i);
	} else {
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[0] && (got->CS.Status & VIP_STATUS_OP_MASK) == VIP_STATUS_OP_RECEIVE,
		      "first receive");
		CHECK((got->CS.Status & VIP_STATUS_IMMEDIATE) && got->CS.ImmediateData == 0xC0FFEE01u &&
		      got->CS.Length == 1000, "immediate 0x%x length %u", (unsigned)got->CS.ImmediateData,
		      (unsigned)got->CS.Length);
		for (size_t i = 0; i < 1000; i++)
			CHECK(buf[i] == pat(1, i), "byte %zu", i);
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[1] && got->CS.Length == 3000 && !(got->CS.Status & VIP_STATUS_IMMEDIATE),
		      "gathered message: length %u", (unsigned)got->CS.Length);
		for (size_t i = 0; i < 3000; i++)
			CHECK(buf[8192 + i] == pat(1, i), "gathered byte %zu", i);
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[2] && got->CS.Length == 0 && got->CS.ImmediateData == 7, "zero bytes");
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[3] && got->CS.Length == 1, "fourth receive");
		/* the fifth message does not fit the receive of 100 bytes */
		unsigned char *ps[1] = { buf + 40000 };
		EXPECT(VipPostRecv(vi, sr(20, 1, ps, (size_t[]){ 100 }), mh), VIP_SUCCESS);
		got = recv_next(vi, cq, VIP_DESCRIPTOR_ERROR);
		CHECK(got == &desc[20] && (got->CS.Status & VIP_STATUS_LENGTH_ERROR), "too small: 0x%x",
		      (unsigned)got->CS.Status);
		/* the echo, sent as a gather of two, to check node 1's single receive */
		for (size_t i = 0; i < 2500; i++)
			src[i] = pat(2, i);
		unsigned char *pe[2] = { src, src + 1000 };
		d = sr(10, 2, pe, (size_t[]){ 1000, 1500 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		EXPECT(VipSendWait(vi, TMO, &got), VIP_SUCCESS);
		CHECK(got == d, "echo sent");
		/* receives for node 1's "go" and its last message */
		EXPECT(VipPostRecv(vi, sr(21, 1, (unsigned char *[]){ buf + 41000 }, (size_t[]){ 64 }), mh),
		       VIP_SUCCESS);
		EXPECT(VipPostRecv(vi, sr(22, 1, (unsigned char *[]){ buf + 42000 }, (size_t[]){ 64 }), mh),
		       VIP_SUCCESS);
	}

	/* scatter: node 1 posts three segments, node 0 sends 3000 bytes; notify delivers it */
	if (me == 1) {
		VIP_DESCRIPTOR *rd = NULL;
		unsigned char *ps[3] = { buf + 50000, buf + 51000, buf + 52000 };
		d = sr(30, 3, ps, (size_t[]){ 10, 990, 4000 });
		/* the previous receive queue: desc[1..3] are still posted; bind their order */
		EXPECT(VipPostRecv(vi, d, mh), VIP_SUCCESS);
		/* the "go" message */
		unsigned char *pg[1] = { src };
		EXPECT(VipPostSend(vi, sr(11, 1, pg, (size_t[]){ 1 }), mh), VIP_SUCCESS);
		send_ok(vi, &desc[11]);
		for (unsigned k = 1; k < 4; k++) {
			got = recv_next(vi, cq, VIP_SUCCESS);
			CHECK(got == &desc[k], "receive %u", k);
		}
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == d && d->CS.Length == 3000, "scattered length %u", (unsigned)d->CS.Length);
		for (size_t i = 0; i < 3000; i++) {
			unsigned char b = i < 10 ? buf[50000 + i] : i < 1000 ? buf[51000 + i - 10] : buf[52000 + i - 1000];
			CHECK(b == pat(3, i), "scattered byte %zu", i);
		}
		(void)rd;
	} else {
		/* three filler messages for node 1's three older receives, then the scattered one */
		got = recv_next(vi, cq, VIP_SUCCESS);   /* "go" */
		CHECK(got == &desc[21], "go");
		for (size_t i = 0; i < 3000; i++)
			src[i] = pat(3, i);
		for (unsigned k = 0; k < 3; k++) {
			unsigned char *pf[1] = { src };
			d = sr(12, 1, pf, (size_t[]){ 1 });
			EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
			send_ok(vi, d);
		}
		unsigned char *pm[1] = { src };
		d = sr(12, 1, pm, (size_t[]){ 3000 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
	}

	/* the end: node 0 disconnects after a last message; node 1 sees the Error state */
	if (me == 0) {
		unsigned char *pl[1] = { src };
		d = sr(12, 1, pl, (size_t[]){ 1 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		/* the last message from node 1 says it is done receiving */
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[22], "node 1's last message");
		EXPECT(VipDisconnect(vi), VIP_SUCCESS);
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);    /* idle now: flushed */
		EXPECT(VipSendWait(vi, TMO, &got), VIP_DESCRIPTOR_ERROR);
		CHECK(got == d && (d->CS.Status & VIP_STATUS_DESC_FLUSHED_ERROR), "flushed after disconnect");
	} else {
		/* a notify callback takes the last message */
		VIP_DESCRIPTOR *nd = NULL;
		VIP_VI_HANDLE v2;
		unsigned char *pn[1] = { buf };
		EXPECT(VipErrorCallback(nic, NULL, on_error), VIP_SUCCESS);
		EXPECT(VipCreateVi(nic, &va, NULL, NULL, &v2), VIP_SUCCESS);
		EXPECT(VipRecvNotify(vi, &nd, on_recv), VIP_INVALID_STATE);    /* bound to the CQ */
		EXPECT(VipDestroyVi(v2), VIP_SUCCESS);
		EXPECT(VipPostRecv(vi, sr(31, 1, pn, (size_t[]){ 64 }), mh), VIP_SUCCESS);
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[31], "last message");
		unsigned char *pl[1] = { src };
		d = sr(12, 1, pl, (size_t[]){ 1 });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		struct timespec ts = { 0, 1000000 };
		VIP_VI_STATE s2 = VIP_STATE_CONNECTED;
		for (int i = 0; i < 20000 && s2 == VIP_STATE_CONNECTED; i++) {
			EXPECT(VipQueryVi(vi, &s2, &a2, &e1, &e2), VIP_SUCCESS);
			nanosleep(&ts, NULL);
		}
		CHECK(s2 == VIP_STATE_ERROR, "state %d after the peer left", (int)s2);
		EXPECT(VipPostSend(vi, d, mh), VIP_INVALID_STATE);
		CHECK(errors_seen == (level == VIP_SERVICE_UNRELIABLE ? 0 : 1), "%d asynchronous errors",
		      errors_seen);     /* the lost connection, on reliable delivery */
		EXPECT(VipDisconnect(vi), VIP_SUCCESS);
	}
	EXPECT(VipDestroyVi(vi), me == 0 ? VIP_SUCCESS : VIP_SUCCESS);
	EXPECT(VipDestroyCQ(cq), VIP_SUCCESS);
	teardown();
	(void)notified;
}

/* ---- peer: both ends request ---- */

static void mode_peer(void)
{
	setup();
	EXPECT(VipErrorCallback(nic, NULL, on_error), VIP_SUCCESS);    /* the peer leaving: counted */
	VIP_VI_HANDLE vi;
	VIP_VI_ATTRIBUTES va = vi_attr(VIP_FALSE), peer;
	VIP_DESCRIPTOR *got, *nd = NULL;
	unsigned char *p[1] = { data };

	EXPECT(VipCreateVi(nic, &va, NULL, NULL, &vi), VIP_SUCCESS);
	EXPECT(VipPostRecv(vi, sr(0, 1, p, (size_t[]){ 64 }), mh), VIP_SUCCESS);
	unsigned char *pb[1] = { data + 8192 };
	if (me == 0)    /* for node 1's last message, which may come before its disconnect */
		EXPECT(VipPostRecv(vi, sr(2, 1, pb, (size_t[]){ 8 }), mh), VIP_SUCCESS);
	EXPECT(VipConnectPeerRequest(vi, addr(0, me, me ? "b" : "a"), addr(1, 1 - me, me ? "a" : "b"), TMO),
	       VIP_SUCCESS);
	EXPECT(VipConnectPeerWait(vi, &peer), VIP_SUCCESS);
	EXPECT(VipConnectPeerDone(vi, &peer), VIP_SUCCESS);
	CHECK(peer.ReliabilityLevel == level, "peer level");
	unsigned char *ps[1] = { data + 4096 };
	data[4096] = (unsigned char)(0x40 + me);
	VIP_DESCRIPTOR *d = sr(1, 1, ps, (size_t[]){ 1 });
	d->CS.Control = VIP_CONTROL_IMMEDIATE;
	d->CS.ImmediateData = (VIP_UINT32)(100 + me);
	/* the receive completes through the notify callback, on the provider thread */
	EXPECT(VipRecvNotify(vi, &nd, on_recv), VIP_SUCCESS);
	EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
	send_ok(vi, d);
	wait_flag(&notified);
	CHECK(atomic_load(&notified) && nd == &desc[0], "notify callback");

	got = nd;
	CHECK(got->CS.Length == 1 && data[0] == 0x40 + (1 - me) && got->CS.ImmediateData == (VIP_UINT32)(101 - me),
	      "peer message");
	/* a peer request that nobody answers times out */
	VIP_VI_HANDLE v2;
	EXPECT(VipCreateVi(nic, &va, NULL, NULL, &v2), VIP_SUCCESS);
	EXPECT(VipConnectPeerRequest(v2, addr(0, me, "q"), addr(1, 1 - me, "nobody"), TMO_LATE),
	       VIP_SUCCESS);
	EXPECT(VipConnectPeerWait(v2, &peer), VIP_TIMEOUT);
	EXPECT(VipDestroyVi(v2), VIP_SUCCESS);
	/* node 1 says it is done with a send that completes through its callback; then both leave */
	if (me == 0) {
		EXPECT(VipRecvWait(vi, TMO, &got), VIP_SUCCESS);
		CHECK(got == &desc[2], "node 1's last message");
	} else {
		VIP_DESCRIPTOR *sd = NULL;
		atomic_store(&notified, 0);
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		EXPECT(VipSendNotify(vi, &sd, on_recv), VIP_SUCCESS);
		wait_flag(&notified);
		CHECK(atomic_load(&notified) && sd == d && (d->CS.Status & VIP_STATUS_DONE), "send notify callback");
	}
	EXPECT(VipDisconnect(vi), VIP_SUCCESS);
	EXPECT(VipDestroyVi(vi), VIP_SUCCESS);
	teardown();
}

/* ---- rdma: node 1 is the target, node 0 writes ---- */

static unsigned refusals;       /* rdma_refused: the writes the writer refuses (4), rdma_revoked: and the target's NIC (5) */

static void mode_rdma(void)
{
	setup();
	VIP_CQ_HANDLE cq;
	VIP_VI_HANDLE vi;
	VIP_VI_ATTRIBUTES va = vi_attr(VIP_TRUE), peer;
	VIP_DESCRIPTOR *got, *d;
	void *tp, *rp, *xp;
	VIP_MEM_HANDLE th = 0, rh = 0, xh = 0;
	const size_t tlen = 300000;     /* the target region: more than one frame, not a page multiple */

	CHECK(posix_memalign(&tp, 4096, 1u << 19) == 0 && posix_memalign(&rp, 4096, 4096) == 0 &&
	      posix_memalign(&xp, 4096, 4096) == 0, "memalign");
	memset(tp, 0, 1u << 19);
	memset(rp, 0, 4096);
	VIP_MEM_ATTRIBUTES ma = { .Ptag = tag, .EnableRdmaWrite = VIP_TRUE };
	EXPECT(VipRegisterMem(nic, tp, tlen, &ma, &th), VIP_SUCCESS);
	ma.EnableRdmaWrite = VIP_FALSE;
	EXPECT(VipRegisterMem(nic, rp, 4096, &ma, &rh), VIP_SUCCESS);  /* read-only to peers */
	ma.EnableRdmaWrite = VIP_TRUE;
	EXPECT(VipRegisterMem(nic, xp, 4096, &ma, &xh), VIP_SUCCESS);  /* revoked once advertised */
	EXPECT(VipErrorCallback(nic, NULL, on_error), VIP_SUCCESS);    /* the peer leaving: counted */
	EXPECT(VipCreateCQ(nic, 8, &cq), VIP_SUCCESS);
	EXPECT(VipCreateVi(nic, &va, NULL, cq, &vi), VIP_SUCCESS);
	unsigned char *p[1] = { data };
	for (unsigned k = 0; k < 4; k++)
		EXPECT(VipPostRecv(vi, sr(k, 1, (unsigned char *[]){ data + k * 64 }, (size_t[]){ 64 }), mh),
		       VIP_SUCCESS);
	connect_vi(vi, "rdma", &peer);
	CHECK(peer.EnableRdmaWrite, "the peer VI takes RDMA writes");

	struct adv {
		uint64_t addr, raddr, xaddr;
		VIP_MEM_HANDLE h, rh, xh;
	} m;
	if (me == 1) {
		/* the peer learnt xp's advert when the VI connected: revoke it behind its back */
		EXPECT(VipDeregisterMem(nic, xp, xh), VIP_SUCCESS);
		m = (struct adv){ (uint64_t)(uintptr_t)tp, (uint64_t)(uintptr_t)rp, (uint64_t)(uintptr_t)xp,
				  th, rh, xh };
		memcpy(data + 4096, &m, sizeof m);
		d = sr(10, 1, (unsigned char *[]){ data + 4096 }, (size_t[]){ sizeof m });
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		send_ok(vi, d);
		/* 1: the write with immediate data takes receive 0 */
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[0] && (got->CS.Status & VIP_STATUS_OP_MASK) == VIP_STATUS_OP_REMOTE_RDMA_WRITE &&
		      (got->CS.Status & VIP_STATUS_IMMEDIATE) && got->CS.ImmediateData == 0xABCD1234u,
		      "remote RDMA write status 0x%x immediate 0x%x", (unsigned)got->CS.Status,
		      (unsigned)got->CS.ImmediateData);
		for (size_t i = 0; i < tlen - 1000; i++)
			CHECK(((unsigned char *)tp)[1000 + i] == pat(5, i), "RDMA byte %zu", i);
		/* 2: the writes without immediate data, then a send */
		got = recv_next(vi, cq, VIP_SUCCESS);
		CHECK(got == &desc[1] && got->CS.Length == 1, "notice");
		for (size_t i = 0; i < 1000; i++)     /* before the first write's bytes, untouched by it */
			CHECK(((unsigned char *)tp)[i] == pat(6, i), "second RDMA byte %zu", i);
		for (size_t i = 0; i < 4096; i++)
			CHECK(((unsigned char *)rp)[i] == 0, "read-only region written at %zu", i);
		got = recv_next(vi, cq, VIP_SUCCESS);   /* node 0 is done */
		EXPECT(VipDisconnect(vi), VIP_SUCCESS);
		while (VipRecvDone(vi, &got) != VIP_NOT_DONE)
			;
	} else {
		got = recv_next(vi, cq, VIP_SUCCESS);
		memcpy(&m, data, sizeof m);
		unsigned char *src = data + 65536;
		for (size_t i = 0; i < tlen - 1000; i++)
			src[i] = pat(5, i);
		/* 1: write with immediate, gathered from two segments, at offset 1000 */
		d = &desc[10];
		memset(d, 0, 2 * sizeof *d);
		d->CS.Control = VIP_CONTROL_OP_RDMAWRITE | VIP_CONTROL_IMMEDIATE;
		d->CS.ImmediateData = 0xABCD1234u;
		d->CS.SegCount = 3;
		d->CS.Length = (VIP_UINT32)(tlen - 1000);
		/* the segments after the control segment (three: beyond the two of VIP_DESCRIPTOR) */
		VIP_DESCRIPTOR_SEGMENT *seg = (VIP_DESCRIPTOR_SEGMENT *)(void *)((unsigned char *)d + sizeof d->CS);
		seg[0].Remote.Data.AddressBits = m.addr + 1000;
		seg[0].Remote.Handle = m.h;
		seg[1].Local.Data.Address = src;
		seg[1].Local.Handle = mh;
		seg[1].Local.Length = 70000;
		seg[2].Local.Data.Address = src + 70000;
		seg[2].Local.Handle = mh;
		seg[2].Local.Length = (VIP_UINT32)(tlen - 1000 - 70000);
		EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
		EXPECT(VipSendWait(vi, TMO, &got), VIP_SUCCESS);
		CHECK(got == d && (got->CS.Status & VIP_STATUS_OP_MASK) == VIP_STATUS_OP_RDMA_WRITE, "write done");
		/* 2: write without immediate; then the refused ones; then a send */
		for (size_t i = 0; i < 1000; i++)
			src[i] = pat(6, i);
		struct {
			uint64_t addr;
			VIP_MEM_HANDLE h;
			size_t len;
			VIP_RETURN want;
		} w[] = {
			{ m.addr, m.h, 1000, VIP_SUCCESS },
			{ m.addr + tlen - 10, m.h, 20, VIP_DESCRIPTOR_ERROR },  /* beyond the region */
			{ m.raddr, m.rh, 16, VIP_DESCRIPTOR_ERROR },            /* no RDMA-write right */
			{ m.addr, m.h + 999, 16, VIP_DESCRIPTOR_ERROR },        /* unknown handle */
			{ m.addr - 4096, m.h, 16, VIP_DESCRIPTOR_ERROR },       /* below the region */
			{ m.xaddr, m.xh, 16, VIP_DESCRIPTOR_ERROR },            /* revoked: the NIC refuses */
		};
		for (unsigned k = 0; k < 1 + refusals; k++) {
			memset(d, 0, sizeof *d);
			d->CS.Control = VIP_CONTROL_OP_RDMAWRITE;
			d->CS.SegCount = 2;
			d->CS.Length = (VIP_UINT32)w[k].len;
			d->DS[0].Remote.Data.AddressBits = w[k].addr;
			d->DS[0].Remote.Handle = w[k].h;
			d->DS[1].Local.Data.Address = src;
			d->DS[1].Local.Handle = mh;
			d->DS[1].Local.Length = (VIP_UINT32)w[k].len;
			EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
			VIP_RETURN rk = VipSendWait(vi, TMO, &got);
			CHECK(rk == w[k].want, "write %u: %d, want %d", k, (int)rk, (int)w[k].want);
			CHECK(got == d, "write %u", k);
			CHECK(w[k].want == VIP_SUCCESS || (got->CS.Status & VIP_STATUS_RDMA_PROT_ERROR),
			      "write %u: status 0x%x", k, (unsigned)got->CS.Status);
		}
		for (unsigned k = 0; k < 2; k++) {
			d = sr(11, 1, p, (size_t[]){ 1 });
			EXPECT(VipPostSend(vi, d, mh), VIP_SUCCESS);
			send_ok(vi, d);
		}
		/* wait for node 1 to leave, then disconnect */
		VIP_VI_STATE s2 = VIP_STATE_CONNECTED;
		VIP_VI_ATTRIBUTES a2;
		VIP_BOOLEAN e1, e2;
		struct timespec ts = { 0, 1000000 };
		for (int i = 0; i < 20000 && s2 == VIP_STATE_CONNECTED; i++) {
			EXPECT(VipQueryVi(vi, &s2, &a2, &e1, &e2), VIP_SUCCESS);
			nanosleep(&ts, NULL);
		}
		EXPECT(VipDisconnect(vi), VIP_SUCCESS);
		while (VipRecvDone(vi, &got) != VIP_NOT_DONE)
			;
	}
	EXPECT(VipDestroyVi(vi), VIP_SUCCESS);
	EXPECT(VipDestroyCQ(cq), VIP_SUCCESS);
	EXPECT(VipDeregisterMem(nic, rp, rh), VIP_SUCCESS);
	EXPECT(VipDeregisterMem(nic, tp, th), VIP_SUCCESS);
	EXPECT(VipDeregisterMem(nic, xp, xh), me == 0 ? VIP_SUCCESS : VIP_INVALID_PARAMETER);
	teardown();
	free(tp);
	free(rp);
	free(xp);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} modes[] = {
		{ "calls", mode_calls },
		{ "xfer", mode_xfer },
		{ "peer", mode_peer },
		{ "rdma", mode_rdma },
		{ "rdma_refused", mode_rdma },
		{ "rdma_revoked", mode_rdma },
	};
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t k = 0; argc == 2 && k < sizeof modes / sizeof modes[0]; k++)
		if (strcmp(argv[1], modes[k].name) == 0) {
			refusals = strcmp(argv[1], "rdma_refused") == 0 ? 4u :
				   strcmp(argv[1], "rdma_revoked") == 0 ? 5u : 0u;
			modes[k].fn();
			printf(PROG " ok: %s node %d\n", argv[1], me);
			return 0;
		}
	fprintf(stderr, "usage: commrun -n 2 " PROG " calls|xfer|peer|rdma|rdma_refused|rdma_revoked\n");
	return 2;
}
