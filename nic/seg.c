/* SPDX-License-Identifier: MIT */
/* The job segment: one POSIX shm object holding every node's SRAM, staging, counters, and the network. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nic_impl.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static int is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

int lc_geom_check(const struct lc_nic_geom *g, char *err, size_t errlen)
{
	/* Columns: name, count (power of two), bytes per element, offset. */
#define LC_GEOM_BUFFERS(X)                                                \
	X("send ring", g->send_ring, g->slot_bytes, g->off_send_ring)      \
	X("recv ring", g->recv_ring, g->slot_bytes, g->off_recv_ring)      \
	X("tx dma", g->tx_dma, LC_NIC_DMA_BLOCK_BYTES, g->off_tx_dma)      \
	X("rx dma", g->rx_dma, LC_NIC_DMA_BLOCK_BYTES, g->off_rx_dma)
	uint64_t end;

	if (g->nodes < 1 || g->nodes > LC_MAX_NODES) {
		snprintf(err, errlen, "geometry: nodes %" PRIu32 " not in 1..%d", g->nodes, LC_MAX_NODES);
		return LC_ERR_CONFIG;
	}
	if (g->per_nic < 1 || g->per_nic > g->nodes) {
		snprintf(err, errlen, "geometry: per_nic %" PRIu32 " (endpoints per NIC) not in 1..%" PRIu32
			 " (the job's nodes)", g->per_nic, g->nodes);
		return LC_ERR_CONFIG;
	}
	if (g->hdr_bytes != sizeof(struct lc_frame_hdr)) {
		snprintf(err, errlen, "geometry: hdr_bytes %" PRIu32 " but this program's frame header is %zu bytes",
			 g->hdr_bytes, sizeof(struct lc_frame_hdr));
		return LC_ERR_CONFIG;
	}
	if (g->recv_word_bytes != LC_NIC_RECV_WORD_BYTES) {
		snprintf(err, errlen, "geometry: recv_word_bytes %" PRIu32 " but this program's is %d",
			 g->recv_word_bytes, LC_NIC_RECV_WORD_BYTES);
		return LC_ERR_CONFIG;
	}
	if (g->slot_bytes % LC_LINE != 0 || g->slot_bytes > LC_RECV_WIRE_MASK + 1u ||
	    (uint64_t)g->slot_bytes < (uint64_t)LC_NIC_RECV_WORD_BYTES + g->hdr_bytes + g->mtu) {
		snprintf(err, errlen, "geometry: slot_bytes %" PRIu32 " must be a multiple of 64 of at most %u "
			 "(the Receive Ring word's wire count) holding the Receive Ring's word %d + header %" PRIu32
			 " + mtu %" PRIu32, g->slot_bytes, LC_RECV_WIRE_MASK + 1u,
			 LC_NIC_RECV_WORD_BYTES, g->hdr_bytes, g->mtu);
		return LC_ERR_CONFIG;
	}
	if (g->off_ctrl % LC_LINE != 0 || (uint64_t)g->off_ctrl + sizeof(struct lc_nic_ctrl) > g->off_send_ring) {
		snprintf(err, errlen, "geometry: control block at %" PRIu32 " needs %zu bytes before the send ring at %"
			 PRIu32, g->off_ctrl, sizeof(struct lc_nic_ctrl), g->off_send_ring);
		return LC_ERR_CONFIG;
	}
	end = g->off_send_ring;
