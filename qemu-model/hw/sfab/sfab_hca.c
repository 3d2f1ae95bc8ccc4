/*
 * QEMU sfab HCA: an InfiniBand-class host channel adapter (PCIe shell)
 *
 * This file is the device's PCIe side only: config space, BARs, MSI-X,
 * DMA, tracing and reset; it moves MMIO, DMA and interrupts.  The
 * device's behaviour lives in the QEMU-independent engine
 * (model/engine/sfab_engine.c), which the project's host unit tests drive
 * directly.  The register map and command formats are the project's
 * hardware contract, include/sfab/.
 *
 * The port's cable is a backend object of its own (property "cable", a
 * link to an sfab-cable object, sfab_cable_backend.c): it owns the socket
 * to a switch port, reconnects, and hands this file frames and link
 * up/down events, which go to the engine; frames the engine sends go back
 * to it.  The engine's link timer runs on a QEMU_CLOCK_VIRTUAL timer.
 *
 * Re-entrancy: the engine DMAs wherever the guest points it, the device's
 * own BARs included (an MR whose pages are BAR2 turns a received packet's
 * scatter into a doorbell write, which reads the cable, in the middle of
 * the cable read that received the packet).  QEMU refuses an access to a
 * device's MMIO while the device's mem_reentrancy_guard is engaged; its
 * MMIO dispatch and the guarded bottom halves engage it, but fd handlers
 * and timers do not: the link timer engages it itself
 * (sfab_hca_io_begin/end), and the cable backend, which is handed the
 * guard at attach, engages it around every callback into this file.  The
 * backend also refuses a cable read from inside its own frame callback,
 * and stands a callback that closes the cable.
 *
 * BAR0: 32-bit registers (aligned 32-bit accesses; other reads return all
 *       ones and other writes are ignored, as the contract says)
 * BAR2: 64-bit prefetchable doorbell pages
 * BAR4: MSI-X table and PBA
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "hw/sfab/model/engine/sfab_engine.h"
#include "sfab_cable_backend.h"
#include "trace.h"

#define TYPE_SFAB_HCA "sfab-hca"
OBJECT_DECLARE_SIMPLE_TYPE(SfabHcaState, SFAB_HCA)

/* locally administered EUI-64 prefix for node GUIDs nobody assigned */
#define SFAB_HCA_GUID_BASE  0x02c0de5fab000000ULL

#define SFAB_HCA_PCIE_CAP_OFFSET 0xa0

struct SfabHcaState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion db;
    QEMUBH *bh;

    uint64_t node_guid;
    SfabCable *cable;           /* property "cable"; NULL: no cable */
    /* the engine's table sizes: properties max-qps .. max-srqs */
    struct sfab_engine_config engine_cfg;
    /* property "fw": a firmware image in flash, run at every reset */
    char *fw_path;
    gchar *fw_img;
    gsize fw_len;

    QEMUTimer *link_timer;      /* QEMU_CLOCK_VIRTUAL: engine timer work */
    uint64_t cable_tx_dropped;  /* frames sent while unplugged or failed */
    uint64_t cable_tx_overflows;
    /*
     * DMA bytes by target (sfab_hca_dma_account()): guest RAM, or memory
     * of a peer PCI function (a BAR: an accelerator's, an NVMe CMB).
     */
    uint64_t dma_read_ram_bytes;
    uint64_t dma_write_ram_bytes;
    uint64_t dma_read_peer_bytes;
    uint64_t dma_write_peer_bytes;

    struct sfab_engine engine;
};

static unsigned sfab_hca_instances;

/*
 * Engage the device's re-entrancy guard around a callback QEMU does not
 * guard (fd handlers, timers): while it is engaged, a DMA of the engine
 * that lands on one of the device's own MMIO regions (BAR0, BAR2, the
 * MSI-X table) fails with MEMTX_ACCESS_ERROR instead of running that
 * region's handler inside the engine.  The previous state is restored, as
 * aio_bh_call() does, so nesting in a guarded context keeps it engaged.
 */
