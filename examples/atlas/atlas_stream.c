/* SPDX-License-Identifier: MIT */
/* ATLAS streaming: bandwidth per size by streaming buffers to the remote node, seed 000 Table 1's bandwidth column. */
#include "atlas_bench.h"

/*
 * Usage: commrun -n 2 atlas_stream [-s 8:8192] [-i 2000] [-w 200]
 * Node 0 sends iters buffers of each size back to back (non-blocking
 * sends through the send queue, retried when it pushes back); node 1
 * receives each, checks its sequence stamp, and answers the last with an
 * 8-byte ack.  Bandwidth = size x iters / time from the first send to the
 * ack, in MB/s (10^6 bytes per second).  Rows "size bandwidth_MBps".
 */
static const char usage[] = "usage: commrun -n 2 atlas_stream [-s min:max] [-i iters] [-w warmup]\n";

static int stream_round(atlas_factory *f, atlas_node *peer, int me, size_t size, unsigned n)
{
	int rc;
	atlas_buffer *b;
	for (unsigned s = 0; s < n; s++) {
		if (me == 0) {
			if ((rc = atlas_factory_create_buffer(f, size, &b)) != 0)
				return atlas_bench_fail("atlas_stream", "create_buffer", rc);
			memcpy(atlas_buffer_data(b), &s, size < sizeof s ? size : sizeof s);
			while ((rc = atlas_node_send(peer, b)) == ATLAS_ERR_AGAIN)
				sched_yield();
			if (rc)
				return atlas_bench_fail("atlas_stream", "send", rc);
			continue;
		}
		if ((rc = atlas_node_recv(peer, &b)) != 0)
			return atlas_bench_fail("atlas_stream", "recv", rc);
		unsigned got = s;
		memcpy(&got, atlas_buffer_data(b), size < sizeof got ? size : sizeof got);
		if (atlas_buffer_size(b) != size || got != s) {
			fprintf(stderr, "FAIL atlas_stream: size %zu message %u: %zu bytes, stamp %u\n",
				size, s, atlas_buffer_size(b), got);
			return 1;
		}
		atlas_buffer_release(b);
	}
	/* the ack: node 0's time covers every buffer received */
	if (me == 1) {
		if ((rc = atlas_factory_create_buffer(f, 8, &b)) != 0 ||
		    (rc = atlas_node_send(peer, b)) != 0)
			return atlas_bench_fail("atlas_stream", "ack", rc);
	} else {
		if ((rc = atlas_node_recv(peer, &b)) != 0)
			return atlas_bench_fail("atlas_stream", "ack", rc);
		atlas_buffer_release(b);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct atlas_bench_opts o = { 8, 8192, 2000, 200 };
	atlas_factory *f;
	atlas_node *peer;
	int me = 0;
	int rc = atlas_bench_start("atlas_stream", "Bandwidth (MB/s)", argc, argv, &o, usage, &f, &peer, &me);
	if (rc)
		return rc;
	for (size_t size = o.lo; size <= o.hi; size *= 2) {
		if (o.warmup && (rc = stream_round(f, peer, me, size, o.warmup)) != 0)
			return rc;
		double t0 = atlas_bench_now_us();
		if ((rc = stream_round(f, peer, me, size, o.iters)) != 0)
			return rc;
		/* significant digits, not decimals: a slow run (a sanitizer's, on a shared CPU)
		 * moves less than 0.005 MB/s at 8 B and must not print 0.00 */
		if (me == 0)
			printf("%-8zu%.5g\n", size, (double)size * o.iters / (atlas_bench_now_us() - t0));
		fflush(stdout);
	}
	return (rc = atlas_factory_release(f)) ? atlas_bench_fail("atlas_stream", "release", rc) : 0;
}
