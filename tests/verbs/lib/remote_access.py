#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Remote and local protection through the whole stack (pyverbs, libsfab,
sfab.ko, the engine), on one sfab device: two RC QPs connected to each
other through the port's own LID.  Each case uses a fresh pair.

  bad rkey, out-of-bounds address, an MR without REMOTE_WRITE or
  REMOTE_READ: the requester completes with IBV_WC_REM_ACCESS_ERR and the
  target buffer is unchanged; a bad lkey or an SGE past the end of its MR:
  IBV_WC_LOC_PROT_ERR, nothing sent.  A correct RDMA WRITE and READ after
  them on a fresh pair work and move the right bytes.

Prints "ok: CASE ..." per case; exits 1 on the first failure.
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

import rc_loop

SIZE = 4096
LOCAL = e.IBV_ACCESS_LOCAL_WRITE
ALL_REMOTE = LOCAL | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


class Pair:
    """Two connected RC QPs on one device (loopback through our LID)."""

    def __init__(self, ctx, pd, lid):
        self.cq = CQ(ctx, 16)
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=2, max_recv_sge=2)
        ia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap)
        self.a, self.b = QP(pd, ia), QP(pd, ia)
        rc_loop.rts(self.a, self.b, lid)
        rc_loop.rts(self.b, self.a, lid)

    def post(self, opcode, sge, rkey, addr):
        wr = SendWR(wr_id=1, opcode=opcode, num_sge=1, sg=[sge])
        wr.set_wr_rdma(rkey, addr)
        self.a.post_send(wr)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            n, wcs = self.cq.poll()
            if n:
                return wcs[0]
            time.sleep(0.001)
        fail("no completion within 20 s")


def main():
    ctx = Context(name=sys.argv[1] if len(sys.argv) > 1 else "sfab_0")
    lid = ctx.query_port(1).lid
    if not lid:
        fail("port 1 has no LID")
    pd = PD(ctx)
    src = MR(pd, SIZE, LOCAL)
    src.write(b"\xa5" * SIZE, SIZE)
    pattern = bytes(range(256)) * (SIZE // 256)

    def target(access):
        mr = MR(pd, SIZE, access)
        mr.write(pattern, SIZE)
        return mr

    def expect(name, wc, status, mr=None):
        if wc.status != status:
            fail(f"{name}: completion status {wc.status}, want {status}")
        if mr is not None and mr.read(SIZE, 0) != pattern:
            fail(f"{name}: the target buffer changed")
        print(f"ok: {name}: status {wc.status} (IBV_WC_{'REM_ACCESS_ERR' if status == e.IBV_WC_REM_ACCESS_ERR else 'LOC_PROT_ERR' if status == e.IBV_WC_LOC_PROT_ERR else 'SUCCESS'})"
              + (", target unchanged" if mr is not None else ""))

    W, R = e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ
    rem = e.IBV_WC_REM_ACCESS_ERR
    good = SGE(src.buf, 64, src.lkey)

    t = target(ALL_REMOTE)
    expect("write, wrong rkey", Pair(ctx, pd, lid).post(W, good, t.rkey ^ 0x100, t.buf), rem, t)
    expect("write, rkey of another variant", Pair(ctx, pd, lid).post(W, good, t.rkey ^ 0x1, t.buf), rem, t)
    expect("write, past the end", Pair(ctx, pd, lid).post(W, good, t.rkey, t.buf + SIZE - 32), rem, t)
    expect("write, below the start", Pair(ctx, pd, lid).post(W, good, t.rkey, t.buf - 64), rem, t)
    ro = target(LOCAL | e.IBV_ACCESS_REMOTE_READ)
    expect("write, MR without REMOTE_WRITE", Pair(ctx, pd, lid).post(W, good, ro.rkey, ro.buf), rem, ro)
    wo = target(LOCAL | e.IBV_ACCESS_REMOTE_WRITE)
    dst = MR(pd, SIZE, LOCAL)
    expect("read, MR without REMOTE_READ",
           Pair(ctx, pd, lid).post(R, SGE(dst.buf, 64, dst.lkey), wo.rkey, wo.buf), rem, wo)
    expect("read, wrong rkey",
           Pair(ctx, pd, lid).post(R, SGE(dst.buf, 64, dst.lkey), t.rkey ^ 0x100, t.buf), rem, t)
    expect("write, bad lkey",
           Pair(ctx, pd, lid).post(W, SGE(src.buf, 64, src.lkey ^ 0x100), t.rkey, t.buf),
           e.IBV_WC_LOC_PROT_ERR, t)
    expect("write, SGE past the end of its MR",
           Pair(ctx, pd, lid).post(W, SGE(src.buf + SIZE - 16, 64, src.lkey), t.rkey, t.buf),
           e.IBV_WC_LOC_PROT_ERR, t)

    p = Pair(ctx, pd, lid)
    expect("write, correct", p.post(W, SGE(src.buf, 128, src.lkey), t.rkey, t.buf + 256),
           e.IBV_WC_SUCCESS)
    if t.read(128, 256) != b"\xa5" * 128 or t.read(256, 0) != pattern[:256]:
        fail("write, correct: wrong bytes at the target")
    expect("read, correct", p.post(R, SGE(dst.buf, 512, dst.lkey), t.rkey, t.buf), e.IBV_WC_SUCCESS)
    if dst.read(512, 0) != pattern[:256] + b"\xa5" * 128 + pattern[384:512]:
        fail("read, correct: wrong bytes read")
    print("ok: correct write and read move the right bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
