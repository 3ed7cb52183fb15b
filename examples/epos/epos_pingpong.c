/* SPDX-License-Identifier: MIT */
/* EPOS ping-pong between two linked end-points: latency = round trip / 2 per size, any member. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>

#include "comm.h"      /* lc_config_name */
#include "epos_common.h"

/*
 * Usage: commrun -n 2 epos_pingpong [-s min:max] [-i iters] [-w warmup]
 * Node 0 opens "pp.0" bound to "pp.1", node 1 the reverse; node 0 sends
 * size bytes stamped with the iteration, node 1 returns them, node 0 checks
 * the stamp.  Output: '#' header lines, then rows "size latency_us".
 */
static const char usage[] = "usage: commrun -n 2 epos_pingpong [-s min:max] [-i iters] [-w warmup]\n";

static int pp_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	*out = (size_t)v;
	return *end == '\0' || *end == ':' ? 0 : -1;
}

int main(int argc, char **argv)
{
	size_t lo = 8, hi = 8192;
	unsigned iters = 1000, warmup = 100;
	int opt, rc;
	while ((opt = getopt(argc, argv, "s:i:w:h")) != -1) {
		const char *colon;
		switch (opt) {
		case 's':
			colon = strchr(optarg, ':');
			if (pp_size(optarg, &lo) || pp_size(colon ? colon + 1 : optarg, &hi) || hi < lo) {
				fputs(usage, stderr);
				return 2;
			}
			break;
		case 'i':
			iters = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			warmup = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (lo == 0 && !epos_channel_boundaries())
		lo = 1; /* a stream has no empty message */
	int me = epos_ex_rank();
	if (me < 0 || epos_ex_nodes() != 2) {
		fputs(usage, stderr);
		return 2;
	}
	epos_comm *c;
	if ((rc = epos_comm_open(&c, me == 0 ? "pp.0" : "pp.1", me == 0 ? "pp.1" : "pp.0")) != 0)
		return epos_ex_fail("epos_pingpong", "open", rc);
	const char *to = me == 0 ? "pp.1" : "pp.0";
	unsigned char *buf = malloc(hi ? hi : 1);
	if (!buf)
		return 1;
	memset(buf, 0, hi ? hi : 1);
	if (me == 0) {
		printf("# libcomm epos_pingpong (config %s, communicator %s, channel %s, network %s)\n"
		       "# Size  Latency (us)\n", lc_config_name(), epos_communicator_name(),
		       epos_channel_name(), EPOS_NETWORK_NAME);
		fflush(stdout);
	}
	for (size_t size = lo; size <= hi; size = size ? size * 2 : 1) {
		double t0 = 0;
		for (unsigned it = 0; it < warmup + iters; it++) {
			if (it == warmup)
				t0 = epos_ex_now_us();
			size_t stamp = size < sizeof it ? size : sizeof it;
			if (me == 0) {
				memcpy(buf, &it, stamp);
				if ((rc = epos_comm_send(c, to, buf, size)) != 0)
					return epos_ex_fail("epos_pingpong", "send", rc);
				memset(buf, 0xff, stamp);
			}
			if ((rc = epos_ex_recv_exact(c, buf, size)) != 0)
				return epos_ex_fail("epos_pingpong", "receive", rc);
			if (me == 1 && (rc = epos_comm_send(c, to, buf, size)) != 0)
				return epos_ex_fail("epos_pingpong", "send", rc);
			unsigned got = 0;
			memcpy(&got, buf, stamp);
			if (me == 0 && stamp && memcmp(&got, &it, stamp) != 0) {
				fprintf(stderr, "epos_pingpong: FAIL size %zu iteration %u: stamp %u\n", size,
					it, got);
				return 1;
			}
		}
		if (me == 0)
			printf("%zu %.3f\n", size, (epos_ex_now_us() - t0) / (2.0 * iters));
		fflush(stdout);
		if (size == hi)
			break;
	}
	free(buf);
	if ((rc = epos_comm_close(c)) != 0)
		return epos_ex_fail("epos_pingpong", "close", rc);
	return 0;
}
