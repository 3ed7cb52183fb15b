/* SPDX-License-Identifier: MIT */
/* stream_mpi: the MPI twin of examples/stream.c (same window, header, checks and output). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/lc_ex_pattern.h"

/*
 * Usage: mpirun -np 2 stream_mpi [-s min:max] [-i windows] [-w warmup] [--window W] [--verify]
 * Rank 0 posts W MPI_Isend (one buffer per slot), waits, then receives a
 * 1-byte ack; rank 1 posts W MPI_Irecv, waits, checks every message's
 * struct lc_ex_hdr (with --verify also the payload checksum) and acks.
 */
struct lc_mst_counts {
	unsigned long long total, ok, corrupt, duplicate, ooo, lost;
};

static unsigned lc_mst_scaled(unsigned base, size_t size, unsigned floor)
{
	if (size <= 8192)
		return base;
	unsigned long long v = (unsigned long long)base * 8192 / size;
	return v < floor ? floor : (unsigned)v;
}

static void lc_mst_make(unsigned char *buf, size_t size, uint32_t seq, int verify, uint32_t sum)
{
	if (size < LC_EX_HDR_BYTES) {
		lc_ex_fill(buf, size, lc_ex_seed(size, seq));
		return;
	}
	struct lc_ex_hdr h;
	if (verify) {
		lc_ex_fill(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES, lc_ex_seed(size, seq));
		sum = lc_ex_sum(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES);
	}
	h.seq = seq;
	h.len = (uint32_t)size;
	h.sum = sum;
	h.hsum = lc_ex_hdr_sum(&h);
	memcpy(buf, &h, sizeof h);
}

static void lc_mst_judge(const unsigned char *buf, size_t got, size_t size, uint32_t expect,
			 uint32_t total, int verify, unsigned char *seen, uint32_t *top,
			 struct lc_mst_counts *c)
{
	struct lc_ex_hdr h;
	if (got != size || (size < LC_EX_HDR_BYTES && lc_ex_check(buf, size, lc_ex_seed(size, expect)) != size)) {
		c->corrupt++;
		seen[expect] = 1;
		return;
	}
	if (size < LC_EX_HDR_BYTES) {
		seen[expect] = 1;
		*top = expect + 1;
		c->ok++;
		return;
	}
	memcpy(&h, buf, sizeof h);
	if (h.hsum != lc_ex_hdr_sum(&h) || h.len != size || h.seq >= total ||
	    (verify && lc_ex_sum(buf + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES) != h.sum)) {
		c->corrupt++;
		seen[expect] = 1;
		return;
	}
	if (seen[h.seq]) {
		c->duplicate++;
		return;
	}
	seen[h.seq] = 1;
	if (h.seq + 1 < *top) {
		c->ooo++;
		return;
	}
	*top = h.seq + 1;
	c->ok++;
}

int main(int argc, char **argv)
{
	size_t lo = 1, hi = 4u << 20;
	unsigned iters = 100, warmup = 10, window = 64;
	int verify = 0, me, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-s") == 0 && a + 1 < argc) {
			if (lc_ex_parse_range(argv[++a], &lo, &hi) != 0)
				MPI_Abort(MPI_COMM_WORLD, 2);
		} else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
			iters = (unsigned)strtoul(argv[++a], NULL, 10);
		} else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
			warmup = (unsigned)strtoul(argv[++a], NULL, 10);
		} else if (strcmp(argv[a], "--window") == 0 && a + 1 < argc) {
			window = (unsigned)strtoul(argv[++a], NULL, 10);
		} else if (strcmp(argv[a], "--verify") == 0) {
			verify = 1;
		} else {
			fprintf(stderr, "usage: stream_mpi [-s min:max] [-i windows] [-w warmup] "
					"[--window W] [--verify]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (n != 2 || iters == 0 || window == 0 || window > 4096)
		MPI_Abort(MPI_COMM_WORLD, 2);
	size_t slot = hi ? hi : 1;
	unsigned char *bufs = malloc(slot * window);
	uint32_t *slot_sum = calloc(window, sizeof *slot_sum);
	MPI_Request *req = calloc(window, sizeof *req);
	MPI_Status *sts = calloc(window, sizeof *sts);
	if (!bufs || !slot_sum || !req || !sts)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (me == 0) {
		printf("# MPI stream (Open MPI, window %u%s)\n", window, verify ? ", verify" : "");
		printf("# Size  Bandwidth (MB/s)  Messages/s\n");
		fflush(stdout);
	}
	struct lc_mst_counts cnt = { 0 };
	for (size_t size = lo;; size = lc_ex_next_size(size, lo)) {
		if (size > hi)
			break;
		unsigned w_timed = lc_mst_scaled(iters, size, 5);
		unsigned w_warm = lc_mst_scaled(warmup, size, warmup ? 1 : 0);
		uint32_t total = (w_warm + w_timed) * window;
		unsigned char *seen = NULL;
		uint32_t top = 0;
		double t0 = 0;
		if (me == 0 && !verify && size >= LC_EX_HDR_BYTES)
			for (unsigned j = 0; j < window; j++) {
				unsigned char *b = bufs + j * slot;
				lc_ex_fill(b + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES, lc_ex_seed(size, j));
				slot_sum[j] = lc_ex_sum(b + LC_EX_HDR_BYTES, size - LC_EX_HDR_BYTES);
			}
		if (me == 1) {
			seen = calloc(total, 1);
			cnt.total += total;
		}
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			unsigned char ack = 0;
			if (w == w_warm)
				t0 = MPI_Wtime();
			if (me == 0) {
				for (unsigned j = 0; j < window; j++) {
					unsigned char *b = bufs + j * slot;
					lc_mst_make(b, size, w * window + j, verify, slot_sum[j]);
					MPI_Isend(b, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[j]);
				}
				MPI_Waitall((int)window, req, MPI_STATUSES_IGNORE);
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				for (unsigned j = 0; j < window; j++)
					MPI_Irecv(bufs + j * slot, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[j]);
				MPI_Waitall((int)window, req, sts);
				for (unsigned j = 0; j < window; j++) {
					int got;
					MPI_Get_count(&sts[j], MPI_BYTE, &got);
					lc_mst_judge(bufs + j * slot, (size_t)got, size, w * window + j, total,
						     verify, seen, &top, &cnt);
				}
				MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
			}
		}
		double dt = MPI_Wtime() - t0;
		if (me == 0) {
			double msgs = (double)w_timed * window;
			printf("%-12zu%16.2f%14.0f\n", size, (double)size * msgs / dt / 1e6, msgs / dt);
			fflush(stdout);
		} else {
			for (uint32_t s = 0; s < total; s++)
				cnt.lost += !seen[s];
			free(seen);
			if (!verify && (cnt.corrupt || cnt.duplicate || cnt.ooo || cnt.lost)) {
				fprintf(stderr, "stream_mpi: size %zu: bad messages\n", size);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		if (size == hi)
			break;
	}
	int bad = 0;
	if (me == 1) {
		bad = cnt.corrupt || cnt.duplicate || cnt.ooo || cnt.lost;
		if (verify) {
			printf("verified %llu/%llu messages, %llu corrupt, %llu duplicate, "
			       "%llu out-of-order, %llu lost\n", cnt.ok, cnt.total, cnt.corrupt,
			       cnt.duplicate, cnt.ooo, cnt.lost);
			fflush(stdout);
		}
	}
	free(bufs);
	free(slot_sum);
	free(req);
	free(sts);
	MPI_Finalize();
	return bad;
}
