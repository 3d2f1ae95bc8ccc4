/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab cable: length-prefixed IBA frames over an AF_UNIX stream socket,
 * or over a ring pair in a memfd both ends map (sfab_wire.h).
 */
#ifndef _GNU_SOURCE	/* QEMU defines it on the command line */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sfab_cable.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static bool buf_empty(const struct sfab_link_cable_buf *b)
{
	return b->off == b->len;
}

/*
 * Room for @n more bytes at the end of @b, which grows to at most
 * SFAB_LINK_CABLE_WBUF_MAX: where they go (@b->len moved past them), or
 * NULL.
 */
static uint8_t *buf_reserve(struct sfab_link_cable_buf *b, size_t n)
{
	size_t need;
	uint8_t *at;

	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	need = b->len + n;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		uint8_t *p;

		if (b->off) {
			memmove(b->p, b->p + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
			need = b->len + n;
		}
		while (cap < need)
			cap *= 2;
		if (cap > SFAB_LINK_CABLE_WBUF_MAX)
			return NULL;
		if (cap > b->cap) {
			p = realloc(b->p, cap);
			if (!p)
				return NULL;
			b->p = p;
			b->cap = cap;
		}
	}
	at = b->p + b->len;
	b->len += n;
	return at;
}

/* append a record (a cable header of @hlen, then @len bytes): 0, or -1 */
static int buf_put(struct sfab_link_cable_buf *b, uint32_t hlen,
		   const void *data, size_t len)
{
	struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(hlen) };
	uint8_t *at = buf_reserve(b, sizeof(h) + len);

	if (!at)
		return -1;
	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), data, len);
	return 0;
}

static void ring_init(struct sfab_link_cable_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->kick_fd = r->peer_kick_fd = -1;
}

static void ring_close(struct sfab_link_cable_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_len);
	close_fd(&r->kick_fd);
	close_fd(&r->peer_kick_fd);
	free(r->pend.p);
	ring_init(r);
}

static void drop_rx_fds(struct sfab_link_cable *c)
{
	while (c->n_rx_fds)
		close(c->rx_fds[--c->n_rx_fds]);
}

void sfab_link_cable_init(struct sfab_link_cable *c, int fd)
{
	c->fd = fd;
	c->roff = c->rlen = 0;
	c->read_closed = NULL;
	memset(&c->w, 0, sizeof(c->w));
	c->ring_refuse = false;
	ring_init(&c->ring);
	c->n_rx_fds = 0;
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
	free(c->w.p);
	ring_close(&c->ring);
	drop_rx_fds(c);
	sfab_link_cable_init(c, -1);
}

/* --- the ring pair --------------------------------------------------------- */

/* this end's halves of a mapping: the dialling end writes ring 0 */
static void ring_attach(struct sfab_link_cable_ring *r, void *map,
			size_t map_len, uint32_t size, bool dialler)
{
	uint8_t *data = (uint8_t *)map + SFAB_CABLE_RING_DATA_OFF;

	r->hdr = map;
	r->map_len = map_len;
	r->size = size;
	r->dialler = dialler;
	r->tx = &r->hdr->idx[dialler ? 0 : 1];
	r->rx = &r->hdr->idx[dialler ? 1 : 0];
	r->tx_data = data + (dialler ? 0 : size);
	r->rx_data = data + (dialler ? size : 0);
	r->tx_prod = __atomic_load_n(&r->tx->prod, __ATOMIC_ACQUIRE);
	r->tx_pub = r->tx_prod;
	r->rx_cons = __atomic_load_n(&r->rx->cons, __ATOMIC_ACQUIRE);
}

static bool ring_size_ok(uint32_t size)
{
	return size >= SFAB_CABLE_RING_MIN && size <= SFAB_CABLE_RING_MAX &&
	       !(size & (size - 1));
}

static void kick(int fd, uint64_t *count)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) == sizeof(one) && count)
		(*count)++;
}

/*
 * One frame into the ring (not yet published): 0, or -1 when it has no
 * room.  A record that would run past the ring's end leaves a wrap
 * header there and starts at its beginning.
 */
