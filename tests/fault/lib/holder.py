#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A process holding sfab_0 when it goes away (the fault tier's
hot-unplug and unbind tests), with pyverbs on libsfab.

usage: holder.py READY_FILE

Opens sfab_0 and makes a PD, a CQ, an RC QP (to INIT) and an MR, writes
READY_FILE, then waits for async events.  On IBV_EVENT_DEVICE_FATAL it
prints "ok: holder: IBV_EVENT_DEVICE_FATAL", frees what it made (each
destroy may fail on a device that is gone: that is said, not fatal) and
exits 0; any other event is printed and waited past.  Exits 1 when no
event comes in 900 s, the backstop against a hang (the test checks that
it ends within seconds of the device going; a KASAN guest on a busy
host took more than 120 s from READY_FILE to its unplug).
"""
import signal
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr


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
    for name, obj in (("MR", mr), ("QP", qp), ("CQ", cq), ("PD", pd), ("context", ctx)):
        try:
            obj.close()
        except PyverbsError as err:
            print(f"holder: closing the {name} on a gone device: {err}", flush=True)
    print("ok: holder: every object closed, exiting", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
