/* SPDX-License-Identifier: MIT */
/* Connections: VipConnectWait/Accept/Reject/Request, VipDisconnect, the peer-to-peer calls, control messages. */
#include <stdio.h>
#include <string.h>

#include "vipl_impl.h"

/*
 * Connection set-up is control messages (match word kind CTRL, vipl_impl.h)
 * between the NICs, taken from any source by the dispatcher, which every
 * progress pass runs:
 *   - a server (VipConnectWait on address A = its host + discriminator D)
 *     registers the name "vipl:<node>:<hex D>" in the job's name service,
 *     so that clients know someone serves A; requests that arrive are held
 *     (any discriminator) until a VipConnectWait on theirs takes them;
 *   - a client (VipConnectRequest) waits up to its timeout for that name
 *     (nobody serves A: VIP_TIMEOUT), sends REQ (its VI, attributes,
 *     address, sequence number), and waits for ACCEPT or REJECT to its VI;
 *     when it gives up it sends CANCEL, and an ACCEPT that comes later is
 *     answered with DISC;
 *   - VipConnectAccept connects the server VI, advertises the regions RDMA
 *     may write, then sends ACCEPT with its VI's number and attributes (so
 *     the client has every advert before the accept); the client, connected,
 *     advertises its own before anything else it sends;
 *   - VipDisconnect sends DISC to the peer VI, which goes to the Error state
 *     (the program's error handler hears VIP_ERROR_CONN_LOST on reliable VIs);
 *   - peer to peer: each end sends PEER (its VI, its discriminator and the
 *     one it names); an end is connected once it holds the other's PEER
 *     naming its discriminator.
 */

/*
 * Send a control message (blocking: it is small).  The pool keeps requests
 * for it (LCVIPL_REQ_DATA); should another user of the node have taken
 * them, it waits for one, a second at most.
 */
int lcvipl_ctrl_send(int node, uint16_t to_vi, const struct lcvipl_ctrl *c)
{
	struct lcvipl_ctrl m = *c;
	m.to_vi = to_vi;
	uint64_t match = LCVIPL_CTRL_MATCH | ((uint64_t)to_vi << LCVIPL_VI_SHIFT) | m.type;
	double deadline = lcvipl_now_us() + 1e6;
	int rc;
	lcvipl_arm_due();       /* its wait steps: receives VipPostRecv left go first */
	while ((rc = lc_send_match(lcvipl_nic.node, node, match, &m, sizeof m)) == LC_ERR_AGAIN &&
	       !lcvipl_expired(deadline))
		lc_progress(lcvipl_nic.node);
	return rc;
}

void lcvipl_wire_attr(struct lcvipl_wire_attr *w, const VIP_VI_ATTRIBUTES *a, unsigned ptag)
{
	w->reliability = a->ReliabilityLevel;
	w->rdma_write = a->EnableRdmaWrite != VIP_FALSE;
	w->ptag = ptag;
	w->mtu = a->MaxTransferSize;
}

void lcvipl_unwire_attr(VIP_VI_ATTRIBUTES *a, const struct lcvipl_wire_attr *w)
{
	memset(a, 0, sizeof *a);
	a->ReliabilityLevel = w->reliability;
	a->MaxTransferSize = (VIP_ULONG)w->mtu;
	a->EnableRdmaWrite = w->rdma_write ? VIP_TRUE : VIP_FALSE;
	a->EnableRdmaRead = VIP_FALSE;
}

void lcvipl_connected(struct lcvipl_vi *vi, int node, uint16_t peer_vi, const struct lcvipl_wire_attr *w)
{
	vi->state = VIP_STATE_CONNECTED;
	vi->peer_pending = false;
	vi->peer_node = node;
	vi->peer_vi = peer_vi;
	vi->peer_ptag = w->ptag;
	lcvipl_unwire_attr(&vi->peer_attr, w);
	lcvipl_advertise_all(node);
	lcvipl_arm_recvs(vi);
}

