/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/cable-ring: the cable's ring pair (link/sfab_cable.c, sfab_wire.h
 * "Cable control messages") between two sfab_link_cable ends on a real
 * socketpair, the dialling end ("D", as an HCA or a --connect switch
 * port) and the listening end ("L", a switch port):
 *
 * - the switch-over: frames queued before, during and after it arrive
 *   once each, in order, byte for byte, and after it the socket carries
 *   none of them;
 * - kicks: a reader that sleeps is kicked once per published batch, a
 *   reader that is busy is not kicked at all;
 * - wrap-around over many laps, and a full ring: output waits in the
 *   pending buffer, the reader's kick brings it in, nothing reorders; a
 *   reader that never reads fails the writer's queue (as a full socket
 *   buffer does);
 * - fallback: a listening end that refuses (--cable socket), an offer
 *   without descriptors, an unsealed, short or foreign memfd: all keep the
 *   socket, and the frames still arrive;
 * - a hostile peer: indices or lengths out of range, a control message
 *   out of place, a frame on the socket after the switch-over: framing
 *   errors (-2), never a read outside the mapping (ASan);
 * - a callback that closes the cable in a ring read, and the socket's end
 *   of file after the switch-over.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "../../qemu-model/link/sfab_cable.h"

#define SEEN_MAX 8192

struct rx {
	struct sfab_link_cable *c;
	unsigned int seen[SEEN_MAX];
	unsigned int n;
	unsigned int bad_payload;
	int close_at;			/* close the cable at this frame */
	bool closed;
};

static uint8_t pat(unsigned int seq, size_t i)
{
	return (uint8_t)(seq * 13 + i * 7);
}

/* frame seq: its number, then a pattern; lengths vary with seq */
static size_t frame_len(unsigned int seq)
{
	static const size_t lens[] = { 6, 64, 4138, 300, 1029, 4352, 8, 2000 };

	return lens[seq % 8];
}

static void make_frame(uint8_t *buf, unsigned int seq, size_t len)
{
	size_t i;

	memcpy(buf, &seq, 4);
	for (i = 4; i < len; i++)
		buf[i] = pat(seq, i);
}

static int on_frame(void *opaque, const uint8_t *frame, size_t len)
{
	struct rx *r = opaque;
	unsigned int seq;
	size_t i;

	if (len < 4) {
		r->bad_payload++;
		return 0;
	}
	memcpy(&seq, frame, 4);
	if (len != frame_len(seq))
		r->bad_payload++;
	for (i = 4; i < len; i++)
		if (frame[i] != pat(seq, i)) {
			r->bad_payload++;
			break;
		}
	if (r->n < SEEN_MAX)
		r->seen[r->n] = seq;
	r->n++;
	if ((int)seq == r->close_at) {
		sfab_link_cable_close(r->c);
		r->closed = true;
	}
	return 0;
}

static void rx_init(struct rx *r, struct sfab_link_cable *c)
{
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->close_at = -1;
}

/* seen[] is first, first+1, ..., first+count-1 */
static bool in_order(const struct rx *r, unsigned int first, unsigned int count)
{
	unsigned int i;

	if (r->n != count || count > SEEN_MAX)
		return false;
	for (i = 0; i < count; i++)
		if (r->seen[i] != first + i)
			return false;
	return true;
}

static int queue_seq(struct sfab_link_cable *c, unsigned int seq)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t len = frame_len(seq);

	make_frame(buf, seq, len);
	return sfab_link_cable_queue(c, buf, len);
}

/* two heap cables on a socketpair: *d dials (offers), *l listens */
static bool pair_new(struct sfab_link_cable **d, struct sfab_link_cable **l)
{
	int sv[2];

	*d = calloc(1, sizeof(**d));
	*l = calloc(1, sizeof(**l));
	if (!*d || !*l ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return false;
	sfab_link_cable_init(*d, sv[0]);
	sfab_link_cable_init(*l, sv[1]);
	return true;
}

static void pair_free(struct sfab_link_cable *d, struct sfab_link_cable *l)
{
	sfab_link_cable_close(d);
	sfab_link_cable_close(l);
	free(d);
	free(l);
}

/* both ends read their socket and flush once: the switch-over's steps */
static void pump_sock(struct sfab_link_cable *d, struct rx *rd,
		      struct sfab_link_cable *l, struct rx *rl)
{
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, rl), 0);
	CHECK_EQ(sfab_link_cable_flush(l), 0);
	CHECK_EQ(sfab_link_cable_read_sock(d, on_frame, rd), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
}

