/* SPDX-License-Identifier: MIT */
/* commrun: the job segment, with its fault spec and static groups, made before any node starts. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "comm.h"
#include "faults.h"
#include "geom.h"
#include "lc_config.h"
#include "nic.h"
/* job_init: what the composed protocols set up for the whole job (e.g. static groups) */
#include "lc_composite_launcher.h"
#include "launcher.h"

/*
 * Remove the segments of launchers that died without cleaning up (commrun
 * SIGKILLed): /dev/shm/lc.<pid>.<n>, a regular file of ours, whose <pid> is
 * no process any more.  A pid that exists (even one reused by an unrelated
 * process) keeps its segment; so do names of another shape (tests' own).
 */
static void lc_run_sweep_stale(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid = 0;
		unsigned cnt = 0;
		int end = 0;
		struct stat sb;
		char name[NAME_MAX + 2];

		if (sscanf(e->d_name, "lc.%ld.%u%n", &pid, &cnt, &end) != 2 || e->d_name[end] != '\0' ||
		    pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
		    sb.st_uid != geteuid())
			continue;
		snprintf(name, sizeof name, "/%s", e->d_name);
		if (shm_unlink(name) == 0)
			lc_run_msg("removed the segment %s left by launcher %ld, which is gone", name, pid);
	}
	closedir(d);
}

/*
 * Create the static group `spec` ("0,1,2", "0-3,6") in the job segment's
 * group table; it must get id *next (groups are made in command-line order,
 * after the ones job_init made; UINT32_MAX: the first, any id), and *next
 * becomes the id after it.  0 or -1 with a message.
 */
static int lc_run_group(const char *job, const struct lc_nic_geom *g, const char *spec, uint32_t *next)
{
	uint32_t m[LC_MAX_NODES], n = 0, gid = 0;
	char err[256] = "";
	const char *p = spec;

	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				goto bad;
		}
		for (unsigned long i = lo; i <= hi; i++) {
			if (i >= g->nodes) {
				lc_run_msg("--group %s: node %lu out of range 0..%u", spec, i, g->nodes - 1);
				return -1;
			}
			if (n < LC_MAX_NODES)
				m[n++] = (uint32_t)i;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (g->groups == 0) {
		lc_run_msg("--group %s: config %s has no group table (no composed protocol declares "
			   "one)", spec, lc_config_name());
		return -1;
	}
	if (lc_seg_group_create(job, g, m, n, &gid, err, sizeof err) != 0 ||
	    (*next != UINT32_MAX && gid != *next)) {
		lc_run_msg("--group %s: %s", spec, err[0] ? err : "not given the next group id");
		return -1;
	}
	*next = gid + 1;
	return 0;
bad:
	lc_run_msg("--group %s: expected node numbers and ranges, e.g. 0,1,2 or 0-3,6", spec);
	return -1;
}

/*
 * Name the job (/lc.<our pid>.<n>, the first free n), create its segment
 * with the geometry of this build's config for o->nodes nodes, store the
 * fault spec, then make the config's static groups and the --group ones;
 * with --show-job, name it on stderr.  The segment is removed again if a
 * later step fails.
 */
int lc_run_geom(const struct lc_run_opts *o, struct lc_nic_geom *g)
{
	char err[256] = "";
	int rc = lc_geom_from_config(g, o->nodes);

	if (rc == LC_ERR_CONFIG) {
		lc_run_msg(LC_BACKPRESSURE_US_WHY, getenv("LC_BACKPRESSURE_US"));
		return -1;
	}
	if (rc != 0) {
		lc_run_msg("no geometry for %u nodes: %s", o->nodes, lc_strerror(rc));
		return -1;
	}
	if (o->per_nic > o->nodes) {
		lc_run_msg("--per-node %u: more processes per NIC than the job's %u nodes", o->per_nic,
			   o->nodes);
		return -1;
	}
	g->per_nic = o->per_nic;
	if (o->network && lc_net_override(g, o->network, err, sizeof err) != 0) {
		lc_run_msg("--network %s: %s", o->network, err);
		return -1;
	}
	return 0;
}

