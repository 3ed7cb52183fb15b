/* SPDX-License-Identifier: MIT */
/* MPI twin of examples/stream.c: windowed one-way bandwidth, every message's stamps checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 1, .hi = 4u << 20, .iters = 100, .warmup = 10, .window = 64 };
	struct lc_mb_win r = lc_mb_start(&argc, &argv, "mpi_stream", &o, 1,
					 "Bandwidth (MB/s)  Messages/s", 0);
	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		unsigned w_warm, w_timed = lc_ex_rounds(o.iters, o.warmup, size, 5, 1, &w_warm);
		double t0 = 0;
		if (r.me == 0)
			for (unsigned j = 0; j < o.window; j++)
				lc_ex_fill(r.bufs[0] + j * r.slot, size, lc_ex_seed(size, j));
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			unsigned char ack = 0;
			if (w == w_warm)
				t0 = MPI_Wtime();
			if (r.me == 0)
				for (unsigned j = 0; j < o.window; j++)
					lc_ex_mark(r.bufs[0] + j * r.slot, size, w * o.window + j);
			lc_mb_post(r.me == 0, r.bufs[0], r.slot, size, o.window, 1 - r.me, r.req);
			MPI_Waitall((int)o.window, r.req, MPI_STATUSES_IGNORE);
			if (r.me == 1) {
				lc_mb_check_marked("mpi_stream", r.bufs[0], r.slot, size, o.window, w);
				MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
			} else {
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
		double dt = MPI_Wtime() - t0;
		if (r.me == 0)
			lc_ex_row_rate(size, (double)w_timed * o.window, dt);
	}
	return lc_mb_end(&r, 1);
}