/* an up pair: offered, accepted, switched over both ways */
static bool pair_up(struct sfab_link_cable **d, struct sfab_link_cable **l,
		    uint32_t size)
{
	struct rx rd, rl;

	if (!pair_new(d, l) || sfab_link_cable_offer_ring(*d, size))
		return false;
	rx_init(&rd, *d);
	rx_init(&rl, *l);
	pump_sock(*d, &rd, *l, &rl);
	CHECK_EQ(sfab_link_cable_read_sock(*l, on_frame, &rl), 0);
	return (*d)->ring.rx_on && (*d)->ring.tx_on && (*l)->ring.rx_on &&
	       (*l)->ring.tx_on && !rd.n && !rl.n;
}

static uint64_t eventfd_count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * Frames 0-9 go before the offer is answered (the socket), 10-19 while
 * the answer is on its way, 20-29 after: each end gets 0-29 in order,
 * whole, and the frames after the switch-over never touch the socket.
 */
TEST(switch_over_keeps_order)
{
	struct sfab_link_cable *d, *l;
	struct rx rd, rl;
	unsigned int s;
	uint64_t sock_out;

	REQUIRE(pair_new(&d, &l));
	rx_init(&rd, d);
	rx_init(&rl, l);
	CHECK_EQ(sfab_link_cable_offer_ring(d, 64 * 1024), 0);
	CHECK_EQ(sfab_link_cable_kick_fd(d), -1);	/* not in use yet */
	for (s = 0; s < 10; s++) {
		CHECK_EQ(queue_seq(d, s), 0);
		CHECK_EQ(queue_seq(l, s), 0);
	}
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(sfab_link_cable_flush(l), 0);
	/* L takes the offer and frames 0-9 of D; its next frames: the ring */
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), 0);
	CHECK(l->ring.tx_on && !l->ring.rx_on);
	CHECK(sfab_link_cable_kick_fd(l) >= 0);
	for (s = 10; s < 20; s++) {
		CHECK_EQ(queue_seq(d, s), 0);
		CHECK_EQ(queue_seq(l, s), 0);
	}
	CHECK_EQ(sfab_link_cable_flush(l), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	/* D: frames 0-9 and the accept on the socket, 10-19 in the ring */
	CHECK_EQ(sfab_link_cable_read_sock(d, on_frame, &rd), 0);
	CHECK(d->ring.tx_on && d->ring.rx_on);
	CHECK(in_order(&rd, 0, 20));
	sock_out = d->w.len - d->w.off;
	for (s = 20; s < 30; s++) {
		CHECK_EQ(queue_seq(d, s), 0);
		CHECK_EQ(queue_seq(l, s), 0);
	}
	/* nothing more for D's socket than what waited (the RING_ON) */
	CHECK_EQ(d->w.len - d->w.off, sock_out);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(sfab_link_cable_flush(l), 0);
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), 0);
	CHECK(l->ring.rx_on);
	CHECK(in_order(&rl, 0, 30));
	CHECK_EQ(sfab_link_cable_read(d, on_frame, &rd), 0);
	CHECK(in_order(&rd, 0, 30));
	CHECK_EQ(rd.bad_payload + rl.bad_payload, 0);
	CHECK_EQ(d->frames_in, 30);
	CHECK_EQ(l->frames_in, 30);
	CHECK_EQ(d->bad_frames + l->bad_frames, 0);
	CHECK(sfab_link_cable_kick_fd(d) >= 0);
	pair_free(d, l);
}

/*
 * A reader that went to sleep (its read found the ring empty) is kicked
 * once for a batch of 100 frames, not per frame, and not again for a
 * flush with nothing new; a reader that has not gone to sleep since its
 * last kick is not kicked.
 */