int lc_run_segment_create(struct lc_run_job *j, const struct lc_run_opts *o)
{
	char err[512] = "";
	int rc;

	lc_run_sweep_stale();
	if (lc_run_geom(o, &j->geom) != 0)
		return -1;
	/*
	 * the nodes inherit what commrun's options change in the geometry (lc_open:
	 * LC_PER_NIC, LC_NETWORK), as the segment records it
	 */
	{
		char v[16];

		snprintf(v, sizeof v, "%u", o->per_nic);
		setenv("LC_PER_NIC", v, 1);
		if (o->network)
			setenv("LC_NETWORK", o->network, 1);
		else
			unsetenv("LC_NETWORK");
	}
	for (unsigned counter = 0;; counter++) {
		snprintf(j->name, sizeof j->name, "/lc.%ld.%u", (long)getpid(), counter);
		err[0] = '\0';
		rc = lc_seg_create(j->name, &j->geom, err, sizeof err);
		if (rc != LC_ERR_BUSY || counter >= 16)
			break;
	}
	if (rc != 0) {
		lc_run_msg("cannot create the job segment %s: %s%s%s", j->name, lc_strerror(rc),
			   err[0] ? ": " : "", err);
		return -1;
	}
	if (o->have_faults && (rc = lc_seg_set_faults(j->name, &o->faults)) != 0) {
		lc_run_msg("cannot store the fault spec in %s: %s", j->name, lc_strerror(rc));
		lc_seg_unlink(j->name);
		return -1;
	}
	if (o->map && (rc = lc_seg_set_place(j->name, o->place)) != 0) {
		lc_run_msg("cannot store the placement %s in %s: %s", o->map, j->name, lc_strerror(rc));
		lc_seg_unlink(j->name);
		return -1;
	}
	if (o->stats && (rc = lc_seg_record_traffic(j->name)) != 0) {
		lc_run_msg("cannot ask %s for the traffic matrix: %s", j->name, lc_strerror(rc));
		lc_seg_unlink(j->name);
		return -1;
	}
	/* the composed protocols' part (e.g. the config's static groups, ids 0..); --group ones follow */
	if ((rc = lc_pc_job_init(j->name, &j->geom, err, sizeof err)) < 0) {
		lc_run_msg("%s", err);
		lc_seg_unlink(j->name);
		return -1;
	}
	uint32_t next = UINT32_MAX;

	for (uint32_t i = 0; i < o->n_groups; i++)
		if (lc_run_group(j->name, &j->geom, o->groups[i], &next) != 0) {
			lc_seg_unlink(j->name);
			return -1;
		}
	if (o->show_job)
		lc_run_msg("job %s", j->name);
	return 0;
}

int lc_run_print_routes(const struct lc_run_opts *o)
{
	struct lc_nic_geom g;
	struct lc_route r;

	if (lc_run_geom(o, &g) != 0)
		return LC_RUN_EXIT_USAGE;
	if (lc_net_switches(&g) == 0) {
		lc_run_msg("%u NICs do not fit two levels of %u-port switches", lc_geom_nics(&g),
			   g.switch_ports);
		return LC_RUN_EXIT_FAIL;
	}
	printf("# routes: %u node%s, %u per NIC, %u switch%s of %u ports%s%s\n", g.nodes,
	       g.nodes == 1 ? "" : "s", g.per_nic, lc_net_switches(&g),
	       lc_net_switches(&g) == 1 ? "" : "es", g.switch_ports, o->map ? ", placement " : "",
	       o->map ? o->map : "");
	printf("# src dst hops switch.port at each hop\n");
	for (uint32_t s = 0; s < g.nodes; s++)
		for (uint32_t d = 0; d < g.nodes; d++) {
			lc_net_route(&g, o->map ? o->place : NULL, s, d, &r);
			printf("%u %u %u", s, d, r.hops);
			for (uint32_t h = 0; h < r.hops; h++)
				printf(" %u.%u", r.gport[h] / g.switch_ports, r.port[h]);
			printf("\n");
		}
	return 0;
}
