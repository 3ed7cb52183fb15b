/* SPDX-License-Identifier: MIT */
/* MPI twin of examples/msgrate.c: osu_mbw_mr-style message rate, window 64, every message checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 8u << 10, .iters = 200, .warmup = 20, .window = 64 };
	struct lc_mb_win r = lc_mb_start(&argc, &argv, "mpi_msgrate", &o, 1,
					 "Bandwidth (MB/s)  Messages/s", LC_EX_OPT_PHASES);
	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		struct lc_ex_phases ph = { 0 };
		double t0 = 0;
		for (unsigned w = 0; w < o.warmup + o.iters; w++) {
			unsigned char ack = 0;
			int timed = w >= o.warmup;
			if (w == o.warmup)
				t0 = MPI_Wtime();
			if (o.phases)
				lc_ex_phase(&ph, 0, w == o.warmup ? t0 : MPI_Wtime(), timed);
			if (r.me == 0)
				for (unsigned j = 0; j < o.window; j++)
					lc_ex_fill(r.bufs[0] + j * r.slot, size,
						   lc_ex_seed(size, (uint64_t)w * o.window + j));
			lc_mb_post(r.me == 0, r.bufs[0], r.slot, size, o.window, 1 - r.me, r.req);
			if (o.phases)
				lc_ex_phase(&ph, 1, MPI_Wtime(), timed);
			if (r.me == 0) {
				MPI_Waitall((int)o.window, r.req, MPI_STATUSES_IGNORE);
				if (o.phases)
					lc_ex_phase(&ph, 2, MPI_Wtime(), timed);
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				continue;
			}
			/* one wait for the window (osu_mbw_mr), then every message checked, as the
			 * libcomm msgrate does */
			MPI_Waitall((int)o.window, r.req, MPI_STATUSES_IGNORE);
			if (o.phases)
				lc_ex_phase(&ph, 2, MPI_Wtime(), timed);
			for (unsigned j = 0; j < o.window; j++) {
				uint64_t seed = lc_ex_seed(size, (uint64_t)w * o.window + j);
				if (lc_ex_check(r.bufs[0] + j * r.slot, size, seed) != size) {
					fprintf(stderr, "mpi_msgrate: wrong message at size %zu\n", size);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
			MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
		double t1 = MPI_Wtime(), dt = t1 - t0;
		if (o.phases) {
			lc_ex_phase(&ph, 0, t1, 0);
			lc_ex_phases_print(&ph, size, o.window, r.me, r.me == 0 ? "sender" : "receiver");
		}
		if (r.me == 0)
			lc_ex_row_rate(size, (double)o.iters * o.window, dt);
	}
	return lc_mb_end(&r, 1);
}
