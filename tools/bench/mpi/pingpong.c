/* SPDX-License-Identifier: MIT */
/* MPI twin of examples/pingpong.c: half round trip, payload filled and checked every iteration. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 4u << 20, .iters = 1000, .warmup = 100, .window = 1 };
	int me = lc_mb_init(&argc, &argv, "mpi_pingpong", &o, 1, 0);
	int peer = 1 - me;
	unsigned char *sbuf = lc_mb_alloc(o.hi), *rbuf = lc_mb_alloc(o.hi);
	if (me == 0)
		lc_mb_header("pingpong", 0, "Latency (us)");
	for (size_t size = o.lo; size <= o.hi; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		unsigned it_warm, it_timed = lc_ex_rounds(o.iters, o.warmup, size, 10, 2, &it_warm);
		double t0 = 0;
		for (unsigned it = 0; it < it_warm + it_timed; it++) {
			uint64_t seed = lc_ex_seed(size, it);
			if (it == it_warm)
				t0 = MPI_Wtime();
			if (me == 0) {
				lc_ex_fill(sbuf, size, seed);
				MPI_Send(sbuf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			}
			MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (lc_ex_check(rbuf, size, seed) != size) {
				fprintf(stderr, "mpi_pingpong: rank %d: payload mismatch at size %zu\n", me, size);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			if (me == 1)
				MPI_Send(rbuf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
		}
		if (me == 0)
			lc_ex_row(size, (MPI_Wtime() - t0) * 1e6 / (2.0 * it_timed));
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
