/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-cable-reentry: the cable parser (sfab_link_cable_read()) over a
 * real socketpair, with a frame callback that does what a malicious guest
 * can make the HCA's callback do: read the same cable again from inside
 * the callback (a scatter DMA'd into the device's own doorbell BAR runs the
 * doorbell handler, which reads the cable), and close the cable (a write
 * error or transmit overflow met inside the callback unplugs it), or close
 * it and plug a new one.  Every frame must reach the callback exactly
 * once, in order, never from a nested read, none after the cable closed,
 * and nothing may be read outside the receive buffer (ASan: the cable is
 * on the heap, its receive buffer at its end, like the device's state).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "../../qemu-model/link/sfab_cable.h"

#define RX_MAX 256

struct rx {
	struct sfab_link_cable *c;
	unsigned int seen[RX_MAX];	/* sequence numbers, delivery order */
	unsigned int n;
	unsigned int depth;		/* callbacks running now */
	unsigned int nested_frames;	/* delivered inside another callback */
	unsigned int after_close;	/* delivered after the cable closed */
	unsigned int bad_payload;
	bool closed;

	/* what the callback does, once, when it sees frame reenter_at */
	int reenter_at;
	int wfd;			/* peer end: frames to add first */
	unsigned int more_first, more_count;
	size_t more_len;
	bool reentered;
	int nested_ret;

	/* ... and at close_at: close the cable, maybe plug replug_fd */
	int close_at;
	int replug_fd;

	int stop_at;			/* return 1 from this frame's callback */
};

static void rx_init(struct rx *r, struct sfab_link_cable *c)
{
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->reenter_at = r->close_at = r->stop_at = -1;
	r->wfd = r->replug_fd = -1;
}

static uint8_t pat(unsigned int seq, size_t i)
{
	return (uint8_t)(seq * 7 + i);
}

/* frames first..first+count-1 of len bytes each, written to the peer end */
static void send_frames(int fd, unsigned int first, unsigned int count,
			size_t len)
{
	uint8_t *buf = malloc(count * (sizeof(struct sfab_wire_cable_hdr) + len));
	size_t off = 0, done = 0;
	unsigned int k;
	size_t i;

	REQUIRE(buf && len >= 4 && len <= SFAB_WIRE_MAX_PKT_LEN);
	for (k = 0; k < count; k++) {
		struct sfab_wire_cable_hdr h = { .len = sfab_cpu_to_be32(len) };
		unsigned int seq = first + k;

		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
		memcpy(buf + off, &seq, 4);
		for (i = 4; i < len; i++)
			buf[off + i] = pat(seq, i);
		off += len;
	}
	while (done < off) {
		ssize_t n = write(fd, buf + done, off - done);

		if (n < 0 && errno == EINTR)
			continue;
		REQUIRE(n > 0);
		done += n;
	}
	free(buf);
}

static int on_frame(void *opaque, const uint8_t *frame, size_t len)
{
	struct rx *r = opaque;
	unsigned int seq = ~0u;
	size_t i;

	if (r->closed)
		r->after_close++;
	if (r->depth)
		r->nested_frames++;
	if (len < 4) {
		r->bad_payload++;
		return 0;
	}
	/* every byte: a stale or out-of-range frame shows here */
	memcpy(&seq, frame, 4);
	for (i = 4; i < len; i++)
		if (frame[i] != pat(seq, i)) {
			r->bad_payload++;
			break;
		}
	if (r->n < RX_MAX)
		r->seen[r->n] = seq;
	r->n++;

	r->depth++;
	if ((int)seq == r->reenter_at && !r->reentered) {
		r->reentered = true;
		if (r->more_count)
			send_frames(r->wfd, r->more_first, r->more_count,
				    r->more_len);
		r->nested_ret = sfab_link_cable_read(r->c, on_frame, r);
	}
	if ((int)seq == r->close_at && !r->closed) {
		sfab_link_cable_close(r->c);
		r->closed = true;
		if (r->replug_fd >= 0)
			sfab_link_cable_init(r->c, r->replug_fd);
	}
	r->depth--;
	return (int)seq == r->stop_at;
}

/* seen[from..from+count) is first, first+1, ... */
static bool seen_in_order(const struct rx *r, unsigned int from,
			  unsigned int first, unsigned int count)
{
	unsigned int i;

	if (from + count > RX_MAX || r->n < from + count)
		return false;
	for (i = 0; i < count; i++)
		if (r->seen[from + i] != first + i)
			return false;
	return true;
}

/* a heap cable on one end of a socketpair; *peer gets the other end */
static struct sfab_link_cable *cable_new(int *peer)
{
	struct sfab_link_cable *c = calloc(1, sizeof(*c));
	int sv[2];

	if (!c || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
		free(c);
		return NULL;
	}
	sfab_link_cable_init(c, sv[0]);
	*peer = sv[1];
	return c;
}

static void cable_free(struct sfab_link_cable *c, int peer)
{
	sfab_link_cable_close(c);
	free(c);
	close(peer);
}

static void check_clean(const struct rx *r)
{
	CHECK_EQ(r->nested_frames, 0);
	CHECK_EQ(r->after_close, 0);
	CHECK_EQ(r->bad_payload, 0);
}

/*
 * Frame 2's callback: the peer sends two more frames meanwhile and the
 * callback reads the cable again.  The nested read must deliver nothing
 * (no replay of frames 0-2 from the buffer) and must leave the outer one
 * intact; the two frames come with the next read.
 */
TEST(reenter_read)
{
	struct rx r;
	int peer, ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	rx_init(&r, c);
	r.reenter_at = 2;
	r.wfd = peer;
	r.more_first = 10;
	r.more_count = 2;
	r.more_len = 100;
	send_frames(peer, 0, 10, 100);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK(r.reentered);
	CHECK_EQ(r.nested_ret, 0);
	CHECK(seen_in_order(&r, 0, 0, 10));
	CHECK_EQ(r.n, 10);
	/* the next poll: the frames that came during the callback */
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.n, 12);
	CHECK(seen_in_order(&r, 0, 0, 12));
	CHECK_EQ(c->frames_in, 12);
	CHECK_EQ(c->bad_frames, 0);
	check_clean(&r);
	cable_free(c, peer);
}