#define LC_X_CHECK(name, count, size, off)                                                  \
	if (!is_pow2(count) || (off) % LC_LINE != 0 || (off) < end ||                         \
	    (uint64_t)(off) + (uint64_t)(count) * (size) > g->sram_bytes) {                   \
		snprintf(err, errlen, "geometry: %s (%" PRIu32 " x %" PRIu32 " bytes at %" PRIu32   \
			 ") must be a power of two, 64-aligned, after the previous buffer and inside %" \
			 PRIu32 " bytes of SRAM", name, (uint32_t)(count), (uint32_t)(size),          \
			 (uint32_t)(off), g->sram_bytes);                                             \
		return LC_ERR_CONFIG;                                                                \
	}                                                                                          \
	end = (uint64_t)(off) + (uint64_t)(count) * (size);
	LC_GEOM_BUFFERS(LC_X_CHECK)
	/*
	 * The doorbell region (nic_impl.h, struct lc_nic_doorbell): whole pages, so
	 * that lc_nic_attach can map it without access for every other process.
	 */
	if (!is_pow2(g->tx_fifo) || g->off_tx_fifo % LC_PAGE != 0 || g->db_bytes % LC_PAGE != 0 ||
	    g->off_tx_fifo < end ||
	    (uint64_t)g->tx_fifo * LC_NIC_FIFO_ENTRY_BYTES + sizeof(struct lc_nic_doorbell) > g->db_bytes ||
	    (uint64_t)g->off_tx_fifo + g->db_bytes > g->sram_bytes) {
		snprintf(err, errlen, "geometry: doorbell region (%" PRIu32 " bytes at %" PRIu32 ", for a FIFO "
			 "of %" PRIu32 " entries) must be whole pages holding the FIFO, after the previous "
			 "buffer and inside %" PRIu32 " bytes of SRAM", g->db_bytes, g->off_tx_fifo,
			 g->tx_fifo, g->sram_bytes);
		return LC_ERR_CONFIG;
	}
	end = (uint64_t)g->off_tx_fifo + g->db_bytes;
	LC_X_CHECK("rx fifo", g->rx_fifo, LC_NIC_FIFO_ENTRY_BYTES, g->off_rx_fifo)
	/* the registration table (nic/rdma.c): any size up to the 16 bits a handle has for its entry */
	if (g->reg_entries > 0xffffu || g->off_reg % LC_LINE != 0 || g->off_reg < end ||
	    (uint64_t)g->off_reg + (uint64_t)g->reg_entries * LC_NIC_REG_ENTRY_BYTES > g->sram_bytes) {
		snprintf(err, errlen, "geometry: registration table (%" PRIu32 " x %d bytes at %" PRIu32
			 ") must hold at most 65535 entries, 64-aligned, after the Rx FIFO and inside %" PRIu32
			 " bytes of SRAM", g->reg_entries, LC_NIC_REG_ENTRY_BYTES, g->off_reg, g->sram_bytes);
		return LC_ERR_CONFIG;
	}
	end = (uint64_t)g->off_reg + (uint64_t)g->reg_entries * LC_NIC_REG_ENTRY_BYTES;
	/* the stamp tables of replicated frames (nic.h): optional, last, LC_NIC_STAMP_BYTES each */
	if (g->off_stamp) {
		LC_X_CHECK("stamp", g->send_ring, LC_NIC_STAMP_BYTES, g->off_stamp)
	}
#undef LC_X_CHECK
#undef LC_GEOM_BUFFERS
	if (!is_pow2(g->staging_slots) || g->staging_slots < 2) {
		snprintf(err, errlen, "geometry: staging_slots %" PRIu32 " must be a power of two >= 2",
			 g->staging_slots);
		return LC_ERR_CONFIG;
	}
	if (g->switch_ports < 2 || g->switch_ports > 256) {
		snprintf(err, errlen, "geometry: switch_ports %" PRIu32 " not in 2..256", g->switch_ports);
		return LC_ERR_CONFIG;
	}
	if (lc_net_switches(g) == 0) {
		snprintf(err, errlen, "geometry: %" PRIu32 " NICs do not fit a two-level network of %" PRIu32
			 "-port switches (at most %" PRIu32 ")", lc_geom_nics(g), g->switch_ports,
			 g->switch_ports * (g->switch_ports - 1));
		return LC_ERR_CONFIG;
	}
	if (g->groups > UINT16_MAX - LC_MAX_NODES) {
		snprintf(err, errlen, "geometry: groups %" PRIu32 " above %d (group ids share the 16-bit dst)",
			 g->groups, UINT16_MAX - LC_MAX_NODES);
		return LC_ERR_CONFIG;
	}
	if (g->backpressure_timeout_ns == 0) {
		snprintf(err, errlen, "geometry: backpressure_timeout_ns must be > 0");
		return LC_ERR_CONFIG;
	}
	return 0;
}

