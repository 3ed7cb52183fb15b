/* SPDX-License-Identifier: MIT */
/* ATLAS personality test driver: one mode per property (order, fairness, join/leave, back-pressure, misuse). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atlas.h"

/*
 * Usage: commrun -n N atlas_check MODE [ARGS]; every node prints
 * "atlas_check ok: ..." when its part passed, "FAIL ..." otherwise.
 *   order M          node 1: four threads send M messages each to node 0,
 *                    which checks each thread's sequence arrives in order
 *   fair K M         nodes 1..N-1 send M messages each; node 0 receives from
 *                    the group "others" and counts the first K per member
 *   dynamic M        nodes 1..N-1 send M each; node 0 adds and removes them
 *                    from a dynamic group while receiving
 *   backpressure M Q node 0 sleeps 1 s; node 1 sends M with max_queued Q
 *   thread           a second receiving thread is refused
 *   errors           bad arguments give their error codes
 *   params           bad ATLAS_* environment values name the variable
 * Each message: struct msg then len bytes of a pattern of (src, thread, seq).
 */

#define PROG "atlas_check"

struct msg {
	uint32_t magic;
	uint16_t src, thread;
	uint32_t seq;
	uint32_t len;           /* payload bytes after the header */
};
#define MAGIC 0xa71a5000u
#define END_SEQ 0xffffffffu

static int me;

#define FAIL(...)                                                     \
	do {                                                          \
		printf("FAIL node %d: ", me);                         \
		printf(__VA_ARGS__);                                  \
		printf(" [%s]\n", atlas_last_error());                \
		fflush(stdout);                                       \
		exit(1);                                              \
	} while (0)
