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

void atlas_pool_fini(atlas_factory *f)
{
	free(f->pool_bufs);
	free(f->pool_mem);
	f->pool_bufs = NULL;
	f->pool_mem = NULL;
	f->pool_free = NULL;
}

atlas_buffer *atlas_buffer_heap(atlas_factory *f, size_t size)
{
	atlas_buffer *b = calloc(1, sizeof *b);
	if (b && !(b->data = malloc(size ? size : 1))) {
		free(b);
		b = NULL;
	}
	if (b) {
		b->f = f;
		b->cap = b->size = size;
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
		unsigned char *d = realloc(b->data, size);
		if (!d)
			return atlas_fail(ATLAS_ERR_NOMEM, "atlas_buffer_resize: %zu bytes", size);
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