static bool sfab_hca_io_begin(SfabHcaState *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    return engaged;
}

static void sfab_hca_io_end(SfabHcaState *s, bool engaged)
{
    DEVICE(s)->mem_reentrancy_guard.engaged_in_io = engaged;
}

/* engine callbacks */

/* one trace event for every guest error, with its site */
static void sfab_hca_trace_site(enum sfab_guest_err site)
{
    trace_sfab_guest_error(site, sfab_engine_guest_error_site_name(site));
}

/*
 * A DMA the guest pointed at nothing, or at the device's own registers
 * while its re-entrancy guard is engaged (MEMTX_ACCESS_ERROR).
 */
static void sfab_hca_dma_error(uint64_t addr, size_t len, bool write,
                               MemTxResult r)
{
    qemu_log_mask(LOG_GUEST_ERROR,
                  "%s: DMA %s of %zu bytes at 0x%" PRIx64 " failed: %s\n",
                  TYPE_SFAB_HCA, write ? "write" : "read", len, addr,
                  r & MEMTX_ACCESS_ERROR ?
                  "access refused (the device's own registers?)" :
                  r & MEMTX_DECODE_ERROR ? "nothing there" : "bus error");
    trace_sfab_dma_error(addr, len, write, r);
}

/*
 * Count a DMA that succeeded by where it went: a region owned by another
 * PCI function is peer-to-peer (P2PDMA: a buffer in an accelerator's BAR
 * that an MR or nvmet's p2pmem hands the HCA), anything else is RAM.  A
 * transfer that crosses regions is split as the address space splits it.
 */
static void sfab_hca_dma_account(SfabHcaState *s, uint64_t addr, size_t len,
                                 bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));

    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l, write,
                                                   MEMTXATTRS_UNSPECIFIED);
        bool peer = mr->owner && mr->owner != OBJECT(s) &&
                    object_dynamic_cast(mr->owner, TYPE_PCI_DEVICE);

        if (!l) {
            break;
        }
        if (write) {
            *(peer ? &s->dma_write_peer_bytes : &s->dma_write_ram_bytes) += l;
        } else {
            *(peer ? &s->dma_read_peer_bytes : &s->dma_read_ram_bytes) += l;
        }
        addr += l;
        len -= l;
    }
}

static int sfab_hca_dma_read(void *opaque, uint64_t addr, void *buf,
                             size_t len)
{
    SfabHcaState *s = opaque;
    MemTxResult r = pci_dma_read(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        sfab_hca_dma_error(addr, len, false, r);
        return -1;
    }
    sfab_hca_dma_account(s, addr, len, false);
    return 0;
}

static int sfab_hca_dma_write(void *opaque, uint64_t addr, const void *buf,
                              size_t len)
{
    SfabHcaState *s = opaque;
    MemTxResult r = pci_dma_write(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        sfab_hca_dma_error(addr, len, true, r);
        return -1;
    }
    sfab_hca_dma_account(s, addr, len, true);
    return 0;
}

static void sfab_hca_irq(void *opaque, unsigned vector)
{
    PCIDevice *pci_dev = PCI_DEVICE(opaque);

    if (msix_enabled(pci_dev)) {
        msix_notify(pci_dev, vector);
    }
}

static void sfab_hca_guest_error(void *opaque, enum sfab_guest_err site,
                                 const char *msg)
{
    sfab_hca_trace_site(site);
    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: %s\n", TYPE_SFAB_HCA,
                  sfab_engine_guest_error_site_name(site), msg);
}