#define CHECK(cond, ...)                                              \
	do {                                                          \
		if (!(cond))                                          \
			FAIL(__VA_ARGS__);                            \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void sleep_ms(long ms)
{
	sleep_us(ms * 1000);
}

static unsigned char pat(const struct msg *h, size_t i)
{
	return (unsigned char)(h->src * 131u + h->thread * 31u + h->seq * 7u + i);
}

static atlas_buffer *make_msg(atlas_factory *f, int thread, uint32_t seq, uint32_t len)
{
	atlas_buffer *b;
	int rc = atlas_factory_create_buffer(f, sizeof(struct msg) + len, &b);
	CHECK(rc == 0, "create_buffer: %s", atlas_strerror(rc));
	struct msg h = { MAGIC, (uint16_t)me, (uint16_t)thread, seq, len };
	unsigned char *d = atlas_buffer_data(b);
	memcpy(d, &h, sizeof h);
	for (uint32_t i = 0; i < len; i++)
		d[sizeof h + i] = pat(&h, i);
	return b;
}

/* Check a received message from src; returns its header. */
static struct msg check_msg(atlas_buffer *b, int src)
{
	struct msg h;
	size_t n = atlas_buffer_size(b);
	CHECK(n >= sizeof h, "message of %zu bytes from %d", n, src);
	const unsigned char *d = atlas_buffer_data(b);
	memcpy(&h, d, sizeof h);
	CHECK(h.magic == MAGIC && h.src == src && h.len == n - sizeof h,
	      "bad header from %d: magic %x src %u len %u size %zu", src, h.magic, h.src, h.len, n);
	for (uint32_t i = 0; i < h.len; i++)
		CHECK(d[sizeof h + i] == pat(&h, i), "payload byte %u of seq %u from %d thread %u", i,
		      h.seq, src, h.thread);
	return h;
}

/*
 * Send, retrying while the queue pushes back (yielding: on 2 cores a job of
 * 5 spinning processes would otherwise starve its receiver); returns the
 * times it pushed back.
 */
static unsigned send_retry(atlas_node *n, atlas_buffer *b)
{
	unsigned again = 0;
	int rc;
	while ((rc = atlas_node_send(n, b)) == ATLAS_ERR_AGAIN) {
		again++;
		sched_yield();
	}
	CHECK(rc == 0, "send to %d: %s", atlas_node_id(n), atlas_strerror(rc));
	return again;
}

static atlas_factory *open_factory(void)
{
	atlas_factory *f;
	int rc = atlas_factory_get(&f);
	CHECK(rc == 0, "atlas_factory_get: %s", atlas_strerror(rc));
	me = atlas_factory_self(f);
	return f;
}

static atlas_node *node(atlas_factory *f, int id)
{
	atlas_node *n;
	int rc = atlas_factory_create_node(f, id, &n);
	CHECK(rc == 0, "create_node %d: %s", id, atlas_strerror(rc));
	return n;
}

static void done(atlas_factory *f, const char *what)
{
	int rc = atlas_factory_release(f);
	CHECK(rc == 0, "atlas_factory_release: %s", atlas_strerror(rc));
	printf(PROG " ok: node %d %s\n", me, what);
	fflush(stdout);
}

/* ---- order: four sending threads keep their order ---- */

#define THREADS 4
struct order_arg {
	atlas_factory *f;
	int thread;
	uint32_t m;
};

static void *order_sender(void *p)
{
	struct order_arg *a = p;
	atlas_node *to = node(a->f, 0);
	for (uint32_t s = 0; s < a->m; s++)
		send_retry(to, make_msg(a->f, a->thread, s, (s * 37u + (unsigned)a->thread * 11u) % 3000u));
	return NULL;
}

static void mode_order(uint32_t m)
{
	atlas_factory *f = open_factory();
	if (me == 1) {
		pthread_t t[THREADS];
		struct order_arg a[THREADS];
		for (int i = 0; i < THREADS; i++) {
			a[i] = (struct order_arg){ f, i, m };
			CHECK(pthread_create(&t[i], NULL, order_sender, &a[i]) == 0, "pthread_create");
		}
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		done(f, "four threads sent");
		return;
	}
	if (me != 0) {
		done(f, "idle");
		return;
	}
	atlas_node *from = node(f, 1);
	uint32_t next[THREADS] = { 0 };
	for (uint32_t k = 0; k < THREADS * m; k++) {
		atlas_buffer *b;
		int rc = atlas_node_recv(from, &b);
		CHECK(rc == 0, "recv: %s", atlas_strerror(rc));
		struct msg h = check_msg(b, 1);
		CHECK(h.thread < THREADS, "thread %u", h.thread);
		CHECK(h.seq == next[h.thread], "thread %u: seq %u arrived, %u expected (message %u)",
		      h.thread, h.seq, next[h.thread], k);
		next[h.thread]++;
		atlas_buffer_release(b);
	}
	char what[96];
	snprintf(what, sizeof what, "received 4 x %u in per-thread order", m);
	done(f, what);
}

/* ---- senders of fair and dynamic: M messages to node 0, then END ---- */

/*
 * The side channel of the fairness check: a file per sender, made once all
 * its messages have left its queue (so they are at or on their way to node
 * 0), named after the job.
 */
static void flag_path(char *buf, size_t cap, int id)
{
	const char *job = getenv("LC_JOB");
	int n = snprintf(buf, cap, "/tmp/atlas_check%s.%d", job ? job : "", id);
	for (int i = (int)strlen("/tmp/"); i < n && (size_t)i < cap; i++)
		if (buf[i] == '/')
			buf[i] = '_';
}

static void send_stream(atlas_factory *f, uint32_t m, uint32_t len, int flag)
{
	atlas_node *to = node(f, 0);
	double t0 = now_ms();
	for (uint32_t s = 0; s < m; s++)
		send_retry(to, make_msg(f, 0, s, len));
	send_retry(to, make_msg(f, 0, END_SEQ, 0));
	if (getenv("ATLAS_CHECK_VERBOSE"))
		printf("node %d: %u sends in %.1f ms\n", me, m, now_ms() - t0);
	if (flag) {
		while (atlas_factory_flush(f) > 0)
			sched_yield();
		char path[256];
		flag_path(path, sizeof path, me);
		FILE *fp = fopen(path, "w");
		CHECK(fp != NULL, "create %s", path);
		fclose(fp);
	}
	done(f, "sent");
}

/* Drain group g until every member sent END, checking per-source order from next[]. */
static void drain_group(atlas_group *g, uint32_t *next, int size)
{
	int ends = 0;
	for (int i = 1; i < size; i++)
		ends += next[i] == END_SEQ;
	while (ends < size - 1) {
		atlas_buffer *b;
		atlas_node *src;
		int rc = atlas_group_recv(g, &b, &src);
		CHECK(rc == 0, "group recv: %s", atlas_strerror(rc));
		int s = atlas_node_id(src);
		struct msg h = check_msg(b, s);
		CHECK(next[s] != END_SEQ, "node %d: a message after END", s);
		if (h.seq == END_SEQ) {
			next[s] = END_SEQ;
			ends++;
		} else {
			CHECK(h.seq == next[s], "node %d: seq %u, %u expected", s, h.seq, next[s]);
			next[s]++;
		}
		atlas_buffer_release(b);
	}
}

static void mode_fair(uint32_t k, uint32_t m)
{
	atlas_factory *f = open_factory();
	int size = atlas_factory_size(f);
	if (me != 0) {
		send_stream(f, m, 48, 1);
		return;
	}
	atlas_group *g;
	int rc = atlas_factory_create_static_group(f, "others", &g);
	CHECK(rc == 0, "static group others: %s", atlas_strerror(rc));
	CHECK(atlas_group_size(g) == size - 1, "others: %d members", atlas_group_size(g));
	/*
	 * Let every member build a backlog, so that a member can be starved:
	 * progress without receiving (arrivals wait in host memory) until every
	 * member has sent all (its file), then 20 ms more for the last frames.
	 */
	double t0 = now_ms(), t_all = 0;
	for (int ready = 0; !t_all || now_ms() - t_all < 20;) {
		CHECK(atlas_factory_flush(f) >= 0, "flush");
		CHECK(now_ms() - t0 < 20000, "only %d of %d members sent all in 20 s", ready, size - 1);
		if (t_all)
			continue;
		ready = 0;
		for (int s = 1; s < size; s++) {
			char path[256];
			flag_path(path, sizeof path, s);
			ready += access(path, F_OK) == 0;
		}
		if (ready == size - 1)
			t_all = now_ms();
	}
	for (int s = 1; s < size; s++) {
		char path[256];
		flag_path(path, sizeof path, s);
		unlink(path);
	}
	uint32_t *next = calloc((size_t)size, sizeof *next);
	unsigned *count = calloc((size_t)size, sizeof *count);
	for (uint32_t r = 0; r < k; r++) {
		atlas_buffer *b;
		atlas_node *src;
		rc = atlas_group_recv(g, &b, &src);
		CHECK(rc == 0, "group recv: %s", atlas_strerror(rc));
		int s = atlas_node_id(src);
		struct msg h = check_msg(b, s);
		CHECK(h.seq == next[s], "node %d: seq %u, %u expected", s, h.seq, next[s]);
		next[s]++;
		count[s]++;
		atlas_buffer_release(b);
	}
	char line[256];
	int o = snprintf(line, sizeof line, "first %u receives per member:", k);
	for (int s = 1; s < size; s++)
		o += snprintf(line + o, sizeof line - (size_t)o, " %u", count[s]);
	printf("%s\n", line);
	for (int s = 1; s < size; s++)
		CHECK(count[s] >= k / (2u * (unsigned)(size - 1)),
		      "member %d starved: %u of the first %u receives (%s)", s, count[s], k, line);
	drain_group(g, next, size);
	free(next);
	free(count);
	done(f, "fair group receive");
}

/* ---- dynamic: join and leave while traffic flows ---- */

static void mode_dynamic(uint32_t m)
{
	atlas_factory *f = open_factory();
	int size = atlas_factory_size(f);
	CHECK(size >= 3, "dynamic wants 3 nodes at least");
	if (me != 0) {
		send_stream(f, m, 24, 0);
		return;
	}
	atlas_group *g;
	int rc = atlas_factory_create_group(f, &g);
	CHECK(rc == 0, "create_group: %s", atlas_strerror(rc));
	unsigned char *in = calloc((size_t)size, 1);
	uint32_t *next = calloc((size_t)size, sizeof *next);
	/* phase p: members are the nodes whose bit (p + id) % 3 != 0 ... every node leaves and joins */
	unsigned phases = 6, per = m / 4 ? m / 4 : 1;
	for (unsigned p = 0; p < phases; p++) {
		for (int s = 1; s < size; s++) {
			int want = (p + (unsigned)s) % 3 != 0 && next[s] != END_SEQ;
			if (want && !in[s])
				rc = atlas_group_add(g, node(f, s));
			else if (!want && in[s])
				rc = atlas_group_remove(g, node(f, s));
			else
				continue;
			CHECK(rc == 0, "phase %u: %s node %d: %s", p, want ? "add" : "remove", s,
			      atlas_strerror(rc));
			in[s] = (unsigned char)want;
		}
		int members = atlas_group_size(g);
		for (unsigned r = 0; members > 0 && r < per; r++) {
			atlas_buffer *b;
			atlas_node *src;
			rc = atlas_group_try_recv(g, &b, &src);
			CHECK(rc >= 0, "group try_recv: %s", atlas_strerror(rc));
			if (rc == 0) {
				r--;
				continue;
			}
			int s = atlas_node_id(src);
			CHECK(in[s], "phase %u: received from node %d, not a member", p, s);
			struct msg h = check_msg(b, s);
			if (h.seq == END_SEQ) {
				next[s] = END_SEQ;
				CHECK(atlas_group_remove(g, src) == 0, "remove %d", s);
				in[s] = 0;
				members = atlas_group_size(g);
			} else {
				CHECK(h.seq == next[s], "phase %u: node %d: seq %u, %u expected (lost?)", p,
				      s, h.seq, next[s]);
				next[s]++;
			}
			atlas_buffer_release(b);
		}
	}
	/* every node joins again; the rest of every stream arrives, in order, nothing lost */
	for (int s = 1; s < size; s++)
		if (!in[s] && next[s] != END_SEQ)
			CHECK(atlas_group_add(g, node(f, s)) == 0, "add %d", s);
	drain_group(g, next, size);
	char what[96];
	snprintf(what, sizeof what, "join/leave over %u phases, %d streams complete", phases,
		 size - 1);
	free(in);
	free(next);
	done(f, what);
}

/* ---- back-pressure: the receiver sleeps, the queue fills, send pushes back ---- */

static void mode_backpressure(uint32_t m, unsigned q)
{
	char v[32];
	snprintf(v, sizeof v, "%u", q);
	setenv("ATLAS_MAX_QUEUED", v, 1);
	atlas_factory *f = open_factory();
	double t0 = now_ms();
	if (me == 0) {
		sleep_ms(1000);
		atlas_node *from = node(f, 1);
		for (uint32_t s = 0; s <= m; s++) {
			atlas_buffer *b;
			int rc = atlas_node_recv(from, &b);
			CHECK(rc == 0, "recv: %s", atlas_strerror(rc));
			struct msg h = check_msg(b, 1);
			uint32_t want = s == m ? END_SEQ : s;
			CHECK(h.seq == want, "seq %u, %u expected", h.seq, want);
			atlas_buffer_release(b);
		}
		done(f, "received every message in order after sleeping");
		return;
	}
	if (me != 1) {
		done(f, "idle");
		return;
	}
	atlas_node *to = node(f, 0);
	int first = -1, hwm = 0;
	double t_first = 0;
	for (uint32_t s = 0; s <= m; s++) {
		atlas_buffer *b = make_msg(f, 0, s == m ? END_SEQ : s, 64);
		int rc;
		while ((rc = atlas_node_send(to, b)) == ATLAS_ERR_AGAIN) {
			if (first < 0) {
				first = (int)s;
				t_first = now_ms() - t0;
				int qd = atlas_node_queued(to);
				CHECK(qd == (int)q, "pushed back with %d queued, max_queued %u", qd, q);
			}
			/* a nap, not a yield: polling through the receiver's second cost the run a
			 * CPU-second; the send after it drains the queue the receiver emptied */
			sleep_us(200);
		}
		CHECK(rc == 0, "send: %s", atlas_strerror(rc));
		int qd = atlas_node_queued(to);
		hwm = qd > hwm ? qd : hwm;
		CHECK(qd <= (int)q, "%d queued, beyond max_queued %u", qd, q);
	}
	CHECK(first >= 0, "%u sends never pushed back (max_queued %u)", m + 1, q);
	CHECK(t_first < 900, "first push-back after %.0f ms: the receiver was awake", t_first);
	printf("pushed back first at message %d after %.1f ms, queue high-water %d of %u\n", first,
	       t_first, hwm, q);
	done(f, "back-pressure");
}

/* ---- thread: one receiver only ---- */

static int second_rc[2];

static void *second_receiver(void *p)
{
	atlas_factory *f = p;
	atlas_buffer *b;
	atlas_group *g;
	second_rc[0] = atlas_node_try_recv(node(f, me), &b);
	CHECK(atlas_factory_create_static_group(f, "all", &g) == 0, "group all");
	second_rc[1] = atlas_group_try_recv(g, &b, NULL);
	/* sending from this thread is allowed */
	send_retry(node(f, me), make_msg(f, 1, 1, 8));
	return NULL;
}

static void mode_thread(void)
{
	atlas_factory *f = open_factory();
	atlas_node *self = node(f, me);
	atlas_buffer *b;
	int rc = atlas_node_try_recv(self, &b);   /* claims the receiver */
	CHECK(rc == 0 && b == NULL, "try_recv on nothing: %d", rc);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, second_receiver, f) == 0, "pthread_create");
	pthread_join(t, NULL);
	CHECK(second_rc[0] == ATLAS_ERR_THREAD, "second thread's node receive: %d, want %d",
	      second_rc[0], ATLAS_ERR_THREAD);
	CHECK(second_rc[1] == ATLAS_ERR_THREAD, "second thread's group receive: %d, want %d",
	      second_rc[1], ATLAS_ERR_THREAD);
	rc = atlas_node_recv(self, &b);
	CHECK(rc == 0, "the receiver's own recv: %s", atlas_strerror(rc));
	struct msg h = check_msg(b, me);
	CHECK(h.thread == 1 && h.seq == 1, "the second thread's message");
	atlas_buffer_release(b);
	done(f, "second receiving thread refused");
}