/*
 * The first read fills the receive buffer exactly (64 frames of 1 KiB with
 * their headers) and more waits in the socket: a nested read then has no
 * room at all, which must not look like the peer hanging up.
 */
TEST(reenter_full_buffer)
{
	const size_t len = SFAB_LINK_CABLE_RBUF / 64 -
			   sizeof(struct sfab_wire_cable_hdr);
	struct rx r;
	int peer, ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	rx_init(&r, c);
	r.reenter_at = 1;
	send_frames(peer, 0, 72, len);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK(r.reentered);
	CHECK_EQ(r.nested_ret, 0);
	CHECK_EQ(r.n, 72);
	CHECK(seen_in_order(&r, 0, 0, 72));
	CHECK_EQ(c->fd >= 0, 1);
	check_clean(&r);
	cable_free(c, peer);
}

/*
 * Frame 5's callback closes the cable while the rest of a full buffer is
 * still unparsed: the read stops at once, delivers nothing more and reads
 * nothing of the buffer or the socket after that.
 */
TEST(close_in_callback)
{
	const size_t len = SFAB_LINK_CABLE_RBUF / 64 -
			   sizeof(struct sfab_wire_cable_hdr);
	struct rx r;
	int peer, ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	rx_init(&r, c);
	r.close_at = 5;
	send_frames(peer, 0, 64, len);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.n, 6);
	CHECK(seen_in_order(&r, 0, 0, 6));
	CHECK_EQ(c->fd, -1);
	CHECK_EQ(c->rlen, 0);
	/* a read of the closed cable: unplugged, nothing delivered */
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, -1);
	CHECK_EQ(r.n, 6);
	check_clean(&r);
	cable_free(c, peer);
}