static void sfab_hca_trace(void *opaque, enum sfab_trace_ev ev,
                           uint64_t a, uint64_t b)
{
    switch (ev) {
    case SFAB_TRACE_RESET:
        trace_sfab_reset();
        break;
    case SFAB_TRACE_ADMIN_CMD:
        trace_sfab_admin_cmd(a, b);
        break;
    case SFAB_TRACE_ADMIN_CPL:
        trace_sfab_admin_cpl(a, b);
        break;
    case SFAB_TRACE_IRQ:
        trace_sfab_irq(a);
        break;
    case SFAB_TRACE_IRQ_MASKED:
        trace_sfab_irq_masked(a);
        break;
    case SFAB_TRACE_FW_STATE:
        trace_sfab_fw_state(a, b);
        break;
    case SFAB_TRACE_FATAL:
        trace_sfab_fatal(a);
        break;
    case SFAB_TRACE_FAULT:
        trace_sfab_fault(sfab_engine_fault_name(a));
        break;
    case SFAB_TRACE_AENQ:
        trace_sfab_aenq_event(a, b);
        break;
    case SFAB_TRACE_EQ_CREATE:
        trace_sfab_eq_create(a, b);
        break;
    case SFAB_TRACE_EQ_DESTROY:
        trace_sfab_eq_destroy(a);
        break;
    case SFAB_TRACE_PROCESS:
        trace_sfab_process(a);
        break;
    case SFAB_TRACE_DB_WRITE:
        /* traced with its size by sfab_hca_db_write() */
        break;
    case SFAB_TRACE_CQ_CREATE:
        trace_sfab_cq_create(a, b);
        break;
    case SFAB_TRACE_CQ_DESTROY:
        trace_sfab_cq_destroy(a);
        break;
    case SFAB_TRACE_QP_CREATE:
        trace_sfab_qp_create(a, b);
        break;
    case SFAB_TRACE_QP_STATE:
        trace_sfab_qp_state(a, b);
        break;
    case SFAB_TRACE_QP_DESTROY:
        trace_sfab_qp_destroy(a);
        break;
    case SFAB_TRACE_CQE:
        trace_sfab_cqe(a, b >> 32, (uint32_t)b);
        break;
    case SFAB_TRACE_CQ_RESIZE:
        trace_sfab_cq_resize(a, b >> 32, (uint32_t)b);
        break;
    }
}

static uint64_t sfab_hca_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * A frame for the cable: queued by the cable backend now and written at
 * the end of the batch it is in (a doorbell's send work, a read of the
 * cable), else from the backend's bottom half; frames sent together go out
 * in one write.  A peer that stops reading fails the cable, which is taken
 * down afterwards rather than under the engine's feet.
 */
static void sfab_hca_cable_tx(void *opaque, const uint8_t *frame, size_t len)
{
    SfabHcaState *s = opaque;

    switch (s->cable ? sfab_cable_send(s->cable, frame, len) :
            SFAB_CABLE_TX_UNPLUGGED) {
    case 0:
        break;
    case SFAB_CABLE_TX_OVERFLOW:
        s->cable_tx_overflows++;
        break;
    default:
        s->cable_tx_dropped++;
        break;
    }
}

static const struct sfab_engine_ops sfab_hca_engine_ops = {
    .dma_read = sfab_hca_dma_read,
    .dma_write = sfab_hca_dma_write,
    .irq = sfab_hca_irq,
    .guest_error = sfab_hca_guest_error,
    .trace = sfab_hca_trace,
    .now_ns = sfab_hca_now_ns,
    .cable_tx = sfab_hca_cable_tx,
};

/*
 * After any call into the engine: follow its timer deadline (it may have
 * moved) and run its deferred work if it has some.
 */
static void sfab_hca_kick(SfabHcaState *s)
{
    uint64_t deadline = sfab_engine_timer_deadline(&s->engine);

    if (deadline == UINT64_MAX) {
        timer_del(s->link_timer);
    } else {
        timer_mod(s->link_timer, MIN(deadline, (uint64_t)INT64_MAX));
    }
    if (sfab_engine_work_pending(&s->engine)) {
        qemu_bh_schedule(s->bh);
    }
}

/* admin work runs here, outside the MMIO handler */
static void sfab_hca_bh(void *opaque)
{
    SfabHcaState *s = opaque;

    sfab_engine_process(&s->engine);
    /*
     * More is pending when the engine stopped at its work budget; each
     * round makes progress or stops the device, so this ends.
     */
    sfab_hca_kick(s);
}

