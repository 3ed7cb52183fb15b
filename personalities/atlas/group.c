/* SPDX-License-Identifier: MIT */
/* Groups (seed section 8): membership, send to all members, receive from any with a fair rotating start. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "atlas_impl.h"

int atlas_group_add(atlas_group *g, atlas_node *n)
{
#if ATLAS_PARAM_CHECK
	if (!g || !n)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_add: %s is NULL", g ? "n" : "g");
	if (g->is_static)
		return atlas_fail(ATLAS_ERR_STATIC, "atlas_group_add: node %d", n->id);
	if (n->f != g->f)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_add: the node is not the factory's");
#endif
	int rc = 0;
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->n; i++)
		if (g->m[i] == n)
			rc = atlas_fail(ATLAS_ERR_MEMBER, "atlas_group_add: node %d is a member already",
					n->id);
	if (rc == 0)
		g->m[g->n++] = n;       /* cap = the job's size: room for every node */
	pthread_mutex_unlock(&g->lock);
	return rc;
}

int atlas_group_remove(atlas_group *g, atlas_node *n)
{
#if ATLAS_PARAM_CHECK
	if (!g || !n)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_remove: %s is NULL", g ? "n" : "g");
	if (g->is_static)
		return atlas_fail(ATLAS_ERR_STATIC, "atlas_group_remove: node %d", n->id);
#endif
	int rc = ATLAS_ERR_MEMBER;
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->n; i++) {
		if (g->m[i] != n)
			continue;
		memmove(&g->m[i], &g->m[i + 1], (size_t)(g->n - i - 1) * sizeof *g->m);
		g->n--;
		/* the rotation goes on from the member that followed the removed one */
		if (g->start > i)
			g->start--;
		if (g->start >= g->n)
			g->start = 0;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&g->lock);
	if (rc != 0)
		return atlas_fail(rc, "atlas_group_remove: node %d is not a member", n->id);
	return 0;
}

int atlas_group_size(atlas_group *g)
{
	if (!g)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_size: g is NULL");
	pthread_mutex_lock(&g->lock);
	int n = g->n;
	pthread_mutex_unlock(&g->lock);
	return n;
}

int atlas_group_is_static(const atlas_group *g)
{
	return g ? g->is_static : atlas_fail(ATLAS_ERR_INVAL, "atlas_group_is_static: g is NULL");
}

int atlas_group_members(atlas_group *g, atlas_node **nodes, int cap)
{
#if ATLAS_PARAM_CHECK
	if (!g || (!nodes && cap > 0) || cap < 0)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_members: %s", !g ? "g is NULL" :
				  cap < 0 ? "cap < 0" : "nodes is NULL");
#endif
	pthread_mutex_lock(&g->lock);
	int n = g->n;
	for (int i = 0; i < n && i < cap; i++)
		nodes[i] = g->m[i];
	pthread_mutex_unlock(&g->lock);
	return n;
}

/* Send b to n, retrying while n's queue is full (back-pressure). */
static int atlas_group_send_one(atlas_node *n, atlas_buffer *b)
{
	unsigned spins = 0;
	int rc;
	while ((rc = atlas_node_send(n, b)) == ATLAS_ERR_AGAIN)
		(void)lc_idle(n->f->lc, &spins, 1);
	return rc;
}

int atlas_group_send(atlas_group *g, atlas_buffer *buf)
{
#if ATLAS_PARAM_CHECK
	if (!g || !buf)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_send: %s is NULL", g ? "buf" : "g");
	if (buf->state != ATLAS_BUF_USER)
		return atlas_fail(ATLAS_ERR_BUSY, "atlas_group_send: the buffer is already being sent");
#endif
	/* the members now (a snapshot: add/remove may run meanwhile) */
	atlas_node **m = malloc((size_t)g->cap * sizeof *m);
	if (!m)
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas_group_send");
	int n = atlas_group_members(g, m, g->cap), err = 0;
	for (int i = 0; i < n; i++) {
		atlas_buffer *b = buf;
		int rc = 0;
		if (i < n - 1) {
			rc = atlas_factory_create_buffer(g->f, buf->size, &b);
			if (rc == ATLAS_ERR_AGAIN) {    /* an empty send pool: a heap copy */
				b = atlas_buffer_heap(g->f, buf->size);
				rc = b ? 0 : atlas_fail(ATLAS_ERR_NOMEM, "atlas_group_send: a copy");
			}
			if (rc == 0)
				memcpy(b->data, buf->data, buf->size);
		}
		if (rc == 0)
			rc = atlas_group_send_one(m[i], b);
		if (rc != 0) {
			if (b && b->state == ATLAS_BUF_USER)
				atlas_buffer_free(g->f, b);
			if (err == 0)
				err = rc;
		}
	}
	if (n == 0)
		atlas_buffer_free(g->f, buf);
	free(m);
	return err;
}

int atlas_group_try_recv(atlas_group *g, atlas_buffer **out, atlas_node **from)
{
#if ATLAS_PARAM_CHECK
	if (!g || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_try_recv: %s is NULL", g ? "out" : "g");
	*out = NULL;
	if (from)
		*from = NULL;
#endif
	int rc = atlas_recv_check(g->f, "atlas_group_try_recv");
	if (rc != 0)
		return rc;
	rc = atlas_flush_all(g->f, 0);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&g->lock);
	/* the fair rotating start: after the member served last, each call */
	int n = g->n, s = n ? g->start % n : 0;
	rc = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		int i = (s + k) % n;
		rc = atlas_recv_one(g->m[i], out);
		if (rc == 1) {
			if (from)
				*from = g->m[i];
			g->start = (i + 1) % n;
		}
	}
	if (rc == 0 && n)
		g->start = (s + 1) % n;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

int atlas_group_recv(atlas_group *g, atlas_buffer **out, atlas_node **from)
{
	unsigned spins = 0;
	int rc;
	while ((rc = atlas_group_try_recv(g, out, from)) == 0)
		(void)lc_idle(g->f->lc, &spins, 1);
	return rc < 0 ? rc : 0;
}

void atlas_group_free(atlas_group *g)
{
	pthread_mutex_destroy(&g->lock);
	free(g->m);
	free(g);
}

int atlas_group_destroy(atlas_group *g)
{
#if ATLAS_PARAM_CHECK
	if (!g)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_group_destroy: g is NULL");
#endif
	atlas_factory *f = g->f;
	pthread_mutex_lock(&f->lock);
	for (atlas_group **p = &f->groups; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	pthread_mutex_unlock(&f->lock);
	atlas_group_free(g);
	return 0;
}