void lc_seg_layout(const struct lc_nic_geom *g, struct lc_seg_node_layout *nl,
		   uint64_t *off_nodes, uint64_t *off_net, uint64_t *total)
{
	uint64_t o = 0;

	nl->sram = o;
	o = align_up(o + g->sram_bytes, LC_LINE);
	nl->staging = o;
	o = align_up(o + (uint64_t)g->staging_slots * g->slot_bytes, LC_LINE);
	nl->nic_stats = o;
	o = align_up(o + sizeof(uint64_t) * LC_NIC_STAT_COUNT, LC_LINE);
	nl->host_stats = o;
	o = align_up(o + sizeof(uint64_t) * LC_HOST_STATS_MAX, LC_LINE);
	nl->dst_drops = o;
	o = align_up(o + sizeof(uint32_t) * g->nodes, LC_LINE);
	nl->fault_stats = o;
	o = align_up(o + sizeof(uint64_t) * LC_FAULT_COUNT * g->nodes, LC_LINE);
	nl->rdma_nacks = o;
	o = align_up(o + sizeof(uint32_t) * LC_NIC_NACK_KINDS * g->nodes, LC_LINE);
	nl->traffic = o;
	o = align_up(o + sizeof(uint64_t) * LC_TRAFFIC_COUNT * g->nodes, LC_LINE);
	nl->sizes = o;
	o = align_up(o + sizeof(uint64_t) * 2 * LC_SIZE_BUCKETS, LC_LINE);
	nl->tx_ready = o;
	o = align_up(o + g->send_ring, LC_LINE);
	nl->bytes = align_up(o, 4096);
	*off_nodes = align_up(sizeof(struct lc_seg_hdr), 4096);
	*off_net = *off_nodes + nl->bytes * g->nodes;
	/* the group table (nic/mcast.c) follows the ports; none when no protocol declares one */
	*total = *off_net + (uint64_t)lc_net_ports(g) * sizeof(struct lc_net_port) +
		 (uint64_t)g->groups * sizeof(struct lc_nic_group);
	/* then the name table (nic/names.c) */
	*total = lc_seg_names_off(*total) + sizeof(struct lc_seg_names) +
		 (uint64_t)LC_NAME_ENTRIES(g->nodes) * sizeof(struct lc_seg_name);
}

