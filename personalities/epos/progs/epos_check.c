/* SPDX-License-Identifier: MIT */
/* Test driver of the EPOS personality: stream order and window, datagram boundaries, mailbox threads, misuse. */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "epos.h"

/*
 * Usage: commrun -n 2 epos_check MODE [count]
 *   stream    node 1 sends count sends of odd sizes, node 0 receives with another cap: every byte in order
 *   window    node 0 sleeps 400 ms; node 1's first window goes at once, the rest waits for credit
 *   datagram  every message arrives whole with its own size; a small buffer truncates
 *   mailbox   4 threads of node 0 receive count messages of node 1: each taken once
 *   misuse    the member's misuses return their codes
 * Node 0 is end-point "chk.0" bound to "chk.1", node 1 the reverse.  Each
 * node prints "epos_check ok: ..." or "FAIL ...".
 */
static int me;
static epos_comm *ep;
static const char *peer_name;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			printf("FAIL node %d line %d: ", me, __LINE__);               \
			printf(__VA_ARGS__);                                          \
			printf(" [last error: %s]\n", epos_last_error());             \
			fflush(stdout);                                               \
			exit(1);                                                      \
		}                                                                     \
	} while (0)
#define EXPECT(call, code)                                                                   \
	do {                                                                                 \
		int rc_ = (call);                                                            \
		CHECK(rc_ == (code), "%s returned %d (%s), expected %s", #call, rc_,         \
		      epos_strerror(rc_), #code);                                            \
		CHECK(rc_ == 0 || epos_last_error()[0], "%s: no error text", #call);         \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static unsigned char pattern(uint64_t pos)
{
	return (unsigned char)(pos * 131u + (pos >> 8) * 7u + 1u);
}

static size_t odd_size(unsigned k)
{
	return (size_t)(k * 37u % 1999u) | 1u;
}

/*
 * The end: node 0 sends 's' when it has checked everything, node 1 answers
 * 'r'; so node 1 sends nothing after its test traffic until node 0 is done,
 * and both stay until then (a link's peer must be there to be looked up).
 */
static void sync_with_peer(void)
{
	char b = me == 0 ? 's' : 'r';
	size_t n = 0;
	if (me == 0) {
		struct epos_addr from = { me, 0 };
		EXPECT(epos_comm_send(ep, peer_name, &b, 1), 0);
		while (from.node == me) /* skip the mailbox test's wake-ups */
			EXPECT(epos_comm_receive(ep, &b, 1, &n, &from), 0);
		CHECK(n == 1 && b == 'r', "sync: %zu bytes '%c'", n, b);
	} else {
		EXPECT(epos_comm_receive(ep, &b, 1, &n, NULL), 0);
		CHECK(n == 1 && b == 's', "sync: %zu bytes '%c'", n, b);
		b = 'r';
		EXPECT(epos_comm_send(ep, peer_name, &b, 1), 0);
	}
}

static void mode_stream(unsigned count)
{
	uint64_t total = 0;
	for (unsigned k = 0; k < count; k++)
		total += odd_size(k);
	if (me == 1) {
		unsigned char *b = malloc(2000);
		uint64_t pos = 0;
		for (unsigned k = 0; k < count; k++) {
			size_t n = odd_size(k);
			for (size_t i = 0; i < n; i++)
				b[i] = pattern(pos + i);
			EXPECT(epos_comm_send(ep, peer_name, b, n), 0);
			pos += n;
		}
		free(b);
		sync_with_peer();
		printf("epos_check ok: stream sent %" PRIu64 " bytes in %u sends\n", total, count);
		return;
	}
	unsigned char b[1021];
	uint64_t pos = 0;
	unsigned receives = 0;
	while (pos < total) {
		size_t n = 0;
		struct epos_addr from;
		EXPECT(epos_comm_receive(ep, b, sizeof b, &n, &from), 0);
		CHECK(n > 0 && n <= sizeof b, "receive of %zu bytes with cap %zu", n, sizeof b);
		CHECK(from.node == 1, "bytes from node %d", from.node);
		for (size_t i = 0; i < n; i++)
			CHECK(b[i] == pattern(pos + i), "byte %" PRIu64 " is %u, expected %u", pos + i, b[i],
			      pattern(pos + i));
		pos += n;
		receives++;
	}
	size_t n;
	CHECK(epos_comm_try_receive(ep, b, sizeof b, &n, NULL) == EPOS_ERR_AGAIN, "bytes beyond the stream");
	sync_with_peer();
	printf("epos_check ok: stream received %" PRIu64 " bytes in order in %u receives of cap %zu\n",
	       pos, receives, sizeof b);
}

static void mode_window(void)
{
	size_t w = epos_channel_window();
	CHECK(w > 0, "stream without a window");
	if (me == 0) {
		/*
		 * Sleep 400 ms without receiving, but keep the node's NIC drained
		 * (epos_comm_wait(ep, 0) drives progress and takes nothing), so
		 * that only the stream's window can hold the sender back.
		 */
		double t0 = now_ms();
		while (now_ms() - t0 < 400) {
			int rc = epos_comm_wait(ep, 0);
			CHECK(rc == 0 || rc == EPOS_ERR_TIMEOUT, "wait: %s", epos_strerror(rc));
			usleep(500);
		}
		unsigned char b[700];
		uint64_t pos = 0;
		while (pos < 4 * w) {
			size_t n;
			EXPECT(epos_comm_receive(ep, b, sizeof b, &n, NULL), 0);
			for (size_t i = 0; i < n; i++)
				CHECK(b[i] == pattern(pos + i), "byte %" PRIu64, pos + i);
			pos += n;
		}
		sync_with_peer();
		printf("epos_check ok: window receiver got %" PRIu64 " bytes after sleeping\n", pos);
		return;
	}
	unsigned char b[1024];
	uint64_t pos = 0;
	double t0 = now_ms(), t_window = 0;
	while (pos < 4 * w) {
		for (size_t i = 0; i < sizeof b; i++)
			b[i] = pattern(pos + i);
		EXPECT(epos_comm_send(ep, peer_name, b, sizeof b), 0);
		pos += sizeof b;
		if (pos == w)
			t_window = now_ms() - t0;
	}
	double t_all = now_ms() - t0;
	CHECK(t_window < 200, "the first window (%zu bytes) took %.1f ms", w, t_window);
	CHECK(t_all >= 250, "4 windows sent in %.1f ms while the receiver slept 400 ms: no flow control",
	      t_all);
	sync_with_peer();
	printf("epos_check ok: window sender: first %zu bytes in %.1f ms, blocked until %.1f ms\n", w,
	       t_window, t_all);
}

static void mode_datagram(unsigned count)
{
	unsigned char b[3000];
	if (me == 1) {
		for (unsigned k = 0; k < count; k++) {
			size_t n = k % 7 == 0 ? 0 : odd_size(k) % sizeof b;
			for (size_t i = 0; i < n; i++)
				b[i] = pattern(k + i);
			EXPECT(epos_comm_send(ep, peer_name, b, n), 0);
		}
		memset(b, 'x', 100);
		EXPECT(epos_comm_send(ep, peer_name, b, 100), 0);
		sync_with_peer();
		printf("epos_check ok: datagram sent %u messages\n", count + 1);
		return;
	}
	for (unsigned k = 0; k < count; k++) {
		size_t want = k % 7 == 0 ? 0 : odd_size(k) % sizeof b, n = 12345;
		EXPECT(epos_comm_receive(ep, b, sizeof b, &n, NULL), 0);
		CHECK(n == want, "message %u: %zu bytes, sent %zu", k, n, want);
		for (size_t i = 0; i < n; i++)
			CHECK(b[i] == pattern(k + i), "message %u byte %zu", k, i);
	}
	size_t n = 0;
	EXPECT(epos_comm_receive(ep, b, 10, &n, NULL), EPOS_ERR_TRUNC);
	CHECK(n == 100, "truncated message reports %zu bytes, sent 100", n);
	sync_with_peer();
	printf("epos_check ok: datagram received %u messages whole\n", count + 1);
}

static atomic_uchar *mb_seen;
static unsigned mb_count;
static uint64_t mb_bytes_total;
static _Atomic uint64_t mb_bytes, mb_sum;
static unsigned mb_got[4];
static atomic_int mb_done;

/*
 * Threads 0 and 1 block in epos_comm_receive, threads 2 and 3 poll with
 * epos_comm_try_receive.  When every byte of node 1 is taken, the main
 * thread wakes the blocked ones with 1-byte sends of its own to the mailbox
 * (from node 0: not counted).
 */
static void *mb_thread(void *arg)
{
	unsigned *mine = arg;
	bool blocking = mine - mb_got < 2;
	unsigned char b[64];
	while (atomic_load(&mb_bytes) < mb_bytes_total) {
		size_t n;
		size_t cap = epos_channel_boundaries() ? sizeof b : 5;
		struct epos_addr from;
		int rc = blocking ? epos_comm_receive(ep, b, cap, &n, &from)
				  : epos_comm_try_receive(ep, b, cap, &n, &from);
		if (rc == EPOS_ERR_AGAIN) {
			sched_yield();
			continue;
		}
		CHECK(rc == 0, "receiving thread: %s", epos_strerror(rc));
		if (from.node == me)
			continue; /* a wake-up */
		if (epos_channel_boundaries()) {
			unsigned k;
			CHECK(n == sizeof k, "message of %zu bytes", n);
			memcpy(&k, b, sizeof k);
			CHECK(k < mb_count, "message number %u", k);
			CHECK(atomic_fetch_add(&mb_seen[k], 1) == 0, "message %u taken twice", k);
		}
		uint64_t s = 0;
		for (size_t i = 0; i < n; i++)
			s += b[i];
		atomic_fetch_add(&mb_sum, s);
		atomic_fetch_add(&mb_bytes, n);
		(*mine)++;
	}
	atomic_fetch_add(&mb_done, 1);
	return NULL;
}

static void mode_mailbox(unsigned count)
{
	mb_count = count;
	mb_bytes_total = (uint64_t)count * sizeof(unsigned);
	uint64_t sum = 0;
	for (unsigned k = 0; k < count; k++)
		for (size_t i = 0; i < sizeof k; i++)
			sum += (k >> (8 * i)) & 0xffu;
	if (me == 1) {
		for (unsigned k = 0; k < count; k++)
			EXPECT(epos_comm_send(ep, peer_name, &k, sizeof k), 0);
		sync_with_peer();
		printf("epos_check ok: mailbox sender sent %u messages\n", count);
		return;
	}
	mb_seen = calloc(count, sizeof *mb_seen);
	pthread_t t[4];
	unsigned *got = mb_got;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, mb_thread, &got[i]);
	while (atomic_load(&mb_bytes) < mb_bytes_total)
		usleep(1000);
	while (atomic_load(&mb_done) < 4) {
		char wake = 'w';
		EXPECT(epos_comm_send(ep, "chk.0", &wake, 1), 0);
		usleep(1000);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&mb_bytes) == mb_bytes_total, "%" PRIu64 " bytes, sent %" PRIu64,
	      atomic_load(&mb_bytes), mb_bytes_total);
	CHECK(atomic_load(&mb_sum) == sum, "byte sum %" PRIu64 ", sent %" PRIu64, atomic_load(&mb_sum), sum);
	int threads = 0;
	for (int i = 0; i < 4; i++)
		threads += got[i] > 0;
	sync_with_peer();
	printf("epos_check ok: mailbox: 4 threads (2 blocking) took %u messages once each (%u %u %u %u, %d threads busy)\n",
	       count, got[0], got[1], got[2], got[3], threads);
	free(mb_seen);
}

static void *second_receiver(void *arg)
{
	int *rc = arg;
	char b[8];
	size_t n;
	*rc = epos_comm_try_receive(ep, b, sizeof b, &n, NULL);
	return NULL;
}

struct mb_blocked {
	int rc;
	size_t n;
	struct epos_addr from;
};

static void *blocked_receiver(void *arg)
{
	struct mb_blocked *r = arg;
	char b[8];
	r->rc = epos_comm_receive(ep, b, sizeof b, &r->n, &r->from);
	return NULL;
}

static void mode_misuse(void)
{
	if (me == 1) {
		sync_with_peer();
		printf("epos_check ok: misuse peer\n");
		return;
	}
	epos_comm *c = NULL;
	char b[16];
	size_t n;
	/* the inflated interface: every member */
	EXPECT(epos_comm_open(NULL, "x", "chk.1"), EPOS_ERR_INVAL);
	EXPECT(epos_comm_open(&c, NULL, "chk.1"), EPOS_ERR_INVAL);
	CHECK(c == NULL, "out set on error");
	EXPECT(epos_comm_open(&c, "has space", "chk.1"), EPOS_ERR_NAME);
	EXPECT(epos_comm_open(&c, "chk.0", "chk.1"), EPOS_ERR_NAME);
	EXPECT(epos_comm_send(NULL, peer_name, b, 1), EPOS_ERR_INVAL);
	EXPECT(epos_comm_send(ep, peer_name, NULL, 1), EPOS_ERR_INVAL);
	EXPECT(epos_comm_receive(ep, b, sizeof b, NULL, NULL), EPOS_ERR_INVAL);
	EXPECT(epos_comm_receive(ep, NULL, 4, &n, NULL), EPOS_ERR_INVAL);
	EXPECT(epos_comm_try_receive(ep, b, sizeof b, &n, NULL), EPOS_ERR_AGAIN);
	EXPECT(epos_comm_wait(ep, 1000), EPOS_ERR_TIMEOUT);
	if (!epos_channel_boundaries())
		EXPECT(epos_comm_receive(ep, b, 0, &n, NULL), EPOS_ERR_INVAL);
	/* a closed end-point */
	EXPECT(epos_comm_open(&c, "chk.extra", "chk.1"), 0);
	EXPECT(epos_comm_close(c), 0);
	EXPECT(epos_comm_send(c, "chk.1", b, 1), EPOS_ERR_CLOSED);
	EXPECT(epos_comm_receive(c, b, sizeof b, &n, NULL), EPOS_ERR_CLOSED);
	EXPECT(epos_comm_close(c), EPOS_ERR_CLOSED);
	const char *member = epos_communicator_name();
#if LC_EPOS_COMMUNICATOR_LINK
	EXPECT(epos_comm_open(&c, "chk.nopeer", NULL), EPOS_ERR_INVAL);
	EXPECT(epos_comm_send(ep, "chk.extra", b, 1), EPOS_ERR_NOT_PEER);
	CHECK(strstr(epos_last_error(), "chk.1") != NULL, "the message names the peer: %s", epos_last_error());
#elif LC_EPOS_COMMUNICATOR_PORT
	EXPECT(epos_comm_send(ep, NULL, b, 1), EPOS_ERR_INVAL);
	int rc2 = 0;
	pthread_t t;
	pthread_create(&t, NULL, second_receiver, &rc2);
	pthread_join(t, NULL);
	CHECK(rc2 == EPOS_ERR_THREAD, "a second receiving thread got %d (%s)", rc2, epos_strerror(rc2));
	EXPECT(epos_comm_try_receive(ep, b, sizeof b, &n, NULL), EPOS_ERR_AGAIN); /* still the owner */
#else
	EXPECT(epos_comm_send(ep, NULL, b, 1), EPOS_ERR_INVAL);
	int rc2 = 0;
	pthread_t t;
	pthread_create(&t, NULL, second_receiver, &rc2);
	pthread_join(t, NULL);
	CHECK(rc2 == EPOS_ERR_AGAIN, "a second receiving thread of a mailbox got %d (%s)", rc2,
	      epos_strerror(rc2));
	/* a thread blocked in receive holds nothing a try_receive needs */
	struct mb_blocked blk = { 0, 0, { -1, 0 } };
	pthread_create(&t, NULL, blocked_receiver, &blk);
	usleep(20000);
	double t0 = now_ms();
	EXPECT(epos_comm_try_receive(ep, b, sizeof b, &n, NULL), EPOS_ERR_AGAIN);
	CHECK(now_ms() - t0 < 100, "try_receive waited %.1f ms behind a blocked receiver", now_ms() - t0);
	b[0] = 'w';
	EXPECT(epos_comm_send(ep, "chk.0", b, 1), 0);
	pthread_join(t, NULL);
	CHECK(blk.rc == 0 && blk.n == 1 && blk.from.node == 0, "blocked receiver: %d, %zu bytes from %d",
	      blk.rc, blk.n, blk.from.node);
#endif
	(void)second_receiver;
	(void)blocked_receiver;
	sync_with_peer();
	printf("epos_check ok: misuse of %s/%s returns its codes\n", member, epos_channel_name());
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	me = atoi(getenv("LC_NODE") ? getenv("LC_NODE") : "-1");
	peer_name = me == 0 ? "chk.1" : "chk.0";
	int rc = epos_comm_open(&ep, me == 0 ? "chk.0" : "chk.1", peer_name);
	CHECK(rc == 0, "open: %s", epos_strerror(rc));
	if (strcmp(mode, "stream") == 0)
		mode_stream(count);
	else if (strcmp(mode, "window") == 0)
		mode_window();
	else if (strcmp(mode, "datagram") == 0)
		mode_datagram(count);
	else if (strcmp(mode, "mailbox") == 0)
		mode_mailbox(count);
	else if (strcmp(mode, "misuse") == 0)
		mode_misuse();
	else {
		fprintf(stderr, "usage: commrun -n 2 epos_check stream|window|datagram|mailbox|misuse [count]\n");
		return 2;
	}
	EXPECT(epos_comm_close(ep), 0);
	fflush(stdout);
	return 0;
}
