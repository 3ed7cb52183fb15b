/* SPDX-License-Identifier: MIT */
/* Open MPI twin of examples/msgrate.c: osu_mbw_mr-style message rate, window 64, every message checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 8u << 10, .iters = 200, .warmup = 20, .window = 64 };
	int me;
	if (lc_mb_init(&argc, &argv, "mpi_msgrate", &o, &me, 0) != 0)
		return 2;
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *bufs = lc_mb_alloc(slot * o.window);
	MPI_Request *req = lc_mb_alloc(o.window * sizeof *req);
	if (me == 0)
		lc_mb_header("msgrate", o.window, "Bandwidth (MB/s)  Messages/s");
	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		double t0 = 0;
		for (unsigned w = 0; w < o.warmup + o.iters; w++) {
			unsigned char ack = 0;
			if (w == o.warmup)
				t0 = MPI_Wtime();
			if (me == 0)
				for (unsigned j = 0; j < o.window; j++)
					lc_ex_fill(bufs + j * slot, size,
						   lc_ex_seed(size, (uint64_t)w * o.window + j));
			lc_mb_post(me == 0, bufs, slot, size, o.window, 1 - me, req);
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
		if (me == 0)
			lc_ex_row_rate(size, (double)o.iters * o.window, dt);
	}
	free(bufs);
	free(req);
	MPI_Finalize();
	return 0;
}