static void sfab_hca_link_timer(void *opaque)
{
    SfabHcaState *s = opaque;
    bool engaged = sfab_hca_io_begin(s);

    sfab_engine_timer(&s->engine);
    sfab_hca_kick(s);
    sfab_hca_io_end(s, engaged);
}

/* the cable: the backend runs these with the device's guard engaged */

static bool sfab_hca_cable_connected(SfabHcaState *s)
{
    return s->cable && sfab_cable_is_up(s->cable);
}

static void sfab_hca_cable_rx(void *opaque, const uint8_t *frame, size_t len)
{
    SfabHcaState *s = opaque;

    sfab_engine_cable_rx(&s->engine, frame, len);
}

/* a read's frames are in and its output written */
static void sfab_hca_cable_rx_done(void *opaque)
{
    sfab_hca_kick(opaque);
}

/* the engine posts the port's async event (DMA) */
static void sfab_hca_cable_plugged(void *opaque)
{
    SfabHcaState *s = opaque;

    sfab_engine_cable_up(&s->engine);
    sfab_hca_kick(s);
}

static void sfab_hca_cable_unplugged(void *opaque)
{
    SfabHcaState *s = opaque;

    sfab_engine_cable_down(&s->engine);
    sfab_hca_kick(s);
}

static const SfabCableOps sfab_hca_cable_ops = {
    .rx = sfab_hca_cable_rx,
    .rx_done = sfab_hca_cable_rx_done,
    .up = sfab_hca_cable_plugged,
    .down = sfab_hca_cable_unplugged,
};

/* BAR0: registers */

static uint64_t sfab_hca_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    SfabHcaState *s = opaque;
    uint64_t val;

    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: %u-byte read at 0x%" HWADDR_PRIx
                      ": registers take aligned 32-bit reads\n",
                      TYPE_SFAB_HCA, size, addr);
        sfab_hca_trace_site(SFAB_GE_REG_READ);
        val = MAKE_64BIT_MASK(0, size * 8);
    } else {
        val = sfab_engine_reg_read(&s->engine, addr);
    }
    trace_sfab_mmio_read(addr, val, size);
    return val;
}

static void sfab_hca_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    SfabHcaState *s = opaque;

    trace_sfab_mmio_write(addr, val, size);
    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: %u-byte write at 0x%" HWADDR_PRIx
                      ": registers take aligned 32-bit writes, ignored\n",
                      TYPE_SFAB_HCA, size, addr);
        sfab_hca_trace_site(SFAB_GE_REG_WRITE);
        return;
    }
    if (sfab_engine_reg_write(&s->engine, addr, val)) {
        qemu_bh_schedule(s->bh);
    }
    if (sfab_hca_cable_connected(s)) {
        /* a register write may have moved the port's timer work */
        sfab_hca_kick(s);
    }
}

