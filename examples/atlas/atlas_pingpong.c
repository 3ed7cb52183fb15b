/* SPDX-License-Identifier: MIT */
/* ATLAS ping-pong: latency = round trip / 2 per size, seed 000 Table 1's latency column. */
#include "atlas_bench.h"

/*
 * Usage: commrun -n 2 atlas_pingpong [-s 8:8192] [-i 1000] [-w 100]
 * Node 0 sends a buffer, node 1 receives it and sends that very buffer back
 * (as the seed allows: a received buffer passed straight to send), node 0
 * checks the echoed iteration stamp.  Rows "size latency_us".
 */
static const char usage[] = "usage: commrun -n 2 atlas_pingpong [-s min:max] [-i iters] [-w warmup]\n";

int main(int argc, char **argv)
{
	struct atlas_bench_opts o = { 8, 8192, 1000, 100 };
	atlas_factory *f;
	atlas_node *peer;
	int me = 0;
	int rc = atlas_bench_start("atlas_pingpong", "Latency (us)", argc, argv, &o, usage, &f, &peer, &me);
	if (rc)
		return rc;
	for (size_t size = o.lo; size <= o.hi; size *= 2) {
		double t0 = 0;
		for (unsigned it = 0; it < o.warmup + o.iters; it++) {
			if (it == o.warmup)
				t0 = atlas_bench_now_us();
			atlas_buffer *b;
			if (me == 0) {
				if ((rc = atlas_factory_create_buffer(f, size, &b)) != 0)
					return atlas_bench_fail("atlas_pingpong", "create_buffer", rc);
				memset(atlas_buffer_data(b), 0, size < 8 ? size : 8);
				memcpy(atlas_buffer_data(b), &it, size < sizeof it ? size : sizeof it);
				while ((rc = atlas_node_send(peer, b)) == ATLAS_ERR_AGAIN)
					sched_yield();
				if (rc)
					return atlas_bench_fail("atlas_pingpong", "send", rc);
			}
			if ((rc = atlas_node_recv(peer, &b)) != 0)
				return atlas_bench_fail("atlas_pingpong", "recv", rc);
			unsigned got = 0;
			memcpy(&got, atlas_buffer_data(b), size < sizeof got ? size : sizeof got);
			if (atlas_buffer_size(b) != size || (size >= sizeof got && got != it)) {
				fprintf(stderr, "FAIL atlas_pingpong: size %zu iteration %u: got %zu bytes, "
					"stamp %u\n", size, it, atlas_buffer_size(b), got);
				return 1;
			}
			if (me == 1) {
				while ((rc = atlas_node_send(peer, b)) == ATLAS_ERR_AGAIN)
					sched_yield();
				if (rc)
					return atlas_bench_fail("atlas_pingpong", "send", rc);
			} else {
				atlas_buffer_release(b);
			}
		}
		if (me == 0)
			printf("%-8zu%.3f\n", size, (atlas_bench_now_us() - t0) / (2.0 * o.iters));
		fflush(stdout);
	}
	return (rc = atlas_factory_release(f)) ? atlas_bench_fail("atlas_pingpong", "release", rc) : 0;
}
