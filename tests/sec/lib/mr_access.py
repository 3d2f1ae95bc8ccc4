#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Memory protection tried from user space (pyverbs, libsfab, sfab.ko,
the engine), RC QPs of one process connected through the port's own LID;
each case on a fresh pair a (requester) -> b (responder), whose QP grants
every remote right, so that only the memory's own rights decide.

usage: mr_access.py [DEVICE]

- An RDMA WRITE, READ or atomic into an MR without that right fails with
  the IBA error on both ends: IBV_WC_REM_ACCESS_ERR at a, the responder's
  QP in Error with IBV_EVENT_QP_ACCESS_ERR; the target is unchanged.
- PD isolation: an MR of another PD is out of reach through its rkey
  (IBV_WC_REM_ACCESS_ERR) and its lkey (IBV_WC_LOC_PROT_ERR).
- An rkey after ibv_dereg_mr, and a type 2 window's rkey after
  IBV_WR_LOCAL_INV, name nothing: IBV_WC_REM_ACCESS_ERR, nothing written.
- Another process's doorbells: a child opens the device itself and writes
  SQ and RQ doorbells naming the parent's QP, on every doorbell page it
  can map; the parent's QP does nothing (no completion, still RTS, the
  target unchanged) and then works as before.  The child maps no more
  pages than its own context's (at most 2: the doorbell page, uncached
  and write-combined).
- The device's own BARs (the sysfs resource files, mapped) cannot be
  registered as an MR: ibv_reg_mr fails.

Prints "ok: ..." per case; exits 1 with "FAIL: ..." on the first failure.
"""
import ctypes
import errno
import mmap
import os
import signal
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

# the verbs tests' loopback connection helper
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "verbs", "lib"))
import rc_loop  # noqa: E402

SIZE = 4096
LOCAL = e.IBV_ACCESS_LOCAL_WRITE
REMOTE = (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
          e.IBV_ACCESS_REMOTE_ATOMIC)
PAGE = 4096
DB_SQ, DB_RQ = 0x000, 0x008


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


class Pair:
    def __init__(self, ctx, pd, lid):
        self.cq = CQ(ctx, 16)
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
        ia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap)
        self.a, self.b = QP(pd, ia), QP(pd, ia)
        rc_loop.rts(self.a, self.b, lid, REMOTE)
        rc_loop.rts(self.b, self.a, lid, REMOTE)

    def post(self, wr, qp=None):
        (qp or self.a).post_send(wr)
        return self.poll()

    def poll(self, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            n, wcs = self.cq.poll(1)
            if n:
                return wcs[0]
            time.sleep(0.001)
        fail(f"no completion within {timeout} s")
        return None

    def idle(self, secs=1.0):
        """no completion at all for @secs"""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            n, wcs = self.cq.poll(1)
            if n:
                fail(f"an unexpected completion: wr_id {wcs[0].wr_id} "
                     f"status {wcs[0].status}")
            time.sleep(0.01)


def rdma(op, sge, rkey, addr):
    wr = SendWR(wr_id=1, opcode=op, num_sge=1, sg=[sge],
                send_flags=e.IBV_SEND_SIGNALED)
    if op in (e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP):
        wr.set_wr_atomic(rkey, addr, 1, 0)
    else:
        wr.set_wr_rdma(rkey, addr)
    return wr


def qp_state(qp):
    return qp.query(e.IBV_QP_STATE)[0].qp_state


def access_event(ctx, qp, what):
    """the async event the responder's QP gets: IBV_EVENT_QP_ACCESS_ERR"""
    # ibv_get_async_event blocks: an alarm ends a wait for none
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(20)
    ev = ctx.get_async_event()
    signal.alarm(0)
    if ev.event_type != e.IBV_EVENT_QP_ACCESS_ERR:
        fail(f"{what}: async event {ev.event_type}, want IBV_EVENT_QP_ACCESS_ERR")
    ev.ack()
    if qp_state(qp) != e.IBV_QPS_ERR:
        fail(f"{what}: the responder's QP is in state {qp_state(qp)}, not Error")


