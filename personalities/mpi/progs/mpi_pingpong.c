/* SPDX-License-Identifier: MIT */
/* mpi_pingpong: plain MPI ping-pong over a size sweep, every byte checked, or a latency run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Usage: mpirun -n 2 mpi_pingpong [check MAXBYTES | lat SIZE ITERS]
 *   check: sizes 0, 1, 2, 4 .. MAXBYTES (default 16 MiB) and odd sizes
 *          between; every byte of each message and echo checked against a
 *          pattern of (size, iteration); prints "mpi_pingpong ok: N sizes".
 *   lat:   rank 0 prints "lat SIZE: X.XXX us" (half the round trip) after a
 *          warm-up of ITERS/10 round trips; no check inside the timed loop.
 */
static unsigned char pat(size_t i, size_t size, int it)
{
	return (unsigned char)((i * 131u) ^ (size * 7u) ^ ((unsigned)it * 29u) ^ (i >> 8));
}

static int check(const unsigned char *b, size_t size, int it, int me)
{
	for (size_t i = 0; i < size; i++)
		if (b[i] != pat(i, size, it)) {
			printf("FAIL rank %d: size %zu iteration %d: byte %zu is %u, want %u\n", me,
			       size, it, i, b[i], pat(i, size, it));
			return 1;
		}
	return 0;
}

static size_t next_size(size_t s)
{
	/* powers of two, and after each from 4 on an odd size between it and the next */
	if (s >= 4 && (s & (s - 1)) == 0)
		return s + s / 2 + 1;
	size_t p = 1;
	while (p <= s)
		p <<= 1;
	return p;
}

int main(int argc, char **argv)
{
	int me, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n != 2) {
		if (me == 0)
			printf("FAIL: mpi_pingpong needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	int peer = 1 - me;
	const char *mode = argc > 1 ? argv[1] : "check";
	if (strcmp(mode, "lat") == 0) {
		int size = argc > 2 ? atoi(argv[2]) : 8, iters = argc > 3 ? atoi(argv[3]) : 10000;
		char *buf = calloc((size_t)size + 1, 1);
		double t0 = 0;
		for (int it = -iters / 10; it < iters; it++) {
			if (it == 0)
				t0 = MPI_Wtime();
			if (me == 0) {
				MPI_Send(buf, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
				MPI_Recv(buf, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
			}
		}
		if (me == 0)
			printf("lat %d: %.3f us\n", size, (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
		free(buf);
		MPI_Finalize();
		return 0;
	}
	size_t max = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : (size_t)16 << 20;
	unsigned char *sb = malloc(max + 1), *rb = malloc(max + 1);
	int sizes = 0, bad = 0;
	for (size_t size = 0; size <= max && !bad; size = next_size(size)) {
		int iters = size > (1u << 20) ? 2 : 5;
		for (int it = 0; it < iters && !bad; it++) {
			MPI_Status st;
			int count;
			memset(rb, 0xee, size + 1);
			if (me == 0) {
				for (size_t i = 0; i < size; i++)
					sb[i] = pat(i, size, it);
				MPI_Send(sb, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
				MPI_Recv(rb, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD, &st);
			} else {
				MPI_Recv(rb, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD, &st);
			}
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (count != (int)size || st.MPI_SOURCE != peer || st.MPI_TAG != it) {
				printf("FAIL rank %d: size %zu: count %d source %d tag %d\n", me, size,
				       count, st.MPI_SOURCE, st.MPI_TAG);
				bad = 1;
			}
			bad |= check(rb, size, it, me);
			if (rb[size] != 0xee) {
				printf("FAIL rank %d: size %zu: wrote past the message\n", me, size);
				bad = 1;
			}
			if (me == 1)
				MPI_Send(rb, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
		}
		sizes++;
	}
	if (!bad)
		printf("mpi_pingpong ok: rank %d, %d sizes up to %zu bytes\n", me, sizes, max);
	free(sb);
	free(rb);
	MPI_Finalize();
	return bad;
}
