/* SPDX-License-Identifier: MIT */
/* A fake in-process NIC (nic/nic.h) for the framework's unit tests. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "lc_config.h"
#include "fake_nic.h"
#include "lc_crc32c.h"
#include "nic.h"

struct lc_nic {
	uint32_t node, nodes;
	uint8_t slot[LC_NIC_SLOT_BYTES];      /* the one Send Ring slot handed out */
	uint32_t ring;                        /* slots usable before "ring full" */
	uint32_t inring;                      /* frames posted, not yet stepped */
	struct lc_fake_frame *wire;           /* LC_FAKE_FRAMES, frames to other nodes */
	uint32_t nwire;
	struct lc_fake_frame *stage;          /* LC_FAKE_FRAMES, FIFO of staging */
	uint32_t shead, stail;
	struct lc_fake_frame *pend;           /* LC_FAKE_FRAMES, posted not yet stepped */
	uint32_t phead, ptail;
	uint32_t tickets, done;
	int dma_running;
	int alive[LC_MAX_NODES];
	int stopped[LC_MAX_NODES];
	int waiting;                          /* lc_nic_tx_waiting */
	_Atomic uint32_t drops[LC_MAX_NODES];
	int held[LC_MAX_NODES];               /* lc_nic_rx_hold */
	struct lc_fake_name {                 /* the name table: valid while its node is alive */
		int used;
		uint32_t node, port;
		char name[LC_NAME_MAX];
	} names[64];
	_Atomic uint64_t nic_stats[LC_NIC_STAT_COUNT];
	_Atomic uint64_t host_stats[LC_HOST_STATS_MAX];
};

static struct lc_nic *lc_fake;

const struct lc_fake_frame *lc_fake_wire(uint32_t i)
{
	return i < lc_fake->nwire ? &lc_fake->wire[i] : NULL;
}

uint32_t lc_fake_wire_count(void)
{
	return lc_fake ? lc_fake->nwire : 0;
}

void lc_fake_wire_clear(void)
{
	lc_fake->nwire = 0;
}

void lc_fake_inject(const struct lc_frame_hdr *hdr, const void *payload)
{
	struct lc_fake_frame *f = &lc_fake->stage[lc_fake->stail++ % LC_FAKE_FRAMES];

	f->hdr = *hdr;
	if (hdr->len <= LC_MTU && payload)
		memcpy(f->payload, payload, hdr->len);
}

void lc_fake_set_ring(uint32_t slots)
{
	lc_fake->ring = slots;
}

void lc_fake_set_dma(int running)
{
	lc_fake->dma_running = running;
}

void lc_fake_set_alive(uint32_t peer, int alive)
{
	lc_fake->alive[peer] = alive;
}

void lc_fake_set_stopped(uint32_t peer, int stopped)
{
	lc_fake->stopped[peer] = stopped;
}

void lc_fake_set_waiting(int waiting)
{
	lc_fake->waiting = waiting;
}

void lc_fake_add_drops(uint32_t peer, uint32_t n)
{
	lc_fake->drops[peer] += n;
}

int lc_fake_attached(void)
{
	return lc_fake != NULL;
}

static int lc_fake_pull = -1;

int lc_fake_geom_pull(void)
{
	return lc_fake_pull;
}

struct lc_nic *lc_nic_attach(const char *name, uint32_t node, const struct lc_nic_geom *g,
			     char *err, size_t errlen, int *rc)
{
	struct lc_nic *n;
	uint32_t i;

	if (strcmp(name, "fake") != 0 || g->fingerprint != LC_CONFIG_FINGERPRINT) {
		strncpy(err, "fake NIC: no such job", errlen - 1);
		err[errlen - 1] = 0;
		*rc = LC_ERR_CONFIG;
		return NULL;
	}
	lc_fake_pull = g->pull;
	n = calloc(1, sizeof(*n));
	n->wire = calloc(LC_FAKE_FRAMES, sizeof(*n->wire));
	n->stage = calloc(LC_FAKE_FRAMES, sizeof(*n->stage));
	n->pend = calloc(LC_FAKE_FRAMES, sizeof(*n->pend));
	n->node = node;
	n->nodes = g->nodes;
	n->ring = LC_NIC_SEND_RING;
	n->dma_running = 1;
	for (i = 0; i < g->nodes; i++)
		n->alive[i] = 1;
	lc_fake = n;
	return n;
}

void lc_nic_detach(struct lc_nic *nic)
{
	free(nic->wire);
	free(nic->stage);
	free(nic->pend);
	free(nic);
	lc_fake = NULL;
}

