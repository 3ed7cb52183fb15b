/* SPDX-License-Identifier: MIT */
/* shm_pingpong: the floor under libcomm's latency — two processes, one shm segment, copy in + copy out. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lc_bench_pair.h"
#include "lc_ex_pattern.h"

/*
 * Usage: shm_pingpong [--bind core|none] [-s min:max] [-i iters] [-w warmup]
 *        (the options of pingpong; --bind as commrun's: core puts the parent on
 *        the first core it may use and the child on the second)
 *
 * The parent (node 0) and a forked child (node 1) share one POSIX shm
 * object holding one mailbox per direction: a sequence word on its own
 * cache line and a data area of max bytes.  A message is copied into the
 * mailbox (copy in), published by a release store of its sequence number,
 * seen by an acquire load on the other side and copied out (copy out);
 * exactly the two copies every shared-memory transport pays and nothing
 * else: no headers, no rings, no matching.  Waiting busy-polls as a real
 * shared-memory transport does on an idle pair of cores (a pause per poll);
 * only after LC_SHM_YIELD_POLLS polls without the message (tens of
 * microseconds, far above any latency it measures) does it yield, so that an
 * oversubscribed run still ends.  A yield every few hundred polls would put a
 * system call in the measured path (0.8-1.8 us one-way at 8 B against 0.25 us
 * busy-polling, measured on this machine kind).
 * The payload is filled and checked as in pingpong, so the per-iteration
 * work outside the transport is the same.  Output is pingpong's format.
 *
 * --stream (first or after --bind): the floor under a stream instead, in
 * stream's format (size, MB/s, messages/s): the parent sends windows of
 * --window messages (64 by default; -i windows, fewer as messages grow, as
 * stream counts them) through a ring of LC_SHM_RING mailboxes, each message
 * copied in and published by its mailbox's sequence word; the child copies
 * each one out and publishes how many it took (one word of its own, which
 * the parent reads only when its cached copy says the ring is full), and
 * acknowledges each window through the parent's mailbox.  The payload is
 * filled once a size (stream without --verify fills it once a slot) and the
 * child checks the last message of every window whole.
 */

struct lc_shm_box {
	_Alignas(64) atomic_uint_fast64_t seq;  /* last published message */
	_Alignas(64) unsigned char data[];
};

static void lc_shm_put(struct lc_shm_box *box, const void *buf, size_t len, uint64_t seq)
{
	if (len)
		memcpy(box->data, buf, len);
	/* release: publishes data[]; pairs with the acquire in lc_shm_get() */
	atomic_store_explicit(&box->seq, seq, memory_order_release);
}

/* A side that fails stores this into its peer's box so that the peer stops waiting. */
#define LC_SHM_ABORT UINT64_MAX

#define LC_SHM_YIELD_POLLS (1u << 16)

static inline void lc_shm_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* 0, or -1 when the peer aborted. */
static int lc_shm_get(struct lc_shm_box *box, void *buf, size_t len, uint64_t seq)
{
	unsigned polls = 0;
	uint64_t got;
	/* acquire: pairs with the release in lc_shm_put() */
	while ((got = atomic_load_explicit(&box->seq, memory_order_acquire)) != seq) {
		if (got == LC_SHM_ABORT)
			return -1;
		if (++polls % LC_SHM_YIELD_POLLS == 0)
			sched_yield();
		else
			lc_shm_relax();
	}
	if (len)
		memcpy(buf, box->data, len);
	return 0;
}

/* Mailboxes of the stream's ring. */
#define LC_SHM_RING 16u

/*
 * The stream floor (--stream) at every size of o: the parent sends, the
 * child receives (me), through ring (LC_SHM_RING mailboxes of box bytes
 * apart), took (the child's count of messages taken) and ack (the
 * parent's mailbox).  sbuf, rbuf: o->hi bytes.  0, or 1 after a failure.
 */
