/* SPDX-License-Identifier: MIT */
/* Open MPI twin of examples/stream.c: windowed one-way bandwidth, every message's stamps checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_mb_opts o = { 1, 4u << 20, 100, 10, 64 };
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (lc_mb_parse(argc, argv, "mpi_stream", &o) != 0 || n != 2) {
		MPI_Finalize();
		return 2;
	}
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *bufs = lc_mb_alloc(slot * o.window);
	MPI_Request *req = lc_mb_alloc(o.window * sizeof *req);
	if (me == 0) {
		printf("# Open MPI stream (window %u)\n# Size  Bandwidth (MB/s)  Messages/s\n", o.window);
		fflush(stdout);
	}
	for (size_t size = o.lo;; size = lc_ex_next_size(size, o.lo)) {
		if (size > o.hi)
			break;
		unsigned w_timed = lc_mb_scaled(o.iters, size, 5);
		unsigned w_warm = lc_mb_scaled(o.warmup, size, o.warmup ? 1 : 0);
		double t0 = 0;
		if (me == 0)
			for (unsigned j = 0; j < o.window; j++)
				lc_ex_fill(bufs + j * slot, size, lc_ex_seed(size, j));
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			unsigned char ack = 0;
			if (w == w_warm)
				t0 = MPI_Wtime();
			for (unsigned j = 0; j < o.window; j++) {
				unsigned char *b = bufs + j * slot;
				uint32_t seq = w * o.window + j;
				if (me == 0) {
					if (size >= 8)
						lc_mb_stamp(b, size, seq);
					else
						lc_ex_fill(b, size, lc_ex_seed(size, seq));
					MPI_Isend(b, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[j]);
				} else {
					MPI_Irecv(b, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[j]);
				}
			}
			MPI_Waitall((int)o.window, req, MPI_STATUSES_IGNORE);
			if (me == 1) {
				for (unsigned j = 0; j < o.window; j++) {
					unsigned char *b = bufs + j * slot;
					uint32_t seq = w * o.window + j;
					int ok = size >= 8 ? lc_mb_unstamp(b, size, seq) == 0
						 : lc_ex_check(b, size, lc_ex_seed(size, seq)) == size;
					if (!ok) {
						fprintf(stderr, "mpi_stream: wrong message at size %zu\n", size);
						MPI_Abort(MPI_COMM_WORLD, 1);
					}
				}
				MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
			} else {
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
		double dt = MPI_Wtime() - t0;
		if (me == 0) {
			double msgs = (double)w_timed * o.window;
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
