#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stream of numbered messages between two nodes over a link that loses
frames (the link tests of the fault tier), with pyverbs on libsfab.

usage: link_stream.py rc|ud sender|receiver DIR TAG ME PEER N SIZE [TIMEOUT]

The two ends exchange their LID, QP number and PSN through files in DIR
(the lab share): DIR/TAG.NODE.info.  The sender, connected, waits for
DIR/TAG.go (written by the test once it has set up the link's faults)
before it sends, and writes DIR/TAG.sent when everything it posted has
completed, DIR/TAG.failed when a send completed with an error.

Message i (0 <= i < N) is SIZE bytes derived from TAG and i alone, its
first 8 bytes the number i, so the receiver checks every byte on its own.

rc: the sender posts RC SENDs, up to 32 outstanding; the QP's local ACK
    timeout is TIMEOUT (IBA's exponent: 4.096 us * 2^TIMEOUT, default 14)
    with seven retries.  The receiver must get message 0, 1, ..., N - 1,
    each exactly once and in order, each intact.  A send completing with
    an error ends the sender: "FAIL: ... status S" and exit 2 (12 is
    IBV_WC_RETRY_EXC_ERR); the receiver then says how far it got (every
    message up to there checked as above) and exits 3.
ud: the sender posts UD SENDs, one every 2 ms, all of which complete
    successfully on its side (UD has no ACK).  The receiver takes what
    comes until 3 s after DIR/TAG.sent, checks every message it got is
    intact and came once, and prints "received R of N, lost L" with the
    numbers lost; losses are not its failure: the test compares L with
    the fabric's counters.

Prints "ok: ..." lines; "FAIL: ..." and exit 1 on a check that fails.
"""
import json
import os
import struct
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from msgcheck import message, put  # noqa: E402

GRH = 40
QKEY = 0x22222222
WINDOW = 32         # sends outstanding, receives posted
TIMEOUT_S = 120     # the receiver's wait for the next message


FAILED = None       # the sender's DIR/TAG.failed


def fail(msg, rc=1):
    print(f"FAIL: link_stream: {msg}", flush=True)
    if FAILED:
        with open(FAILED, "w") as f:
            f.write(msg + "\n")
    sys.exit(rc)


def ok(msg):
    print(f"ok: link_stream: {msg}", flush=True)


def wait_for(path, what, timeout=120):
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            fail(f"no {what} ({path}) after {timeout} s")
        time.sleep(0.05)
    with open(path) as f:
        text = f.read()
    return json.loads(text) if text else None


def port_lid(ctx):
    return ctx.query_port(1).lid


class End:
    def __init__(self, kind, size):
        self.ctx = Context(name="sfab_0")
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 2 * WINDOW + 2)
        qtype = e.IBV_QPT_RC if kind == "rc" else e.IBV_QPT_UD
        cap = QPCap(max_send_wr=WINDOW, max_recv_wr=WINDOW,
                    max_send_sge=1, max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=qtype, scq=self.cq,
                                         rcq=self.cq, cap=cap))
        self.slot = size + (GRH if kind == "ud" else 0)
        self.mr = MR(self.pd, WINDOW * self.slot, e.IBV_ACCESS_LOCAL_WRITE)
        self.kind = kind

    def post_recv(self, slot):
        sge = SGE(self.mr.buf + slot * self.slot, self.slot, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=slot, num_sge=1, sg=[sge]))

    def poll(self, timeout):
        end = time.monotonic() + timeout
        while True:
            n, wcs = self.cq.poll(WINDOW)
            if n:
                return wcs[:n]
            if time.monotonic() > end:
                return []
            time.sleep(0.0005)


def connect_rc(end, peer, timeout):
    attr = QPAttr(port_num=1, path_mtu=e.IBV_MTU_1024)
    attr.qp_access_flags = 0
    attr.dest_qp_num = peer["qpn"]
    attr.rq_psn = peer["psn"]
    attr.sq_psn = end.psn
    attr.max_dest_rd_atomic = 1
    attr.max_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.timeout = timeout
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = AHAttr(dlid=peer["lid"], port_num=1)
    end.qp.to_rts(attr)


def connect_ud(end):
    attr = QPAttr(port_num=1)
    attr.qkey = QKEY
    attr.sq_psn = end.psn
    end.qp.to_rts(attr)


def sender(end, tag, n, size, peer):
    posted = done = 0
    src = MR(end.pd, WINDOW * size, e.IBV_ACCESS_LOCAL_WRITE)
    ah = None
    if end.kind == "ud":
        ah = AH(end.pd, attr=AHAttr(dlid=peer["lid"], port_num=1))
    t0 = time.monotonic()
    while done < n:
        while posted < n and posted - done < WINDOW:
            slot = posted % WINDOW
            src.write(message(tag, posted, size), size, slot * size)
            sge = SGE(src.buf + slot * size, size, src.lkey)
            wr = SendWR(wr_id=posted, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[sge], send_flags=e.IBV_SEND_SIGNALED)
            if ah is not None:
                wr.set_wr_ud(ah, peer["qpn"], QKEY)
            end.qp.post_send(wr)
            posted += 1
            if end.kind == "ud":
                time.sleep(0.002)
        wcs = end.poll(TIMEOUT_S)
        if not wcs:
            fail(f"sent {posted}, {done} completed: no completion for {TIMEOUT_S} s")
        for wc in wcs:
            if wc.status != e.IBV_WC_SUCCESS:
                fail(f"send {wc.wr_id} of {n} ({done} completed) ended with "
                     f"status {wc.status} (vendor {wc.vendor_err})", 2)
            if wc.wr_id != done:
                fail(f"send completion {wc.wr_id}, want {done} (out of order)")
            done += 1
    ok(f"{end.kind} sender: {n} messages of {size} B sent and completed "
       f"in {time.monotonic() - t0:.1f} s")


def receiver(end, tag, n, size, sent_path, failed_path):
    got = {}
    want = 0
    sent_at = None
    t0 = time.monotonic()
    while len(got) < n:
        wcs = end.poll(0.2)
        for wc in wcs:
            if wc.status != e.IBV_WC_SUCCESS:
                fail(f"receive ended with status {wc.status} after "
                     f"{len(got)} of {n} messages")
            off = wc.wr_id * end.slot + (GRH if end.kind == "ud" else 0)
            data = end.mr.read(size, off)
            if wc.byte_len != end.slot:
                fail(f"receive of {wc.byte_len} B, want {end.slot}")
            i = struct.unpack("<Q", data[:8])[0]
            if i >= n or data != message(tag, i, size):
                fail(f"message {i if i < n else '?'} corrupt: first bytes "
                     f"{data[:16].hex()} (after {len(got)} good ones)")
            if i in got:
                fail(f"message {i} delivered twice")
            if end.kind == "rc" and i != want:
                fail(f"message {i} arrived when {want} was next (RC order)")
            got[i] = True
            want = i + 1
            end.post_recv(wc.wr_id)
        if wcs:
            t0 = time.monotonic()
            continue
        if os.path.exists(failed_path):
            print(f"ok: link_stream: rc receiver: the sender gave up; "
                  f"{len(got)} of {n} messages before that, intact, each "
                  f"once, in order", flush=True)
            sys.exit(3)
        if end.kind == "ud":
            if sent_at is None and os.path.exists(sent_path):
                sent_at = time.monotonic()
            if sent_at is not None and time.monotonic() - sent_at > 3:
                break
        if time.monotonic() - t0 > TIMEOUT_S:
            fail(f"{len(got)} of {n} messages, then nothing for {TIMEOUT_S} s")
    if end.kind == "rc":
        # the QP stays until the sender is done: an ACK lost at the tail
        # makes the sender send again what arrived, and a QP already gone
        # would leave it to RETRY_EXC_ERR; nothing may arrive twice
        t0 = time.monotonic()
        while not os.path.exists(sent_path) and not os.path.exists(failed_path):
            for wc in end.poll(0.2):
                fail(f"a completion after all {n} messages (status {wc.status}): "
                     "a message delivered twice")
            if time.monotonic() - t0 > TIMEOUT_S:
                fail(f"all {n} messages, then no word from the sender for "
                     f"{TIMEOUT_S} s")
    lost = [i for i in range(n) if i not in got]
    if end.kind == "rc":
        ok(f"rc receiver: {n} of {n} messages intact, each once, in order")
    else:
        ok(f"ud receiver: received {len(got)} of {n}, lost {len(lost)}"
           f"{': ' + ' '.join(map(str, lost[:40])) if lost else ''}, "
           f"every one received intact and once")


def main():
    if len(sys.argv) not in (9, 10):
        fail(__doc__.split("\n\n")[1])
    kind, role, lab, tag, me, peer_name = sys.argv[1:7]
    n, size = int(sys.argv[7]), int(sys.argv[8])
    timeout = int(sys.argv[9]) if len(sys.argv) == 10 else 14
    if kind not in ("rc", "ud") or role not in ("sender", "receiver"):
        fail(f"want rc|ud sender|receiver, not {kind} {role}")
    if not 8 <= size <= 1024 or n < 1:
        fail(f"SIZE {size}: want 8..1024 (one packet at MTU 1024); N >= 1")
    end = End(kind, size)
    end.psn = (os.getpid() * 7919) & 0xffffff
    info = {"lid": port_lid(end.ctx), "qpn": end.qp.qp_num, "psn": end.psn}
    mine = os.path.join(lab, f"{tag}.{me}.info")
    if kind == "ud":
        connect_ud(end)
    if role == "receiver":
        # announced only connected and with its receives posted: the
        # sender's first SEND must not meet an empty receive queue
        peer = wait_for(os.path.join(lab, f"{tag}.{peer_name}.info"), "sender")
        if kind == "rc":
            connect_rc(end, peer, timeout)
        for slot in range(WINDOW):
            end.post_recv(slot)
        put(mine, info)
        receiver(end, tag, n, size, os.path.join(lab, f"{tag}.sent"),
                 os.path.join(lab, f"{tag}.failed"))
    else:
        put(mine, info)
        peer = wait_for(os.path.join(lab, f"{tag}.{peer_name}.info"), "receiver")
        if kind == "rc":
            connect_rc(end, peer, timeout)
        wait_for(os.path.join(lab, f"{tag}.go"), "go")
        global FAILED
        FAILED = os.path.join(lab, f"{tag}.failed")
        sender(end, tag, n, size, peer)
        put(os.path.join(lab, f"{tag}.sent"), None)


if __name__ == "__main__":
    main()