static int lc_shm_stream(const struct lc_ex_opts *o, int me, unsigned char *ring, size_t box,
			 atomic_uint_fast64_t *took, struct lc_shm_box *ack, unsigned char *sbuf,
			 unsigned char *rbuf)
{
	unsigned window = o->window;
	uint64_t n = 0, seen = 0, wins = 0;     /* messages sent or taken; parent: took's copy */

	for (size_t size = o->lo; size <= o->hi; size = lc_ex_sweep_next(size, o->lo, o->hi)) {
		unsigned warm, timed = lc_ex_rounds(o->iters, o->warmup, size, 2, 1, &warm);
		uint64_t seed = lc_ex_seed(size, 0);
		double t0 = lc_ex_now_us();

		if (me == 0)
			lc_ex_fill(sbuf, size, seed);
		for (unsigned w = 0; w < warm + timed; w++) {
			if (w == warm)
				t0 = lc_ex_now_us();
			for (unsigned j = 0; j < window; j++) {
				struct lc_shm_box *b = (struct lc_shm_box *)(ring + (n % LC_SHM_RING) * box);
				n++;
				if (me == 1) {
					if (lc_shm_get(b, rbuf, size, n) != 0)
						return 1;
					/* release: the mailbox is free again; pairs with the parent's acquire */
					atomic_store_explicit(took, n, memory_order_release);
					continue;
				}
				for (unsigned polls = 0; n - seen > LC_SHM_RING; ) {
					/* acquire: the child has copied the message out of this mailbox */
					seen = atomic_load_explicit(took, memory_order_acquire);
					if (n - seen > LC_SHM_RING && ++polls % LC_SHM_YIELD_POLLS == 0)
						sched_yield();
				}
				lc_shm_put(b, sbuf, size, n);
			}
			wins++;
			if (me == 0) {
				if (lc_shm_get(ack, NULL, 0, wins) != 0)
					return 1;
				continue;
			}
			size_t at = lc_ex_check(rbuf, size, seed);
			if (at != size) {
				fprintf(stderr, "shm_pingpong: stream: payload mismatch: size %zu window %u: "
						"first bad byte at %zu\n", size, w, at);
				return 1;
			}
			lc_shm_put(ack, NULL, 0, wins);
		}
		if (me == 0)
			lc_ex_row_rate(size, (double)timed * window, (lc_ex_now_us() - t0) / 1e6);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 4u << 20, .iters = 1000, .warmup = 100, .window = 64 };
	int cpu[2] = { -1, -1 }, stream = 0;
	if (lc_bench_options(argc, argv, "shm_pingpong", "--stream", cpu, &stream, &o) != 0)
		return 2;
	size_t lo = o.lo, hi = o.hi;

	/* the two mailboxes; with --stream the ring's mailboxes and the child's count after them */
	size_t boxb = (sizeof(struct lc_shm_box) + hi + 63) & ~(size_t)63;
	size_t segb = (2 + (stream ? LC_SHM_RING : 0)) * boxb + 64;
	char name[64];
	snprintf(name, sizeof name, "/lc.shmpp.%ld", (long)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		fprintf(stderr, "shm_pingpong: shm_open %s: %s\n", name, strerror(errno));
		return 1;
	}
	shm_unlink(name);       /* the mapping outlives the name; nothing is left behind */
	if (ftruncate(fd, (off_t)segb) != 0) {
		fprintf(stderr, "shm_pingpong: ftruncate: %s\n", strerror(errno));
		return 1;
	}
	unsigned char *seg = mmap(NULL, segb, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (seg == MAP_FAILED) {
		fprintf(stderr, "shm_pingpong: mmap: %s\n", strerror(errno));
		return 1;
	}
	struct lc_shm_box *to1 = (struct lc_shm_box *)seg;
	struct lc_shm_box *to0 = (struct lc_shm_box *)(seg + boxb);
	atomic_init(&to1->seq, 0);
	atomic_init(&to0->seq, 0);
	unsigned char *ring = seg + 2 * boxb;
	atomic_uint_fast64_t *took = (atomic_uint_fast64_t *)(seg + segb - 64);
	for (unsigned k = 0; stream && k < LC_SHM_RING; k++)
		atomic_init(&((struct lc_shm_box *)(ring + k * boxb))->seq, 0);
	atomic_init(took, 0);

	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		fprintf(stderr, "shm_pingpong: fork: %s\n", strerror(errno));
		return 1;
	}
	int me = child == 0;
	lc_bench_bind("shm_pingpong", cpu[me]);
	unsigned char *sbuf = malloc(hi ? hi : 1), *rbuf = malloc(hi ? hi : 1);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "shm_pingpong: out of memory for %zu bytes\n", hi);
		return 1;
	}
	if (me == 0) {
		printf("# shm_pingpong (two processes, one shm segment, copy in + copy out, busy-polling; %s%s)\n",
		       cpu[0] >= 0 ? "each on a core of its own" : "not bound",
		       stream ? "; stream through a ring" : "");
		printf(stream ? "# Size  Bandwidth (MB/s)  Messages/s\n" : "# Size  Latency (us)\n");
		fflush(stdout);
	}
	uint64_t seq = 0;
	int bad = stream ? lc_shm_stream(&o, me, ring, boxb, took, to0, sbuf, rbuf) : 0;
	if (bad)
		/* release: pairs with the acquire in the peer's lc_shm_get() */
		atomic_store_explicit(me == 0 ? &to1->seq : &to0->seq, LC_SHM_ABORT, memory_order_release);
	for (size_t size = lo; size <= hi && !bad && !stream; size = lc_ex_sweep_next(size, lo, hi)) {
		struct lc_ex_lat l = lc_ex_lat(&o, size);
		for (unsigned it = 0; lc_ex_lat_more(&l, it); it++) {
			uint64_t seed = lc_ex_seed(size, it);
			seq++;
			if (me == 0) {
				lc_ex_fill(sbuf, size, seed);
				lc_shm_put(to1, sbuf, size, seq);
				if (lc_shm_get(to0, rbuf, size, seq) != 0) {
					bad = 1;
					break;
				}
			} else if (lc_shm_get(to1, rbuf, size, seq) != 0) {
				bad = 1;
				break;
			}
			size_t at = lc_ex_check(rbuf, size, seed);
			if (at != size) {
				/* release: pairs with the acquire in the peer's lc_shm_get() */
				atomic_store_explicit(me == 0 ? &to1->seq : &to0->seq, LC_SHM_ABORT,
						      memory_order_release);
				fprintf(stderr, "shm_pingpong: node %d: payload mismatch: size %zu "
						"iteration %u: first bad byte at %zu\n", me, size, it, at);
				bad = 1;
				break;
			}
			if (me == 1)
				lc_shm_put(to0, rbuf, size, seq);
		}
		if (me == 0 && !bad)
			lc_ex_row(size, (lc_ex_now_us() - l.t0) / (2.0 * l.timed));
	}
	free(sbuf);
	free(rbuf);
	munmap(seg, segb);
	return lc_bench_join(me, child, bad);
}
