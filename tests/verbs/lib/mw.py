#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Memory windows end to end (pyverbs, libsfab, sfab.ko, the engine), on
one sfab device: RC QPs of one process connected through the port's own
LID.  QP a is the requester; b, the responder, binds the windows on an MR
of the same PD that has no remote rights of its own (LOCAL_WRITE |
MW_BIND), so every remote byte goes through a window.

usage: mw.py [DEVICE]
       mw.py child DEVICE   (binds windows, prints "bound", waits to be killed)

Type 1 (ibv_bind_mw): unbound, the key names nothing; bound, a's WRITE,
  READ inside it move the bytes (checked byte for byte, nothing outside
  touched); beyond it, a right it lacks (atomic), the key before the bind:
  IBV_WC_REM_ACCESS_ERR; rebound read-only elsewhere, only the new key
  and right work; ibv_dereg_mr and ibv_rereg_mr of the MR under it fail
  (EBUSY); a LOCAL_INV of it fails (IBV_WC_LOC_QP_OP_ERR), a SEND with
  invalidate of it fails (IBV_WC_REM_ACCESS_ERR at a, IBV_WC_LOC_PROT_ERR
  at b); bound with length 0 it is unbound, and the MR deregisters.
Type 2 (IBV_WR_BIND_MW through ibv_post_send, and ibv_wr_bind_mw): only
  through the QP that bound it (a second connected pair in the same PD is
  refused); bound again while bound: IBV_WC_MW_BIND_ERR, and it still
  works; freed by IBV_WR_LOCAL_INV, by ibv_wr_local_inv, by a received
  SEND with invalidate (b's completion: IBV_WC_WITH_INV and the key), and
  by ibv_dealloc_mw.
Bind errors (IBV_WC_MW_BIND_ERR, the window untouched): an MR without
  MW_BIND, a range outside the MR, remote write on an MR without local
  write, a window of another PD; a key of another window is EINVAL at post.
Windows die with their owner: a process killed with type 1 and type 2
  windows bound leaves no MR or QP in `rdma resource`.

Prints "ok: ..." per check; exits 1 with "FAIL: ..." on the first failure.
"""
import errno
import os
import signal
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.base import inc_rkey
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.wr import RecvWR, SGE, SendWR

import rc_loop

SIZE = 65536
LOCAL = e.IBV_ACCESS_LOCAL_WRITE
RW = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
QP_ACCESS = RW | e.IBV_ACCESS_REMOTE_ATOMIC
EX_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE |
          e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_LOCAL_INV)


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


class Lab:
    """a (QP) -> b (QPEx), c -> d, one CQ, one PD; T the target MR on b's
    side, S a's source, D a's destination for READs"""

    def __init__(self, ctx, lid):
        self.ctx, self.lid = ctx, lid
        self.pd = PD(ctx)
        self.cq = CQ(ctx, 256)
        cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1, max_recv_sge=1)
        ia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap,
                        sq_sig_all=0)
        self.a = QP(self.pd, ia)
        self.b = QPEx(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                        cap=cap, pd=self.pd, send_ops_flags=EX_OPS,
                                        comp_mask=e.IBV_QP_INIT_ATTR_PD |
                                        e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        self.c = QP(self.pd, ia)
        self.d = QP(self.pd, ia)
        self.connect()
        self.T = MR(self.pd, SIZE, LOCAL | e.IBV_ACCESS_MW_BIND)
        self.S = MR(self.pd, SIZE, LOCAL)
        self.D = MR(self.pd, SIZE, LOCAL)
        self.pattern = bytes((i * 31 + 7) & 0xff for i in range(SIZE))
        self.S.write(self.pattern, SIZE)
        self.nid = 0

    def connect(self):
        for x, y in ((self.a, self.b), (self.b, self.a), (self.c, self.d),
                     (self.d, self.c)):
            rc_loop.reset_rts(x, y, self.lid, QP_ACCESS)

    def poll(self, what, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            k, wcs = self.cq.poll(1)
            if k:
                return wcs[0]
            time.sleep(0.001)
        fail(f"{what}: no completion in {timeout} s")
        return None

    def drain(self):
        """completions of the QPs an error flushed, then the QPs reset"""
        time.sleep(0.1)
        while self.cq.poll(1)[0]:
            pass
        self.connect()

    def expect(self, what, status, opcode=None):
        wc = self.poll(what)
        if wc.status != status:
            fail(f"{what}: status {wc.status}, want {status}")
        if opcode is not None and status == e.IBV_WC_SUCCESS and wc.opcode != opcode:
            fail(f"{what}: opcode {wc.opcode}, want {opcode}")
        return wc

    def rdma(self, op, key, addr, off, length, qp=None, what=""):
        """a (or @qp) WRITEs S[off:] to / READs into D[off:] from @addr"""
        self.nid += 1
        mr = self.S if op == e.IBV_WR_RDMA_WRITE else self.D
        wr = SendWR(wr_id=self.nid, opcode=op, num_sge=1,
                    sg=[SGE(mr.buf + off, length, mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(key, addr)
        (qp or self.a).post_send(wr)
        return self.poll(what or f"RDMA op {op}")

    def write_ok(self, key, toff, length, soff, what):
        before = self.T.read(SIZE, 0)
        wc = self.rdma(e.IBV_WR_RDMA_WRITE, key, self.T.buf + toff, soff, length, what=what)
        if wc.status != e.IBV_WC_SUCCESS:
            fail(f"{what}: status {wc.status}")
        after = self.T.read(SIZE, 0)
        want = before[:toff] + self.pattern[soff:soff + length] + before[toff + length:]
        if after != want:
            fail(f"{what}: the target's bytes are not the WRITE's, or more changed")

    def refused(self, key, toff, length, what, op=e.IBV_WR_RDMA_WRITE, qp=None):
        before = self.T.read(SIZE, 0)
        wc = self.rdma(op, key, self.T.buf + toff, 0, length, qp=qp, what=what)
        if wc.status != e.IBV_WC_REM_ACCESS_ERR:
            fail(f"{what}: status {wc.status}, want IBV_WC_REM_ACCESS_ERR")
        if self.T.read(SIZE, 0) != before:
            fail(f"{what}: refused, yet the target changed")
        self.drain()

    def atomic(self, key, toff):
        self.nid += 1
        wr = SendWR(wr_id=self.nid, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                    sg=[SGE(self.D.buf, 8, self.D.lkey)], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_atomic(key, self.T.buf + toff, 1, 0)
        self.a.post_send(wr)
        return self.poll("atomic")

    def bind1(self, mw, toff, length, access, mr=None):
        info = MWBindInfo(mr or self.T, (mr or self.T).buf + toff, length, access)
        self.b.bind_mw(mw, MWBind(info, e.IBV_SEND_SIGNALED, wr_id=0xb1))
        return self.poll("ibv_bind_mw")

    def bind2(self, mw, toff, length, access, mr=None, addr=None):
        m = mr or self.T
        info = MWBindInfo(m, m.buf + toff if addr is None else addr, length, access)
        wr = SendWR(wr_id=0xb2, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw, info)
        self.b.post_send(wr)
        return wr.rkey, self.poll("IBV_WR_BIND_MW")

    def local_inv(self, key):
        wr = SendWR(wr_id=0x1f, opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
        wr.imm_data = key
        self.b.post_send(wr)
        return self.poll("IBV_WR_LOCAL_INV")

    def send_inv(self, key):
        """a's SEND with invalidate of @key to b: (a's wc, b's wc)"""
        self.b.post_recv(RecvWR(wr_id=0x5e, num_sge=1,
                                sg=[SGE(self.D.buf + 4096, 64, self.D.lkey)]))
        wr = SendWR(wr_id=0x51, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                    sg=[SGE(self.S.buf, 16, self.S.lkey)], send_flags=e.IBV_SEND_SIGNALED)
        wr.imm_data = key
        self.a.post_send(wr)
        got = {}
        for _ in range(2):
            wc = self.poll("SEND with invalidate")
            got[wc.wr_id] = wc
        if set(got) != {0x51, 0x5e}:
            fail(f"SEND with invalidate: completions {sorted(got)}")
        return got[0x51], got[0x5e]


def mr_busy(mr, what):
    try:
        mr.close()
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.EBUSY:
            fail(f"{what}: errno {ex.error_code}, want EBUSY")
        return
    fail(f"{what}: deregistered with a window bound to it")


def type1(lab):
    T = lab.T
    mw = MW(lab.pd, e.IBV_MW_TYPE_1)
    k0 = mw.rkey
    lab.refused(k0, 0, 64, "type 1 unbound")
    T.write(b"\0" * SIZE, SIZE)
    wc = lab.bind1(mw, 4096, 8192, RW | e.IBV_ACCESS_LOCAL_WRITE)
    if wc.status != e.IBV_WC_SUCCESS or wc.opcode != e.IBV_WC_BIND_MW or wc.wr_id != 0xb1:
        fail(f"ibv_bind_mw: status {wc.status} opcode {wc.opcode} wr_id {wc.wr_id:#x}")
    k1 = mw.rkey
    if k1 != inc_rkey(k0):
        fail(f"ibv_bind_mw: key {k1:#x}, want {inc_rkey(k0):#x}")
    ok(f"type 1: ibv_bind_mw of [4 KiB, 12 KiB) of an MR without remote rights: "
       f"IBV_WC_BIND_MW, key {k0:#x} -> {k1:#x}")

    lab.write_ok(k1, 4096 + 100, 3000, 5, "type 1 WRITE inside")
    lab.write_ok(k1, 4096, 8192, 0, "type 1 WRITE of the whole window")
    wc = lab.rdma(e.IBV_WR_RDMA_READ, k1, T.buf + 4096, 0, 8192)
    if wc.status != e.IBV_WC_SUCCESS or lab.D.read(8192, 0) != T.read(8192, 4096):
        fail(f"type 1 READ: status {wc.status} or wrong bytes")
    ok("type 1: WRITEs and a READ inside the window move their bytes, nothing else changes")

    lab.refused(k1, 4096 - 64, 64, "type 1 WRITE before the window")
    lab.refused(k1, 4096 + 8192 - 32, 64, "type 1 WRITE across its end")
    lab.refused(k1, 4096 + 8192, 64, "type 1 READ after it", op=e.IBV_WR_RDMA_READ)
    lab.refused(k0, 4096, 64, "type 1 key before the bind")
    wc = lab.atomic(k1, 4096)
    if wc.status != e.IBV_WC_REM_ACCESS_ERR:
        fail(f"type 1 atomic without the right: status {wc.status}")
    lab.drain()
    lab.refused(T.rkey, 4096, 64, "the MR's own rkey (no remote rights)")
    ok("type 1: beyond the window, a right it lacks, the old key, the MR's own key: "
       "IBV_WC_REM_ACCESS_ERR, target unchanged")

    mr_busy(T, "ibv_dereg_mr under a bound window")
    try:
        T.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd=lab.pd, access=LOCAL | e.IBV_ACCESS_MW_BIND |
                e.IBV_ACCESS_REMOTE_READ)
        fail("ibv_rereg_mr of access under a bound window succeeded")
    except PyverbsRDMAError:
        pass
    lab.write_ok(k1, 4096, 64, 9, "type 1 WRITE after the refused dereg/rereg")
    ok("type 1: ibv_dereg_mr (EBUSY) and ibv_rereg_mr of the MR under it fail; "
       "the window keeps working")

    # rebound read-only, elsewhere
    wc = lab.bind1(mw, 32768, 4096, e.IBV_ACCESS_REMOTE_READ)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"type 1 rebind: status {wc.status}")
    k2 = mw.rkey
    lab.refused(k1, 4096, 64, "type 1 key of the first bind after the rebind",
                op=e.IBV_WR_RDMA_READ)
    lab.refused(k2, 32768, 64, "type 1 WRITE to a read-only window")
    wc = lab.rdma(e.IBV_WR_RDMA_READ, k2, T.buf + 32768, 100, 4096)
    if wc.status != e.IBV_WC_SUCCESS or lab.D.read(4096, 100) != T.read(4096, 32768):
        fail(f"type 1 READ after the rebind: status {wc.status} or wrong bytes")
    ok(f"type 1: rebound read-only elsewhere (key {k2:#x}): only the new key, "
       "only READs, only there")

    # invalidation is not for type 1 windows
    wc = lab.local_inv(k2)
    if wc.status != e.IBV_WC_LOC_QP_OP_ERR:
        fail(f"LOCAL_INV of a type 1 window: status {wc.status}")
    lab.drain()
    wa, wb = lab.send_inv(k2)
    if wa.status != e.IBV_WC_REM_ACCESS_ERR or wb.status != e.IBV_WC_LOC_PROT_ERR:
        fail(f"SEND with invalidate of a type 1 window: a {wa.status}, b {wb.status}")
    lab.drain()
    wc = lab.rdma(e.IBV_WR_RDMA_READ, k2, T.buf + 32768, 0, 64)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"type 1 READ after the refused invalidations: status {wc.status}")
    ok("type 1: LOCAL_INV (IBV_WC_LOC_QP_OP_ERR) and SEND with invalidate "
       "(IBV_WC_REM_ACCESS_ERR at the sender, IBV_WC_LOC_PROT_ERR at the receiver) "
       "refused; the window stays")

    wc = lab.bind1(mw, 0, 0, 0)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"type 1 unbind: status {wc.status}")
    lab.refused(mw.rkey, 32768, 64, "type 1 after the unbind", op=e.IBV_WR_RDMA_READ)
    ok("type 1: bound with length 0: unbound, its key refused")
    return mw