static struct lcvipl_vi *lcvipl_vi_num(uint16_t num)
{
	struct lcvipl_vi *vi = lcvipl_nic.vis[LCVIPL_VI_SLOT(num)];
	return vi != NULL && vi->num == num ? vi : NULL;
}

/* Hold a REQ or PEER message. */
static void lcvipl_hold(int src, const struct lcvipl_ctrl *c)
{
	for (unsigned k = 0; k < LCVIPL_MAX_CONN; k++) {
		struct lcvipl_conn *h = &lcvipl_nic.conns[k];
		if (h->live)
			continue;
		uint16_t gen = (uint16_t)(h->gen + 1 ? h->gen + 1 : 1);
		*h = (struct lcvipl_conn){ .live = true, .peer = c->type == LCVIPL_CTRL_PEER, .gen = gen,
			.node = src, .vi = c->vi, .seq = c->seq, .disc_len = c->disc_len,
			.from_disc_len = c->from_disc_len };
		lcvipl_unwire_attr(&h->attr, &c->attr);
		h->ptag = c->attr.ptag;
		memcpy(h->disc, c->disc, sizeof h->disc);
		memcpy(h->from_disc, c->from_disc, sizeof h->from_disc);
		return;
	}
	if (c->type == LCVIPL_CTRL_REQ) {
		struct lcvipl_ctrl no = { .type = LCVIPL_CTRL_REJECT, .seq = c->seq };
		lcvipl_ctrl_send(src, c->vi, &no);
	}
}

/* Peer-to-peer VIs waiting: connect those whose peer's PEER is held. */
static void lcvipl_match_peers(void)
{
	bool waiting = false;
	for (unsigned k = 0; k < lcvipl_nic.vi_end; k++) {
		struct lcvipl_vi *vi = lcvipl_nic.vis[k];
		if (vi == NULL || !vi->peer_pending)
			continue;
		waiting = true;
		for (unsigned j = 0; j < LCVIPL_MAX_CONN; j++) {
			struct lcvipl_conn *h = &lcvipl_nic.conns[j];
			if (!h->live || !h->peer || h->node != vi->peer_node || h->disc_len != vi->local_disc_len ||
			    memcmp(h->disc, vi->local_disc, h->disc_len) != 0 ||
			    h->from_disc_len != vi->peer_disc_len ||
			    memcmp(h->from_disc, vi->peer_disc, h->from_disc_len) != 0)
				continue;
			struct lcvipl_wire_attr w;
			lcvipl_wire_attr(&w, &h->attr, h->ptag);
			h->live = false;
			lcvipl_connected(vi, h->node, h->vi, &w);
			break;
		}
	}
	lcvipl_nic.peers = waiting;     /* a VipConnectPeerRequest or a PEER held sets it again */
}

/* One control message (c, from st->src) taken: act on it. */
static void lcvipl_ctrl_handle(const struct lc_status *st, const struct lcvipl_ctrl *cp)
{
	struct lcvipl_ctrl c = *cp;

	if (c.disc_len > LCVIPL_MAX_DISC || c.from_disc_len > LCVIPL_MAX_DISC)
		return;         /* not ours */
	struct lcvipl_vi *vi = c.to_vi ? lcvipl_vi_num(c.to_vi) : NULL;
	switch (c.type) {
	case LCVIPL_CTRL_REQ:
	case LCVIPL_CTRL_PEER:
		lcvipl_hold(st->src, &c);
		if (c.type == LCVIPL_CTRL_PEER)
			lcvipl_nic.peers = true;
		break;
	case LCVIPL_CTRL_CANCEL:
		for (unsigned k = 0; k < LCVIPL_MAX_CONN; k++) {
			struct lcvipl_conn *h = &lcvipl_nic.conns[k];
			if (h->live && !h->peer && h->node == st->src && h->vi == c.vi && h->seq == c.seq)
				h->live = false;
		}
		break;
	case LCVIPL_CTRL_ACCEPT:
		if (vi != NULL && vi->state == VIP_STATE_CONNECT_PENDING && vi->seq == c.seq) {
			lcvipl_connected(vi, st->src, c.vi, &c.attr);
			vi->answer = LCVIPL_CTRL_ACCEPT;
		} else {
			struct lcvipl_ctrl d = { .type = LCVIPL_CTRL_DISC };
			lcvipl_ctrl_send(st->src, c.vi, &d);     /* we gave up: the server VI is gone */
		}
		break;
	case LCVIPL_CTRL_REJECT:
		if (vi != NULL && vi->state == VIP_STATE_CONNECT_PENDING && vi->seq == c.seq) {
			vi->state = VIP_STATE_IDLE;
			vi->answer = LCVIPL_CTRL_REJECT;
		}
		break;
	case LCVIPL_CTRL_DISC:
		if (vi != NULL && vi->state == VIP_STATE_CONNECTED && vi->peer_node == st->src &&
		    (c.vi == 0 || vi->peer_vi == c.vi)) {
			vi->state = VIP_STATE_ERROR;
			if (vi->attr.ReliabilityLevel != VIP_SERVICE_UNRELIABLE)
				lcvipl_async_error(vi, VIP_ERROR_CONN_LOST, VIP_RESOURCE_VI);
		}
		break;
	case LCVIPL_CTRL_ADVERT:
		lcvipl_remote_learn(st->src, &c);
		break;
	default:
		break;
	}
}