/*
 * Frame 3's callback closes the cable and plugs a new one in its place
 * (a reconnect).  The outer read must not go on with the old stream's
 * bytes, nor read the new cable: its frames come with the next read, from
 * their first.
 */
TEST(close_and_replug)
{
	struct rx r;
	int peer, peer2, sv[2], ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	REQUIRE(fcntl(sv[0], F_SETFL, O_NONBLOCK) == 0);
	peer2 = sv[1];
	rx_init(&r, c);
	r.close_at = 3;
	r.replug_fd = sv[0];
	send_frames(peer, 0, 10, 200);
	send_frames(peer2, 100, 5, 300);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.n, 4);
	CHECK(seen_in_order(&r, 0, 0, 4));
	CHECK_EQ(c->fd, sv[0]);
	CHECK_EQ(c->frames_in, 0);
	check_clean(&r);

	/* the new cable, read afresh */
	r.closed = false;
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.n, 9);
	CHECK(seen_in_order(&r, 4, 100, 5));
	CHECK_EQ(c->frames_in, 5);
	check_clean(&r);
	close(peer);
	cable_free(c, peer2);
}

/*
 * A callback that stops the read (non-zero) leaves the frames after its
 * own in the buffer: the next read hands them out first, even when the
 * socket has nothing new.
 */
TEST(stop_then_read)
{
	struct rx r;
	int peer, ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	rx_init(&r, c);
	r.stop_at = 3;
	send_frames(peer, 0, 10, 64);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 1);
	CHECK_EQ(r.n, 4);
	ret = sfab_link_cable_read(c, on_frame, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.n, 10);
	CHECK(seen_in_order(&r, 0, 0, 10));
	check_clean(&r);
	cable_free(c, peer);
}

/*
 * A peer that keeps the socket full (here: the callback writes a new
 * frame for every one it gets, as a flooding peer would keep writing) does
 * not hold one read for ever: it ends after SFAB_LINK_CABLE_READS_MAX
 * socket reads, the fd stays readable, and the next reads go on in order.
 */
struct flood {
	int wfd;
	unsigned int next_in, next_out, refill_to, bad;
};

#define FLOOD_LEN	4000

static int on_flood(void *opaque, const uint8_t *frame, size_t len)
{
	struct flood *f = opaque;
	unsigned int seq;

	memcpy(&seq, frame, 4);
	if (len != FLOOD_LEN || seq != f->next_in)
		f->bad++;
	f->next_in++;
	if (f->next_out < f->refill_to)
		send_frames(f->wfd, f->next_out++, 1, FLOOD_LEN);
	return 0;
}

TEST(flooding_peer_bounded)
{
	struct flood f = { .next_out = 40, .refill_to = 2040 };
	/* whole frames in READS_MAX full buffers, and one split across */
	unsigned int most = SFAB_LINK_CABLE_READS_MAX * SFAB_LINK_CABLE_RBUF /
			    (sizeof(struct sfab_wire_cable_hdr) + FLOOD_LEN) + 1;
	unsigned int calls = 0, got;
	int peer, ret;
	struct sfab_link_cable *c = cable_new(&peer);

	REQUIRE(c);
	f.wfd = peer;
	send_frames(peer, 0, 40, FLOOD_LEN);
	ret = sfab_link_cable_read(c, on_flood, &f);
	CHECK_EQ(ret, 0);
	got = f.next_in;
	CHECK(got > 0);
	if (got > most)
		fprintf(stderr, "one read handed out %u frames (bound %u)\n",
			got, most);
	CHECK(got <= most);
	/* the rest, over later reads, in order */
	while (f.next_in < f.refill_to && calls++ < 1000) {
		ret = sfab_link_cable_read(c, on_flood, &f);
		REQUIRE(ret == 0);
	}
	CHECK_EQ(f.next_in, f.refill_to);
	CHECK_EQ(f.bad, 0);
	CHECK_EQ(c->bad_frames, 0);
	cable_free(c, peer);
}