static const MemoryRegionOps sfab_hca_mmio_ops = {
    .read = sfab_hca_mmio_read,
    .write = sfab_hca_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /*
     * Every size reaches the handlers, which serve aligned 32-bit accesses
     * and answer the rest as the contract says (all ones / ignored); an
     * access .valid rejected would read as zero instead.
     */
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* BAR2: doorbells */

static uint64_t sfab_hca_db_read(void *opaque, hwaddr addr, unsigned size)
{
    qemu_log_mask(LOG_GUEST_ERROR,
                  "%s: read of write-only doorbell at 0x%" HWADDR_PRIx "\n",
                  TYPE_SFAB_HCA, addr);
    sfab_hca_trace_site(SFAB_GE_DB_ACCESS);
    return 0;
}

/*
 * Who wrote a doorbell.  A peer device's DMA carries its requester ID
 * (pci_dma_rw() with MemTxAttrs.requester_id = pci_requester_id(), as
 * sfab-accel does); a TCG CPU's store carries specified attributes with
 * requester_id 0 (target/i386 cpu_get_mem_attrs() sets only .secure),
 * and a DMA without attributes is MEMTXATTRS_UNSPECIFIED.  Requester ID
 * 0 (bus 0, device 0, function 0) is a host bridge, never a peer.
 */
static enum sfab_db_source sfab_hca_db_source(MemTxAttrs attrs)
{
    return !attrs.unspecified && attrs.requester_id != 0 ?
           SFAB_DB_SRC_PEER : SFAB_DB_SRC_CPU;
}

static MemTxResult sfab_hca_db_write(void *opaque, hwaddr addr, uint64_t val,
                                     unsigned size, MemTxAttrs attrs)
{
    SfabHcaState *s = opaque;
    enum sfab_db_source src = sfab_hca_db_source(attrs);

    trace_sfab_db_write(addr, val, size, src == SFAB_DB_SRC_PEER,
                        attrs.requester_id);
    sfab_engine_db_write(&s->engine, addr, val, size, src);
    /*
     * A doorbell also takes in what the cable brought meanwhile (ACKs,
     * credits, responses): a busy guest keeps its sends going without
     * waiting for the main loop to be scheduled.  Both run under the BQL.
     */
    if (sfab_hca_cable_connected(s)) {
        sfab_cable_read(s->cable);
    }
    /*
     * An SQ doorbell's send work runs here, in the MMIO exit, and its
     * packets go on the cable in one write before the guest runs on: no
     * main-loop wakeup between a doorbell and the wire.  Admin work, and
     * sends past the engine's budget, stay with the bottom half.
     */
    if (sfab_hca_cable_connected(s) && sfab_engine_work_pending(&s->engine)) {
        sfab_cable_batch_begin(s->cable);
        sfab_engine_timer(&s->engine);
        sfab_cable_batch_end(s->cable);
    }
    sfab_hca_kick(s);
    return MEMTX_OK;
}

static const MemoryRegionOps sfab_hca_db_ops = {
    .read = sfab_hca_db_read,
    .write_with_attrs = sfab_hca_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* device */

/* the table size properties, each within what the engine can hold */
static bool sfab_hca_check_tables(SfabHcaState *s, Error **errp)
{
    const struct {
        const char *name;
        uint32_t val, min, max;
    } props[] = {
        { "max-qps", s->engine_cfg.max_qp,
          SFAB_ENGINE_MIN_QP, SFAB_ENGINE_MAX_QP },
        { "max-cqs", s->engine_cfg.max_cq,
          SFAB_ENGINE_MIN_CQ, SFAB_ENGINE_MAX_CQ },
        { "max-mrs", s->engine_cfg.max_mr,
          SFAB_ENGINE_MIN_MR, SFAB_ENGINE_MAX_MR },
        { "max-srqs", s->engine_cfg.max_srq,
          SFAB_ENGINE_MIN_SRQ, SFAB_ENGINE_MAX_SRQ },
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(props); i++) {
        if (props[i].val < props[i].min || props[i].val > props[i].max) {
            error_setg(errp, "%s: %s %" PRIu32 " is out of range %" PRIu32
                       "..%" PRIu32, TYPE_SFAB_HCA, props[i].name,
                       props[i].val, props[i].min, props[i].max);
            return false;
        }
    }
    return true;
}

static void sfab_hca_realize(PCIDevice *pci_dev, Error **errp)
{
    SfabHcaState *s = SFAB_HCA(pci_dev);
    unsigned v;
    int ret;

    if (s->cable && sfab_cable_in_use(s->cable)) {
        error_setg(errp, "%s: %s '%s' is already in use", TYPE_SFAB_HCA,
                   TYPE_SFAB_CABLE,
                   object_get_canonical_path_component(OBJECT(s->cable)));
        return;
    }
    if (!sfab_hca_check_tables(s, errp)) {
        return;
    }

    if (!s->node_guid) {
        /* port GUID = node GUID + 1: keep defaults well apart */
        s->node_guid = SFAB_HCA_GUID_BASE + ((uint64_t)sfab_hca_instances << 8);
    }
    sfab_hca_instances++;

    /* the engine's tables: realize fails here rather than later */
    if (sfab_engine_init(&s->engine, &sfab_hca_engine_ops, s, s->node_guid,
                         SFAB_MSIX_MAX_VECTORS, &s->engine_cfg)) {
        error_setg(errp, "%s: cannot allocate the engine's tables",
                   TYPE_SFAB_HCA);
        return;
    }
    if (s->fw_path) {
        GError *gerr = NULL;
        uint8_t st;

        if (!g_file_get_contents(s->fw_path, &s->fw_img, &s->fw_len, &gerr)) {
            error_setg(errp, "%s: fw %s: %s", TYPE_SFAB_HCA, s->fw_path,
                       gerr->message);
            g_error_free(gerr);
            sfab_engine_cleanup(&s->engine);
            return;
        }
        st = sfab_engine_set_flash(&s->engine, s->fw_img, s->fw_len);
        if (st != SFAB_AQ_STS_OK) {
            error_setg(errp, "%s: fw %s: image rejected: %s", TYPE_SFAB_HCA,
                       s->fw_path, sfab_aq_status_str(st));
            g_free(s->fw_img);
            s->fw_img = NULL;
            sfab_engine_cleanup(&s->engine);
            return;
        }
    }

    memory_region_init_io(&s->regs, OBJECT(s), &sfab_hca_mmio_ops, s,
                          "sfab-hca-regs", SFAB_BAR_REGS_SIZE);
    pci_register_bar(pci_dev, SFAB_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->regs);

    memory_region_init_io(&s->db, OBJECT(s), &sfab_hca_db_ops, s,
                          "sfab-hca-db", SFAB_DB_BAR_SIZE);
    pci_register_bar(pci_dev, SFAB_BAR_DB,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->db);

    ret = pcie_endpoint_cap_init(pci_dev, SFAB_HCA_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "%s: cannot add the PCIe capability", TYPE_SFAB_HCA);
        sfab_engine_cleanup(&s->engine);
        g_free(s->fw_img);
        s->fw_img = NULL;
        return;
    }
    /* a function level reset resets the device (sfab_hca_write_config) */
    pcie_cap_flr_init(pci_dev);

    ret = msix_init_exclusive_bar(pci_dev, SFAB_MSIX_MAX_VECTORS,
                                  SFAB_BAR_MSIX, errp);
    if (ret) {
        pcie_cap_exit(pci_dev);
        sfab_engine_cleanup(&s->engine);
        g_free(s->fw_img);
        s->fw_img = NULL;
        return;
    }
    for (v = 0; v < SFAB_MSIX_MAX_VECTORS; v++) {
        msix_vector_use(pci_dev, v);
    }

    s->bh = qemu_bh_new_guarded(sfab_hca_bh, s,
                                &DEVICE(pci_dev)->mem_reentrancy_guard);
    s->link_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, sfab_hca_link_timer, s);

    if (s->cable) {
        /* no switch listening yet is fine: the cable keeps trying */
        sfab_cable_attach(s->cable, &sfab_hca_cable_ops, s,
                          &DEVICE(pci_dev)->mem_reentrancy_guard);
    }
}

