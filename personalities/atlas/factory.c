/* SPDX-License-Identifier: MIT */
/* NodeFactory: the singleton (init, get, release), its nodes, static group names, flush. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "atlas_impl.h"

/* The one instance, under atlas_lock (creation, references, release). */
static pthread_mutex_t atlas_lock = PTHREAD_MUTEX_INITIALIZER;
static atlas_factory *atlas_the;

static int atlas_factory_make(const atlas_params *p, atlas_factory **out)
{
	atlas_factory *f = calloc(1, sizeof *f);
	if (!f)
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas_factory: %zu bytes", sizeof *f);
	if (p)
		f->p = *p;
	else
		atlas_params_default(&f->p);
	int rc = atlas_params_check(&f->p);
	if (rc == 0)
		rc = atlas_params_env(&f->p);
	if (rc != 0) {
		free(f);
		return rc;
	}
	int lrc = lc_open(&f->lc);
	if (lrc != 0) {
		free(f);
		return atlas_fail_lc(NULL, lrc, "atlas_factory: lc_open");
	}
	f->self = lc_rank(f->lc);
	f->size = lc_size(f->lc);
	pthread_mutex_init(&f->lock, NULL);
	f->nodes = calloc((size_t)f->size, sizeof *f->nodes);
	if (!f->nodes || (rc = atlas_pool_init(f)) != 0) {
		free(f->nodes);
		lc_close(f->lc);
		free(f);
		return rc ? rc : atlas_fail(ATLAS_ERR_NOMEM, "atlas_factory: node table");
	}
	f->refs = 1;
	*out = f;
	return 0;
}

int atlas_factory_init(const atlas_params *p, atlas_factory **out)
{
#if ATLAS_PARAM_CHECK
	if (!out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_init: out is NULL");
	*out = NULL;
#endif
	pthread_mutex_lock(&atlas_lock);
	int rc = atlas_the ? atlas_fail(ATLAS_ERR_BUSY, "atlas_factory_init: the factory exists "
					"already (init before the first atlas_factory_get)")
			   : atlas_factory_make(p, &atlas_the);
	if (rc == 0)
		*out = atlas_the;
	pthread_mutex_unlock(&atlas_lock);
	return rc;
}

int atlas_factory_get(atlas_factory **out)
{
#if ATLAS_PARAM_CHECK
	if (!out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_get: out is NULL");
	*out = NULL;
#endif
	pthread_mutex_lock(&atlas_lock);
	int rc = 0;
	if (atlas_the)
		atlas_the->refs++;
	else
		rc = atlas_factory_make(NULL, &atlas_the);
	if (rc == 0)
		*out = atlas_the;
	pthread_mutex_unlock(&atlas_lock);
	return rc;
}

int atlas_factory_release(atlas_factory *f)
{
#if ATLAS_PARAM_CHECK
	if (!f)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_release: f is NULL");
#endif
	pthread_mutex_lock(&atlas_lock);
	if (f != atlas_the) {
		pthread_mutex_unlock(&atlas_lock);
		return atlas_fail(ATLAS_ERR_CLOSED, "atlas_factory_release: not the factory");
	}
	if (--f->refs > 0) {
		pthread_mutex_unlock(&atlas_lock);
		return 0;
	}
	atlas_the = NULL;
	pthread_mutex_unlock(&atlas_lock);
	int rc = atlas_drain_all(f);
	while (f->groups) {
		atlas_group *g = f->groups;
		f->groups = g->next;
		atlas_group_free(g);
	}
	for (int i = 0; i < f->size; i++)
		if (f->nodes[i])
			atlas_node_free(f->nodes[i]);
	free(f->nodes);
	atlas_pool_fini(f);
	int lrc = lc_close(f->lc);
	if (lrc != 0 && rc == 0)
		rc = atlas_fail_lc(NULL, lrc, "atlas_factory_release: lc_close");
	pthread_mutex_destroy(&f->lock);
	free(f);
	return rc;
}

int atlas_factory_params(const atlas_factory *f, atlas_params *out)
{
#if ATLAS_PARAM_CHECK
	if (!f || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_params: %s is NULL", f ? "out" : "f");
#endif
	*out = f->p;
	return 0;
}

int atlas_factory_self(const atlas_factory *f)
{
	return f ? f->self : atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_self: f is NULL");
}

int atlas_factory_size(const atlas_factory *f)
{
	return f ? f->size : atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_size: f is NULL");
}

int atlas_factory_flush(atlas_factory *f)
{
#if ATLAS_PARAM_CHECK
	if (!f)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_flush: f is NULL");
#endif
	/* one progress step too: arrivals move from the NIC into host memory meanwhile */
	int lrc = lc_progress(f->lc);
	if (lrc < 0)
		return atlas_fail_lc(f, lrc, "atlas_factory_flush: lc_progress");
	return atlas_flush_all(f, 1);
}

int atlas_factory_create_node(atlas_factory *f, int node_id, atlas_node **out)
{
#if ATLAS_PARAM_CHECK
	if (!f || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_node: %s is NULL",
				  f ? "out" : "f");
	*out = NULL;
	if (node_id < 0 || node_id >= f->size)
		return atlas_fail(ATLAS_ERR_RANGE, "atlas_factory_create_node: node %d out of "
				  "0 .. %d", node_id, f->size - 1);
#endif
	/* acquire: pairs with the release store below (another thread made it) */
	atlas_node *n = atomic_load_explicit(&f->nodes[node_id], memory_order_acquire);
	if (n) {
		*out = n;
		return 0;
	}
	pthread_mutex_lock(&f->lock);
	n = atomic_load_explicit(&f->nodes[node_id], memory_order_relaxed);
	if (!n) {
		n = calloc(1, sizeof *n);
		if (!n) {
			pthread_mutex_unlock(&f->lock);
			return atlas_fail(ATLAS_ERR_NOMEM, "atlas_factory_create_node: node %d",
					  node_id);
		}
		n->f = f;
		n->id = node_id;
		pthread_mutex_init(&n->lock, NULL);
		/* release: the node's fields before its pointer (acquire above pairs) */
		atomic_store_explicit(&f->nodes[node_id], n, memory_order_release);
	}
	pthread_mutex_unlock(&f->lock);
	*out = n;
	return 0;
}

int atlas_node_id(const atlas_node *n)
{
	return n ? n->id : atlas_fail(ATLAS_ERR_INVAL, "atlas_node_id: n is NULL");
}

/* "all", "others" or "a-b,c": mark the members in in[]; 0 or an error. */
static int atlas_static_members(const atlas_factory *f, const char *name, unsigned char *in)
{
	if (strcmp(name, "all") == 0 || strcmp(name, "others") == 0) {
		for (int i = 0; i < f->size; i++)
			in[i] = name[0] == 'a' || i != f->self;
		return 0;
	}
	const char *s = name;
	for (;;) {
		char *end;
		if (*s < '0' || *s > '9')
			return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_static_group: "
					  "\"%s\": want all, others or ids and ranges (0-3,6)", name);
		long lo = strtol(s, &end, 10), hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_static_group: "
						  "\"%s\": a range wants its end", name);
			hi = strtol(s, &end, 10);
		}
		if (lo > hi) {
			long t = lo;
			lo = hi;
			hi = t;
		}
		if (hi >= f->size)
			return atlas_fail(ATLAS_ERR_RANGE, "atlas_factory_create_static_group: \"%s\": "
					  "node %ld out of 0 .. %d", name, hi, f->size - 1);
		for (long i = lo; i <= hi; i++)
			in[i] = 1;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_static_group: "
					  "\"%s\": unexpected '%c'", name, *end);
		s = end + 1;
	}
}