int lc_seg_create(const char *name, const struct lc_nic_geom *g, char *err, size_t errlen)
{
	struct lc_seg_node_layout nl;
	uint64_t off_nodes, off_net, total;
	struct lc_fault_cfg faults = { .seed = 1 };
	const char *fspec = getenv("LC_FAULTS");
	struct lc_seg_hdr *h;
	void *p;
	int fd, rc;

	if (!name || !g)
		return LC_ERR_INVAL;
	rc = lc_geom_check(g, err, errlen);
	if (rc)
		return rc;
	/* programs and tests that create their own segment honour LC_FAULTS too */
	if (fspec && *fspec && (rc = lc_faults_parse(fspec, &faults, err, errlen)) != 0)
		return rc;
	lc_seg_layout(g, &nl, &off_nodes, &off_net, &total);
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "shm_open(%s): %s", name, strerror(errno));
		return errno == EEXIST ? LC_ERR_BUSY : LC_ERR_SYS;
	}
	if (ftruncate(fd, (off_t)total) != 0) {
		snprintf(err, errlen, "ftruncate(%s, %" PRIu64 "): %s", name, total, strerror(errno));
		close(fd);
		shm_unlink(name);
		return LC_ERR_SYS;
	}
	p = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "mmap(%s): %s", name, strerror(errno));
		shm_unlink(name);
		return LC_ERR_SYS;
	}
	/* ftruncate zeroed everything: every ring index starts at 0, every node unused. */
	h = p;
	h->version = LC_SEG_LAYOUT_VERSION;
	h->hdr_bytes = sizeof(*h);
	h->fingerprint = g->fingerprint;
	h->geom = *g;
	h->geom.mcp_thread = 0;
	h->geom.pull = 0;
	h->total_bytes = total;
	h->off_nodes = off_nodes;
	h->node_bytes = nl.bytes;
	h->off_net = off_net;
	h->net_ports = lc_net_ports(g);
	h->net_switches = lc_net_switches(g);
	h->faults = faults;
	for (uint32_t i = 0; i < lc_geom_nics(g); i++)
		h->place[i] = (uint16_t)i;      /* no placement: NIC i in slot i */
	h->off_names = lc_seg_names_off(off_net + (uint64_t)lc_net_ports(g) * sizeof(struct lc_net_port) +
					(uint64_t)g->groups * sizeof(struct lc_nic_group));
	h->names = LC_NAME_ENTRIES(g->nodes);
	rc = lc_seg_names_init((struct lc_seg_names *)((uint8_t *)p + h->off_names), err, errlen);
	if (rc) {
		munmap(p, (size_t)total);
		shm_unlink(name);
		return rc;
	}
	/* release: pairs with the acquire of magic in lc_seg_map (header complete) */
	atomic_store_explicit(&h->magic, LC_SEG_MAGIC, memory_order_release);
	munmap(p, (size_t)total);
	return 0;
}

/* Map the whole object named name read-write; 0 or negative lc_err. */
static int map_raw(const char *name, uint8_t **base, size_t *bytes, char *err, size_t errlen)
{
	struct stat st;
	void *p;
	int fd;

	fd = shm_open(name, O_RDWR, 0);
	if (fd < 0) {
		snprintf(err, errlen, "job segment %s: %s", name, strerror(errno));
		return LC_ERR_SYS;
	}
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct lc_seg_hdr)) {
		snprintf(err, errlen, "job segment %s is too small to be a libcomm job segment", name);
		close(fd);
		return LC_ERR_CONFIG;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "mmap(%s): %s", name, strerror(errno));
		return LC_ERR_SYS;
	}
	*base = p;
	*bytes = (size_t)st.st_size;
	return 0;
}

/* Is the mapped object a finished segment of this layout version? */
static int check_magic(const char *name, const struct lc_seg_hdr *h, size_t bytes, char *err, size_t errlen)
{
	/* acquire: pairs with the release of magic in lc_seg_create */
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != LC_SEG_MAGIC) {
		snprintf(err, errlen, "job segment %s is not a libcomm job segment (bad magic)", name);
		return LC_ERR_CONFIG;
	}
	if (h->version != LC_SEG_LAYOUT_VERSION || h->hdr_bytes != sizeof(*h)) {
		snprintf(err, errlen, "job segment %s has layout version %" PRIu32 " (%" PRIu32
			 "-byte header), this program uses version %d (%zu bytes)", name, h->version,
			 h->hdr_bytes, LC_SEG_LAYOUT_VERSION, sizeof(*h));
		return LC_ERR_CONFIG;
	}
	if (h->total_bytes != bytes) {
		snprintf(err, errlen, "job segment %s is %zu bytes, its header says %" PRIu64, name, bytes,
			 h->total_bytes);
		return LC_ERR_CONFIG;
	}
	return 0;
}

/*
 * The header of the finished segment name, mapped read-write (the whole
 * object: *base, *bytes, for munmap) for the launcher to set what its nodes
 * read at attach (fork/exec orders the write before their reads) or to read
 * what they left.  0 or negative lc_err (nothing mapped).
 */
static int map_hdr(const char *name, uint8_t **base, size_t *bytes, struct lc_seg_hdr **h)
{
	char err[256];
	int rc = map_raw(name, base, bytes, err, sizeof(err));

	if (rc)
		return rc;
	*h = (struct lc_seg_hdr *)*base;
	rc = check_magic(name, *h, *bytes, err, sizeof(err));
	if (rc)
		munmap(*base, *bytes);
	return rc;
}