static void sfab_hca_exit(PCIDevice *pci_dev)
{
    SfabHcaState *s = SFAB_HCA(pci_dev);

    if (s->cable) {
        /* the engine posts the port's async event (DMA), guarded */
        sfab_cable_detach(s->cable);
    }
    timer_free(s->link_timer);
    qemu_bh_delete(s->bh);
    s->bh = NULL;
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
    pcie_cap_exit(pci_dev);
    sfab_engine_cleanup(&s->engine);
    g_free(s->fw_img);
    s->fw_img = NULL;
}

static void sfab_hca_write_config(PCIDevice *pci_dev, uint32_t addr,
                                  uint32_t val, int len)
{
    pci_default_write_config(pci_dev, addr, val, len);
    pcie_cap_flr_write_config(pci_dev, addr, val, len);
}

static void sfab_hca_reset_hold(Object *obj, ResetType type)
{
    SfabHcaState *s = SFAB_HCA(obj);

    qemu_bh_cancel(s->bh);
    sfab_engine_reset(&s->engine);
    sfab_hca_kick(s);
}

static const VMStateDescription sfab_hca_vmstate = {
    .name = TYPE_SFAB_HCA,
    .unmigratable = 1,
};

/*
 * The engine's counters (struct sfab_engine_stats), read-only for
 * qom-get as "stat-<name>", '_' written '-': the same numbers the unit
 * tests read, and (the transport's) what QUERY_STATS gives the driver.
 */
