/* SPDX-License-Identifier: MIT */
/*
 * Several endpoints (virtual interfaces) per NIC: commrun -n 4 --per-node 2,
 * nodes 0 and 1 on NIC 0, nodes 2 and 3 on NIC 1.
 *
 *   vi traffic [ROUNDS]  every node sends every other a message of each size (0 B, PIO,
 *                        one MTU, several frames by DMA) and puts into a slice of every
 *                        other's registered region; every byte checked -- endpoints of one
 *                        NIC and of two NICs alike
 *   vi doorbell          each node writes every other endpoint's doorbell page through its
 *                        own mapping of the job segment: each write is a segmentation fault;
 *                        attaching as another live endpoint is refused
 *   vi forge             node 1 attacks node 0 (same NIC): it fills node 0's Send Ring with
 *                        frames for node 2 and rings node 0's doorbell in the job segment
 *                        (its own fresh mapping of it, no libcomm), and rings its own doorbell
 *                        naming node 0's page; node 2 receives node 0's real messages, in
 *                        order, and none of the forged ones; node 1's MCP refused its doorbell
 *   vi tag               node 2 puts with a handle of node 0 into node 1 (the same NIC, so the
 *                        same registration table): refused (LC_ERR_ACCESS), nothing written
 *                        in node 1 or node 0; node 1 cannot deregister node 0's region; the
 *                        same handle into node 0 lands
 *
 * The attacks reach below comm.h on purpose (framework/node.h, nic/nic_impl.h): an
 * attacker is not bound to the API.  Prints "vi <mode>: N checked" on success;
 * "FAIL node i: ..." and exit 1 otherwise.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../pipeline/progs/lc_tprog.h"
#include "nic_impl.h"
#include "node.h"

#define M_SYNC 0x5100u    /* barrier messages */
#define M_HANDLE 0x5200u  /* a region's handle */
#define M_DATA 0x5300u    /* traffic, forge: real messages */
#define M_FORGED 0xF0F0u  /* forge: the match word of every forged frame */
#define SLICE 8192u       /* traffic: each node's slice of a region */

static lc_node *node;
static int me, n;

static struct lc_nic *nic_of(lc_node *nd)
{
	return ((struct lc_node *)nd)->nic;
}

/* Every node reaches this point before any goes on (node 0 gathers, then releases). */
static void barrier(void)
{
	struct lc_status st;
	char b;

	if (me == 0) {
		for (int i = 1; i < n; i++)
			LC_TP_OK(node, lc_recv_match(node, LC_ANY_SOURCE, M_SYNC, LC_MATCH_ALL, &b, 1, &st));
		for (int i = 1; i < n; i++)
			LC_TP_OK(node, lc_send_match(node, i, M_SYNC, "", 0));
	} else {
		LC_TP_OK(node, lc_send_match(node, 0, M_SYNC, "", 0));
		LC_TP_OK(node, lc_recv_match(node, 0, M_SYNC, LC_MATCH_ALL, &b, 1, &st));
	}
}

/* ---- traffic ---- */

