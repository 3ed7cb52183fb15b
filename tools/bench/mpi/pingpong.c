/* SPDX-License-Identifier: MIT */
/* Open MPI twin of examples/pingpong.c: half round trip, payload filled and checked every iteration. */
#include "lc_mpi_bench.h"

int main(int argc, char **argv)
{
	struct lc_mb_opts o = { 0, 4u << 20, 1000, 100, 1 };
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (lc_mb_parse(argc, argv, "mpi_pingpong", &o) != 0 || n != 2) {
		if (n != 2 && me == 0)
			fprintf(stderr, "mpi_pingpong: needs exactly 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	int peer = 1 - me;
	unsigned char *sbuf = lc_mb_alloc(o.hi), *rbuf = lc_mb_alloc(o.hi);
	if (me == 0) {
		printf("# Open MPI pingpong\n# Size  Latency (us)\n");
		fflush(stdout);
	}
	int bad = 0;
	for (size_t size = o.lo; !bad; size = lc_ex_next_size(size, o.lo)) {
		if (size > o.hi)
			break;
		unsigned it_timed = lc_mb_scaled(o.iters, size, 10);
		unsigned it_warm = lc_mb_scaled(o.warmup, size, o.warmup ? 2 : 0);
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
		if (me == 0) {
			printf("%-12zu%16.2f\n", size, (MPI_Wtime() - t0) * 1e6 / (2.0 * it_timed));
			fflush(stdout);
		}
		if (size == o.hi)
			break;
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return bad;
}
