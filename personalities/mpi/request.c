/* SPDX-License-Identifier: MIT */
/* Requests: MPI_Wait, Test, Waitall, Testall, Waitany, Testany, Cancel, Test_cancelled, Request_free. */
#include <stdlib.h>

#include "mpi_impl.h"

struct lcmpi_request *lcmpi_req_new(enum lcmpi_req_kind kind, MPI_Comm comm)
{
	struct lcmpi_request *r = lcmpi.free_reqs;
	if (r)
		lcmpi.free_reqs = r->next;
	else if (!(r = malloc(sizeof *r)))
		return NULL;
	r->lr = NULL;
	r->kind = kind;
	r->comm = comm;
	r->cancelled = 0;
	r->next = NULL;
	return r;
}

void lcmpi_req_free(struct lcmpi_request *r)
{
	r->next = lcmpi.free_reqs;
	lcmpi.free_reqs = r;
}

void lcmpi_reap_orphans(int wait)
{
	int k = 0;
	for (int i = 0; i < lcmpi.norphans; i++) {
		struct lcmpi_request *r = lcmpi.orphans[i];
		int done = 1;
		if (wait)
			lc_wait(lcmpi.node, r->lr, NULL);
		else
			lc_test(lcmpi.node, r->lr, &done, NULL);
		if (done)
			lcmpi_req_free(r);
		else
			lcmpi.orphans[k++] = r;
	}
	lcmpi.norphans = k;
}

/*
 * Request r completed with libcomm result lrc and status ls (unused when
 * r->lr was NULL: MPI_PROC_NULL): fill *st, free r, clear the handle.
 * Returns the MPI error class (not yet given to the handler).
 */
static int lcmpi_finish(MPI_Request *slot, int lrc, const struct lc_status *ls, MPI_Status *st)
{
	struct lcmpi_request *r = *slot;
	int err = MPI_SUCCESS;
	if (!r->lr) {
		lcmpi_status_empty(st);
	} else {
		err = lcmpi_err_of_lc(lrc ? lrc : ls->err);
		if (st) {
			if (r->kind == LCMPI_REQ_RECV) {
				struct lcmpi_comm *c = lcmpi_comm(r->comm);
				if (!c)         /* freed meanwhile: its ranks were those of world */
					c = lcmpi_comm(MPI_COMM_WORLD);
				lcmpi_status_set(st, c, ls);
			} else {
				lcmpi_status_empty(st);
			}
			st->MPI_ERROR = err;
			st->lc_cancelled = ls->err == LC_ERR_CANCELED || r->cancelled;
		}
	}
	lcmpi_req_free(r);
	*slot = MPI_REQUEST_NULL;
	return err;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	LCMPI_READY("MPI_Wait");
	if (LCMPI_PARAM_CHECK && !request)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Wait", "request is NULL");
	if (*request == MPI_REQUEST_NULL) {
		lcmpi_status_empty(status);
		return MPI_SUCCESS;
	}
	MPI_Comm comm = (*request)->comm;
	struct lc_status ls = { 0 };
	int lrc = (*request)->lr ? lc_wait(lcmpi.node, (*request)->lr, &ls) : 0;
	int err = lcmpi_finish(request, lrc, &ls, status);
	return lcmpi_err(comm, err, "MPI_Wait", "%s", lc_last_error(lcmpi.node));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	LCMPI_READY("MPI_Test");
	if (LCMPI_PARAM_CHECK && (!request || !flag))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test", "NULL request or flag");
	if (*request == MPI_REQUEST_NULL) {
		*flag = 1;
		lcmpi_status_empty(status);
		return MPI_SUCCESS;
	}
	MPI_Comm comm = (*request)->comm;
	struct lc_status ls = { 0 };
	int done = 1, lrc = 0;
	if ((*request)->lr)
		lrc = lc_test(lcmpi.node, (*request)->lr, &done, &ls);
	*flag = done;
	if (!done) {
		if (lrc != 0)
			return lcmpi_err(comm, lcmpi_err_of_lc(lrc), "MPI_Test", "%s",
					 lc_last_error(lcmpi.node));
		return MPI_SUCCESS;
	}
	int err = lcmpi_finish(request, lrc, &ls, status);
	return lcmpi_err(comm, err, "MPI_Test", "%s", lc_last_error(lcmpi.node));
}

