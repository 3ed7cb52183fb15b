/* SPDX-License-Identifier: MIT */
/* csn_stream: CSN one-way bandwidth with a window of non-blocking transmits and receives. */
#include <string.h>
#include "csn_ex.h"

/*
 * usage: commrun -n 2 csn_stream [MIN [MAX [WINDOW [MBYTES]]]]   (default 8 1M 16 64)
 * MBYTES (MiB) per size, at most 20000 messages and at least 4 windows.
 * The first process to register "csn_src" keeps WINDOW csn_txnb in flight
 * (fewer when the library says CsnNoHeap: it tests one and retries), the
 * other ("csn_dst") keeps WINDOW csn_rxnb posted (fewer at CsnNoHeap: a
 * config's small request pool) and checks each message's
 * size, first 8 bytes and last byte (they carry its number); after each size
 * the receiver answers 1 byte, which stops the clock.  MB/s = 10^6 bytes/s.
 */
/* Bytes of a message's number at its start: 4, or what leaves the last byte alone. */
static unsigned csn_stream_seq_bytes(unsigned size)
{
	return size > 4 ? 4 : size - 1;
}

static const char usage[] = "usage: commrun -n 2 csn_stream [MIN [MAX [WINDOW [MBYTES]]]]\n";

int main(int argc, char **argv)
{
	unsigned lo = csn_ex_arg(argc, argv, 1, 8, usage), hi = csn_ex_arg(argc, argv, 2, 1 << 20, usage);
	unsigned win = csn_ex_arg(argc, argv, 3, 16, usage);
	unsigned mbytes = csn_ex_arg(argc, argv, 4, 64, usage);
	transport t;
	netid peer, n;
	void *a;
	csn_status s, r;
	uint8_t *bufs = malloc((size_t)hi * win), ack = 0;
	unsigned *act = calloc(win, sizeof *act), got;

	if (!bufs || !act || lo > hi)
		return 2;
	CSN_EX_OK(csn_open(&t));
	int me = csn_ex_pair(t, "csn_src", "csn_dst", &peer);
	if (me == 0)
		printf("# libcomm csn_stream (CSN personality, Tx %s, window %u)\n# Size  MB/s\n",
		       csn_ex_txmode(), win);
	for (unsigned size = lo; size <= hi; size *= 2) {
		uint64_t total = (uint64_t)mbytes << 20;
		unsigned count = (unsigned)(total / size);
		if (count > 20000)
			count = 20000;
		if (count < 4 * win)
			count = 4 * win;
		double t0 = csn_ex_now();
		if (me == 0) {
			unsigned sent = 0, done = 0, inflight = 0;
			for (unsigned k = 0; k < win && k < count; k++)
				for (unsigned j = 0; j < size; j++)
					bufs[(size_t)k * size + j] = csn_ex_payload(size, 0, j);
			while (done < count) {
				if (sent < count && inflight < win) {
					uint8_t *b = bufs + (size_t)(sent % win) * size;
					/* the number in the first bytes, its low byte last (never both at once) */
					memcpy(b, &sent, csn_stream_seq_bytes(size));
					b[size - 1] = (uint8_t)sent;
					s = csn_txnb(t, peer, b, size);
					if (s == CsnOk) {
						sent++, inflight++;
						continue;
					}
					if (s != CsnNoHeap || inflight == 0)
						CSN_EX_OK(s);
					win = inflight;         /* the library's limit */
				}
				r = csn_test(t, CsnTxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s);
				if (r != CsnTxReady)
					CSN_EX_OK(r);
				CSN_EX_OK(s);
				done++, inflight--;
			}
			n = peer;
			CSN_EX_OK(csn_rx(t, &n, &ack, 1, &got));
			double dt = csn_ex_now() - t0;
			printf("%-8u %.1f\n", size, (double)count * size / dt / 1e6);
			fflush(stdout);
		} else {
			unsigned posted = 0;
			for (; posted < win && posted < count; posted++) {
				s = csn_rxnb(t, bufs + (size_t)posted * size, size, &act[posted]);
				if (s == CsnNoHeap && posted > 1) {
					win = posted;   /* the library's limit */
					break;
				}
				CSN_EX_OK(s);
			}
			for (unsigned i = 0; i < count; i++) {
				r = csn_test(t, CsnRxReadyFlag, CSN_WAIT_FOREVER, &n, &a, &s);
				if (r != CsnRxReady)
					CSN_EX_OK(r);
				CSN_EX_OK(s);
				uint8_t *b = a;
				unsigned k = (unsigned)((b - bufs) / size), seq = 0;
				unsigned nb = csn_stream_seq_bytes(size);
				memcpy(&seq, b, nb);
				if (act[k] != size || b[size - 1] != (uint8_t)i ||
				    seq != (nb == 4 ? i : i & ((1u << (8 * nb)) - 1))) {
					printf("csn_stream FAIL: size %u message %u: %u bytes, number %u\n",
					       size, i, act[k], seq);
					return 1;
				}
				if (posted < count) {
					CSN_EX_OK(csn_rxnb(t, b, size, &act[k]));
					posted++;
				}
			}
			CSN_EX_OK(csn_tx(t, peer, &ack, 1));
		}
		if (size > hi / 2)
			break;
	}
	printf("csn_stream ok: %s\n", me ? "dst" : "src");
	CSN_EX_OK(csn_close(&t));
	free(bufs);
	free(act);
	return 0;
}
