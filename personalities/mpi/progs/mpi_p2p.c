/* SPDX-License-Identifier: MIT */
/* mpi_p2p: point-to-point semantics of the MPI subset, one mode per run; plain MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Usage: mpirun -n N mpi_p2p MODE
 *   tags    (2) tags received in another order than sent; same tag stays in order
 *   any     (3) MPI_ANY_SOURCE / MPI_ANY_TAG: per-source send order, status fields
 *   probe   (2) MPI_Probe / MPI_Iprobe, then a receive of the probed size
 *   ssend   (2) MPI_Ssend / MPI_Issend wait for a receive posted 100 ms later
 *   cancel  (2) a cancelled receive; a matched one is not cancelled
 *   waitany [PER] (N) rank 0 posts PER receives (default 8) per peer, completes them with
 *           MPI_Waitany / Testany (PER * (N-1) stay within the config's host.max_requests)
 *   dup     (2) MPI_Comm_dup: same tag on two communicators never crosses
 *   misuse  (2) MPI_ERRORS_RETURN: bad rank, tag, count, type, comm, truncation
 *   fatal   (2) a bad rank under MPI_ERRORS_ARE_FATAL: the node must fail
 *   early CALL, late CALL (1) CALL (send or recv: MPI_Send / MPI_Recv) before MPI_Init, or
 *           after MPI_Finalize: the node must fail
 *   large BYTES (N >= 3) messages of BYTES (above the eager limit: a rendezvous): every
 *           other rank sends one to rank 0, which receives them in reverse rank order
 *           after they all arrived (none may block another); then ranks 0 and 1 each
 *           MPI_Isend one and MPI_Recv the other's (a blocking receive must move the
 *           pending send on); probe of a large message (its true count), truncation
 *           (the prefix, MPI_ERR_TRUNCATE, the true count, also into a 0-byte buffer),
 *           MPI_Ssend, and an MPI_Request_free'd large send completed by MPI_Finalize
 *   window BYTES COUNT (2) each rank posts COUNT receives, then COUNT sends of BYTES to the
 *           other (more than the config's host.max_requests: the personality queues them):
 *           into distinct buffers (every byte checked), then all into one buffer as a
 *           benchmark's window does (statuses checked); then COUNT receives that no
 *           message meets, every one cancelled (queued ones too)
 * Each rank prints "mpi_p2p ok: MODE" when its checks passed, "FAIL ..." otherwise.
 */
static int me, np, bad;

#define CHECK(cond, ...)                                          \
	do {                                                      \
		if (!(cond)) {                                    \
			printf("FAIL rank %d line %d: ", me, __LINE__); \
			printf(__VA_ARGS__);                      \
			printf("\n");                             \
			bad = 1;                                  \
		}                                                 \
	} while (0)

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void tags(void)
{
	if (me == 0) {
		for (int t = 0; t < 4; t++)
			for (int k = 0; k < 3; k++) {
				int v = t * 100 + k;
				MPI_Send(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD);
			}
	} else {
		/* tags 3, 2, 1, 0: each tag's three in send order */
		for (int t = 3; t >= 0; t--)
			for (int k = 0; k < 3; k++) {
				int v = -1;
				MPI_Status st;
				MPI_Recv(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &st);
				CHECK(v == t * 100 + k && st.MPI_TAG == t && st.MPI_SOURCE == 0,
				      "tag %d #%d: got %d (tag %d)", t, k, v, st.MPI_TAG);
			}
	}
}

static void any(void)
{
	if (me > 0) {
		for (int k = 0; k < 20; k++) {
			int v = me * 1000 + k;
			MPI_Send(&v, 1, MPI_INT, 0, k % 5, MPI_COMM_WORLD);
		}
		return;
	}
	int next[3] = { 0, 0, 0 };
	/* half ANY_SOURCE + ANY_TAG, then per source with ANY_TAG */
	for (int i = 0; i < 20; i++) {
		int v;
		MPI_Status st;
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		int s = st.MPI_SOURCE;
		CHECK(s == 1 || s == 2, "source %d", s);
		if (s != 1 && s != 2)
			return;
		CHECK(v == s * 1000 + next[s] && st.MPI_TAG == next[s] % 5,
		      "from %d: got %d tag %d, want %d", s, v, st.MPI_TAG, s * 1000 + next[s]);
		next[s]++;
	}
	for (int s = 1; s <= 2; s++)
		while (next[s] < 20) {
			int v;
			MPI_Status st;
			MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			CHECK(v == s * 1000 + next[s] && st.MPI_TAG == next[s] % 5,
			      "from %d: got %d, want %d", s, v, s * 1000 + next[s]);
			next[s]++;
		}
	/* a specific tag takes its message past older ones of other tags */
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0) {
		int v;
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(v == 9, "tag 9 got %d", v);
		MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(v == 8, "then ANY_TAG got %d", v);
	}
}

