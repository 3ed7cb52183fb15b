/* SPDX-License-Identifier: MIT */
/* MPI_Init, Init_thread, Initialized, Finalize, Finalized, Abort, Query_thread: the node's life. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_config.h"
#include "mpi_impl.h"

struct lcmpi_state lcmpi;

/* MPI_THREAD_SERIALIZED at most: the personality's own tables take no lock. */
#define LCMPI_THREAD_MAX MPI_THREAD_SERIALIZED

static int lcmpi_world_and_self(void)
{
	int n = lcmpi.nodes, me = lc_rank(lcmpi.node);
	lcmpi.ncomms = 3;
	lcmpi.comms = calloc((size_t)lcmpi.ncomms, sizeof *lcmpi.comms);
	struct lcmpi_comm *w = calloc(1, sizeof *w), *s = calloc(1, sizeof *s);
	if (!lcmpi.comms || !w || !s)
		return -1;
	w->node_of = malloc((size_t)n * sizeof(int));
	w->rank_of = malloc((size_t)n * sizeof(int));
	s->node_of = malloc(sizeof(int));
	s->rank_of = malloc((size_t)n * sizeof(int));
	if (!w->node_of || !w->rank_of || !s->node_of || !s->rank_of)
		return -1;
	for (int i = 0; i < n; i++) {
		w->node_of[i] = w->rank_of[i] = i;
		s->rank_of[i] = i == me ? 0 : -1;
	}
	s->node_of[0] = me;
	w->rank = me;
	w->size = n;
	w->ctx = LCMPI_CTX_FIRST;       /* 0: lc_bcast's match word, 1: the rendezvous' */
	s->rank = 0;
	s->size = 1;
	s->ctx = LCMPI_CTX_FIRST + 2;
	w->eh = s->eh = MPI_ERRORS_ARE_FATAL;
	lcmpi.comms[MPI_COMM_WORLD] = w;
	lcmpi.comms[MPI_COMM_SELF] = s;
	lcmpi.next_ctx = LCMPI_CTX_FIRST + 4;
	lcmpi.cookie = calloc((size_t)n, sizeof *lcmpi.cookie);
	lcmpi.active.next = lcmpi.active.prev = &lcmpi.active;
	lcmpi.waitq = NULL;
	lcmpi.waitq_tail = &lcmpi.waitq;
	lcmpi.held = lcmpi.held_recv = 0;
	if (!lcmpi.cookie)
		return -1;
	return 0;
}

/*
 * The eager limit: messages above it go by rendezvous (p2p.c).  Default:
 * 1/16 of the config's unexpected budget, at most 64 KiB, at least the
 * 8 bytes of a request to send, so that the messages a node may hold
 * unexpected from its peers stay well within the budget; LC_MPI_EAGER=<bytes>
 * sets it (measuring the crossover: tools/bench).
 */
#define LCMPI_EAGER_MAX (64u << 10)
static int lcmpi_eager_init(void)
{
	size_t e = LC_HOST_UNEXPECTED_BYTES / 16;
	if (e > LCMPI_EAGER_MAX)
		e = LCMPI_EAGER_MAX;
	const char *v = getenv("LC_MPI_EAGER");
	if (v && *v) {
		char *end;
		unsigned long long x = strtoull(v, &end, 0);
		if (*end || x > LC_MAX_MSG) {
			fprintf(stderr, "MPI_Init: LC_MPI_EAGER=%s: a byte count 0 .. %llu\n", v,
				(unsigned long long)LC_MAX_MSG);
			return -1;
		}
		e = (size_t)x;
	}
	lcmpi.eager = e < sizeof(uint64_t) ? sizeof(uint64_t) : e;
	return 0;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc;
	(void)argv;
	if (LCMPI_PARAM_CHECK) {
		if (lcmpi.initialized || lcmpi.finalized) {
			fprintf(stderr, "MPI_Init: %s\n", lcmpi.finalized ?
				"called after MPI_Finalize" : "called twice");
			exit(1);
		}
		if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
			fprintf(stderr, "MPI_Init_thread: %s: required %d\n", "invalid argument",
				required);
			exit(1);
		}
	}
	int rc = lc_open(&lcmpi.node);
	if (rc != 0) {
		fprintf(stderr, "MPI_Init: lc_open: %s (%s)\n", lc_strerror(rc),
			lc_last_error(NULL));
		exit(1);
	}
	lcmpi.nodes = lc_size(lcmpi.node);
	if (lcmpi_world_and_self() != 0) {
		fprintf(stderr, "MPI_Init: out of memory\n");
		exit(1);
	}
	if (lcmpi_eager_init() != 0)
		exit(1);
	lcmpi.initialized = 1;
	if (provided)
		*provided = required < LCMPI_THREAD_MAX ? required : LCMPI_THREAD_MAX;
	return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
	int provided;
	return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Query_thread(int *provided)
{
	LCMPI_READY("MPI_Query_thread");
	if (LCMPI_PARAM_CHECK && !provided)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
	*provided = LCMPI_THREAD_MAX;
	return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
	if (!flag)
		return MPI_ERR_ARG;
	*flag = lcmpi.initialized;
	return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
	if (!flag)
		return MPI_ERR_ARG;
	*flag = lcmpi.finalized;
	return MPI_SUCCESS;
}

/*
 * Collective over MPI_COMM_WORLD: a barrier first, so that no node closes
 * (and leaves) while a peer still waits for one of its messages.
 */
int MPI_Finalize(void)
{
	LCMPI_READY("MPI_Finalize");
	int rc = MPI_Barrier(MPI_COMM_WORLD);
	while (lcmpi.nactive > 0)       /* the requests MPI_Request_free left pending */
		if (lcmpi_progress(1) != 0)
			break;
	int lrc = lc_close(lcmpi.node);
	lcmpi.finalized = 1;
	for (int i = 0; i < lcmpi.ncomms; i++)
		if (lcmpi.comms[i])
			lcmpi_comm_destroy(lcmpi.comms[i]);
	free(lcmpi.comms);
	lcmpi.comms = NULL;
	lcmpi.ncomms = 0;       /* every handle invalid again: the hot paths' readiness test */
	while (lcmpi.free_reqs) {
		struct lcmpi_request *r = lcmpi.free_reqs;
		lcmpi.free_reqs = r->next;
		free(r);
	}
	while (lcmpi.pulled) {
		struct lcmpi_pulled *p = lcmpi.pulled;
		lcmpi.pulled = p->next;
		free(p);
	}
	free(lcmpi.cookie);
	lcmpi.cookie = NULL;
	lcmpi.poll_lo = lcmpi.poll_n = 0;
	if (rc == MPI_SUCCESS && lrc != 0) {
		fprintf(stderr, "MPI_Finalize: lc_close: %s\n", lc_strerror(lrc));
		return MPI_ERR_OTHER;
	}
	return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
	(void)comm;
	fprintf(stderr, "MPI_Abort: node %d aborts the job with error code %d\n",
		lcmpi.node ? lc_rank(lcmpi.node) : -1, errorcode);
	fflush(NULL);
	/* a non-zero status: commrun reports the failure and stops the other nodes */
	_Exit(errorcode > 0 && errorcode < 256 ? errorcode : 1);
}