/*
 * The standing control receive: one lc receive of any control message from
 * any node, posted at every pass while none is (LCVIPL_REQ_DATA keeps a
 * request for it).  It takes control messages in arrival order, as the
 * probe it replaces did, and costs the passes no progress step of its own:
 * the pass tests it with the descriptors' requests in one lc_testany.
 */
void lcvipl_ctrl_post(void)
{
	if (lcvipl_nic.ctrl_req != NULL || lcvipl_nic.node == NULL)
		return;
	if (lc_irecv_match(lcvipl_nic.node, LC_ANY_SOURCE, LCVIPL_CTRL_MATCH, LCVIPL_CTRL_MASK,
			   &lcvipl_nic.ctrl_buf, sizeof lcvipl_nic.ctrl_buf, &lcvipl_nic.ctrl_req) != 0)
		lcvipl_nic.ctrl_req = NULL;     /* no request free: the probe below, and again next pass */
}

/* The standing receive completed with st: act on its message, post it again. */
void lcvipl_ctrl_taken(const struct lc_status *st, int rc)
{
	struct lcvipl_ctrl c = lcvipl_nic.ctrl_buf;

	lcvipl_nic.ctrl_req = NULL;
	if (rc == 0 || rc == LC_ERR_TRUNC)
		lcvipl_ctrl_handle(st, &c);
	lcvipl_ctrl_post();
}

/* Peer-to-peer VIs waiting: only while some wait or a PEER request came. */
void lcvipl_peers(void)
{
	if (lcvipl_nic.peers)
		lcvipl_match_peers();
}

/*
 * Take every control message that arrived (one progress step when none
 * had): the standing receive, or, when it could not be posted, the probe.
 */
void lcvipl_dispatch(void)
{
	lcvipl_arm_due();
	for (;;) {
		struct lc_status st;
		int done = 0;
		lcvipl_ctrl_post();
		if (lcvipl_nic.ctrl_req == NULL)
			break;
		int rc = lc_test(lcvipl_nic.node, lcvipl_nic.ctrl_req, &done, &st);
		if (!done) {
			if (rc != 0)
				lcvipl_nic.ctrl_req = NULL;     /* not ours any more (closed node) */
			break;
		}
		lcvipl_ctrl_taken(&st, rc);
	}
	while (lcvipl_nic.ctrl_req == NULL && lcvipl_nic.node != NULL) {
		struct lc_status st;
		struct lcvipl_ctrl c;
		int flag = 0;
		if (lc_iprobe(lcvipl_nic.node, LC_ANY_SOURCE, LCVIPL_CTRL_MATCH, LCVIPL_CTRL_MASK, &flag, &st) != 0 ||
		    !flag)
			break;
		memset(&c, 0, sizeof c);
		int rc = lc_recv_match(lcvipl_nic.node, st.src, st.match, LC_MATCH_ALL, &c, sizeof c, &st);
		if (rc == LC_ERR_AGAIN)
			break;          /* no request free: the next pass takes it */
		if (rc != 0 && rc != LC_ERR_TRUNC)
			continue;
		lcvipl_ctrl_handle(&st, &c);
	}
	lcvipl_peers();
}