def both_ends(ctx, pd, lid, src, dst, pattern):
    cases = (
        ("WRITE", e.IBV_WR_RDMA_WRITE, e.IBV_ACCESS_REMOTE_WRITE, SGE(src.buf, 64, src.lkey)),
        ("READ", e.IBV_WR_RDMA_READ, e.IBV_ACCESS_REMOTE_READ, SGE(dst.buf, 64, dst.lkey)),
        ("atomic", e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_ACCESS_REMOTE_ATOMIC,
         SGE(dst.buf, 8, dst.lkey)),
    )
    for name, op, right, sge in cases:
        t = MR(pd, SIZE, LOCAL | (REMOTE & ~right))
        t.write(pattern, SIZE)
        p = Pair(ctx, pd, lid)
        wc = p.post(rdma(op, sge, t.rkey, t.buf))
        if wc.status != e.IBV_WC_REM_ACCESS_ERR:
            fail(f"{name} into an MR without its right: status {wc.status}")
        access_event(ctx, p.b, name)
        if t.read(SIZE, 0) != pattern:
            fail(f"{name} into an MR without its right: the target changed")
        ok(f"{name} into an MR without the right: IBV_WC_REM_ACCESS_ERR at the "
           "requester, the responder's QP in Error with IBV_EVENT_QP_ACCESS_ERR, "
           "target unchanged")


def pd_isolation(ctx, pd, lid, src, pattern):
    pd2 = PD(ctx)
    t = MR(pd2, SIZE, LOCAL | REMOTE)
    t.write(pattern, SIZE)
    p = Pair(ctx, pd, lid)
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(src.buf, 64, src.lkey), t.rkey, t.buf))
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"WRITE into an MR of another PD: status {wc.status}")
    access_event(ctx, p.b, "WRITE into another PD's MR")
    if t.read(SIZE, 0) != pattern:
        fail("WRITE into an MR of another PD: the target changed")
    ok("WRITE with the rkey of another PD's MR: IBV_WC_REM_ACCESS_ERR, unchanged")
    good = MR(pd, SIZE, LOCAL | REMOTE)
    p = Pair(ctx, pd, lid)
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(t.buf, 64, t.lkey), good.rkey, good.buf))
    if wc.status != e.IBV_WC_LOC_PROT_ERR:
        fail(f"an SGE with the lkey of another PD's MR: status {wc.status}")
    ok("an SGE with the lkey of another PD's MR: IBV_WC_LOC_PROT_ERR")
    t.close()
    pd2.close()


def stale_keys(ctx, pd, lid, src, pattern):
    t = MR(pd, SIZE, LOCAL | REMOTE)
    key, addr = t.rkey, t.buf
    t.close()
    keep = MR(pd, SIZE, LOCAL | REMOTE)
    keep.write(pattern, SIZE)
    p = Pair(ctx, pd, lid)
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(src.buf, 64, src.lkey), key, addr))
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"WRITE with the rkey of a deregistered MR: status {wc.status}")
    access_event(ctx, p.b, "WRITE with a deregistered rkey")
    if keep.read(SIZE, 0) != pattern:
        fail("WRITE with a deregistered rkey changed the MR registered after it")
    ok("WRITE with the rkey of a deregistered MR: IBV_WC_REM_ACCESS_ERR, the "
       "MR registered after it unchanged")

    # a type 2 window, bound by b, used by a, invalidated by b
    m = MR(pd, SIZE, LOCAL | e.IBV_ACCESS_MW_BIND)
    m.write(pattern, SIZE)
    mw = MW(pd, e.IBV_MW_TYPE_2)
    p = Pair(ctx, pd, lid)
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    wr.set_bind_wr(mw, MWBindInfo(m, m.buf, SIZE, e.IBV_ACCESS_REMOTE_WRITE))
    wc = p.post(wr, p.b)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"IBV_WR_BIND_MW: status {wc.status}")
    rkey = wr.rkey
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(src.buf, 64, src.lkey), rkey, m.buf))
    if wc.status != e.IBV_WC_SUCCESS or m.read(64, 0) != src.read(64, 0):
        fail(f"WRITE through the bound window: status {wc.status}")
    m.write(pattern, SIZE)
    inv = SendWR(wr_id=3, opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
    inv.imm_data = rkey
    wc = p.post(inv, p.b)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"IBV_WR_LOCAL_INV: status {wc.status}")
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(src.buf, 64, src.lkey), rkey, m.buf))
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"WRITE with an invalidated window's rkey: status {wc.status}")
    access_event(ctx, p.b, "WRITE with an invalidated rkey")
    if m.read(SIZE, 0) != pattern:
        fail("WRITE with an invalidated rkey changed the memory")
    ok("WRITE with a type 2 window's rkey after IBV_WR_LOCAL_INV: "
       "IBV_WC_REM_ACCESS_ERR, memory unchanged")
    mw.close()