TEST(kick_only_a_sleeping_reader)
{
	struct sfab_link_cable *d, *l;
	struct rx rl;
	unsigned int s;

	REQUIRE(pair_up(&d, &l, 1024 * 1024));
	rx_init(&rl, l);
	/* L's read finds nothing: it sleeps */
	CHECK_EQ(sfab_link_cable_read(l, on_frame, &rl), 0);
	CHECK_EQ(rl.n, 0);
	for (s = 0; s < 100; s++)
		CHECK_EQ(queue_seq(d, s), 0);
	/* written, not yet published: the owner must flush */
	CHECK(sfab_link_cable_want_write(d));
	CHECK(!sfab_link_cable_want_pollout(d));
	CHECK_EQ(eventfd_count(sfab_link_cable_kick_fd(l)), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK(!sfab_link_cable_want_write(d));
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(d->ring.kicks_out, 1);
	/* another batch before L woke: it was kicked already */
	for (s = 100; s < 150; s++)
		CHECK_EQ(queue_seq(d, s), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(d->ring.kicks_out, 1);
	CHECK_EQ(sfab_link_cable_read_kick(l, on_frame, &rl), 0);
	CHECK_EQ(l->ring.kicks_in, 1);
	CHECK(in_order(&rl, 0, 150));
	/* L drained the ring and sleeps again: the next batch kicks it */
	CHECK_EQ(queue_seq(d, 150), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(d->ring.kicks_out, 2);
	CHECK_EQ(eventfd_count(sfab_link_cable_kick_fd(l)), 1);
	CHECK_EQ(sfab_link_cable_read(l, on_frame, &rl), 0);
	CHECK(in_order(&rl, 0, 151));
	CHECK_EQ(rl.bad_payload, 0);
	pair_free(d, l);
}

/*
 * A 64 KiB ring, 3000 frames of mixed sizes (about 70 laps) written in
 * bursts of 60 (about 87 KiB), bigger than the ring: the writer's excess waits, its need for
 * room kicks it back (the reader's kick), and every frame arrives once,
 * in order, whole.
 */
TEST(wrap_and_full_ring)
{
	struct sfab_link_cable *d, *l;
	struct rx rl, rd;
	unsigned int s = 0, rounds = 0;
	const unsigned int total = 3000;

	REQUIRE(pair_up(&d, &l, 64 * 1024));
	rx_init(&rl, l);
	rx_init(&rd, d);
	while (rl.n < total && rounds++ < 1000) {
		unsigned int k;

		for (k = 0; k < 60 && s < total; k++, s++)
			CHECK_EQ(queue_seq(d, s), 0);
		CHECK_EQ(sfab_link_cable_flush(d), 0);
		CHECK_EQ(sfab_link_cable_read_kick(l, on_frame, &rl), 0);
		/* room was made: D is kicked if it asked, and moves the rest in */
		CHECK_EQ(sfab_link_cable_read_kick(d, on_frame, &rd), 0);
		CHECK_EQ(sfab_link_cable_flush(d), 0);
	}
	CHECK(in_order(&rl, 0, total));
	CHECK_EQ(rl.bad_payload, 0);
	CHECK(d->ring.full > 0);		/* the bursts did not fit */
	CHECK(l->ring.kicks_out > 0);		/* ... and L gave room back */
	CHECK(d->ring.kicks_in > 0);
	CHECK(!sfab_link_cable_want_write(d));
	CHECK_EQ(rd.n, 0);
	pair_free(d, l);
}

/* a reader that never reads: the writer's queue fails past 4 MiB */
TEST(stalled_reader_fails_the_writer)
{
	struct sfab_link_cable *d, *l;
	unsigned int s;
	int ret = 0;

	REQUIRE(pair_up(&d, &l, 64 * 1024));
	for (s = 0; s < 4000 && !ret; s++) {
		ret = queue_seq(d, s);
		if (!ret)
			CHECK_EQ(sfab_link_cable_flush(d), 0);
	}
	CHECK_EQ(ret, -1);
	CHECK(sfab_link_cable_want_write(d));
	CHECK(!sfab_link_cable_want_pollout(d));
	CHECK(sfab_link_cable_pending(d) > 3 * 1024 * 1024);
	pair_free(d, l);
}

/* the frames of a ring_refuse end's cable, or of a refused offer, flow on the socket */
static void check_socket_cable(struct sfab_link_cable *d, struct sfab_link_cable *l)
{
	struct rx rd, rl;
	unsigned int s;

	rx_init(&rd, d);
	rx_init(&rl, l);
	for (s = 0; s < 20; s++) {
		CHECK_EQ(queue_seq(d, s), 0);
		CHECK_EQ(queue_seq(l, s), 0);
	}
	pump_sock(d, &rd, l, &rl);
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), 0);
	CHECK(in_order(&rd, 0, 20));
	CHECK(in_order(&rl, 0, 20));
	CHECK_EQ(sfab_link_cable_kick_fd(d), -1);
	CHECK_EQ(sfab_link_cable_kick_fd(l), -1);
	CHECK(!d->ring.hdr && !l->ring.hdr);
	CHECK_EQ(d->bad_frames + l->bad_frames, 0);
}

TEST(refused_offer_keeps_the_socket)
{
	struct sfab_link_cable *d, *l;

	REQUIRE(pair_new(&d, &l));
	l->ring_refuse = true;
	CHECK_EQ(sfab_link_cable_offer_ring(d, 64 * 1024), 0);
	check_socket_cable(d, l);
	CHECK_EQ(d->ring.state, SFAB_LINK_CABLE_RING_NONE);
	pair_free(d, l);
}

/* an offer message with @nfds descriptors, sent by hand */
static void send_offer(int fd, uint32_t size, const int *fds, int nfds)
{
	struct {
		struct sfab_wire_cable_hdr h;
		struct sfab_wire_cable_ctl m;
	} SFAB_WIRE_PACKED msg = {
		.h.len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_CTL | 8),
		.m.type = sfab_cpu_to_be16(SFAB_CABLE_CTL_RING_OFFER),
		.m.arg = sfab_cpu_to_be32(size),
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(3 * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &msg, .iov_len = sizeof(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	CHECK_EQ(sendmsg(fd, &mh, 0), sizeof(msg));
}

/* read L once, then what it answers on its raw peer socket @fd */
static uint16_t answer_of(struct sfab_link_cable *l, int fd)
{
	struct {
		struct sfab_wire_cable_hdr h;
		struct sfab_wire_cable_ctl m;
	} SFAB_WIRE_PACKED msg;
	struct rx rl;

	rx_init(&rl, l);
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), 0);
	CHECK_EQ(sfab_link_cable_flush(l), 0);
	if (read(fd, &msg, sizeof(msg)) != sizeof(msg))
		return 0;
	CHECK_EQ(sfab_be32_to_cpu(msg.h.len), SFAB_WIRE_CABLE_CTL | 8);
	return sfab_be16_to_cpu(msg.m.type);
}

/* a memfd of @len bytes with a ring header, sealed or not */
static int ring_memfd(size_t len, uint32_t size, uint32_t magic, bool seal)
{
	struct sfab_wire_cable_ring_hdr h = {
		.magic = magic, .version = SFAB_CABLE_RING_VERSION,
		.size = size, .data = SFAB_CABLE_RING_DATA_OFF,
	};
	int fd = memfd_create("test", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, len) < 0 ||
	    pwrite(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0))
		return -1;
	return fd;
}

