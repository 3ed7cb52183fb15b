/* SPDX-License-Identifier: MIT */
/* Node program: node 1 is killed while node 0 has sends in flight to it; they must fail with LC_ERR_PEER_DEAD in bounded time. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"
#if LC_PROTO_RELIABILITY
#include "lc_composite_host.h"   /* LC_RELIABILITY_GIVE_UP_NS */
#endif

/*
 * Usage: relkill [stop|held]
 * Node 1 receives one 1 MiB message, sends node 0 an 8-byte "ready", waits
 * for node 0's 8-byte "go" and raises SIGKILL at once: it acknowledges at
 * most a Receive Ring of frames after that, and one send of 1 MiB is more
 * than that and more than a reliability window, so none can complete.  Node 0 then
 * puts LC_RK_SENDS sends of 1 MiB to node 1 in flight and waits for each:
 * every one must fail with LC_ERR_PEER_DEAD.  Node 0 prints
 *   "relkill: <k> sends failed with LC_ERR_PEER_DEAD in <ms> ms (bound <ms> ms)"
 * With "stop" node 1 stops (SIGSTOP) instead: commrun marks it stopped, not
 * dead, so reliability must give it up by its retry budget; node 0 then
 * kills it (SIGKILL, its pid came in "ready") so the job ends as before.
 * With "held" node 0's sends are of two frames each instead, all of them
 * posted at once (within a window and node 1's Receive Ring): a protocol that
 * holds a non-blocking send until its ack (reliability: lc_proto_sreq_hold)
 * must fail each of them when node 1 dies, not complete them.
 * The time runs from the "go" message and the bound is
 * LC_RELIABILITY_GIVE_UP_NS when reliability is composed, and exits 3.
 */
#define LC_RK_SENDS 8
#define LC_RK_LEN (1u << 20)

static uint64_t rk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int me, n, failed = 0, stop = argc > 1 && strcmp(argv[1], "stop") == 0;
	uint32_t len = argc > 1 && strcmp(argv[1], "held") == 0 ? 2u * LC_MTU : LC_RK_LEN;
	int32_t pid;
	lc_node *node = lc_tp_open(&me, &n);
	unsigned char *b = lc_tp_alloc(LC_RK_LEN);
	lc_req *r[LC_RK_SENDS];
	struct lc_status st;
	uint64_t t0;

	lc_ex_fill(b, LC_RK_LEN, 5);
	if (me == 1) {
		LC_TP_OK(node, lc_recv(node, 0, b, LC_RK_LEN, &st));
		pid = (int32_t)getpid();
		memcpy(b, &pid, sizeof(pid));
		LC_TP_OK(node, lc_send(node, 0, b, 8));
		LC_TP_OK(node, lc_recv(node, 0, b, 8, &st));
		printf("node 1: raising %s\n", stop ? "SIGSTOP" : "SIGKILL");
		fflush(stdout);
		raise(stop ? SIGSTOP : SIGKILL);
		return 1;    /* not reached */
	}
	if (me != 0) {
		lc_close(node);
		free(b);
		return 0;
	}
	LC_TP_OK(node, lc_send(node, 1, b, LC_RK_LEN));
	LC_TP_OK(node, lc_recv(node, 1, b, 8, &st));
	memcpy(&pid, b, sizeof(pid));
	LC_TP_OK(node, lc_send(node, 1, b, 8));
	t0 = rk_now_ns();
	for (int i = 0; i < LC_RK_SENDS; i++) {
		int rc = lc_isend(node, 1, b, len, &r[i]);

		if (rc != 0) {
			if (rc != LC_ERR_PEER_DEAD)
				lc_tp_fail("lc_isend -> %s", lc_tp_errname(rc));
			r[i] = NULL;
			failed++;
		}
	}
	for (int i = 0; i < LC_RK_SENDS; i++) {
		int rc;

		if (!r[i])
			continue;
		rc = lc_wait(node, r[i], NULL);
		if (rc != LC_ERR_PEER_DEAD)
			lc_tp_fail("send %d to the killed node -> %s, expected LC_ERR_PEER_DEAD", i,
				   lc_tp_errname(rc));
		failed++;
	}
	printf("relkill: %d sends failed with LC_ERR_PEER_DEAD in %llu ms (bound %llu ms)\n", failed,
	       (unsigned long long)((rk_now_ns() - t0) / 1000000u),
#if LC_PROTO_RELIABILITY
	       (unsigned long long)(LC_RELIABILITY_GIVE_UP_NS / 1000000u)
#else
	       0ull
#endif
	);
	fflush(stdout);
	if (stop)
		kill((pid_t)pid, SIGKILL);
	lc_close(node);
	free(b);
	return 3;
}
