/* SPDX-License-Identifier: MIT */
/* vipl_ex.h: what the VIPL examples share: command line, set-up, connection, errors, teardown. */
#ifndef VIPL_EX_H
#define VIPL_EX_H

/*
 * The examples of this directory (pingpong.c, rdma.c) include this header
 * and keep only their own logic.  Like them it uses the published VIPL API
 * and nothing else (the data pattern is the native examples',
 * ../lc_ex_pattern.h: plain C, no libcomm); all it defines is static or static inline, with the
 * prefix vex_ (VEX_).  A program defines VEX_PROG, its name (the start of
 * every message), and includes this header before any other.
 *
 * Roles.  Node 0 is the server: it waits for a connection on its NIC's
 * address with the discriminator (--discriminator) and accepts the one from
 * node 1's host, rejecting others.  Node 1 is the client: it requests the
 * connection, retrying while the server is not waiting yet (VIP_NO_MATCH).
 * A node learns its role from the name service: it resolves both host names
 * (--server, --client) with VipNSGetHostByName and compares the addresses
 * with its own NIC's.  Assumption of the libcomm job model: the name service
 * resolves "node<k>" to node k's NIC, hence the defaults node0 and node1;
 * under another VIPL give the cluster's host names, or --rank.
 *
 * Set-up, on both nodes (vex_setup, then the program's own buffers, then
 * vex_start): open the NIC, start the name service, create a protection
 * tag, register the descriptors' memory and the slots, create a CQ and a
 * VI (reliable delivery where the NIC offers it, else unreliable) whose
 * receive queue reports to the CQ, pre-post
 * VEX_RECVS receive descriptors (before connecting, so the first message
 * always finds one); then vex_connect.
 *
 * Teardown (vex_finish): node 0 disconnects after its last message; node 1
 * waits until its VI leaves the Connected state (the peer left), then
 * disconnects; both take back their flushed receive descriptors and
 * destroy everything.
 */
#ifndef VEX_PROG
#error "define VEX_PROG, the program's name, before including vipl_ex.h"
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <getopt.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vipl.h>

#include "../lc_ex_pattern.h"      /* the data pattern; no libcomm in it */

#define VEX_RECVS    4u         /* receive descriptors kept posted */
#define VEX_PAGE     4096u
#define VEX_MAX_OPTS 16u        /* entries of a program's option table, at most */
#define VEX_REGIONS  4u         /* registered buffers of a program, at most */

/* ---- Command line: one table drives parsing and --help ---- */

struct vex_cfg {
	size_t lo, hi;                  /* sizes (--sizes) */
	size_t min_lo;                  /* the smallest MIN --sizes accepts */
	unsigned long iters, warmup;
	long rank;                      /* -1: ask the name service */
	char *name[2];                  /* host names of node 0 and node 1 */
	const char *device;
	const char *disc;
	VIP_ULONG timeout;              /* ms, every wait */
};

static char vex_node0[] = "node0", vex_node1[] = "node1";

/* The defaults of the options every example has (the initializer's other fields are the program's). */
#define VEX_DEFAULTS .rank = -1, .name = { vex_node0, vex_node1 }, .device = "nic0", .timeout = 60000

struct vex_opt {
	struct option o;                /* getopt_long's entry; o.val is the short option */
	const char *arg;                /* the value's name in --help; NULL: no value */
	const char *help;
};

/* Entries of the options the header parses for every example; help: the program's text. */
#define VEX_OPT_SIZES(help)  { { "sizes", required_argument, NULL, 's' }, "MIN:MAX", help }
#define VEX_OPT_ITERS(help)  { { "iters", required_argument, NULL, 'i' }, "N", help }
#define VEX_OPT_WARMUP(help) { { "warmup", required_argument, NULL, 'w' }, "N", help }