/*
 * Offers a listening end must refuse, each on a fresh cable from a raw
 * peer: no descriptors, two, an unsealed memfd (its peer could shrink it
 * under the mapping), one shorter than its rings, a bad magic, a size
 * that is not a power of two.  Each answer is RING_REFUSE, no descriptor
 * is left open, and the socket goes on carrying frames.
 */
TEST(bad_offers_are_refused)
{
	const uint32_t sz = 64 * 1024;
	const size_t full = sfab_cable_ring_map_len(sz);
	struct {
		const char *what;
		size_t len;
		uint32_t size, magic;
		bool seal;
		int nfds;
	} cases[] = {
		{ "no descriptors", full, sz, SFAB_CABLE_RING_MAGIC, true, 0 },
		{ "two descriptors", full, sz, SFAB_CABLE_RING_MAGIC, true, 2 },
		{ "unsealed", full, sz, SFAB_CABLE_RING_MAGIC, false, 3 },
		{ "short", full - 1, sz, SFAB_CABLE_RING_MAGIC, true, 3 },
		{ "bad magic", full, sz, 0x12345678, true, 3 },
		{ "odd size", full, sz - 8, SFAB_CABLE_RING_MAGIC, true, 3 },
		{ "too small", full, 4096, SFAB_CABLE_RING_MAGIC, true, 3 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sfab_link_cable *l = calloc(1, sizeof(*l));
		int sv[2], fds[3], open_before, open_after, k;
		uint16_t ans;
		uint8_t frame[64];
		struct rx rl;

		REQUIRE(l && !socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
		sfab_link_cable_init(l, sv[1]);
		/* the lowest free descriptor, before any of the offer's */
		open_before = dup(0);
		close(open_before);
		fds[0] = ring_memfd(cases[i].len, cases[i].size, cases[i].magic,
				    cases[i].seal);
		fds[1] = eventfd(0, 0);
		fds[2] = eventfd(0, 0);
		REQUIRE(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
		send_offer(sv[0], cases[i].size, fds, cases[i].nfds);
		for (k = 0; k < 3; k++)
			close(fds[k]);
		ans = answer_of(l, sv[0]);
		if (ans != SFAB_CABLE_CTL_RING_REFUSE)
			fprintf(stderr, "  offer '%s' answered %u\n", cases[i].what, ans);
		CHECK_EQ(ans, SFAB_CABLE_CTL_RING_REFUSE);
		CHECK_EQ(l->ring.state, SFAB_LINK_CABLE_RING_NONE);
		CHECK_EQ(l->n_rx_fds, 0);
		open_after = dup(0);
		close(open_after);
		CHECK_EQ(open_after, open_before);	/* none kept open */
		/* the socket still carries a frame after it */
		make_frame(frame, 7, 64);
		{
			struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(64) };

			CHECK_EQ(write(sv[0], &h, 4), 4);
			CHECK_EQ(write(sv[0], frame, 64), 64);
		}
		rx_init(&rl, l);
		CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), 0);
		CHECK_EQ(rl.n, 1);
		CHECK_EQ(l->bad_frames, 0);
		sfab_link_cable_close(l);
		free(l);
		close(sv[0]);
	}
}