/* The libcomm requests of reqs[0..n-1] (NULL for MPI_REQUEST_NULL and PROC_NULL ones). */
#define LCMPI_STACK_REQS 64
struct lcmpi_many {
	lc_req *lr_stack[LCMPI_STACK_REQS];
	struct lc_status st_stack[LCMPI_STACK_REQS];
	lc_req **lr;
	struct lc_status *st;
	int active;             /* non-null requests */
	int ready;              /* index of one completed at post (PROC_NULL), or -1 */
};

static int lcmpi_many_init(struct lcmpi_many *m, int n, MPI_Request reqs[])
{
	m->lr = n <= LCMPI_STACK_REQS ? m->lr_stack : malloc((size_t)n * sizeof *m->lr);
	m->st = n <= LCMPI_STACK_REQS ? m->st_stack : calloc((size_t)n, sizeof *m->st);
	if (!m->lr || !m->st)
		return -1;
	m->active = 0;
	m->ready = -1;
	for (int i = 0; i < n; i++) {
		m->lr[i] = reqs[i] ? reqs[i]->lr : NULL;
		if (reqs[i]) {
			m->active++;
			if (!reqs[i]->lr && m->ready < 0)
				m->ready = i;
		}
	}
	return 0;
}

static void lcmpi_many_fini(struct lcmpi_many *m)
{
	if (m->lr != m->lr_stack)
		free(m->lr);
	if (m->st != m->st_stack)
		free(m->st);
}

static int lcmpi_any(const char *fn, int wait, int count, MPI_Request reqs[], int *index,
		     int *flag, MPI_Status *status)
{
	LCMPI_READY(fn);
	if (LCMPI_PARAM_CHECK && (count < 0 || (count > 0 && !reqs) || !index))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "count %d, requests %p, index %p",
				 count, (void *)reqs, (void *)index);
	struct lcmpi_many m;
	if (lcmpi_many_init(&m, count, reqs) != 0)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "%d requests", count);
	int done = 1, idx = m.ready, lrc = 0;
	struct lc_status ls = { 0 };
	if (m.active == 0) {
		*index = MPI_UNDEFINED;
		lcmpi_status_empty(status);
	} else if (idx < 0) {
		lrc = wait ? lc_waitany(lcmpi.node, count, m.lr, &idx, &ls)
			   : lc_testany(lcmpi.node, count, m.lr, &idx, &done, &ls);
		if (lrc == LC_ERR_INVAL && idx < 0) {
			lcmpi_many_fini(&m);
			return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "%s",
					 lc_last_error(lcmpi.node));
		}
	}
	lcmpi_many_fini(&m);
	if (flag)
		*flag = done;
	if (m.active == 0)
		return MPI_SUCCESS;
	if (!done || idx < 0) {
		*index = MPI_UNDEFINED;
		return MPI_SUCCESS;
	}
	*index = idx;
	MPI_Comm comm = reqs[idx]->comm;
	int err = lcmpi_finish(&reqs[idx], lrc, &ls, status);
	return lcmpi_err(comm, err, fn, "request %d: %s", idx, lc_last_error(lcmpi.node));
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	return lcmpi_any("MPI_Waitany", 1, count, array_of_requests, index, NULL, status);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
		MPI_Status *status)
{
	if (LCMPI_PARAM_CHECK && !flag)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Testany", "flag is NULL");
	return lcmpi_any("MPI_Testany", 0, count, array_of_requests, index, flag, status);
}

