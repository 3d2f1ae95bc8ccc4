/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab cable: the framing of IBA packets over an AF_UNIX SOCK_STREAM
 * socket (a 32-bit big-endian length, then the frame; see sfab_wire.h),
 * and the ring pair in shared memory that the two ends may move their
 * frames to once connected (sfab_wire.h, "Cable control messages").
 *
 * Non-blocking and poll/epoll friendly: sfab_link_cable_read() takes whatever
 * the cable has (several frames per read(2), or straight from the ring)
 * and hands each complete frame to a callback; sfab_link_cable_queue()
 * appends to the output (the socket's buffer, or the ring) that
 * sfab_link_cable_flush() writes with as few write(2) calls as it can, or
 * publishes to the ring with an eventfd kick only when the reader sleeps.
 * When sfab_link_cable_want_pollout() is true the owner waits for EPOLLOUT.
 *
 * The owner polls the socket (sfab_link_cable_read_sock() on EPOLLIN: the
 * switch-over messages, and the end of file that unplugs the cable) and,
 * while sfab_link_cable_kick_fd() is not -1, that eventfd
 * (sfab_link_cable_read_kick(): frames in the ring, or room in the peer's
 * ring for output that waits).  The dialling end offers the ring
 * (sfab_link_cable_offer_ring()); the listening end takes it unless
 * ring_refuse is set.
 *
 * The frame callback may do anything with the cable (a guest can make the
 * HCA's callback run a doorbell, which reads the cable, or fail a write,
 * which unplugs it): each frame is consumed before its callback runs, a
 * read of the cable from inside its own callback reads nothing, and a
 * callback that closes the cable (and maybe plugs a new one) ends the read
 * at once, which then touches neither the buffer, the ring nor the socket
 * again.  A frame in the ring stays in place (no copy) until its callback
 * returns.
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
/* ... and frames of one read of the ring; then the reader kicks itself */
#define SFAB_LINK_CABLE_RING_FRAMES_MAX	512
/* the bytes of each ring a dialling end offers: 256 full-size packets */
#define SFAB_LINK_CABLE_RING_SIZE	(1024 * 1024)

/* output waiting: for the socket, or for room in the ring */
struct sfab_link_cable_buf {
	uint8_t *p;
	size_t len, cap, off;		/* pending is p[off..len) */
};

enum sfab_link_cable_ring_state {
	SFAB_LINK_CABLE_RING_NONE,	/* the socket is the cable */
	SFAB_LINK_CABLE_RING_OFFERED,	/* dialling end: RING_OFFER sent */
	SFAB_LINK_CABLE_RING_UP,	/* mapped: tx_on, then rx_on */
};

struct sfab_link_cable_ring {
	enum sfab_link_cable_ring_state state;
	bool dialler;			/* this end offered */
	bool tx_on, rx_on;		/* frames go to / come from the ring */
	struct sfab_wire_cable_ring_hdr *hdr;	/* the mapping */
	size_t map_len;
	uint32_t size;			/* bytes per ring (this end's copy) */
	struct sfab_wire_cable_ring_idx *tx, *rx;
	uint8_t *tx_data, *rx_data;
	uint32_t tx_prod;		/* written; published at the flush */
	uint32_t tx_pub;		/* what the flush published */
	uint32_t rx_cons;
	int kick_fd;			/* this end's eventfd (poll it) */
	int peer_kick_fd;		/* the other end's */
	struct sfab_link_cable_buf pend;	/* output the ring had no room for */
	uint64_t kicks_out, kicks_in, full;
};

struct sfab_link_cable {
	int fd;
	size_t roff, rlen;		/* input not handed out: rbuf[roff..rlen) */
	/*
	 * Non-NULL while sfab_link_cable_read() runs: the running read's
	 * flag, which sfab_link_cable_close() sets to stop it.
	 */
	bool *read_closed;
	struct sfab_link_cable_buf w;	/* socket output */
	bool ring_refuse;		/* listening end: keep the socket */
	struct sfab_link_cable_ring ring;
	int rx_fds[3];			/* descriptors a recvmsg() brought */
	unsigned int n_rx_fds;
	uint64_t frames_in, frames_out, bad_frames;
	uint64_t ctl_in;		/* control messages taken from the socket */
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
/* free buffers, unmap the ring and close the socket; stops a read in progress */
void sfab_link_cable_close(struct sfab_link_cable *c);

/*
 * The dialling end, right after init: create the ring pair (@size bytes
 * each, a power of two from SFAB_CABLE_RING_MIN to _MAX) and offer it.
 * 0, or -errno (the socket stays the cable).
 */
int sfab_link_cable_offer_ring(struct sfab_link_cable *c, uint32_t size);

/*
 * Frames left by a stopped read first, then whatever the cable holds:
 * the ring once this end reads it, the socket before.
 * At most SFAB_LINK_CABLE_READS_MAX socket reads, or
 * SFAB_LINK_CABLE_RING_FRAMES_MAX frames of the ring (and then the
 * reader's eventfd is made readable, so that its poll comes back).
 * Return: 0 when the socket has nothing more for now (or the read bound
 * was reached: the fd stays readable), -1 on end of file or
 * a socket error (the cable is unplugged; also for a closed cable), -2 on
 * a framing error (a length of zero or beyond SFAB_WIRE_MAX_PKT_LEN, a
 * control message out of place, a ring whose indices are impossible), or
 * the callback's non-zero return.  When a callback closed the cable the
 * read returns that callback's return value, nothing else.  Called from
 * inside its own frame callback, it reads nothing, counts nested_reads and
 * returns 0: the outer read goes on, and what the cable still holds waits
 * for the next poll.
 */
int sfab_link_cable_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn, void *opaque);
/* as above, for the socket's EPOLLIN: the socket first (always), then the ring */
int sfab_link_cable_read_sock(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
			      void *opaque);
/* as sfab_link_cable_read(), for the kick eventfd's EPOLLIN (which it clears) */
int sfab_link_cable_read_kick(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
			      void *opaque);
/* 0, or -1 when the peer has stopped reading for too long (buffer full) */
int sfab_link_cable_queue(struct sfab_link_cable *c, const void *frame, size_t len);
/* 0 (maybe with output still pending), or -1 on a socket error */
int sfab_link_cable_flush(struct sfab_link_cable *c);

/* a read of this cable is running: the caller is inside its frame callback */
static inline bool sfab_link_cable_in_read(const struct sfab_link_cable *c)
{
	return c->read_closed != NULL;
}

/*
 * Output is waiting: for the socket, for room in the ring, or in the ring
 * for its flush (sfab_link_cable_flush() publishes it)
 */
static inline bool sfab_link_cable_want_write(const struct sfab_link_cable *c)
{
	return c->w.len > c->w.off || c->ring.pend.len > c->ring.pend.off ||
	       c->ring.tx_prod != c->ring.tx_pub;
}

/* output is waiting for the socket: wait for EPOLLOUT */
static inline bool sfab_link_cable_want_pollout(const struct sfab_link_cable *c)
{
	return c->w.len > c->w.off;
}

/* bytes of output waiting */
static inline size_t sfab_link_cable_pending(const struct sfab_link_cable *c)
{
	return c->w.len - c->w.off + c->ring.pend.len - c->ring.pend.off;
}

/*
 * The eventfd to poll for EPOLLIN while the ring is in use (from the
 * switch-over on; it stays the same until the cable closes), else -1.
 */
static inline int sfab_link_cable_kick_fd(const struct sfab_link_cable *c)
{
	return c->ring.tx_on || c->ring.rx_on ? c->ring.kick_fd : -1;
}

/*
 * This end offered the ring pair and has no answer yet.  A peer that
 * hangs up on an offer may be one that does not know rings (an older
 * switch takes the control message for a framing error): the owner keeps
 * this, as it closes the cable, for sfab_link_cable_dial().
 */
static inline bool sfab_link_cable_offer_pending(const struct sfab_link_cable *c)
{
	return c->ring.state == SFAB_LINK_CABLE_RING_OFFERED;
}

/*
 * The dialling end, right after init: offer the ring pair
 * (sfab_link_cable_offer_ring(), @size bytes each), unless *@hung_up
 * says the peer hung up on the last offer (sfab_link_cable_offer_pending()
 * at the last close): that connection goes without one, the next offers
 * again (*@hung_up is cleared).  0 (offered), -EPROTO (not this time) or
 * the offer's -errno; without an offer the socket carries the frames.
 */
int sfab_link_cable_dial(struct sfab_link_cable *c, uint32_t size, bool *hung_up);

/* AF_UNIX helpers: a non-blocking listening or connected socket, or -errno */
int sfab_link_cable_listen(const char *path);
int sfab_link_cable_connect(const char *path);
int sfab_link_cable_accept(int lfd);

#endif /* SFAB_LINK_CABLE_H */