/* a listening end that accepted takes no second offer, and ON only once */
TEST(control_out_of_place)
{
	struct sfab_link_cable *d, *l;
	struct sfab_wire_cable_ctl m = { .type = sfab_cpu_to_be16(SFAB_CABLE_CTL_RING_ACCEPT) };
	struct rx rl;

	/* ACCEPT sent to a listening end: a framing error */
	REQUIRE(pair_new(&d, &l));
	rx_init(&rl, l);
	{
		struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_CTL | 8) };

		CHECK_EQ(write(d->fd, &h, 4), 4);
		CHECK_EQ(write(d->fd, &m, 8), 8);
	}
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), -2);
	CHECK_EQ(l->bad_frames, 1);
	pair_free(d, l);

	/* an unknown control type, and a control length that is not 8 */
	REQUIRE(pair_new(&d, &l));
	rx_init(&rl, l);
	m.type = sfab_cpu_to_be16(99);
	{
		struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_CTL | 8) };

		CHECK_EQ(write(d->fd, &h, 4), 4);
		CHECK_EQ(write(d->fd, &m, 8), 8);
	}
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), -2);
	pair_free(d, l);
	REQUIRE(pair_new(&d, &l));
	rx_init(&rl, l);
	{
		struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_CTL | 4096) };

		CHECK_EQ(write(d->fd, &h, 4), 4);
	}
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), -2);
	pair_free(d, l);

	/* a frame on the socket after the switch-over */
	REQUIRE(pair_up(&d, &l, 64 * 1024));
	rx_init(&rl, l);
	{
		struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(64) };
		uint8_t frame[64];

		make_frame(frame, 1, 64);
		CHECK_EQ(write(d->fd, &h, 4), 4);
		CHECK_EQ(write(d->fd, frame, 64), 64);
	}
	CHECK_EQ(sfab_link_cable_read_sock(l, on_frame, &rl), -2);
	CHECK_EQ(rl.n, 0);
	pair_free(d, l);
}

/*
 * The peer writes nonsense into the shared indices and records: a prod
 * beyond the ring, a length beyond the largest packet, a zero length, a
 * record that runs past the ring's end, a wrap marker past what was
 * written.  Each read is a framing error, touching nothing outside the
 * mapping (ASan would say).
 */
