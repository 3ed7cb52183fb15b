/* SPDX-License-Identifier: MIT */
/* Job segment: create, attach, refusal of a mismatched segment, node states, counters. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "nic_test.h"

TestSuite(seg, .fini = lct_fini, .timeout = 30);

/* Attach node with geometry g; expect failure code want and a message containing needle. */
static void attach_refused(const struct lc_nic_geom *g, uint32_t node, int want, const char *needle)
{
	char err[256] = "";
	int rc = 0;
	struct lc_nic *nic = lc_nic_attach(lct_name, node, g, err, sizeof(err), &rc);

	cr_assert_null(nic);
	cr_assert_eq(rc, want, "rc %d, expected %d (%s)", rc, want, err);
	cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(seg, create_is_private_and_zeroed)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 3 });
	struct stat st;
	char path[128];

	lct_setup(&g, "mode");
	snprintf(path, sizeof(path), "/dev/shm%s", lct_name);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(lc_nic_node(lct_nic[i]), i);
		cr_assert_eq(lc_nic_nodes(lct_nic[i]), 3);
		cr_assert(lc_nic_tx_idle(lct_nic[i]));
		cr_assert_null(lc_nic_rx_peek(lct_nic[i]));
		for (int s = 0; s < LC_NIC_STAT_COUNT; s++)
			cr_assert_eq(lct_stat(lct_nic[i], (enum lc_nic_stat)s), 0);
	}
}

Test(seg, create_twice_is_busy)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	char err[256] = "";

	lct_create(&g, "twice");
	cr_assert_eq(lc_seg_create(lct_name, &g, err, sizeof(err)), LC_ERR_BUSY);
	cr_assert(strstr(err, lct_name));
}

Test(seg, fingerprint_mismatch_refused)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	struct lc_nic_geom other = g;

	lct_create(&g, "fp");
	other.fingerprint ^= 0x10;
	attach_refused(&other, 0, LC_ERR_CONFIG, "segment made for config fingerprint 5eed0000c0ffee00");
	attach_refused(&other, 0, LC_ERR_CONFIG, "this program is 5eed0000c0ffee10");
	/* the refusal left the node unused: the right program still attaches */
	lct_attach(&g, 0);
}

Test(seg, geometry_mismatch_refused)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	struct lc_nic_geom other = lct_geom((struct lct_shape){ .recv_ring = 16 });
	char want[128];

	lct_create(&g, "geom");
	/* the first field that differs is named */
	snprintf(want, sizeof(want), "sram_bytes = %u, this program has %u", g.sram_bytes, other.sram_bytes);
	attach_refused(&other, 0, LC_ERR_CONFIG, want);
	other = g;
	other.switch_ports = 8;
	attach_refused(&other, 0, LC_ERR_CONFIG, "switch_ports = 16, this program has 8");
	other = lct_geom((struct lct_shape){ .nodes = 3 });
	attach_refused(&other, 0, LC_ERR_CONFIG, "nodes = 2, this program has 3");
	other = lct_geom((struct lct_shape){ .timeout_ns = 5 });
	attach_refused(&other, 0, LC_ERR_CONFIG, "backpressure_timeout_ns");
	/* the MCP mode is per process, not part of the layout */
	other = g;
	other.mcp_thread = 1;
	lct_attach(&other, 1);
}

Test(seg, version_mismatch_refused)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	struct lc_seg_hdr *h;
	int fd;

	lct_create(&g, "ver");
	fd = shm_open(lct_name, O_RDWR, 0);
	cr_assert_geq(fd, 0);
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	cr_assert_neq(h, MAP_FAILED);
	h->version = LC_SEG_LAYOUT_VERSION + 1;
	{
		char want[32];

		snprintf(want, sizeof want, "layout version %d", LC_SEG_LAYOUT_VERSION + 1);
		attach_refused(&g, 0, LC_ERR_CONFIG, want);
	}
	h->version = LC_SEG_LAYOUT_VERSION;
	atomic_store(&h->magic, 0);
	attach_refused(&g, 0, LC_ERR_CONFIG, "not a libcomm job segment");
	munmap(h, sizeof(*h));
}

Test(seg, stale_or_foreign_object_refused)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	int fd;

	snprintf(lct_name, sizeof(lct_name), "/lc.test.%d.small", (int)getpid());
	fd = shm_open(lct_name, O_CREAT | O_EXCL | O_RDWR, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 100), 0);
	close(fd);
	attach_refused(&g, 0, LC_ERR_CONFIG, "too small");
	lc_seg_unlink(lct_name);
	attach_refused(&g, 0, LC_ERR_SYS, lct_name);
	lct_name[0] = 0;
}