/* The last entries of every option table; disc: the default discriminator (a string literal). */
#define VEX_OPTIONS(disc)                                                      \
	{ { "rank", required_argument, NULL, 'r' }, "0|1",                    \
	  "this node's role, instead of asking the name service" },            \
	{ { "server", required_argument, NULL, 'S' }, "NAME",                 \
	  "host name of node 0 (default node0)" },                             \
	{ { "client", required_argument, NULL, 'C' }, "NAME",                 \
	  "host name of node 1 (default node1)" },                             \
	{ { "device", required_argument, NULL, 'd' }, "NIC",                  \
	  "the NIC to open (default nic0)" },                                  \
	{ { "discriminator", required_argument, NULL, 'D' }, "STR",           \
	  "the server's connection discriminator (default " disc ")" },        \
	{ { "timeout", required_argument, NULL, 't' }, "MS",                  \
	  "limit of every wait (default 60000)" },                             \
	{ { "help", no_argument, NULL, 'h' }, NULL,                           \
	  "print this text" }

static inline void vex_usage(FILE *f, const struct vex_opt *opts, size_t n, int full)
{
	fputs("usage: commrun -n 2 " VEX_PROG " [options]\n", f);
	for (size_t k = 0; full && k < n; k++) {
		char left[48];
		snprintf(left, sizeof left, "-%c, --%s%s%s", opts[k].o.val, opts[k].o.name,
			 opts[k].arg ? " " : "", opts[k].arg ? opts[k].arg : "");
		fprintf(f, "  %-30s %s\n", left, opts[k].help);
	}
}

/* A size with an optional K or M suffix; *end is past it. 0 or -1. */
static inline int vex_size(const char *s, char **end, size_t *out)
{
	unsigned long long v = strtoull(s, end, 10);
	if (*end == s)
		return -1;
	if (**end == 'K' || **end == 'k')
		v <<= 10, (*end)++;
	else if (**end == 'M' || **end == 'm')
		v <<= 20, (*end)++;
	*out = (size_t)v;
	return 0;
}

static inline int vex_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Parse argv into c by the n entries of opts (the program's own, then
 * VEX_OPTIONS): -1 to go on, else the exit status: 0 after --help, 2 after
 * a usage message.  own(opt, value, ctx) takes the options this function
 * does not know (0, or 1 for a bad value); NULL when there are none.
 */
static inline int vex_parse(int argc, char **argv, const struct vex_opt *opts, size_t n,
			    struct vex_cfg *c, int (*own)(int opt, const char *arg, void *ctx), void *ctx)
{
	struct option lo[VEX_MAX_OPTS + 1];
	char so[2 * VEX_MAX_OPTS + 1], *p = so;
	unsigned long v = 0;
	int opt;

	if (n > VEX_MAX_OPTS) {
		fputs(VEX_PROG ": more options than VEX_MAX_OPTS\n", stderr);
		return 2;
	}
	for (size_t k = 0; k < n; k++) {
		lo[k] = opts[k].o;
		*p++ = (char)opts[k].o.val;
		if (opts[k].o.has_arg == required_argument)
			*p++ = ':';
	}
	*p = '\0';
	memset(&lo[n], 0, sizeof lo[n]);
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		char *end;
		int bad = 0;
		switch (opt) {
		case 's':
			bad = vex_size(optarg, &end, &c->lo) || *end != ':' || vex_size(end + 1, &end, &c->hi) ||
			      *end || c->lo < c->min_lo || c->hi < c->lo || c->hi > (1u << 30);
			break;
		case 'i':
			bad = vex_number(optarg, 1u << 30, &c->iters) || c->iters == 0;
			break;
		case 'w':
			bad = vex_number(optarg, 1u << 30, &c->warmup);
			break;
		case 'r':
			bad = vex_number(optarg, 1, &v);
			c->rank = (long)v;
			break;
		case 'S':
			c->name[0] = optarg;
			break;
		case 'C':
			c->name[1] = optarg;
			break;
		case 'd':
			c->device = optarg;
			break;
		case 'D':
			c->disc = optarg;
			bad = *optarg == '\0';
			break;
		case 't':
			bad = vex_number(optarg, 0xFFFFFFFFul, &v) || v == 0;
			c->timeout = v;
			break;
		case 'h':
			vex_usage(stdout, opts, n, 1);
			return 0;
		default:
			if (opt != '?' && own != NULL) {
				bad = own(opt, optarg, ctx);
				break;
			}
			vex_usage(stderr, opts, n, 0);
			return 2;
		}
		if (bad) {
			fprintf(stderr, VEX_PROG ": bad value '%s' of -%c\n", optarg, opt);
			return 2;
		}
	}
	if (optind != argc) {
		vex_usage(stderr, opts, n, 0);
		return 2;
	}
	return -1;
}