static int traffic(int rounds)
{
	const size_t lens[] = { 0, 8, LC_PIO_THRESHOLD + 1, LC_MTU, 3 * LC_MTU + 5, 65536 };
	const size_t nl = sizeof lens / sizeof lens[0];
	uint8_t *buf = lc_tp_alloc(65536), *region = lc_tp_alloc((size_t)SLICE * n);
	uint32_t *handles = lc_tp_alloc(sizeof(uint32_t) * n), h;
	int checked = 0;

	LC_TP_OK(node, lc_mem_register(node, region, (size_t)SLICE * n, LC_MEM_REMOTE_WRITE, &h));
	for (int d = 0; d < n; d++)
		if (d != me)
			LC_TP_OK(node, lc_send_match(node, d, M_HANDLE, &h, sizeof h));
	for (int s = 0; s < n; s++) {
		struct lc_status st;

		if (s == me)
			continue;
		LC_TP_OK(node, lc_recv_match(node, s, M_HANDLE, LC_MATCH_ALL, &handles[s], sizeof h, &st));
	}
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nl; i++) {
			/* send to everyone (nonblocking, one buffer per size), then receive from everyone */
			uint64_t seed = 1000u * (uint64_t)r + 10u * i + (uint64_t)me;
			uint8_t *out = lc_tp_alloc(lens[i]);
			lc_req **q = lc_tp_alloc(sizeof(lc_req *) * n);
			int nq = 0;

			lc_ex_fill(out, lens[i], seed);
			for (int d = 0; d < n; d++)
				if (d != me)
					LC_TP_OK(node, lc_isend_match(node, d, M_DATA, out, lens[i], &q[nq++]));
			for (int s = 0; s < n; s++) {
				struct lc_status st;

				if (s == me)
					continue;
				LC_TP_OK(node, lc_recv_match(node, s, M_DATA, LC_MATCH_ALL, buf, 65536, &st));
				lc_tp_expect(buf, &st, s, lens[i], 1000u * (uint64_t)r + 10u * i + (uint64_t)s,
					     "traffic");
				checked++;
			}
			LC_TP_OK(node, lc_waitall(node, nq, q, NULL));
			free(q);
			free(out);
		}
		/* each node puts its slice into every other's region */
		memset(region, 0, (size_t)SLICE * n);
		barrier();
		lc_ex_fill(buf, SLICE, 77u + (uint64_t)r + 100u * (uint64_t)me);
		for (int d = 0; d < n; d++)
			if (d != me)
				LC_TP_OK(node, lc_put(node, d, handles[d], (uint64_t)SLICE * me, buf, SLICE));
		barrier();
		for (int s = 0; s < n; s++) {
			size_t bad;

			if (s == me)
				continue;
			bad = lc_ex_check(region + (size_t)SLICE * s, SLICE, 77u + (uint64_t)r + 100u * (uint64_t)s);
			if (bad != SLICE)
				lc_tp_fail("round %d: the put of node %d differs at byte %zu", r, s, bad);
			checked++;
		}
		barrier();
	}
	LC_TP_OK(node, lc_mem_deregister(node, h));
	free(handles);
	free(region);
	free(buf);
	return checked;
}

/* ---- doorbell ---- */

static sigjmp_buf fault_jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}

/* 1 when a write of v at p is a segmentation fault (the write does not happen). */
static int write_faults(volatile uint32_t *p, uint32_t v)
{
	struct sigaction sa, old;
	int faulted = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(fault_jmp, 1) == 0)
		*p = v;
	else
		faulted = 1;
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

static int doorbell(void)
{
	struct lc_nic *nic = nic_of(node);
	char err[256] = "";
	int checked = 0, rc = 0;

	for (int d = 0; d < n; d++) {
		struct lc_nic_doorbell *db = (struct lc_nic_doorbell *)(void *)(lc_seg_sram(nic, (uint32_t)d) +
										 nic->g.off_tx_fifo);

		if (d == me)
			continue;
		if (!write_faults((volatile uint32_t *)&db->head.v, 1))
			lc_tp_fail("writing node %d's doorbell page did not fault", d);
		if (!write_faults((volatile uint32_t *)&db->e[0].addr, LC_DB_ADDR(d, LC_DB_PIO)))
			lc_tp_fail("writing node %d's doorbell FIFO did not fault", d);
		checked++;
	}
	barrier();
	/* another live endpoint cannot be taken over: attaching as it is refused */
	{
		int victim = (me + 1) % n;
		struct lc_nic *other = lc_nic_attach(getenv("LC_JOB"), (uint32_t)victim, &nic->g, err,
						     sizeof err, &rc);

		if (other || rc != LC_ERR_BUSY)
			lc_tp_fail("attaching as node %d: %s (%s)", victim, other ? "accepted" : lc_tp_errname(rc),
				   err);
		checked++;
	}
	/* this node still works: a ring of messages */
	{
		struct lc_status st;
		uint32_t tok = (uint32_t)me, got;

		LC_TP_OK(node, lc_send_match(node, (me + 1) % n, M_DATA, &tok, sizeof tok));
		LC_TP_OK(node, lc_recv_match(node, (me + n - 1) % n, M_DATA, LC_MATCH_ALL, &got, sizeof got, &st));
		if (got != (uint32_t)((me + n - 1) % n))
			lc_tp_fail("ring token %u, expected %d", got, (me + n - 1) % n);
	}
	barrier();
	return checked;
}

/* ---- forge ---- */

#define FORGE_MSGS 64

