/* SPDX-License-Identifier: MIT */
/* nic_floor: the floor the NIC model itself sets -- a ping-pong over nic/ alone, no framework. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "geom.h"
#include "lc_config.h"
#include "lc_bench_pair.h"
#include "lc_copy.h"
#include "lc_ex_pattern.h"
#include "lc_frame_hdr.h"
#include "nic.h"

/*
 * Usage: nic_floor [--bind core|none] [--rate] [-s min:max] [-i iters] [-w warmup] [--window W]
 *        (pingpong's options and output; --bind as shm_pingpong's; --rate: msgrate's)
 *
 * The parent (node 0) and a forked child (node 1) attach to one job segment of
 * the configuration this program is linked with (its geometry: lc_geom_from_config)
 * and exchange one frame per message through the emulated NIC exactly as the
 * framework's path does: the host fills a Send Ring slot (header, then the payload
 * by PIO up to the PIO threshold, else a Tx DMA request for it) and rings the
 * doorbell; its inline MCP runs the doorbell service and Net-Send
 * (lc_nic_tx_post_pio_step or lc_nic_step_send_held, as a send of the framework
 * does), which copies the frame into the peer's Receive Ring; the peer's waiting
 * host steps its MCP (lc_nic_step_held, as the framework's progress does) until
 * Net-Recv and the Rx DMA engine have put the frame into host staging, copies the
 * payload out and releases the slot.  A message above the MTU goes in frames of the MTU, as the framework
 * fragments it.  Nothing else runs: no request, no matching, no queues, no protocol.
 * What libcomm adds above this program is the framework's host path; what this
 * program adds above shm_pingpong is the model's mandated work (the Send Ring, the
 * doorbell, the wire copy, the Rx DMA into staging).  Waiting busy-polls, as shm_pingpong does.
 */

#define LC_FLOOR_WAIT_US 30e6   /* a peer silent this long has failed */

/* Step until the NIC has a Send Ring slot; NULL after the limit. */
static struct lc_frame_hdr *lc_floor_slot(struct lc_nic *nic)
{
	struct lc_frame_hdr *h;
	double t0 = 0;

	while (!(h = lc_nic_tx_slot(nic))) {
		lc_nic_step_held(nic);
		if (!t0)
			t0 = lc_ex_now_us();
		else if (lc_ex_now_us() - t0 > LC_FLOOR_WAIT_US)
			return NULL;
	}
	return h;
}

/*
 * One message of len bytes from buf to dst, in frames of at most the MTU (the
 * framework's fragmentation: first and last flags, each frame's offset).  0, or -1
 * when the NIC had no room for the limit.
 */
static int lc_floor_send(struct lc_nic *nic, uint32_t dst, uint32_t seq, const void *buf, uint32_t len,
			 uint32_t mtu)
{
	uint32_t off = 0;

	do {
		struct lc_frame_hdr *h = lc_floor_slot(nic);
		uint32_t n = len - off < mtu ? len - off : mtu;

		if (!h)
			return -1;
		memset(h, 0, sizeof(*h));
		h->magic = LC_FRAME_MAGIC;
		h->type = LC_FT_DATA;
		h->flags = (uint8_t)((off == 0 ? LC_FF_FIRST : 0) | (off + n == len ? LC_FF_LAST : 0));
		h->src = (uint16_t)lc_nic_node(nic);
		h->dst = (uint16_t)dst;
		h->len = n;
		h->msg_len = len;
		h->seq = seq;
		h->off = off;
		if (n > LC_PIO_THRESHOLD) {
			lc_nic_tx_post_dma(nic, (const uint8_t *)buf + off, n);
			lc_nic_step_send_held(nic);
		} else {
			lc_copy(h + 1, (const uint8_t *)buf + off, n);   /* the framework's copies (lc_copy.h) */
			lc_nic_tx_post_pio_step(nic);           /* the framework's call (hot.c) */
		}
		off += n;
	} while (off < len);
	return 0;
}

/*
 * Wait for message seq of len bytes from src, frame by frame, and copy each frame's
 * payload to its offset in buf.  0, or -1 (nothing within the limit, the peer died,
 * or not the frame expected).
 */
