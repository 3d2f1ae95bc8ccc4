/*
 * QEMU sfab cable backend: the cable of an sfab HCA's port
 *
 * The cable carries real IBA packets, each with a 32-bit length prefix
 * (model/link/sfab_cable.c), over an AF_UNIX stream socket where a switch
 * port listens, and, once connected, over a pair of rings in a memfd
 * shared with the switch: the cable offers them, the switch takes them
 * (unless it runs with --cable socket), and the socket stays for the
 * offer and the end of file.
 * It is driven from the main loop: received frames go to the device as
 * they arrive, several per read(2), or straight from the ring when its
 * eventfd kicks (which the switch writes only when this end sleeps);
 * frames the device sends are buffered and written when the socket takes
 * them, one write(2) per batch, or put in the ring and published once
 * per batch; while the cable is unplugged (no switch yet, or a switch
 * that went away) it tries to reconnect every reconnect-ms.  Nothing
 * here ever blocks the main loop.  The interface is sfab_cable_backend.h.
 *
 * Re-entrancy: a device's callbacks may DMA wherever its guest points
 * them, the device's own BARs included.  QEMU refuses such an access
 * while the device's mem_reentrancy_guard is engaged, which its MMIO
 * dispatch and guarded bottom halves do but fd handlers and timers do
 * not: every event here that reaches the device engages the guard the
 * device attached with (sfab_cable_io_begin/end), restoring the previous
 * state as aio_bh_call() does.  The frame parser stands a read from
 * inside its own frame callback, and a callback that closes the cable
 * (link/sfab_cable.h); here a nested read is refused and logged as the
 * guest error it is (a DMA of the device into its own doorbell BAR, which
 * the guard should have refused first).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/sockets.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "qom/object_interfaces.h"
#include "hw/qdev-core.h"
#include "hw/sfab/model/link/sfab_cable.h"
#include "sfab_cable_backend.h"
#include "trace.h"

#define SFAB_CABLE_RECONNECT_MS_DEFAULT 1000

struct SfabCable {
    Object parent_obj;

    char *path;                 /* property "path" */
    uint32_t reconnect_ms;      /* property "reconnect-ms" */
    bool complete;              /* user_creatable_complete() is done */

    const SfabCableOps *ops;    /* NULL: no device has the cable */
    void *opaque;
    MemReentrancyGuard *guard;  /* the device's, engaged around events */
    MemReentrancyGuard no_guard;    /* ... or this one, for none */

    /* the socket and its buffers; cable.fd < 0 while unplugged */
    struct sfab_link_cable cable;
    int kick_fd;                /* the ring's eventfd with a handler, or -1 */
    bool skip_offer;            /* the peer hung up on the last offer */
    bool watch_out;             /* the fd handler waits for POLLOUT too */
    bool failed;                /* transmit overflow: unplug at the write */
    unsigned batch;             /* open batches: sends wait for the end */
    QEMUBH *bh;                 /* writes what was sent outside a batch */
    QEMUTimer *retry;           /* QEMU_CLOCK_REALTIME: reconnect */
};

static bool sfab_cable_io_begin(SfabCable *c)
{
    bool engaged = c->guard->engaged_in_io;

    c->guard->engaged_in_io = true;
    return engaged;
}

static void sfab_cable_io_end(SfabCable *c, bool engaged)
{
    c->guard->engaged_in_io = engaged;
}

static void sfab_cable_readable(void *opaque);
static void sfab_cable_writable(void *opaque);
static void sfab_cable_kicked(void *opaque);

static void sfab_cable_retry_later(SfabCable *c)
{
    timer_mod(c->retry, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
              c->reconnect_ms);
}

/* the socket is gone (or broken): tell the device, maybe keep retrying */
static void sfab_cable_unplug(SfabCable *c, const char *why, bool retry)
{
    if (c->cable.fd < 0) {
        return;
    }
    trace_sfab_cable_disconnect(c->path, why, c->cable.frames_in,
                                c->cable.frames_out);
    qemu_set_fd_handler(c->cable.fd, NULL, NULL, NULL);
    c->skip_offer = sfab_link_cable_offer_pending(&c->cable);
    if (c->kick_fd >= 0) {
        qemu_set_fd_handler(c->kick_fd, NULL, NULL, NULL);
        c->kick_fd = -1;
    }
    sfab_link_cable_close(&c->cable);
    c->watch_out = false;
    c->failed = false;
    if (c->ops) {
        c->ops->down(c->opaque);
    }
    if (retry) {
        sfab_cable_retry_later(c);
    }
}