/* ---- Errors ---- */

static int vex_me = -1;         /* this node's role, in messages */

/* The published return codes' names, indexed by value. */
static const char *const vex_return_names[] = {
	[VIP_SUCCESS] = "VIP_SUCCESS",
	[VIP_NOT_DONE] = "VIP_NOT_DONE",
	[VIP_INVALID_PARAMETER] = "VIP_INVALID_PARAMETER",
	[VIP_ERROR_RESOURCE] = "VIP_ERROR_RESOURCE",
	[VIP_TIMEOUT] = "VIP_TIMEOUT",
	[VIP_REJECT] = "VIP_REJECT",
	[VIP_INVALID_RELIABILITY_LEVEL] = "VIP_INVALID_RELIABILITY_LEVEL",
	[VIP_INVALID_MTU] = "VIP_INVALID_MTU",
	[VIP_INVALID_QOS] = "VIP_INVALID_QOS",
	[VIP_INVALID_PTAG] = "VIP_INVALID_PTAG",
	[VIP_INVALID_RDMAREAD] = "VIP_INVALID_RDMAREAD",
	[VIP_DESCRIPTOR_ERROR] = "VIP_DESCRIPTOR_ERROR",
	[VIP_INVALID_STATE] = "VIP_INVALID_STATE",
	[VIP_ERROR_NAMESERVICE] = "VIP_ERROR_NAMESERVICE",
	[VIP_NO_MATCH] = "VIP_NO_MATCH",
	[VIP_NOT_REACHABLE] = "VIP_NOT_REACHABLE",
	[VIP_ERROR_NOT_SUPPORTED] = "VIP_ERROR_NOT_SUPPORTED",
};
_Static_assert(sizeof vex_return_names / sizeof vex_return_names[0] == VIP_ERROR_NOT_SUPPORTED + 1,
	       "a name for every return code");

static inline const char *vex_return_name(VIP_RETURN r)
{
	unsigned u = (unsigned)r;
	return u < sizeof vex_return_names / sizeof vex_return_names[0] ? vex_return_names[u] : "unknown";
}

/* The error bits of a descriptor's Status. */
static const struct {
	VIP_UINT32 bit;
	const char *name;
} vex_status_errors[] = {
	{ VIP_STATUS_FORMAT_ERROR, "format" },
	{ VIP_STATUS_PROTECTION_ERROR, "protection" },
	{ VIP_STATUS_LENGTH_ERROR, "length" },
	{ VIP_STATUS_PARTIAL_ERROR, "partial" },
	{ VIP_STATUS_DESC_FLUSHED_ERROR, "flushed" },
	{ VIP_STATUS_TRANSPORT_ERROR, "transport" },
	{ VIP_STATUS_RDMA_PROT_ERROR, "rdma-protection" },
	{ VIP_STATUS_REMOTE_DESC_ERROR, "remote-descriptor" },
};

/* Report a call that did not return VIP_SUCCESS; returns the exit status 1. */
static inline int vex_fail(const char *call, VIP_RETURN r)
{
	fprintf(stderr, VEX_PROG ": node %d: %s failed: %s (%d)\n", vex_me, call, vex_return_name(r), (int)r);
	return 1;
}

/* vex_completed's failure: say what is wrong with what call took; the exit status 1. */
static __attribute__((noinline, cold, unused)) int vex_completed_fail(const char *call, VIP_RETURN r,
									const VIP_DESCRIPTOR *d, VIP_UINT32 op)
{
	if (r != VIP_SUCCESS && r != VIP_DESCRIPTOR_ERROR)
		return vex_fail(call, r);
	if (d == NULL) {
		fprintf(stderr, VEX_PROG ": node %d: %s returned %s and no descriptor\n", vex_me, call,
			vex_return_name(r));
		return 1;
	}
	VIP_UINT32 st = d->CS.Status;
	fprintf(stderr, VEX_PROG ": node %d: %s: %s, descriptor status 0x%08x (op 0x%05x, want 0x%05x;%s",
		vex_me, call, vex_return_name(r), (unsigned)st, (unsigned)(st & VIP_STATUS_OP_MASK),
		(unsigned)op, st & VIP_STATUS_DONE ? " done" : " not done");
	for (size_t k = 0; k < sizeof vex_status_errors / sizeof vex_status_errors[0]; k++)
		if (st & vex_status_errors[k].bit)
			fprintf(stderr, " %s", vex_status_errors[k].name);
	fputs(")\n", stderr);
	return 1;
}

