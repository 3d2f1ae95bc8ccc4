/*
 * QEMU sfab-accel: a test accelerator that stands in for a GPU (PCIe shell)
 *
 * The device has memory of its own (BAR2) and a command engine that runs
 * programs the host queues on a ring: immediate writes, copies, stores to
 * any bus address (its memory, host memory, an HCA's doorbell page),
 * polls, fences and completion markers.  That is enough to act as a GPU
 * kernel doing GPU-initiated communication: build WQEs, write the
 * doorbell record, ring the HCA's doorbell peer-to-peer, poll for the CQE.
 *
 * This file is the PCIe side only: config space, BARs, MSI-X, DMA, the
 * poll retry timer, tracing and reset.  The command engine is the
 * QEMU-independent model/accel/sfab_accel_engine.c, which the project's
 * host unit tests drive directly; the register map and the commands are
 * the hardware contract include/sfab/sfab_accel.h
 * (Documentation/sfab/accel.rst).
 *
 * BAR0: 32-bit registers (aligned 32-bit accesses; other reads return all
 *       ones and other writes are ignored, as the contract says)
 * BAR2: 64-bit prefetchable device memory, RAM: the guest can map it and
 *       other devices DMA into it (property mem-size)
 * BAR4: MSI-X table and PBA (vector 0: completions, 1: ring errors)
 *
 * Ring work runs in a bottom half guarded by the device's
 * mem_reentrancy_guard, never in the MMIO handler: a command that stores
 * to the device's own registers fails as a DMA error instead of running
 * the register handler inside the engine.  A store to another device's
 * BAR goes through pci_dma_write() and so through the bus, a peer write
 * as a real device's would be.  Each bottom half runs at most the
 * engine's budget and schedules itself again if more is pending; a POLL
 * that does not match yet waits on a QEMU_CLOCK_VIRTUAL timer, which only
 * schedules the bottom half.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "hw/sfab/model/accel/sfab_accel_engine.h"
#include "trace.h"

#define TYPE_SFAB_ACCEL "sfab-accel"
OBJECT_DECLARE_SIMPLE_TYPE(SfabAccelState, SFAB_ACCEL)

#define SFAB_ACCEL_PCIE_CAP_OFFSET 0xa0

struct SfabAccelState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion mem;
    QEMUBH *bh;
    QEMUTimer *poll_timer;      /* QEMU_CLOCK_VIRTUAL: POLL retries */

    uint64_t mem_size;          /* property mem-size */
    /* properties poll-interval-ns, poll-interval-max-ns */
    struct sfab_accel_engine_config cfg;

    struct sfab_accel_engine engine;
};

/* engine callbacks */

static void sfab_accel_dma_error(uint64_t addr, size_t len, bool write,
                                 MemTxResult r)
{
    qemu_log_mask(LOG_GUEST_ERROR,
                  "%s: DMA %s of %zu bytes at 0x%" PRIx64 " failed: %s\n",
                  TYPE_SFAB_ACCEL, write ? "write" : "read", len, addr,
                  r & MEMTX_ACCESS_ERROR ?
                  "access refused (the device's own registers?)" :
                  r & MEMTX_DECODE_ERROR ? "nothing there" : "bus error");
    trace_sfab_accel_dma_error(addr, len, write, r);
}

/*
 * The accelerator's DMA names it as the requester, as a PCIe TLP does: a
 * peer BAR it writes (the sfab-hca doorbell page exported to it) sees
 * the write as a peer device's, not a CPU's (sfab_hca_db_source()).
 */
static MemTxAttrs sfab_accel_dma_attrs(PCIDevice *d)
{
    return (MemTxAttrs) { .requester_id = pci_requester_id(d) };
}

static int sfab_accel_dma_read(void *opaque, uint64_t addr, void *buf,
                               size_t len)
{
    SfabAccelState *s = opaque;
    PCIDevice *d = PCI_DEVICE(s);
    MemTxResult r = pci_dma_rw(d, addr, buf, len, DMA_DIRECTION_TO_DEVICE,
                               sfab_accel_dma_attrs(d));

    if (r != MEMTX_OK) {
        sfab_accel_dma_error(addr, len, false, r);
        return -1;
    }
    return 0;
}