static void any_tail(void)
{
	/* ranks > 0: the barrier of any(), then rank 1 sends tag 8 then 9 */
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 1) {
		int v = 8;
		MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
		v = 9;
		MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
	}
}

static void probe(void)
{
	if (me == 0) {
		int sizes[3] = { 0, 1000, 300000 };
		for (int i = 0; i < 3; i++) {
			char *b = malloc((size_t)sizes[i] + 1);
			memset(b, 'a' + i, (size_t)sizes[i]);
			MPI_Send(b, sizes[i], MPI_CHAR, 1, 7 + i, MPI_COMM_WORLD);
			free(b);
		}
		return;
	}
	int flag = 0;
	MPI_Status st;
	MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, &st);
	CHECK(!flag, "iprobe found a message of tag 99");
	for (int i = 0; i < 3; i++) {
		if (i == 1) {
			do
				MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
			while (!flag);
		} else {
			MPI_Probe(0, 7 + i, MPI_COMM_WORLD, &st);
		}
		int n = -1;
		MPI_Get_count(&st, MPI_CHAR, &n);
		CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7 + i, "probe source %d tag %d",
		      st.MPI_SOURCE, st.MPI_TAG);
		char *b = malloc((size_t)n + 1);
		MPI_Recv(b, n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
		int m = -1;
		MPI_Get_count(&st, MPI_CHAR, &m);
		CHECK(m == n, "received %d of the probed %d", m, n);
		for (int k = 0; k < m; k++)
			if (b[k] != 'a' + i) {
				CHECK(0, "byte %d", k);
				break;
			}
		free(b);
	}
	MPI_Get_count(&st, MPI_INT, &flag);
	CHECK(flag == 75000, "300000 bytes as ints: %d", flag);
}

/*
 * A synchronous send completes only after its receive was posted: the
 * receives are posted 100 ms and 200 ms after the start, so the sends end
 * no sooner (later is allowed: the receiver sends its ack from its next
 * library call).  The start is node 0's, sent to node 1 (MPI_Wtime is
 * CLOCK_MONOTONIC, one clock for the machine): the two processes do not
 * start at the same moment.
 */
/*
 * Small nonblocking sends, the kind that leaves at once (an empty Send Ring,
 * no send queued before it): each MPI_Isend's request completes -- MPI_Test
 * at once, MPI_Wait and MPI_Waitall with MPI_SUCCESS and the send's status --
 * and the messages arrive whole and in order, with a receive posted before
 * them and without.
 */