/*
 * Check a descriptor that call (a Done or Wait call, which returned r) took:
 * 0 when it completed without error as operation op (VIP_STATUS_OP_*), else
 * the exit status 1 after saying what is wrong (vex_completed_fail).
 */
static inline int vex_completed(const char *call, VIP_RETURN r, const VIP_DESCRIPTOR *d, VIP_UINT32 op)
{
	if (r == VIP_SUCCESS && d != NULL &&
	    (d->CS.Status & (VIP_STATUS_DONE | VIP_STATUS_ERROR_MASK | VIP_STATUS_OP_MASK)) ==
	    (VIP_STATUS_DONE | op))
		return 0;
	return vex_completed_fail(call, r, d, op);
}

/*
 * Asynchronous errors (VipErrorCallback, on a provider thread): the first
 * one is kept, and said at once.  Once vex_closing is set, a lost
 * connection is the peer leaving, not an error.
 */
static atomic_int vex_async_error = -1;
static atomic_int vex_closing;

static inline void vex_on_async_error(VIP_PVOID context, VIP_ERROR_DESCRIPTOR *e)
{
	int none = -1;

	(void)context;
	if (e->ErrorCode == VIP_ERROR_CONN_LOST && atomic_load(&vex_closing))
		return;
	if (atomic_compare_exchange_strong(&vex_async_error, &none, (int)e->ErrorCode))
		fprintf(stderr, VEX_PROG ": node %d: asynchronous error: code %d on resource %d\n", vex_me,
			(int)e->ErrorCode, (int)e->ResourceCode);
}

/* ---- The data pattern: lc_ex_pattern.h's, the same as the native examples' ---- */

static inline double vex_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline void vex_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* ---- VIPL objects ---- */

struct vex_region {                     /* a registered buffer */
	unsigned char *p;
	size_t len;
	VIP_MEM_HANDLE mh;
};

struct vex {
	VIP_NIC_HANDLE nic;
	VIP_NIC_ATTRIBUTES na;
	VIP_PROTECTION_HANDLE ptag;
	VIP_CQ_HANDLE cq;
	VIP_VI_HANDLE vi;
	VIP_NET_ADDRESS *host[2];       /* node 0's and node 1's, from the name service */
	VIP_NET_ADDRESS *local, *remote;
	struct vex_region desc;         /* VEX_RECVS receive descriptors, the send descriptor, the program's */
	struct vex_region slots;        /* VEX_RECVS receive slots, then the program's */
	struct vex_region *reg[VEX_REGIONS];    /* every registered buffer, deregistered in this order */
	unsigned nreg;
	VIP_DESCRIPTOR *rd, *sd;        /* the receive descriptors; the send descriptor */
	VIP_RELIABILITY_LEVEL level;    /* the VI's service: reliable delivery where offered */
	size_t slot;                    /* bytes of a slot */
	unsigned next;                  /* the receive descriptor that completes next */
	unsigned posted;                /* receive descriptors posted */
};

/* What a program needs of the NIC and of the set-up. */
struct vex_need {
	size_t transfer;                /* bytes of one descriptor, at least */
	unsigned queue;                 /* descriptors per queue, at least */
	unsigned descs;                 /* descriptors after the send descriptor */
	size_t slot;                    /* bytes of a slot (rounded up to VIP_DESCRIPTOR_ALIGNMENT) */
	unsigned nslots;                /* slots, the VEX_RECVS receive slots first */
};

/* Room for any address of this network: host address and discriminator. */
static inline VIP_NET_ADDRESS *vex_addr_new(const VIP_NIC_ATTRIBUTES *na)
{
	return calloc(1, sizeof(VIP_NET_ADDRESS) + na->NicAddressLen + na->MaxDiscriminatorLen + 64);
}

static inline unsigned char *vex_addr_bytes(VIP_NET_ADDRESS *a)
{
	return (unsigned char *)a + offsetof(VIP_NET_ADDRESS, HostAddress);
}

