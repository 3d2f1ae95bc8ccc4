/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab cable: length-prefixed IBA frames over an AF_UNIX stream socket.
 */
#ifndef _GNU_SOURCE	/* QEMU defines it on the command line */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sfab_cable.h"

void sfab_link_cable_init(struct sfab_link_cable *c, int fd)
{
	c->fd = fd;
	c->roff = c->rlen = 0;
	c->read_closed = NULL;
	c->wbuf = NULL;
	c->wlen = c->wcap = c->woff = 0;
	c->frames_in = c->frames_out = c->bad_frames = 0;
	c->nested_reads = 0;
}

void sfab_link_cable_close(struct sfab_link_cable *c)
{
	/* a frame callback closes the cable: its read stops right there */
	if (c->read_closed)
		*c->read_closed = true;
	if (c->fd >= 0)
		close(c->fd);
	free(c->wbuf);
	sfab_link_cable_init(c, -1);
}

/*
 * Hand out every complete frame in rbuf[roff..rlen), each consumed before
 * its callback runs; a partial one stays.  Nothing but close (and a new
 * init) moves roff or rlen while a callback runs (a nested read is
 * refused), so roff <= rlen holds throughout.
 */
static int parse(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
		 void *opaque, const bool *closed)
{
	while (c->rlen - c->roff >= sizeof(struct sfab_wire_cable_hdr)) {
		struct sfab_wire_cable_hdr h;
		const uint8_t *frame;
		uint32_t len;
		int ret;

		memcpy(&h, c->rbuf + c->roff, sizeof(h));
		len = sfab_be32_to_cpu(h.len);
		if (!len || len > SFAB_WIRE_MAX_PKT_LEN) {
			c->bad_frames++;
			return -2;
		}
		if (c->rlen - c->roff < sizeof(h) + len)
			break;
		frame = c->rbuf + c->roff + sizeof(h);
		c->roff += sizeof(h) + len;
		c->frames_in++;
		ret = fn(opaque, frame, len);
		/* closed (maybe plugged anew): c is not ours to touch now */
		if (*closed || ret)
			return ret;
	}
	return 0;
}

static int read_frames(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
		       void *opaque, const bool *closed)
{
	/* what a stopped read left behind goes first */
	int ret = parse(c, fn, opaque, closed);

	if (*closed || ret)
		return ret;
	for (unsigned int reads = 0; reads < SFAB_LINK_CABLE_READS_MAX; reads++) {
		size_t room;
		ssize_t n;

		/* at most a partial frame is left: move it to the front */
		if (c->roff) {
			memmove(c->rbuf, c->rbuf + c->roff, c->rlen - c->roff);
			c->rlen -= c->roff;
			c->roff = 0;
		}
		room = sizeof(c->rbuf) - c->rlen;
		n = read(c->fd, c->rbuf + c->rlen, room);
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		c->rlen += n;
		ret = parse(c, fn, opaque, closed);
		if (*closed || ret)
			return ret;
		/* a short read: the socket is drained for now */
		if ((size_t)n < room)
			return 0;
	}
	return 0;
}

int sfab_link_cable_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn, void *opaque)
{
	bool closed = false;
	int ret;

	if (c->read_closed) {
		/* from inside a frame callback of this cable's read */
		c->nested_reads++;
		return 0;
	}
	if (c->fd < 0)
		return -1;
	c->read_closed = &closed;
	ret = read_frames(c, fn, opaque, &closed);
	/* a close has already let go of the cable (init cleared read_closed) */
	if (!closed)
		c->read_closed = NULL;
	return ret;
}

int sfab_link_cable_queue(struct sfab_link_cable *c, const void *frame, size_t len)
{
	struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(len) };
	size_t need;

	if (c->woff && c->woff == c->wlen)
		c->woff = c->wlen = 0;
	need = c->wlen + sizeof(h) + len;
	if (need > c->wcap) {
		size_t cap = c->wcap ? c->wcap : 16384;
		uint8_t *p;

		if (c->woff) {
			memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
			c->wlen -= c->woff;
			c->woff = 0;
			need = c->wlen + sizeof(h) + len;
		}
		while (cap < need)
			cap *= 2;
		if (cap > SFAB_LINK_CABLE_WBUF_MAX)
			return -1;
		if (cap > c->wcap) {
			p = realloc(c->wbuf, cap);
			if (!p)
				return -1;
			c->wbuf = p;
			c->wcap = cap;
		}
	}
	memcpy(c->wbuf + c->wlen, &h, sizeof(h));
	memcpy(c->wbuf + c->wlen + sizeof(h), frame, len);
	c->wlen += sizeof(h) + len;
	c->frames_out++;
	return 0;
}

int sfab_link_cable_flush(struct sfab_link_cable *c)
{
	while (c->woff < c->wlen) {
		ssize_t n = write(c->fd, c->wbuf + c->woff, c->wlen - c->woff);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		c->woff += n;
	}
	c->woff = c->wlen = 0;
	return 0;
}

static int addr_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

int sfab_link_cable_listen(const char *path)
{
	struct sockaddr_un sa;
	int fd, ret = addr_of(path, &sa);

	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int sfab_link_cable_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd, ret = addr_of(path, &sa);

	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int sfab_link_cable_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