#define SFAB_HCA_STAT(f) \
    { "stat-" #f, offsetof(struct sfab_engine_stats, f) }

static const struct {
    const char *name;
    size_t off;
} sfab_hca_stats[] = {
    SFAB_HCA_STAT(admin_cmds),
    SFAB_HCA_STAT(irqs),
    SFAB_HCA_STAT(irqs_masked),
    SFAB_HCA_STAT(irqs_lost),
    SFAB_HCA_STAT(faults_injected),
    SFAB_HCA_STAT(aenq_events),
    SFAB_HCA_STAT(aenq_dropped),
    SFAB_HCA_STAT(db_writes),
    SFAB_HCA_STAT(db_writes_cpu),
    SFAB_HCA_STAT(db_writes_peer),
    SFAB_HCA_STAT(guest_errors),
    SFAB_HCA_STAT(dma_ops),
    SFAB_HCA_STAT(sma_mads),
    SFAB_HCA_STAT(pma_mads),
    SFAB_HCA_STAT(bad_mads),
    SFAB_HCA_STAT(host_mads_dropped),
    SFAB_HCA_STAT(rx_dropped),
    SFAB_HCA_STAT(mad_ifc),
    SFAB_HCA_STAT(db_ignored),
    SFAB_HCA_STAT(cqes),
    SFAB_HCA_STAT(cqe_lost),
    SFAB_HCA_STAT(cq_overruns),
    SFAB_HCA_STAT(dbrec_reads),
    SFAB_HCA_STAT(eqes),
    SFAB_HCA_STAT(eq_overruns),
    SFAB_HCA_STAT(sends),
    SFAB_HCA_STAT(send_errors),
    SFAB_HCA_STAT(send_dropped),
    SFAB_HCA_STAT(loopback),
    SFAB_HCA_STAT(recvs),
    SFAB_HCA_STAT(rx_no_qp),
    SFAB_HCA_STAT(rx_no_wqe),
    SFAB_HCA_STAT(rx_bad_grh),
    SFAB_HCA_STAT(rc_pkts_tx),
    SFAB_HCA_STAT(rc_pkts_rx),
    SFAB_HCA_STAT(rc_acks_tx),
    SFAB_HCA_STAT(rc_naks_tx),
    SFAB_HCA_STAT(rc_retransmits),
    SFAB_HCA_STAT(rc_retrans_pkts),
    SFAB_HCA_STAT(rc_wqe_kept),
    SFAB_HCA_STAT(rc_ack_timeouts),
    SFAB_HCA_STAT(rc_seq_naks_rx),
    SFAB_HCA_STAT(rc_implied_naks),
    SFAB_HCA_STAT(rc_rnr_retries),
    SFAB_HCA_STAT(rc_out_of_seq),
    SFAB_HCA_STAT(rc_dups),
    SFAB_HCA_STAT(xrc_bad_srq),
    SFAB_HCA_STAT(rc_retry_exc),
    SFAB_HCA_STAT(rc_rnr_retry_exc),
    SFAB_HCA_STAT(rc_rnr_naks_rx),
    SFAB_HCA_STAT(rc_dropped),
};

/*
 * "inject": a fault for the running device (qom-set DEV inject NAME;
 * Documentation/sfab/registers.rst, "Fault injection").  Reads as "".
 */
static char *sfab_hca_get_inject(Object *obj, Error **errp)
{
    return g_strdup("");
}

static void sfab_hca_set_inject(Object *obj, const char *value, Error **errp)
{
    SfabHcaState *s = SFAB_HCA(obj);
    enum sfab_fault f = sfab_engine_fault_parse(value);

    if (!f || !sfab_engine_inject(&s->engine, f)) {
        error_setg(errp, "%s: no such fault (aq-stall, aq-error, cqe-error, "
                   "msix-lost, fatal, mmio-dead)", value);
        return;
    }
    sfab_hca_kick(s);
}

static void sfab_hca_instance_init(Object *obj)
{
    SfabHcaState *s = SFAB_HCA(obj);
    char name[64];
    size_t i;
    char *p;

    for (i = 0; i < ARRAY_SIZE(sfab_hca_stats); i++) {
        pstrcpy(name, sizeof(name), sfab_hca_stats[i].name);
        for (p = name; *p; p++) {
            if (*p == '_') {
                *p = '-';
            }
        }
        object_property_add_uint64_ptr(obj, name,
                (const uint64_t *)((const char *)&s->engine.stats +
                                   sfab_hca_stats[i].off),
                OBJ_PROP_FLAG_READ);
    }
    object_property_add_str(obj, "inject", sfab_hca_get_inject,
                            sfab_hca_set_inject);
    object_property_add_uint64_ptr(obj, "stat-cable-tx-dropped",
                                   &s->cable_tx_dropped, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "stat-cable-tx-overflows",
                                   &s->cable_tx_overflows,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "stat-dma-read-ram-bytes",
                                   &s->dma_read_ram_bytes, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "stat-dma-write-ram-bytes",
                                   &s->dma_write_ram_bytes,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "stat-dma-read-peer-bytes",
                                   &s->dma_read_peer_bytes,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "stat-dma-write-peer-bytes",
                                   &s->dma_write_peer_bytes,
                                   OBJ_PROP_FLAG_READ);
}

static const Property sfab_hca_properties[] = {
    DEFINE_PROP_UINT64("node-guid", SfabHcaState, node_guid, 0),
    DEFINE_PROP_STRING("fw", SfabHcaState, fw_path),
    DEFINE_PROP_LINK("cable", SfabHcaState, cable, TYPE_SFAB_CABLE,
                     SfabCable *),
    DEFINE_PROP_UINT32("max-qps", SfabHcaState, engine_cfg.max_qp,
                       SFAB_ENGINE_MAX_QP),
    DEFINE_PROP_UINT32("max-cqs", SfabHcaState, engine_cfg.max_cq,
                       SFAB_ENGINE_MAX_CQ),
    DEFINE_PROP_UINT32("max-mrs", SfabHcaState, engine_cfg.max_mr,
                       SFAB_ENGINE_MAX_MR),
    DEFINE_PROP_UINT32("max-srqs", SfabHcaState, engine_cfg.max_srq,
                       SFAB_ENGINE_MAX_SRQ),
};

static void sfab_hca_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = sfab_hca_realize;
    pc->exit = sfab_hca_exit;
    pc->config_write = sfab_hca_write_config;
    pc->vendor_id = SFAB_PCI_VENDOR_ID;
    pc->device_id = SFAB_PCI_DEVICE_ID;
    pc->revision = SFAB_PCI_REVISION;
    pc->class_id = SFAB_PCI_CLASS;
    pc->subsystem_vendor_id = SFAB_PCI_VENDOR_ID;
    pc->subsystem_id = SFAB_PCI_SUBSYS_ID;

    rc->phases.hold = sfab_hca_reset_hold;

    dc->desc = "sfab InfiniBand-class host channel adapter";
    dc->vmsd = &sfab_hca_vmstate;
    device_class_set_props(dc, sfab_hca_properties);
    object_class_property_set_description(klass, "cable",
        "the port's cable: the id of an sfab-cable object (-object "
        "sfab-cable,id=ID,path=SWITCH-PORT-SOCKET); unset: no cable");
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo sfab_hca_info = {
    .name = TYPE_SFAB_HCA,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SfabHcaState),
    .instance_init = sfab_hca_instance_init,
    .class_init = sfab_hca_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void sfab_hca_register_types(void)
{
    type_register_static(&sfab_hca_info);
}

type_init(sfab_hca_register_types)