static int sfab_cable_frame(void *opaque, const uint8_t *frame, size_t len)
{
    SfabCable *c = opaque;

    trace_sfab_cable_rx(len);
    if (c->ops) {
        c->ops->rx(c->opaque, frame, len);
    }
    return 0;
}

/* write what is pending, unplugging a cable that failed */
static void sfab_cable_output(SfabCable *c)
{
    if (c->cable.fd < 0) {
        return;
    }
    if (c->failed) {
        warn_report("%s: cable %s: peer stopped reading, %zu bytes pending; "
                    "link taken down", TYPE_SFAB_CABLE, c->path,
                    sfab_link_cable_pending(&c->cable));
        sfab_cable_unplug(c, "transmit buffer overflow", true);
    } else if (sfab_link_cable_flush(&c->cable)) {
        sfab_cable_unplug(c, "write error", true);
    } else {
        /*
         * wait for POLLOUT only while output is pending for the socket
         * (output waiting for room in the ring waits for a kick)
         */
        bool out = sfab_link_cable_want_pollout(&c->cable);

        if (out != c->watch_out) {
            qemu_set_fd_handler(c->cable.fd, sfab_cable_readable,
                                out ? sfab_cable_writable : NULL, c);
            c->watch_out = out;
        }
    }
}

/* POLLOUT */
static void sfab_cable_writable(void *opaque)
{
    SfabCable *c = opaque;
    /* an unplug calls the device */
    bool engaged = sfab_cable_io_begin(c);

    sfab_cable_output(c);
    sfab_cable_io_end(c, engaged);
}

/* guarded: the device's guard is engaged */
static void sfab_cable_bh(void *opaque)
{
    sfab_cable_output(opaque);
}

void sfab_cable_batch_begin(SfabCable *c)
{
    c->batch++;
}

void sfab_cable_batch_end(SfabCable *c)
{
    assert(c->batch);
    if (--c->batch) {
        return;
    }
    if (c->cable.fd >= 0 &&
        (c->failed || sfab_link_cable_want_write(&c->cable))) {
        sfab_cable_output(c);
    }
}

int sfab_cable_send(SfabCable *c, const uint8_t *frame, size_t len)
{
    if (c->cable.fd < 0 || c->failed) {
        return SFAB_CABLE_TX_UNPLUGGED;
    }
    if (sfab_link_cable_queue(&c->cable, frame, len)) {
        c->failed = true;
        trace_sfab_cable_tx_overflow(len, sfab_link_cable_pending(&c->cable));
    } else {
        trace_sfab_cable_tx(len);
    }
    if (!c->batch) {
        qemu_bh_schedule(c->bh);
    }
    return c->failed ? SFAB_CABLE_TX_OVERFLOW : 0;
}

/* the cable moved to its ring pair: its eventfd gets a handler */
static void sfab_cable_watch_kick(SfabCable *c)
{
    int k = sfab_link_cable_kick_fd(&c->cable);

    if (k >= 0 && k != c->kick_fd) {
        c->kick_fd = k;
        qemu_set_fd_handler(k, sfab_cable_kicked, NULL, c);
        trace_sfab_cable_ring_up(c->path, k);
    }
}

enum { SFAB_CABLE_READ_ANY, SFAB_CABLE_READ_SOCK, SFAB_CABLE_READ_KICK };

/*
 * Everything the cable holds, several frames per read(2) or straight from
 * the ring, as one batch: what the frames' callbacks send goes out before
 * the next poll.
 */