/* Each row is a geometry that must be refused, with the word the message must carry. */
Test(seg, bad_geometry_refused)
{
	struct {
		const char *what;
		struct lc_nic_geom g;
	} rows[6];
	char err[256];
	int n = 0;

	rows[n].what = "send ring";
	rows[n].g = lct_geom((struct lct_shape){ .send_ring = 6 });          /* not a power of two */
	n++;
	rows[n].what = "nodes";
	rows[n].g = lct_geom((struct lct_shape){ .nodes = LC_MAX_NODES + 1 });
	n++;
	rows[n].what = "slot_bytes";
	rows[n].g = lct_geom((struct lct_shape){ 0 });
	rows[n].g.slot_bytes -= 64;                                          /* header + mtu no longer fit */
	n++;
	rows[n].what = "rx fifo";
	rows[n].g = lct_geom((struct lct_shape){ 0 });
	rows[n].g.sram_bytes = rows[n].g.off_rx_fifo + 8;                    /* SRAM too small */
	n++;
	rows[n].what = "two-level";
	rows[n].g = lct_geom((struct lct_shape){ .nodes = 13, .ports = 4 }); /* 5 leaves > 4 root ports */
	n++;
	rows[n].what = "control block";
	rows[n].g = lct_geom((struct lct_shape){ 0 });
	rows[n].g.off_send_ring = 64;                                         /* overlaps the control block */
	n++;
	snprintf(lct_name, sizeof(lct_name), "/lc.test.%d.bad", (int)getpid());
	for (int i = 0; i < n; i++) {
		err[0] = 0;
		cr_assert_eq(lc_seg_create(lct_name, &rows[i].g, err, sizeof(err)), LC_ERR_CONFIG, "row %d", i);
		cr_assert(strstr(err, rows[i].what), "row %d: '%s' lacks '%s'", i, err, rows[i].what);
	}
	/* the boundary row that fits: 12 nodes on 4-port switches (4 leaves of 3) */
	rows[0].g = lct_geom((struct lct_shape){ .nodes = 12, .ports = 4 });
	cr_assert_eq(lc_seg_create(lct_name, &rows[0].g, err, sizeof(err)), 0, "%s", err);
}

Test(seg, node_states)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 4 });

	lct_create(&g, "state");
	lct_attach(&g, 0);
	/* a node not attached yet counts as alive (frames wait for it) */
	cr_assert(lc_nic_peer_alive(lct_nic[0], 1));
	cr_assert_not(lc_nic_peer_alive(lct_nic[0], 4));
	attach_refused(&g, 4, LC_ERR_RANGE, "out of range");
	attach_refused(&g, 0, LC_ERR_BUSY, "attached");
	lct_attach(&g, 1);
	lct_attach(&g, 2);
	cr_assert(lc_nic_peer_alive(lct_nic[0], 2));
	lc_seg_mark_dead(lct_name, 2);
	cr_assert_not(lc_nic_peer_alive(lct_nic[0], 2));
	lc_nic_detach(lct_nic[1]);
	lct_nic[1] = NULL;
	cr_assert_not(lc_nic_peer_alive(lct_nic[0], 1));
	attach_refused(&g, 1, LC_ERR_BUSY, "exited");
	/* detach of a node marked dead keeps it dead */
	lc_nic_detach(lct_nic[2]);
	lct_nic[2] = NULL;
	attach_refused(&g, 2, LC_ERR_BUSY, "dead");
}

/* Pages of the test's segment resident in memory (mincore over a mapping of its own). */
static size_t resident_pages(void)
{
	char path[128];
	struct stat st;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n, count = 0;
	unsigned char *vec;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/dev/shm%s", lct_name);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(p, MAP_FAILED);
	n = ((size_t)st.st_size + page - 1) / page;
	vec = malloc(n);
	cr_assert_not_null(vec);
	cr_assert_eq(mincore(p, (size_t)st.st_size, vec), 0, "mincore: %s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	munmap(p, (size_t)st.st_size);
	close(fd);
	return count;
}

/*
 * An attach makes the node's SRAM buffers and staging resident; with
 * LC_PREFAULT=0 they fault in as first used (a fuzz replay's many short
 * jobs); any other value attaches nothing and says why.
 */
Test(seg, prefault_or_not)
{
	/* staging of 256 slots of 4 KiB payload: 257 pages a node */
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 2, .mtu = 4096, .staging = 256 });
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t staging = (size_t)g.staging_slots * g.slot_bytes / page, before;

	lct_create(&g, "prefault");
	setenv("LC_PREFAULT", "2", 1);
	attach_refused(&g, 0, LC_ERR_INVAL, "LC_PREFAULT=2: not 1 or 0");
	setenv("LC_PREFAULT", "0", 1);
	before = resident_pages();
	lct_attach(&g, 0);
	cr_assert_lt(resident_pages() - before, staging / 2,
		     "LC_PREFAULT=0: %zu pages resident after attach (staging %zu pages)",
		     resident_pages() - before, staging);
	setenv("LC_PREFAULT", "", 1);
	before = resident_pages();
	lct_attach(&g, 1);
	cr_assert_geq(resident_pages() - before, staging,
		      "default: %zu pages resident after attach (staging %zu pages)",
		      resident_pages() - before, staging);
	unsetenv("LC_PREFAULT");
}

