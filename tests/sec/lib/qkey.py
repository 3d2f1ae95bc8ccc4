#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Q_Keys on an sfab HCA (pyverbs, libsfab): UD datagrams to the port's
own LID.

usage: qkey.py [DEVICE]

- A datagram with the receiver's Q_Key is delivered; one with another
  Q_Key is dropped, and the port's Q_Key violation counter
  (ibv_query_port: qkey_viol_cntr) counts it.
- Controlled Q_Keys (IBA 10.2.4, the high bit): root's QP may hold one.
  A send WQE that names a controlled Q_Key sends its own QP's Q_Key
  instead: from a QP holding a plain Q_Key the datagram is dropped at a
  receiver with the controlled one (and counted); from a QP holding it,
  it is delivered.
- An unprivileged process (a child that setresuid to nobody, no
  capabilities left, and opens the device itself) cannot give its QP a
  controlled Q_Key (EPERM) but can give it a plain one, and what it sends
  naming the receiver's controlled Q_Key is dropped and counted.

Prints "ok: ..." per check; exits 1 with "FAIL: ..." on the first failure.
"""
import errno
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

GRH = 40
PLAIN = 0x1e5a11
OTHER = 0x1e5a12
CONTROLLED = 0x80c0ffee
NOBODY = 65534


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


class Node:
    def __init__(self, name):
        self.ctx = Context(name=name)
        self.lid = self.ctx.query_port(1).lid
        if not self.lid:
            fail("port 1 has no LID")
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.mr = MR(self.pd, 65536, e.IBV_ACCESS_LOCAL_WRITE)
        self.ah = AH(self.pd, attr=AHAttr(dlid=self.lid, port_num=1))
        self.posted = 0

    def qp(self, qkey):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
        q = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq, rcq=self.cq,
                                   cap=cap))
        attr = QPAttr()
        attr.qkey = qkey
        attr.pkey_index = 0
        attr.port_num = 1
        q.to_rts(attr)
        return q

    def viol(self):
        return self.ctx.query_port(1).qkey_viol_cntr

    def recv(self, q):
        self.posted += 1
        q.post_recv(RecvWR(wr_id=1000 + self.posted, num_sge=1,
                           sg=[SGE(self.mr.buf + 32768, GRH + 256, self.mr.lkey)]))

    def send(self, q, dest_qpn, qkey):
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(self.mr.buf, 64, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(self.ah, dest_qpn, qkey)
        q.post_send(wr)

    def completions(self, timeout=1.0):
        """(sends completed, receives completed) within @timeout"""
        sends = recvs = 0
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            n, wcs = self.cq.poll(8)
            for wc in wcs:
                if wc.status != e.IBV_WC_SUCCESS:
                    fail(f"completion wr_id {wc.wr_id}: status {wc.status}")
                if wc.opcode == e.IBV_WC_SEND:
                    sends += 1
                else:
                    recvs += 1
            if not n:
                time.sleep(0.01)
        return sends, recvs


def delivered(n, src, dst, qkey, want, what):
    v0 = n.viol()
    n.send(src, dst.qp_num, qkey)
    sends, recvs = n.completions()
    if sends != 1:
        fail(f"{what}: {sends} send completions, want 1")
    v = n.viol() - v0
    if want and (recvs, v) != (1, 0):
        fail(f"{what}: {recvs} received, {v} Q_Key violations; want 1 received, 0")
    if not want and (recvs, v) != (0, 1):
        fail(f"{what}: {recvs} received, {v} Q_Key violations; want 0 received, 1")
    ok(f"{what}: {'delivered' if want else 'dropped, qkey_viol_cntr +1'}")


def unprivileged(dev, r_ctl_qpn):
    """in a child, as nobody: its own context; exit status 0: all held"""
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    m = Node(dev)
    try:
        m.qp(CONTROLLED)
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.EPERM:
            fail(f"unprivileged QP with Q_Key {CONTROLLED:#x}: errno "
                 f"{ex.error_code}, want EPERM")
    else:
        fail(f"an unprivileged process gave its QP Q_Key {CONTROLLED:#x}")
    ok(f"unprivileged: Q_Key {CONTROLLED:#x} refused (EPERM)")
    q = m.qp(PLAIN)
    ok(f"unprivileged: Q_Key {PLAIN:#x} taken")
    m.send(q, r_ctl_qpn, CONTROLLED)
    sends, _ = m.completions()
    if sends != 1:
        fail(f"unprivileged send: {sends} completions, want 1")
    sys.exit(0)


def main():
    dev = sys.argv[1] if len(sys.argv) > 1 else "sfab_0"
    n = Node(dev)
    r = n.qp(PLAIN)
    s = n.qp(OTHER)
    for _ in range(4):
        n.recv(r)
    delivered(n, s, r, PLAIN, True, f"Q_Key {PLAIN:#x} to a QP with it")
    delivered(n, s, r, OTHER, False, f"Q_Key {OTHER:#x} to a QP with {PLAIN:#x}")

    r_ctl = n.qp(CONTROLLED)
    ok(f"root: a QP with controlled Q_Key {CONTROLLED:#x}")
    for _ in range(4):
        n.recv(r_ctl)
    delivered(n, s, r_ctl, CONTROLLED, False,
              f"naming controlled {CONTROLLED:#x} from a QP with {OTHER:#x} (sends {OTHER:#x})")
    s_ctl = n.qp(CONTROLLED)
    delivered(n, s_ctl, r_ctl, 0x80000001, True,
              f"naming any controlled Q_Key from a QP with {CONTROLLED:#x}")
    sys.stdout.flush()

    v0 = n.viol()
    pid = os.fork()
    if pid == 0:
        try:
            unprivileged(dev, r_ctl.qp_num)
        except SystemExit as ex:
            os._exit(ex.code or 0)
        except BaseException as ex:  # noqa: B902
            print(f"FAIL: unprivileged: {ex!r}", flush=True)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status):
        fail("the unprivileged part failed")
    _, recvs = n.completions()
    v = n.viol() - v0
    if (recvs, v) != (0, 1):
        fail(f"unprivileged send naming controlled {CONTROLLED:#x}: {recvs} "
             f"received, {v} Q_Key violations; want 0 and 1")
    ok(f"unprivileged send naming controlled {CONTROLLED:#x}: dropped, "
       "qkey_viol_cntr +1")
    ok("all Q_Key checks held")


if __name__ == "__main__":
    main()