static void sfab_cable_do_read(SfabCable *c, int how)
{
    bool engaged;
    int ret;

    if (sfab_link_cable_in_read(&c->cable)) {
        /*
         * Inside this read's own frame callback: only a DMA of the device
         * into its own doorbell BAR gets here, which its re-entrancy
         * guard should have refused.  The outer read goes on.
         */
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: cable %s read from inside a received frame's "
                      "DMA (a doorbell in the device's own BAR?), refused\n",
                      TYPE_SFAB_CABLE, c->path);
        trace_sfab_cable_reentry(c->cable.frames_in);
        return;
    }
    engaged = sfab_cable_io_begin(c);
    sfab_cable_batch_begin(c);
    switch (how) {
    case SFAB_CABLE_READ_SOCK:
        ret = sfab_link_cable_read_sock(&c->cable, sfab_cable_frame, c);
        break;
    case SFAB_CABLE_READ_KICK:
        ret = sfab_link_cable_read_kick(&c->cable, sfab_cable_frame, c);
        break;
    default:
        ret = sfab_link_cable_read(&c->cable, sfab_cable_frame, c);
        break;
    }
    if (ret == -2) {
        warn_report("%s: cable %s: framing error, reconnecting",
                    TYPE_SFAB_CABLE, c->path);
        sfab_cable_unplug(c, "framing error", true);
    } else if (ret) {
        sfab_cable_unplug(c, "peer closed", true);
    } else {
        sfab_cable_watch_kick(c);
    }
    /* a frame's work may have failed or unplugged the cable: both check */
    sfab_cable_batch_end(c);
    if (c->cable.fd >= 0 && c->ops && c->ops->rx_done) {
        c->ops->rx_done(c->opaque);
    }
    sfab_cable_io_end(c, engaged);
}

void sfab_cable_read(SfabCable *c)
{
    sfab_cable_do_read(c, SFAB_CABLE_READ_ANY);
}

/* POLLIN on the socket: the switch-over, or the end of the cable */
static void sfab_cable_readable(void *opaque)
{
    sfab_cable_do_read(opaque, SFAB_CABLE_READ_SOCK);
}

/* the ring's eventfd: frames came, or room for output that waits */
static void sfab_cable_kicked(void *opaque)
{
    sfab_cable_do_read(opaque, SFAB_CABLE_READ_KICK);
}

/*
 * A non-blocking connect: an AF_UNIX stream connect either completes at
 * once or fails (EAGAIN when the listener's backlog is full), so a switch
 * that is slow to accept never holds up the main loop.
 */
static int sfab_cable_open(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, err;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        return -ENAMETOOLONG;
    }
    pstrcpy(sa.sun_path, sizeof(sa.sun_path), path);
    fd = qemu_socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        return -errno;
    }
    qemu_socket_set_nonblock(fd);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        err = errno == EINPROGRESS ? EAGAIN : errno;
        close(fd);
        return -err;
    }
    return fd;
}

static void sfab_cable_plug(SfabCable *c)
{
    int fd = sfab_cable_open(c->path);
    int err;

    if (fd < 0) {
        trace_sfab_cable_connect_failed(c->path, -fd);
        sfab_cable_retry_later(c);
        return;
    }
    sfab_link_cable_init(&c->cable, fd);
    c->watch_out = false;
    c->failed = false;
    c->kick_fd = -1;
    /*
     * the switch answers; until then (or if it refuses, or if it hung up
     * on the last offer: no offer this time) the socket
     */
    err = -sfab_link_cable_dial(&c->cable, SFAB_LINK_CABLE_RING_SIZE,
                                &c->skip_offer);
    trace_sfab_cable_ring(c->path, err);
    qemu_set_fd_handler(fd, sfab_cable_readable, NULL, c);
    trace_sfab_cable_connect(c->path, fd);
    c->ops->up(c->opaque);
}

static void sfab_cable_retry(void *opaque)
{
    SfabCable *c = opaque;
    bool engaged;

    if (c->ops && c->cable.fd < 0) {
        engaged = sfab_cable_io_begin(c);
        sfab_cable_plug(c);
        sfab_cable_io_end(c, engaged);
    }
}

bool sfab_cable_in_use(SfabCable *c)
{
    return c->ops != NULL;
}

void sfab_cable_attach(SfabCable *c, const SfabCableOps *ops, void *opaque,
                       MemReentrancyGuard *guard)
{
    bool engaged;

    assert(c->complete && !c->ops && ops->rx && ops->up && ops->down);
    c->ops = ops;
    c->opaque = opaque;
    c->guard = guard ? guard : &c->no_guard;
    c->bh = qemu_bh_new_guarded(sfab_cable_bh, c, c->guard);
    /* no switch listening yet is fine: the cable keeps trying */
    engaged = sfab_cable_io_begin(c);
    sfab_cable_plug(c);
    sfab_cable_io_end(c, engaged);
}

void sfab_cable_detach(SfabCable *c)
{
    bool engaged;

    assert(c->ops && !c->batch && !sfab_link_cable_in_read(&c->cable));
    engaged = sfab_cable_io_begin(c);
    sfab_cable_unplug(c, "device removed", false);
    sfab_cable_io_end(c, engaged);
    timer_del(c->retry);
    qemu_bh_delete(c->bh);
    c->bh = NULL;
    c->ops = NULL;
    c->opaque = NULL;
    c->guard = &c->no_guard;
}

