/* SPDX-License-Identifier: MIT */
/* MPI twin of examples/bibw.c: osu_bibw-style bidirectional bandwidth, every message's stamps checked. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 1, .hi = 4u << 20, .iters = 100, .warmup = 10, .window = 64 };
	struct lc_mb_win r = lc_mb_start(&argc, &argv, "mpi_bibw", &o, 2,
					 "Bandwidth (MB/s)", 0);
	unsigned char *sbufs = r.bufs[0], *rbufs = r.bufs[1];
	int peer = 1 - r.me;
	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		unsigned w_warm, w_timed = lc_ex_rounds(o.iters, o.warmup, size, 3, 1, &w_warm);
		double t0 = 0;
		/* both ranks send: every slot's payload is the pattern of its index */
		for (unsigned j = 0; j < o.window; j++)
			lc_ex_fill(sbufs + j * r.slot, size, lc_ex_seed(size, j));
		for (unsigned w = 0; w < w_warm + w_timed; w++) {
			if (w == w_warm)
				t0 = MPI_Wtime();
			lc_mb_post(0, rbufs, r.slot, size, o.window, peer, r.req);
			for (unsigned j = 0; j < o.window; j++)
				lc_ex_mark(sbufs + j * r.slot, size, w * o.window + j);
			lc_mb_post(1, sbufs, r.slot, size, o.window, peer, r.req + o.window);
			MPI_Waitall((int)(2 * o.window), r.req, MPI_STATUSES_IGNORE);
			lc_mb_check_marked("mpi_bibw", rbufs, r.slot, size, o.window, w);
		}
		double dt = MPI_Wtime() - t0;
		if (r.me == 0)
			lc_ex_row(size, 2.0 * (double)size * w_timed * o.window / dt / 1e6);
	}
	return lc_mb_end(&r, 2);
}
