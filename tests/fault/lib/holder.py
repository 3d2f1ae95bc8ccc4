#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A process holding sfab_0 when it goes away (the fault tier's
hot-unplug and unbind tests), with pyverbs on libsfab.

usage: holder.py READY_FILE

Opens sfab_0 and makes a PD, a CQ, an RC QP (to INIT) and an MR, posts
three receives, writes READY_FILE, then waits for async events.  On
IBV_EVENT_DEVICE_FATAL it prints "ok: holder: IBV_EVENT_DEVICE_FATAL",
checks what libsfab does on a device that is gone (its status page,
Documentation/sfab/verbs.rst "Device loss"): the CQ gives the three
receives back, in order, flushed (IBV_WC_WR_FLUSH_ERR), then nothing; a
fourth receive is refused with EIO.  It then frees what it made (each
destroy may fail on a device that is gone: that is said, not fatal) and
exits 0, or 1 if a check failed; any other event is printed and waited
past.  Exits 1 when no event comes in 900 s, the backstop against a
hang (the test checks that it ends within seconds of the device going;
a KASAN guest on a busy host took more than 120 s from READY_FILE to its
unplug).
"""
import errno
import signal
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR

WR_IDS = (0x5F0, 0x5F1, 0x5F2)


def recv_wr(mr, wr_id):
    return RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)])


def check_flushed(cq, qp, mr):
    """The device is gone: the receives come back flushed, a new one is
    refused.  A list of what went wrong (empty: all as it should be)."""
    bad = []
    got = []
    for _ in range(10):
        n, wcs = cq.poll(num_entries=4)
        if n <= 0:
            break
        got += [(wc.wr_id, wc.status, wc.qp_num) for wc in wcs[:n]]
    want = [(w, e.IBV_WC_WR_FLUSH_ERR, qp.qp_num) for w in WR_IDS]
    if got != want:
        bad.append(f"the CQ gave {[(hex(w), s, q) for w, s, q in got]}, "
                   f"want the 3 receives flushed ({e.IBV_WC_WR_FLUSH_ERR})")
    try:
        qp.post_recv(recv_wr(mr, 0x5F3))
        bad.append("a receive posted on the gone device was taken")
    except PyverbsRDMAError as err:
        if err.error_code != errno.EIO:
            bad.append(f"a receive posted on the gone device: {err}, want EIO")
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    signal.signal(signal.SIGALRM, lambda *_: (print("FAIL: holder: no async event in 900 s",
                                                     flush=True), sys.exit(1)))
    ctx = Context(name="sfab_0")
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=8, max_recv_wr=8)))
    qp.to_init(QPAttr(port_num=1))
    mr = MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    for wr_id in WR_IDS:
        qp.post_recv(recv_wr(mr, wr_id))
    with open(sys.argv[1], "w") as f:
        f.write(f"qpn {qp.qp_num} lkey {mr.lkey:#x}\n")
    signal.alarm(900)
    while True:
        ev = ctx.get_async_event()
        kind = ev.event_type
        ev.ack()
        if kind == e.IBV_EVENT_DEVICE_FATAL:
            print("ok: holder: IBV_EVENT_DEVICE_FATAL", flush=True)
            break
        print(f"holder: async event {kind}, waiting on", flush=True)
    bad = check_flushed(cq, qp, mr)
    for what in bad:
        print(f"FAIL: holder: {what}", flush=True)
    if not bad:
        print("ok: holder: the 3 receives came back flushed (IBV_WC_WR_FLUSH_ERR), "
              "a 4th was refused (EIO)", flush=True)
    for name, obj in (("MR", mr), ("QP", qp), ("CQ", cq), ("PD", pd), ("context", ctx)):
        try:
            obj.close()
        except PyverbsError as err:
            print(f"holder: closing the {name} on a gone device: {err}", flush=True)
    print("ok: holder: every object closed, exiting", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