int lc_seg_map(const char *name, const struct lc_nic_geom *g, uint8_t **base, size_t *bytes,
	       char *err, size_t errlen)
{
	const struct lc_seg_hdr *h;
	int rc;

	rc = lc_geom_check(g, err, errlen);
	if (rc)
		return rc;
	rc = map_raw(name, base, bytes, err, errlen);
	if (rc)
		return rc;
	h = (const struct lc_seg_hdr *)*base;
	rc = check_magic(name, h, *bytes, err, errlen);
	if (rc)
		goto fail;
	if (h->fingerprint != g->fingerprint) {
		snprintf(err, errlen, "segment made for config fingerprint %016" PRIx64
			 ", this program is %016" PRIx64, h->fingerprint, g->fingerprint);
		rc = LC_ERR_CONFIG;
		goto fail;
	}
#define LC_X_CMP(type, f, value, layout, ...)                                                 \
	if ((layout) && (uint64_t)h->geom.f != (uint64_t)g->f) {                               \
		snprintf(err, errlen, "segment made for geometry " #f " = %" PRIu64                  \
			 ", this program has %" PRIu64, (uint64_t)h->geom.f, (uint64_t)g->f);        \
		rc = LC_ERR_CONFIG;                                                                 \
		goto fail;                                                                          \
	}
	LC_GEOM_LIST(LC_X_CMP)
#undef LC_X_CMP
	return 0;
fail:
	munmap(*base, *bytes);
	*base = NULL;
	return rc;
}

/* No padding: the segment header stores the struct, and memcmp-free comparison is per field. */
#define LC_X_SIZE(type, ...) + sizeof(type)
_Static_assert(sizeof(struct lc_nic_geom) == 0 LC_GEOM_LIST(LC_X_SIZE),
	       "struct lc_nic_geom has no padding between the fields of LC_GEOM_LIST");
#undef LC_X_SIZE

int lc_seg_node_stopped(const struct lc_nic *nic, uint32_t node)
{
	/* acquire (A12): pairs with the release in lc_seg_mark_stopped (R12) */
	return atomic_load_explicit(&nic->hdr->node[node].stopped, memory_order_acquire) != 0;
}

/* The launcher's mark on node: release-store v into the field at offset off of its entry. */
/*
 * Store v into the word at off of node's entry; with unless_exited, not over
 * LC_NODE_EXITED (compare and swap).  1 when the word changed from another
 * value, else 0.
 */
static int mark_node(const char *name, uint32_t node, size_t off, uint32_t v, int unless_exited)
{
	char err[256];
	uint8_t *base;
	size_t bytes;
	struct lc_seg_hdr *h;
	int changed = 0;

	if (!name || map_raw(name, &base, &bytes, err, sizeof(err)) != 0)
		return 0;
	h = (struct lc_seg_hdr *)base;
	if (check_magic(name, h, bytes, err, sizeof(err)) == 0 && node < h->geom.nodes) {
		_Atomic uint32_t *w = (_Atomic uint32_t *)(void *)((uint8_t *)&h->node[node] + off);
		uint32_t old = atomic_load_explicit(w, memory_order_relaxed);

		/* release (R10 for state, R12 for stopped): pairs with lc_seg_node_state / _stopped */
		while (old != v && !(unless_exited && old == LC_NODE_EXITED) &&
		       !atomic_compare_exchange_weak_explicit(w, &old, v, memory_order_release,
							      memory_order_relaxed))
			;
		changed = old != v && !(unless_exited && old == LC_NODE_EXITED);
	}
	munmap(base, bytes);
	return changed;
}

void lc_seg_mark_dead(const char *name, uint32_t node)
{
	mark_node(name, node, offsetof(struct lc_seg_node, state), LC_NODE_DEAD, 0);
}

