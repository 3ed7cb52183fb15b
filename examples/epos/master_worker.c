/* SPDX-License-Identifier: MIT */
/* Master/worker over the EPOS inflated interface: the same source for every Communicator and Channel member. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include "epos_common.h"

/*
 * Usage: commrun -n N master_worker [items]     (N >= 2, items default 1000)
 * Node 0 is the master: per worker i it opens end-point "master.<i>" bound
 * to "worker.<i>" (a port or a mailbox ignores the binding).  Worker i opens
 * "worker.<i>" bound to "master.<i>".  The master deals the items (numbers)
 * round robin, each worker returns x * x + 7, the master checks every result
 * and ends each worker with the item UINT64_MAX.  Every node prints one
 * "master_worker ok:" line naming the members it ran with.
 */
#define MW_STOP UINT64_MAX

static uint64_t mw_work(uint64_t x)
{
	return x * x + 7;
}

static int mw_master(int workers, uint64_t items)
{
	epos_comm **ep = calloc((size_t)workers + 1, sizeof *ep);
	char name[64], peer[64];
	int rc;
	if (!ep)
		return 1;
	for (int i = 1; i <= workers; i++) {
		snprintf(name, sizeof name, "master.%d", i);
		snprintf(peer, sizeof peer, "worker.%d", i);
		if ((rc = epos_comm_open(&ep[i], name, peer)) != 0)
			return epos_ex_fail("master_worker", "open", rc);
	}
	uint64_t checked = 0;
	for (uint64_t base = 0; base < items; base += (uint64_t)workers) {
		int busy = 0;
		for (int i = 1; i <= workers && base + (uint64_t)(i - 1) < items; i++, busy++) {
			uint64_t x = base + (uint64_t)(i - 1);
			snprintf(peer, sizeof peer, "worker.%d", i);
			if ((rc = epos_comm_send(ep[i], peer, &x, sizeof x)) != 0)
				return epos_ex_fail("master_worker", "send work", rc);
		}
		for (int i = 1; i <= busy; i++) {
			uint64_t r, x = base + (uint64_t)(i - 1);
			if ((rc = epos_ex_recv_exact(ep[i], &r, sizeof r)) != 0)
				return epos_ex_fail("master_worker", "receive result", rc);
			if (r != mw_work(x)) {
				fprintf(stderr, "master_worker: FAIL worker %d: item %" PRIu64 " gave %" PRIu64
					", expected %" PRIu64 "\n", i, x, r, mw_work(x));
				return 1;
			}
			checked++;
		}
	}
	for (int i = 1; i <= workers; i++) {
		uint64_t stop = MW_STOP;
		snprintf(peer, sizeof peer, "worker.%d", i);
		if ((rc = epos_comm_send(ep[i], peer, &stop, sizeof stop)) != 0)
			return epos_ex_fail("master_worker", "send stop", rc);
	}
	for (int i = 1; i <= workers; i++)
		if ((rc = epos_comm_close(ep[i])) != 0)
			return epos_ex_fail("master_worker", "close", rc);
	free(ep);
	printf("master_worker ok: master checked %" PRIu64 " results of %d workers "
	       "(communicator %s, channel %s, network %s)\n", checked, workers,
	       epos_communicator_name(), epos_channel_name(), EPOS_NETWORK_NAME);
	return checked == items ? 0 : 1;
}

static int mw_worker(int me)
{
	epos_comm *ep;
	char name[64], peer[64];
	int rc;
	snprintf(name, sizeof name, "worker.%d", me);
	snprintf(peer, sizeof peer, "master.%d", me);
	if ((rc = epos_comm_open(&ep, name, peer)) != 0)
		return epos_ex_fail("master_worker", "open", rc);
	uint64_t done = 0;
	for (;;) {
		uint64_t x;
		if ((rc = epos_ex_recv_exact(ep, &x, sizeof x)) != 0)
			return epos_ex_fail("master_worker", "receive work", rc);
		if (x == MW_STOP)
			break;
		uint64_t r = mw_work(x);
		if ((rc = epos_comm_send(ep, peer, &r, sizeof r)) != 0)
			return epos_ex_fail("master_worker", "send result", rc);
		done++;
	}
	if ((rc = epos_comm_close(ep)) != 0)
		return epos_ex_fail("master_worker", "close", rc);
	printf("master_worker ok: worker %d did %" PRIu64 " items (communicator %s, channel %s, "
	       "network %s)\n", me, done, epos_communicator_name(), epos_channel_name(),
	       EPOS_NETWORK_NAME);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t items = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	int me = epos_ex_rank(), nodes = epos_ex_nodes();
	if (me < 0 || nodes < 2) {
		fprintf(stderr, "usage: commrun -n N master_worker [items]   (N >= 2)\n");
		return 2;
	}
	return me == 0 ? mw_master(nodes - 1, items) : mw_worker(me);
}
