/* SPDX-License-Identifier: MIT */
/* A fake in-process NIC (nic/nic.h) for the framework's unit tests: a wire the test can read and feed. */
#ifndef LC_FAKE_NIC_H
#define LC_FAKE_NIC_H

/*
 * Posted frames land on an outbox ("the wire"); lc_nic_step() moves frames
 * addressed to this node into staging (loopback) and completes Tx DMA
 * blocks; frames to other nodes stay on the wire for the test to read.  The
 * test can also put any frame into staging, shrink the Send Ring, pause the
 * DMA engine, kill a peer or raise a drop counter.
 */
#include <stdint.h>

#include "comm.h"
#include "lc_frame_hdr.h"

#define LC_FAKE_FRAMES 1024

struct lc_fake_frame {
	struct lc_frame_hdr hdr;
	uint8_t payload[LC_MTU];
	int dma;                      /* 1: the payload came by a Tx DMA block */
};

/* Frames posted to other nodes, oldest first (count: lc_fake_wire_count). */
const struct lc_fake_frame *lc_fake_wire(uint32_t i);
uint32_t lc_fake_wire_count(void);
void lc_fake_wire_clear(void);
/* Put a frame into host staging as if it came from the network. */
void lc_fake_inject(const struct lc_frame_hdr *hdr, const void *payload);
/* Send Ring slots (1 .. LC_NIC_SEND_RING) before lc_nic_tx_slot returns NULL. */
void lc_fake_set_ring(uint32_t slots);
/* 0: the Tx DMA engine is paused (tickets do not complete). */
void lc_fake_set_dma(int running);
void lc_fake_set_alive(uint32_t peer, int alive);
/* 1: the launcher saw peer's process stop (lc_nic_peer_stopped). */
void lc_fake_set_stopped(uint32_t peer, int stopped);
/* 1: the MCP holds a frame at a full Receive Ring (lc_nic_tx_waiting). */
void lc_fake_set_waiting(int waiting);
void lc_fake_add_drops(uint32_t peer, uint32_t n);
/* 1 while the host holds src's data frames at src's NIC (lc_nic_rx_hold). */
int lc_fake_held(uint32_t src);
/* 1 after lc_nic_attach, 0 after lc_nic_detach. */
int lc_fake_attached(void);
/* The geometry's pull (nic.link_engine, LC_LINK_ENGINE) of the last attach, -1 before any. */
int lc_fake_geom_pull(void);
/* Register name -> (node, port) in the fake's name table as if node had (0 or LC_ERR_AGAIN). */
int lc_fake_name_put(uint32_t node, const char *name, uint32_t port);

/*
 * The suites' fixture: open this process as node 0 of a job of 4 over the
 * fake NIC (nodes 1..3 exist only as frames on the wire), and close it.
 * lc_fake_close marks the fake peers dead first: nothing stands behind them
 * to acknowledge, so a protocol's drain at close would otherwise wait for its
 * give-up time on every test.
 */
lc_node *lc_fake_open(void);
void lc_fake_close(lc_node *node);

#endif /* LC_FAKE_NIC_H */
