/* SPDX-License-Identifier: MIT */
/* The hot functions of the pipeline: one frame out (lc_tx_frame), one frame in (lc_rx_frame). */

/*
 * Only these functions live here so that the zero-cost proof can compare
 * their machine code with a build where every LC_PC() is compiled out
 * (-DLC_ZEROCOST_REFERENCE=1).  They hold every per-frame host pointcut:
 * send_frame, after_send, recv_frame, deliver_msg.  No loop that waits, no
 * system call, no allocation, no clock read.  lc_rx_replay is the data part
 * of lc_rx_frame again, for a frame held behind a first frame parked at the
 * unexpected budget (and that first frame itself).
 */
#include <string.h>

#include "lc_pc.h"
#include "node.h"

int lc_tx_frame(struct lc_node *node, struct lc_req *r)
{
	struct lc_sreq *s = &r->s;
	uint8_t *slot = lc_nic_tx_slot(node->nic);
	uint32_t off = s->off;
	uint32_t len = s->len - off;
	const uint8_t *payload = s->buf + off;
	lc_verdict v;

	if (!slot) {
		LC_STAT_ADD(node, tx_ring_full, 1);
		return LC_ERR_AGAIN;
	}
#if LC_PC_FRAME_SIZES
	/* the message's frame size (lc_proto.h): 0 and anything beyond LC_MTU wrap to LC_MTU */
	uint32_t mtu = s->frame - 1u < (uint32_t)LC_MTU ? s->frame : (uint32_t)LC_MTU;
#else
	const uint32_t mtu = LC_MTU;
#endif

	if (len > mtu)
		len = mtu;
#if LC_PC_USED_send_frame || LC_PC_USED_after_send
	/*
	 * the protocols see (and send_frame may change) the header on the stack:
	 * after_send must see it as it was posted, and the NIC may rewrite the
	 * slot's copy meanwhile (a NIC replicating a group frame sets each
	 * replica's dst there, nic/mcast.c; with the header in the slot for every
	 * config, the group tests of the NIC-replicating configs failed)
	 */
	struct lc_frame_hdr hdr_copy, *hdr = &hdr_copy;
#else
	/*
	 * no protocol looks at the header: it is written straight into the Send
	 * Ring slot.  Built on the stack and copied, its 16-byte loads could not
	 * be forwarded from the field-wide stores that filled it.
	 */
	struct lc_frame_hdr *hdr = (struct lc_frame_hdr *)slot;
#endif
	lc_hdr_fill(hdr, node->rank, s, off, len);
#if LC_PC_TX_CRC
	node->tx_ask = 0;       /* a send_frame hook may ask the Tx DMA for the CRC (lc_proto_tx_crc_ask) */
#endif
#if LC_PC_HOLDS_SENDS
	node->tx_sreq = s;      /* whether the send may be held (lc_proto_sreq_holdable), which (_hold) */
#endif
	v = LC_PC(send_frame, node, hdr, payload);
	if (v == LC_CONTINUE) {
#if LC_PC_USED_send_frame || LC_PC_USED_after_send
		memcpy(slot, hdr, sizeof(*hdr));
#endif
		if (len <= LC_PIO_THRESHOLD) {
			lc_copy(slot + sizeof(*hdr), payload, len);
#if !LC_NIC_MCP_THREAD
			/*
			 * inline MCP: the doorbell, then the doorbell service and Net-Send move
			 * the frame now, before the protocols' after_send bookkeeping (a kept
			 * copy for retransmission, a timer), which is then off the path of the
			 * message
			 */
			lc_nic_tx_post_pio_step(node->nic);
#else
			lc_nic_tx_post_pio(node->nic);
#endif
			lc_count_pio(node, len);
		} else {
#if LC_PC_TX_CRC
			if (node->tx_ask)
				s->ticket = lc_nic_tx_post_dma_crc(node->nic, payload, len, node->tx_ask - 1u,
								   node->tx_ask_seed);
			else
#endif
				s->ticket = lc_nic_tx_post_dma(node->nic, payload, len);
			s->dma = 1;
			lc_count_dma(node, len);
		}
		LC_PC(after_send, node, hdr, payload);
	} else if (v == LC_RETRY) {
		r->held = 1;
		return LC_ERR_AGAIN;
	}
	s->off = off + len;
	if (s->off == s->len)
		s->posted = 1;
	return 1;
}

/*
 * The data part of a frame that recv_frame accepted: sequence, assembly,
 * deliver_msg.  off is the frame's offset (0 on a first frame, whose `off`
 * field holds match_lo), len its payload bytes, checked <= LC_MTU by the
 * caller (passed, not read again from the frame).  1 taken, 0 dropped, 2 parked (lc_rx_nomsg).
 */