TEST(hostile_ring_contents)
{
	enum { PROD_FAR, LEN_BIG, LEN_ZERO, PAST_END, WRAP_SHORT, NCASES };
	unsigned int k;

	for (k = 0; k < NCASES; k++) {
		struct sfab_link_cable *d, *l;
		struct sfab_wire_cable_ring_idx *idx;
		struct sfab_wire_cable_hdr h;
		uint32_t size = 64 * 1024;
		uint8_t *data;
		struct rx rl;

		REQUIRE(pair_up(&d, &l, size));
		rx_init(&rl, l);
		/* D's ring (ring 0), written by hand */
		idx = &d->ring.hdr->idx[0];
		data = (uint8_t *)d->ring.hdr + SFAB_CABLE_RING_DATA_OFF;
		switch (k) {
		case PROD_FAR:
			/* a good record, but "written" more than the ring holds */
			h.len = sfab_cpu_to_be32(64);
			memcpy(data, &h, 4);
			make_frame(data + 4, 1, 64);
			__atomic_store_n(&idx->prod, size + 8, __ATOMIC_RELEASE);
			break;
		case LEN_BIG:
			h.len = sfab_cpu_to_be32(SFAB_WIRE_MAX_PKT_LEN + 1);
			memcpy(data, &h, 4);
			__atomic_store_n(&idx->prod, 8192, __ATOMIC_RELEASE);
			break;
		case LEN_ZERO:
			h.len = 0;
			memcpy(data, &h, 4);
			__atomic_store_n(&idx->prod, 8, __ATOMIC_RELEASE);
			break;
		case PAST_END:
			/* a record at the last 8 bytes that says 4000 */
			__atomic_store_n(&idx->cons, size - 8, __ATOMIC_RELEASE);
			l->ring.rx_cons = size - 8;
			h.len = sfab_cpu_to_be32(4000);
			memcpy(data + size - 8, &h, 4);
			__atomic_store_n(&idx->prod, size - 8 + 4008, __ATOMIC_RELEASE);
			break;
		case WRAP_SHORT:
			h.len = sfab_cpu_to_be32(SFAB_WIRE_CABLE_RING_WRAP);
			memcpy(data, &h, 4);
			__atomic_store_n(&idx->prod, 8, __ATOMIC_RELEASE);
			break;
		}
		CHECK_EQ(sfab_link_cable_read(l, on_frame, &rl), -2);
		CHECK_EQ(rl.n, 0);
		CHECK_EQ(l->bad_frames, 1);
		pair_free(d, l);
	}
}

/* a frame callback closes the cable in a ring read: the read stops there */
TEST(close_inside_ring_read)
{
	struct sfab_link_cable *d, *l;
	struct rx rl;
	unsigned int s;

	REQUIRE(pair_up(&d, &l, 64 * 1024));
	rx_init(&rl, l);
	rl.close_at = 3;
	for (s = 0; s < 8; s++)
		CHECK_EQ(queue_seq(d, s), 0);
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	CHECK_EQ(sfab_link_cable_read(l, on_frame, &rl), 0);
	CHECK(rl.closed);
	CHECK(in_order(&rl, 0, 4));
	CHECK_EQ(l->fd, -1);
	CHECK(!l->ring.hdr);
	/* D sees the end of file on its socket */
	CHECK_EQ(sfab_link_cable_read_sock(d, on_frame, &rl), -1);
	pair_free(d, l);
}

/*
 * More frames than one read hands out (SFAB_LINK_CABLE_RING_FRAMES_MAX):
 * the read stops there and makes its own eventfd readable, so that the
 * poll comes back for the rest.
 */
TEST(bounded_read_kicks_itself)
{
	struct sfab_link_cable *d, *l;
	struct rx rl;
	unsigned int s, n = SFAB_LINK_CABLE_RING_FRAMES_MAX + 10;

	REQUIRE(pair_up(&d, &l, 4 * 1024 * 1024));
	rx_init(&rl, l);
	for (s = 0; s < n; s++)
		CHECK_EQ(queue_seq(d, s * 8 + 1), 0);	/* 64-byte frames */
	CHECK_EQ(sfab_link_cable_flush(d), 0);
	/* L slept: D's kick, which this read clears */
	CHECK_EQ(sfab_link_cable_read_kick(l, on_frame, &rl), 0);
	CHECK_EQ(rl.n, SFAB_LINK_CABLE_RING_FRAMES_MAX);
	CHECK_EQ(eventfd_count(sfab_link_cable_kick_fd(l)), 1);
	CHECK_EQ(sfab_link_cable_read(l, on_frame, &rl), 0);
	CHECK_EQ(rl.n, n);
	CHECK_EQ(rl.bad_payload, 0);
	pair_free(d, l);
}