static void now(void)
{
	enum { N = 6 };
	char m[N][8];
	for (int k = 0; k < N; k++)
		memcpy(m[k], "isnow#0", 8), m[k][6] = (char)('0' + k);
	if (me == 0) {
		MPI_Request r[N];
		MPI_Status st;
		int flag = 0;
		int ready;
		MPI_Recv(&ready, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(MPI_Isend(m[0], 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS, "isend 0");
		CHECK(MPI_Test(&r[0], &flag, &st) == MPI_SUCCESS && flag, "isend 0 not complete at its first test");
		if (!flag)
			MPI_Wait(&r[0], MPI_STATUS_IGNORE);
		CHECK(r[0] == MPI_REQUEST_NULL, "isend 0's request not freed by the test that completed it");
		CHECK(MPI_Isend(m[1], 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS, "isend 1");
		CHECK(MPI_Wait(&r[1], &st) == MPI_SUCCESS && st.MPI_ERROR == MPI_SUCCESS, "wait of isend 1");
		for (int k = 2; k < N; k++)
			CHECK(MPI_Isend(m[k], 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r[k]) == MPI_SUCCESS, "isend %d", k);
		CHECK(MPI_Waitall(N - 2, r + 2, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall of isends 2..%d", N - 1);
	} else {
		MPI_Request r0;
		char got[N][8];
		int n, ready = 1;
		memset(got, 0, sizeof got);
		/* the first receive is posted before its message, the others find theirs unexpected */
		MPI_Irecv(got[0], 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &r0);
		MPI_Send(&ready, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		MPI_Wait(&r0, MPI_STATUS_IGNORE);
		sleep_ms(20);
		for (int k = 1; k < N; k++) {
			MPI_Status st;
			MPI_Recv(got[k], 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &n);
			CHECK(n == 8 && st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "message %d: %d bytes from %d tag %d",
			      k, n, st.MPI_SOURCE, st.MPI_TAG);
		}
		for (int k = 0; k < N; k++)
			CHECK(!memcmp(got[k], m[k], 8), "message %d out of order or wrong: \"%.8s\"", k, got[k]);
	}
}

static void ssend(void)
{
	int v = 42;
	double t0;
	if (me == 0) {
		MPI_Request r;
		int flag = 0;
		t0 = MPI_Wtime();
		MPI_Send(&t0, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
		MPI_Issend(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
		sleep_ms(30);
		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		CHECK(!flag, "MPI_Issend completed before the receive");
		if (!flag)
			MPI_Wait(&r, MPI_STATUS_IGNORE);
		double dt = MPI_Wtime() - t0;
		CHECK(dt >= 0.09, "MPI_Issend completed after %.3f s, before the receive", dt);
		MPI_Ssend(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
		dt = MPI_Wtime() - t0;
		CHECK(dt >= 0.19, "MPI_Ssend completed after %.3f s, before the receive", dt);
	} else {
		MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int t = 1; t <= 2; t++) {
			while (MPI_Wtime() - t0 < 0.1 * t)
				sleep_ms(5);
			v = 0;
			MPI_Recv(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			CHECK(v == 42, "got %d", v);
		}
	}
}

static void cancel(void)
{
	int v = 0, flag = 0;
	MPI_Request r;
	MPI_Status st;
	if (me == 1) {
		MPI_Irecv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
		MPI_Cancel(&r);
		MPI_Wait(&r, &st);
		MPI_Test_cancelled(&st, &flag);
		CHECK(flag == 1 && r == MPI_REQUEST_NULL, "cancelled %d", flag);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0) {
		v = 7;
		MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
	} else {
		MPI_Irecv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, &st);      /* completes: the cancelled one never took the message */
		MPI_Test_cancelled(&st, &flag);
		CHECK(flag == 0 && v == 7, "cancelled %d, v %d", flag, v);
	}
}

static void waitany(int per)
{
	if (me > 0) {
		for (int k = 0; k < per; k++) {
			int v = me * 100 + k;
			MPI_Send(&v, 1, MPI_INT, 0, k, MPI_COMM_WORLD);
		}
		return;
	}
	int n = (np - 1) * per;
	MPI_Request *r = malloc((size_t)n * sizeof *r);
	int *v = malloc((size_t)n * sizeof *v), *seen = calloc((size_t)n, sizeof *seen);
	for (int s = 1; s < np; s++)
		for (int k = 0; k < per; k++)
			MPI_Irecv(&v[(s - 1) * per + k], 1, MPI_INT, s, k, MPI_COMM_WORLD,
				  &r[(s - 1) * per + k]);
	for (int got = 0; got < n; got++) {
		int idx, flag = 0;
		MPI_Status st;
		if (got % 2)
			MPI_Waitany(n, r, &idx, &st);
		else
			while (MPI_Testany(n, r, &idx, &flag, &st), !flag)
				;
		CHECK(idx >= 0 && idx < n && !seen[idx] && r[idx] == MPI_REQUEST_NULL,
		      "index %d", idx);
		if (idx < 0 || idx >= n)
			break;
		seen[idx] = 1;
		int s = idx / per + 1, k = idx % per;
		CHECK(v[idx] == s * 100 + k && st.MPI_SOURCE == s && st.MPI_TAG == k,
		      "request %d: %d from %d tag %d", idx, v[idx], st.MPI_SOURCE, st.MPI_TAG);
	}
	int idx = 0;
	MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE);
	CHECK(idx == MPI_UNDEFINED, "Waitany of no active request: %d", idx);
	free(r);
	free(v);
	free(seen);
}

static void dup(void)
{
	MPI_Comm d;
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	int r2;
	MPI_Comm_rank(d, &r2);
	CHECK(r2 == me, "rank in the dup %d", r2);
	if (me == 0) {
		int a = 1, b = 2;
		MPI_Send(&a, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
		MPI_Send(&b, 1, MPI_INT, 1, 3, d);
	} else if (me == 1) {
		int a = 0, b = 0;
		MPI_Recv(&b, 1, MPI_INT, 0, MPI_ANY_TAG, d, MPI_STATUS_IGNORE);
		MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(a == 1 && b == 2, "world got %d, dup got %d", a, b);
	}
	MPI_Comm d2;
	MPI_Comm_dup(d, &d2);
	int s;
	MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, d2);
	CHECK(s == np * (np - 1) / 2, "allreduce on the dup of a dup: %d", s);
	MPI_Comm_free(&d2);
	MPI_Comm_free(&d);
	CHECK(d == MPI_COMM_NULL, "free leaves %d", d);
	/* MPI_COMM_SELF: a message to oneself */
	int x = 5, y = 0;
	MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
	CHECK(y == 5, "self sendrecv %d", y);
}

static void misuse(void)
{
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int v = 0, rc, cls;
	char s[MPI_MAX_ERROR_STRING];
	int len;
	rc = MPI_Send(&v, 1, MPI_INT, np, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_RANK, "send to rank %d: %d", np, rc);
	rc = MPI_Recv(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(rc == MPI_ERR_RANK, "recv from -7: %d", rc);
	rc = MPI_Send(&v, 1, MPI_INT, 1 - me, -3, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_TAG, "tag -3: %d", rc);
	rc = MPI_Send(&v, 1, MPI_INT, 1 - me, MPI_ANY_TAG, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_TAG, "send MPI_ANY_TAG: %d", rc);
	rc = MPI_Send(&v, -1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_COUNT, "count -1: %d", rc);
	rc = MPI_Send(&v, 1, (MPI_Datatype)999, 1 - me, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_TYPE, "type 999: %d", rc);
	rc = MPI_Send(&v, 1, MPI_INT, 1 - me, 0, (MPI_Comm)999);
	CHECK(rc == MPI_ERR_COMM, "comm 999: %d", rc);
	rc = MPI_Wait(NULL, MPI_STATUS_IGNORE);
	CHECK(rc == MPI_ERR_REQUEST, "wait NULL: %d", rc);
	rc = MPI_Reduce(&v, &cls, 1, MPI_BYTE, MPI_SUM, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_OP, "SUM of MPI_BYTE: %d", rc);
	rc = MPI_Bcast(&v, 1, MPI_INT, 5, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_ROOT, "root 5: %d", rc);
	/* truncation: 100 ints into 10, the true count in the status */
	int big[100];
	MPI_Status st;
	for (int i = 0; i < 100; i++)
		big[i] = i;
	if (me == 0) {
		MPI_Send(big, 100, MPI_INT, 1, 4, MPI_COMM_WORLD);
		MPI_Send(big, 100, MPI_INT, 1, 4, MPI_COMM_WORLD);
	} else {
		int small[10], n = -1;
		rc = MPI_Recv(small, 10, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(rc == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && n == 100 &&
			      small[9] == 9,
		      "truncated recv: rc %d count %d", rc, n);
		MPI_Request r;
		MPI_Irecv(small, 10, MPI_INT, 0, 4, MPI_COMM_WORLD, &r);
		MPI_Status sts[1];
		rc = MPI_Waitall(1, &r, sts);
		MPI_Get_count(&sts[0], MPI_INT, &n);
		CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && n == 100,
		      "truncated waitall: rc %d status %d count %d", rc, sts[0].MPI_ERROR, n);
	}
	MPI_Error_string(MPI_ERR_TRUNCATE, s, &len);
	CHECK(len > 0 && strstr(s, "truncated"), "error string \"%s\"", s);
	MPI_Error_class(MPI_ERR_RANK, &cls);
	CHECK(cls == MPI_ERR_RANK, "class %d", cls);
	rc = MPI_Error_string(-5, s, &len);
	CHECK(rc != MPI_SUCCESS, "error string of -5: %d", rc);
}

static void fatal(void)
{
	int v = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 1) {
		MPI_Send(&v, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
		printf("FAIL: MPI_Send to rank 7 returned under MPI_ERRORS_ARE_FATAL\n");
	} else {
		/* waits for a message that never comes: commrun stops it after rank 1 fails */
		MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

/* Byte i of rank r's message k. */
static inline unsigned char pat(int r, int k, size_t i)
{
	return (unsigned char)(i * 7 + (size_t)r * 31 + (size_t)k * 101 + 1);
}

static void fill(unsigned char *b, size_t n, int r, int k)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(r, k, i);
}

/* The first wrong byte of b against rank r's message k, or -1. */
static long wrong(const unsigned char *b, size_t n, int r, int k)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pat(r, k, i))
			return (long)i;
	return -1;
}

static void large(size_t n)
{
	unsigned char *sb = malloc(n), *rb = malloc(n);
	MPI_Status st;
	int cnt;
	long at;
	CHECK(sb && rb, "out of memory for %zu bytes", n);
	if (!sb || !rb)
		return;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* 1. a large message per rank to 0, received in reverse order once all arrived */
	if (me == 0) {
		sleep_ms(100);  /* every sender's announcement is in: the others poll meanwhile */
		for (int r = np - 1; r >= 1; r--) {
			memset(rb, 0, n);
			int rc = MPI_Recv(rb, (int)n, MPI_BYTE, r, 1, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			at = wrong(rb, n, r, 1);
			CHECK(rc == MPI_SUCCESS && cnt == (int)n && at < 0 && st.MPI_SOURCE == r,
			      "from %d: rc %d count %d, byte %ld wrong", r, rc, cnt, at);
		}
	} else {
		fill(sb, n, me, 1);
		CHECK(MPI_Send(sb, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "send");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	/* 2. 0 and 1 both send first, then receive with a blocking call */
	if (me < 2) {
		MPI_Request r;
		fill(sb, n, me, 2);
		MPI_Isend(sb, (int)n, MPI_BYTE, 1 - me, 2, MPI_COMM_WORLD, &r);
		memset(rb, 0, n);
		int rc = MPI_Recv(rb, (int)n, MPI_BYTE, 1 - me, 2, MPI_COMM_WORLD, &st);
		at = wrong(rb, n, 1 - me, 2);
		CHECK(rc == MPI_SUCCESS && at < 0, "exchange: rc %d, byte %ld wrong", rc, at);
		CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "exchange: the send failed");
	}
	/* 3. probe, truncation, a 0-byte receive, Ssend, a freed request: 1 sends to 0 */
	if (me == 1) {
		fill(sb, n, 1, 3);
		for (int k = 0; k < 3; k++)
			MPI_Send(sb, (int)n, MPI_BYTE, 0, 3 + k, MPI_COMM_WORLD);
		CHECK(MPI_Ssend(sb, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD) == MPI_SUCCESS, "ssend");
		MPI_Request r;
		MPI_Isend(sb, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &r);
		MPI_Request_free(&r);
		/* sb is the library's until the receiver says it has the message */
		MPI_Recv(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (me == 0) {
		int flag = 0;
		do
			MPI_Iprobe(1, 3, MPI_COMM_WORLD, &flag, &st);
		while (!flag);
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		CHECK(cnt == (int)n && st.MPI_TAG == 3, "iprobe: count %d tag %d", cnt, st.MPI_TAG);
		MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);     /* the same message again */
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		CHECK(cnt == (int)n && st.MPI_TAG == 3, "probe: count %d tag %d", cnt, st.MPI_TAG);
		memset(rb, 0, n);
		int rc = MPI_Recv(rb, (int)n, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		CHECK(rc == MPI_SUCCESS && st.MPI_TAG == 3 && wrong(rb, n, 1, 3) < 0,
		      "probed receive: rc %d tag %d", rc, st.MPI_TAG);
		size_t half = n / 2;
		memset(rb, 0, n);
		rc = MPI_Recv(rb, (int)half, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		CHECK(rc == MPI_ERR_TRUNCATE && cnt == (int)n && wrong(rb, half, 1, 3) < 0 &&
		      rb[half] == 0, "truncated: rc %d count %d", rc, cnt);
		rc = MPI_Recv(rb, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		CHECK(rc == MPI_ERR_TRUNCATE && cnt == (int)n, "0-byte: rc %d count %d", rc, cnt);
		sleep_ms(100);          /* the Ssend waits for this receive */
		rc = MPI_Recv(rb, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &st);
		CHECK(rc == MPI_SUCCESS && wrong(rb, n, 1, 3) < 0, "ssend's: rc %d", rc);
		memset(rb, 0, n);
		rc = MPI_Recv(rb, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &st);
		CHECK(rc == MPI_SUCCESS && wrong(rb, n, 1, 3) < 0, "freed request's: rc %d", rc);
		MPI_Send(NULL, 0, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
	}
	free(sb);
	free(rb);
}

static void window(size_t n, int count)
{
	int peer = 1 - me;
	unsigned char *sb = malloc(n * (size_t)count), *rb = malloc(n * (size_t)count);
	MPI_Request *rq = malloc(2 * sizeof *rq * (size_t)count);
	MPI_Status *st = malloc(2 * sizeof *st * (size_t)count);
	CHECK(sb && rb && rq && st, "out of memory for %d x %zu bytes", count, n);
	if (!sb || !rb || !rq || !st)
		return;
	for (int round = 0; round < 2; round++) {       /* 0: distinct buffers, 1: one buffer */
		for (int k = 0; k < count; k++)
			fill(sb + (size_t)k * n, n, me, k);
		memset(rb, 0, n * (size_t)count);
		for (int k = 0; k < count; k++)
			CHECK(MPI_Irecv(rb + (round ? 0 : (size_t)k * n), (int)n, MPI_BYTE, peer, 5,
					MPI_COMM_WORLD, &rq[k]) == MPI_SUCCESS, "irecv %d", k);
		for (int k = 0; k < count; k++)
			CHECK(MPI_Isend(sb + (size_t)k * n, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
					&rq[count + k]) == MPI_SUCCESS, "isend %d", k);
		CHECK(MPI_Waitall(2 * count, rq, st) == MPI_SUCCESS, "round %d: waitall", round);
		for (int k = 0; k < count; k++) {
			int cnt = -1;
			MPI_Get_count(&st[k], MPI_BYTE, &cnt);
			CHECK(st[k].MPI_SOURCE == peer && st[k].MPI_ERROR == MPI_SUCCESS &&
			      cnt == (int)n, "round %d, message %d: source %d, error %d, count %d",
			      round, k, st[k].MPI_SOURCE, st[k].MPI_ERROR, cnt);
			long at = round ? -1 : wrong(rb + (size_t)k * n, n, peer, k);
			CHECK(at < 0, "message %d of %zu bytes: byte %ld wrong", k, n, at);
		}
	}
	/* receives no message meets: each one cancelled, also those still queued */
	for (int k = 0; k < count; k++)
		CHECK(MPI_Irecv(rb, (int)n, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &rq[k]) ==
		      MPI_SUCCESS, "irecv %d", k);
	for (int k = count - 1; k >= 0; k--)
		MPI_Cancel(&rq[k]);
	CHECK(MPI_Waitall(count, rq, st) == MPI_SUCCESS, "waitall of the cancelled");
	for (int k = 0; k < count; k++) {
		int flag = 0;
		MPI_Test_cancelled(&st[k], &flag);
		CHECK(flag, "receive %d not cancelled", k);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(sb);
	free(rb);
	free(rq);
	free(st);
}

/* MPI_Send or MPI_Recv (call) outside MPI_Init .. MPI_Finalize: fatal, never returns. */
static int unready(const char *when, const char *call)
{
	int v = 0, rc = !strcmp(call, "send") ? MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)
					      : MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
							 MPI_STATUS_IGNORE);
	printf("FAIL: %s %s returned %d\n", when, call, rc);
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "early") && argc > 2)
		return unready(mode, argv[2]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (!strcmp(mode, "late") && argc > 2) {
		MPI_Finalize();
		return unready(mode, argv[2]);
	}
	if (!strcmp(mode, "tags"))
		tags();
	else if (!strcmp(mode, "any")) {
		any();
		if (me > 0)
			any_tail();
	} else if (!strcmp(mode, "probe"))
		probe();
	else if (!strcmp(mode, "ssend"))
		ssend();
	else if (!strcmp(mode, "now") && np == 2)
		now();
	else if (!strcmp(mode, "cancel"))
		cancel();
	else if (!strcmp(mode, "waitany"))
		waitany(argc > 2 ? atoi(argv[2]) : 8);
	else if (!strcmp(mode, "dup"))
		dup();
	else if (!strcmp(mode, "misuse"))
		misuse();
	else if (!strcmp(mode, "fatal"))
		fatal();
	else if (!strcmp(mode, "window") && argc > 3 && np == 2)
		window((size_t)strtoull(argv[2], NULL, 0), atoi(argv[3]));
	else if (!strcmp(mode, "large") && argc > 2 && np >= 3)
		large((size_t)strtoull(argv[2], NULL, 0));
	else {
		printf("FAIL: unknown mode \"%s\"\n", mode);
		bad = 1;
	}
	if (!bad)
		printf("mpi_p2p ok: %s\n", mode);
	fflush(stdout);
	MPI_Finalize();
	return bad;
}
