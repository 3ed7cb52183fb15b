/* SPDX-License-Identifier: MIT */
/* Node program: every node streams random-size messages to the next node of a ring and checks what the previous one sent. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "../../pipeline/progs/lc_tprog.h"

/*
 * Usage: relring MESSAGES [SEED]
 * Node i sends MESSAGES messages to node (i + 1) % n and receives as many
 * from node (i - 1) % n, in batches of LC_RR_BATCH (receives posted first,
 * so at most one batch waits unexpected).  Message k from node s has the
 * size rr_size(s, k): 90 % 0..256 B, 9 % up to 4 MTUs, 1 % up to 256 KiB;
 * its bytes are lc_ex_fill's pattern for (s, k), so a lost, duplicated,
 * reordered or damaged message shows as a wrong size or payload.  Each node
 * ends with
 *   "relring node <i>: <MESSAGES> from <p> exactly once, in order, intact (<bytes> bytes, <ms> ms)"
 * and exits 0, or reports the first bad message and exits 1.
 */
#define LC_RR_BATCH 64u
#define LC_RR_MAX (256u << 10)

static size_t rr_size(uint32_t src, uint32_t k, uint64_t seed)
{
	uint64_t s = seed ^ ((uint64_t)src << 40) ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull) ^ 1u;
	uint64_t r = lc_tp_rand(&s), q = lc_tp_rand(&s);

	if (r % 100 < 90)
		return (size_t)(q % 257);
	if (r % 100 < 99)
		return (size_t)(q % (4u * LC_MTU + 1));
	return (size_t)(q % (LC_RR_MAX + 1));
}

static uint64_t rr_seed(uint32_t src, uint32_t k)
{
	return lc_ex_seed((int)src, (size_t)k * 7919u + 1u);
}

static uint64_t rr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int main(int argc, char **argv)
{
	uint32_t msgs = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1, bytes = 0, t0;
	int me, n;
	lc_node *node = lc_tp_open(&me, &n);
	uint32_t next = (uint32_t)(me + 1) % (uint32_t)n, prev = (uint32_t)(me + n - 1) % (uint32_t)n;
	unsigned char *sb[LC_RR_BATCH], *rb[LC_RR_BATCH];
	lc_req *sr[LC_RR_BATCH], *rr[LC_RR_BATCH];

	if (n < 2)
		lc_tp_fail("relring needs 2 or more nodes");
	for (uint32_t j = 0; j < LC_RR_BATCH; j++) {
		sb[j] = lc_tp_alloc(LC_RR_MAX);
		rb[j] = lc_tp_alloc(LC_RR_MAX);
	}
	t0 = rr_now_ms();
	for (uint32_t k0 = 0; k0 < msgs; k0 += LC_RR_BATCH) {
		uint32_t b = msgs - k0 < LC_RR_BATCH ? msgs - k0 : LC_RR_BATCH;

		for (uint32_t j = 0; j < b; j++)
			LC_TP_OK(node, lc_irecv(node, (int)prev, rb[j], LC_RR_MAX, &rr[j]));
		for (uint32_t j = 0; j < b; j++) {
			size_t len = rr_size((uint32_t)me, k0 + j, seed);

			lc_ex_fill(sb[j], len, rr_seed((uint32_t)me, k0 + j));
			LC_TP_OK(node, lc_isend(node, (int)next, sb[j], len, &sr[j]));
		}
		for (uint32_t j = 0; j < b; j++)
			LC_TP_OK(node, lc_wait(node, sr[j], NULL));
		for (uint32_t j = 0; j < b; j++) {
			struct lc_status st;
			char what[64];
			size_t len = rr_size(prev, k0 + j, seed);

			LC_TP_OK(node, lc_wait(node, rr[j], &st));
			snprintf(what, sizeof what, "message %u", k0 + j);
			lc_tp_expect(rb[j], &st, (int)prev, len, rr_seed(prev, k0 + j), what);
			bytes += len;
		}
	}
	printf("relring node %d: %u from %u exactly once, in order, intact (%llu bytes, %llu ms)\n", me, msgs,
	       prev, (unsigned long long)bytes, (unsigned long long)(rr_now_ms() - t0));
	fflush(stdout);
	LC_TP_OK(node, lc_close(node));
	for (uint32_t j = 0; j < LC_RR_BATCH; j++) {
		free(sb[j]);
		free(rb[j]);
	}
	return 0;
}