/* Append the discriminator to a's host address. */
static inline void vex_addr_disc(VIP_NET_ADDRESS *a, const char *disc)
{
	size_t n = strlen(disc);
	memcpy(vex_addr_bytes(a) + a->HostAddressLen, disc, n);
	a->DiscriminatorLen = (VIP_UINT16)n;
}

/* 1 when a's host address is the len bytes at host. */
static inline int vex_addr_is(VIP_NET_ADDRESS *a, const VIP_UINT8 *host, size_t len)
{
	return a->HostAddressLen == len && memcmp(vex_addr_bytes(a), host, len) == 0;
}

/*
 * Allocate len bytes (whole pages, zeroed) and register them with the
 * RDMA-write right given; the teardown deregisters them.  VIP_SUCCESS or
 * the call's status.
 */
static inline VIP_RETURN vex_register(struct vex *s, struct vex_region *g, size_t len, VIP_BOOLEAN rdma_write)
{
	VIP_MEM_ATTRIBUTES ma = {
		.Ptag = s->ptag, .EnableRdmaWrite = rdma_write, .EnableRdmaRead = VIP_FALSE
	};
	void *p;

	if (s->nreg == VEX_REGIONS)
		return VIP_ERROR_RESOURCE;
	s->reg[s->nreg++] = g;
	g->len = (len + VEX_PAGE - 1) / VEX_PAGE * VEX_PAGE;
	if (g->len == 0)
		g->len = VEX_PAGE;
	if (posix_memalign(&p, VEX_PAGE, g->len) != 0)
		return VIP_ERROR_RESOURCE;
	memset(p, 0, g->len);
	g->p = p;
	return VipRegisterMem(s->nic, g->p, g->len, &ma, &g->mh);
}

static inline VIP_RETURN vex_deregister(struct vex *s, struct vex_region *g)
{
	VIP_RETURN r = VIP_SUCCESS;
	if (g->p) {
		r = VipDeregisterMem(s->nic, g->p, g->mh);
		free(g->p);
		g->p = NULL;
	}
	return r;
}

/* Slot k. */
static inline unsigned char *vex_slot(struct vex *s, unsigned k)
{
	return s->slots.p + (size_t)k * s->slot;
}

/* Data segment k of d: len bytes at p, of region mh. */
static inline void vex_segment(VIP_DESCRIPTOR *d, unsigned k, void *p, VIP_MEM_HANDLE mh, size_t len)
{
	d->DS[k].Local.Data.AddressBits = 0;
	d->DS[k].Local.Data.Address = p;
	d->DS[k].Local.Handle = mh;
	d->DS[k].Local.Length = (VIP_UINT32)len;
}

/* Make d a send or receive of one data segment: len bytes at p, of region mh. */
static inline void vex_one_segment(VIP_DESCRIPTOR *d, void *p, VIP_MEM_HANDLE mh, size_t len)
{
	memset(d, 0, sizeof *d);
	d->CS.Control = VIP_CONTROL_OP_SENDRECV;
	d->CS.SegCount = 1;
	d->CS.Length = (VIP_UINT32)len;
	vex_segment(d, 0, p, mh, len);
}

/* Post receive descriptor k (one data segment: slot k). */
static inline VIP_RETURN vex_post_recv(struct vex *s, unsigned k)
{
	VIP_DESCRIPTOR *d = &s->rd[k];
	VIP_RETURN r;

	vex_one_segment(d, vex_slot(s, k), s->slots.mh, s->slot);
	if ((r = VipPostRecv(s->vi, d, s->desc.mh)) == VIP_SUCCESS)
		s->posted++;
	return r;
}

/*
 * Take the send descriptor back (VipSendWait) and check it; stray: what to
 * call another descriptor in the message.  0 or the exit status 1.
 */
static inline int vex_send_wait(struct vex *s, const struct vex_cfg *c, const char *stray)
{
	VIP_DESCRIPTOR *d = NULL;
	VIP_RETURN r = VipSendWait(s->vi, c->timeout, &d);

	if (vex_completed("VipSendWait", r, d, VIP_STATUS_OP_SEND))
		return 1;
	if (d != s->sd) {
		fprintf(stderr, VEX_PROG ": node %d: VipSendWait returned %s\n", vex_me, stray);
		return 1;
	}
	return 0;
}