Test(seg, read_stats_after_detach)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ 0 });
	uint64_t nic[LC_NIC_STAT_COUNT], host[LC_HOST_STATS_MAX];
	uint8_t buf[256];

	lct_setup(&g, "stats");
	atomic_store(&lc_nic_host_stats(lct_nic[0])[5], 77);
	cr_assert_eq(lct_send(lct_nic[0], 1, 0, 10, 0, buf, NULL), 0);
	lct_wait_rx(lct_nic[1]);
	lc_nic_detach(lct_nic[0]);
	lct_nic[0] = NULL;
	cr_assert_eq(lc_seg_read_stats(lct_name, 0, nic, host), 0);
	cr_assert_eq(host[5], 77);
	cr_assert_eq(nic[LC_NIC_STAT_net_tx_frames], 1);
	cr_assert_eq(nic[LC_NIC_STAT_net_tx_bytes], sizeof(struct lc_frame_hdr) + 10);
	cr_assert_eq(nic[LC_NIC_STAT_doorbells], 1);
	cr_assert_eq(lc_seg_read_stats(lct_name, 1, nic, NULL), 0);
	cr_assert_eq(nic[LC_NIC_STAT_net_rx_frames], 1);
	cr_assert_eq(lc_seg_read_stats(lct_name, 2, nic, host), LC_ERR_RANGE);
}

/* The name table: shared by the nodes, one holder per name, names go with their node, full table. */
Test(seg, name_table)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 4 });
	uint32_t node = 99, port = 0, holder = 0;
	char name[32];

	lct_create(&g, "names");
	lct_attach(&g, 0);
	lct_attach(&g, 1);
	lct_attach(&g, 2);
	cr_assert_eq(lc_nic_name_get(lct_nic[1], "sink", &node, &port), LC_ERR_AGAIN);
	cr_assert_eq(lc_nic_name_set(lct_nic[0], "sink", 5, &holder), 0);
	cr_assert_eq(lc_nic_name_get(lct_nic[1], "sink", &node, &port), 0);
	cr_assert_eq(node, 0);
	cr_assert_eq(port, 5);
	cr_assert_eq(lc_nic_name_set(lct_nic[1], "sink", 6, &holder), LC_ERR_BUSY);
	cr_assert_eq(holder, 0);
	cr_assert_eq(lc_nic_name_del(lct_nic[1], "sink", &holder), LC_ERR_INVAL);
	cr_assert_eq(holder, 0);
	/* a node that detaches takes its names: the name is free for another */
	lc_nic_detach(lct_nic[0]);
	lct_nic[0] = NULL;
	cr_assert_eq(lc_nic_name_get(lct_nic[1], "sink", &node, &port), LC_ERR_AGAIN);
	cr_assert_eq(lc_nic_name_set(lct_nic[1], "sink", 6, &holder), 0);
	/* so does a node that dies, without cleaning anything */
	cr_assert_eq(lc_nic_name_set(lct_nic[2], "filter", 1, &holder), 0);
	lc_seg_mark_dead(lct_name, 2);
	cr_assert_eq(lc_nic_name_get(lct_nic[1], "filter", &node, &port), LC_ERR_AGAIN);
	/* the table holds LC_NAME_ENTRIES(4) = 64 names: 63 more fit beside "sink", then it is full */
	for (uint32_t i = 0; i < LC_NAME_ENTRIES(4) - 1; i++) {
		snprintf(name, sizeof name, "n%u", i);
		cr_assert_eq(lc_nic_name_set(lct_nic[1], name, i, &holder), 0, "entry %u", i);
	}
	cr_assert_eq(lc_nic_name_set(lct_nic[1], "one-too-many", 0, &holder), LC_ERR_AGAIN);
	cr_assert_eq(lc_nic_name_del(lct_nic[1], "n7", &holder), 0);
	cr_assert_eq(lc_nic_name_set(lct_nic[1], "one-too-many", 0, &holder), 0);
	cr_assert_eq(lc_nic_name_get(lct_nic[1], "n62", &node, &port), 0);
	cr_assert_eq(port, 62);
}

/* A process killed while it holds the table's mutex does not wedge the table (robust mutex). */
Test(seg, name_table_survives_a_holder_killed_inside)
{
	struct lc_nic_geom g = lct_geom((struct lct_shape){ .nodes = 2 });
	uint32_t holder = 0, node = 9;
	int status;

	lct_create(&g, "namelock");
	lct_attach(&g, 0);
	cr_assert_eq(lc_nic_name_set(lct_nic[0], "before", 1, &holder), 0);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct lc_seg_names *t =
			(struct lc_seg_names *)(void *)((uint8_t *)lct_nic[0]->hdr + lct_nic[0]->hdr->off_names);
		pthread_mutex_lock(&t->lock);
		_exit(0);       /* dies holding it */
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(lc_nic_name_get(lct_nic[0], "before", &node, NULL), 0);
	cr_assert_eq(node, 0);
	cr_assert_eq(lc_nic_name_set(lct_nic[0], "after", 2, &holder), 0);
}
