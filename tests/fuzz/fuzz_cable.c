/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/cable: the cable framing (qemu-model/link/sfab_cable.c) over a real
 * socketpair, with the bytes on the socket and what the frame callback
 * does both chosen by the input.  A malicious guest controls the bytes its
 * HCA sends (the switch reads them) and, through its own DMA, what the
 * HCA's callback does in the middle of a read: read the cable again, close
 * it, close it and plug a new one, queue an answer.
 *
 * Input: operations, one byte each and then their operands:
 *	RAW	bytes written to the far end as they are (any framing)
 *	FRAME	a well-formed frame of a chosen length
 *	READ	sfab_link_cable_read(); each frame's callback takes one more
 *		byte saying what it does (nothing, read again, close, close
 *		and plug a new cable, stop the read, queue a frame, write
 *		more to the far end)
 *	QUEUE	a frame queued on the cable and flushed
 *	DRAIN	the far end reads what the cable wrote
 *	HANGUP	the far end closes
 *	CTL	a well-formed cable control message of any type (a ring
 *		offer, the other three, an unknown one)
 *
 * Invariants (a reference parser of the bytes actually written is the
 * oracle): each callback gets the next frame of the stream, whole and
 * byte for byte, exactly once, in order; never from a read nested in a
 * callback (that read returns 0 and delivers nothing); none after the
 * cable closed; a framing error (-2) only where the stream has a length
 * of zero or beyond SFAB_WIRE_MAX_PKT_LEN, or a control message other
 * than a ring offer (the cable is a listening end); each ring offer it
 * takes (sfab_link_cable.ctl_in) is the next thing in the stream, and
 * the far end gets its RING_REFUSE in turn; a read delivers at most what
 * SFAB_LINK_CABLE_READS_MAX socket reads hold; at the end every complete
 * frame written has been delivered.  The far end gets the queued frames,
 * whole and in order.  ASan watches the receive buffer (the cable is on
 * the heap, its buffer at its end).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../qemu-model/link/sfab_cable.h"

enum { OP_RAW, OP_FRAME, OP_READ, OP_QUEUE, OP_DRAIN, OP_HANGUP, OP_CTL,
       OP__COUNT };
enum {
	CB_NOTHING, CB_NESTED, CB_CLOSE, CB_REPLUG, CB_STOP, CB_QUEUE,
	CB_WRITE, CB__COUNT,
};

#define MAX_OPS		128
#define STREAM_MAX	(1U << 20)
#define HDR		sizeof(struct sfab_wire_cable_hdr)

/* one direction of a cable: every byte written into it, and how far read */
struct ref {
	uint8_t *b;
	size_t n;		/* bytes written */
	size_t at;		/* bytes the reader has been handed (frames) */
};

static struct {
	struct fz f;
	struct sfab_link_cable *c;
	int peer;		/* the far end's fd, -1 once it hung up */
	struct ref in;		/* far end -> cable */
	struct ref out;		/* cable -> far end (queued frames) */
	size_t out_read;	/* bytes the far end read of out */
	unsigned int depth;	/* callbacks running */
	bool closed;		/* the cable was closed during this read */
	bool dead;		/* a framing error or EOF: the owner unplugs */
	unsigned long delivered;	/* frame bytes this read */
	uint64_t ctl_seen;	/* of the cable's ctl_in, what the model took */
} S;

static uint8_t stream_in[STREAM_MAX], stream_out[STREAM_MAX + 8 * 4096];

#define CTL_LEN		((long)sizeof(struct sfab_wire_cable_ctl))
#define REF_OFFER	(-3)

/*
 * the length of the next frame in @r, or -1 (incomplete), -2 (bad),
 * REF_OFFER (a ring offer: the cable, a listening end that gets no
 * descriptors with it, takes it and answers RING_REFUSE; any other control
 * message is out of turn for it, a framing error)
 */
static long ref_next(const struct ref *r)
{
	uint32_t len;

	if (r->n - r->at < HDR)
		return -1;
	len = (uint32_t)r->b[r->at] << 24 | (uint32_t)r->b[r->at + 1] << 16 |
	      (uint32_t)r->b[r->at + 2] << 8 | r->b[r->at + 3];
	if (len & SFAB_WIRE_CABLE_CTL) {
		if ((len & ~SFAB_WIRE_CABLE_CTL) != CTL_LEN)
			return -2;
		if (r->n - r->at - HDR < CTL_LEN)
			return -1;
		return ((r->b[r->at + HDR] << 8) | r->b[r->at + HDR + 1]) ==
		       SFAB_CABLE_CTL_RING_OFFER ? REF_OFFER : -2;
	}
	if (!len || len > SFAB_WIRE_MAX_PKT_LEN)
		return -2;
	if (r->n - r->at - HDR < len)
		return -1;
	return len;
}