/*
 * Wait for the next receive (VipCQWait, then VipRecvDone), which must have
 * completed as operation op; *out: its descriptor, *k: its number and slot
 * (reposted by the caller).  0 or the exit status 1.
 */
static inline int vex_recv(struct vex *s, const struct vex_cfg *c, VIP_UINT32 op, VIP_DESCRIPTOR **out,
			   unsigned *k)
{
	VIP_VI_HANDLE vi = NULL;
	VIP_BOOLEAN recvq = VIP_FALSE;
	VIP_DESCRIPTOR *d = NULL;
	VIP_RETURN r;

	if ((r = VipCQWait(s->cq, c->timeout, &vi, &recvq)) != VIP_SUCCESS)
		return vex_fail("VipCQWait", r);
	if (vi != s->vi || !recvq) {
		fprintf(stderr, VEX_PROG ": node %d: VipCQWait: an entry of another queue\n", vex_me);
		return 1;
	}
	r = VipRecvDone(s->vi, &d);
	if (vex_completed("VipRecvDone", r, d, op))
		return 1;
	if (d != &s->rd[s->next]) {
		fprintf(stderr, VEX_PROG ": node %d: VipRecvDone: not the oldest posted descriptor\n", vex_me);
		return 1;
	}
	*k = s->next;
	*out = d;
	s->next = (s->next + 1) % VEX_RECVS;
	s->posted--;
	return 0;
}

/*
 * After VipDisconnect: the receives still posted complete flushed; take
 * them back (VipRecvDone, waiting on the CQ while none is there yet).
 */
static inline int vex_drain(struct vex *s, const struct vex_cfg *c)
{
	while (s->posted > 0) {
		VIP_DESCRIPTOR *d = NULL;
		VIP_RETURN r = VipRecvDone(s->vi, &d);
		if (r == VIP_NOT_DONE) {
			VIP_VI_HANDLE vi;
			VIP_BOOLEAN recvq;
			if ((r = VipCQWait(s->cq, c->timeout, &vi, &recvq)) != VIP_SUCCESS)
				return vex_fail("VipCQWait (flushed receives)", r);
			continue;
		}
		if ((r != VIP_SUCCESS && r != VIP_DESCRIPTOR_ERROR) || d == NULL)
			return vex_fail("VipRecvDone (flushed receives)", r);
		VIP_UINT32 err = d->CS.Status & VIP_STATUS_ERROR_MASK &
				 ~(VIP_UINT32)VIP_STATUS_DESC_FLUSHED_ERROR;
		if (!(d->CS.Status & VIP_STATUS_DONE) || err)
			return vex_completed("VipRecvDone (flushed receives)", VIP_DESCRIPTOR_ERROR, d,
					     VIP_STATUS_OP_RECEIVE);
		s->posted--;
	}
	return 0;
}

/*
 * The set-up up to the program's own buffers: open, name service, role
 * (vex_me), what the run needs of the NIC, tag, the descriptors' memory
 * and the slots.  0 or the exit status.
 */
