/* SPDX-License-Identifier: MIT */
/*
 * The public face of registered memory and RDMA (comm.h): lc_mem_register,
 * lc_mem_deregister, lc_iput, lc_put, lc_iput_notify.
 *
 * A put is a send request (kind LC_REQ_SEND, s.put set) in the one send
 * queue, so it keeps its place among the node's messages; it skips send_msg
 * (it is no message: no sequence number of the receiver's order, no match)
 * and posts RDMA frames (LC_FT_RDMA | LC_FF_PUT, s.seq = the put's id in
 * match_hi, the region offset in off, the offset where the put ends in
 * msg_len) through send_frame / after_send like a protocol's RDMA frames,
 * so the protocols treat them as any frame.  The
 * target's NIC checks and places each; the target's host sees the header
 * (lc_rx_frame -> recv_frame -> lc_rx_ctrl -> lc_rx_put), counts the bytes
 * of the put, and at its last frame owes the writer an ack (id, bytes),
 * sent by lc_tx_acks like a synchronous-send ack (a framework control
 * frame).  The writer's request waits for that ack as a synchronous send
 * does (s.sync, synced, sync_wait) and completes with 0 (every byte
 * placed), LC_ERR_ACCESS (the target's NIC refused frames: its refusal
 * counter for this node moved) or LC_ERR_LOST.  A refused last frame brings
 * no ack: the refusal counter ends the wait (lc_put_check).
 *
 * lc_iput_notify: the put holds the head of the send queue until its ack
 * (lc_tx_put_push), then the same request becomes the notice -- a message
 * with the sequence number reserved when the put was made, so that it keeps
 * its place before the messages queued behind it.
 */
#include <stdint.h>
#include <string.h>

#include "node.h"

/* Stands in for a NULL buffer of 0 bytes (a put or notice of no bytes). */
static const uint8_t lc_put_empty[1];

int lc_mem_register(lc_node *node, void *addr, size_t len, unsigned rights, uint32_t *handle)
{
	int rc = lc_check(node, "lc_mem_register");

	if (rc)
		return rc;
	if (!addr || !handle || !len || len > UINT32_MAX)
		return lc_fail(LC_ERR_INVAL, "lc_mem_register: %s", !addr ? "addr is NULL" :
			       !handle ? "handle is NULL" : !len ? "len is 0" :
			       "len beyond 4 GiB - 1 (RDMA offsets are 32-bit)");
	if (rights & ~LC_MEM_REMOTE_WRITE)
		return lc_fail(LC_ERR_INVAL, "lc_mem_register: unknown rights 0x%x", rights);
	if ((rc = lc_lock_open(node, "lc_mem_register")))
		return rc;
	rc = lc_nic_reg(node->nic, addr, len, lc_nic_vi_tag(node->nic),
			(rights & LC_MEM_REMOTE_WRITE) ? LC_NIC_REG_WRITE : 0, handle);
	lc_unlock(node);
	if (rc == LC_ERR_AGAIN)
		return lc_fail(rc, "lc_mem_register: the NIC's registration table (%d entries, "
			       "nic.reg_entries) is full: deregister a region", LC_NIC_REG_ENTRIES);
	if (rc)
		return lc_fail(rc, "lc_mem_register: %zu bytes at %p: %s", len, addr, lc_strerror(rc));
	return 0;
}

int lc_mem_deregister(lc_node *node, uint32_t handle)
{
	uint32_t fence;
	int rc = lc_check(node, "lc_mem_deregister");

	if (rc)
		return rc;
	if ((rc = lc_lock_open(node, "lc_mem_deregister")))
		return rc;
	rc = lc_nic_dereg(node->nic, handle, &fence);
	/* the Rx DMA blocks of frames checked before the revocation: their bytes land first */
	while (!rc && !lc_nic_rdma_quiet(node->nic, fence))
		lc_progress_locked(node);
	lc_unlock(node);
	if (rc)
		return lc_fail(rc, "lc_mem_deregister: 0x%08x is not a handle registered here", handle);
	return 0;
}

/*
 * dst's NIC's refusals of this node's RDMA frames so far, of both kinds: a
 * put names a handle its user chose, so one of another generation (revoked,
 * registered again: LC_NIC_NACK_STALE) is as wrong as one that never was.
 * They tell a failed put's cause (LC_ERR_ACCESS, not LC_ERR_LOST); a
 * protocol that sends late copies of its own re-keyed transfers adds stale
 * refusals too, which can only turn a put that lost frames from
 * LC_ERR_LOST into LC_ERR_ACCESS.
 */