/* ---- Addresses ---- */

/* The node of a's host address: 0, or -1 (not an address of this job). */
static int lcvipl_addr_node(const VIP_NET_ADDRESS *a, int *node)
{
	const uint8_t *b = a->HostAddress;
	uint32_t v = 0;
	if (a->HostAddressLen != LCVIPL_ADDR_LEN)
		return -1;
	for (unsigned k = 0; k < LCVIPL_ADDR_LEN; k++)
		v |= (uint32_t)b[k] << (8 * k);
	if (v >= (uint32_t)lcvipl_nic.size)
		return -1;
	*node = (int)v;
	return 0;
}

static const uint8_t *lcvipl_addr_disc(const VIP_NET_ADDRESS *a)
{
	return a->HostAddress + a->HostAddressLen;
}

static void lcvipl_addr_set(VIP_NET_ADDRESS *a, int node, const uint8_t *disc, uint16_t len)
{
	a->HostAddressLen = LCVIPL_ADDR_LEN;
	a->DiscriminatorLen = len;
	for (unsigned k = 0; k < LCVIPL_ADDR_LEN; k++)
		a->HostAddress[k] = (uint8_t)((unsigned)node >> (8 * k));
	memcpy(a->HostAddress + LCVIPL_ADDR_LEN, disc, len);
}

/* The name a server on (node, discriminator) registers. */
static void lcvipl_listen_name(char *out, int node, const uint8_t *disc, unsigned len)
{
	int n = snprintf(out, LC_NAME_MAX, LCVIPL_NAME_PREFIX "%d:", node);
	for (unsigned k = 0; k < len && n + 2 < LC_NAME_MAX; k++, n += 2)
		snprintf(out + n, 3, "%02x", disc[k]);
}

/* ---- Client-server ---- */

VIP_RETURN VipConnectWait(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *LocalAddr, VIP_ULONG Timeout,
			  VIP_NET_ADDRESS *RemoteAddr, VIP_VI_ATTRIBUTES *RemoteViAttributes,
			  VIP_CONN_HANDLE *ConnHandle)
{
	if (LocalAddr == NULL || RemoteAddr == NULL || RemoteViAttributes == NULL || ConnHandle == NULL ||
	    LocalAddr->DiscriminatorLen > LCVIPL_MAX_DISC)
		return VIP_INVALID_PARAMETER;
	double deadline = lcvipl_deadline(Timeout);
	lcvipl_lock();
	int node;
	if (!lcvipl_is_nic(NicHandle) || lcvipl_addr_node(LocalAddr, &node) != 0 || node != lcvipl_nic.rank) {
		lcvipl_unlock();
		return VIP_INVALID_PARAMETER;
	}
	const uint8_t *disc = lcvipl_addr_disc(LocalAddr);
	uint16_t dlen = LocalAddr->DiscriminatorLen;
	char name[LC_NAME_MAX];
	lcvipl_listen_name(name, node, disc, dlen);
	unsigned k;
	for (k = 0; k < lcvipl_nic.nlisten && strcmp(lcvipl_nic.listen[k], name) != 0; k++)
		;
	if (k == lcvipl_nic.nlisten) {
		int rc = lc_name_register(lcvipl_nic.node, name, 0);
		if (rc != 0 && rc != LC_ERR_BUSY) {
			lcvipl_unlock();
			return VIP_ERROR_RESOURCE;
		}
		if (rc == 0 && k < sizeof lcvipl_nic.listen / sizeof lcvipl_nic.listen[0]) {
			memcpy(lcvipl_nic.listen[k], name, sizeof name);
			lcvipl_nic.nlisten++;
		}
	}
	VIP_RETURN r;
	unsigned spins = 0;
	for (;;) {
		lcvipl_progress();
		struct lcvipl_conn *h = NULL;
		for (k = 0; k < LCVIPL_MAX_CONN; k++) {
			h = &lcvipl_nic.conns[k];
			if (h->live && !h->peer && !h->taken && h->disc_len == dlen && memcmp(h->disc, disc, dlen) == 0)
				break;
		}
		if (k < LCVIPL_MAX_CONN) {
			h->taken = true;
			lcvipl_addr_set(RemoteAddr, h->node, h->from_disc, h->from_disc_len);
			*RemoteViAttributes = h->attr;
			*ConnHandle = LCVIPL_HANDLE(k, h->gen);
			r = VIP_SUCCESS;
			break;
		}
		if (lcvipl_expired(deadline)) {
			r = VIP_TIMEOUT;
			break;
		}
		lcvipl_pause(&spins);
	}
	lcvipl_unlock();
	return r;
}