static int ring_put(struct sfab_link_cable_ring *r, const void *frame,
		    uint32_t len)
{
	struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(len) };
	uint32_t rec = sfab_cable_ring_rec_len(len);
	uint32_t cons = __atomic_load_n(&r->tx->cons, __ATOMIC_ACQUIRE);
	uint32_t used = r->tx_prod - cons;
	uint32_t off = r->tx_prod & (r->size - 1), tail = r->size - off;
	uint32_t need = rec > tail ? tail + rec : rec;

	/* a reader's index beyond what was written reads as a full ring */
	if (used > r->size || need > r->size - used)
		return -1;
	if (rec > tail) {
		struct sfab_wire_cable_hdr wrap = {
			.len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_RING_WRAP),
		};

		memcpy(r->tx_data + off, &wrap, sizeof(wrap));
		r->tx_prod += tail;
		off = 0;
	}
	memcpy(r->tx_data + off, &h, sizeof(h));
	memcpy(r->tx_data + off + sizeof(h), frame, len);
	r->tx_prod += rec;
	return 0;
}

/* frames that waited for room go in, in order: true when none is left */
static bool ring_drain_pend(struct sfab_link_cable_ring *r)
{
	struct sfab_link_cable_buf *b = &r->pend;

	while (!buf_empty(b)) {
		struct sfab_wire_cable_hdr h;
		uint32_t len;

		memcpy(&h, b->p + b->off, sizeof(h));
		len = sfab_be32_to_cpu(h.len);
		if (ring_put(r, b->p + b->off + sizeof(h), len))
			return false;
		b->off += sizeof(h) + len;
	}
	b->off = b->len = 0;
	return true;
}

/* make what was written visible; kick the reader if it sleeps */
static void ring_publish(struct sfab_link_cable_ring *r)
{
	if (r->tx_pub == r->tx_prod)
		return;
	r->tx_pub = r->tx_prod;
	__atomic_store_n(&r->tx->prod, r->tx_prod, __ATOMIC_RELEASE);
	/* against the reader's store of need_kick and load of prod */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->tx->need_kick, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&r->tx->need_kick, 0, __ATOMIC_ACQ_REL))
		kick(r->peer_kick_fd, &r->kicks_out);
}

static void ring_flush(struct sfab_link_cable_ring *r)
{
	if (!ring_drain_pend(r)) {
		/* no room: the reader kicks this end when it makes some */
		__atomic_store_n(&r->tx->need_space, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		ring_drain_pend(r);
	}
	ring_publish(r);
}

/*
 * Hand out the ring's frames, each consumed (and its room given back)
 * after its callback, at most SFAB_LINK_CABLE_RING_FRAMES_MAX of them;
 * then tell a writer that waits for room.  Every index and length is
 * read once from the shared memory and checked before it is used: the
 * other end may write anything there.
 */
static int ring_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
		     void *opaque, const bool *closed)
{
	struct sfab_link_cable_ring *r = &c->ring;
	unsigned int frames = 0;
	int ret = 0;

	__atomic_store_n(&r->rx->need_kick, 0, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t prod = __atomic_load_n(&r->rx->prod, __ATOMIC_ACQUIRE);
		uint32_t avail = prod - r->rx_cons;
		uint32_t off = r->rx_cons & (r->size - 1);
		struct sfab_wire_cable_hdr h;
		uint32_t len;

		if (!avail) {
			/* going to sleep: ask for a kick, then look again */
			__atomic_store_n(&r->rx->need_kick, 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (__atomic_load_n(&r->rx->prod, __ATOMIC_ACQUIRE) == r->rx_cons)
				break;
			__atomic_store_n(&r->rx->need_kick, 0, __ATOMIC_RELAXED);
			continue;
		}
		if (avail > r->size || avail < sizeof(h))
			goto bad;
		memcpy(&h, r->rx_data + off, sizeof(h));
		len = sfab_be32_to_cpu(h.len);
		if (len == SFAB_WIRE_CABLE_RING_WRAP) {
			if (r->size - off > avail)
				goto bad;
			r->rx_cons += r->size - off;
			continue;
		}
		if (!len || len > SFAB_WIRE_MAX_PKT_LEN ||
		    sfab_cable_ring_rec_len(len) > avail ||
		    off + sizeof(h) + len > r->size)
			goto bad;
		r->rx_cons += sfab_cable_ring_rec_len(len);
		c->frames_in++;
		ret = fn(opaque, r->rx_data + off + sizeof(h), len);
		/* closed (maybe plugged anew): the mapping is gone */
		if (*closed)
			return ret;
		__atomic_store_n(&r->rx->cons, r->rx_cons, __ATOMIC_RELEASE);
		if (ret)
			break;
		if (++frames == SFAB_LINK_CABLE_RING_FRAMES_MAX) {
			/* more may wait: the poll comes back for it */
			kick(r->kick_fd, NULL);
			break;
		}
	}
	__atomic_store_n(&r->rx->cons, r->rx_cons, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->rx->need_space, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&r->rx->need_space, 0, __ATOMIC_ACQ_REL))
		kick(r->peer_kick_fd, &r->kicks_out);
	return ret;
bad:
	c->bad_frames++;
	return -2;
}