bool sfab_cable_is_up(SfabCable *c)
{
    return c->cable.fd >= 0;
}

/* the object */

static char *sfab_cable_get_path(Object *obj, Error **errp)
{
    return g_strdup(SFAB_CABLE(obj)->path);
}

static void sfab_cable_set_path(Object *obj, const char *value, Error **errp)
{
    SfabCable *c = SFAB_CABLE(obj);

    if (c->complete) {
        error_setg(errp, "%s: the path of a cable cannot change",
                   TYPE_SFAB_CABLE);
        return;
    }
    g_free(c->path);
    c->path = g_strdup(value);
}

static void sfab_cable_get_reconnect_ms(Object *obj, Visitor *v,
                                        const char *name, void *opaque,
                                        Error **errp)
{
    visit_type_uint32(v, name, &SFAB_CABLE(obj)->reconnect_ms, errp);
}

static void sfab_cable_set_reconnect_ms(Object *obj, Visitor *v,
                                        const char *name, void *opaque,
                                        Error **errp)
{
    uint32_t ms;

    if (!visit_type_uint32(v, name, &ms, errp)) {
        return;
    }
    if (!ms) {
        error_setg(errp, "%s: reconnect-ms must be at least 1",
                   TYPE_SFAB_CABLE);
        return;
    }
    SFAB_CABLE(obj)->reconnect_ms = ms;
}

static bool sfab_cable_get_connected(Object *obj, Error **errp)
{
    return sfab_cable_is_up(SFAB_CABLE(obj));
}

static void sfab_cable_complete(UserCreatable *uc, Error **errp)
{
    SfabCable *c = SFAB_CABLE(uc);

    if (!c->path || !*c->path) {
        error_setg(errp, "%s: 'path' (the switch port's socket) is required",
                   TYPE_SFAB_CABLE);
        return;
    }
    if (strlen(c->path) >= sizeof_field(struct sockaddr_un, sun_path)) {
        error_setg(errp, "%s: path '%s' is too long for a UNIX socket",
                   TYPE_SFAB_CABLE, c->path);
        return;
    }
    c->retry = timer_new_ms(QEMU_CLOCK_REALTIME, sfab_cable_retry, c);
    c->complete = true;
}

static bool sfab_cable_can_be_deleted(UserCreatable *uc)
{
    return !sfab_cable_in_use(SFAB_CABLE(uc));
}

static void sfab_cable_instance_init(Object *obj)
{
    SfabCable *c = SFAB_CABLE(obj);

    c->reconnect_ms = SFAB_CABLE_RECONNECT_MS_DEFAULT;
    c->kick_fd = -1;
    c->guard = &c->no_guard;
    sfab_link_cable_init(&c->cable, -1);
}

static void sfab_cable_instance_finalize(Object *obj)
{
    SfabCable *c = SFAB_CABLE(obj);

    if (c->ops) {
        sfab_cable_detach(c);
    }
    sfab_link_cable_close(&c->cable);
    if (c->retry) {
        timer_free(c->retry);
    }
    g_free(c->path);
}

static void sfab_cable_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);

    ucc->complete = sfab_cable_complete;
    ucc->can_be_deleted = sfab_cable_can_be_deleted;

    object_class_property_add_str(oc, "path", sfab_cable_get_path,
                                  sfab_cable_set_path);
    object_class_property_set_description(oc, "path",
        "the switch port's AF_UNIX stream socket");
    object_class_property_add(oc, "reconnect-ms", "uint32",
                              sfab_cable_get_reconnect_ms,
                              sfab_cable_set_reconnect_ms, NULL, NULL);
    object_class_property_set_description(oc, "reconnect-ms",
        "how long an unplugged cable waits to connect again (default 1000)");
    object_class_property_add_bool(oc, "connected", sfab_cable_get_connected,
                                   NULL);
    object_class_property_set_description(oc, "connected",
        "the socket is connected (read-only)");
}

static const TypeInfo sfab_cable_info = {
    .name = TYPE_SFAB_CABLE,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(SfabCable),
    .instance_init = sfab_cable_instance_init,
    .instance_finalize = sfab_cable_instance_finalize,
    .class_init = sfab_cable_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_USER_CREATABLE },
        { }
    },
};

static void sfab_cable_register_types(void)
{
    type_register_static(&sfab_cable_info);
}

type_init(sfab_cable_register_types)