/* Node 1: write node 0's Send Ring and doorbell region in a fresh mapping of the job segment. */
static void forge_segment(void)
{
	struct lc_nic *nic = nic_of(node);
	const struct lc_nic_geom *g = &nic->g;
	const char *job = getenv("LC_JOB");
	size_t off0 = (size_t)(lc_seg_sram(nic, 0) - nic->seg);
	int fd = shm_open(job, O_RDWR, 0);
	uint8_t *seg, *sram;
	struct lc_nic_doorbell *db;

	if (fd < 0)
		lc_tp_fail("shm_open(%s) failed", job);
	seg = mmap(NULL, nic->seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (seg == MAP_FAILED)
		lc_tp_fail("mmap of the job segment failed");
	sram = seg + off0;
	db = (struct lc_nic_doorbell *)(void *)(sram + g->off_tx_fifo);
	for (uint32_t s = 0; s < g->send_ring; s++) {
		struct lc_frame_hdr *h = (struct lc_frame_hdr *)(void *)(sram + g->off_send_ring +
									 (size_t)s * g->slot_bytes);
		uint32_t head = atomic_load_explicit(&db->head.v, memory_order_relaxed);

		memset(h, 0, sizeof *h);
		h->magic = LC_FRAME_MAGIC;
		h->type = LC_FT_DATA;
		h->flags = LC_FF_FIRST | LC_FF_LAST;
		h->src = 0;
		h->dst = 2;
		h->len = 0;
		h->match_lo = M_FORGED;
		h->match_hi = 0;
		db->e[head & (g->tx_fifo - 1)].addr = LC_DB_ADDR(0, LC_DB_PIO);
		db->e[head & (g->tx_fifo - 1)].value = s;
		atomic_store_explicit(&db->head.v, head + 1, memory_order_release);
	}
	munmap(seg, nic->seg_bytes);
}

/* Node 1: ring its own doorbell with an entry that names node 0's page. */
static void forge_own_doorbell(void)
{
	struct lc_nic *nic = nic_of(node);
	struct lc_nic_doorbell *db = nic->db;
	uint32_t head = atomic_load_explicit(&db->head.v, memory_order_relaxed);

	db->e[head & (nic->g.tx_fifo - 1)].addr = LC_DB_ADDR(0, LC_DB_PIO);
	db->e[head & (nic->g.tx_fifo - 1)].value = 0;
	atomic_store_explicit(&db->head.v, head + 1, memory_order_release);
}

static int forge(void)
{
	int checked = 0;

	if (me == 1) {
		struct lc_nic *nic = nic_of(node);
		uint64_t refused0 = atomic_load(&lc_nic_stats(nic)[LC_NIC_STAT_db_refused]);
		struct timespec t0, t;

		forge_segment();
		forge_own_doorbell();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			int r = lc_progress(node);

			if (r < 0)
				lc_tp_fail("lc_progress -> %s", lc_tp_errname(r));
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (atomic_load(&lc_nic_stats(nic)[LC_NIC_STAT_db_refused]) == refused0 &&
			 t.tv_sec - t0.tv_sec < 10);
		if (atomic_load(&lc_nic_stats(nic)[LC_NIC_STAT_db_refused]) != refused0 + 1)
			lc_tp_fail("the doorbell naming node 0's page was not refused once (db_refused %llu)",
				   (unsigned long long)(atomic_load(&lc_nic_stats(nic)[LC_NIC_STAT_db_refused]) -
							refused0));
		checked++;
	}
	barrier();
	if (me == 0) {
		uint8_t b[64];

		for (int i = 0; i < FORGE_MSGS; i++) {
			lc_ex_fill(b, sizeof b, 500u + (uint64_t)i);
			LC_TP_OK(node, lc_send_match(node, 2, M_DATA, b, sizeof b));
		}
	} else if (me == 2) {
		uint8_t b[64];
		struct lc_status st;
		struct timespec t0, t;
		int flag = 0;

		for (int i = 0; i < FORGE_MSGS; i++) {
			LC_TP_OK(node, lc_recv_match(node, 0, M_DATA, LC_MATCH_ALL, b, sizeof b, &st));
			lc_tp_expect(b, &st, 0, sizeof b, 500u + (uint64_t)i, "forge: node 0's message");
			checked++;
		}
		/* nothing forged arrives: look for 200 ms */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			LC_TP_OK(node, lc_iprobe(node, LC_ANY_SOURCE, M_FORGED, LC_MATCH_ALL, &flag, &st));
			if (flag)
				lc_tp_fail("a forged frame from node %d arrived", st.src);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
		checked++;
	}
	barrier();
	return checked;
}

/* ---- tag ---- */

#define TAG_REGION 65536u
#define TAG_GUARD 0x5A

static int tag(void)
{
	int checked = 0;

	if (me == 0 || me == 1) {
		uint8_t *region = lc_tp_alloc(TAG_REGION);
		uint32_t h, other;
		struct lc_status st;

		memset(region, TAG_GUARD, TAG_REGION);
		LC_TP_OK(node, lc_mem_register(node, region, TAG_REGION, LC_MEM_REMOTE_WRITE, &h));
		LC_TP_OK(node, lc_send_match(node, 2, M_HANDLE, &h, sizeof h));
		/* the other endpoint of this NIC: its handle names an entry of the same table */
		LC_TP_OK(node, lc_send_match(node, 1 - me, M_HANDLE, &h, sizeof h));
		LC_TP_OK(node, lc_recv_match(node, 1 - me, M_HANDLE, LC_MATCH_ALL, &other, sizeof other, &st));
		{
			int rc = lc_mem_deregister(node, other);

			if (rc != LC_ERR_INVAL)
				lc_tp_fail("deregistering node %d's region: %s, expected LC_ERR_INVAL", 1 - me,
					   lc_tp_errname(rc));
			checked++;
		}
		barrier();     /* node 2 puts */
		barrier();
		if (me == 0) {
			size_t bad = lc_ex_check(region + 4096, 4096, 4242);

			if (bad != 4096)
				lc_tp_fail("the good put differs at byte %zu", bad);
			for (size_t i = 0; i < TAG_REGION; i++)
				if ((i < 4096 || i >= 8192) && region[i] != TAG_GUARD)
					lc_tp_fail("byte %zu of node 0's region was written", i);
		} else {
			for (size_t i = 0; i < TAG_REGION; i++)
				if (region[i] != TAG_GUARD)
					lc_tp_fail("byte %zu of node 1's region was written", i);
		}
		checked++;
		LC_TP_OK(node, lc_mem_deregister(node, h));
		free(region);
	} else if (me == 2) {
		uint32_t h0, h1;
		struct lc_status st;
		uint8_t *src = lc_tp_alloc(4096);
		int rc;

		LC_TP_OK(node, lc_recv_match(node, 0, M_HANDLE, LC_MATCH_ALL, &h0, sizeof h0, &st));
		LC_TP_OK(node, lc_recv_match(node, 1, M_HANDLE, LC_MATCH_ALL, &h1, sizeof h1, &st));
		barrier();
		lc_ex_fill(src, 4096, 4242);
		/* node 0's handle at node 1, node 1's at node 0: each an entry of the NIC's table, of another owner */
		if ((rc = lc_put(node, 1, h0, 4096, src, 4096)) != LC_ERR_ACCESS)
			lc_tp_fail("put into node 1 with node 0's handle: %s, expected LC_ERR_ACCESS",
				   lc_tp_errname(rc));
		if ((rc = lc_put(node, 0, h1, 4096, src, 4096)) != LC_ERR_ACCESS)
			lc_tp_fail("put into node 0 with node 1's handle: %s, expected LC_ERR_ACCESS",
				   lc_tp_errname(rc));
		checked += 2;
		/* the owner's handle at the owner lands (after the refusals: the link still works) */
		LC_TP_OK(node, lc_put(node, 0, h0, 4096, src, 4096));
		checked++;
		barrier();
		free(src);
	} else {
		barrier();
		barrier();
	}
	return checked;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "traffic";
	int rounds = argc > 2 ? atoi(argv[2]) : 2, checked;

	node = lc_tp_open(&me, &n);
	if (n != 4)
		lc_tp_fail("run with commrun -n 4 --per-node 2 (got %d nodes)", n);
	if (nic_of(node)->g.per_nic != 2)
		lc_tp_fail("run with commrun --per-node 2 (got %u)", nic_of(node)->g.per_nic);
	if (!strcmp(mode, "traffic"))
		checked = traffic(rounds);
	else if (!strcmp(mode, "doorbell"))
		checked = doorbell();
	else if (!strcmp(mode, "forge"))
		checked = forge();
	else if (!strcmp(mode, "tag"))
		checked = tag();
	else
		lc_tp_fail("unknown mode %s", mode);
	printf("vi %s: %d checked\n", mode, checked);
	LC_TP_OK(node, lc_close(node));
	return 0;
}
