/* SPDX-License-Identifier: MIT */
/* Open MPI twin of examples/msgrate.c: osu_mbw_mr-style message rate, window 64, every message checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_mb_opts o = { 0, 8u << 10, 200, 20, 64 };
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (lc_mb_parse(argc, argv, "mpi_msgrate", &o) != 0 || n != 2) {
		MPI_Finalize();
		return 2;
	}
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *bufs = lc_mb_alloc(slot * o.window);
	MPI_Request *req = lc_mb_alloc(o.window * sizeof *req);
	if (me == 0) {
		printf("# Open MPI msgrate (window %u)\n# Size  Bandwidth (MB/s)  Messages/s\n", o.window);
		fflush(stdout);
	}
	for (size_t size = o.lo;; size = lc_ex_next_size(size, o.lo)) {
		if (size > o.hi)
			break;
		double t0 = 0;
		for (unsigned w = 0; w < o.warmup + o.iters; w++) {
			unsigned char ack = 0;
			if (w == o.warmup)
				t0 = MPI_Wtime();
			for (unsigned j = 0; j < o.window; j++) {
				unsigned char *b = bufs + j * slot;
				if (me == 0) {
					lc_ex_fill(b, size, lc_ex_seed(size, (uint64_t)w * o.window + j));
					MPI_Isend(b, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[j]);
				} else {
					MPI_Irecv(b, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[j]);
				}
			}
			if (me == 0) {
				MPI_Waitall((int)o.window, req, MPI_STATUSES_IGNORE);
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				continue;
			}
			for (unsigned j = 0; j < o.window; j++) {
				MPI_Wait(&req[j], MPI_STATUS_IGNORE);
				uint64_t seed = lc_ex_seed(size, (uint64_t)w * o.window + j);
				if (lc_ex_check(bufs + j * slot, size, seed) != size) {
					fprintf(stderr, "mpi_msgrate: wrong message at size %zu\n", size);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
			MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
		double dt = MPI_Wtime() - t0;
		if (me == 0) {
			double msgs = (double)o.iters * o.window;
			printf("%-12zu%16.2f%14.0f\n", size, (double)size * msgs / dt / 1e6, msgs / dt);
			fflush(stdout);
		}
		if (size == o.hi)
			break;
	}
	free(bufs);
	free(req);
	MPI_Finalize();
	return 0;
}
