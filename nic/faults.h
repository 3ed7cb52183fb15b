/* SPDX-License-Identifier: MIT */
/* The fault injector of the emulated network: drop, corrupt, duplicate, reorder, delay; seeded. */
#ifndef LC_FAULTS_H
#define LC_FAULTS_H

/*
 * A run's faults are set once per job segment (struct lc_fault_cfg in the
 * segment header): by `commrun --faults SPEC`, or by LC_FAULTS=SPEC in the
 * environment of whoever creates the segment (lc_seg_create reads it).
 * SPEC is a comma list of key=value:
 *   drop=P  corrupt=P  dup=P  reorder=P   probabilities per frame, 0 <= P <= 1
 *   ber=B                                 bit error rate, 0 <= B <= 1: a frame of n
 *                                         bytes is also damaged with probability
 *                                         1 - (1 - B)^(8 n) (counted as corrupt), so
 *                                         longer frames are damaged more often
 *   delay_us=N                            each frame waits uniform 0..N us
 *   seed=S                                PRNG seed (default 1)
 * e.g. "drop=0.05,corrupt=0.01,dup=0.01,reorder=0.02,delay_us=50,seed=7".
 *
 * Faults are drawn by the SENDING NIC's MCP, per link (src, dst) -- a
 * group frame copy made by the NIC included (lc_net_put) -- from a
 * xoshiro256** generator seeded with splitmix64(seed, src, dst).  Every frame
 * that reaches the link draws the same five numbers whatever happens to it,
 * so a given frame sequence on a link sees the same faults for a seed.
 *   drop     the frame vanishes before the copy;
 *   corrupt  1..3 random bits of header+payload are flipped in the remote
 *            Receive Ring AFTER the copy (the receiver sees damaged frames);
 *   dup      the frame is copied twice into the remote Receive Ring (it
 *            waits for room for both copies);
 *   reorder  the frame is held back in the sending NIC and delivered right
 *            after the next frame of the link, or alone after
 *            LC_FAULT_HOLD_NS when no next frame comes, or alone in the
 *            place of the next frame when that one is held back in turn;
 *   delay    the head of the Send Ring waits 0..delay_us before it goes
 *            (link order kept: later frames wait behind it).
 * Each injected fault is counted per link in the sender's node area of the
 * segment (commrun --stats prints them).  With no fault set the MCP pays one
 * predictable branch per frame.
 */
#include <stddef.h>
#include <stdint.h>

struct lc_nic;
struct lc_frame_hdr;

/* Columns: name, one line of meaning.  The counters per link, in this order. */
#define LC_FAULT_LIST(X)                                                     \
	X(drop,    "frames dropped on the link")                             \
	X(corrupt, "frames with 1..3 bits flipped after the copy")          \
	X(dup,     "frames delivered twice")                                 \
	X(reorder, "frames held back and delivered after a later one")      \
	X(delay,   "frames delayed before injection")

enum lc_fault {
#define LC_X_ENUM(name, ...) LC_FAULT_##name,
	LC_FAULT_LIST(LC_X_ENUM)
#undef LC_X_ENUM
	LC_FAULT_COUNT
};

/* How long a reordered frame waits for the next frame of its link. */
#define LC_FAULT_HOLD_NS 100000u

/* A run's fault configuration, as stored in the segment header. */
struct lc_fault_cfg {
	uint32_t on;                /* any fault set */
	uint32_t delay_us;
	uint64_t seed;
	/* probability * 2^32, saturated at 2^32 (certain); by enum lc_fault except delay */
	uint64_t p32[LC_FAULT_COUNT];
	double ber;                 /* bit error rate (ber=): damage that grows with the frame's length */
};

/* Parse SPEC (see above) into *cfg.  0, or LC_ERR_INVAL with a message in err. */
int lc_faults_parse(const char *spec, struct lc_fault_cfg *cfg, char *err, size_t errlen);
/* The name of fault f, or NULL. */
const char *lc_fault_name(int f);
/* Store cfg in the header of job segment name (before the nodes attach).  0 or negative lc_err. */
int lc_seg_set_faults(const char *name, const struct lc_fault_cfg *cfg);
/*
 * Read the fault counters of node's links: out[dst * LC_FAULT_COUNT + f], for
 * nodes destinations (the segment's job size; *nodes is set).  0 or negative lc_err.
 */
int lc_seg_read_faults(const char *name, uint32_t node, uint64_t *out, size_t cap, uint32_t *nodes);

/* ---- inside nic/ (called by the MCP of the sending NIC) ---- */

/* Set up the injector's private state at attach.  0 or LC_ERR_NOMEM. */
int lc_faults_attach(struct lc_nic *nic);
void lc_faults_detach(struct lc_nic *nic);
/*
 * lc_net_put (Net-Send's frame and each group frame copy), before the copy of
 * the frame at the Send Ring's tail (*frame, *bytes) to dst; the decision is
 * drawn per link:
 *   -1 not yet (delayed): try again on a later step;
 *    0 the frame is gone (dropped or held back): retire the slot;
 *   n >= 1 copy *frame (*bytes) with room for n frames at dst (2: the frame
 *      and its duplicate).  *frame may now be the link's held frame, which
 *      goes alone in the place of a frame that is held in its turn.
 */
int lc_faults_tx(struct lc_nic *nic, const struct lc_frame_hdr **frame, uint32_t dst, uint32_t *bytes);
/*
 * lc_net_put, right after the frame (bytes at src) was copied into slot rh of
 * dst's Receive Ring, with the route held and room for `room` frames from rh
 * (at least what lc_faults_tx asked for): corrupt the copy, add a duplicate,
 * release a held frame if it fits (each added frame published in its slot,
 * lc_recv_publish_word).  Returns the frames now written from rh (>= 1): the
 * caller publishes slot rh's frame, then recv_head = rh + n.
 */
uint32_t lc_faults_wire(struct lc_nic *nic, uint32_t dst, const void *src, uint32_t bytes,
			uint32_t rh, uint32_t room);
/* MCP step: deliver held frames whose wait expired.  Returns the work done. */
int lc_faults_step(struct lc_nic *nic);

#endif /* LC_FAULTS_H */
