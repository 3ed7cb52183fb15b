/* SPDX-License-Identifier: MIT */
/* Shared pieces of the MPI twins of the libcomm examples: start-up, buffers, windows. */
#ifndef LC_MPI_BENCH_H
#define LC_MPI_BENCH_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_ex_pattern.h"

/*
 * Every twin takes the options of its libcomm example (-s min:max, -i, -w,
 * --window), sweeps the same sizes (lc_ex_sweep_next), scales its
 * iterations the same way (lc_ex_rounds), checks its payload the same way
 * (lc_ex_check, lc_ex_marked) and prints the same table (lc_ex_row,
 * lc_ex_row_rate), so that a libcomm figure and an MPI figure differ
 * only by the transport.  tools/bench/run.py builds every twin twice: with
 * Open MPI's mpicc (the openmpi anchor) and with each config's bin/mpicc
 * (the MPI personality over that config's libcomm, series <config>+mpi).
 */

static inline void *lc_mb_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory for %zu bytes\n", n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/*
 * MPI_Init and the options (o holds the defaults; extra: LC_EX_OPT_PHASES or
 * 0); returns this rank.  A bad option or a world that is not 2 ranks ends
 * the program: MPI is finalized, the exit status is 2 (with say_size rank 0
 * names the latter).
 */
static inline int lc_mb_init(int *argc, char ***argv, const char *prog, struct lc_ex_opts *o,
			     int say_size, unsigned extra)
{
	int me, n, rc;

	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	rc = lc_ex_parse(*argc, *argv, prog, LC_EX_OPT_WINDOW | extra, o);
	if (rc == 1)
		fprintf(stderr, "usage: mpirun -np 2 %s [-s min:max] [-i iters] [-w warmup] "
				"[--window W]%s\n", prog, (extra & LC_EX_OPT_PHASES) ? " [--phases]" : "");
	if (rc == 0 && n == 2)
		return me;
	if (n != 2 && say_size && me == 0)
		fprintf(stderr, "%s: needs exactly 2 ranks\n", prog);
	MPI_Finalize();
	exit(2);
}

/* Table header (rank 0): "# MPI <name> (window W)" or without the window, then the columns. */
static inline void lc_mb_header(const char *name, unsigned window, const char *columns)
{
	if (window)
		printf("# MPI %s (window %u)\n# Size  %s\n", name, window, columns);
	else
		printf("# MPI %s\n# Size  %s\n", name, columns);
	fflush(stdout);
}

/* A windowed twin (bibw, msgrate, stream): its rank and its buffers. */
struct lc_mb_win {
	int me;
	size_t slot;                    /* bytes a slot: max(hi, 1) */
	unsigned char *bufs[2];         /* sets of window slots */
	MPI_Request *req;               /* sets x window requests */
};

/*
 * Start of a windowed twin named "mpi_<name>" (prog): lc_mb_init (which
 * ends the program on bad options), sets (1 or 2) of o->window slots and
 * their requests, then the table header "# MPI <name> (window W)" on
 * rank 0.
 */
static inline struct lc_mb_win lc_mb_start(int *argc, char ***argv, const char *prog,
					   struct lc_ex_opts *o, unsigned sets, const char *columns,
					   unsigned extra)
{
	struct lc_mb_win r = { .me = lc_mb_init(argc, argv, prog, o, 0, extra) };

	r.slot = o->hi ? o->hi : 1;
	for (unsigned k = 0; k < sets; k++)
		r.bufs[k] = lc_mb_alloc(r.slot * o->window);
	r.req = lc_mb_alloc(sets * o->window * sizeof *r.req);
	if (r.me == 0)
		lc_mb_header(prog + strlen("mpi_"), o->window, columns);
	return r;
}

/* End of a windowed twin: its buffers freed, MPI finalized; the exit status 0. */
static inline int lc_mb_end(struct lc_mb_win *r, unsigned sets)
{
	for (unsigned k = 0; k < sets; k++)
		free(r->bufs[k]);
	free(r->req);
	MPI_Finalize();
	return 0;
}

/* Post window nonblocking transfers of size bytes with peer, one per slot of bufs (tag 1). */
static inline void lc_mb_post(int send, unsigned char *bufs, size_t slot, size_t size,
			      unsigned window, int peer, MPI_Request *req)
{
	for (unsigned j = 0; j < window; j++) {
		if (send)
			MPI_Isend(bufs + j * slot, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[j]);
		else
			MPI_Irecv(bufs + j * slot, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[j]);
	}
}

/* Check the window received into bufs (message w * window + j in slot j); a wrong one aborts. */
static inline void lc_mb_check_marked(const char *prog, unsigned char *bufs, size_t slot,
				      size_t size, unsigned window, unsigned w)
{
	for (unsigned j = 0; j < window; j++) {
		if (!lc_ex_marked(bufs + j * slot, size, w * window + j)) {
			fprintf(stderr, "%s: wrong message at size %zu\n", prog, size);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
}

#endif /* LC_MPI_BENCH_H */
