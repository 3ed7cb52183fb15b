/* SPDX-License-Identifier: MIT */
/* commrun: its own messages, its clock, and a node's output copied to ours a line at a time with "[i] ". */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

/* "commrun: " + message + newline on stderr, in one write(2) (lines of nodes never split it). */
void lc_run_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof line, "commrun: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0) {
		/* stderr gone: nothing else to tell */
	}
}

/* The clock of every deadline. */
uint64_t lc_run_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Each line goes out in one writev(2) with its prefix, so lines of
 * different nodes never interleave on our stdout or stderr.
 */

/* Write prefix and line to fd in one writev(2) (retrying short writes and EINTR). */
static void lc_run_write_line(int fd, const char *pfx, size_t plen, const char *line, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)pfx, .iov_len = plen },
		{ .iov_base = (void *)line, .iov_len = len },
	};
	int i = 0;
	while (i < 2) {
		ssize_t w = writev(fd, iov + i, 2 - i);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;         /* our stdout is gone: drop the output */
		}
		while (i < 2 && (size_t)w >= iov[i].iov_len) {
			w -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < 2) {
			iov[i].iov_base = (char *)iov[i].iov_base + w;
			iov[i].iov_len -= (size_t)w;
		}
	}
}

/* Read end fd of node's pipe, copied to our fd out.  0, or -1 out of memory. */
int lc_run_stream_init(struct lc_run_stream *s, int fd, int out, int node)
{
	s->fd = fd;
	s->out = out;
	s->cap = 4096;
	s->len = 0;
	s->buf = malloc(s->cap + 1);    /* +1: room for a newline added at the end */
	if (!s->buf)
		return -1;
	s->plen = (size_t)snprintf(s->pfx, sizeof s->pfx, "[%d] ", node);
	return 0;
}

/* Emit every whole line in s->buf; with force, also the unfinished rest (newline added). */
void lc_run_stream_flush(struct lc_run_stream *s, int force)
{
	size_t start = 0;
	char *nl;
	while (start < s->len && (nl = memchr(s->buf + start, '\n', s->len - start)) != NULL) {
		size_t end = (size_t)(nl - s->buf) + 1;
		lc_run_write_line(s->out, s->pfx, s->plen, s->buf + start, end - start);
		start = end;
	}
	if (force && start < s->len) {
		s->buf[s->len] = '\n';
		lc_run_write_line(s->out, s->pfx, s->plen, s->buf + start, s->len + 1 - start);
		start = s->len;
	}
	if (start > 0) {
		memmove(s->buf, s->buf + start, s->len - start);
		s->len -= start;
	}
}

/* Read what is there; returns 0 at EOF (fd closed), 1 otherwise. */
int lc_run_stream_read(struct lc_run_stream *s)
{
	for (;;) {
		if (s->len == s->cap) {
			if (s->cap >= LC_RUN_MAX_LINE) {
				lc_run_stream_flush(s, 1);   /* a very long line: cut it */
			} else {
				size_t ncap = s->cap * 2;
				char *nb = realloc(s->buf, ncap + 1);
				if (!nb) {
					lc_run_stream_flush(s, 1);
				} else {
					s->buf = nb;
					s->cap = ncap;
				}
			}
		}
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (r > 0) {
			s->len += (size_t)r;
			lc_run_stream_flush(s, 0);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		/* EOF or a read error: emit the rest and close */
		lc_run_stream_flush(s, 1);
		close(s->fd);
		s->fd = -1;
		return 0;
	}
}