static uint32_t lc_put_refusals(const struct lc_node *node, uint32_t dst)
{
	return lc_nic_rdma_nacks(node->nic, dst, LC_NIC_NACK_REFUSED) +
	       lc_nic_rdma_nacks(node->nic, dst, LC_NIC_NACK_STALE);
}

/* lc_iput / lc_iput_notify: checks, then the request in the send queue (lock released). */
static int lc_iput_common(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf,
			  size_t len, int notify, uint64_t match, const void *note, size_t note_len,
			  lc_req **req, const char *fn)
{
	struct lc_req *r;
	int rc = lc_send_args(node, dst, req, fn);

	if (rc)
		return rc;
	if ((!buf && len) || (notify && !note && note_len))
		return lc_fail(LC_ERR_INVAL, "%s: %s is NULL with %zu bytes", fn,
			       !buf && len ? "buf" : "note", !buf && len ? len : note_len);
	if (len > UINT32_MAX || off > UINT32_MAX - len || note_len > LC_MAX_MSG)
		return lc_fail(LC_ERR_TOOBIG, "%s: offset %llu + %zu bytes beyond 4 GiB - 1 (RDMA "
			       "offsets are 32-bit)%s", fn, (unsigned long long)off, len,
			       note_len > LC_MAX_MSG ? ", or a notice beyond LC_MAX_MSG" : "");
	if ((rc = lc_lock_req_new(node, fn, &r)))
		return rc;
	r->kind = LC_REQ_SEND;
	r->s.put = 1;
	r->s.sync = LC_FF_SYNC;         /* complete at the ack, as a synchronous send */
	r->s.admitted = 1;              /* no send_msg: a put is no message */
	r->s.dst = (uint32_t)dst;
	if (!++node->put_next)
		++node->put_next;       /* its id: never 0, the target's "none yet" */
	r->s.seq = node->put_next;
	r->s.buf = len ? buf : lc_put_empty;
	r->s.len = (uint32_t)len;
	r->put_key = handle;
	r->put_base = (uint32_t)off;
	r->put_len = (uint32_t)len;
	r->put_refused = lc_put_refusals(node, (uint32_t)dst);
	if (notify) {
		r->put_note = 1;
		r->note_match = match;
		r->note = note_len ? note : lc_put_empty;
		r->note_len = (uint32_t)note_len;
		r->note_seq = node->tx_seq[dst]++;      /* its place among the messages to dst */
	}
	LC_STAT_ADD(node, puts, 1);
	lc_reqq_push(&node->sendq, r);
	if (node->sendq.head == r)
		lc_tx_push(node);
	lc_unlock(node);
	*req = r;
	return 0;
}

int lc_iput(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf, size_t len,
	    lc_req **req)
{
	return lc_iput_common(node, dst, handle, off, buf, len, 0, 0, NULL, 0, req, "lc_iput");
}

int lc_put(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf, size_t len)
{
	lc_req *r;
	int rc = lc_iput_common(node, dst, handle, off, buf, len, 0, 0, NULL, 0, &r, "lc_put");

	return rc ? rc : lc_wait(node, r, NULL);
}

int lc_iput_notify(lc_node *node, int dst, uint32_t handle, uint64_t off, const void *buf,
		   size_t len, uint64_t match, const void *note, size_t note_len, lc_req **req)
{
	return lc_iput_common(node, dst, handle, off, buf, len, 1, match, note, note_len, req,
			      "lc_iput_notify");
}

/* ---- the writer ---- */

/*
 * A framework control frame of put r (its end, its sequence skip) to its
 * target: 0 sent; otherwise not now, and r is held when a protocol held the
 * frame back (lc_send_fw's LC_ERR_BUSY) -- not stalled on the Send Ring.
 */
static int lc_put_send_fw(struct lc_node *node, struct lc_req *r, const void *payload, uint32_t len)
{
	int rc = lc_send_fw(node, r->s.dst, payload, len);

	if (rc == LC_ERR_BUSY)
		r->held = 1;
	return rc;
}