/* a STORE of 4 or 8 bytes is one access of that size, also to a peer BAR */
static int sfab_accel_dma_write(void *opaque, uint64_t addr, const void *buf,
                                size_t len)
{
    SfabAccelState *s = opaque;
    PCIDevice *d = PCI_DEVICE(s);
    MemTxResult r = pci_dma_rw(d, addr, (void *)buf, len,
                               DMA_DIRECTION_FROM_DEVICE,
                               sfab_accel_dma_attrs(d));

    if (r != MEMTX_OK) {
        sfab_accel_dma_error(addr, len, true, r);
        return -1;
    }
    return 0;
}

static uint64_t sfab_accel_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void sfab_accel_timer_arm(void *opaque, uint64_t deadline_ns)
{
    SfabAccelState *s = opaque;

    timer_mod(s->poll_timer, MIN(deadline_ns, (uint64_t)INT64_MAX));
}

static void sfab_accel_timer_cancel(void *opaque)
{
    SfabAccelState *s = opaque;

    timer_del(s->poll_timer);
}

static void sfab_accel_irq(void *opaque, unsigned vector)
{
    PCIDevice *pci_dev = PCI_DEVICE(opaque);

    if (msix_enabled(pci_dev)) {
        msix_notify(pci_dev, vector);
    }
}

/* every guest error: LOG_GUEST_ERROR and one trace event with its site */
static void sfab_accel_guest_error(void *opaque, enum sfab_accel_ge site,
                                   const char *msg)
{
    trace_sfab_accel_guest_error(site, sfab_accel_engine_site_name(site));
    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: %s\n", TYPE_SFAB_ACCEL,
                  sfab_accel_engine_site_name(site), msg);
}

static void sfab_accel_trace(void *opaque, enum sfab_accel_trace_ev ev,
                             uint64_t a, uint64_t b)
{
    switch (ev) {
    case SFAB_ACCEL_TRACE_RESET:
        trace_sfab_accel_reset();
        break;
    case SFAB_ACCEL_TRACE_ENABLE:
        trace_sfab_accel_enable(a, b);
        break;
    case SFAB_ACCEL_TRACE_CMD:
        trace_sfab_accel_cmd(a, b);
        break;
    case SFAB_ACCEL_TRACE_POLL_WAIT:
        trace_sfab_accel_poll_wait(a, b);
        break;
    case SFAB_ACCEL_TRACE_COMPLETE:
        trace_sfab_accel_complete(a, b);
        break;
    case SFAB_ACCEL_TRACE_IRQ:
        trace_sfab_accel_irq(a);
        break;
    case SFAB_ACCEL_TRACE_IRQ_MASKED:
        trace_sfab_accel_irq_masked(a);
        break;
    case SFAB_ACCEL_TRACE_ERROR:
        trace_sfab_accel_error(a, b);
        break;
    case SFAB_ACCEL_TRACE_YIELD:
        trace_sfab_accel_yield(a, b);
        break;
    }
}

static const struct sfab_accel_engine_ops sfab_accel_engine_ops = {
    .dma_read = sfab_accel_dma_read,
    .dma_write = sfab_accel_dma_write,
    .now_ns = sfab_accel_now_ns,
    .timer_arm = sfab_accel_timer_arm,
    .timer_cancel = sfab_accel_timer_cancel,
    .irq = sfab_accel_irq,
    .guest_error = sfab_accel_guest_error,
    .trace = sfab_accel_trace,
};

/* ring work: here, outside the MMIO handler, with the guard engaged */
static void sfab_accel_bh(void *opaque)
{
    SfabAccelState *s = opaque;

    sfab_accel_engine_process(&s->engine);
    /*
     * More is pending when the engine stopped at its budget; each round
     * runs commands or stops the ring, so this ends.
     */
    if (sfab_accel_engine_work_pending(&s->engine)) {
        qemu_bh_schedule(s->bh);
    }
}

/* a POLL's retry is due: the check itself runs in the bottom half */
static void sfab_accel_poll_timer(void *opaque)
{
    SfabAccelState *s = opaque;

    trace_sfab_accel_poll_timer();
    if (sfab_accel_engine_timer(&s->engine)) {
        qemu_bh_schedule(s->bh);
    }
}

/* BAR0: registers */

static uint64_t sfab_accel_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    SfabAccelState *s = opaque;
    uint64_t val;

    if (size != 4 || (addr & 3)) {
        sfab_accel_engine_guest_error(&s->engine, SFAB_ACCEL_GE_REG_READ,
                                      "%u-byte read at 0x%" HWADDR_PRIx
                                      ": registers take aligned 32-bit reads",
                                      size, addr);
        val = MAKE_64BIT_MASK(0, size * 8);
    } else {
        val = sfab_accel_engine_reg_read(&s->engine, addr);
    }
    trace_sfab_accel_mmio_read(addr, val, size);
    return val;
}