/* Waitall / Testall: MPI_ERR_IN_STATUS when some request failed (each status says which). */
static int lcmpi_all(const char *fn, int wait, int count, MPI_Request reqs[], int *flag,
		     MPI_Status sts[])
{
	LCMPI_READY(fn);
	if (LCMPI_PARAM_CHECK && (count < 0 || (count > 0 && !reqs)))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "count %d, requests %p", count,
				 (void *)reqs);
	struct lcmpi_many m;
	if (lcmpi_many_init(&m, count, reqs) != 0)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "%d requests", count);
	int done = 1;
	int lrc = wait ? lc_waitall(lcmpi.node, count, m.lr, m.st)
		       : lc_testall(lcmpi.node, count, m.lr, &done, m.st);
	if (lrc == LC_ERR_INVAL) {     /* an entry is not a pending request: nothing completed */
		lcmpi_many_fini(&m);
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "%s", lc_last_error(lcmpi.node));
	}
	if (flag)
		*flag = done;
	int err = MPI_SUCCESS;
	MPI_Comm comm = MPI_COMM_WORLD;
	if (done) {
		for (int i = 0; i < count; i++) {
			MPI_Status *st = sts ? &sts[i] : NULL;
			if (!reqs[i]) {
				lcmpi_status_empty(st);
				continue;
			}
			MPI_Comm c = reqs[i]->comm;
			int e = lcmpi_finish(&reqs[i], 0, &m.st[i], st);
			if (e != MPI_SUCCESS && err == MPI_SUCCESS) {
				err = e;
				comm = c;
			}
		}
	}
	lcmpi_many_fini(&m);
	if (err == MPI_SUCCESS)
		return MPI_SUCCESS;
	return lcmpi_err(comm, sts ? MPI_ERR_IN_STATUS : err, fn, "first failed: %s",
			 lc_last_error(lcmpi.node));
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
	return lcmpi_all("MPI_Waitall", 1, count, array_of_requests, NULL, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		MPI_Status array_of_statuses[])
{
	if (LCMPI_PARAM_CHECK && !flag)
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
	return lcmpi_all("MPI_Testall", 0, count, array_of_requests, flag, array_of_statuses);
}

/* A receive no message matched yet completes cancelled; a send is never cancelled. */
int MPI_Cancel(MPI_Request *request)
{
	LCMPI_READY("MPI_Cancel");
	if (LCMPI_PARAM_CHECK && (!request || !*request))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel",
				 "MPI_REQUEST_NULL or NULL");
	struct lcmpi_request *r = *request;
	if (!r->lr)
		return MPI_SUCCESS;
	int lrc = lc_cancel(lcmpi.node, r->lr);
	if (lrc < 0)
		return lcmpi_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel", "%s",
				 lc_last_error(lcmpi.node));
	r->cancelled = lrc == 1;
	return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	if (LCMPI_PARAM_CHECK && (!status || !flag))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled",
				 "NULL status or flag");
	*flag = status->lc_cancelled;
	return MPI_SUCCESS;
}

/* A pending request is kept aside and completed by later calls (and MPI_Finalize). */
int MPI_Request_free(MPI_Request *request)
{
	LCMPI_READY("MPI_Request_free");
	if (LCMPI_PARAM_CHECK && (!request || !*request))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
				 "MPI_REQUEST_NULL or NULL");
	struct lcmpi_request *r = *request;
	*request = MPI_REQUEST_NULL;
	if (!r->lr) {
		lcmpi_req_free(r);
		return MPI_SUCCESS;
	}
	if (lcmpi.norphans == lcmpi.cap_orphans) {
		int cap = lcmpi.cap_orphans ? 2 * lcmpi.cap_orphans : 16;
		struct lcmpi_request **o = realloc(lcmpi.orphans, (size_t)cap * sizeof *o);
		if (!o)
			return lcmpi_err(r->comm, MPI_ERR_NO_MEM, "MPI_Request_free", "out of memory");
		lcmpi.orphans = o;
		lcmpi.cap_orphans = cap;
	}
	lcmpi.orphans[lcmpi.norphans++] = r;
	return MPI_SUCCESS;
}
