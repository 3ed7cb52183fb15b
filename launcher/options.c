/* SPDX-License-Identifier: MIT */
/* commrun: the command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "nic.h"
#include "launcher.h"

static void lc_run_usage(void)
{
	fprintf(stderr,
		"usage: commrun -n N [--stats] [--faults SPEC] [--group LIST]... [--timeout SEC] [--show-job] [--] PROG [ARGS...]\n"
		"  -n N           number of node processes (1..%d)\n"
		"  --faults SPEC  inject faults on every link, e.g. drop=0.05,corrupt=0.01,dup=0.01,\n"
		"                 reorder=0.02,delay_us=50,seed=7 (default: $LC_FAULTS, else none)\n"
		"  --group LIST   a static multicast group of nodes LIST (e.g. 0,1,2 or 0-3,6); repeat\n"
		"                 for more: group ids in order after the config's multicast.groups (configs with multicast only)\n"
		"  --stats        print every NIC and pipeline counter of every node at exit\n"
		"  --timeout SEC  kill the job after SEC seconds (exit status 124)\n"
		"  --show-job     print the job's segment name on stderr before starting\n"
		"Each node gets LC_JOB, LC_NODE and LC_NODES; its output lines are prefixed with \"[i] \".\n"
		"The exit status is the worst node's (128+signal for a signal death).\n",
		LC_MAX_NODES);
}

/* Parse a positive decimal number of seconds (fractions allowed) into ns; -1 when invalid. */
static int lc_run_parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v > 0.0) || v > 1e6)
		return -1;
	*ns = (uint64_t)(v * 1e9);
	return 0;
}

static int lc_run_parse_nodes(const char *s, uint32_t *n)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < 1 || v > LC_MAX_NODES)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

int lc_run_parse_options(int argc, char **argv, struct lc_run_opts *o)
{
	int a = 1;

	memset(o, 0, sizeof *o);
	while (a < argc && argv[a][0] == '-') {
		const char *opt = argv[a];
		if (strcmp(opt, "--") == 0) {
			a++;
			break;
		} else if (strcmp(opt, "-n") == 0 || strcmp(opt, "--nodes") == 0) {
			if (a + 1 >= argc) {
				lc_run_msg("%s needs a number of nodes", opt);
				lc_run_usage();
				return LC_RUN_EXIT_USAGE;
			}
			if (lc_run_parse_nodes(argv[a + 1], &o->nodes) != 0) {
				lc_run_msg("bad node count '%s': expected an integer 1..%d",
					   argv[a + 1], LC_MAX_NODES);
				return LC_RUN_EXIT_USAGE;
			}
			a += 2;
		} else if (strncmp(opt, "-n", 2) == 0 && opt[2] >= '0' && opt[2] <= '9') {
			if (lc_run_parse_nodes(opt + 2, &o->nodes) != 0) {
				lc_run_msg("bad node count '%s': expected an integer 1..%d",
					   opt + 2, LC_MAX_NODES);
				return LC_RUN_EXIT_USAGE;
			}
			a++;
		} else if (strcmp(opt, "--stats") == 0) {
			o->stats = 1;
			a++;
		} else if (strcmp(opt, "--faults") == 0) {
			char ferr[256] = "";

			if (a + 1 >= argc || lc_faults_parse(argv[a + 1], &o->faults, ferr, sizeof ferr) != 0) {
				lc_run_msg("--faults: %s", ferr[0] ? ferr : "needs a fault spec");
				return LC_RUN_EXIT_USAGE;
			}
			o->have_faults = 1;
			a += 2;
		} else if (strcmp(opt, "--group") == 0) {
			if (a + 1 >= argc || o->n_groups >= LC_RUN_MAX_GROUPS) {
				lc_run_msg("--group needs a list of nodes (at most %d groups)",
					   LC_RUN_MAX_GROUPS);
				return LC_RUN_EXIT_USAGE;
			}
			o->groups[o->n_groups++] = argv[a + 1];
			a += 2;
		} else if (strcmp(opt, "--show-job") == 0) {
			o->show_job = 1;
			a++;
		} else if (strcmp(opt, "--timeout") == 0) {
			if (a + 1 >= argc || lc_run_parse_seconds(argv[a + 1], &o->timeout_ns) != 0) {
				lc_run_msg("--timeout needs a positive number of seconds");
				return LC_RUN_EXIT_USAGE;
			}
			a += 2;
		} else if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
			lc_run_usage();
			return 0;
		} else {
			lc_run_msg("unknown option '%s'", opt);
			lc_run_usage();
			return LC_RUN_EXIT_USAGE;
		}
	}
	if (o->nodes == 0) {
		lc_run_msg("missing -n N (the number of nodes)");
		lc_run_usage();
		return LC_RUN_EXIT_USAGE;
	}
	if (a >= argc) {
		lc_run_msg("missing the program to run");
		lc_run_usage();
		return LC_RUN_EXIT_USAGE;
	}
	o->prog = argv + a;
	return LC_RUN_GO;
}
