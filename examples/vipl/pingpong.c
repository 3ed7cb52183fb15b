/* SPDX-License-Identifier: MIT */
/* pingpong (VIPL): one-way latency over a VI; gather sends, immediate data, every byte checked. */
#define _POSIX_C_SOURCE 200809L
#define VEX_PROG "pingpong"
#include "vipl_ex.h"

/*
 * Usage: commrun -n 2 pingpong [options]        (pingpong --help lists them)
 *
 * A program of the VIA era: it uses the published VIPL API and nothing
 * else, so it builds unmodified against any VI Provider Library.  Roles,
 * name service, set-up, connection and teardown are those of vipl_ex.h
 * (node 0 the server, node 1 the client); the receive slots hold a message
 * of the largest size each, and node 0 registers two more buffers to
 * gather from.
 *
 * Per size (powers of two, and an odd size after every fourth power, in
 * --sizes): node 0 sends the message of iteration it, node 1 checks it and
 * sends it back from where it landed, node 0 checks the echo.  A message
 * is pattern bytes of (size, it); its immediate data is it.  Odd
 * iterations send with two data segments (a gather list: node 0 gathers
 * from two separately registered buffers, node 1 from two pieces of the
 * receive slot), even ones with one (none at size 0); --gather all sends
 * every message so, --gather none every one from one segment (the native
 * ping-pong's one buffer: the like-for-like comparison; alternating paths
 * cost the branch predictors more than the gather's copies cost).  Receives complete
 * with VipCQWait, then VipRecvDone; sends with VipSendWait.  Node 0 prints
 * a row per size: size and one-way latency (half the round trip) in us.
 * What is not on the way from a message to its answer is done while the
 * message travels: node 1 takes its send back and reposts the slot after
 * it sent the echo, node 0 after it sent the next message.
 * Node 0 disconnects after the last echo.
 *
 * Exit status: 0; 1 when a call fails (the call and its status are
 * printed), a descriptor completes in error, a byte or the immediate data
 * differs, or an asynchronous error was reported; 2 for a bad command line.
 */

static const struct vex_opt pp_opts[] = {
	VEX_OPT_SIZES("message sizes, K/M suffixes (default 0:1M)"),
	VEX_OPT_ITERS("timed round trips per size, fewer above 8 KiB (default 1000)"),
	VEX_OPT_WARMUP("untimed round trips before them (default 100)"),
	{ { "gather", required_argument, NULL, 'g' }, "odd|all|none",
	  "send with two data segments on odd iterations (default), on all, or on none" },
	VEX_OPTIONS("pp"),
};

/* --gather: the iterations that send with two data segments, and the header's words for them. */
#define PP_GATHER_LIST(X)                                       \
	X(ODD,  "odd",  "gather on odd iterations")             \
	X(ALL,  "all",  "gather on every iteration")            \
	X(NONE, "none", "one data segment")
enum pp_gather {
#define PP_X_ENUM(name, word, text) PP_GATHER_##name,
	PP_GATHER_LIST(PP_X_ENUM)
#undef PP_X_ENUM
};
static const struct { const char *word, *text; } pp_gathers[] = {
#define PP_X_ROW(name, word, text) { word, text },
	PP_GATHER_LIST(PP_X_ROW)
#undef PP_X_ROW
};
static enum pp_gather pp_gather = PP_GATHER_ODD;

static int pp_option(int opt, const char *arg, void *ctx)
{
	(void)opt;
	(void)ctx;
	for (size_t k = 0; k < sizeof pp_gathers / sizeof pp_gathers[0]; k++)
		if (strcmp(arg, pp_gathers[k].word) == 0) {
			pp_gather = (enum pp_gather)k;
			return 0;
		}
	return 1;
}

/* Where iteration it of size splits its message into two data segments; 0: one segment. */
static size_t pp_split(size_t size, unsigned long it)
{
	if (size < 2 || pp_gather == PP_GATHER_NONE || (pp_gather == PP_GATHER_ODD && it % 2 == 0))
		return 0;
	return size / 3 ? size / 3 : 1;
}