static inline int vex_setup(struct vex *s, struct vex_cfg *c, const struct vex_need *need)
{
	VIP_RETURN r;

	if ((r = VipOpenNic(c->device, &s->nic)) != VIP_SUCCESS)
		return vex_fail("VipOpenNic", r);
	if ((r = VipQueryNic(s->nic, &s->na)) != VIP_SUCCESS)
		return vex_fail("VipQueryNic", r);
	if ((r = VipErrorCallback(s->nic, NULL, vex_on_async_error)) != VIP_SUCCESS)
		return vex_fail("VipErrorCallback", r);
	if ((r = VipNSInit(s->nic, NULL)) != VIP_SUCCESS)
		return vex_fail("VipNSInit", r);

	/* the two hosts, and which one this NIC is (found: -1 none yet, -2 both) */
	int found = -1;
	for (int k = 0; k < 2; k++) {
		if ((s->host[k] = vex_addr_new(&s->na)) == NULL)
			return 1;
		if ((r = VipNSGetHostByName(s->nic, c->name[k], s->host[k], 0)) != VIP_SUCCESS) {
			fprintf(stderr, VEX_PROG ": host name '%s'\n", c->name[k]);
			return vex_fail("VipNSGetHostByName", r);
		}
		if (vex_addr_is(s->host[k], s->na.LocalNicAddress, s->na.NicAddressLen))
			found = found == -1 ? k : -2;
	}
	if (c->rank < 0 && found < 0) {
		fprintf(stderr, VEX_PROG ": this NIC (%s) is %s of %s and %s: give --rank\n", s->na.Name,
			found == -1 ? "neither" : "both", c->name[0], c->name[1]);
		return 2;
	}
	if (c->rank < 0)
		c->rank = found;
	vex_me = (int)c->rank;

	/* what the run needs of the NIC */
	size_t dlen = strlen(c->disc);
	if (s->na.MaxSegmentsPerDesc < 2 || s->na.MaxTransferSize < need->transfer ||
	    s->na.MaxDiscriminatorLen < dlen || s->na.MaxDescriptorsPerQueue < need->queue) {
		fprintf(stderr, VEX_PROG ": node %d: NIC %s: segments per descriptor %lu (need 2), transfer "
				"size %lu (need %zu), discriminator %u bytes (need %zu), descriptors per queue "
				"%lu (need %u)\n", vex_me,
			s->na.Name, s->na.MaxSegmentsPerDesc, s->na.MaxTransferSize, need->transfer,
			(unsigned)s->na.MaxDiscriminatorLen, dlen, s->na.MaxDescriptorsPerQueue, need->queue);
		return 1;
	}
	/* the best service the NIC offers: every byte is checked either way */
	s->level = (s->na.ReliabilityLevelSupport & VIP_SERVICE_RELIABLE_DELIVERY) ?
		   VIP_SERVICE_RELIABLE_DELIVERY : VIP_SERVICE_UNRELIABLE;

	if ((r = VipCreatePtag(s->nic, &s->ptag)) != VIP_SUCCESS)
		return vex_fail("VipCreatePtag", r);
	s->slot = (need->slot + VIP_DESCRIPTOR_ALIGNMENT - 1) / VIP_DESCRIPTOR_ALIGNMENT *
		  VIP_DESCRIPTOR_ALIGNMENT;
	if (s->slot == 0)
		s->slot = VIP_DESCRIPTOR_ALIGNMENT;
	size_t ndesc = VEX_RECVS + 1 + need->descs;
	if ((r = vex_register(s, &s->desc, ndesc * sizeof(VIP_DESCRIPTOR), VIP_FALSE)) != VIP_SUCCESS ||
	    (r = vex_register(s, &s->slots, need->nslots * s->slot, VIP_FALSE)) != VIP_SUCCESS)
		return vex_fail("VipRegisterMem", r);
	s->rd = (VIP_DESCRIPTOR *)(void *)s->desc.p;
	s->sd = s->rd + VEX_RECVS;
	return 0;
}

/*
 * The set-up after the program's own buffers: CQ, VI (rdma_write: the peer
 * may RDMA-write through it), pre-posted receives, this end point's address.
 * 0 or the exit status.
 */
static inline int vex_start(struct vex *s, const struct vex_cfg *c, VIP_BOOLEAN rdma_write)
{
	VIP_RETURN r;

	if ((r = VipCreateCQ(s->nic, 2 * VEX_RECVS, &s->cq)) != VIP_SUCCESS)
		return vex_fail("VipCreateCQ", r);
	VIP_VI_ATTRIBUTES va = {
		.ReliabilityLevel = s->level,
		.MaxTransferSize = s->na.MaxTransferSize,
		.QoS = NULL,
		.Ptag = s->ptag,
		.EnableRdmaWrite = rdma_write,
		.EnableRdmaRead = VIP_FALSE,
	};
	if ((r = VipCreateVi(s->nic, &va, NULL, s->cq, &s->vi)) != VIP_SUCCESS)
		return vex_fail("VipCreateVi", r);
	for (unsigned k = 0; k < VEX_RECVS; k++)
		if ((r = vex_post_recv(s, k)) != VIP_SUCCESS)
			return vex_fail("VipPostRecv", r);

	/* this end point's address: the NIC's, and the discriminator */
	if ((s->local = vex_addr_new(&s->na)) == NULL || (s->remote = vex_addr_new(&s->na)) == NULL)
		return 1;
	s->local->HostAddressLen = s->na.NicAddressLen;
	memcpy(vex_addr_bytes(s->local), s->na.LocalNicAddress, s->na.NicAddressLen);
	vex_addr_disc(s->local, c->disc);
	return 0;
}

