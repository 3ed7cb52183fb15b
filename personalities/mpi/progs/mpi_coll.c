/* SPDX-License-Identifier: MIT */
/* mpi_coll: every collective of the subset against a serial reference, every root, a few sizes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Usage: mpirun -n N mpi_coll
 * Rank r's contribution to element i is val(r, i), small integers so that
 * float and double sums are exact; each rank computes the expected result
 * itself and compares.  Prints "mpi_coll ok: N ranks" per rank.
 */
static int me, np, bad;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond) && bad < 10) {                                 \
			printf("FAIL rank %d line %d: ", me, __LINE__);    \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			bad++;                                             \
		}                                                          \
	} while (0)

static int val(int r, int i)
{
	return (r * 7 + i * 3) % 11 + 1;
}

static void reduce_ref(int op, int n, double *out)
{
	for (int i = 0; i < n; i++) {
		double a = val(0, i);
		for (int r = 1; r < np; r++) {
			double b = val(r, i);
			a = op == 0 ? a + b : op == 1 ? (r < 4 ? a * b : a) : op == 2 ? (b < a ? b : a)
										: (b > a ? b : a);
		}
		out[i] = a;
	}
}

static void reductions(void)
{
	static const MPI_Op ops[] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };
	int counts[] = { 1, 5, 1000 };
	for (int ci = 0; ci < 3; ci++) {
		int n = counts[ci];
		int *si = malloc(n * sizeof(int)), *ri = malloc(n * sizeof(int));
		double *sd = malloc(n * sizeof(double)), *rd = malloc(n * sizeof(double)),
		       *ref = malloc(n * sizeof(double));
		long long *sl = malloc(n * sizeof(long long)), *rl = malloc(n * sizeof(long long));
		for (int o = 0; o < 4; o++) {
			/* PROD: only ranks 0..3 contribute their value, the others 1 */
			for (int i = 0; i < n; i++) {
				int v = (o == 1 && me >= 4) ? 1 : val(me, i);
				si[i] = v;
				sd[i] = v;
				sl[i] = v;
			}
			reduce_ref(o, n, ref);
			for (int root = 0; root < np; root++) {
				memset(ri, 0, n * sizeof(int));
				MPI_Reduce(si, ri, n, MPI_INT, ops[o], root, MPI_COMM_WORLD);
				if (me == root)
					for (int i = 0; i < n; i++)
						CHECK(ri[i] == (int)ref[i], "reduce op %d n %d root %d [%d]: %d != %g",
						      o, n, root, i, ri[i], ref[i]);
			}
			MPI_Allreduce(sd, rd, n, MPI_DOUBLE, ops[o], MPI_COMM_WORLD);
			for (int i = 0; i < n; i++)
				CHECK(rd[i] == ref[i], "allreduce double op %d [%d]: %g != %g", o, i, rd[i],
				      ref[i]);
			memcpy(rl, sl, n * sizeof(long long));
			MPI_Allreduce(MPI_IN_PLACE, rl, n, MPI_LONG_LONG, ops[o], MPI_COMM_WORLD);
			for (int i = 0; i < n; i++)
				CHECK(rl[i] == (long long)ref[i], "allreduce in place op %d [%d]", o, i);
		}
		float f = (float)val(me, 0), fr = 0;
		MPI_Allreduce(&f, &fr, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		reduce_ref(0, 1, ref);
		CHECK(fr == (float)ref[0], "float sum %g != %g", fr, ref[0]);
		free(si), free(ri), free(sd), free(rd), free(ref), free(sl), free(rl);
	}
}

static void bcast(void)
{
	int sizes[] = { 0, 1, 1000, 70000, 1 << 20 };
	for (int s = 0; s < 5; s++) {
		int n = sizes[s];
		unsigned char *b = malloc((size_t)n + 1);
		for (int root = 0; root < np; root++) {
			for (int i = 0; i < n; i++)
				b[i] = me == root ? (unsigned char)(i * 13 + root) : 0;
			MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD);
			for (int i = 0; i < n; i++)
				if (b[i] != (unsigned char)(i * 13 + root)) {
					CHECK(0, "bcast %d bytes root %d: byte %d", n, root, i);
					break;
				}
		}
		free(b);
	}
}

static void gathers(void)
{
	int counts[] = { 0, 1, 3, 5000 };
	for (int ci = 0; ci < 4; ci++) {
		int n = counts[ci];
		int *s = malloc((size_t)n * sizeof(int) + 4), *all = malloc((size_t)n * np * sizeof(int) + 4);
		int *a2a = malloc((size_t)n * np * sizeof(int) + 4), *r2 = malloc((size_t)n * np * sizeof(int) + 4);
		for (int i = 0; i < n; i++)
			s[i] = me * 100000 + i;
		for (int root = 0; root < np; root++) {
			memset(all, 0xff, (size_t)n * np * sizeof(int));
			MPI_Gather(s, n, MPI_INT, all, n, MPI_INT, root, MPI_COMM_WORLD);
			if (me == root)
				for (int r = 0; r < np; r++)
					for (int i = 0; i < n; i++)
						CHECK(all[r * n + i] == r * 100000 + i,
						      "gather n %d root %d from %d [%d]", n, root, r, i);
			/* scatter back what the root gathered: each gets its own block */
			int *mine = malloc((size_t)n * sizeof(int) + 4);
			memset(mine, 0xff, (size_t)n * sizeof(int));
			if (me == root)
				for (int r = 0; r < np; r++)
					for (int i = 0; i < n; i++)
						all[r * n + i] = r * 100000 + i + 7;
			MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root, MPI_COMM_WORLD);
			for (int i = 0; i < n; i++)
				CHECK(mine[i] == me * 100000 + i + 7, "scatter n %d root %d [%d]: %d", n,
				      root, i, mine[i]);
			free(mine);
		}
		memset(all, 0xff, (size_t)n * np * sizeof(int));
		MPI_Allgather(s, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
		for (int r = 0; r < np; r++)
			for (int i = 0; i < n; i++)
				CHECK(all[r * n + i] == r * 100000 + i, "allgather n %d from %d [%d]", n, r, i);
		for (int r = 0; r < np; r++)
			for (int i = 0; i < n; i++)
				a2a[r * n + i] = me * 1000000 + r * 1000 + i % 1000;
		MPI_Alltoall(a2a, n, MPI_INT, r2, n, MPI_INT, MPI_COMM_WORLD);
		for (int r = 0; r < np; r++)
			for (int i = 0; i < n; i++)
				CHECK(r2[r * n + i] == r * 1000000 + me * 1000 + i % 1000,
				      "alltoall n %d from %d [%d]: %d", n, r, i, r2[r * n + i]);
		free(s), free(all), free(a2a), free(r2);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	/* a user message of tag 1..6 pending on world must not disturb any collective */
	int pending = 99;
	if (np > 1 && me == 1)
		MPI_Send(&pending, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	for (int k = 0; k < 3; k++)
		MPI_Barrier(MPI_COMM_WORLD);
	bcast();
	reductions();
	gathers();
	MPI_Comm d;
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	int x = me, sum = -1;
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d);
	CHECK(sum == np * (np - 1) / 2, "allreduce on a dup: %d", sum);
	MPI_Comm_free(&d);
	if (np > 1 && me == 0) {
		int got = 0;
		MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(got == 99, "the user message after the collectives: %d", got);
	}
	if (!bad)
		printf("mpi_coll ok: %d ranks\n", np);
	MPI_Finalize();
	return bad != 0;
}
