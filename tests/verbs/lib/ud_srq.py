#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""UD over an SRQ to the node's own LID, with pyverbs on libsfab.

usage: ud_srq.py LID

One UD QP whose receives come from an SRQ sends N messages of distinct
bytes to itself (its own LID: the HCA loops them back): every receive
completes with the right length, source QPN and SLID, and every buffer
holds exactly what was sent (after the 40-byte GRH space).  Half the sends
are posted unsignalled: only the signalled ones report completions.  The
SRQ limit: armed at 6 with 8 receives posted, 3 receives later the device
reports IBV_EVENT_SRQ_LIMIT_REACHED and query_srq shows the limit
disarmed.  A send CQ smaller than the send queue: rounds of a full SQ of
unsignalled sends but the last give one completion each and no CQ error
(unsignalled sends take no CQ room).  Prints one "ok:" line per check;
exits 1 with "FAIL:" on the first that fails.
"""
import signal
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

GRH = 40
SIZE = 512
N = 8
QKEY = 0x11111111


def fail(msg):
    print("FAIL: ud_srq: " + msg, flush=True)
    sys.exit(1)


def poll(cq, want, timeout=20):
    got = []
    end = time.time() + timeout
    while len(got) < want and time.time() < end:
        n, wcs = cq.poll(want - len(got))
        got += wcs[:n] if n else []
        if not n:
            time.sleep(0.001)
    if len(got) < want:
        fail("%d of %d completions after %d s" % (len(got), want, timeout))
    for wc in got:
        if wc.status != e.IBV_WC_SUCCESS:
            fail("completion %d: status %d (vendor %d)" % (wc.wr_id, wc.status, wc.vendor_err))
    return got


def main():
    lid = int(sys.argv[1], 0)
    ctx = Context(name="sfab_0")
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, srq=srq,
                           cap=QPCap(max_send_wr=16, max_recv_wr=0,
                                     max_send_sge=1, max_recv_sge=0),
                           sq_sig_all=0))
    attr = QPAttr()
    attr.qkey = QKEY
    attr.pkey_index = 0
    attr.port_num = 1
    qp.to_rts(attr)
    rbuf = MR(pd, N * (GRH + SIZE), e.IBV_ACCESS_LOCAL_WRITE)
    sbuf = MR(pd, N * SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    ah = AH(pd, attr=AHAttr(dlid=lid, port_num=1))

    for i in range(N):
        srq.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                             sg=[SGE(rbuf.buf + i * (GRH + SIZE), GRH + SIZE, rbuf.lkey)]))
    msgs = [bytes(((i * 37 + j * 7 + 1) & 0xff) for j in range(SIZE)) for i in range(N)]
    for i in range(N):
        sbuf.write(msgs[i], SIZE, i * SIZE)
    for i in range(N):
        flags = e.IBV_SEND_SIGNALED if i % 2 else 0
        wr = SendWR(wr_id=i, num_sge=1, sg=[SGE(sbuf.buf + i * SIZE, SIZE, sbuf.lkey)],
                    send_flags=flags)
        wr.set_wr_ud(ah, qp.qp_num, QKEY)
        qp.post_send(wr)
    wcs = poll(cq, N + N // 2)
    sends = sorted(wc.wr_id for wc in wcs if not wc.opcode & e.IBV_WC_RECV)
    recvs = [wc for wc in wcs if wc.opcode & e.IBV_WC_RECV]
    if sends != list(range(1, N, 2)):
        fail("send completions %s, want the signalled ones %s" % (sends, list(range(1, N, 2))))
    print("ok: %d sends to LID %d, %d of them signalled: completions for those only"
          % (N, lid, len(sends)))
    if len(recvs) != N:
        fail("%d receive completions, want %d" % (len(recvs), N))
    for k, wc in enumerate(recvs):
        i = wc.wr_id - 100
        if i != k:
            fail("receive %d completed as SRQ WQE %d: not in order" % (k, i))
        if wc.byte_len != GRH + SIZE or wc.src_qp != qp.qp_num or wc.slid != lid:
            fail("receive %d: byte_len %d src_qp %#x slid %d, want %d %#x %d"
                 % (i, wc.byte_len, wc.src_qp, wc.slid, GRH + SIZE, qp.qp_num, lid))
        got = rbuf.read(SIZE, i * (GRH + SIZE) + GRH)
        if got != msgs[i]:
            bad = next(j for j in range(SIZE) if got[j] != msgs[i][j])
            fail("receive %d: byte %d is %#x, sent %#x" % (i, bad, got[bad], msgs[i][bad]))
    print("ok: %d receives from the SRQ, in order, every byte as sent" % N)

    # the SRQ limit event
    for i in range(N):
        srq.post_recv(RecvWR(wr_id=200 + i, num_sge=1,
                             sg=[SGE(rbuf.buf + i * (GRH + SIZE), GRH + SIZE, rbuf.lkey)]))
    srq.modify(SrqAttr(srq_limit=6), e.IBV_SRQ_LIMIT)
    if srq.query().srq_limit != 6:
        fail("query_srq: limit %d after arming 6" % srq.query().srq_limit)
    for i in range(3):
        wr = SendWR(wr_id=50 + i, num_sge=1, sg=[SGE(sbuf.buf, SIZE, sbuf.lkey)])
        wr.set_wr_ud(ah, qp.qp_num, QKEY)
        qp.post_send(wr)
    poll(cq, 6)
    # ibv_get_async_event blocks (holding the GIL): an alarm ends a wait
    # for an event that does not come
    print("waiting for the SRQ limit event", flush=True)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(20)
    ev = ctx.get_async_event()
    signal.alarm(0)
    if ev.event_type != e.IBV_EVENT_SRQ_LIMIT_REACHED:
        fail("async event %d, want IBV_EVENT_SRQ_LIMIT_REACHED" % ev.event_type)
    ev.ack()
    if srq.query().srq_limit != 0:
        fail("query_srq: limit %d after the event, want 0 (disarmed)" % srq.query().srq_limit)
    print("ok: SRQ limit 6 reached with 5 receives left: IBV_EVENT_SRQ_LIMIT_REACHED, limit disarmed")

    # a send CQ sized for the signalled sends only: a second UD QP sends
    # to itself (no receives posted: the datagrams are dropped)
    scq = CQ(ctx, 2)
    qp2 = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=cq,
                            cap=QPCap(max_send_wr=16, max_recv_wr=1,
                                      max_send_sge=1, max_recv_sge=1),
                            sq_sig_all=0))
    qp2.to_rts(attr)
    depth = qp2.query(e.IBV_QP_CAP)[1].cap.max_send_wr
    if scq.cqe >= depth:
        fail("a CQ of %d entries for a send queue of %d" % (scq.cqe, depth))
    for r in range(3):
        for i in range(depth):
            last = i == depth - 1
            wr = SendWR(wr_id=1000 * r + i, num_sge=1, sg=[SGE(sbuf.buf, SIZE, sbuf.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED if last else 0)
            wr.set_wr_ud(ah, qp2.qp_num, QKEY)
            qp2.post_send(wr)
        wcs = poll(scq, 1)
        if wcs[0].wr_id != 1000 * r + depth - 1:
            fail("round %d: completion for wr_id %d, want %d"
                 % (r, wcs[0].wr_id, 1000 * r + depth - 1))
        time.sleep(0.1)
        n, _ = scq.poll(1)
        if n:
            fail("round %d: a second send completion" % r)
    print("ok: 3 rounds of %d sends, 1 signalled each, on a CQ of %d: one completion each"
          % (depth, scq.cqe))


if __name__ == "__main__":
    main()