/*
 * Node 0 waits for node 1's request (others are rejected) and accepts it;
 * node 1 requests.  *peer: the peer VI's attributes.  0 or the exit status 1.
 */
static inline int vex_connect(struct vex *s, const struct vex_cfg *c, VIP_VI_ATTRIBUTES *peer)
{
	VIP_RETURN r;

	while (vex_me == 0) {
		VIP_CONN_HANDLE conn;
		if ((r = VipConnectWait(s->nic, s->local, c->timeout, s->remote, peer, &conn)) != VIP_SUCCESS)
			return vex_fail("VipConnectWait", r);
		if (vex_addr_is(s->remote, vex_addr_bytes(s->host[1]), s->host[1]->HostAddressLen)) {
			r = VipConnectAccept(conn, s->vi);
			return r == VIP_SUCCESS ? 0 : vex_fail("VipConnectAccept", r);
		}
		fprintf(stderr, VEX_PROG ": node 0: rejecting a connection request from another host\n");
		if ((r = VipConnectReject(conn)) != VIP_SUCCESS)
			return vex_fail("VipConnectReject", r);
	}
	memcpy(s->remote, s->host[0], sizeof(VIP_NET_ADDRESS) + s->host[0]->HostAddressLen);
	vex_addr_disc(s->remote, c->disc);
	double t0 = vex_now_us();
	while ((r = VipConnectRequest(s->vi, s->local, s->remote, c->timeout, peer)) == VIP_NO_MATCH &&
	       vex_now_us() - t0 < 1e3 * (double)c->timeout)
		vex_sleep_ms(10);       /* the server is not waiting yet */
	return r == VIP_SUCCESS ? 0 : vex_fail("VipConnectRequest", r);
}

/* Disconnect (node 1: once node 0 has), take back the flushed receives, destroy everything. */
static inline int vex_teardown(struct vex *s, const struct vex_cfg *c)
{
	VIP_RETURN r;

	atomic_store(&vex_closing, 1);
	if (vex_me == 1) {
		double t0 = vex_now_us();
		for (;;) {
			VIP_VI_STATE st;
			VIP_VI_ATTRIBUTES va;
			VIP_BOOLEAN sq, rq;
			if ((r = VipQueryVi(s->vi, &st, &va, &sq, &rq)) != VIP_SUCCESS)
				return vex_fail("VipQueryVi", r);
			if (st != VIP_STATE_CONNECTED)
				break;
			if (vex_now_us() - t0 > 1e3 * (double)c->timeout)
				return vex_fail("VipQueryVi (waiting for node 0 to disconnect)", VIP_TIMEOUT);
			vex_sleep_ms(1);
		}
	}
	if ((r = VipDisconnect(s->vi)) != VIP_SUCCESS)
		return vex_fail("VipDisconnect", r);
	if (vex_drain(s, c))
		return 1;
	if ((r = VipDestroyVi(s->vi)) != VIP_SUCCESS)
		return vex_fail("VipDestroyVi", r);
	if ((r = VipDestroyCQ(s->cq)) != VIP_SUCCESS)
		return vex_fail("VipDestroyCQ", r);
	for (unsigned j = 0; j < s->nreg; j++)
		if ((r = vex_deregister(s, s->reg[j])) != VIP_SUCCESS)
			return vex_fail("VipDeregisterMem", r);
	if ((r = VipDestroyPtag(s->nic, s->ptag)) != VIP_SUCCESS)
		return vex_fail("VipDestroyPtag", r);
	if ((r = VipNSShutdown(s->nic)) != VIP_SUCCESS)
		return vex_fail("VipNSShutdown", r);
	if ((r = VipCloseNic(s->nic)) != VIP_SUCCESS)
		return vex_fail("VipCloseNic", r);
	free(s->host[0]);
	free(s->host[1]);
	free(s->local);
	free(s->remote);
	return 0;
}

/* The teardown, then the exit status: 1 when it failed or an asynchronous error was reported, else 0. */
static inline int vex_finish(struct vex *s, const struct vex_cfg *c)
{
	if (vex_teardown(s, c))
		return 1;
	return atomic_load(&vex_async_error) != -1;
}

#endif /* VIPL_EX_H */