__attribute__((always_inline)) static inline int lc_rx_data(struct lc_node *node,
							     struct lc_frame_hdr *hdr,
							     uint8_t *payload, uint32_t off,
							     uint32_t len)
{
	struct lc_rx_src *rs;
	struct lc_rmsg *m;
	lc_verdict v;

	rs = &node->rx[hdr->src];
	if (rs->held)
		return lc_rx_hold(node, hdr);   /* behind its source's parked first frame */
	if (hdr->flags & LC_FF_FIRST) {
		/* a message from src starts: an older one still in assembly lost its tail */
#if LC_PC_ANNOUNCE
		/* an announce carries its sender's seq and nothing else (lc_proto_send_announce) */
		if ((hdr->flags & LC_FF_ANNOUNCE) && len != LC_ANNOUNCE_BYTES)
			goto bad;
#endif
		/* resynchronisation rule, and frames delivered exactly once: node.h, LC_RX_SEQ_SLACK */
		if (!LC_PC_EXACTLY_ONCE_FRAME(hdr)) {
			if ((int32_t)(hdr->seq - rs->expect) < 0 ||
			    (rs->cur && (hdr->seq == rs->cur->seq || LC_RX_CUR_ONCE(rs))))
				goto bad;
			if (hdr->seq - rs->expect >= LC_RX_SEQ_SLACK &&
			    hdr->seq - rs->cand - 1 >= LC_RX_SEQ_SLACK) {
				rs->cand = hdr->seq;
				goto bad;
			}
		}
		if (rs->cur) {
			lc_rx_abort(node, rs->cur);
			rs->cur = NULL;
		}
		m = lc_rx_begin(node, hdr);
		if (!m) {
			rs->expect = hdr->seq;
			return lc_rx_nomsg(node, hdr);   /* parked at the budget, or no memory */
		}
#if LC_PC_ANNOUNCE
		if (hdr->flags & LC_FF_ANNOUNCE) {
			rs->expect = hdr->seq;
			rs->cur = m;
			LC_RX_CUR_ONCE_SET(rs, hdr);
			return lc_rx_announced(node, hdr, m);
		}
#endif
		/*
		 * frames of it follow: it is src's message in assembly.  A message of one
		 * frame (every small one) never is: no assembly state written and read
		 * back, and its source's next seq written once (below)
		 */
		if (len != m->len) {
			rs->expect = hdr->seq;
			rs->cur = m;
			LC_RX_CUR_ONCE_SET(rs, hdr);
		}
	} else {
		m = rs->cur;
		if (!m || hdr->seq != m->seq || off != rs->off || hdr->msg_len != m->len ||
		    (LC_RX_CUR_ONCE(rs) && !LC_PC_EXACTLY_ONCE_FRAME(hdr)))
			goto bad;
	}
	if (off < m->cap) {
		lc_copy(m->data + off, payload, m->cap - off < len ? m->cap - off : len);
		LC_STAT_ADD(node, host_copy_bytes, m->cap - off < len ? m->cap - off : len);
	}
	m->got += len;
	LC_STAT_ADD(node, rx_bytes, len);
	if (off + len == m->len) {
		rs->cur = NULL;
		rs->expect = m->seq + 1;
		v = LC_PC(deliver_msg, node, m);
		lc_rx_complete(node, m, v);
	} else {
		rs->off = off + len;
	}
	return 1;
bad:
	LC_STAT_ADD(node, rx_drops_bad, 1);
	return 0;
}

int lc_rx_frame(struct lc_node *node, struct lc_frame_hdr *hdr)
{
	uint8_t *payload = (uint8_t *)hdr + sizeof(*hdr);
	/* a first frame's off field is match_lo: its offset is 0 */
	uint32_t off = (hdr->flags & LC_FF_FIRST) ? 0 : hdr->off, len = hdr->len;
	lc_verdict v;

	LC_STAT_ADD(node, rx_frames, 1);
	/*
	 * an RDMA frame's payload is where the NIC placed it (only its header is in
	 * staging); one it refused is in staging whole (LC_FF_REFUSED)
	 */
	if (__builtin_expect(hdr->type == LC_FT_RDMA, 0) && !(hdr->flags & LC_FF_REFUSED) &&
	    !(payload = lc_nic_rdma_payload(node->nic, hdr)))
		goto bad;
	if (hdr->magic != LC_FRAME_MAGIC || hdr->dst != node->rank || hdr->src >= node->size ||
	    len > LC_MTU || (uint64_t)off + len > hdr->msg_len)
		goto bad;
	v = LC_PC(recv_frame, node, hdr, payload);
	if (v != LC_CONTINUE) {
		if (v == LC_DROP)
			LC_STAT_ADD(node, rx_drops_proto, 1);
		return 0;
	}
	if (hdr->type != LC_FT_DATA)
		return lc_rx_ctrl(node, hdr, payload);   /* the framework's own, or dropped */
	return lc_rx_data(node, hdr, payload, off, len);
bad:
	LC_STAT_ADD(node, rx_drops_bad, 1);
	return 0;
}

int lc_rx_replay(struct lc_node *node, struct lc_frame_hdr *hdr)
{
	/* its len and offset were checked when it arrived (lc_rx_frame) */
	return lc_rx_data(node, hdr, (uint8_t *)hdr + sizeof(*hdr),
			  (hdr->flags & LC_FF_FIRST) ? 0 : hdr->off,
			  hdr->len <= LC_MTU ? hdr->len : LC_MTU);
}
