/* SPDX-License-Identifier: MIT */
/* sched: seed 002's distributed scheduler -- two masters, two slaves, three priority queues of 2 KiB tasks. */
#define LC_EX_PROG "sched"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lc_ex_common.h"

/*
 * Usage: commrun -n 7 sched [-t TASKS] [-b BYTES]
 *
 * The application of seed 002's validation (OptiSCI, section IV), over
 * messages: nodes 0 and 1 are the masters, 2 and 3 the slaves, 4, 5 and 6
 * hold the ready queues #0, #1 and #2 (a queue is a node that keeps its
 * tasks in FIFO order and serves them).  Each slave has TASKS tasks
 * (default 600: half of priority #0, a third of #1, a sixth of #2, in the
 * order 0 0 0 1 1 2 repeated) of BYTES bytes (default 2048) and writes each
 * to the tail of its priority's queue, its input buffer full at the start.
 * Each master reads from the heads in rounds -- three tasks from queue #0,
 * two from #1, one from #2 -- asking the queue for a task and executing it
 * (every byte of it checked against what its slave wrote).  A queue that
 * has no task at hand says so (the master goes on with its round); one that
 * has served every task the slaves will write says it is done.  The run
 * ends when the masters have executed all 2 x TASKS tasks; master 0 prints
 *   sched: N tasks of B bytes in T ms (master 0 X, master 1 Y)
 * the time from each master's first request to its last task.  Where the
 * seven NICs sit in the network (commrun --map) decides what the tasks
 * cross: tools/place.py ranks placements by the cost model.
 */

enum { MASTERS = 2, SLAVES = 2, QUEUES = 3, NODES = MASTERS + SLAVES + QUEUES };
enum { M_PUSH = 1, M_POP, M_TASK, M_EMPTY, M_DONE, M_TIME };

/* the priority of a slave's i-th task: 0 0 0 1 1 2 */
static int prio_of(unsigned i)
{
	static const int p[6] = { 0, 0, 0, 1, 1, 2 };

	return p[i % 6];
}

/* a task's first 8 bytes: its slave and its number; the rest the slave's pattern */
struct task_id {
	uint32_t slave, seq;
};

static uint64_t task_seed(struct task_id id)
{
	return ((uint64_t)id.slave << 32) | id.seq;
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* tasks of priority q that the slaves write in all */
static unsigned queue_total(unsigned tasks, int q)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tasks; i++)
		n += prio_of(i) == q;
	return n * SLAVES;
}

static int slave(lc_node *node, int me, unsigned tasks, size_t bytes)
{
	unsigned char *t = malloc(bytes);
	int rc = 0;

	if (!t)
		return lc_ex_fail(node, "malloc", LC_ERR_NOMEM);
	for (unsigned i = 0; i < tasks && rc == 0; i++) {
		struct task_id id = { (uint32_t)me, i };

		memcpy(t, &id, sizeof id);
		lc_ex_fill(t + sizeof id, bytes - sizeof id, task_seed(id));
		rc = lc_send_match(node, MASTERS + SLAVES + prio_of(i), M_PUSH, t, bytes);
	}
	free(t);
	return rc ? lc_ex_fail(node, "push a task", rc) : 0;
}

static int queue(lc_node *node, int q, unsigned tasks, size_t bytes)
{
	unsigned total = queue_total(tasks, q), got = 0, head = 0, done = 0;
	unsigned char *fifo = malloc((size_t)total * bytes + bytes), *msg = fifo + (size_t)total * bytes;
	struct lc_status st;
	int rc = 0;

	if (!fifo)
		return lc_ex_fail(node, "malloc", LC_ERR_NOMEM);
	while (done < MASTERS && rc == 0) {
		/* a push goes straight to the tail; anything else is a master's request */
		rc = lc_recv_match(node, LC_ANY_SOURCE, 0, 0, got < total ? fifo + (size_t)got * bytes : msg,
				   bytes, &st);
		if (rc)
			break;
		if (st.match == M_PUSH) {
			if (got == total || st.len != bytes) {
				rc = LC_ERR_INVAL;
				break;
			}
			got++;
		} else if (head < got) {
			rc = lc_send_match(node, st.src, M_TASK, fifo + (size_t)head++ * bytes, bytes);
		} else if (got == total) {
			rc = lc_send_match(node, st.src, M_DONE, NULL, 0);
			done++;
		} else {
			rc = lc_send_match(node, st.src, M_EMPTY, NULL, 0);
		}
	}
	free(fifo);
	return rc ? lc_ex_fail(node, "serve the queue", rc) : 0;
}

