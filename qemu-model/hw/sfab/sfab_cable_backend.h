/*
 * QEMU sfab cable backend: the cable of an sfab HCA's port
 *
 *   -object sfab-cable,id=cab0,path=/x/port1.sock[,reconnect-ms=1000]
 *   -device sfab-hca,cable=cab0
 *
 * A user-creatable object that owns the AF_UNIX stream socket to a switch
 * port, its framing (model/link/sfab_cable.c), the reconnect timer, the
 * bounded transmit buffer and its POLLOUT watch.  The device that attaches
 * it sees frames, a link that comes up and goes down, and a send that
 * queues; the socket is none of its business.
 *
 * Batches: frames sent inside a batch go out in one write(2) at its end.
 * Every read of the socket is a batch (what the frames' callbacks send,
 * ACKs and credits, leaves before the next poll), and the device opens
 * one around work of its own whose frames should leave at once (a
 * doorbell's send work, in the vCPU thread).  A frame sent outside any
 * batch goes out from a bottom half.
 *
 * The callbacks run in the main loop or in the caller of
 * sfab_cable_read() and sfab_cable_batch_end(), always under the BQL and
 * with the re-entrancy guard the device attached with engaged (its DMA
 * cannot reach its own MMIO).  They may send; they must not detach the
 * cable.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_SFAB_SFAB_CABLE_BACKEND_H
#define HW_SFAB_SFAB_CABLE_BACKEND_H

#include "qom/object.h"
#include "hw/qdev-core.h"

#define TYPE_SFAB_CABLE "sfab-cable"
OBJECT_DECLARE_SIMPLE_TYPE(SfabCable, SFAB_CABLE)

typedef struct SfabCableOps {
    /* a frame that came in, inside a read batch; valid until it returns */
    void (*rx)(void *opaque, const uint8_t *frame, size_t len);
    /* the end of a read batch, its output written, the cable still up */
    void (*rx_done)(void *opaque);
    /* the socket connected: the port's physical link is there */
    void (*up)(void *opaque);
    /* the socket is gone (peer closed, error, overflow, detach) */
    void (*down)(void *opaque);
} SfabCableOps;

/* sfab_cable_send(): the frame was not queued */
#define SFAB_CABLE_TX_UNPLUGGED  (-ENOTCONN)  /* no socket, or failed */
#define SFAB_CABLE_TX_OVERFLOW   (-ENOBUFS)   /* the buffer is full: failed */

/* a device has the cable */
bool sfab_cable_in_use(SfabCable *c);
/*
 * Take the cable (it must not be in use) and plug it in: ops->up runs
 * now if the switch port is there, else the cable keeps trying every
 * reconnect-ms.  guard: the device's mem_reentrancy_guard (or NULL),
 * engaged around every callback.
 */
void sfab_cable_attach(SfabCable *c, const SfabCableOps *ops, void *opaque,
                       MemReentrancyGuard *guard);
/* unplug (ops->down runs if it was up), stop retrying, let go */
void sfab_cable_detach(SfabCable *c);
/* the socket is connected */
bool sfab_cable_is_up(SfabCable *c);

/*
 * Queue one frame (a 32-bit length is put before it): 0, or one of
 * SFAB_CABLE_TX_*.  A frame that does not fit in the transmit buffer
 * (SFAB_LINK_CABLE_WBUF_MAX) fails the cable: it is unplugged at the next
 * write, not under the caller's feet.
 */
int sfab_cable_send(SfabCable *c, const uint8_t *frame, size_t len);
/*
 * Take in what the socket holds now (at most SFAB_LINK_CABLE_READS_MAX
 * reads), as the fd handler does: a batch of its own.  From inside a
 * frame callback of the same cable it reads nothing (a guest error).
 */
void sfab_cable_read(SfabCable *c);
/* open and close a batch; the outermost end writes what it queued */
void sfab_cable_batch_begin(SfabCable *c);
void sfab_cable_batch_end(SfabCable *c);

#endif /* HW_SFAB_SFAB_CABLE_BACKEND_H */