/* The held request ConnHandle names (handed out by VipConnectWait), or NULL. */
static struct lcvipl_conn *lcvipl_conn_of(VIP_CONN_HANDLE h)
{
	uint16_t gen;
	int s = lcvipl_slot(h, LCVIPL_MAX_CONN, &gen);
	struct lcvipl_conn *c = s < 0 ? NULL : &lcvipl_nic.conns[s];
	return c != NULL && c->live && c->taken && !c->peer && c->gen == gen ? c : NULL;
}

VIP_RETURN VipConnectAccept(VIP_CONN_HANDLE ConnHandle, VIP_VI_HANDLE ViHandle)
{
	lcvipl_lock();
	lcvipl_progress();      /* a CANCEL that came meanwhile */
	struct lcvipl_conn *h = lcvipl_conn_of(ConnHandle);
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_SUCCESS;
	if (h == NULL || vi == NULL)
		r = VIP_INVALID_PARAMETER;
	else if (vi->state != VIP_STATE_IDLE || vi->peer_pending)
		r = VIP_INVALID_STATE;
	else if (h->attr.ReliabilityLevel != vi->attr.ReliabilityLevel)
		r = VIP_INVALID_RELIABILITY_LEVEL;
	else if (h->attr.MaxTransferSize != vi->attr.MaxTransferSize)
		r = VIP_INVALID_MTU;
	if (r == VIP_SUCCESS) {
		struct lcvipl_wire_attr w;
		lcvipl_wire_attr(&w, &h->attr, h->ptag);
		struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_ACCEPT, .vi = vi->num, .seq = h->seq };
		lcvipl_wire_attr(&c.attr, &vi->attr, vi->ptag);
		h->live = false;
		lcvipl_connected(vi, h->node, h->vi, &w);
		if (lcvipl_ctrl_send(h->node, h->vi, &c) != 0) {
			vi->state = VIP_STATE_ERROR;
			r = VIP_NOT_REACHABLE;
		}
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipConnectReject(VIP_CONN_HANDLE ConnHandle)
{
	lcvipl_lock();
	struct lcvipl_conn *h = lcvipl_conn_of(ConnHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (h != NULL) {
		struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_REJECT, .seq = h->seq };
		h->live = false;
		lcvipl_ctrl_send(h->node, h->vi, &c);
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

/* Wait (lock held) for the name of a server at (node, disc): 0, VIP_TIMEOUT or VIP_NOT_REACHABLE. */
static VIP_RETURN lcvipl_find_server(int node, const uint8_t *disc, unsigned len, double deadline)
{
	char name[LC_NAME_MAX];
	lcvipl_listen_name(name, node, disc, len);
	unsigned spins = 0;
	for (;;) {
		lcvipl_arm_due();
		int rc = lc_name_lookup(lcvipl_nic.node, name, 0, NULL, NULL);
		if (rc == 0)
			return VIP_SUCCESS;
		if (rc == LC_ERR_PEER_DEAD)
			return VIP_NOT_REACHABLE;
		if (rc != LC_ERR_TIMEOUT)
			return VIP_ERROR_NAMESERVICE;
		if (lcvipl_expired(deadline))
			return VIP_TIMEOUT;
		lcvipl_progress();
		lcvipl_pause(&spins);
	}
}

VIP_RETURN VipConnectRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr, VIP_NET_ADDRESS *RemoteAddr,
			     VIP_ULONG Timeout, VIP_VI_ATTRIBUTES *RemoteViAttributes)
{
	if (LocalAddr == NULL || RemoteAddr == NULL || RemoteViAttributes == NULL ||
	    LocalAddr->DiscriminatorLen > LCVIPL_MAX_DISC || RemoteAddr->DiscriminatorLen > LCVIPL_MAX_DISC)
		return VIP_INVALID_PARAMETER;
	double deadline = lcvipl_deadline(Timeout);
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	int node, me;
	VIP_RETURN r = VIP_SUCCESS;
	if (vi == NULL || lcvipl_addr_node(LocalAddr, &me) != 0 || me != lcvipl_nic.rank)
		r = VIP_INVALID_PARAMETER;
	else if (lcvipl_addr_node(RemoteAddr, &node) != 0)
		r = VIP_NOT_REACHABLE;
	else if (vi->state != VIP_STATE_IDLE || vi->peer_pending)
		r = VIP_INVALID_STATE;
	if (r == VIP_SUCCESS)
		r = lcvipl_find_server(node, lcvipl_addr_disc(RemoteAddr), RemoteAddr->DiscriminatorLen, deadline);
	if (r != VIP_SUCCESS || (vi = lcvipl_vi_of(ViHandle)) == NULL || vi->state != VIP_STATE_IDLE) {
		lcvipl_unlock();
		return r != VIP_SUCCESS ? r : vi == NULL ? VIP_INVALID_PARAMETER : VIP_INVALID_STATE;
	}
	struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_REQ, .vi = vi->num, .seq = lcvipl_nic.next_seq++,
		.disc_len = RemoteAddr->DiscriminatorLen, .from_disc_len = LocalAddr->DiscriminatorLen };
	lcvipl_wire_attr(&c.attr, &vi->attr, vi->ptag);
	memcpy(c.disc, lcvipl_addr_disc(RemoteAddr), c.disc_len);
	memcpy(c.from_disc, lcvipl_addr_disc(LocalAddr), c.from_disc_len);
	vi->seq = c.seq;
	vi->answer = 0;
	vi->state = VIP_STATE_CONNECT_PENDING;
	if (lcvipl_ctrl_send(node, 0, &c) != 0) {
		vi->state = VIP_STATE_IDLE;
		lcvipl_unlock();
		return VIP_NOT_REACHABLE;
	}
	unsigned spins = 0;
	for (;;) {
		lcvipl_progress();
		if ((vi = lcvipl_vi_of(ViHandle)) == NULL) {
			r = VIP_INVALID_PARAMETER;
			break;
		}
		if (vi->answer == LCVIPL_CTRL_ACCEPT) {
			*RemoteViAttributes = vi->peer_attr;
			r = VIP_SUCCESS;
			break;
		}
		if (vi->answer == LCVIPL_CTRL_REJECT) {
			r = VIP_REJECT;
			break;
		}
		if (lcvipl_expired(deadline)) {
			struct lcvipl_ctrl x = { .type = LCVIPL_CTRL_CANCEL, .vi = vi->num, .seq = vi->seq };
			vi->state = VIP_STATE_IDLE;
			lcvipl_ctrl_send(node, 0, &x);
			r = VIP_TIMEOUT;
			break;
		}
		lcvipl_pause(&spins);
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipDisconnect(VIP_VI_HANDLE ViHandle)
{
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		lcvipl_progress();
		if (vi->state == VIP_STATE_CONNECTED) {
			struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_DISC, .vi = vi->num };
			lcvipl_ctrl_send(vi->peer_node, vi->peer_vi, &c);
		}
		lcvipl_flush(vi);
		vi->state = VIP_STATE_IDLE;
		vi->peer_pending = false;
		vi->peer_node = -1;
		r = VIP_SUCCESS;
	}
	lcvipl_unlock();
	return r;
}

/* ---- Peer to peer ---- */

VIP_RETURN VipConnectPeerRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr, VIP_NET_ADDRESS *RemoteAddr,
				 VIP_ULONG Timeout)
{
	if (LocalAddr == NULL || RemoteAddr == NULL || LocalAddr->DiscriminatorLen > LCVIPL_MAX_DISC ||
	    RemoteAddr->DiscriminatorLen > LCVIPL_MAX_DISC)
		return VIP_INVALID_PARAMETER;
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	int node, me;
	VIP_RETURN r = VIP_SUCCESS;
	if (vi == NULL || lcvipl_addr_node(LocalAddr, &me) != 0 || me != lcvipl_nic.rank)
		r = VIP_INVALID_PARAMETER;
	else if (lcvipl_addr_node(RemoteAddr, &node) != 0)
		r = VIP_NOT_REACHABLE;
	else if (vi->state != VIP_STATE_IDLE || vi->peer_pending)
		r = VIP_INVALID_STATE;
	if (r == VIP_SUCCESS) {
		struct lcvipl_ctrl c = { .type = LCVIPL_CTRL_PEER, .vi = vi->num,
			.disc_len = RemoteAddr->DiscriminatorLen, .from_disc_len = LocalAddr->DiscriminatorLen };
		lcvipl_wire_attr(&c.attr, &vi->attr, vi->ptag);
		memcpy(c.disc, lcvipl_addr_disc(RemoteAddr), c.disc_len);
		memcpy(c.from_disc, lcvipl_addr_disc(LocalAddr), c.from_disc_len);
		vi->peer_pending = true;
		lcvipl_nic.peers = true;
		vi->peer_node = node;
		vi->peer_deadline_us = lcvipl_deadline(Timeout);
		vi->state = VIP_STATE_CONNECT_PENDING;
		memcpy(vi->peer_disc, c.disc, c.disc_len);
		vi->peer_disc_len = c.disc_len;
		memcpy(vi->local_disc, c.from_disc, c.from_disc_len);
		vi->local_disc_len = c.from_disc_len;
		if (lcvipl_ctrl_send(node, 0, &c) != 0) {
			vi->peer_pending = false;
			vi->state = VIP_STATE_IDLE;
			r = VIP_NOT_REACHABLE;
		} else
			lcvipl_progress();
	}
	lcvipl_unlock();
	return r;
}