static void sfab_accel_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                                  unsigned size)
{
    SfabAccelState *s = opaque;

    trace_sfab_accel_mmio_write(addr, val, size);
    if (size != 4 || (addr & 3)) {
        sfab_accel_engine_guest_error(&s->engine, SFAB_ACCEL_GE_REG_WRITE,
                                      "%u-byte write at 0x%" HWADDR_PRIx
                                      ": registers take aligned 32-bit "
                                      "writes, ignored", size, addr);
        return;
    }
    /* the engine does no DMA here: a doorbell only schedules the work */
    if (sfab_accel_engine_reg_write(&s->engine, addr, val)) {
        qemu_bh_schedule(s->bh);
    }
}

static const MemoryRegionOps sfab_accel_mmio_ops = {
    .read = sfab_accel_mmio_read,
    .write = sfab_accel_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /*
     * Every size reaches the handlers, which serve aligned 32-bit accesses
     * and answer the rest as the contract says (all ones / ignored).
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

/* device */

static void sfab_accel_realize(PCIDevice *pci_dev, Error **errp)
{
    SfabAccelState *s = SFAB_ACCEL(pci_dev);
    unsigned v;
    int ret;

    if (!sfab_accel_mem_size_ok(s->mem_size)) {
        error_setg(errp, "%s: mem-size 0x%" PRIx64 " must be a power of two "
                   "from %llu MiB to %llu GiB", TYPE_SFAB_ACCEL, s->mem_size,
                   (1ULL << SFAB_ACCEL_MEM_LOG_MIN) / MiB,
                   (1ULL << SFAB_ACCEL_MEM_LOG_MAX) / GiB);
        return;
    }
    s->cfg.mem_log_size = ctz64(s->mem_size);
    s->cfg.kick_cmds = SFAB_ACCEL_ENGINE_KICK_CMDS;
    s->cfg.kick_bytes = SFAB_ACCEL_ENGINE_KICK_BYTES;
    if (sfab_accel_engine_init(&s->engine, &sfab_accel_engine_ops, s,
                               &s->cfg)) {
        error_setg(errp, "%s: poll-interval-ns %" PRIu64 " and "
                   "poll-interval-max-ns %" PRIu64 " must be within "
                   "%u..%u ns, the first not above the second",
                   TYPE_SFAB_ACCEL, s->cfg.poll_interval_ns,
                   s->cfg.poll_interval_max_ns,
                   SFAB_ACCEL_ENGINE_POLL_NS_MIN,
                   SFAB_ACCEL_ENGINE_POLL_NS_MAX);
        return;
    }

    memory_region_init_io(&s->regs, OBJECT(s), &sfab_accel_mmio_ops, s,
                          "sfab-accel-regs", SFAB_ACCEL_BAR_REGS_SIZE);
    pci_register_bar(pci_dev, SFAB_ACCEL_BAR_REGS,
                     PCI_BASE_ADDRESS_SPACE_MEMORY, &s->regs);

    /* RAM: mappable by the guest, a DMA target for every device */
    if (!memory_region_init_ram(&s->mem, OBJECT(s), "sfab-accel-mem",
                                s->mem_size, errp)) {
        return;
    }
    pci_register_bar(pci_dev, SFAB_ACCEL_BAR_MEM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->mem);

    ret = pcie_endpoint_cap_init(pci_dev, SFAB_ACCEL_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "%s: cannot add the PCIe capability",
                   TYPE_SFAB_ACCEL);
        return;
    }

    ret = msix_init_exclusive_bar(pci_dev, SFAB_ACCEL_MSIX_VECTORS,
                                  SFAB_ACCEL_BAR_MSIX, errp);
    if (ret) {
        pcie_cap_exit(pci_dev);
        return;
    }
    for (v = 0; v < SFAB_ACCEL_MSIX_VECTORS; v++) {
        msix_vector_use(pci_dev, v);
    }

    s->bh = qemu_bh_new_guarded(sfab_accel_bh, s,
                                &DEVICE(pci_dev)->mem_reentrancy_guard);
    s->poll_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, sfab_accel_poll_timer,
                                 s);
}

static void sfab_accel_exit(PCIDevice *pci_dev)
{
    SfabAccelState *s = SFAB_ACCEL(pci_dev);

    timer_free(s->poll_timer);
    s->poll_timer = NULL;
    qemu_bh_delete(s->bh);
    s->bh = NULL;
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
    pcie_cap_exit(pci_dev);
}

