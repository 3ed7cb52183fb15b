/* SPDX-License-Identifier: MIT */
/* Shared by the ATLAS benchmarks: options, clock, the Table 1 header and rows (seed 000, section 12). */
#ifndef ATLAS_BENCH_H
#define ATLAS_BENCH_H

#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atlas.h"
#include "comm.h"      /* lc_config_name */

/* -s min:max (sizes, doubling), -i iterations, -w warm-up; Table 1's 8 B .. 8 KiB by default. */
struct atlas_bench_opts {
	size_t lo, hi;
	unsigned iters, warmup;
};

static inline int atlas_bench_options(int argc, char **argv, struct atlas_bench_opts *o,
				      const char *usage)
{
	int c;
	while ((c = getopt(argc, argv, "s:i:w:h")) != -1) {
		switch (c) {
		case 's':
			if (sscanf(optarg, "%zu:%zu", &o->lo, &o->hi) != 2 || o->lo == 0 || o->lo > o->hi)
				goto bad;
			break;
		case 'i':
			o->iters = (unsigned)strtoul(optarg, NULL, 10);
			if (!o->iters)
				goto bad;
			break;
		case 'w':
			o->warmup = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			goto bad;
		}
	}
	if (optind == argc)
		return 0;
bad:
	fputs(usage, stderr);
	return 2;
}

static inline double atlas_bench_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline void atlas_bench_header(const char *prog, const char *columns)
{
	atlas_factory *f;
	atlas_params p;
	if (atlas_factory_get(&f) == 0) {
		atlas_factory_params(f, &p);
		printf("# ATLAS %s (libcomm config %s, max_outst_buffers %u)\n", prog,
		       lc_config_name(), p.max_outst_buffers);
		atlas_factory_release(f);
	}
	printf("# Size  %s\n", columns);
	fflush(stdout);
}

static inline int atlas_bench_fail(const char *prog, const char *what, int rc)
{
	fprintf(stderr, "%s: %s: %s [%s]\n", prog, what, atlas_strerror(rc), atlas_last_error());
	return 1;
}

/*
 * The start of both benchmarks: options into *o (defaults as given), the
 * factory, the peer of a 2-node job, the header on node 0.  0, or the exit
 * status after a message.
 */
static inline int atlas_bench_start(const char *prog, const char *columns, int argc, char **argv,
				    struct atlas_bench_opts *o, const char *usage, atlas_factory **f,
				    atlas_node **peer, int *me)
{
	int rc = atlas_bench_options(argc, argv, o, usage);
	if (rc)
		return rc;
	if ((rc = atlas_factory_get(f)) != 0)
		return atlas_bench_fail(prog, "atlas_factory_get", rc);
	*me = atlas_factory_self(*f);
	if (atlas_factory_size(*f) != 2) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	if ((rc = atlas_factory_create_node(*f, 1 - *me, peer)) != 0)
		return atlas_bench_fail(prog, "create_node", rc);
	if (*me == 0)
		atlas_bench_header(prog, columns);
	return 0;
}

#endif /* ATLAS_BENCH_H */