static int lc_floor_recv(struct lc_nic *nic, uint32_t src, uint32_t seq, void *buf, uint32_t len,
			 uint32_t mtu)
{
	uint32_t off = 0;

	do {
		struct lc_frame_hdr *h;
		uint32_t n = len - off < mtu ? len - off : mtu;
		double t0 = 0;

		for (unsigned polls = 0; !(h = lc_nic_rx_peek(nic)); ) {
			lc_nic_step_held(nic);
			if (++polls % 4096 == 0) {
				if (!t0)
					t0 = lc_ex_now_us();
				else if (lc_ex_now_us() - t0 > LC_FLOOR_WAIT_US || !lc_nic_peer_alive(nic, src)) {
					fprintf(stderr, "nic_floor: node %u: no frame of message %u (offset %u) "
							"from node %u\n", lc_nic_node(nic), seq, off, src);
					return -1;
				}
			}
		}
		if (h->src != src || h->seq != seq || h->len != n || h->off != off) {
			fprintf(stderr, "nic_floor: node %u: frame src %u seq %u len %u offset %u, "
					"expected %u %u %u %u\n", lc_nic_node(nic), h->src, h->seq, h->len,
				h->off, src, seq, n, off);
			return -1;
		}
		lc_copy((uint8_t *)buf + off, h + 1, n);
		lc_nic_rx_release(nic);
		off += n;
	} while (off < len);
	return 0;
}

/*
 * --rate: msgrate's windows at every size of o (me: this node).  0, or 1 after a failure.
 * The messages of a window are numbered on from *seq, as the ping-pong's.
 */
