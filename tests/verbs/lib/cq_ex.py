#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The extended CQ (ibv_create_cq_ex, ibv_start_poll/ibv_next_poll/
ibv_end_poll, the ibv_wc_read_* functions) on the receive side, where
every field the device fills has something to say (pyverbs, libsfab).

usage: cq_ex.py [DEVICE]

UD: datagrams to the port's own LID with SL 2, with and without an
  immediate: opcode RECV, byte_len (the 40-byte GRH space included),
  qp_num, src_qp, slid, sl, dlid_path_bits, wc_flags (IBV_WC_GRH never,
  IBV_WC_WITH_IMM exactly when sent), imm_data, vendor_err 0.
RC: SEND with immediate and RDMA WRITE with immediate through the own
  LID: opcodes RECV and RECV_RDMA_WITH_IMM, byte_len, imm_data, qp_num,
  wc_flags; the WRITE's bytes at the target.
Batches: 12 completions waiting are read in one ibv_start_poll ..
  ibv_next_poll .. ibv_end_poll pass, in order, each once; an empty CQ's
  ibv_start_poll is ENOENT, and after the last ibv_next_poll is ENOENT.
Refused: ibv_create_cq_ex with wc_flags the device cannot fill (the
  completion timestamp, CVLAN, flow tag) is EOPNOTSUPP.

Prints "ok: ..." per check; exits 1 with "FAIL: ..." on the first failure.
"""
import errno
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ, CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

import rc_loop

GRH = 40
QKEY = 0x1e5a11
SL = 2
FLAGS = (e.IBV_WC_EX_WITH_BYTE_LEN | e.IBV_WC_EX_WITH_IMM | e.IBV_WC_EX_WITH_QP_NUM |
         e.IBV_WC_EX_WITH_SRC_QP | e.IBV_WC_EX_WITH_SLID | e.IBV_WC_EX_WITH_SL |
         e.IBV_WC_EX_WITH_DLID_PATH_BITS)


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


def read_all(cq, want, timeout=20):
    """@want completions, read in start/next/end passes; every field."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < end:
        rc = cq.start_poll(PollCqAttr())
        if rc == errno.ENOENT:
            time.sleep(0.001)
            continue
        if rc:
            fail(f"ibv_start_poll: errno {rc}")
        while True:
            got.append({
                "wr_id": cq.wr_id, "status": cq.status, "opcode": cq.read_opcode(),
                "vendor_err": cq.read_vendor_err(), "byte_len": cq.read_byte_len(),
                "imm": cq.read_imm_data(), "qp_num": cq.read_qp_num(),
                "src_qp": cq.read_src_qp(), "flags": cq.read_wc_flags(),
                "slid": cq.read_slid(), "sl": cq.read_sl(),
                "dlid_path_bits": cq.read_dlid_path_bits()})
            rc = cq.poll_next()
            if rc == errno.ENOENT:
                break
            if rc:
                fail(f"ibv_next_poll: errno {rc}")
        cq.end_poll()
    if len(got) != want:
        fail(f"{len(got)} of {want} completions after {timeout} s")
    time.sleep(0.05)
    if cq.start_poll(PollCqAttr()) != errno.ENOENT:
        extra = cq.wr_id
        cq.end_poll()
        fail(f"an extra completion, wr_id {extra}")
    return got


def expect(wc, what, **want):
    for k, v in want.items():
        if wc[k] != v:
            fail(f"{what}: {k} {wc[k]!r}, want {v!r} (completion {wc})")


def rc_pair(ctx, pd, lid, rcq, scq):
    cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1, max_recv_sge=1)
    a = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=scq, cap=cap))
    b = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=rcq, cap=cap))
    rc_loop.rts(a, b, lid, e.IBV_ACCESS_REMOTE_WRITE)
    rc_loop.rts(b, a, lid, e.IBV_ACCESS_REMOTE_WRITE)
    return a, b