/*
 * The sizes: lo, then each power of two above it and, after the powers of
 * two 4, 16, 64, ..., the odd size 1.5 p + 1; hi last.
 */
static size_t pp_next_size(size_t s, size_t hi)
{
	size_t n = 1;
	if (s >= 4 && (s & (s - 1)) == 0 && (s & (size_t)0x5555555555555555ull))
		n = s + s / 2 + 1;
	else
		while (n <= s)
			n <<= 1;
	return n > hi ? hi : n;
}

/* Timed (or warm-up) iterations at a size: n up to 8 KiB, then in proportion, at least floor. */
static unsigned long pp_scaled(unsigned long n, size_t size, unsigned long floor)
{
	if (size <= 8192)
		return n;
	unsigned long long v = (unsigned long long)n * 8192 / size;
	return v < floor ? floor : (unsigned long)v;
}

struct pp {
	struct vex v;                   /* the slots: VEX_RECVS receive slots */
	struct vex_region a, b;         /* node 0: the two gather buffers */
};

/*
 * Post the send of iteration it of size bytes: bytes 0 .. h - 1 at p0
 * (region m0), bytes h .. size - 1 at p1 (region m1), h = pp_split; the
 * immediate data is it.
 */
static VIP_RETURN pp_post_send(struct pp *s, size_t size, unsigned long it, void *p0,
			       VIP_MEM_HANDLE m0, void *p1, VIP_MEM_HANDLE m1)
{
	VIP_DESCRIPTOR *d = s->v.sd;
	size_t h = pp_split(size, it);

	memset(d, 0, sizeof *d);
	d->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
	d->CS.ImmediateData = (VIP_UINT32)it;
	d->CS.Length = (VIP_UINT32)size;
	if (size > 0 && h == 0) {
		d->CS.SegCount = 1;
		vex_segment(d, 0, p0, m0, size);
	} else if (size > 0) {
		d->CS.SegCount = 2;
		vex_segment(d, 0, p0, m0, h);
		vex_segment(d, 1, p1, m1, size - h);
	}
	return VipPostSend(s->v.vi, d, s->v.desc.mh);
}

/*
 * Wait for the next receive and check it is the message of iteration it
 * of size bytes: the status, the length, the immediate data and every
 * byte.  *k: its descriptor and slot.  0 or the exit status 1.
 */
static int pp_recv(struct pp *s, const struct vex_cfg *c, size_t size, unsigned long it, unsigned *k)
{
	VIP_DESCRIPTOR *d;

	if (vex_recv(&s->v, c, VIP_STATUS_OP_RECEIVE, &d, k))
		return 1;
	const unsigned char *p = vex_slot(&s->v, *k);
	size_t bad = d->CS.Length == size ? lc_ex_check(p, size, lc_ex_seed(size, it)) : 0;
	if (!(d->CS.Status & VIP_STATUS_IMMEDIATE) || d->CS.ImmediateData != (VIP_UINT32)it ||
	    d->CS.Length != size || bad != size) {
		fprintf(stderr, VEX_PROG ": node %d: mismatch at size %zu iteration %lu: length %u, "
				"immediate data %s%u, first bad byte at %zu\n", vex_me, size, it,
			(unsigned)d->CS.Length, d->CS.Status & VIP_STATUS_IMMEDIATE ? "" : "(absent) ",
			(unsigned)d->CS.ImmediateData, bad);
		return 1;
	}
	return 0;
}

/* The set-up; node 0 registers its gather buffers. 0 or the exit status. */
static int pp_setup(struct pp *s, struct vex_cfg *c)
{
	const struct vex_need need = {
		.transfer = c->hi, .queue = VEX_RECVS, .descs = 0, .slot = c->hi, .nslots = VEX_RECVS,
	};
	VIP_RETURN r;
	int rc = vex_setup(&s->v, c, &need);

	if (rc != 0)
		return rc;
	if (vex_me == 0 && ((r = vex_register(&s->v, &s->a, c->hi, VIP_FALSE)) != VIP_SUCCESS ||
			    (r = vex_register(&s->v, &s->b, c->hi, VIP_FALSE)) != VIP_SUCCESS))
		return vex_fail("VipRegisterMem", r);
	return vex_start(&s->v, c, VIP_FALSE);
}