def type2(lab):
    T = lab.T
    mw = MW(lab.pd, e.IBV_MW_TYPE_2)
    key, wc = lab.bind2(mw, 0, 16384, RW)
    if wc.status != e.IBV_WC_SUCCESS or wc.opcode != e.IBV_WC_BIND_MW:
        fail(f"type 2 IBV_WR_BIND_MW: status {wc.status} opcode {wc.opcode}")
    lab.write_ok(key, 200, 5000, 33, "type 2 WRITE")
    lab.refused(key, 200, 64, "type 2 through another QP of the PD", qp=lab.c)
    lab.refused(key, 16384 - 8, 64, "type 2 across its end")
    ok(f"type 2: bound by IBV_WR_BIND_MW (key {key:#x}): WRITEs through b move "
       "their bytes; through another connected QP of the PD, or past its end: refused")

    again, wc = lab.bind2(mw, 0, 4096, RW)
    if wc.status != e.IBV_WC_MW_BIND_ERR:
        fail(f"type 2 bound again while bound: status {wc.status}")
    lab.drain()
    lab.write_ok(key, 300, 64, 1, "type 2 WRITE after the refused bind")
    ok("type 2: bound again while bound: IBV_WC_MW_BIND_ERR; the first binding stays")

    wc = lab.local_inv(key)
    if wc.status != e.IBV_WC_SUCCESS or wc.opcode != e.IBV_WC_LOCAL_INV:
        fail(f"type 2 IBV_WR_LOCAL_INV: status {wc.status} opcode {wc.opcode}")
    lab.refused(key, 300, 64, "type 2 after IBV_WR_LOCAL_INV")
    ok("type 2: IBV_WR_LOCAL_INV frees it (IBV_WC_LOCAL_INV); its key is refused")

    # the extended post API: bind, use, invalidate remotely, bind, invalidate
    for how in ("a received SEND with invalidate", "ibv_wr_local_inv"):
        key = inc_rkey(key)
        lab.b.wr_start()
        lab.b.wr_id = 0xe1
        lab.b.wr_flags = e.IBV_SEND_SIGNALED
        lab.b.wr_bind_mw(mw, key, MWBindInfo(T, T.buf + 8192, 8192, RW))
        lab.b.wr_complete()
        lab.expect("ibv_wr_bind_mw", e.IBV_WC_SUCCESS, e.IBV_WC_BIND_MW)
        lab.write_ok(key, 8192 + 11, 700, 40, "type 2 WRITE after ibv_wr_bind_mw")
        if how == "ibv_wr_local_inv":
            lab.b.wr_start()
            lab.b.wr_id = 0xe2
            lab.b.wr_flags = e.IBV_SEND_SIGNALED
            lab.b.wr_local_inv(key)
            lab.b.wr_complete()
            lab.expect("ibv_wr_local_inv", e.IBV_WC_SUCCESS, e.IBV_WC_LOCAL_INV)
        else:
            wa, wb = lab.send_inv(key)
            if wa.status or wb.status:
                fail(f"SEND with invalidate of a type 2 window: a {wa.status}, b {wb.status}")
            if not wb.wc_flags & e.IBV_WC_WITH_INV or wb.imm_data != key:
                fail(f"SEND with invalidate: b's wc_flags {wb.wc_flags:#x}, "
                     f"invalidated key {wb.imm_data:#x}, want {key:#x}")
        lab.refused(key, 8192 + 11, 64, f"type 2 after {how}")
        ok(f"type 2: ibv_wr_bind_mw (key {key:#x}), a WRITE through it, freed by {how}")

    # freed with the window itself
    key, wc = lab.bind2(mw, 0, 4096, RW)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"type 2 bind before the dealloc: status {wc.status}")
    lab.write_ok(key, 0, 64, 0, "type 2 WRITE before the dealloc")
    mw.close()
    lab.refused(key, 0, 64, "type 2 after ibv_dealloc_mw")
    T.close()
    lab.T = MR(lab.pd, SIZE, LOCAL | e.IBV_ACCESS_MW_BIND)
    ok("type 2: ibv_dealloc_mw of a bound window: its key refused, and the MR "
       "under it deregisters")