/* The next RDMA frame of put r, or its end (lc_tx_frame's contract: 1 posted, LC_ERR_AGAIN). */
static int lc_tx_put_frame(struct lc_node *node, struct lc_req *r)
{
	struct lc_sreq *s = &r->s;
	uint32_t n = s->len - s->off < LC_MTU ? s->len - s->off : LC_MTU;
	int rc;

	if (s->off == s->len && r->put_frames) {
		/* every RDMA frame is out: the end, which dst answers */
		struct {
			struct lc_fw_ctrl h;
			uint32_t id;
		} end = { { .kind = LC_FW_PUT_END, .count = 1 }, s->seq };

		if (lc_put_send_fw(node, r, &end, sizeof(end)))
			return LC_ERR_AGAIN;
		s->posted = 1;
		return 1;
	}
	rc = lc_tx_rdma(node, s->dst, r->put_key, r->put_base + s->off, r->put_base + s->len,
			s->buf + s->off, n, LC_FF_PUT | (s->off + n == s->len ? LC_FF_LAST : 0),
			s->seq, &s->ticket);
	if (rc == LC_ERR_BUSY)
		r->held = 1;    /* a protocol holds it back (e.g. no credit), not a full Send Ring */
	if (rc < 0)
		return LC_ERR_AGAIN;    /* arguments were checked at lc_iput: only "not now" is left */
	s->dma |= (uint8_t)rc;
	s->off += n;
	r->put_frames++;
	return 1;
}

int lc_tx_put_push(struct lc_node *node, struct lc_req *r, int *work)
{
	while (!r->s.posted) {
		if (lc_tx_put_frame(node, r) < 0)
			return 0;
		(*work)++;
		lc_tx_frame_moved(node, r);
	}
	if (r->put_note != 1) {
		lc_sendq_leave(node, r, r->err);        /* it waits for its ack out of the queue */
		return 1;
	}
	if (!r->synced)
		return 0;       /* hold the queue: the notice must follow the data */
	if (r->put_err) {
		/*
		 * no notice: its sequence number, reserved at the call, is given up at dst
		 * first, so that the messages after it do not look as if one was lost (a
		 * run of such gaps past LC_RX_SEQ_SLACK would cost a message)
		 */
		struct {
			struct lc_fw_ctrl h;
			uint32_t seq;
		} skip = { { .kind = LC_FW_SEQ_SKIP, .count = 1 }, r->note_seq };

		if (lc_put_send_fw(node, r, &skip, sizeof(skip)))
			return 0;       /* not now: at the next pass */
		/* the put leaves the queue with its error, as every send does */
		r->s.sync = 0;
		r->put_note = 0;
		lc_sendq_leave(node, r, r->put_err);
		return 1;
	}
	/* every byte is in place: the same request is the notice now, a message like any */
	r->s = (struct lc_sreq){ .match = r->note_match, .dst = r->s.dst, .seq = r->note_seq,
				 .buf = r->note, .len = r->note_len };
	r->put_note = 2;
	return 1;
}

void lc_put_acked(struct lc_node *node, uint32_t dst, uint32_t id, uint32_t bytes)
{
	for (uint32_t n = 0; n < LC_HOST_MAX_REQUESTS; n++) {
		struct lc_req *r = &node->pool[n];

		if (r->kind != LC_REQ_SEND || !r->s.put || r->synced || r->s.dst != dst ||
		    r->s.seq != id)
			continue;
		/* dst's NIC took every frame of it before the end: its refusals are counted */
		r->synced = 1;
		r->put_err = bytes == r->put_len ? 0 :
			     lc_put_refusals(node, dst) != r->put_refused ? LC_ERR_ACCESS : LC_ERR_LOST;
		if (r->sync_wait) {
			r->sync_wait = 0;
			lc_req_complete(r, r->put_err);
		}
		return;
	}
	/* a duplicate (a protocol below that resends): nothing waits for it */
}

/* ---- the target ---- */

int lc_rx_put(struct lc_node *node, const struct lc_frame_hdr *hdr)
{
	struct lc_put_rx *p = &node->put_rx[hdr->src];

	if (p->id != hdr->match_hi) {
		p->id = hdr->match_hi;  /* frames of one put arrive in order, then the next */
		p->bytes = 0;
	}
	p->bytes += hdr->len;
	LC_STAT_ADD(node, put_rx_bytes, hdr->len);
	return 1;
}

void lc_rx_put_end(struct lc_node *node, uint32_t src, uint32_t id)
{
	const struct lc_put_rx *p = &node->put_rx[src];

	/* none of its frames here (the id is another's): every one was refused or lost */
	lc_fw_ack(node, src, LC_FW_PUT_ACK, id, p->id == id ? p->bytes : 0);
}