int lc_seg_mark_gone(const char *name, uint32_t node)
{
	return mark_node(name, node, offsetof(struct lc_seg_node, state), LC_NODE_DEAD, 1);
}

void lc_seg_mark_stopped(const char *name, uint32_t node, int stopped)
{
	mark_node(name, node, offsetof(struct lc_seg_node, stopped), stopped ? 1u : 0u, 0);
}

/*
 * Map the segment name (for reading a node's counters from outside the job)
 * and find node's area in it: 0 with *base / *bytes to munmap, *h and the
 * node's layout *nl and *area; else an error and nothing mapped.
 */
static int map_node(const char *name, uint32_t node, uint8_t **base, size_t *bytes,
		    struct lc_seg_hdr **h, struct lc_seg_node_layout *nl, uint8_t **area)
{
	uint64_t off_nodes, off_net, total;
	char err[256];
	int rc = map_raw(name, base, bytes, err, sizeof(err));

	if (rc)
		return rc;
	*h = (struct lc_seg_hdr *)*base;
	rc = check_magic(name, *h, *bytes, err, sizeof(err));
	if (rc == 0 && node >= (*h)->geom.nodes)
		rc = LC_ERR_RANGE;
	if (rc) {
		munmap(*base, *bytes);
		return rc;
	}
	lc_seg_layout(&(*h)->geom, nl, &off_nodes, &off_net, &total);
	*area = *base + off_nodes + nl->bytes * node;
	return 0;
}

int lc_seg_read_stats(const char *name, uint32_t node, uint64_t nic[LC_NIC_STAT_COUNT],
		      uint64_t host[LC_HOST_STATS_MAX])
{
	struct lc_seg_node_layout nl;
	struct lc_seg_hdr *h;
	uint8_t *base, *area;
	size_t bytes;
	int rc;

	if (!name)
		return LC_ERR_INVAL;
	rc = map_node(name, node, &base, &bytes, &h, &nl, &area);
	if (rc)
		return rc;
	for (uint32_t i = 0; nic && i < LC_NIC_STAT_COUNT; i++)
		nic[i] = atomic_load_explicit((_Atomic uint64_t *)(area + nl.nic_stats) + i,
					      memory_order_relaxed);
	for (uint32_t i = 0; host && i < LC_HOST_STATS_MAX; i++)
		host[i] = atomic_load_explicit((_Atomic uint64_t *)(area + nl.host_stats) + i,
					       memory_order_relaxed);
	munmap(base, bytes);
	return 0;
}

/*
 * A table of node's area (rows of cols counters, at the layout field at offset
 * `field` of struct lc_seg_node_layout; rows 0: one per destination) into
 * out[rows * cols].  0, LC_ERR_RANGE (cap too small) or negative lc_err.
 */
static int read_table(const char *name, uint32_t node, size_t field, size_t rows, size_t cols,
		      uint64_t *out, size_t cap, uint32_t *nodes)
{
	struct lc_seg_node_layout nl;
	struct lc_seg_hdr *h;
	uint8_t *base, *area;
	size_t bytes;
	int rc;

	if (!name || !out || !nodes)
		return LC_ERR_INVAL;
	rc = map_node(name, node, &base, &bytes, &h, &nl, &area);
	if (rc)
		return rc;
	if (!rows)
		rows = h->geom.nodes;
	if (cap < rows * cols) {
		rc = LC_ERR_RANGE;
	} else {
		const _Atomic uint64_t *t;
		uint64_t off;

		memcpy(&off, (const uint8_t *)&nl + field, sizeof off);
		t = (const _Atomic uint64_t *)(area + off);
		*nodes = h->geom.nodes;
		for (size_t i = 0; i < rows * cols; i++)
			out[i] = atomic_load_explicit(&t[i], memory_order_relaxed);
	}
	munmap(base, bytes);
	return rc;
}