def bind_errors(lab):
    T = lab.T
    mw = MW(lab.pd, e.IBV_MW_TYPE_2)
    plain = MR(lab.pd, 8192, LOCAL | RW)
    nolocal = MR(lab.pd, 8192, e.IBV_ACCESS_MW_BIND | e.IBV_ACCESS_REMOTE_READ)
    pd2 = PD(lab.ctx)
    other = MW(pd2, e.IBV_MW_TYPE_2)
    cases = (
        ("an MR registered without MW_BIND", dict(mw=mw, toff=0, length=4096, access=RW,
                                                   mr=plain)),
        ("a range past the MR's end", dict(mw=mw, toff=SIZE - 4096, length=8192, access=RW)),
        ("a range before the MR", dict(mw=mw, toff=0, length=4096, access=RW,
                                      addr=T.buf - 4096)),
        ("remote write on an MR without local write",
         dict(mw=mw, toff=0, length=4096, access=e.IBV_ACCESS_REMOTE_WRITE, mr=nolocal)),
        ("a window of another PD", dict(mw=other, toff=0, length=4096, access=RW)),
    )
    for what, kw in cases:
        key, wc = lab.bind2(**kw)
        if wc.status != e.IBV_WC_MW_BIND_ERR:
            fail(f"bind with {what}: status {wc.status}, want IBV_WC_MW_BIND_ERR")
        lab.drain()
        lab.refused(key, 0, 64, f"the key of the failed bind with {what}",
                    op=e.IBV_WR_RDMA_READ)
    ok(f"{len(cases)} bad binds ({'; '.join(c[0] for c in cases)}): "
       "IBV_WC_MW_BIND_ERR, the key they asked for refused")

    key, wc = lab.bind2(mw, 0, 4096, e.IBV_ACCESS_REMOTE_READ, mr=nolocal)
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"read-only window on an MR without local write: status {wc.status}")
    lab.b.wr_start()
    lab.b.wr_id = 0xe3
    lab.b.wr_flags = e.IBV_SEND_SIGNALED
    lab.b.wr_bind_mw(mw, other.rkey, MWBindInfo(T, T.buf, 4096, RW))
    try:
        lab.b.wr_complete()
        fail("ibv_wr_bind_mw with another window's key: posted")
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.EINVAL:
            fail(f"ibv_wr_bind_mw with another window's key: errno {ex.error_code}")
    ok("a read-only window on an MR without local write binds; ibv_wr_bind_mw "
       "with another window's key is EINVAL at ibv_wr_complete")
    lab.local_inv(key)
    for x in (other, mw, nolocal, plain, pd2):
        x.close()