uint32_t lc_nic_node(const struct lc_nic *nic)
{
	return nic->node;
}

uint32_t lc_nic_nodes(const struct lc_nic *nic)
{
	return nic->nodes;
}

int lc_nic_peer_alive(const struct lc_nic *nic, uint32_t peer)
{
	return peer < nic->nodes && nic->alive[peer];
}

int lc_nic_peer_stopped(const struct lc_nic *nic, uint32_t peer)
{
	return peer < nic->nodes && nic->stopped[peer];
}

int lc_nic_peer_exited(const struct lc_nic *nic, uint32_t peer)
{
	/* the fake's peers never close: one marked dead crashed */
	(void)nic;
	(void)peer;
	return 0;
}

void lc_nic_rx_hold(struct lc_nic *nic, uint32_t src, int on)
{
	nic->held[src] = on;
}

int lc_fake_held(uint32_t src)
{
	return lc_fake && lc_fake->held[src];
}

/* The fake's name table: 64 entries, an entry counts while its node is this one or alive. */
static struct lc_fake_name *lc_fake_name_find(struct lc_nic *nic, const char *name)
{
	for (uint32_t i = 0; i < 64; i++) {
		struct lc_fake_name *e = &nic->names[i];
		if (e->used && (e->node == nic->node || nic->alive[e->node]) &&
		    strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

int lc_fake_name_put(uint32_t node, const char *name, uint32_t port)
{
	for (uint32_t i = 0; i < 64; i++) {
		struct lc_fake_name *e = &lc_fake->names[i];
		if (!e->used || (e->node != lc_fake->node && !lc_fake->alive[e->node])) {
			e->used = 1;
			e->node = node;
			e->port = port;
			strncpy(e->name, name, LC_NAME_MAX - 1);
			return 0;
		}
	}
	return LC_ERR_AGAIN;
}

int lc_nic_name_set(struct lc_nic *nic, const char *name, uint32_t port, uint32_t *holder)
{
	struct lc_fake_name *e = lc_fake_name_find(nic, name);

	if (e) {
		*holder = e->node;
		return LC_ERR_BUSY;
	}
	return lc_fake_name_put(nic->node, name, port);
}

int lc_nic_name_get(struct lc_nic *nic, const char *name, uint32_t *node, uint32_t *port)
{
	struct lc_fake_name *e = lc_fake_name_find(nic, name);

	if (!e)
		return LC_ERR_AGAIN;
	if (node)
		*node = e->node;
	if (port)
		*port = e->port;
	return 0;
}

int lc_nic_name_del(struct lc_nic *nic, const char *name, uint32_t *holder)
{
	struct lc_fake_name *e = lc_fake_name_find(nic, name);

	*holder = e ? e->node : UINT32_MAX;
	if (!e || e->node != nic->node)
		return LC_ERR_INVAL;
	e->used = 0;
	return 0;
}

void lc_nic_name_drop_all(struct lc_nic *nic)
{
	for (uint32_t i = 0; i < 64; i++)
		if (nic->names[i].node == nic->node)
			nic->names[i].used = 0;
}

uint32_t lc_nic_dst_drops(const struct lc_nic *nic, uint32_t peer)
{
	return nic->drops[peer];
}

const _Atomic uint32_t *lc_nic_dst_drop_counts(const struct lc_nic *nic)
{
	return nic->drops;
}

_Atomic uint64_t *lc_nic_stats(struct lc_nic *nic)
{
	return nic->nic_stats;
}

_Atomic uint64_t *lc_nic_host_stats(struct lc_nic *nic)
{
	return nic->host_stats;
}

void *lc_nic_tx_slot(struct lc_nic *nic)
{
	return nic->inring >= nic->ring ? NULL : nic->slot;
}

static struct lc_fake_frame *lc_fake_post(struct lc_nic *nic)
{
	struct lc_fake_frame *f = &nic->pend[nic->ptail++ % LC_FAKE_FRAMES];

	memcpy(&f->hdr, nic->slot, sizeof(f->hdr));
	nic->inring++;
	atomic_fetch_add_explicit(&nic->nic_stats[LC_NIC_STAT_doorbells], 1, memory_order_relaxed);
	return f;
}

void lc_nic_tx_post_pio(struct lc_nic *nic)
{
	struct lc_fake_frame *f = lc_fake_post(nic);

	memcpy(f->payload, nic->slot + sizeof(f->hdr), f->hdr.len);
	f->dma = 0;
}

uint32_t lc_nic_tx_post_dma(struct lc_nic *nic, const void *src, uint32_t len)
{
	struct lc_fake_frame *f = lc_fake_post(nic);

	/* the copy happens now, completion only on a step with the engine running */
	memcpy(f->payload, src, len);
	f->dma = 1;
	return ++nic->tickets;
}

uint32_t lc_nic_tx_post_dma_crc(struct lc_nic *nic, const void *src, uint32_t len, uint32_t owner,
				uint32_t seed)
{
	struct lc_fake_frame *f = lc_fake_post(nic);
	uint32_t crc = lc_crc32c_copy(seed, f->payload, src, len);

	/* as the real Tx DMA: the CRC into the header's owner field (nic.h) */
	if (owner <= sizeof(f->hdr) - sizeof(crc))
		memcpy((uint8_t *)&f->hdr + owner, &crc, sizeof(crc));
	f->dma = 1;
	return ++nic->tickets;
}

/*
 * With LC_NIC_MCP_THREAD the real MCP runs on its own thread and lc_progress
 * does not call lc_nic_step.  The fake has no thread: it steps itself
 * whenever the host looks at NIC state (Tx DMA completions, Send Ring idle,
 * staging), as a thread would have run between two host calls.  Posting
 * never steps, so a shrunken Send Ring still fills up.
 */
static void lc_fake_mcp(void)
{
#if LC_NIC_MCP_THREAD
	if (lc_fake)
		lc_nic_step(lc_fake);
#endif
}

uint32_t lc_nic_tx_dma_done(const struct lc_nic *nic)
{
	lc_fake_mcp();
	return nic->done;
}

uint32_t lc_nic_tx_left(const struct lc_nic *nic)
{
	return nic->ptail;
}

int lc_nic_tx_waiting(const struct lc_nic *nic)
{
	return nic->waiting;
}

void lc_nic_tx_describe(const struct lc_nic *nic, char *buf, size_t len)
{
	snprintf(buf, len, "fake NIC, %u frames posted, %u left", nic->phead, nic->ptail);
}

int lc_nic_tx_idle(const struct lc_nic *nic)
{
	lc_fake_mcp();
	return nic->phead == nic->ptail;
}

struct lc_frame_hdr *lc_nic_rx_peek(struct lc_nic *nic)
{
	lc_fake_mcp();
	if (nic->shead == nic->stail)
		return NULL;
	/* header then payload, as in staging */
	return &nic->stage[nic->shead % LC_FAKE_FRAMES].hdr;
}

void lc_nic_rx_release(struct lc_nic *nic)
{
	nic->shead++;
}

/* The fake NIC has no Rx DMA: it computes no CRC, the protocols compute their own. */
int lc_nic_rx_crc(const struct lc_nic *nic, const struct lc_frame_hdr *hdr, uint32_t owner, uint32_t *crc)
{
	(void)nic;
	(void)hdr;
	(void)owner;
	(void)crc;
	return 0;
}

int lc_nic_step(struct lc_nic *nic)
{
	int work = 0;

	if (nic->dma_running && nic->done != nic->tickets) {
		nic->done = nic->tickets;
		work++;
	}
	while (nic->phead != nic->ptail) {
		struct lc_fake_frame *f = &nic->pend[nic->phead % LC_FAKE_FRAMES];

		if (f->dma && !nic->dma_running)
			break;
		/* staging full: the frame waits (backpressure), never overwrites one not yet read */
		if (f->hdr.dst == nic->node && nic->stail - nic->shead >= LC_FAKE_FRAMES)
			break;
		if (f->hdr.dst == nic->node)
			lc_fake_inject(&f->hdr, f->payload);
		else if (nic->nwire < LC_FAKE_FRAMES)
			nic->wire[nic->nwire++] = *f;
		nic->phead++;
		nic->inring--;
		work++;
	}
	return work;
}

/* The framework's calls under its own lock: the same one step (the fake has no engines to split). */
int lc_nic_step_held(struct lc_nic *nic)
{
	return lc_nic_step(nic);
}

int lc_nic_step_send_held(struct lc_nic *nic)
{
	return lc_nic_step(nic);
}

int lc_nic_tx_post_pio_step(struct lc_nic *nic)
{
	lc_nic_tx_post_pio(nic);
	return lc_nic_step_send_held(nic);
}

/* The fake has no registration table: no RDMA frame's payload resolves. */
void *lc_nic_rdma_payload(const struct lc_nic *nic, const struct lc_frame_hdr *hdr)
{
	(void)nic;
	(void)hdr;
	return NULL;
}

uint32_t lc_nic_vi_tag(const struct lc_nic *nic)
{
	(void)nic;
	return 1;
}

int lc_nic_reg(struct lc_nic *nic, const void *addr, uint64_t len, uint32_t tag, uint32_t rights,
	       uint32_t *handle)
{
	(void)nic, (void)addr, (void)len, (void)tag, (void)rights, (void)handle;
	return LC_ERR_AGAIN;    /* a table of no entry */
}

int lc_nic_reg_rekey(struct lc_nic *nic, uint32_t *handle, uint32_t *fence)
{
	(void)nic, (void)handle, (void)fence;
	return LC_ERR_INVAL;
}

int lc_nic_dereg(struct lc_nic *nic, uint32_t handle, uint32_t *fence)
{
	(void)nic, (void)handle, (void)fence;
	return LC_ERR_INVAL;
}

int lc_nic_rdma_quiet(const struct lc_nic *nic, uint32_t fence)
{
	(void)nic, (void)fence;
	return 1;       /* no Rx DMA block is ever posted for a region */
}

uint32_t lc_nic_rdma_nacks(const struct lc_nic *nic, uint32_t dst, enum lc_nic_nack kind)
{
	(void)nic, (void)dst, (void)kind;
	return 0;
}

/* Thread mode's host-side step: nothing to add, the fake's "thread" already runs whenever the host looks. */
int lc_nic_assist(struct lc_nic *nic)
{
	(void)nic;
	return 0;
}

/* The fake NIC has no group table (protocols/multicast links against these). */
void *lc_nic_tx_stamp(struct lc_nic *nic)
{
	/* group frames are not replicated here: one table, overwritten by each group frame */
	static _Alignas(64) uint8_t table[LC_NIC_STAMP_BYTES ? LC_NIC_STAMP_BYTES : 1];

	(void)nic;
	return LC_NIC_STAMP_BYTES ? table : NULL;
}

uint32_t lc_nic_groups(const struct lc_nic *nic)
{
	(void)nic;
	return 0;
}

int lc_nic_group_create(struct lc_nic *nic, const uint32_t *members, uint32_t n, uint32_t *gid)
{
	(void)nic, (void)members, (void)n, (void)gid;
	return LC_ERR_AGAIN;
}

int lc_seg_group_create(const char *name, const struct lc_nic_geom *g, const uint32_t *members,
			uint32_t n, uint32_t *gid, char *err, size_t errlen)
{
	(void)name;
	(void)g;
	(void)members;
	(void)n;
	(void)gid;
	if (err && errlen)
		err[0] = '\0';
	return LC_ERR_RANGE;
}

int lc_nic_group_destroy(struct lc_nic *nic, uint32_t gid)
{
	(void)nic, (void)gid;
	return LC_ERR_RANGE;
}

int lc_nic_group_join(struct lc_nic *nic, uint32_t gid, uint32_t node)
{
	(void)nic, (void)gid, (void)node;
	return LC_ERR_RANGE;
}

int lc_nic_group_leave(struct lc_nic *nic, uint32_t gid, uint32_t node)
{
	(void)nic, (void)gid, (void)node;
	return LC_ERR_RANGE;
}

int lc_nic_group_members(const struct lc_nic *nic, uint32_t gid, uint64_t out[LC_NIC_GROUP_WORDS])
{
	(void)nic, (void)gid, (void)out;
	return LC_ERR_RANGE;
}

lc_node *lc_fake_open(void)
{
	lc_node *node = NULL;

	setenv("LC_JOB", "fake", 1);
	setenv("LC_NODE", "0", 1);
	setenv("LC_NODES", "4", 1);
	cr_assert_eq(lc_open(&node), 0, "%s", lc_last_error(NULL));
	return node;
}

void lc_fake_close(lc_node *node)
{
	for (uint32_t p = 1; lc_fake && p < lc_fake->nodes; p++)
		lc_fake->alive[p] = 0;
	lc_close(node);
}

/* The fake NIC has no network to change: lc_open calls this only under commrun --network. */
int lc_net_override(struct lc_nic_geom *g, const char *spec, char *err, size_t errlen)
{
	(void)g;
	snprintf(err, errlen, "the framework's unit tests run on a fake NIC without a network (%s)",
		 spec);
	return LC_ERR_CONFIG;
}