static int atlas_group_new(atlas_factory *f, int is_static, atlas_group **out)
{
	atlas_group *g = calloc(1, sizeof *g);
	if (g)
		g->m = calloc((size_t)f->size, sizeof *g->m);
	if (!g || !g->m) {
		free(g);
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas_group: %d members", f->size);
	}
	g->f = f;
	g->cap = f->size;
	g->is_static = is_static;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_lock(&f->lock);
	g->next = f->groups;
	f->groups = g;
	pthread_mutex_unlock(&f->lock);
	*out = g;
	return 0;
}

int atlas_factory_create_group(atlas_factory *f, atlas_group **out)
{
#if ATLAS_PARAM_CHECK
	if (!f || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_group: %s is NULL",
				  f ? "out" : "f");
	*out = NULL;
#endif
	return atlas_group_new(f, 0, out);
}

int atlas_factory_create_static_group(atlas_factory *f, const char *name, atlas_group **out)
{
#if ATLAS_PARAM_CHECK
	if (!f || !name || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_static_group: %s is NULL",
				  !f ? "f" : !name ? "name" : "out");
	*out = NULL;
#endif
	unsigned char *in = calloc((size_t)f->size, 1);
	if (!in)
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas_factory_create_static_group");
	atlas_group *g = NULL;
	int rc = atlas_static_members(f, name, in);
	if (rc == 0)
		rc = atlas_group_new(f, 1, &g);
	for (int i = 0; rc == 0 && i < f->size; i++) {
		atlas_node *n;
		if (in[i] && (rc = atlas_factory_create_node(f, i, &n)) == 0)
			g->m[g->n++] = n;
	}
	free(in);
	if (rc != 0) {
		if (g)
			atlas_group_destroy(g);
		return rc;
	}
	*out = g;
	return 0;
}
