/* SPDX-License-Identifier: MIT */
/* csn_pingpong: CSN latency between two processes that find each other by name (blocking Tx/Rx). */
#include <string.h>
#include "csn_ex.h"

/*
 * usage: commrun -n 2 csn_pingpong [MIN [MAX [ITERS]]]   (default 8 64K 1000)
 * The first process to register "csn_ping" sends each size and checks the
 * echo; the other ("csn_pong") checks and echoes.  Latency = half the round
 * trip, averaged; iterations shrink above 8 KiB.  Output as the libcomm
 * examples: '#' header lines, then "size value" rows.
 */
static const char usage[] = "usage: commrun -n 2 csn_pingpong [MIN [MAX [ITERS]]]\n";

static int check(const uint8_t *b, unsigned n, unsigned got, unsigned it)
{
	if (got != n)
		return printf("csn_pingpong FAIL: %u bytes, not %u\n", got, n), 1;
	for (unsigned j = 0; j < n; j++)
		if (b[j] != csn_ex_payload(n, it, j))
			return printf("csn_pingpong FAIL: size %u iteration %u byte %u\n", n, it, j), 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned lo = csn_ex_arg(argc, argv, 1, 8, usage), hi = csn_ex_arg(argc, argv, 2, 65536, usage);
	unsigned iters = csn_ex_arg(argc, argv, 3, 1000, usage);
	transport t;
	netid peer, from;
	uint8_t *buf = malloc(hi);
	unsigned got;

	if (!buf || lo > hi)
		return 2;
	CSN_EX_OK(csn_open(&t));
	int me = csn_ex_pair(t, "csn_ping", "csn_pong", &peer);
	if (me == 0)
		printf("# libcomm csn_pingpong (CSN personality, Tx %s)\n# Size  Latency (us)\n",
		       csn_ex_txmode());
	for (unsigned n = lo; n <= hi; n *= 2) {
		unsigned its = n > 8192 ? (unsigned)((uint64_t)iters * 8192 / n) : iters, warm = its / 10;
		double t0 = 0;
		if (its < 20)
			its = 20;
		for (unsigned it = 0; it < its + warm; it++) {
			if (it == warm)
				t0 = csn_ex_now();
			if (me == 0)
				for (unsigned j = 0; j < n; j++)
					buf[j] = csn_ex_payload(n, it, j);
			if (me == 0)
				CSN_EX_OK(csn_tx(t, peer, buf, n));
			from = peer;
			CSN_EX_OK(csn_rx(t, &from, buf, n, &got));
			if (check(buf, n, got, it))
				return 1;
			if (me == 1)
				CSN_EX_OK(csn_tx(t, peer, buf, n));
		}
		if (me == 0)
			printf("%-8u %.3f\n", n, (csn_ex_now() - t0) * 1e6 / its / 2);
		fflush(stdout);
		if (n == 0 || n > hi / 2)
			break;
	}
	printf("csn_pingpong ok: %s\n", me ? "pong" : "ping");
	CSN_EX_OK(csn_close(&t));
	free(buf);
	return 0;
}
