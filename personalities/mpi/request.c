/* SPDX-License-Identifier: MIT */
/* Requests: MPI_Wait, Test, Waitall, Testall, Waitany, Testany, Cancel, Test_cancelled, Request_free. */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* a request zeroed by a copy of this one: GCC zeroes the struct with 'rep stosq' otherwise, microcoded here (docs/internals.md) */
static const struct lcmpi_request lcmpi_req_zero;

struct lcmpi_request *lcmpi_req_new(enum lcmpi_req_kind kind, MPI_Comm comm)
{
	struct lcmpi_request *r = lcmpi.free_reqs;
	if (r)
		lcmpi.free_reqs = r->next;
	else if (!(r = malloc(sizeof *r)))
		return NULL;
	*r = lcmpi_req_zero;
	r->kind = kind;
	r->comm = comm;
	r->step = LCMPI_ST_DONE;        /* MPI_PROC_NULL: done at post */
	return r;
}

void lcmpi_req_free(struct lcmpi_request *r)
{
	r->step = LCMPI_ST_FREE;
	r->next = lcmpi.free_reqs;
	lcmpi.free_reqs = r;
}

static inline int lcmpi_is_done(const struct lcmpi_request *r)
{
	return r->step == LCMPI_ST_DONE;
}

/*
 * Request *slot is done: fill *st, free it, clear the handle.  Returns the
 * MPI error class (not yet given to the handler).
 */
static int lcmpi_finish(MPI_Request *slot, MPI_Status *st)
{
	struct lcmpi_request *r = *slot;
	int err = lcmpi_err_of_lc(r->lrc ? r->lrc : r->st.err);
	if (st) {
		if (r->kind == LCMPI_REQ_RECV && r->posted) {
			struct lcmpi_comm *c = lcmpi_comm(r->comm);
			if (!c)         /* freed meanwhile: its ranks were those of world */
				c = lcmpi_comm(MPI_COMM_WORLD);
			lcmpi_status_set(st, c, &r->st);
		} else {
			lcmpi_status_empty(st);
		}
		st->MPI_ERROR = err;
		st->lc_cancelled = r->st.err == LC_ERR_CANCELED || r->cancelled;
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
	lcmpi_wait_done(*request);
	int err = lcmpi_finish(request, status);
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
	if (!lcmpi_is_done(*request))
		lcmpi_progress(0);
	*flag = lcmpi_is_done(*request);
	if (!*flag)
		return MPI_SUCCESS;
	int err = lcmpi_finish(request, status);
	return lcmpi_err(comm, err, "MPI_Test", "%s", lc_last_error(lcmpi.node));
}

/* Check reqs[0..count-1] (MPI_REQUEST_NULL allowed): MPI_SUCCESS or the class given to the handler. */
static int lcmpi_many_check(const char *fn, int count, MPI_Request reqs[])
{
	if (count < 0 || (count > 0 && !reqs))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "count %d, requests %p", count,
				 (void *)reqs);
	return MPI_SUCCESS;
}

/* The first done request of reqs (-1: none); *active: the non-null ones. */
static int lcmpi_first_done(int count, MPI_Request reqs[], int *active)
{
	*active = 0;
	for (int i = 0; i < count; i++)
		if (reqs[i]) {
			++*active;
			if (lcmpi_is_done(reqs[i]))
				return i;
		}
	return -1;
}

static int lcmpi_any(const char *fn, int wait, int count, MPI_Request reqs[], int *index,
		     int *flag, MPI_Status *status)
{
	LCMPI_READY(fn);
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_many_check(fn, count, reqs);
		if (rc == MPI_SUCCESS && !index)
			rc = lcmpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "index is NULL");
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int active, idx = lcmpi_first_done(count, reqs, &active);
	if (idx < 0 && active > 0) {
		if (wait) {
			do
				lcmpi_progress(1);
			while ((idx = lcmpi_first_done(count, reqs, &active)) < 0);
		} else {
			lcmpi_progress(0);
			idx = lcmpi_first_done(count, reqs, &active);
		}
	}
	if (flag)
		*flag = active == 0 || idx >= 0;
	if (idx < 0) {
		*index = MPI_UNDEFINED;
		if (active == 0)
			lcmpi_status_empty(status);
		return MPI_SUCCESS;
	}
	*index = idx;
	MPI_Comm comm = reqs[idx]->comm;
	int err = lcmpi_finish(&reqs[idx], status);
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

/*
 * The first index from i on whose request is pending (count when none is):
 * a request stays done until lcmpi_all frees it, so each round of a wait
 * scans on from there (a window's wait scans it once, not once a round).
 */
static int lcmpi_pending_from(int count, MPI_Request reqs[], int i)
{
	while (i < count && (!reqs[i] || lcmpi_is_done(reqs[i])))
		i++;
	return i;
}

/* Waitall / Testall: MPI_ERR_IN_STATUS when some request failed (each status says which). */
static int lcmpi_all(const char *fn, int wait, int count, MPI_Request reqs[], int *flag,
		     MPI_Status sts[])
{
	LCMPI_READY(fn);
	if (LCMPI_PARAM_CHECK) {
		int rc = lcmpi_many_check(fn, count, reqs);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	int at = lcmpi_pending_from(count, reqs, 0);
	if (at < count) {
		unsigned spins = 0;
		if (wait)       /* the first pending request's own wait: all must complete */
			do
				lcmpi_wait_round(reqs[at], &spins);
			while ((at = lcmpi_pending_from(count, reqs, at)) < count);
		else
			lcmpi_progress(0), at = lcmpi_pending_from(count, reqs, at);
	}
	int done = at == count;
	if (flag)
		*flag = done;
	if (!done)
		return MPI_SUCCESS;
	int err = MPI_SUCCESS;
	MPI_Comm comm = MPI_COMM_WORLD;
	for (int i = 0; i < count; i++) {
		MPI_Status *st = sts ? &sts[i] : NULL;
		if (!reqs[i]) {
			lcmpi_status_empty(st);
			continue;
		}
		MPI_Comm c = reqs[i]->comm;
		int e = MPI_ERR_REQUEST;
		if (reqs[i]->step == LCMPI_ST_FREE) {   /* given twice: completed at its first place */
			lcmpi_status_empty(st);
			if (st)
				st->MPI_ERROR = e;
			reqs[i] = MPI_REQUEST_NULL;
		} else {
			e = lcmpi_finish(&reqs[i], st);
		}
		if (e != MPI_SUCCESS && err == MPI_SUCCESS) {
			err = e;
			comm = c;
		}
	}
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
	int lrc = lcmpi_cancel(r);
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

/* A pending request stays on the active list and is freed when done (progress, MPI_Finalize). */
int MPI_Request_free(MPI_Request *request)
{
	LCMPI_READY("MPI_Request_free");
	if (LCMPI_PARAM_CHECK && (!request || !*request))
		return lcmpi_err(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
				 "MPI_REQUEST_NULL or NULL");
	struct lcmpi_request *r = *request;
	*request = MPI_REQUEST_NULL;
	if (lcmpi_is_done(r))
		lcmpi_req_free(r);
	else
		r->orphan = 1;
	return MPI_SUCCESS;
}