static void plug(void)
{
	int sv[2];

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			  0, sv));
	S.c = calloc(1, sizeof(*S.c));
	CHECK(S.c);
	sfab_link_cable_init(S.c, sv[0]);
	S.peer = sv[1];
	S.in.n = S.in.at = 0;
	S.out.n = S.out.at = 0;
	S.out_read = 0;
	S.dead = false;
	S.ctl_seen = 0;
}

/*
 * The control messages the cable took since the model last looked: each
 * is a ring offer in the stream, and the cable's RING_REFUSE is due on
 * the far end's side, after what it queued before.
 */
static void take_ctl(void)
{
	static const uint8_t refuse[HDR + CTL_LEN] = {
		0x80, 0, 0, CTL_LEN, 0, SFAB_CABLE_CTL_RING_REFUSE,
	};

	while (S.c && S.ctl_seen < S.c->ctl_in) {
		CHECK_EQ(ref_next(&S.in), REF_OFFER);
		S.in.at += HDR + CTL_LEN;
		S.ctl_seen++;
		if (S.out.n + sizeof(refuse) <= sizeof(stream_out)) {
			memcpy(S.out.b + S.out.n, refuse, sizeof(refuse));
			S.out.n += sizeof(refuse);
		}
	}
}

static void unplug(void)
{
	if (!S.c)
		return;
	sfab_link_cable_close(S.c);
	free(S.c);
	S.c = NULL;
	if (S.peer >= 0)
		close(S.peer);
	S.peer = -1;
}

/* bytes to the far end, recorded as far as the socket took them */
static void peer_write(const uint8_t *p, size_t len)
{
	ssize_t n;

	if (S.peer < 0 || len > STREAM_MAX - S.in.n)
		return;
	n = write(S.peer, p, len);
	if (n > 0) {
		memcpy(S.in.b + S.in.n, p, n);
		S.in.n += n;
	}
}

static void write_frame(uint32_t len, uint8_t seed)
{
	static uint8_t buf[HDR + SFAB_WIRE_MAX_PKT_LEN];
	uint32_t i;

	buf[0] = (uint8_t)(len >> 24);
	buf[1] = (uint8_t)(len >> 16);
	buf[2] = (uint8_t)(len >> 8);
	buf[3] = (uint8_t)len;
	for (i = 0; i < len; i++)
		buf[HDR + i] = (uint8_t)(seed + i * 13);
	peer_write(buf, HDR + len);
}

static void queue_frame(uint32_t len, uint8_t seed)
{
	static uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint32_t i;
	int ret;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed ^ i);
	ret = sfab_link_cable_queue(S.c, buf, len);
	if (ret) {
		/* the far end stopped reading: the owner unplugs */
		S.dead = true;
		return;
	}
	if (S.out.n + HDR + len <= sizeof(stream_out)) {
		S.out.b[S.out.n] = (uint8_t)(len >> 24);
		S.out.b[S.out.n + 1] = (uint8_t)(len >> 16);
		S.out.b[S.out.n + 2] = (uint8_t)(len >> 8);
		S.out.b[S.out.n + 3] = (uint8_t)len;
		memcpy(S.out.b + S.out.n + HDR, buf, len);
		S.out.n += HDR + len;
	} else {
		S.dead = true;
	}
	if (sfab_link_cable_flush(S.c))
		S.dead = true;
}

/* the far end reads what the cable wrote: the queued bytes, in order */
static void drain(void)
{
	uint8_t buf[65536];
	ssize_t n;

	if (S.peer < 0)
		return;
	while ((n = read(S.peer, buf, sizeof(buf))) > 0) {
		CHECK((size_t)n <= S.out.n - S.out_read);
		CHECK(!memcmp(buf, S.out.b + S.out_read, n));
		S.out_read += n;
	}
}

