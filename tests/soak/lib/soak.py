#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""One end of a soak pair (make soak; tests/soak/run-soak): mixed RC and UD
traffic with pyverbs on libsfab, every byte checked, every resource made
and destroyed again round after round, until told to stop.

usage: soak.py DIR PAIR requester|responder ME PEER SECONDS SEED

The two ends of PAIR meet through files in DIR (the lab share).  A round
R is:

  both      a new PD, CQs, 1 to 8 RC QPs and a UD QP, and new MRs of
            random sizes (QP and MR churn); DIR/PAIR.R.ROLE.json holds
            what the peer needs (LID, QP numbers, PSNs, addresses, keys)
  responder posts a receive for every SEND to come, DIR/PAIR.R.ready
  requester on each RC QP: SENDs of numbered messages derived from
            (SEED, PAIR, R, QP, number) alone; an RDMA WRITE of a
            pattern into the responder's MR and an RDMA READ of it back,
            compared byte by byte; FETCH_AND_ADD 1 on the QP's 64-bit
            word, which must return 0, 1, 2, ... (an atomic executed twice
            by a retransmission would skip a value), then a CMP_AND_SWP
            that must find the count; UD SENDs, one every 2 ms
  responder every SEND of each QP arrives once, in order and intact; the
            words hold the swapped values; the UD messages that arrive are
            intact, each once (UD may lose some: counted, not an error)
  both      everything destroyed

