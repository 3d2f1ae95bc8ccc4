/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab cable: the framing of IBA packets over an AF_UNIX SOCK_STREAM
 * socket (a 32-bit big-endian length, then the frame; see sfab_wire.h).
 *
 * Non-blocking and poll/epoll friendly: sfab_link_cable_read() takes whatever
 * the socket has (several frames per read(2)) and hands each complete frame
 * to a callback; sfab_link_cable_queue() appends to an output buffer that
 * sfab_link_cable_flush() writes with as few write(2) calls as it can.  When
 * sfab_link_cable_want_write() is true the owner waits for EPOLLOUT.
 *
 * The frame callback may do anything with the cable (a guest can make the
 * HCA's callback run a doorbell, which reads the cable, or fail a write,
 * which unplugs it): each frame is consumed before its callback runs, a
 * read of the cable from inside its own callback reads nothing, and a
 * callback that closes the cable (and maybe plugs a new one) ends the read
 * at once, which then touches neither the buffer nor the socket again.
 */
#ifndef SFAB_LINK_CABLE_H
#define SFAB_LINK_CABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_wire.h"

#define SFAB_LINK_CABLE_RBUF		(64 * 1024)
#define SFAB_LINK_CABLE_WBUF_MAX	(4 * 1024 * 1024)
/*
 * Socket reads of one sfab_link_cable_read() call (at most 8 x 64 KiB): a
 * peer that keeps the socket full cannot hold the reader's event loop;
 * what is left waits for the next poll (level-triggered).
 */
#define SFAB_LINK_CABLE_READS_MAX	8

struct sfab_link_cable {
	int fd;
	size_t roff, rlen;		/* input not handed out: rbuf[roff..rlen) */
	/*
	 * Non-NULL while sfab_link_cable_read() runs: the running read's
	 * flag, which sfab_link_cable_close() sets to stop it.
	 */
	bool *read_closed;
	uint8_t *wbuf;
	size_t wlen, wcap, woff;	/* pending output is wbuf[woff..wlen) */
	uint64_t frames_in, frames_out, bad_frames;
	uint64_t nested_reads;		/* reads refused inside a frame callback */
	uint8_t rbuf[SFAB_LINK_CABLE_RBUF];
};

/*
 * Called for each complete frame, already consumed from the buffer; a
 * non-zero return stops the read (the frames after it stay buffered for
 * the next one).  The frame is valid until the callback returns or closes
 * the cable.
 */
typedef int (*sfab_link_cable_frame_fn)(void *opaque, const uint8_t *frame,
				   size_t len);

void sfab_link_cable_init(struct sfab_link_cable *c, int fd);
/* free buffers and close the socket; stops a read in progress */
void sfab_link_cable_close(struct sfab_link_cable *c);

/*
 * Frames left by a stopped read first, then whatever the socket holds.
 * At most SFAB_LINK_CABLE_READS_MAX socket reads.
 * Return: 0 when the socket has nothing more for now (or the read bound
 * was reached: the fd stays readable), -1 on end of file or
 * a socket error (the cable is unplugged; also for a closed cable), -2 on
 * a framing error (a length of zero or beyond SFAB_WIRE_MAX_PKT_LEN), or
 * the callback's non-zero return.  When a callback closed the cable the
 * read returns that callback's return value, nothing else.  Called from
 * inside its own frame callback, it reads nothing, counts nested_reads and
 * returns 0: the outer read goes on, and what the socket still holds waits
 * for the next poll.
 */
int sfab_link_cable_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn, void *opaque);
/* 0, or -1 when the peer has stopped reading for too long (buffer full) */
int sfab_link_cable_queue(struct sfab_link_cable *c, const void *frame, size_t len);
/* 0 (maybe with output still pending), or -1 on a socket error */
int sfab_link_cable_flush(struct sfab_link_cable *c);

/* a read of this cable is running: the caller is inside its frame callback */
static inline bool sfab_link_cable_in_read(const struct sfab_link_cable *c)
{
	return c->read_closed != NULL;
}

static inline bool sfab_link_cable_want_write(const struct sfab_link_cable *c)
{
	return c->wlen > c->woff;
}

/* AF_UNIX helpers: a non-blocking listening or connected socket, or -errno */
int sfab_link_cable_listen(const char *path);
int sfab_link_cable_connect(const char *path);
int sfab_link_cable_accept(int lfd);

#endif /* SFAB_LINK_CABLE_H */