def main():
    ctx = Context(name=sys.argv[1] if len(sys.argv) > 1 else "sfab_0")
    lid = ctx.query_port(1).lid
    if not lid:
        fail("port 1 has no LID")
    pd = PD(ctx)
    scq = CQ(ctx, 64)
    rcq = CQEX(ctx, CqInitAttrEx(cqe=64, wc_flags=FLAGS))
    src = MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE)
    dst = MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    src.write(bytes((i * 5 + 1) & 0xff for i in range(65536)), 65536)

    if rcq.start_poll(PollCqAttr()) != errno.ENOENT:
        fail("ibv_start_poll of an empty CQ is not ENOENT")
    ok("ibv_start_poll of an empty extended CQ: ENOENT")

    # UD to ourselves, SL 2
    cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1, max_recv_sge=1)
    ud_r = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=rcq, cap=cap))
    ud_s = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=scq, cap=cap))
    for q in (ud_r, ud_s):
        attr = QPAttr()
        attr.qkey = QKEY
        attr.pkey_index = 0
        attr.port_num = 1
        q.to_rts(attr)
    ah = AH(pd, attr=AHAttr(dlid=lid, sl=SL, port_num=1))
    imms = {0: None, 1: 0x12345678, 2: None, 3: 0xcafef00d}
    for i in range(4):
        ud_r.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                              sg=[SGE(dst.buf + i * 1024, GRH + 512, dst.lkey)]))
    for i in range(4):
        op = e.IBV_WR_SEND if imms[i] is None else e.IBV_WR_SEND_WITH_IMM
        wr = SendWR(wr_id=i, opcode=op, num_sge=1, imm_data=imms[i] or 0,
                    sg=[SGE(src.buf + i * 512, 100 + i, src.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, ud_r.qp_num, QKEY)
        ud_s.post_send(wr)
    wcs = read_all(rcq, 4)
    for i, wc in enumerate(wcs):
        what = f"UD receive {i}"
        expect(wc, what, wr_id=100 + i, status=e.IBV_WC_SUCCESS, opcode=e.IBV_WC_RECV,
               vendor_err=0, byte_len=GRH + 100 + i, qp_num=ud_r.qp_num,
               src_qp=ud_s.qp_num, slid=lid, sl=SL, dlid_path_bits=0)
        if bool(wc["flags"] & e.IBV_WC_WITH_IMM) != (imms[i] is not None):
            fail(f"{what}: wc_flags {wc['flags']:#x}, immediate sent: {imms[i] is not None}")
        if wc["flags"] & e.IBV_WC_GRH:
            fail(f"{what}: IBV_WC_GRH set, no GRH was sent")
        if imms[i] is not None and wc["imm"] != imms[i]:
            fail(f"{what}: imm_data {wc['imm']:#x}, sent {imms[i]:#x}")
        if dst.read(100 + i, i * 1024 + GRH) != src.read(100 + i, i * 512):
            fail(f"{what}: wrong bytes")
    ok("UD, SL 2, with and without immediate: opcode, byte_len, qp_num, src_qp, slid, sl, "
       "dlid_path_bits, wc_flags, imm_data as sent")

    # RC: SEND with immediate, RDMA WRITE with immediate
    a, b = rc_pair(ctx, pd, lid, rcq, scq)
    b.post_recv(RecvWR(wr_id=200, num_sge=1, sg=[SGE(dst.buf + 8192, 4096, dst.lkey)]))
    b.post_recv(RecvWR(wr_id=201, num_sge=1, sg=[SGE(dst.buf + 8192, 4096, dst.lkey)]))
    wr = SendWR(wr_id=10, opcode=e.IBV_WR_SEND_WITH_IMM, num_sge=1, imm_data=0x0a0b0c0d,
                sg=[SGE(src.buf, 3000, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    a.post_send(wr)
    wr = SendWR(wr_id=11, opcode=e.IBV_WR_RDMA_WRITE_WITH_IMM, num_sge=1,
                imm_data=0x11223344, sg=[SGE(src.buf + 4096, 5000, src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(dst.rkey, dst.buf + 16384)
    a.post_send(wr)
    wcs = read_all(rcq, 2)
    expect(wcs[0], "RC SEND with immediate", wr_id=200, status=e.IBV_WC_SUCCESS,
           opcode=e.IBV_WC_RECV, byte_len=3000, imm=0x0a0b0c0d, qp_num=b.qp_num,
           src_qp=a.qp_num)
    expect(wcs[1], "RC WRITE with immediate", wr_id=201, status=e.IBV_WC_SUCCESS,
           opcode=e.IBV_WC_RECV_RDMA_WITH_IMM, byte_len=5000, imm=0x11223344,
           qp_num=b.qp_num, src_qp=a.qp_num)
    for wc in wcs:
        if not wc["flags"] & e.IBV_WC_WITH_IMM:
            fail(f"RC wr_id {wc['wr_id']}: no IBV_WC_WITH_IMM in {wc['flags']:#x}")
    if dst.read(3000, 8192) != src.read(3000, 0) or dst.read(5000, 16384) != src.read(5000, 4096):
        fail("RC: wrong bytes at the receiver")
    ok("RC SEND with immediate and RDMA WRITE with immediate: opcodes RECV and "
       "RECV_RDMA_WITH_IMM, byte_len, imm_data, qp_num, src_qp, IBV_WC_WITH_IMM")

    # a batch of 12 read in one pass
    for i in range(12):
        b.post_recv(RecvWR(wr_id=300 + i, num_sge=1,
                           sg=[SGE(dst.buf + 32768 + i * 256, 256, dst.lkey)]))
    for i in range(12):
        a.post_send(SendWR(wr_id=20 + i, opcode=e.IBV_WR_SEND, num_sge=1,
                           sg=[SGE(src.buf + i * 256, 10 + i, src.lkey)],
                           send_flags=e.IBV_SEND_SIGNALED))
    time.sleep(1)
    wcs = read_all(rcq, 12)
    for i, wc in enumerate(wcs):
        expect(wc, f"batch {i}", wr_id=300 + i, byte_len=10 + i, opcode=e.IBV_WC_RECV)
        if wc["flags"] & e.IBV_WC_WITH_IMM:
            fail(f"batch {i}: IBV_WC_WITH_IMM without an immediate")
    ok("12 completions in start/next/end passes: in order, each once, then ENOENT")

    # what the device cannot fill
    for name in ("IBV_WC_EX_WITH_COMPLETION_TIMESTAMP", "IBV_WC_EX_WITH_CVLAN",
                 "IBV_WC_EX_WITH_FLOW_TAG"):
        try:
            CQEX(ctx, CqInitAttrEx(cqe=8, wc_flags=FLAGS | getattr(e, name)))
            fail(f"ibv_create_cq_ex with {name} succeeded")
        except PyverbsRDMAError as ex:
            if ex.error_code != errno.EOPNOTSUPP:
                fail(f"ibv_create_cq_ex with {name}: errno {ex.error_code}, want EOPNOTSUPP")
    ok("ibv_create_cq_ex with a timestamp, CVLAN or flow tag: EOPNOTSUPP")
    return 0


if __name__ == "__main__":
    sys.exit(main())