static int on_frame(void *opaque, const uint8_t *frame, size_t len)
{
	long want;
	int ret = 0;

	take_ctl();
	want = ref_next(&S.in);
	(void)opaque;
	CHECK(S.c && !S.closed);
	CHECK(S.depth == 0);
	CHECK(want >= 0 && (size_t)want == len);
	CHECK(!memcmp(frame, S.in.b + S.in.at + HDR, len));
	S.in.at += HDR + len;
	S.delivered += len;
	S.depth++;
	switch (fz_u8(&S.f) % CB__COUNT) {
	case CB_NESTED: {
		size_t at = S.in.at;

		CHECK_EQ(sfab_link_cable_read(S.c, on_frame, NULL), 0);
		CHECK_EQ(S.in.at, at);
		break;
	}
	case CB_CLOSE:
		S.closed = true;
		ret = (int)(fz_u8(&S.f) & 1);
		unplug();
		break;
	case CB_REPLUG:
		S.closed = true;
		unplug();
		plug();
		ret = 3;
		break;
	case CB_STOP:
		ret = 1;
		break;
	case CB_QUEUE:
		queue_frame(1 + fz_below(&S.f, SFAB_WIRE_MAX_PKT_LEN),
			    fz_u8(&S.f));
		break;
	case CB_WRITE:
		write_frame(1 + fz_below(&S.f, SFAB_WIRE_MAX_PKT_LEN),
			    fz_u8(&S.f));
		break;
	default:
		break;
	}
	S.depth--;
	return ret;
}

