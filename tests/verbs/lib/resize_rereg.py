#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Resizing a CQ and re-registering an MR, end to end (pyverbs, libsfab,
sfab.ko, the engine), on one sfab device: two RC QPs connected to each
other through the port's own LID.

usage: resize_rereg.py resize-cq|resize-srq|rereg-mr [DEVICE]

resize-cq: a send CQ of 4 takes signalled RDMA WRITEs; with completions
  waiting in it, and with WRITEs still completing (posted just before), it
  is grown and shrunk through 16, 8, 64, 5, 128, 100, 4, 16 entries: every
  completion arrives exactly once, in posting order, successful, and
  every WRITE's bytes are at the target.  Shrinking below the completions
  waiting fails with EINVAL and loses none of them; an arm
  (ibv_req_notify_cq) made before a resize still raises its event, and
  one made after it too.
resize-srq: an SRQ of 4 with 3 receives posted grows to 16 and takes 10
  more; every SEND lands in its receive, in posting order, bytes checked;
  with multi-packet SENDs still arriving it is shrunk and grown (8, 32,
  8): each receive completes once, in order, with its bytes; shrinking
  below the receives posted is EINVAL and loses none; query_srq reports
  each new max_wr.
rereg-mr: an MR the peer writes into is re-registered: without
  REMOTE_WRITE (the WRITE fails with IBV_WC_REM_ACCESS_ERR, the buffer is
  unchanged) and back, its keys kept; onto another buffer (WRITEs land in the new one,
  the old buffer is untouched, the old rkey is refused); into another PD
  (the QP's local use fails with IBV_WC_LOC_PROT_ERR) and back, keys
  kept; a
  re-registration the kernel refuses (an unmapped range) leaves the MR
  working with its keys.  The process's MR count in `rdma resource`
  counts one per registration through all of it.

Prints "ok: ..." per check; exits 1 with "FAIL: ..." on the first failure.
"""
import ctypes
import errno
import mmap
import os
import subprocess
import sys
import threading
import time

import pyverbs.enums as e
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

import rc_loop

SIZE = 4096
LOCAL = e.IBV_ACCESS_LOCAL_WRITE
REMOTE = LOCAL | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


def connect(ctx, pd, lid, scq, rcq, depth=64, srq=None):
    """Two RC QPs connected to each other through @lid (b on @srq)."""
    cap = QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                max_recv_sge=1)
    ia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq, cap=cap,
                    sq_sig_all=0)
    a = QP(pd, ia)
    if srq is not None:
        ia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq, srq=srq,
                        cap=QPCap(max_send_wr=depth, max_recv_wr=0,
                                  max_send_sge=1, max_recv_sge=0),
                        sq_sig_all=0)
    b = QP(pd, ia)
    rc_loop.rts(a, b, lid)
    rc_loop.rts(b, a, lid)
    return a, b


def write(qp, wr_id, src, off, length, rkey, addr):
    wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(src.buf + off, length, src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, addr)
    qp.post_send(wr)


def poll_n(cq, n, timeout=20):
    """Exactly @n completions (then none more for a moment)."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        k, wcs = cq.poll(n - len(got))
        if k:
            got += wcs[:k]
        else:
            time.sleep(0.001)
    if len(got) < n:
        fail(f"{len(got)} of {n} completions after {timeout} s")
    time.sleep(0.05)
    k, wcs = cq.poll(1)
    if k:
        fail(f"an extra completion, wr_id {wcs[0].wr_id}")
    return got


def check_in_order(wcs, first, what):
    ids = [wc.wr_id for wc in wcs]
    if ids != list(range(first, first + len(wcs))):
        fail(f"{what}: completions {ids}, want {first}..{first + len(wcs) - 1} once each in order")
    for wc in wcs:
        if wc.status != e.IBV_WC_SUCCESS:
            fail(f"{what}: wr_id {wc.wr_id} status {wc.status}")


def resize_cq(ctx, lid):
    pd = PD(ctx)
    scq = CQ(ctx, 4)
    rcq = CQ(ctx, 16)
    if scq.cqe < 4:
        fail(f"CQ of 4 has {scq.cqe} entries")
    a, _ = connect(ctx, pd, lid, scq, rcq)
    src = MR(pd, SIZE, LOCAL)
    dst = MR(pd, 256 * 64, REMOTE)
    pattern = bytes((i * 7 + 3) & 0xff for i in range(SIZE))
    src.write(pattern, SIZE)
    nid = 0

    def post(k):
        nonlocal nid
        for _ in range(k):
            write(a, nid, src, (nid * 13) % 2048, 64, dst.rkey, dst.buf + nid * 64)
            nid += 1

    # completions waiting in the CQ, grown past them
    post(3)
    time.sleep(0.5)
    scq.resize(16)
    if scq.cqe < 16:
        fail(f"resized to 16, cqe {scq.cqe}")
    check_in_order(poll_n(scq, 3), 0, "grow 4 -> 16 with 3 waiting")
    ok(f"grow 4 -> {scq.cqe} with 3 completions waiting: all 3, once, in order")

    # shrinking below what waits: EINVAL, nothing lost
    post(6)
    time.sleep(0.5)
    try:
        scq.resize(2)
        fail("resize to 2 with 6 completions waiting succeeded")
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.EINVAL:
            fail(f"resize to 2 with 6 waiting: errno {ex.error_code}, want EINVAL")
    check_in_order(poll_n(scq, 6), 3, "after the refused shrink")
    ok("shrink 16 -> 2 with 6 completions waiting: EINVAL, all 6 still there")

    # resizes while WRITEs are still completing
    first = nid
    # (new size, WRITEs posted just before): a burst fits the CQ before
    # the resize and after it, whichever ring its completions land in
    steps = ((8, 5), (64, 8), (5, 4), (128, 4), (100, 60), (4, 3), (16, 4))
    for size, burst in steps:
        start = nid
        post(burst)
        scq.resize(size)
        if scq.cqe < size:
            fail(f"resized to {size}, cqe {scq.cqe}")
        check_in_order(poll_n(scq, burst), start, f"resize to {size} in flight")
    ok(f"{len(steps)} resizes ({', '.join(str(z) for z, _ in steps)}) with WRITEs in flight: "
       f"{nid - first} completions, once each, in order")
    if nid > 256:
        fail("the test writes more than its target holds")
    for i in range(nid):
        off = (i * 13) % 2048
        if dst.read(64, i * 64) != pattern[off:off + 64]:
            fail(f"WRITE {i}: wrong bytes at the target")
    ok(f"every WRITE's bytes at the target ({nid} WRITEs)")

    # an arm survives a resize; one asked for after it works too
    ch = CompChannel(ctx)
    ecq = CQ(ctx, 4, None, ch)
    a2, _ = connect(ctx, pd, lid, ecq, rcq)
    ecq.req_notify()
    ecq.resize(32)
    for i, what in enumerate(("armed before the resize", "armed after it")):
        if i:
            ecq.req_notify()
        write(a2, 1000 + i, src, 0, 64, dst.rkey, dst.buf)
        waiter = threading.Thread(target=ch.get_cq_event, args=(ecq,), daemon=True)
        waiter.start()
        waiter.join(10)
        if waiter.is_alive():
            print(f"FAIL: {what}: no completion event within 10 s", flush=True)
            os._exit(1)
        ecq.ack_events(1)
        check_in_order(poll_n(ecq, 1), 1000 + i, what)
    ok("ibv_req_notify_cq before and after a resize: each completion event came")


def resize_srq(ctx, lid):
    MSG = 4096
    pd = PD(ctx)
    scq = CQ(ctx, 256)
    rcq = CQ(ctx, 256)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    a, _ = connect(ctx, pd, lid, scq, rcq, srq=srq)
    src = MR(pd, 64 * MSG, LOCAL)
    dst = MR(pd, 64 * MSG, LOCAL)
    src.write(bytes((i * 11 + (i >> 12)) & 0xff for i in range(64 * MSG)), 64 * MSG)
    nxt = {"recv": 0, "send": 0}

    def post_recvs(k):
        for _ in range(k):
            i = nxt["recv"]
            srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                                 sg=[SGE(dst.buf + (i % 64) * MSG, MSG, dst.lkey)]))
            nxt["recv"] += 1

    def post_sends(k, length):
        for _ in range(k):
            i = nxt["send"]
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(src.buf + (i % 64) * MSG, length, src.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            a.post_send(wr)
            nxt["send"] += 1

    def expect(first, k, length, what):
        wcs = poll_n(rcq, k)
        check_in_order(wcs, first, what)
        for wc in wcs:
            i = wc.wr_id
            if wc.byte_len != length:
                fail(f"{what}: receive {i}: {wc.byte_len} bytes, want {length}")
            if dst.read(length, (i % 64) * MSG) != src.read(length, (i % 64) * MSG):
                fail(f"{what}: receive {i}: wrong bytes")
        check_in_order(poll_n(scq, k), first, what + " (sends)")

    def resize(n):
        srq.modify(SrqAttr(max_wr=n), e.IBV_SRQ_MAX_WR)
        got = srq.query().max_wr
        if got < n:
            fail(f"SRQ resized to {n}: query says max_wr {got}")
        return got

    post_recvs(3)
    got = resize(16)
    post_recvs(10)
    post_sends(13, 200)
    expect(0, 13, 200, "grow 4 -> 16 with 3 posted")
    ok(f"SRQ grown 4 -> {got} with 3 receives posted, 10 more after: 13 SENDs, in order, bytes checked")

    # resizes while 4-packet SENDs arrive
    first = nxt["recv"]
    for size in (8, 32, 8):
        start = nxt["recv"]
        post_recvs(6)
        post_sends(6, MSG)
        resize(size)
        expect(start, 6, MSG, f"resize to {size} in flight")
    ok(f"SRQ resized to 8, 32, 8 with 4-packet SENDs arriving: {nxt['recv'] - first} receives, once each, in order")

    # below the receives posted: EINVAL, nothing lost
    start = nxt["recv"]
    post_recvs(6)
    try:
        srq.modify(SrqAttr(max_wr=2), e.IBV_SRQ_MAX_WR)
        fail("SRQ resize to 2 with 6 receives posted succeeded")
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.EINVAL:
            fail(f"SRQ resize to 2 with 6 posted: errno {ex.error_code}, want EINVAL")
    post_sends(6, 300)
    expect(start, 6, 300, "after the refused shrink")
    ok("SRQ shrink to 2 with 6 receives posted: EINVAL, all 6 still receive")


def mr_count():
    """This process's MRs, as `rdma resource show mr` lists them."""
    out = subprocess.run(["rdma", "resource", "show", "mr"], capture_output=True,
                         text=True, check=True).stdout
    pid = f" pid {os.getpid()} "
    return sum(1 for line in out.splitlines() if pid in line + " ")


def rereg_mr(ctx, lid):
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    a, b = connect(ctx, pd, lid, cq, cq)
    src = MR(pd, SIZE, LOCAL)
    src.write(b"\x5a" * SIZE, SIZE)
    t = MR(pd, SIZE, REMOTE)
    pattern = bytes(range(256)) * (SIZE // 256)
    t.write(pattern, SIZE)
    before = mr_count()

    def one(wr_id, rkey, addr, off=0):
        write(a, wr_id, src, off, 128, rkey, addr)
        return poll_n(cq, 1)[0]

    wc = one(1, t.rkey, t.buf)
    if wc.status != e.IBV_WC_SUCCESS or t.read(128, 0) != b"\x5a" * 128:
        fail("WRITE before rereg")
    t.write(pattern, SIZE)

    # access: REMOTE_WRITE taken away, then given back
    old = (t.lkey, t.rkey)
    t.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, LOCAL | e.IBV_ACCESS_REMOTE_READ)
    if (t.lkey, t.rkey) != old:
        fail(f"rereg of access changed the keys {old} -> {(t.lkey, t.rkey)}")
    wc = one(2, t.rkey, t.buf)
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"WRITE to an MR re-registered without REMOTE_WRITE: status {wc.status}")
    if t.read(SIZE, 0) != pattern:
        fail("the MR without REMOTE_WRITE was written")
    ok("rereg access without REMOTE_WRITE: WRITE gets IBV_WC_REM_ACCESS_ERR, buffer unchanged")
    rc_loop.reset_rts(a, b, lid)
    rc_loop.reset_rts(b, a, lid)
    t.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, REMOTE)
    wc = one(3, t.rkey, t.buf + 256)
    if wc.status != e.IBV_WC_SUCCESS or t.read(128, 256) != b"\x5a" * 128:
        fail(f"WRITE after REMOTE_WRITE given back: status {wc.status}")
    if (t.lkey, t.rkey) != old:
        fail(f"rereg of access changed the keys {old} -> {(t.lkey, t.rkey)}")
    ok(f"rereg access back: WRITE lands, keys kept ({t.lkey:#x}, {t.rkey:#x})")
    t.write(pattern, SIZE)

    # translation: another buffer
    buf = mmap.mmap(-1, SIZE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    old_buf, old_rkey = t.buf, t.rkey
    t.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, pd, addr, SIZE, 0)
    if t.buf != addr:
        fail("rereg translation: pyverbs did not take the new address")
    wc = one(4, t.rkey, addr + 512)
    if wc.status != e.IBV_WC_SUCCESS or buf[512:640] != b"\x5a" * 128:
        fail(f"WRITE into the new buffer: status {wc.status}")
    if old_rkey != t.rkey:
        wc = one(5, old_rkey, old_buf)
        if wc.status != e.IBV_WC_REM_ACCESS_ERR:
            fail(f"WRITE with the old rkey after rereg: status {wc.status}")
        rc_loop.reset_rts(a, b, lid)
        rc_loop.reset_rts(b, a, lid)
    wc = one(6, t.rkey, old_buf)
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"WRITE at the old address with the new rkey: status {wc.status}")
    rc_loop.reset_rts(a, b, lid)
    rc_loop.reset_rts(b, a, lid)
    ok("rereg translation: WRITEs land in the new buffer; the old rkey and the old range are refused")

    # PD: the MR moved away from the QPs' PD, then back
    pd2 = PD(ctx)
    s2 = MR(pd, SIZE, LOCAL)
    s2.write(b"\x33" * SIZE, SIZE)
    keys = (s2.lkey, s2.rkey)
    s2.rereg(e.IBV_REREG_MR_CHANGE_PD, pd2, 0, 0, 0)
    if (s2.lkey, s2.rkey) != keys:
        fail("rereg of the PD changed the keys")
    wr = SendWR(wr_id=7, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(s2.buf, 64, s2.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(t.rkey, t.buf)
    a.post_send(wr)
    wc = poll_n(cq, 1)[0]
    if wc.status != e.IBV_WC_LOC_PROT_ERR:
        fail(f"WRITE from an MR of another PD: status {wc.status}")
    rc_loop.reset_rts(a, b, lid)
    rc_loop.reset_rts(b, a, lid)
    s2.rereg(e.IBV_REREG_MR_CHANGE_PD, pd, 0, 0, 0)
    wr = SendWR(wr_id=8, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(s2.buf, 64, s2.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(t.rkey, t.buf + 1024)
    a.post_send(wr)
    wc = poll_n(cq, 1)[0]
    if wc.status != e.IBV_WC_SUCCESS or buf[1024:1088] != b"\x33" * 64:
        fail(f"WRITE from the MR back in its PD: status {wc.status}")
    ok("rereg PD: from another PD IBV_WC_LOC_PROT_ERR, back in the QP's PD the WRITE lands")

    # a refused rereg leaves the MR as it was
    keys = (t.lkey, t.rkey)
    bad = mmap.mmap(-1, SIZE)
    bad_addr = ctypes.addressof(ctypes.c_char.from_buffer(bad))
    try:
        t.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, pd, bad_addr + (1 << 46), SIZE, 0)
        fail("rereg onto an unmapped range succeeded")
    except PyverbsError:
        pass
    if (t.lkey, t.rkey) != keys:
        fail("a refused rereg changed the keys")
    wc = one(9, t.rkey, addr + 2048)
    if wc.status != e.IBV_WC_SUCCESS or buf[2048:2176] != b"\x5a" * 128:
        fail(f"WRITE after a refused rereg: status {wc.status}")
    ok("rereg onto an unmapped range refused; the MR still works with its keys")

    after = mr_count()
    if after != before + 1:
        fail(f"rdma resource: {before} MRs of this process before, {after} after (one more created)")
    ok(f"rdma resource: {after} MRs of this process, one per registration (no leftovers)")
    del bad


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("resize-cq", "resize-srq", "rereg-mr"):
        print(__doc__, file=sys.stderr)
        return 2
    ctx = Context(name=sys.argv[2] if len(sys.argv) > 2 else "sfab_0")
    lid = ctx.query_port(1).lid
    if not lid:
        fail("port 1 has no LID")
    {"resize-cq": resize_cq, "resize-srq": resize_srq,
     "rereg-mr": rereg_mr}[sys.argv[1]](ctx, lid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