A work completion in error or a peer that stops answering (the faults
the soak injects: bit errors, drops and flaps on the switch ports, opensm
restarts) ends the round as "hit" (DIR/PAIR.R.abort); what arrived before
is checked all the same, and the next round starts afresh.  A byte that
differs, a message twice or out of order, an atomic result out of
sequence: a data error, which is the soak's failure.  The requester stops
starting rounds after SECONDS (or when DIR/soak.stop appears) and
writes DIR/PAIR.stop; each end writes its counts to
DIR/PAIR.ROLE.result.json and prints "ok: ..." lines; exit 0 when it saw
no data error, 1 otherwise.
"""
import json
import os
import random
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from msgcheck import message, put  # noqa: E402

GRH = 40
QKEY = 0x50a50a5
WAIT_S = 60         # for the peer's files and for completions
REMOTE = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | \
    e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC


class Hit(Exception):
    """the round met a fault: a completion in error, a silent peer"""


def log(msg):
    print(msg, flush=True)


class Soak:
    def __init__(self, d, pair, role, me, peer, seconds, seed):
        self.d, self.pair, self.role, self.me, self.peer = d, pair, role, me, peer
        self.seconds, self.seed = seconds, seed
        self.rng = random.Random(f"{seed}.{pair}.{role}")
        self.ctx = Context(name="sfab_0")
        da = self.ctx.query_device()
        self.rd_atom = max(1, min(4, da.max_qp_rd_atom, da.max_qp_init_rd_atom))
        self.c = dict(rounds=0, ok=0, hit=0, recovered=0, data_errors=0,
                      qps=0, mrs=0, pds=0, cqs=0, sends=0, writes=0, reads=0,
                      atomics=0, ud_sent=0, ud_received=0, ud_lost=0,
                      bytes_checked=0)
        self.hits = []
        self.errors = []
        self.last_hit = False

    def f(self, r, what):
        return os.path.join(self.d, f"{self.pair}.{r}.{what}")

    def aborted(self, r):
        return os.path.exists(self.f(r, "abort"))

    def abort(self, r, why):
        if not self.aborted(r):
            with open(self.f(r, "abort"), "w") as f:
                f.write(f"{self.me}: {why}\n")
        raise Hit(why)

    def wait_file(self, r, what, timeout=WAIT_S):
        path = self.f(r, what)
        end = time.monotonic() + timeout
        while not os.path.exists(path):
            if self.aborted(r):
                raise Hit(f"peer: {open(self.f(r, 'abort')).read().strip()}")
            if time.monotonic() > end:
                self.abort(r, f"no {os.path.basename(path)} in {timeout} s")
            time.sleep(0.02)
        with open(path) as f:
            text = f.read()
        return json.loads(text) if text else None

    def data_error(self, r, what):
        self.c["data_errors"] += 1
        self.errors.append(f"round {r}: {what}")
        log(f"FAIL: {self.me}: data error, round {r}: {what}")

    # ---- resources -------------------------------------------------------

    def build(self):
        """this round's PD"""
        self.pd = PD(self.ctx)
        self.c["pds"] += 1

    def make_qps(self, nq, nsend, ud_n):
        self.scq = CQ(self.ctx, 4 * nq * (nsend + 8) + ud_n + 16)
        self.rcq = CQ(self.ctx, nq * nsend + ud_n + 16)
        self.c["cqs"] += 2
        # the SENDs, or the atomics (up to 16), posted at once
        cap = QPCap(max_send_wr=max(nsend, 16) + 8, max_recv_wr=nsend + 1,
                    max_send_sge=1, max_recv_sge=1)
        self.qps = []
        for _ in range(nq):
            self.qps.append(QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.scq,
                                                   rcq=self.rcq, cap=cap)))
        ucap = QPCap(max_send_wr=ud_n + 1, max_recv_wr=ud_n + 1,
                     max_send_sge=1, max_recv_sge=1)
        self.ud = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.scq,
                                         rcq=self.rcq, cap=ucap))
        self.c["qps"] += nq + 1
        self.psn = [self.rng.randrange(1 << 24) for _ in range(nq + 1)]

    def mr(self, size, access=e.IBV_ACCESS_LOCAL_WRITE):
        self.c["mrs"] += 1
        return MR(self.pd, size, access)

    def connect(self, peer):
        lid = peer["lid"]
        for i, qp in enumerate(self.qps):
            attr = QPAttr(port_num=1, path_mtu=e.IBV_MTU_1024)
            attr.qp_access_flags = REMOTE
            attr.dest_qp_num = peer["qpn"][i]
            attr.rq_psn = peer["psn"][i]
            attr.sq_psn = self.psn[i]
            attr.max_dest_rd_atomic = self.rd_atom
            attr.max_rd_atomic = self.rd_atom
            attr.min_rnr_timer = 12
            attr.timeout = 14           # 67 ms
            attr.retry_cnt = 7
            attr.rnr_retry = 7
            attr.ah_attr = AHAttr(dlid=lid, port_num=1)
            qp.to_rts(attr)
        attr = QPAttr(port_num=1)
        attr.qkey = QKEY
        attr.sq_psn = self.psn[-1]
        self.ud.to_rts(attr)

    def info(self):
        return {"lid": self.ctx.query_port(1).lid,
                "qpn": [q.qp_num for q in self.qps] + [self.ud.qp_num],
                "psn": self.psn}

    def destroy(self):
        for name in ("qps", "ud", "scq", "rcq", "mrs_", "pd"):
            obj = getattr(self, name, None)
            if obj is None:
                continue
            for o in (obj if isinstance(obj, list) else [obj]):
                try:
                    o.close()
                except PyverbsError as ex:
                    log(f"{self.me}: close {name}: {ex}")
            setattr(self, name, None)

    def poll(self, cq, want, r, what):
        """want completions from cq, each successful; a list of them"""
        got = []
        end = time.monotonic() + WAIT_S
        while len(got) < want:
            n, wcs = cq.poll(min(64, want - len(got)))
            for wc in wcs[:n]:
                if wc.status != e.IBV_WC_SUCCESS:
                    self.abort(r, f"{what}: completion {wc.wr_id} status {wc.status} "
                               f"(vendor {wc.vendor_err})")
                got.append(wc)
            if n:
                end = time.monotonic() + WAIT_S
                continue
            if self.aborted(r):
                raise Hit(f"peer: {open(self.f(r, 'abort')).read().strip()}")
            if time.monotonic() > end:
                self.abort(r, f"{what}: {len(got)} of {want} completions in {WAIT_S} s")
            time.sleep(0.0005)
        return got

    # ---- the requester ------------------------------------------------------

    def rdma(self, qp, opcode, mr, off, length, remote, r, what):
        """one RDMA WRITE or READ of @length bytes at @off of @mr to or
        from @remote (rkey, address), waited for"""
        wr = SendWR(wr_id=opcode, opcode=opcode, num_sge=1,
                    sg=[SGE(mr.buf + off, length, mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(*remote)
        qp.post_send(wr)
        self.poll(self.scq, 1, r, what)

    def requester_round(self, r):
        rng = self.rng
        nq = rng.randint(1, 8)
        nsend = rng.randint(4, 32)
        size = rng.choice([8, 64, 256, 1024, 1500, 4096])
        wlen = rng.choice([512, 4096, 8192, 65536])
        natom = rng.randint(1, 16)
        ud_n = rng.randint(0, 64)
        plan = dict(nq=nq, nsend=nsend, size=size, wlen=wlen, natom=natom, ud_n=ud_n)
        put(self.f(r, "plan.json"), plan)
        self.build()
        self.make_qps(nq, nsend, ud_n)
        src = self.mr(max(nsend * size, 64))
        wsrc = self.mr(nq * wlen)
        rdst = self.mr(nq * wlen)
        ares = self.mr(8 * (natom + 1))
        self.mrs_ = [src, wsrc, rdst, ares]
        put(self.f(r, f"{self.role}.json"), self.info())
        peer = self.wait_file(r, "responder.json")
        self.connect(peer)
        self.wait_file(r, "ready")
        ah = AH(self.pd, attr=AHAttr(dlid=peer["lid"], port_num=1))
        seed = f"{self.seed}.{self.pair}.{r}"
        for i, qp in enumerate(self.qps):
            qseed = f"{seed}.{i}"
            # SENDs
            for j in range(nsend):
                src.write(message(qseed, j, size), size, j * size)
                qp.post_send(SendWR(wr_id=j, opcode=e.IBV_WR_SEND, num_sge=1,
                                    sg=[SGE(src.buf + j * size, size, src.lkey)],
                                    send_flags=e.IBV_SEND_SIGNALED))
            self.poll(self.scq, nsend, r, f"QP {i} sends")
            self.c["sends"] += nsend
            # an RDMA WRITE, an RDMA READ of it back
            pat = message(qseed + ".w", 0, wlen)
            wsrc.write(pat, wlen, i * wlen)
            remote = (peer["wkey"], peer["waddr"] + i * wlen)
            self.rdma(qp, e.IBV_WR_RDMA_WRITE, wsrc, i * wlen, wlen, remote, r,
                      f"QP {i} write")
            self.c["writes"] += 1
            rdst.write(bytes(wlen), wlen, i * wlen)
            self.rdma(qp, e.IBV_WR_RDMA_READ, rdst, i * wlen, wlen, remote, r,
                      f"QP {i} read")
            self.c["reads"] += 1
            back = rdst.read(wlen, i * wlen)
            self.c["bytes_checked"] += wlen
            if back != pat:
                bad = next(k for k in range(wlen) if back[k] != pat[k])
                self.data_error(r, f"QP {i}: RDMA READ of the {wlen} B written differs "
                                f"at byte {bad}")
            # atomics on this QP's word: FETCH_AND_ADD 1, natom times,
            # then CMP_AND_SWP natom -> a value the responder checks
            for k in range(natom):
                a = SendWR(wr_id=2000 + k, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                           sg=[SGE(ares.buf + 8 * k, 8, ares.lkey)],
                           send_flags=e.IBV_SEND_SIGNALED)
                a.set_wr_atomic(peer["akey"], peer["aaddr"] + 8 * i, 1, 0)
                qp.post_send(a)
            self.poll(self.scq, natom, r, f"QP {i} fetch-and-add")
            got = [struct.unpack("<Q", ares.read(8, 8 * k))[0] for k in range(natom)]
            if got != list(range(natom)):
                self.data_error(r, f"QP {i}: FETCH_AND_ADD returned {got[:20]}, "
                                f"want 0..{natom - 1}")
            swap = 0x5a5a000000000000 | (r << 8) | i
            a = SendWR(wr_id=3000, opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP, num_sge=1,
                       sg=[SGE(ares.buf + 8 * natom, 8, ares.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED)
            a.set_wr_atomic(peer["akey"], peer["aaddr"] + 8 * i, natom, swap)
            qp.post_send(a)
            self.poll(self.scq, 1, r, f"QP {i} compare-and-swap")
            old = struct.unpack("<Q", ares.read(8, 8 * natom))[0]
            if old != natom:
                self.data_error(r, f"QP {i}: CMP_AND_SWP found {old}, want {natom}")
            self.c["atomics"] += natom + 1
        # UD
        useed = seed + ".ud"
        usize = min(size, 1024)
        for j in range(ud_n):
            src.write(message(useed, j, usize), usize, 0)
            u = SendWR(wr_id=4000 + j, opcode=e.IBV_WR_SEND, num_sge=1,
                       sg=[SGE(src.buf, usize, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
            u.set_wr_ud(ah, peer["qpn"][-1], QKEY)
            self.ud.post_send(u)
            self.poll(self.scq, 1, r, "UD send")
            time.sleep(0.002)
        self.c["ud_sent"] += ud_n
        put(self.f(r, "sent"), {})
        res = self.wait_file(r, "checked", WAIT_S + 10)
        ah.close()
        return res

    # ---- the responder -------------------------------------------------------

    def responder_round(self, r):
        plan = self.wait_file(r, "plan.json", 3600)
        nq, nsend, size = plan["nq"], plan["nsend"], plan["size"]
        wlen, ud_n = plan["wlen"], plan["ud_n"]
        self.build()
        self.make_qps(nq, nsend, ud_n)
        rbuf = self.mr(max(nq * nsend * size, 64))
        wtgt = self.mr(nq * wlen, REMOTE)
        atom = self.mr(8 * nq, REMOTE)
        uslot = min(size, 1024) + GRH
        ubuf = self.mr(max((ud_n + 1) * uslot, 64))
        self.mrs_ = [rbuf, wtgt, atom, ubuf]
        atom.write(bytes(8 * nq), 8 * nq, 0)
        info = self.info()
        info.update(waddr=wtgt.buf, wkey=wtgt.rkey, aaddr=atom.buf, akey=atom.rkey)
        put(self.f(r, f"{self.role}.json"), info)
        self.wait_file(r, "requester.json")
        peer = json.load(open(self.f(r, "requester.json")))
        self.connect(peer)
        for i, qp in enumerate(self.qps):
            for j in range(nsend):
                slot = i * nsend + j
                qp.post_recv(RecvWR(wr_id=slot, num_sge=1,
                                    sg=[SGE(rbuf.buf + slot * size, size, rbuf.lkey)]))
        for j in range(ud_n):
            self.ud.post_recv(RecvWR(wr_id=100000 + j, num_sge=1,
                                     sg=[SGE(ubuf.buf + j * uslot, uslot, ubuf.lkey)]))
        put(self.f(r, "ready"), {})
        seed = f"{self.seed}.{self.pair}.{r}"
        want = nq * nsend
        nxt = [0] * nq
        qindex = {q.qp_num: i for i, q in enumerate(self.qps)}
        useen = set()
        ud_got = 0
        got = 0
        sent_at = None
        hit = None
        end = time.monotonic() + WAIT_S
        # every RC message, and UD ones until 1 s after the requester is done
        while True:
            n, wcs = self.rcq.poll(64)
            for wc in wcs[:n]:
                if wc.status != e.IBV_WC_SUCCESS:
                    hit = hit or f"receive completion {wc.wr_id} status {wc.status}"
                    continue
                if wc.wr_id >= 100000:
                    j = wc.wr_id - 100000
                    data = ubuf.read(wc.byte_len - GRH, j * uslot + GRH)
                    num = struct.unpack("<Q", data[:8])[0] if len(data) >= 8 else -1
                    if len(data) != min(size, 1024) or num in useen or \
                            data != message(seed + ".ud", num, len(data)):
                        self.data_error(r, f"UD message in slot {j} (number {num}, "
                                        f"{len(data)} B) not one that was sent, or twice")
                    useen.add(num)
                    ud_got += 1
                    continue
                i = qindex.get(wc.qp_num)
                slot = wc.wr_id
                if i is None or slot // nsend != i:
                    self.data_error(r, f"receive {slot} on QP {wc.qp_num}: not its QP")
                    continue
                j = slot % nsend
                if j != nxt[i]:
                    self.data_error(r, f"QP {i}: message {j} arrived, want {nxt[i]}")
                nxt[i] = j + 1
                data = rbuf.read(size, slot * size)
                self.c["bytes_checked"] += size
                if wc.byte_len != size or data != message(f"{seed}.{i}", j, size):
                    self.data_error(r, f"QP {i}: message {j} ({wc.byte_len} B) differs")
                got += 1
            if n:
                end = time.monotonic() + WAIT_S
                continue
            if sent_at is None and os.path.exists(self.f(r, "sent")):
                sent_at = time.monotonic()
            if sent_at is not None and got >= want and \
                    (ud_got >= ud_n or time.monotonic() - sent_at > 1):
                break
            if hit or self.aborted(r):
                break
            if time.monotonic() > end:
                hit = f"{got} of {want} RC messages after {WAIT_S} s"
                break
            time.sleep(0.0005)
        if hit:
            self.abort(r, hit)
        if self.aborted(r):
            raise Hit(f"peer: {open(self.f(r, 'abort')).read().strip()}")
        words = [struct.unpack("<Q", atom.read(8, 8 * i))[0] for i in range(nq)]
        for i, w in enumerate(words):
            if w != (0x5a5a000000000000 | (r << 8) | i):
                self.data_error(r, f"QP {i}: atomic word {w:#x} after the swap")
        self.c["sends"] += got
        self.c["ud_sent"] += ud_n
        self.c["ud_received"] += ud_got
        self.c["ud_lost"] += ud_n - ud_got
        put(self.f(r, "checked"), {"rc": got, "ud": ud_got})
        return None

    # ---- rounds -------------------------------------------------------------

    def run(self):
        t0 = time.monotonic()
        stop = os.path.join(self.d, f"{self.pair}.stop")
        r = 0
        while True:
            if self.role == "requester":
                if time.monotonic() - t0 > self.seconds or \
                        os.path.exists(os.path.join(self.d, "soak.stop")):
                    put(stop, {"rounds": r})
                    break
            else:
                # the requester's plan for round r, or its stop
                while not os.path.exists(self.f(r, "plan.json")):
                    if os.path.exists(stop):
                        break
                    time.sleep(0.05)
                if not os.path.exists(self.f(r, "plan.json")):
                    break
            self.c["rounds"] += 1
            try:
                if self.role == "requester":
                    self.requester_round(r)
                else:
                    self.responder_round(r)
                self.c["ok"] += 1
                if self.last_hit:
                    self.c["recovered"] += 1
                self.last_hit = False
            except Hit as h:
                self.c["hit"] += 1
                self.hits.append(f"round {r}: {h}")
                log(f"{self.me}: round {r} hit: {h}")
                self.last_hit = True
            except PyverbsRDMAError as ex:
                # a verb failed (a QP to RTS against a port that is down)
                self.c["hit"] += 1
                self.hits.append(f"round {r}: {ex}")
                log(f"{self.me}: round {r} hit: {ex}")
                self.last_hit = True
                if not self.aborted(r):
                    with open(self.f(r, "abort"), "w") as f:
                        f.write(f"{self.me}: {ex}\n")
            finally:
                self.destroy()
            r += 1
            if self.c["rounds"] % 20 == 0:
                log(f"{self.me}: {self.pair} {self.role}: {self.c['rounds']} rounds, "
                    f"{self.c['hit']} hit, {self.c['data_errors']} data errors")
        self.c["seconds"] = round(time.monotonic() - t0, 1)
        self.c["hits"] = self.hits[-20:]
        self.c["errors"] = self.errors[-20:]
        put(os.path.join(self.d, f"{self.pair}.{self.role}.result.json"), self.c)
        self.ctx.close()
        log(f"ok: {self.me}: {self.pair} {self.role}: " +
            ", ".join(f"{k} {v}" for k, v in self.c.items() if not isinstance(v, list)))
        return 1 if self.c["data_errors"] else 0


def main():
    if len(sys.argv) != 8 or sys.argv[3] not in ("requester", "responder"):
        print(__doc__, file=sys.stderr)
        return 2
    d, pair, role, me, peer, seconds, seed = sys.argv[1:]
    return Soak(d, pair, role, me, peer, float(seconds), seed).run()


if __name__ == "__main__":
    sys.exit(main())