def mr_count(what, pid):
    out = subprocess.run(["rdma", "resource", "show", what], capture_output=True,
                         text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if f" pid {pid} " in line + " ")


def child(dev):
    ctx = Context(name=dev)
    lab = Lab(ctx, ctx.query_port(1).lid)
    m1 = MW(lab.pd, e.IBV_MW_TYPE_1)
    m2 = MW(lab.pd, e.IBV_MW_TYPE_2)
    if lab.bind1(m1, 0, 4096, RW).status or lab.bind2(m2, 8192, 4096, RW)[1].status:
        fail("child: a bind failed")
    print("bound", flush=True)
    time.sleep(600)


def owner_dies(dev):
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "child", dev],
                         stdout=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().strip()
        if line != "bound":
            fail(f"child: {line or 'no output'}")
        mrs, qps = mr_count("mr", p.pid), mr_count("qp", p.pid)
        if mrs != 3 or qps != 4:
            fail(f"child: rdma resource shows {mrs} MRs, {qps} QPs, want 3 and 4")
    finally:
        # never left behind: it would hold the output open
        p.send_signal(signal.SIGKILL)
        p.wait()
    end = time.monotonic() + 20
    while time.monotonic() < end and (mr_count("mr", p.pid) or mr_count("qp", p.pid)):
        time.sleep(0.2)
    if mr_count("mr", p.pid) or mr_count("qp", p.pid):
        fail("a killed process's MRs or QPs are still in rdma resource")
    ok(f"a process killed with a type 1 and a type 2 window bound: its {mrs} MRs "
       f"(windows on one) and {qps} QPs are gone from rdma resource")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "child":
        child(sys.argv[2])
        return 0
    dev = sys.argv[1] if len(sys.argv) > 1 else "sfab_0"
    ctx = Context(name=dev)
    a = ctx.query_device()
    if not a.device_cap_flags & e.IBV_DEVICE_MEM_WINDOW or \
       not a.device_cap_flags & e.IBV_DEVICE_MEM_WINDOW_TYPE_2B or a.max_mw < 1:
        fail(f"device_cap_flags {a.device_cap_flags:#x}, max_mw {a.max_mw}: "
             "no memory windows")
    ok(f"{dev}: IBV_DEVICE_MEM_WINDOW, _TYPE_2B, max_mw {a.max_mw}")
    lid = ctx.query_port(1).lid
    if not lid:
        fail("port 1 has no LID")
    lab = Lab(ctx, lid)
    m1 = type1(lab)
    lab.T.close()
    lab.T = MR(lab.pd, SIZE, LOCAL | e.IBV_ACCESS_MW_BIND)
    ok("the MR under the unbound type 1 window deregisters")
    m1.close()
    type2(lab)
    bind_errors(lab)
    owner_dies(dev)
    return 0


if __name__ == "__main__":
    sys.exit(main())