/* The ping-pong over every size; node 0 prints a row per size. */
static int pp_run(struct pp *s, const struct vex_cfg *c)
{
	VIP_RETURN r;
	unsigned k = 0;
	int held = 0;                   /* node 0: slot k received into, to repost */

	for (size_t size = c->lo;; size = pp_next_size(size, c->hi)) {
		unsigned long timed = pp_scaled(c->iters, size, 10);
		unsigned long warm = c->warmup ? pp_scaled(c->warmup, size, 2) : 0;
		double t0 = vex_now_us();
		for (unsigned long it = 0; it < warm + timed; it++) {
			size_t h = pp_split(size, it);
			if (it == warm)
				t0 = vex_now_us();
			if (vex_me == 0) {
				uint64_t seed = lc_ex_seed(size, it);
				lc_ex_fill(s->a.p, h ? h : size, seed);
				lc_ex_fill_at(s->b.p, h, h ? size - h : 0, seed);
				if ((r = pp_post_send(s, size, it, s->a.p, s->a.mh, s->b.p, s->b.mh)) != VIP_SUCCESS)
					return vex_fail("VipPostSend", r);
				/* while the message and its echo travel: the send back, the last slot reposted */
				if (vex_send_wait(&s->v, c, "a descriptor never posted"))
					return 1;
				if (held && (r = vex_post_recv(&s->v, k)) != VIP_SUCCESS)
					return vex_fail("VipPostRecv", r);
				if (pp_recv(s, c, size, it, &k))
					return 1;
				held = 1;
			} else {
				if (pp_recv(s, c, size, it, &k))
					return 1;
				unsigned char *p = vex_slot(&s->v, k);
				int last = size == c->hi && it + 1 == warm + timed;
				if (last)
					atomic_store(&vex_closing, 1);  /* node 0 leaves after this echo */
				r = pp_post_send(s, size, it, p, s->v.slots.mh, p + h, s->v.slots.mh);
				if (r != VIP_SUCCESS)
					return vex_fail("VipPostSend", r);
				if (vex_send_wait(&s->v, c, "a descriptor never posted"))
					return 1;
				/*
				 * no receive follows the last echo: node 0 may have disconnected
				 * already, and a receive posted then fails (VIP_INVALID_STATE)
				 */
				if (!last && (r = vex_post_recv(&s->v, k)) != VIP_SUCCESS)
					return vex_fail("VipPostRecv", r);
			}
		}
		if (vex_me == 0) {
			printf("%-12zu%16.3f\n", size, (vex_now_us() - t0) / (2.0 * (double)timed));
			fflush(stdout);
		}
		if (size == c->hi)
			return held && (r = vex_post_recv(&s->v, k)) != VIP_SUCCESS ? vex_fail("VipPostRecv", r) : 0;
	}
}

int main(int argc, char **argv)
{
	struct vex_cfg c = { VEX_DEFAULTS, .lo = 0, .hi = 1u << 20, .iters = 1000, .warmup = 100, .disc = "pp" };
	static struct pp s;         /* static: reachable until exit, also on an error path */
	VIP_VI_ATTRIBUTES peer;
	int rc = vex_parse(argc, argv, pp_opts, sizeof pp_opts / sizeof pp_opts[0], &c, pp_option, NULL);

	if (rc >= 0)
		return rc;
	if ((rc = pp_setup(&s, &c)) != 0 || (rc = vex_connect(&s.v, &c, &peer)) != 0)
		return rc;
	if (vex_me == 0) {
		printf("# libcomm vipl " VEX_PROG " (NIC %s, %s -> %s, %s, immediate data, %s)\n"
		       "# Size  Latency (us)\n", s.v.na.Name, c.name[0], c.name[1],
		       s.v.level == VIP_SERVICE_RELIABLE_DELIVERY ? "reliable delivery" : "unreliable service",
		       pp_gathers[pp_gather].text);
		fflush(stdout);
	}
	if ((rc = pp_run(&s, &c)) != 0)
		return rc;
	return vex_finish(&s.v, &c);
}