/* The outcome of a peer-to-peer request so far (lock held). */
static VIP_RETURN lcvipl_peer_state(struct lcvipl_vi *vi, VIP_VI_ATTRIBUTES *attr)
{
	if (vi->state == VIP_STATE_CONNECTED) {
		if (attr != NULL)
			*attr = vi->peer_attr;
		return VIP_SUCCESS;
	}
	if (!vi->peer_pending)
		return VIP_INVALID_STATE;
	if (lcvipl_expired(vi->peer_deadline_us)) {
		vi->peer_pending = false;
		vi->state = VIP_STATE_IDLE;
		return VIP_TIMEOUT;
	}
	return VIP_NOT_DONE;
}

VIP_RETURN VipConnectPeerDone(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteAttributes)
{
	lcvipl_lock();
	struct lcvipl_vi *vi = lcvipl_vi_of(ViHandle);
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	if (vi != NULL) {
		lcvipl_progress();
		r = lcvipl_peer_state(vi, RemoteAttributes);
	}
	lcvipl_unlock();
	return r;
}

VIP_RETURN VipConnectPeerWait(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttributes)
{
	lcvipl_lock();
	VIP_RETURN r = VIP_INVALID_PARAMETER;
	unsigned spins = 0;
	for (struct lcvipl_vi *vi; (vi = lcvipl_vi_of(ViHandle)) != NULL;) {
		lcvipl_progress();
		if ((r = lcvipl_peer_state(vi, RemoteViAttributes)) != VIP_NOT_DONE)
			break;
		lcvipl_pause(&spins);
		r = VIP_INVALID_PARAMETER;
	}
	lcvipl_unlock();
	return r;
}