static int do_read(void)
{
	size_t at = S.in.at;
	int ret;

	S.closed = false;
	S.delivered = 0;
	ret = sfab_link_cable_read(S.c, on_frame, NULL);
	/* a callback that closed the cable without plugging a new one */
	if (!S.c)
		plug();
	/* the offers it took after its last frame */
	if (!S.closed)
		take_ctl();
	/* at most READS_MAX socket reads, and what was buffered before */
	CHECK(S.delivered <= (SFAB_LINK_CABLE_READS_MAX + 1) *
			     (size_t)SFAB_LINK_CABLE_RBUF);
	if (S.closed) {
		/* the closing callback's value, and nothing else */
		CHECK(ret == 0 || ret == 1 || ret == 3);
		return ret;
	}
	switch (ret) {
	case 0:
	case 1:
		break;
	case -1:
		/* end of file: only once the far end hung up */
		CHECK(S.peer < 0);
		S.dead = true;
		break;
	case -2:
		/* a framing error, where the stream has one */
		CHECK_EQ(ref_next(&S.in), -2);
		S.dead = true;
		break;
	default:
		CHECK(!"a read returned what no callback did");
	}
	(void)at;
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nops = 0, rounds;

	/* as sfab-switchd and QEMU: a write to a cable whose peer left fails */
	signal(SIGPIPE, SIG_IGN);
	memset(&S, 0, sizeof(S));
	S.f.p = data;
	S.f.n = size;
	S.in.b = stream_in;
	S.out.b = stream_out;
	plug();
	while (fz_left(&S.f) && nops++ < MAX_OPS) {
		if (S.dead) {
			/* what an owner does with a cable that failed */
			unplug();
			plug();
		}
		switch (fz_u8(&S.f) % OP__COUNT) {
		case OP_RAW: {
			uint8_t buf[512];
			size_t len = fz_bytes(&S.f, buf, 1 + fz_u8(&S.f) * 2);

			peer_write(buf, len);
			break;
		}
		case OP_CTL: {
			/* a well-formed control message, of any type 0..5 */
			uint8_t m[HDR + CTL_LEN] = { 0x80, 0, 0, CTL_LEN };

			m[HDR + 1] = (uint8_t)fz_below(&S.f, 6);
			m[HDR + 7] = fz_u8(&S.f);
			peer_write(m, sizeof(m));
			break;
		}
		case OP_FRAME: {
			uint32_t len = 1 + fz_below(&S.f, SFAB_WIRE_MAX_PKT_LEN);
			unsigned int k, n = 1 + fz_below(&S.f, 32);

			for (k = 0; k < n; k++)
				write_frame(len, (uint8_t)k);
			break;
		}
		case OP_READ:
			do_read();
			break;
		case OP_QUEUE:
			queue_frame(1 + fz_below(&S.f, SFAB_WIRE_MAX_PKT_LEN),
				    fz_u8(&S.f));
			break;
		case OP_DRAIN:
			drain();
			break;
		case OP_HANGUP:
			if (S.peer >= 0) {
				close(S.peer);
				S.peer = -1;
			}
			break;
		}
	}
	/*
	 * The end: callbacks do nothing more, reads go on until the socket
	 * is empty; every complete frame written has been handed over
	 */
	S.f.n = 0;
	if (S.dead) {
		unplug();
		plug();
	}
	for (rounds = 0; rounds < 64; rounds++) {
		size_t at = S.in.at;
		int ret = do_read();

		if (ret == -2)
			break;
		if (ret) {
			/* end of file: everything before it was handed over */
			CHECK_EQ(ret, -1);
			CHECK_EQ(ref_next(&S.in), -1);
			break;
		}
		if (S.in.at == at) {
			/* no progress: no complete frame may be left behind */
			CHECK_EQ(ref_next(&S.in), -1);
			break;
		}
	}
	CHECK(rounds < 64);
	drain();
	unplug();
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

static void fuzz_seeds(void)
{
	struct fz_out o = { .n = 0 };
	unsigned int cb;

	/* a burst of frames and reads with each callback action */
	for (cb = 0; cb < CB__COUNT; cb++) {
		char name[32];

		o.n = 0;
		fo_u8(&o, OP_FRAME);
		fo_u32(&o, 99);
		fo_u8(&o, 20);
		fo_u8(&o, OP_READ);
		fo_u8(&o, CB_NOTHING);
		fo_u8(&o, cb);
		fo_u8(&o, 1);
		fo_u32(&o, 200);
		fo_u8(&o, 7);
		fo_u8(&o, OP_DRAIN);
		snprintf(name, sizeof(name), "callback-%u", cb);
		fz_seed_out(name, &o);
	}
	/* a frame split over writes, a bad length, a hangup */
	o.n = 0;
	fo_u8(&o, OP_RAW);
	fo_u8(&o, 1);
	fo_bytes(&o, "\0\0\0\x08" "ab", 3);
	fo_u8(&o, OP_READ);
	fo_u8(&o, OP_RAW);
	fo_u8(&o, 4);
	fo_bytes(&o, "\x01\x02\x03\x04\x05\x06\x07\x08\0\0\0", 9);
	fo_u8(&o, OP_READ);
	fo_u8(&o, CB_NOTHING);
	fo_u8(&o, OP_RAW);
	fo_u8(&o, 2);
	fo_bytes(&o, "\0\0\0\0\0", 5);
	fo_u8(&o, OP_READ);
	fo_u8(&o, OP_HANGUP);
	fo_u8(&o, OP_READ);
	fz_seed_out("split-bad-hangup", &o);
	/* full-size frames past what one read takes */
	o.n = 0;
	for (cb = 0; cb < 8; cb++) {
		fo_u8(&o, OP_FRAME);
		fo_u32(&o, SFAB_WIRE_MAX_PKT_LEN - 1);
		fo_u8(&o, 31);
	}
	fo_u8(&o, OP_READ);
	fz_seed_out("big-burst", &o);
	/*
	 * a control header and half its body, then the hangup (make check
	 * found it: the cable waits for the rest, not a framing error); a
	 * ring offer among frames (answered with RING_REFUSE); an ACCEPT
	 * out of turn (a framing error)
	 */
	o.n = 0;
	fo_u8(&o, OP_RAW);
	fo_u8(&o, 4);
	fo_bytes(&o, "\x80\0\0\x08\0\x01\0\0\0", 9);
	fo_u8(&o, OP_HANGUP);
	fz_seed_out("ctl-half-hangup", &o);
	o.n = 0;
	fo_u8(&o, OP_FRAME);
	fo_u32(&o, 64);
	fo_u8(&o, 1);
	fo_u8(&o, OP_CTL);
	fo_u8(&o, SFAB_CABLE_CTL_RING_OFFER);
	fo_u8(&o, 16);
	fo_u8(&o, OP_FRAME);
	fo_u32(&o, 64);
	fo_u8(&o, 1);
	fo_u8(&o, OP_READ);
	fo_u8(&o, CB_NOTHING);
	fo_u8(&o, CB_NOTHING);
	fo_u8(&o, OP_DRAIN);
	fo_u8(&o, OP_CTL);
	fo_u8(&o, SFAB_CABLE_CTL_RING_ACCEPT);
	fo_u8(&o, 0);
	fo_u8(&o, OP_READ);
	fz_seed_out("ctl-offer-accept", &o);
}
