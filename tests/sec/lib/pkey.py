#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Partitions between two nodes (pyverbs, libsfab), as opensm set them
from tests/sec/lib/pkey.guest.sh's partitions.conf:

  Default 0x7fff  both full         (index 0, 0xffff)
  A       0x0001  both full         (0x8001)
  B       0x0002  the client only   (0x8002)
  L       0x0003  both limited      (0x0003)

usage: pkey.py server|client LABDIR [DEVICE]

The server makes a UD QP in partition A and one in L, and an RC QP in
A, writes their numbers and its LID to LABDIR/pkey.server and waits; the
client sends to them from QPs in its own partitions, then says what it
sent in LABDIR/pkey.client; the server then checks what arrived.

- A to A (both full): delivered, by UD and RC.
- B to A: the switch drops it (opensm enforces partitions on the switch
  ports of both nodes, and the server's has no B), so the server's HCA
  never sees it; an RC QP in B never reaches the RC QP in A
  (IBV_WC_RETRY_EXC_ERR at the client).  pkey.guest.sh reads the
  switch's counters.
- L to L (both limited members): the switch lets it through (both switch
  ports have L); the server's HCA drops it, counts it (bad_pkey_cntr)
  and traps to the SM.
- The P_Key table ibv_query_pkey reads is the one opensm set.

Prints "ok: ..." per check; exits 1 with "FAIL: ..." on the first failure.
"""
import json
import os
import socket
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

GRH = 40
QKEY = 0x1234
A, B, L = 0x8001, 0x8002, 0x0003


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}", flush=True)


def wait_file(path, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path):
            with open(path) as f:
                return json.load(f)
        time.sleep(0.2)
    fail(f"no {path} after {timeout} s")
    return None


def put_file(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f)
    os.rename(path + ".tmp", path)


class Node:
    def __init__(self, dev):
        self.ctx = Context(name=dev)
        pa = self.ctx.query_port(1)
        self.lid = pa.lid
        if not self.lid:
            fail("port 1 has no LID")
        # ibv_query_pkey gives the P_Key in network byte order
        self.table = [socket.ntohs(self.ctx.query_pkey(1, i))
                      for i in range(pa.pkey_tbl_len)]
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.mr = MR(self.pd, 65536, e.IBV_ACCESS_LOCAL_WRITE)

    def index(self, pkey):
        """the table index of @pkey (full or limited as given), or fail"""
        for i, k in enumerate(self.table):
            if k == pkey:
                return i
        fail(f"P_Key {pkey:#06x} not in the table {[hex(k) for k in self.table if k]}")
        return -1

    def ud(self, pkey):
        cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
        q = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq, rcq=self.cq,
                                   cap=cap))
        attr = QPAttr()
        attr.qkey = QKEY
        attr.pkey_index = self.index(pkey)
        attr.port_num = 1
        q.to_rts(attr)
        return q

    def rc(self, pkey):
        cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
        q = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                   cap=cap))
        attr = QPAttr(port_num=1)
        attr.pkey_index = self.index(pkey)
        q.to_init(attr)
        return q

    def rc_connect(self, q, dlid, dqpn):
        attr = QPAttr(port_num=1, path_mtu=e.IBV_MTU_1024)
        attr.dest_qp_num = dqpn
        attr.rq_psn = attr.sq_psn = 0
        attr.max_dest_rd_atomic = attr.max_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.timeout = 12
        attr.retry_cnt = 2
        attr.rnr_retry = 2
        attr.ah_attr = AHAttr(dlid=dlid, port_num=1)
        q.to_rtr(attr)
        q.to_rts(attr)

    def recv(self, q, n=4):
        for i in range(n):
            q.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                               sg=[SGE(self.mr.buf + 4096 * i, 4096, self.mr.lkey)]))

    def poll(self, timeout):
        got = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            n, wcs = self.cq.poll(8)
            got += wcs
            if not n:
                time.sleep(0.01)
        return got

    def bad_pkeys(self):
        return self.ctx.query_port(1).bad_pkey_cntr


def check_table(n, want_full, want_limited):
    for k in want_full:
        n.index(k)
    for k in want_limited:
        n.index(k)
    ok(f"P_Key table from opensm: {[hex(k) for k in n.table if k]}")


def server(lab, dev):
    n = Node(dev)
    check_table(n, (0xffff, A), (L,))
    if B in n.table or (B & 0x7fff) in n.table:
        fail(f"the server has partition B's P_Key: {[hex(k) for k in n.table]}")
    ud_a, ud_l, rc_a = n.ud(A), n.ud(L), n.rc(A)
    for q in (ud_a, ud_l, rc_a):
        n.recv(q)
    bad0 = n.bad_pkeys()
    put_file(f"{lab}/pkey.server", {"lid": n.lid, "ud_a": ud_a.qp_num,
                                    "ud_l": ud_l.qp_num, "rc_a": rc_a.qp_num})
    c = wait_file(f"{lab}/pkey.client-qps")
    n.rc_connect(rc_a, c["lid"], c["rc_a"])
    put_file(f"{lab}/pkey.server-rtr", {})
    c = wait_file(f"{lab}/pkey.client", 240)
    wcs = n.poll(1.0)
    by_qp = {}
    for wc in wcs:
        if wc.status != e.IBV_WC_SUCCESS:
            fail(f"server completion status {wc.status} on QP {wc.qp_num}")
        by_qp[wc.qp_num] = by_qp.get(wc.qp_num, 0) + 1
    if by_qp.get(ud_a.qp_num) != c["ud_a_sent"]:
        fail(f"UD in A: {by_qp.get(ud_a.qp_num, 0)} received, the client sent "
             f"{c['ud_a_sent']} from A")
    ok(f"UD A to A (both full): {c['ud_a_sent']} delivered, none from B")
    if by_qp.get(ud_l.qp_num):
        fail(f"UD between two limited members of L: {by_qp[ud_l.qp_num]} delivered")
    ok("UD L to L (both limited): nothing delivered")
    if by_qp.get(rc_a.qp_num) != 1:
        fail(f"RC in A: {by_qp.get(rc_a.qp_num, 0)} received, want 1")
    ok("RC A to A: delivered")
    bad = n.bad_pkeys() - bad0
    want = c["ud_l_sent"]
    if bad != want:
        fail(f"bad_pkey_cntr counted {bad}, want {want}: L's packets, and "
             "none of B's (the switch drops those)")
    ok(f"bad_pkey_cntr: {bad} packets of L dropped for their P_Key, "
       "none of B's reached the HCA")


def client(lab, dev):
    n = Node(dev)
    check_table(n, (0xffff, A, B), (L,))
    s = wait_file(f"{lab}/pkey.server")
    ah = AH(n.pd, attr=AHAttr(dlid=s["lid"], port_num=1))
    ud_a, ud_b, ud_l = n.ud(A), n.ud(B), n.ud(L)
    rc_a, rc_b = n.rc(A), n.rc(B)
    put_file(f"{lab}/pkey.client-qps", {"lid": n.lid, "rc_a": rc_a.qp_num})
    wait_file(f"{lab}/pkey.server-rtr")
    n.rc_connect(rc_a, s["lid"], s["rc_a"])
    # an RC QP of partition B aimed at the server's QP of A: its packets
    # carry 0x8002 and the server drops every one
    n.rc_connect(rc_b, s["lid"], s["rc_a"])

    def ud_send(q, dqpn, count):
        for i in range(count):
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(n.mr.buf, 64, n.mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_ud(ah, dqpn, QKEY)
            q.post_send(wr)
        return count

    sent = {"ud_a_sent": ud_send(ud_a, s["ud_a"], 3),
            "ud_b_sent": ud_send(ud_b, s["ud_a"], 2),
            "ud_l_sent": ud_send(ud_l, s["ud_l"], 2)}
    for q in (rc_a, rc_b):
        q.post_send(SendWR(wr_id=50, opcode=e.IBV_WR_SEND, num_sge=1,
                           sg=[SGE(n.mr.buf, 64, n.mr.lkey)],
                           send_flags=e.IBV_SEND_SIGNALED))
    # timeout 12 (16.8 ms, floored by the engine), two retries: both RC
    # sends complete well within the wait
    wcs = n.poll(15.0)
    status = {}
    for wc in wcs:
        if wc.opcode == e.IBV_WC_SEND and wc.qp_num in (rc_a.qp_num, rc_b.qp_num):
            status[wc.qp_num] = wc.status
        elif wc.status != e.IBV_WC_SUCCESS:
            fail(f"client completion status {wc.status} on QP {wc.qp_num}")
    if status.get(rc_a.qp_num) != e.IBV_WC_SUCCESS:
        fail(f"RC A to A: status {status.get(rc_a.qp_num)}")
    if status.get(rc_b.qp_num) != e.IBV_WC_RETRY_EXC_ERR:
        fail(f"RC from B to A's QP: status {status.get(rc_b.qp_num)}, want "
             "IBV_WC_RETRY_EXC_ERR")
    ok("RC from partition B to a QP of A: IBV_WC_RETRY_EXC_ERR (never answered)")
    sent["rc_b_packets"] = 3
    put_file(f"{lab}/pkey.client", sent)
    ok(f"client sent UD {sent}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("server", "client"):
        fail("usage: pkey.py server|client LABDIR [DEVICE]")
    dev = sys.argv[3] if len(sys.argv) > 3 else "sfab_0"
    (server if sys.argv[1] == "server" else client)(sys.argv[2], dev)
    ok(f"{sys.argv[1]} done")


if __name__ == "__main__":
    main()