static int lc_floor_rate(const struct lc_ex_opts *o, struct lc_nic *nic, uint32_t me, uint32_t mtu,
			 uint32_t *seq, unsigned char *bufs, size_t slot)
{
	uint32_t peer = 1 - me;
	unsigned char ack = 0;

	for (size_t size = o->lo; size <= o->hi; size = lc_ex_sweep_next(size, o->lo, o->hi)) {
		double t0 = lc_ex_now_us();

		for (unsigned w = 0; w < o->warmup + o->iters; w++) {
			if (w == o->warmup)
				t0 = lc_ex_now_us();
			for (unsigned j = 0; j < o->window; j++) {
				unsigned char *b = bufs + j * slot;
				uint64_t seed = lc_ex_seed(size, (uint64_t)w * o->window + j);

				++*seq;
				if (me == 0) {
					lc_ex_fill(b, size, seed);
					if (lc_floor_send(nic, peer, *seq, b, (uint32_t)size, mtu))
						return 1;
				} else if (lc_floor_recv(nic, peer, *seq, b, (uint32_t)size, mtu)) {
					return 1;
				}
			}
			++*seq;
			if (me == 0) {
				if (lc_floor_recv(nic, peer, *seq, &ack, 1, mtu))
					return 1;
				continue;
			}
			for (unsigned j = 0; j < o->window; j++) {
				size_t at = lc_ex_check(bufs + j * slot, size,
							lc_ex_seed(size, (uint64_t)w * o->window + j));

				if (at != size) {
					fprintf(stderr, "nic_floor: node 1: size %zu window %u message %u: first bad "
							"byte at %zu\n", size, w, j, at);
					return 1;
				}
			}
			if (lc_floor_send(nic, peer, *seq, &ack, 1, mtu))
				return 1;
		}
		if (me == 0)
			lc_ex_row_rate(size, (double)o->iters * o->window, (lc_ex_now_us() - t0) / 1e6);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lc_ex_opts o = { .lo = 0, .hi = 4096, .iters = 1000, .warmup = 100, .window = 64 };
	int cpu[2] = { -1, -1 }, rate = 0;

	if (lc_bench_options(argc, argv, "nic_floor", "--rate", cpu, &rate, &o) != 0)
		return 2;

	struct lc_nic_geom g;
	char name[64], err[256] = "";

	if (lc_geom_from_config(&g, 2) != 0) {
		fprintf(stderr, "nic_floor: no geometry for 2 nodes\n");
		return 1;
	}
	snprintf(name, sizeof name, "/lc.floor.%ld", (long)getpid());
	int rc = lc_seg_create(name, &g, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "nic_floor: lc_seg_create %s: %d %s\n", name, rc, err);
		return 1;
	}
	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		fprintf(stderr, "nic_floor: fork: %s\n", strerror(errno));
		lc_seg_unlink(name);
		return 1;
	}
	uint32_t me = child == 0, peer = 1 - me;
	int bad = 0;

	lc_bench_bind("nic_floor", cpu[me]);
	struct lc_nic *nic = lc_nic_attach(name, me, &g, err, sizeof err, &rc);
	size_t slot = o.hi ? o.hi : 1;
	unsigned char *sbuf = malloc(slot * (rate ? o.window : 1)), *rbuf = malloc(slot);

	if (!nic || !sbuf || !rbuf) {
		fprintf(stderr, "nic_floor: node %u: attach: %d %s\n", me, rc, nic ? "out of memory" : err);
		if (me)
			_exit(1);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		lc_seg_unlink(name);
		return 1;
	}
	/* both attached once a first frame went each way: the name is no longer needed */
	uint32_t seq = 0;
	bad = me ? lc_floor_recv(nic, peer, seq, rbuf, 0, g.mtu) || lc_floor_send(nic, peer, seq, sbuf, 0, g.mtu)
		 : lc_floor_send(nic, peer, seq, sbuf, 0, g.mtu) || lc_floor_recv(nic, peer, seq, rbuf, 0, g.mtu);
	if (me == 0) {
		lc_seg_unlink(name);
		printf("# nic_floor (config %s: the NIC model alone, no framework; busy-polling; %s)\n",
		       LC_CONFIG_NAME, cpu[0] >= 0 ? "each on a core of its own" : "not bound");
		printf(rate ? "# window %u\n# Size  Bandwidth (MB/s)  Messages/s\n" : "# Size  Latency (us)\n",
		       o.window);
		fflush(stdout);
	}
	if (rate && !bad)
		bad = lc_floor_rate(&o, nic, me, g.mtu, &seq, sbuf, slot);
	for (size_t size = o.lo; size <= o.hi && !bad && !rate; size = lc_ex_sweep_next(size, o.lo, o.hi)) {
		struct lc_ex_lat l = lc_ex_lat(&o, size);
		uint32_t len = (uint32_t)size;

		for (unsigned it = 0; lc_ex_lat_more(&l, it); it++) {
			uint64_t seed = lc_ex_seed(size, it);

			seq++;
			if (me == 0) {
				lc_ex_fill(sbuf, size, seed);
				if (lc_floor_send(nic, peer, seq, sbuf, len, g.mtu) ||
				    lc_floor_recv(nic, peer, seq, rbuf, len, g.mtu)) {
					bad = 1;
					break;
				}
			} else if (lc_floor_recv(nic, peer, seq, rbuf, len, g.mtu)) {
				bad = 1;
				break;
			}
			size_t at = lc_ex_check(rbuf, size, seed);
			if (at != size) {
				fprintf(stderr, "nic_floor: node %u: payload mismatch: size %zu iteration %u: "
						"first bad byte at %zu\n", me, size, it, at);
				bad = 1;
				break;
			}
			if (me == 1 && lc_floor_send(nic, peer, seq, rbuf, len, g.mtu)) {
				bad = 1;
				break;
			}
		}
		if (me == 0 && !bad)
			lc_ex_row(size, (lc_ex_now_us() - l.t0) / (2.0 * l.timed));
	}
	/* the last frame leaves the NIC before it detaches (a DMA frame needs more steps) */
	for (double t0 = lc_ex_now_us(); !lc_nic_tx_idle(nic) && lc_ex_now_us() - t0 < LC_FLOOR_WAIT_US; )
		lc_nic_step_held(nic);
	lc_nic_detach(nic);
	free(sbuf);
	free(rbuf);
	return lc_bench_join(me, child, bad);
}