static int master(lc_node *node, int me, size_t bytes, unsigned *executed, double *ms)
{
	static const int round[6] = { 0, 0, 0, 1, 1, 2 };
	unsigned char *t = malloc(bytes);
	int done[QUEUES] = { 0 }, left = QUEUES, rc = 0;
	struct lc_status st;
	double t0 = ms_now();

	if (!t)
		return lc_ex_fail(node, "malloc", LC_ERR_NOMEM);
	*executed = 0;
	while (left && rc == 0) {
		for (int k = 0; k < 6 && rc == 0; k++) {
			int q = round[k], qn = MASTERS + SLAVES + q;

			if (done[q])
				continue;
			rc = lc_send_match(node, qn, M_POP, NULL, 0);
			if (rc == 0)
				rc = lc_recv_match(node, qn, 0, 0, t, bytes, &st);
			if (rc)
				break;
			if (st.match == M_DONE) {
				done[q] = 1;
				left--;
			} else if (st.match == M_TASK) {
				struct task_id id;

				memcpy(&id, t, sizeof id);
				if (st.len != bytes || id.slave < MASTERS || id.slave >= MASTERS + SLAVES ||
				    lc_ex_check(t + sizeof id, bytes - sizeof id, task_seed(id)) != bytes - sizeof id) {
					fprintf(stderr, "sched: master %d: task %u of slave %u from queue %d is corrupt\n",
						me, id.seq, id.slave, q);
					rc = LC_ERR_INVAL;
					break;
				}
				++*executed;
			}
		}
	}
	*ms = ms_now() - t0;
	free(t);
	return rc ? lc_ex_fail(node, "execute the tasks", rc) : 0;
}

int main(int argc, char **argv)
{
	unsigned tasks = 600;
	size_t bytes = 2048;
	lc_node *node;
	int me, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			tasks = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			bytes = strtoull(argv[++i], NULL, 0);
		else {
			fputs("usage: commrun -n 7 sched [-t TASKS] [-b BYTES]\n", stderr);
			return 2;
		}
	}
	if (bytes < sizeof(struct task_id) || tasks == 0) {
		fputs("sched: -b must be at least 8 bytes and -t at least 1\n", stderr);
		return 2;
	}
	rc = lc_ex_open(&node, 0);
	if (rc)
		return rc;
	me = lc_rank(node);
	if (lc_size(node) != NODES) {
		if (me == 0)
			fprintf(stderr, "sched: needs exactly %d nodes (commrun -n %d), got %d\n", NODES, NODES,
				lc_size(node));
		lc_close(node);
		return 2;
	}
	if (me >= MASTERS + SLAVES) {
		rc = queue(node, me - MASTERS - SLAVES, tasks, bytes);
	} else if (me >= MASTERS) {
		rc = slave(node, me, tasks, bytes);
	} else {
		unsigned n = 0, other = 0;
		double ms = 0, their[2] = { 0, 0 };
		struct lc_status st;

		rc = master(node, me, bytes, &n, &ms);
		if (rc == 0 && me == 1) {
			double mine[2] = { ms, (double)n };

			rc = lc_send_match(node, 0, M_TIME, mine, sizeof mine);
		} else if (rc == 0) {
			rc = lc_recv_match(node, 1, M_TIME, LC_MATCH_ALL, their, sizeof their, &st);
			other = (unsigned)their[1];
			if (rc == 0 && n + other != 2 * tasks) {
				fprintf(stderr, "sched: the masters executed %u tasks, the slaves wrote %u\n",
					n + other, 2 * tasks);
				rc = LC_ERR_INVAL;
			}
			if (rc == 0)
				printf("sched: %u tasks of %zu bytes in %.2f ms (master 0 %.2f, master 1 %.2f)\n",
				       n + other, bytes, ms > their[0] ? ms : their[0], ms, their[0]);
		}
		if (rc)
			rc = lc_ex_fail(node, "master", rc);
	}
	lc_close(node);
	return rc ? 1 : 0;
}