static void sfab_accel_reset_hold(Object *obj, ResetType type)
{
    SfabAccelState *s = SFAB_ACCEL(obj);

    qemu_bh_cancel(s->bh);
    timer_del(s->poll_timer);
    /* registers and the ring; device memory keeps its contents */
    sfab_accel_engine_reset(&s->engine);
}

static const VMStateDescription sfab_accel_vmstate = {
    .name = TYPE_SFAB_ACCEL,
    .unmigratable = 1,
};

/*
 * The engine's counters (struct sfab_accel_engine_stats), read-only for
 * qom-get as "stat-<name>", '_' written '-': the numbers the unit tests
 * read.
 */
#define SFAB_ACCEL_STAT(f) \
    { "stat-" #f, offsetof(struct sfab_accel_engine_stats, f) }

static const struct {
    const char *name;
    size_t off;
} sfab_accel_stats[] = {
    SFAB_ACCEL_STAT(cmds),
    SFAB_ACCEL_STAT(imm_writes),
    SFAB_ACCEL_STAT(copies),
    SFAB_ACCEL_STAT(copy_bytes),
    SFAB_ACCEL_STAT(stores),
    SFAB_ACCEL_STAT(polls),
    SFAB_ACCEL_STAT(poll_retries),
    SFAB_ACCEL_STAT(poll_timeouts),
    SFAB_ACCEL_STAT(fences),
    SFAB_ACCEL_STAT(completions),
    SFAB_ACCEL_STAT(irqs),
    SFAB_ACCEL_STAT(irqs_masked),
    SFAB_ACCEL_STAT(errors),
    SFAB_ACCEL_STAT(guest_errors),
    SFAB_ACCEL_STAT(kicks),
    SFAB_ACCEL_STAT(yields),
};

static void sfab_accel_instance_init(Object *obj)
{
    SfabAccelState *s = SFAB_ACCEL(obj);
    char name[64];
    size_t i;
    char *p;

    for (i = 0; i < ARRAY_SIZE(sfab_accel_stats); i++) {
        pstrcpy(name, sizeof(name), sfab_accel_stats[i].name);
        for (p = name; *p; p++) {
            if (*p == '_') {
                *p = '-';
            }
        }
        object_property_add_uint64_ptr(obj, name,
                (const uint64_t *)((const char *)&s->engine.stats +
                                   sfab_accel_stats[i].off),
                OBJ_PROP_FLAG_READ);
    }
}

static const Property sfab_accel_properties[] = {
    DEFINE_PROP_SIZE("mem-size", SfabAccelState, mem_size,
                     SFAB_ACCEL_MEM_SIZE_DEFAULT),
    DEFINE_PROP_UINT64("poll-interval-ns", SfabAccelState,
                       cfg.poll_interval_ns, SFAB_ACCEL_ENGINE_POLL_NS),
    DEFINE_PROP_UINT64("poll-interval-max-ns", SfabAccelState,
                       cfg.poll_interval_max_ns,
                       SFAB_ACCEL_ENGINE_POLL_MAX_NS),
};

static void sfab_accel_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = sfab_accel_realize;
    pc->exit = sfab_accel_exit;
    pc->vendor_id = SFAB_ACCEL_PCI_VENDOR_ID;
    pc->device_id = SFAB_ACCEL_PCI_DEVICE_ID;
    pc->revision = SFAB_ACCEL_PCI_REVISION;
    pc->class_id = SFAB_ACCEL_PCI_CLASS;
    pc->subsystem_vendor_id = SFAB_ACCEL_PCI_VENDOR_ID;
    pc->subsystem_id = SFAB_ACCEL_PCI_SUBSYS_ID;

    rc->phases.hold = sfab_accel_reset_hold;

    dc->desc = "sfab test accelerator (device memory, command engine)";
    dc->vmsd = &sfab_accel_vmstate;
    device_class_set_props(dc, sfab_accel_properties);
    object_class_property_set_description(klass, "mem-size",
        "size of the device memory BAR (BAR2): a power of two from 1 MiB "
        "to 16 GiB");
    object_class_property_set_description(klass, "poll-interval-ns",
        "first wait before a POLL that did not match checks again; "
        "it doubles per miss up to poll-interval-max-ns");
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo sfab_accel_info = {
    .name = TYPE_SFAB_ACCEL,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SfabAccelState),
    .instance_init = sfab_accel_instance_init,
    .class_init = sfab_accel_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void sfab_accel_register_types(void)
{
    type_register_static(&sfab_accel_info);
}

type_init(sfab_accel_register_types)