int sfab_link_cable_offer_ring(struct sfab_link_cable *c, uint32_t size)
{
	struct {
		struct sfab_wire_cable_hdr h;
		struct sfab_wire_cable_ctl m;
	} SFAB_WIRE_PACKED msg = {
		.h.len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_CTL |
					  sizeof(struct sfab_wire_cable_ctl)),
		.m.type = sfab_cpu_to_be16(SFAB_CABLE_CTL_RING_OFFER),
		.m.arg = sfab_cpu_to_be32(size),
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(3 * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &msg, .iov_len = sizeof(msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct sfab_wire_cable_ring_hdr *hdr = MAP_FAILED;
	size_t map_len = sfab_cable_ring_map_len(size);
	int fds[3] = { -1, -1, -1 }, ret, i;
	struct cmsghdr *cm;
	ssize_t n;

	if (c->fd < 0 || c->ring.state != SFAB_LINK_CABLE_RING_NONE ||
	    !buf_empty(&c->w) || !ring_size_ok(size))
		return -EINVAL;
	/* fds[0]: the rings; fds[1]: this end's kick; fds[2]: the peer's */
	fds[0] = memfd_create("sfab-cable", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	fds[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fds[2] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0 ||
	    ftruncate(fds[0], map_len) < 0 ||
	    fcntl(fds[0], F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto err;
	hdr = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (hdr == MAP_FAILED)
		goto err;
	hdr->magic = SFAB_CABLE_RING_MAGIC;
	hdr->version = SFAB_CABLE_RING_VERSION;
	hdr->size = size;
	hdr->data = SFAB_CABLE_RING_DATA_OFF;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(3 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	do
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		goto err;
	/* a fresh socket takes 12 bytes; the rest would follow in order */
	if ((size_t)n < sizeof(msg)) {
		uint8_t *at = buf_reserve(&c->w, sizeof(msg) - n);

		if (!at) {
			errno = ENOMEM;
			goto err;
		}
		memcpy(at, (const uint8_t *)&msg + n, sizeof(msg) - n);
	}
	close(fds[0]);
	ring_attach(&c->ring, hdr, map_len, size, true);
	c->ring.kick_fd = fds[1];
	c->ring.peer_kick_fd = fds[2];
	c->ring.state = SFAB_LINK_CABLE_RING_OFFERED;
	return 0;
err:
	ret = -errno;
	if (hdr != MAP_FAILED)
		munmap(hdr, map_len);
	for (i = 0; i < 3; i++)
		close_fd(&fds[i]);
	return ret;
}

int sfab_link_cable_dial(struct sfab_link_cable *c, uint32_t size, bool *hung_up)
{
	if (*hung_up) {
		*hung_up = false;
		return -EPROTO;
	}
	return sfab_link_cable_offer_ring(c, size);
}

/*
 * The listening end takes an offer: the memfd must be sealed against
 * shrinking (a peer that truncated it under the mapping would fault this
 * process) and as large as the header says, the header what this end
 * knows, the eventfds non-blocking (a peer that sent a blocking pipe
 * instead must not hang this end).  0, or -1 (refused).
 */
static int ring_adopt(struct sfab_link_cable *c, uint32_t size)
{
	struct sfab_wire_cable_ring_hdr h, *hdr;
	size_t map_len = sfab_cable_ring_map_len(size);
	struct stat st;
	int seals, i;

	if (c->n_rx_fds != 3 || !ring_size_ok(size))
		return -1;
	seals = fcntl(c->rx_fds[0], F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(c->rx_fds[0], &st) < 0 ||
	    st.st_size < (off_t)map_len)
		return -1;
	for (i = 1; i < 3; i++)
		if (fcntl(c->rx_fds[i], F_SETFL, O_NONBLOCK) < 0)
			return -1;
	hdr = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->rx_fds[0], 0);
	if (hdr == MAP_FAILED)
		return -1;
	memcpy(&h, hdr, sizeof(h));
	if (h.magic != SFAB_CABLE_RING_MAGIC || h.version != SFAB_CABLE_RING_VERSION ||
	    h.size != size || h.data != SFAB_CABLE_RING_DATA_OFF) {
		munmap(hdr, map_len);
		return -1;
	}
	ring_attach(&c->ring, hdr, map_len, size, false);
	c->ring.kick_fd = c->rx_fds[2];
	c->ring.peer_kick_fd = c->rx_fds[1];
	close(c->rx_fds[0]);
	c->n_rx_fds = 0;
	c->ring.state = SFAB_LINK_CABLE_RING_UP;
	return 0;
}

static int queue_ctl(struct sfab_link_cable *c, uint16_t type)
{
	struct sfab_wire_cable_ctl m = { .type = sfab_cpu_to_be16(type) };

	return buf_put(&c->w, SFAB_WIRE_CABLE_CTL | sizeof(m), &m, sizeof(m));
}

/* a control message from the socket: 0, -1 (cable failed) or -2 */
static int on_ctl(struct sfab_link_cable *c, const struct sfab_wire_cable_ctl *m)
{
	struct sfab_link_cable_ring *r = &c->ring;

	switch (sfab_be16_to_cpu(m->type)) {
	case SFAB_CABLE_CTL_RING_OFFER:
		if (r->dialler || r->state != SFAB_LINK_CABLE_RING_NONE)
			return -2;
		if (c->ring_refuse || ring_adopt(c, sfab_be32_to_cpu(m->arg))) {
			drop_rx_fds(c);
			return queue_ctl(c, SFAB_CABLE_CTL_RING_REFUSE) ? -1 : 0;
		}
		/* the socket's last frame: this end's go to the ring now */
		if (queue_ctl(c, SFAB_CABLE_CTL_RING_ACCEPT))
			return -1;
		r->tx_on = true;
		return 0;
	case SFAB_CABLE_CTL_RING_ACCEPT:
		if (!r->dialler || r->state != SFAB_LINK_CABLE_RING_OFFERED)
			return -2;
		r->state = SFAB_LINK_CABLE_RING_UP;
		r->rx_on = true;
		if (queue_ctl(c, SFAB_CABLE_CTL_RING_ON))
			return -1;
		r->tx_on = true;
		return 0;
	case SFAB_CABLE_CTL_RING_REFUSE:
		if (!r->dialler || r->state != SFAB_LINK_CABLE_RING_OFFERED)
			return -2;
		/* never in use, so no owner polls its eventfd */
		ring_close(r);
		r->dialler = true;
		return 0;
	case SFAB_CABLE_CTL_RING_ON:
		if (r->dialler || r->state != SFAB_LINK_CABLE_RING_UP || r->rx_on)
			return -2;
		r->rx_on = true;
		return 0;
	}
	return -2;
}

/* --- the socket ------------------------------------------------------------ */

/*
 * Hand out every complete frame in rbuf[roff..rlen), each consumed before
 * its callback runs; a partial one stays.  Nothing but close (and a new
 * init) moves roff or rlen while a callback runs (a nested read is
 * refused), so roff <= rlen holds throughout.  After the other end's
 * switch-over message nothing but its end of file may come.
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
		if (c->ring.rx_on)
			goto bad;
		if (len & SFAB_WIRE_CABLE_CTL) {
			struct sfab_wire_cable_ctl m;

			if ((len & ~SFAB_WIRE_CABLE_CTL) != sizeof(m))
				goto bad;
			if (c->rlen - c->roff < sizeof(h) + sizeof(m))
				break;
			memcpy(&m, c->rbuf + c->roff + sizeof(h), sizeof(m));
			c->roff += sizeof(h) + sizeof(m);
			ret = on_ctl(c, &m);
			if (ret == -2)
				goto bad;
			c->ctl_in++;
			if (ret)
				return ret;
			continue;
		}
		if (!len || len > SFAB_WIRE_MAX_PKT_LEN)
			goto bad;
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
bad:
	c->bad_frames++;
	return -2;
}

/*
 * read(2), keeping the descriptors a message brings (a ring offer's; at
 * most three are kept, older ones closed): ring_adopt() takes them.
 */
static ssize_t sock_read(struct sfab_link_cable *c, void *buf, size_t len)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(3 * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);

	if (n < 0 && errno == ENOTSOCK)
		return read(c->fd, buf, len);
	if (n < 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, nfd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		drop_rx_fds(c);
		for (k = 0; k < nfd; k++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(fd));
			if (c->n_rx_fds < 3)
				c->rx_fds[c->n_rx_fds++] = fd;
			else
				close(fd);
		}
	}
	return n;
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
		n = sock_read(c, c->rbuf + c->rlen, room);
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

enum { READ_ANY, READ_SOCK, READ_KICK };

static int cable_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
		      void *opaque, int how)
{
	bool closed = false;
	int ret = 0;

	if (c->read_closed) {
		/* from inside a frame callback of this cable's read */
		c->nested_reads++;
		return 0;
	}
	if (c->fd < 0)
		return -1;
	c->read_closed = &closed;
	if (how == READ_KICK && c->ring.kick_fd >= 0) {
		uint64_t v;

		if (read(c->ring.kick_fd, &v, sizeof(v)) == sizeof(v))
			c->ring.kicks_in++;
	}
	/* the socket until the switch-over; for its end of file always */
	if (!c->ring.rx_on || how == READ_SOCK)
		ret = read_frames(c, fn, opaque, &closed);
	if (!closed && !ret && c->ring.rx_on)
		ret = ring_read(c, fn, opaque, &closed);
	/* a close has already let go of the cable (init cleared read_closed) */
	if (!closed)
		c->read_closed = NULL;
	return ret;
}

int sfab_link_cable_read(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn, void *opaque)
{
	return cable_read(c, fn, opaque, READ_ANY);
}

int sfab_link_cable_read_sock(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
			      void *opaque)
{
	return cable_read(c, fn, opaque, READ_SOCK);
}

int sfab_link_cable_read_kick(struct sfab_link_cable *c, sfab_link_cable_frame_fn fn,
			      void *opaque)
{
	return cable_read(c, fn, opaque, READ_KICK);
}

int sfab_link_cable_queue(struct sfab_link_cable *c, const void *frame, size_t len)
{
	struct sfab_link_cable_ring *r = &c->ring;

	if (r->tx_on) {
		/* straight into the ring, unless frames wait for room */
		if (buf_empty(&r->pend) && !ring_put(r, frame, len)) {
			c->frames_out++;
			return 0;
		}
		if (buf_empty(&r->pend))
			r->full++;
		if (buf_put(&r->pend, len, frame, len))
			return -1;
	} else if (buf_put(&c->w, len, frame, len)) {
		return -1;
	}
	c->frames_out++;
	return 0;
}

int sfab_link_cable_flush(struct sfab_link_cable *c)
{
	struct sfab_link_cable_buf *b = &c->w;

	while (b->off < b->len) {
		ssize_t n = write(c->fd, b->p + b->off, b->len - b->off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
			break;
		}
		b->off += n;
	}
	if (b->off == b->len)
		b->off = b->len = 0;
	if (c->ring.tx_on)
		ring_flush(&c->ring);
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