int lc_seg_read_traffic(const char *name, uint32_t node, uint64_t *out, size_t cap, uint32_t *nodes)
{
	return read_table(name, node, offsetof(struct lc_seg_node_layout, traffic), 0, LC_TRAFFIC_COUNT, out,
			  cap, nodes);
}

int lc_seg_read_sizes(const char *name, uint32_t node, uint64_t out[LC_SIZE_BUCKETS * 2])
{
	uint32_t nodes;

	return read_table(name, node, offsetof(struct lc_seg_node_layout, sizes), LC_SIZE_BUCKETS, 2, out,
			  LC_SIZE_BUCKETS * 2, &nodes);
}

int lc_seg_read_ports(const char *name, struct lc_nic_geom *g, struct lc_seg_port *out, uint32_t max,
		      uint32_t *n, uint16_t place[LC_MAX_NODES])
{
	const struct lc_net_port *p;
	struct lc_seg_hdr *h;
	uint8_t *base;
	size_t bytes;
	int rc;

	if (!name || !g || !out || !n)
		return LC_ERR_INVAL;
	if ((rc = map_hdr(name, &base, &bytes, &h)) != 0)
		return rc;
	if (h->off_net + (uint64_t)h->net_ports * sizeof(*p) > bytes) {
		munmap(base, bytes);
		return LC_ERR_CONFIG;
	}
	*g = h->geom;
	if (place)
		memcpy(place, h->place, sizeof(h->place));
	p = (const struct lc_net_port *)(base + h->off_net);
	*n = h->net_ports < max ? h->net_ports : max;
	for (uint32_t i = 0; i < *n; i++)
		out[i] = (struct lc_seg_port){
			.frames = atomic_load_explicit(&p[i].frames, memory_order_relaxed),
			.bytes = atomic_load_explicit(&p[i].bytes, memory_order_relaxed),
			.stalls = atomic_load_explicit(&p[i].stalls, memory_order_relaxed),
			.wait_ns = atomic_load_explicit(&p[i].wait_ns, memory_order_relaxed),
			.busy_ns = atomic_load_explicit(&p[i].busy_ns, memory_order_relaxed),
		};
	munmap(base, bytes);
	return 0;
}

int lc_seg_unlink(const char *name)
{
	if (!name)
		return LC_ERR_INVAL;
	return shm_unlink(name) == 0 ? 0 : LC_ERR_SYS;
}

int lc_seg_set_faults(const char *name, const struct lc_fault_cfg *cfg)
{
	struct lc_seg_hdr *h;
	uint8_t *base;
	size_t bytes;
	int rc;

	if (!name || !cfg)
		return LC_ERR_INVAL;
	if ((rc = map_hdr(name, &base, &bytes, &h)) != 0)
		return rc;
	h->faults = *cfg;
	munmap(base, bytes);
	return 0;
}

int lc_seg_set_place(const char *name, const uint16_t *place)
{
	struct lc_seg_hdr *h;
	uint8_t *base;
	size_t bytes;
	char err[256];
	int rc;

	if (!name || !place)
		return LC_ERR_INVAL;
	if ((rc = map_hdr(name, &base, &bytes, &h)) != 0)
		return rc;
	if ((rc = lc_net_place_check(&h->geom, place, err, sizeof err)) == 0)
		memcpy(h->place, place, lc_geom_nics(&h->geom) * sizeof(*place));
	munmap(base, bytes);
	return rc;
}

int lc_seg_record_traffic(const char *name)
{
	struct lc_seg_hdr *h;
	uint8_t *base;
	size_t bytes;
	int rc;

	if (!name)
		return LC_ERR_INVAL;
	if ((rc = map_hdr(name, &base, &bytes, &h)) != 0)
		return rc;
	h->traffic = 1;
	munmap(base, bytes);
	return 0;
}

int lc_seg_read_faults(const char *name, uint32_t node, uint64_t *out, size_t cap, uint32_t *nodes)
{
	return read_table(name, node, offsetof(struct lc_seg_node_layout, fault_stats), 0, LC_FAULT_COUNT, out,
			  cap, nodes);
}