/* ---- errors: argument checks ---- */

#define EXPECT(call, want)                                                              \
	do {                                                                            \
		int r_ = (call);                                                        \
		CHECK(r_ == (want), "%s: %d (%s), want %s", #call, r_, atlas_strerror(r_), \
		      #want);                                                           \
	} while (0)

static void mode_errors(void)
{
	atlas_factory *f = open_factory(), *f2;
	int size = atlas_factory_size(f);
	atlas_node *n, *self = node(f, me);
	atlas_group *g, *sg;
	atlas_buffer *b;
	EXPECT(atlas_factory_get(NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_init(NULL, &f2), ATLAS_ERR_BUSY);
	EXPECT(atlas_factory_get(&f2), 0);
	CHECK(f2 == f, "the factory is a singleton");
	EXPECT(atlas_factory_release(f2), 0);
	EXPECT(atlas_factory_create_node(f, -1, &n), ATLAS_ERR_RANGE);
	EXPECT(atlas_factory_create_node(f, size, &n), ATLAS_ERR_RANGE);
	CHECK(strstr(atlas_last_error(), "out of") != NULL, "detail: %s", atlas_last_error());
	EXPECT(atlas_factory_create_node(NULL, 0, &n), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_node(f, 0, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_node(f, me, &n), 0);
	CHECK(n == self, "the same id gives the same node");
	EXPECT(atlas_factory_create_buffer(f, 16, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_node_send(NULL, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_node_send(self, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_node_try_recv(self, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_node_recv(NULL, &b), ATLAS_ERR_INVAL);
	EXPECT(atlas_buffer_resize(NULL, 4), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_static_group(f, "nobody", &sg), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_static_group(f, "0-", &sg), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_static_group(f, "0,x", &sg), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_static_group(f, "0-99", &sg), ATLAS_ERR_RANGE);
	EXPECT(atlas_factory_create_static_group(f, NULL, &sg), ATLAS_ERR_INVAL);
	EXPECT(atlas_factory_create_static_group(f, "0", &sg), 0);
	EXPECT(atlas_group_size(sg), 1);
	EXPECT(atlas_group_is_static(sg), 1);
	EXPECT(atlas_group_add(sg, self), ATLAS_ERR_STATIC);
	EXPECT(atlas_group_remove(sg, self), ATLAS_ERR_STATIC);
	EXPECT(atlas_factory_create_group(f, &g), 0);
	EXPECT(atlas_group_is_static(g), 0);
	EXPECT(atlas_group_remove(g, self), ATLAS_ERR_MEMBER);
	EXPECT(atlas_group_add(g, self), 0);
	EXPECT(atlas_group_add(g, self), ATLAS_ERR_MEMBER);
	EXPECT(atlas_group_add(g, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_group_send(g, NULL), ATLAS_ERR_INVAL);
	EXPECT(atlas_group_try_recv(NULL, &b, NULL), ATLAS_ERR_INVAL);
	/* a buffer a send holds is the layer's: no second send, no release, no resize */
	EXPECT(atlas_factory_create_buffer(f, 16, &b), 0);
	memset(atlas_buffer_data(b), 0x5a, 16);
	EXPECT(atlas_buffer_resize(b, 4096), 0);
	EXPECT(atlas_buffer_resize(b, 16), 0);
	CHECK(atlas_buffer_size(b) == 16 && ((unsigned char *)atlas_buffer_data(b))[15] == 0x5a,
	      "resize keeps the bytes");
	/* max_outst_buffers 1: a second send to this node waits in the queue (BUSY while held) */
	atlas_buffer *b2;
	EXPECT(atlas_factory_create_buffer(f, 16, &b2), 0);
	EXPECT(atlas_node_send(self, b), 0);
	EXPECT(atlas_node_send(self, b2), 0);
	if (atlas_node_queued(self) == 1) {
		EXPECT(atlas_node_send(self, b2), ATLAS_ERR_BUSY);
		EXPECT(atlas_buffer_release(b2), ATLAS_ERR_BUSY);
		EXPECT(atlas_buffer_resize(b2, 1), ATLAS_ERR_BUSY);
	}
	for (int i = 0; i < 2; i++) {
		EXPECT(atlas_node_recv(self, &b), 0);
		CHECK(atlas_buffer_size(b) == 16, "loopback size %zu", atlas_buffer_size(b));
		EXPECT(atlas_buffer_release(b), 0);
	}
	EXPECT(atlas_buffer_release(NULL), 0);
	EXPECT(atlas_group_destroy(g), 0);
	CHECK(strcmp(atlas_strerror(ATLAS_ERR_THREAD), "only one thread may receive") == 0,
	      "strerror");
	CHECK(strcmp(atlas_strerror(12345), "unknown error") == 0, "strerror of an unknown code");
	done(f, "error codes");
}

/* ---- params: the environment, bad values named (all before lc_open: one node per process) ---- */

static void mode_params(void)
{
	static const struct {
		const char *var, *val;
	} rows[] = {
		{ "ATLAS_MAX_OUTST_BUFFERS", "16" },
		{ "ATLAS_MAX_OUTST_BUFFERS", "0" },
		{ "ATLAS_MAX_OUTST_BUFFERS", "4x" },
		{ "ATLAS_MAX_OUTST_BUFFERS", "-1" },
		{ "ATLAS_MAX_QUEUED", "" },
		{ "ATLAS_USE_SEND_POOL", "2" },
		{ "ATLAS_SEND_BUFFER_NO", "0" },
		{ "ATLAS_SEND_BUFFER_SIZE", "99999999999" },
	};
	atlas_factory *f;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		setenv(rows[i].var, rows[i].val, 1);
		int rc = atlas_factory_get(&f);
		CHECK(rc == ATLAS_ERR_PARAM, "%s=\"%s\": %d, want ATLAS_ERR_PARAM", rows[i].var,
		      rows[i].val, rc);
		CHECK(strstr(atlas_last_error(), rows[i].var) != NULL,
		      "the error does not name %s: %s", rows[i].var, atlas_last_error());
		unsetenv(rows[i].var);
	}
	/* a bad value given by the program is named too */
	atlas_params p;
	atlas_params_default(&p);
	CHECK(p.max_outst_buffers == 1 && p.max_queued == 1024 && p.send_buffer_no == 127 &&
	      p.send_buffer_size == 8192 && p.use_send_pool == 0, "the seed's defaults");
	p.max_outst_buffers = 16;
	EXPECT(atlas_factory_init(&p, &f), ATLAS_ERR_PARAM);
	CHECK(strstr(atlas_last_error(), "max_outst_buffers") != NULL, "%s", atlas_last_error());
	/* the program's parameters, the environment over them */
	p.max_outst_buffers = 2;
	p.use_send_pool = 1;
	p.send_buffer_no = 3;
	p.send_buffer_size = 64;
	setenv("ATLAS_MAX_OUTST_BUFFERS", "15", 1);
	EXPECT(atlas_factory_init(&p, &f), 0);
	me = atlas_factory_self(f);
	atlas_params q;
	EXPECT(atlas_factory_params(f, &q), 0);
	CHECK(q.max_outst_buffers == 15 && q.max_queued == 1024 && q.send_buffer_no == 3 &&
	      q.send_buffer_size == 64 && q.use_send_pool == 1, "params in force");
	/* the send pool: send_buffer_no buffers, then ATLAS_ERR_AGAIN; larger ones from the heap */
	atlas_buffer *b[4];
	for (int i = 0; i < 3; i++)
		EXPECT(atlas_factory_create_buffer(f, 64, &b[i]), 0);
	EXPECT(atlas_factory_create_buffer(f, 8, &b[3]), ATLAS_ERR_AGAIN);
	EXPECT(atlas_factory_create_buffer(f, 65, &b[3]), 0);
	EXPECT(atlas_buffer_resize(b[0], 65), ATLAS_ERR_INVAL);
	EXPECT(atlas_buffer_release(b[0]), 0);
	EXPECT(atlas_factory_create_buffer(f, 8, &b[0]), 0);
	/* a pool buffer sent comes back to the pool once transferred */
	atlas_node *self = node(f, me);
	EXPECT(atlas_node_send(self, b[0]), 0);
	atlas_buffer *r;
	EXPECT(atlas_node_recv(self, &r), 0);
	EXPECT(atlas_buffer_release(r), 0);
	while (atlas_factory_flush(f) > 0)
		;
	EXPECT(atlas_factory_create_buffer(f, 8, &b[0]), 0);
	for (int i = 0; i < 4; i++)
		EXPECT(atlas_buffer_release(b[i]), 0);
	done(f, "parameters");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uint32_t a1 = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
	uint32_t a2 = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "order") == 0)
		mode_order(a1 ? a1 : 2000);
	else if (strcmp(mode, "fair") == 0)
		mode_fair(a1 ? a1 : 300, a2 ? a2 : 1000);
	else if (strcmp(mode, "dynamic") == 0)
		mode_dynamic(a1 ? a1 : 1000);
	else if (strcmp(mode, "backpressure") == 0)
		mode_backpressure(a1 ? a1 : 3000, a2 ? a2 : 32);
	else if (strcmp(mode, "thread") == 0)
		mode_thread();
	else if (strcmp(mode, "errors") == 0)
		mode_errors();
	else if (strcmp(mode, "params") == 0)
		mode_params();
	else {
		fprintf(stderr, "usage: commrun -n N " PROG " order|fair|dynamic|backpressure|"
			"thread|errors|params [args]\n");
		return 2;
	}
	return 0;
}
