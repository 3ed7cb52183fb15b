/* SPDX-License-Identifier: MIT */
/* Buffer: create (send pool or heap), data, size, resize, release; the send pool itself. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "atlas_impl.h"

int atlas_pool_init(atlas_factory *f)
{
	if (!f->p.use_send_pool)
		return 0;
	size_t no = f->p.send_buffer_no, sz = f->p.send_buffer_size;
	f->pool_bufs = calloc(no, sizeof *f->pool_bufs);
	f->pool_mem = malloc(no * sz);
	if (!f->pool_bufs || !f->pool_mem) {
		free(f->pool_bufs);
		free(f->pool_mem);
		f->pool_bufs = NULL;
		f->pool_mem = NULL;
		return atlas_fail(ATLAS_ERR_NOMEM, "atlas send pool: %zu buffers of %zu bytes", no,
				  sz);
	}
	for (size_t i = no; i-- > 0;) {
		atlas_buffer *b = &f->pool_bufs[i];
		b->data = f->pool_mem + i * sz;
		b->cap = sz;
		b->pooled = 1;
		b->next = f->pool_free;
		f->pool_free = b;
	}
	return 0;
}

/*
 * The buffer cache.  Every message received is a new buffer, and so is,
 * typically, every message sent; the seed keeps its receive buffers in a
 * pool (recv_buffer_no of recv_buffer_size) for the same reason.  A heap
 * buffer of at most ATLAS_CACHE_BYTES is one block (struct, then its data)
 * and goes back to the factory's cache when released, at most
 * ATLAS_CACHE_MAX of them: in the steady state a message costs a lock
 * instead of two malloc/free pairs (callgrind, atlas_pingpong 8 B, node 0's
 * atlas_node_send + atlas_factory_create_buffer + atlas_buffer_release:
 * 1457 -> 1239 Ir a message).
 */
#define ATLAS_CACHE_BYTES 8192u         /* the seed's recv_buffer_size default */
#define ATLAS_CACHE_MAX 127u            /* the seed's recv_buffer_no default */

void atlas_pool_fini(atlas_factory *f)
{
	free(f->pool_bufs);
	free(f->pool_mem);
	f->pool_bufs = NULL;
	f->pool_mem = NULL;
	f->pool_free = NULL;
	while (f->cache) {
		atlas_buffer *b = f->cache;
		f->cache = b->next;
		free(b);
	}
	f->cached = 0;
}

atlas_buffer *atlas_buffer_heap(atlas_factory *f, size_t size)
{
	atlas_buffer *b = NULL;

	if (size <= ATLAS_CACHE_BYTES) {
		pthread_mutex_lock(&f->lock);
		b = f->cache;
		if (b) {
			f->cache = b->next;
			f->cached--;
		}
		pthread_mutex_unlock(&f->lock);
		if (!b && (b = malloc(sizeof *b + ATLAS_CACHE_BYTES)) != NULL)
			*b = (atlas_buffer){ .data = (unsigned char *)(b + 1), .cap = ATLAS_CACHE_BYTES,
					     .cached = 1 };
	} else if ((b = calloc(1, sizeof *b)) != NULL && !(b->data = malloc(size))) {
		free(b);
		b = NULL;
	}
	if (b) {
		b->f = f;
		b->size = size;
		b->next = NULL;
	}
	return b;
}

int atlas_factory_create_buffer(atlas_factory *f, size_t size, atlas_buffer **out)
{
#if ATLAS_PARAM_CHECK
	if (!f || !out)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_factory_create_buffer: %s is NULL",
				  f ? "out" : "f");
	*out = NULL;
#endif
	atlas_buffer *b;
	if (f->p.use_send_pool && size <= f->p.send_buffer_size) {
		pthread_mutex_lock(&f->lock);
		b = f->pool_free;
		if (b)
			f->pool_free = b->next;
		pthread_mutex_unlock(&f->lock);
		if (!b)
			return atlas_fail(ATLAS_ERR_AGAIN, "atlas_factory_create_buffer: the send pool's "
					  "%u buffers are all in use", f->p.send_buffer_no);
	} else {
		b = atlas_buffer_heap(f, size);
		if (!b)
			return atlas_fail(ATLAS_ERR_NOMEM, "atlas_factory_create_buffer: %zu bytes",
					  size);
	}
	b->f = f;
	b->size = size;
	b->state = ATLAS_BUF_USER;
	b->next = NULL;
	*out = b;
	return 0;
}

void *atlas_buffer_data(const atlas_buffer *b)
{
	return b ? b->data : NULL;
}

size_t atlas_buffer_size(const atlas_buffer *b)
{
	return b ? b->size : 0;
}

int atlas_buffer_resize(atlas_buffer *b, size_t size)
{
#if ATLAS_PARAM_CHECK
	if (!b)
		return atlas_fail(ATLAS_ERR_INVAL, "atlas_buffer_resize: b is NULL");
	if (b->state != ATLAS_BUF_USER)
		return atlas_fail(ATLAS_ERR_BUSY, "atlas_buffer_resize: a send holds the buffer");
#endif
	if (size > b->cap) {
		if (b->pooled)
			return atlas_fail(ATLAS_ERR_INVAL, "atlas_buffer_resize: %zu bytes: a send-pool "
					  "buffer holds at most %zu", size, b->cap);
		/* a cached buffer's data is inline: it moves out to the heap, and stays there */
		unsigned char *d = b->cached ? malloc(size) : realloc(b->data, size);
		if (!d)
			return atlas_fail(ATLAS_ERR_NOMEM, "atlas_buffer_resize: %zu bytes", size);
		if (b->cached)
			memcpy(d, b->data, b->size);
		b->cached = 0;
		b->data = d;
		b->cap = size;
	}
	b->size = size;
	return 0;
}

void atlas_buffer_free(atlas_factory *f, atlas_buffer *b)
{
	if (b->pooled) {
		pthread_mutex_lock(&f->lock);
		b->state = ATLAS_BUF_USER;
		b->next = f->pool_free;
		f->pool_free = b;
		pthread_mutex_unlock(&f->lock);
		return;
	}
	if (b->cached) {
		pthread_mutex_lock(&f->lock);
		if (f->cached < ATLAS_CACHE_MAX) {
			b->state = ATLAS_BUF_USER;
			b->next = f->cache;
			f->cache = b;
			f->cached++;
			b = NULL;
		}
		pthread_mutex_unlock(&f->lock);
		free(b);
		return;
	}
	free(b->data);
	free(b);
}

int atlas_buffer_release(atlas_buffer *b)
{
	if (!b)
		return 0;
#if ATLAS_PARAM_CHECK
	if (b->state != ATLAS_BUF_USER)
		return atlas_fail(ATLAS_ERR_BUSY, "atlas_buffer_release: a send holds the buffer "
				  "(the layer releases it once transferred)");
#endif
	atlas_buffer_free(b->f, b);
	return 0;
}