def child_doorbells(dev, qpn):
    """as another process: map what it can, ring the parent's QP there"""
    ctx = Context(name=dev)
    PD(ctx)          # a context with objects, as a real process has
    fd = ctx.cmd_fd
    pages = []
    for k in range(64):
        try:
            pages.append(mmap.mmap(fd, PAGE, mmap.MAP_SHARED,
                                   mmap.PROT_READ | mmap.PROT_WRITE, offset=k * PAGE))
        except OSError:
            continue
    if not pages or len(pages) > 2:
        print(f"FAIL: the child mapped {len(pages)} doorbell pages, want 1 or 2",
              flush=True)
        os._exit(1)
    for m in pages:
        for reg in (DB_SQ, DB_RQ):
            # QPN in the low word, a producer index far ahead in the high
            val = (qpn & 0xffffff) | (0x20 << 32)
            ctypes.c_uint64.from_buffer(m, reg).value = val
    print(f"ok: child: {len(pages)} doorbell pages of its own mapped, SQ and RQ "
          f"doorbells for QP {qpn} written on each", flush=True)
    os._exit(0)


def doorbells(dev, ctx, pd, lid, src, pattern):
    t = MR(pd, SIZE, LOCAL | REMOTE)
    t.write(pattern, SIZE)
    p = Pair(ctx, pd, lid)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            child_doorbells(dev, p.a.qp_num)
        except BaseException as ex:  # noqa: B902
            print(f"FAIL: child: {ex!r}", flush=True)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status):
        fail("the doorbell child failed")
    p.idle(1.0)
    if qp_state(p.a) != e.IBV_QPS_RTS or qp_state(p.b) != e.IBV_QPS_RTS:
        fail(f"after another process's doorbells: states {qp_state(p.a)}, {qp_state(p.b)}")
    if t.read(SIZE, 0) != pattern:
        fail("after another process's doorbells: the target changed")
    wc = p.post(rdma(e.IBV_WR_RDMA_WRITE, SGE(src.buf, 64, src.lkey), t.rkey, t.buf))
    if wc.status != e.IBV_WC_SUCCESS or t.read(64, 0) != src.read(64, 0):
        fail(f"the QP after another process's doorbells: status {wc.status}")
    ok("another process's doorbells naming this QP: nothing happened, the QP "
       "still RTS and working")


def bars(dev, pd):
    pci = os.path.realpath(f"/sys/class/infiniband/{dev}/device")
    tried = 0
    for i in range(6):
        path = f"{pci}/resource{i}"
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            continue
        fd = os.open(path, os.O_RDWR | os.O_SYNC)
        try:
            m = mmap.mmap(fd, PAGE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        try:
            MR(pd, PAGE, LOCAL | e.IBV_ACCESS_REMOTE_WRITE, address=addr)
        except PyverbsRDMAError as ex:
            ok(f"ibv_reg_mr over BAR {i} ({os.path.basename(path)}): refused, "
               f"errno {ex.error_code} ({errno.errorcode.get(ex.error_code, '?')})")
            tried += 1
        else:
            fail(f"ibv_reg_mr over the device's BAR {i} succeeded")
    if not tried:
        fail(f"no BAR of {pci} to try")


def main():
    dev = sys.argv[1] if len(sys.argv) > 1 else "sfab_0"
    ctx = Context(name=dev)
    lid = ctx.query_port(1).lid
    if not lid:
        fail("port 1 has no LID")
    pd = PD(ctx)
    src = MR(pd, SIZE, LOCAL)
    src.write(bytes((i * 7 + 3) & 0xff for i in range(SIZE)), SIZE)
    dst = MR(pd, SIZE, LOCAL)
    pattern = bytes(range(256)) * (SIZE // 256)
    both_ends(ctx, pd, lid, src, dst, pattern)
    pd_isolation(ctx, pd, lid, src, pattern)
    stale_keys(ctx, pd, lid, src, pattern)
    doorbells(dev, ctx, pd, lid, src, pattern)
    bars(dev, pd)
    ok("memory protection held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
