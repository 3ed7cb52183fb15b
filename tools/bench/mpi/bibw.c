/* SPDX-License-Identifier: MIT */
/* Open MPI twin of examples/bibw.c: osu_bibw-style bidirectional bandwidth, every message's stamps checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_mb_opts o = { 1, 4u << 20, 100, 10, 64 };
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (lc_mb_parse(argc, argv, "mpi_bibw", &o) != 0 || n != 2) {
		MPI_Finalize();
		return 2;
	}
	int peer = 1 - me;
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *sbufs = lc_mb_alloc(slot * o.window), *rbufs = lc_mb_alloc(slot * o.window);
	MPI_Request *req = lc_mb_alloc(2 * o.window * sizeof *req);
	if (me == 0) {
		printf("# Open MPI bibw (window %u)\n# Size  Bandwidth (MB/s)\n", o.window);
		fflush(stdout);
	}
	for (size_t size = o.lo;; size = lc_ex_next_size(size, o.lo)) {
		if (size > o.hi)
			break;
		unsigned w_timed = lc_mb_scaled(o.iters, size, 3);
		unsigned w_warm = lc_mb_scaled(o.warmup, size, o.warmup ? 1 : 0);
		double t0 = 0;
		for (unsigned j = 0; j < o.window; j++)
			lc_ex_fill(sbufs + j * slot, size, lc_ex_seed(size, j));
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			if (w == w_warm)
				t0 = MPI_Wtime();
			for (unsigned j = 0; j < o.window; j++)
				MPI_Irecv(rbufs + j * slot, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					  &req[j]);
			for (unsigned j = 0; j < o.window; j++) {
				unsigned char *b = sbufs + j * slot;
				uint32_t seq = w * o.window + j;
				if (size >= 8)
					lc_mb_stamp(b, size, seq);
				else
					lc_ex_fill(b, size, lc_ex_seed(size, seq));
				MPI_Isend(b, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[o.window + j]);
			}
			MPI_Waitall((int)(2 * o.window), req, MPI_STATUSES_IGNORE);
			for (unsigned j = 0; j < o.window; j++) {
				unsigned char *b = rbufs + j * slot;
				uint32_t seq = w * o.window + j;
				int ok = size >= 8 ? lc_mb_unstamp(b, size, seq) == 0
					 : lc_ex_check(b, size, lc_ex_seed(size, seq)) == size;
				if (!ok) {
					fprintf(stderr, "mpi_bibw: wrong message at size %zu\n", size);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
		}
		double dt = MPI_Wtime() - t0;
		if (me == 0) {
			printf("%-12zu%16.2f\n", size,
			       2.0 * (double)size * w_timed * o.window / dt / 1e6);
			fflush(stdout);
		}
		if (size == o.hi)
			break;
	}
	free(sbufs);
	free(rbufs);
	free(req);
	MPI_Finalize();
	return 0;
}
