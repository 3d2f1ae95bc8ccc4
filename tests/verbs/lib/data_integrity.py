#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""End-to-end data integrity between two nodes, with pyverbs on libsfab.

usage: data_integrity.py requester|responder DIR SEED ME PEER [legacy|ex]

Run once in each of two nodes (the requester and the responder); the two
exchange their LID, QP numbers, PSNs, MR addresses and rkeys, and step
files, through DIR (the lab share): DIR/di.NODE.STEP.  Both derive the
whole schedule (every length, offset, immediate and every byte moved) from
SEED alone, so each checker computes what its memory must hold on its
own, never from what the other side reports.

Every buffer an operation touches is an anonymous mapping whose middle
only is registered (MR start and end not page aligned), with random guard
bytes around it; the checker keeps the expected image of the whole mapping
and compares sha256 of the real mapping with it, so a byte wrong inside
the MR, or one written just outside it, fails the test.

  RC RDMA WRITE (some with immediate): random bytes at random lengths,
    1 B .. 1 MiB, always 1, 4095, 4096, 4097, the active MTU - 1, MTU,
    MTU + 1 and 1 MiB twice, from random source offsets to random target
    offsets (also flush with either end of the MR); the responder checks
    its whole target mapping after each.  A WRITE with immediate consumes
    a receive (opcode RECV_RDMA_WITH_IMM, byte_len, imm_data) whose buffer
    stays untouched.
  RC RDMA READ: the same kind of schedule from the responder's MR (filled
    from the seed) into the requester's, checked there after each; the
    responder's mapping is unchanged afterwards.
  RC SEND, some with immediate, some inline: the receiver checks
    opcode, byte_len, imm_data, every byte of the message and that its
    receive buffer beyond byte_len (and between the buffers) is untouched.
  The same SENDs to an RC QP whose receives come from an SRQ.
  UD SENDs of 1 B .. path MTU (some with immediate, some inline) to a UD
    QP with its own receive queue, and to one on an SRQ: byte_len is 40 +
    the length, the payload follows the 40-byte GRH space (untouched when
    the completion says no GRH), source QPN and LID are the requester's.

  RC atomics: fetch-and-adds and compare-and-swaps (hits and misses) on
    8-byte words of the responder's atomic MR; each returned original
    value is checked where it lands (and the local mapping around it),
    and the responder checks its whole atomic mapping at the end.  With
    "ex" also atomic writes (IBA A19) on the same words after them, then a
    FLUSH of the MR's range and one of the whole MR (global visibility).

With "ex" the requester posts everything through the ibv_wr_* API
(ibv_create_qp_ex with send_ops_flags: ibv_wr_rdma_write, _imm,
ibv_wr_rdma_read, ibv_wr_send, _imm, ibv_wr_atomic_*, ibv_wr_atomic_write,
ibv_wr_flush, with
ibv_wr_set_sge, ibv_wr_set_sge_list for some, ibv_wr_set_inline_data and
_list for the inline SENDs, ibv_wr_set_ud_addr) and polls its send CQ
through ibv_start_poll (ibv_create_cq_ex: opcode, QP number, byte_len,
imm_data and wc_flags read with ibv_wc_read_*); the responder is the
same in both modes.

The RC PSNs start just below the 24-bit wrap.  Every completion must have
IBV_WC_SUCCESS and the expected wr_id, opcode, QP number (and byte_len for
receives); none may be missing (each wait has a deadline: a hang is a
failure that says what was outstanding) and none extra (every CQ is empty
at the end of each phase).  Prints "ok:" lines; on the first failure
prints "FAIL: ..." with the seed and exits 1.
"""
import ctypes
import errno
import hashlib
import json
import math
import mmap
import os
import random
import sys
import time
import types

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ, CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.qp import DataBuffer
from pyverbs.wr import RecvWR, SGE, SendWR

MIB = 1 << 20
PAGE = mmap.PAGESIZE
GRH = 40
QKEY = 0x11111111
# MR lengths: room for 1 MiB at a few thousand offsets, none a page multiple
WSRC_LEN = MIB + 2 * 4096 + 57
WTGT_LEN = MIB + 3 * 4096 + 111
RSRC_LEN = MIB + 4096 + 33
RDST_LEN = MIB + 3 * 4096 + 5
N_RC = 24           # WRITEs, READs and SENDs each
N_SRQ = 16          # SENDs to the RC QP on an SRQ
N_UD = 24           # UD SENDs to each of the two UD QPs
IMM_SLOT = 64       # receive buffer of a WRITE with immediate: untouched
ATOM_LEN = 4096 + 64  # the responder's atomic MR: 520 words
N_ATOM = 32         # atomics
N_AWRITE = 16       # ex: atomic writes after them
OP_TIMEOUT = 60     # one operation's completion
PHASE_TIMEOUT = 180  # a phase's completions; the peer's next step

ROLE = LAB = ME = PEER = None
API = "legacy"      # or "ex": the requester's post and poll API
CTX = None          # the device context (Node)
SEED = 0
T0 = time.monotonic()


def fail(msg):
    print(f"FAIL: {ROLE}: {msg} (seed {SEED})", flush=True)
    sys.exit(1)


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}] {msg}", flush=True)


def ok(msg):
    print(f"ok: {ROLE}: {msg}", flush=True)


# ---------------------------------------------------------------------
# steps through the lab share

def step_path(node, name):
    return os.path.join(LAB, f"di.{node}.{name}")


def put_step(name, data=None):
    path = step_path(ME, name)
    with open(path + ".tmp", "w") as f:
        if data is not None:
            json.dump(data, f)
    os.rename(path + ".tmp", path)


_last_fail_check = [0.0]


def peer_failed():
    """a node or the host half gave up (NODE.fail in the share): stop"""
    now = time.monotonic()
    if now - _last_fail_check[0] < 0.5:
        return
    _last_fail_check[0] = now
    for f in os.listdir(LAB):
        if f.endswith(".fail") and f != f"{ME}.fail":
            try:
                with open(os.path.join(LAB, f)) as fh:
                    why = fh.read().strip()
            except OSError:
                why = "?"
            fail(f"stopping: {f[:-5]} failed: {why}")


def wait_step(name, timeout=PHASE_TIMEOUT):
    path = step_path(PEER, name)
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        peer_failed()
        if time.monotonic() > end:
            fail(f"no step '{name}' from {PEER} after {timeout} s (the peer hangs?)")
        time.sleep(0.01)
    with open(path) as f:
        text = f.read()
    return json.loads(text) if text else None


# ---------------------------------------------------------------------
# the schedule, from the seed alone

def rng_of(*what):
    return random.Random(":".join(str(w) for w in (SEED,) + what))


def payload(kind, i, length):
    """the bytes of operation i of a phase"""
    return rng_of("data", kind, i).randbytes(length)


def rand_len(rng, hi):
    """1 .. hi: log-uniform, near a multiple of 4 KiB (256 B when hi is
    one MTU), or uniform up to 64 KiB"""
    k = rng.randrange(3)
    unit = 4096 if hi > 4096 else 256
    if k == 0:
        n = int(2 ** rng.uniform(0, math.log2(hi)))
    elif k == 1:
        n = rng.randint(1, min(16, hi // unit)) * unit + rng.randint(-2, 2)
    else:
        n = rng.randint(1, min(hi, 64 * 1024))
    return max(1, min(hi, n))


def lengths(rng, n, fixed, gen):
    ls = list(fixed) + [gen() for _ in range(n - len(fixed))]
    rng.shuffle(ls)
    return ls


def rand_off(rng, room):
    """an offset in 0 .. room, flush with either end of the region now and
    then"""
    r = rng.random()
    if r < 0.15:
        return 0
    if r < 0.3:
        return room
    return rng.randint(0, room)


def rc_fixed(mtu, n_mib=2):
    return sorted({1, 4095, 4096, 4097, mtu - 1, mtu, mtu + 1}) + [MIB] * n_mib


def schedule(mtu, max_inline):
    rng = rng_of("schedule")
    s = {}
    w = []
    for i, n in enumerate(lengths(rng, N_RC, rc_fixed(mtu), lambda: rand_len(rng, MIB))):
        imm = rng.getrandbits(32) if rng.random() < 0.25 or i < 2 else None
        w.append(dict(len=n, src=rand_off(rng, WSRC_LEN - n),
                      dst=rand_off(rng, WTGT_LEN - n), imm=imm))
    s["write"] = w
    s["read"] = [dict(len=n, src=rand_off(rng, RSRC_LEN - n), dst=rand_off(rng, RDST_LEN - n))
                 for n in lengths(rng, N_RC, rc_fixed(mtu), lambda: rand_len(rng, MIB))]

    def sends(n, fixed, hi, ud):
        out = []
        for ln in lengths(rng, n, fixed, lambda: rand_len(rng, hi)):
            out.append(dict(
                len=ln,
                imm=rng.getrandbits(32) if rng.random() < 0.3 else None,
                inline=ln <= max_inline and rng.random() < 0.5,
                # receive buffer: exactly the message, or some bytes more
                slack=0 if rng.random() < 0.25 else rng.randint(1, 300),
                gap=rng.randint(0, 300),      # between receive buffers
                sgap=rng.randint(0, 100),     # between send sources
                ud=ud))
        return out
    s["send"] = sends(N_RC, rc_fixed(mtu), MIB, False)
    s["srq"] = sends(N_SRQ, rc_fixed(mtu, 1), MIB, False)
    ud_fixed = sorted({1, 2, mtu - 1, mtu})
    s["ud"] = sends(N_UD, ud_fixed, mtu, True)
    s["udsrq"] = sends(N_UD, ud_fixed, mtu, True)
    return s


def psns():
    """(requester, responder) start PSNs of both RC QP pairs: the first
    pair's just below the 24-bit wrap, so that a 1 MiB message crosses it"""
    rng = rng_of("psn")
    return ([0xffffff - rng.randrange(64), rng.getrandbits(24)],
            [0xffffff - rng.randrange(64), rng.getrandbits(24)])


# ---------------------------------------------------------------------
# buffers with guards

class Buf:
    """An anonymous mapping with an MR of mr_len bytes in its middle, at an
    offset that is not page aligned; every byte of the mapping (the guards
    too) starts random, from the seed, and `image` is what it must hold."""

    def __init__(self, pd, name, mr_len, access, align=1):
        rng = rng_of("buf", name)
        self.name = name
        self.lo = (PAGE + rng.randrange(1, PAGE)) // align * align
        self.len = mr_len
        size = self.lo + mr_len + PAGE + rng.randrange(1, PAGE)
        self.image = bytearray(rng.randbytes(size))
        if pd is None:          # only the image: the peer's buffer
            return
        self.map = mmap.mmap(-1, size)
        self.map[:] = self.image
        self._c = ctypes.c_char.from_buffer(self.map)
        self.addr = ctypes.addressof(self._c) + self.lo
        self.mr = MR(pd, mr_len, access, address=self.addr)

    def put(self, off, data):
        """write data at MR offset off, in memory and in the image"""
        self.map[self.lo + off:self.lo + off + len(data)] = data
        self.image[self.lo + off:self.lo + off + len(data)] = data

    def expect(self, off, data):
        self.image[self.lo + off:self.lo + off + len(data)] = data

    def where(self, off):
        if off < self.lo:
            return f"byte {self.lo - off} below the MR's start (guard)"
        if off >= self.lo + self.len:
            return f"byte {off - self.lo - self.len} past the MR's end (guard)"
        return f"MR offset {off - self.lo}"

    def check(self, what, region=None):
        """the whole mapping against the expected image; region (MR
        offset, length) is the one the operation was meant to touch"""
        got = hashlib.sha256(self.map).hexdigest()
        want = hashlib.sha256(self.image).hexdigest()
        if got == want:
            return
        mem = self.map
        img = self.image
        size = len(img)
        first = last = None
        blocks = 0
        for o in range(0, size, 4096):
            if mem[o:o + 4096] != img[o:o + 4096]:
                blocks += 1
                last = o
                if first is None:
                    first = o
        a, b = mem[first:first + 4096], img[first:first + 4096]
        f = first + next(k for k in range(len(a)) if a[k] != b[k])
        a, b = mem[last:last + 4096], img[last:last + 4096]
        ll = last + max(k for k in range(len(a)) if a[k] != b[k])
        msg = (f"{what}: {self.name} mapping differs from the expected image "
               f"(sha256 {got[:16]}.., want {want[:16]}..): first wrong byte at "
               f"{self.where(f)} is {mem[f]:#04x}, want {img[f]:#04x}; last at "
               f"{self.where(ll)}; {blocks} 4 KiB blocks differ")
        if region is not None:
            r0, rl = region
            inside = r0 <= f - self.lo < r0 + rl and r0 <= ll - self.lo < r0 + rl
            msg += ("; inside" if inside else "; NOT only inside") + \
                f" the operation's region [{r0}, {r0 + rl})"
        fail(msg)


# ---------------------------------------------------------------------
# completions

def opname(op):
    names = [n for n in dir(e) if n.startswith("IBV_WC_") and getattr(e, n) == op and
             ("RECV" in n or n in ("IBV_WC_SEND", "IBV_WC_RDMA_WRITE", "IBV_WC_RDMA_READ"))]
    return names[0] if names else str(op)


def poll(cq, what, timeout=OP_TIMEOUT):
    """the next completion of cq, within timeout seconds"""
    end = time.monotonic() + timeout
    while True:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
        peer_failed()
        if time.monotonic() > end:
            fail(f"{what}: no completion after {timeout} s (a hang)")
        time.sleep(0.0005)


def check_wc(wc, what, wr_id, opcode, qpn, byte_len=None, imm=None):
    if wc.status != e.IBV_WC_SUCCESS:
        fail(f"{what}: completion status {wc.status} (vendor error {wc.vendor_err}), "
             f"want IBV_WC_SUCCESS")
    if wc.wr_id != wr_id:
        fail(f"{what}: completion for wr_id {wc.wr_id:#x}, want {wr_id:#x} "
             f"(missing, extra or out of order)")
    if wc.opcode != opcode:
        fail(f"{what}: completion opcode {opname(wc.opcode)}, want {opname(opcode)}")
    if wc.qp_num != qpn:
        fail(f"{what}: completion for QP {wc.qp_num:#x}, want {qpn:#x}")
    if byte_len is not None and wc.byte_len != byte_len:
        fail(f"{what}: byte_len {wc.byte_len}, want {byte_len}")
    has_imm = bool(wc.wc_flags & e.IBV_WC_WITH_IMM)
    if byte_len is not None and has_imm != (imm is not None):
        fail(f"{what}: IBV_WC_WITH_IMM {'set' if has_imm else 'not set'}, want "
             f"{'set' if imm is not None else 'not set'}")
    if imm is not None and wc.imm_data != imm:
        fail(f"{what}: imm_data {wc.imm_data:#010x}, want {imm:#010x}")


def no_more(cqs, what):
    """no completion on any of cqs"""
    for name, cq in cqs:
        n, wcs = cq.poll(1)
        if n:
            wc = wcs[0]
            fail(f"{what}: an extra completion on the {name} CQ: wr_id {wc.wr_id:#x} "
                 f"status {wc.status} opcode {opname(wc.opcode)} byte_len {wc.byte_len}")


class ExCQ:
    """A CQ from ibv_create_cq_ex, polled through ibv_start_poll: poll(1)
    gives what CQ.poll(1) gives, every field read with ibv_wc_read_*"""

    FLAGS = (e.IBV_WC_EX_WITH_BYTE_LEN | e.IBV_WC_EX_WITH_IMM | e.IBV_WC_EX_WITH_QP_NUM |
             e.IBV_WC_EX_WITH_SRC_QP | e.IBV_WC_EX_WITH_SLID | e.IBV_WC_EX_WITH_SL |
             e.IBV_WC_EX_WITH_DLID_PATH_BITS)

    def __init__(self, ctx, cqe):
        self.cq = CQEX(ctx, CqInitAttrEx(cqe=cqe, wc_flags=self.FLAGS))

    def poll(self, n):
        rc = self.cq.start_poll(PollCqAttr())
        if rc == errno.ENOENT:
            return 0, []
        if rc:
            fail(f"ibv_start_poll: {os.strerror(rc)}")
        c = self.cq
        wc = types.SimpleNamespace(
            wr_id=c.wr_id, status=c.status, opcode=c.read_opcode(),
            vendor_err=c.read_vendor_err(), byte_len=c.read_byte_len(),
            imm_data=c.read_imm_data(), qp_num=c.read_qp_num(), src_qp=c.read_src_qp(),
            wc_flags=c.read_wc_flags(), slid=c.read_slid(), sl=c.read_sl(),
            dlid_path_bits=c.read_dlid_path_bits())
        c.end_poll()
        return 1, [wc]


def send_cq(ctx, cqe):
    return ExCQ(ctx, cqe) if API == "ex" else CQ(ctx, cqe)


RC_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM | e.IBV_QP_EX_WITH_RDMA_WRITE |
          e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | e.IBV_QP_EX_WITH_RDMA_READ |
          e.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
          e.IBV_QP_EX_WITH_ATOMIC_WRITE | e.IBV_QP_EX_WITH_FLUSH)
UD_OPS = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM


def post(qp, wr_id, opcode, sges, flags=e.IBV_SEND_SIGNALED, imm=None, rdma=None,
         atomic=None, ud=None, inline_split=False):
    """one send work request: ibv_post_send, or (API ex) the ibv_wr_*
    calls; rdma (rkey, addr), atomic (rkey, addr, compare_add, swap), ud
    (ah, qpn, qkey); inline_split: ex gives the inline bytes as a list of
    two buffers, or the SGEs as a list"""
    if API != "ex":
        wr = SendWR(wr_id=wr_id, num_sge=len(sges), send_flags=flags, opcode=opcode,
                    imm_data=imm or 0, sg=sges)
        if rdma:
            wr.set_wr_rdma(*rdma)
        if atomic:
            wr.set_wr_atomic(*atomic)
        if ud:
            wr.set_wr_ud(*ud)
        qp.post_send(wr)
        return
    if imm is not None:
        # pyverbs' wr_*_imm take the value in host order (htobe32), where
        # SendWR and the completions carry the __be32 as it is: swap, so
        # that the same 32 bits travel
        imm = int.from_bytes(imm.to_bytes(4, sys.byteorder), "big")
    qp.wr_start()
    qp.wr_id = wr_id
    qp.wr_flags = flags & ~e.IBV_SEND_INLINE
    if opcode == e.IBV_WR_RDMA_WRITE:
        qp.wr_rdma_write(*rdma)
    elif opcode == e.IBV_WR_RDMA_WRITE_WITH_IMM:
        qp.wr_rdma_write_imm(*rdma, imm)
    elif opcode == e.IBV_WR_RDMA_READ:
        qp.wr_rdma_read(*rdma)
    elif opcode == e.IBV_WR_SEND:
        qp.wr_send()
    elif opcode == e.IBV_WR_SEND_WITH_IMM:
        qp.wr_send_imm(imm)
    elif opcode == e.IBV_WR_ATOMIC_CMP_AND_SWP:
        qp.wr_atomic_cmp_swp(atomic[0], atomic[1], atomic[2], atomic[3])
    elif opcode == e.IBV_WR_ATOMIC_FETCH_AND_ADD:
        qp.wr_atomic_fetch_add(atomic[0], atomic[1], atomic[2])
    elif opcode == e.IBV_WR_ATOMIC_WRITE:
        qp.wr_atomic_write(*atomic)
    elif opcode == e.IBV_WR_FLUSH:
        qp.wr_flush(*atomic)
    else:
        fail(f"post: opcode {opcode}")
    if ud:
        qp.wr_set_ud_addr(*ud)
    if flags & e.IBV_SEND_INLINE:
        sge = sges[0]
        if inline_split and sge.length > 1:
            h = sge.length // 2
            qp.wr_set_inline_data_list(2, [DataBuffer(sge.addr, h),
                                           DataBuffer(sge.addr + h, sge.length - h)])
        else:
            qp.wr_set_inline_data(sge.addr, sge.length)
    elif inline_split:
        qp.wr_set_sge_list(len(sges), sges)
    elif sges:
        qp.wr_set_sge(sges[0])
    qp.wr_complete()


# ---------------------------------------------------------------------
# the two ends

def make_qp(pd, qp_type, scq, rcq, srq, inline, ex):
    """ex: ibv_create_qp_ex with every send op the type takes"""
    cap = QPCap(max_send_wr=64, max_recv_wr=0 if srq else 64, max_send_sge=2,
                max_recv_sge=1, max_inline_data=inline)
    if not ex:
        return QP(pd, QPInitAttr(qp_type=qp_type, scq=scq, rcq=rcq, srq=srq, cap=cap,
                                 sq_sig_all=0))
    ops = RC_OPS if qp_type == e.IBV_QPT_RC else UD_OPS
    scq = scq.cq if isinstance(scq, ExCQ) else scq
    rcq = rcq.cq if isinstance(rcq, ExCQ) else rcq
    return QPEx(CTX, QPInitAttrEx(qp_type=qp_type, scq=scq, rcq=rcq, srq=srq, cap=cap,
                                     pd=pd, send_ops_flags=ops,
                                     comp_mask=e.IBV_QP_INIT_ATTR_PD |
                                     e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))


def rc_qp(pd, scq, rcq, srq=None, inline=0, ex=False):
    return make_qp(pd, e.IBV_QPT_RC, scq, rcq, srq, inline, ex)


def ud_qp(pd, scq, rcq, srq=None, inline=0, ex=False):
    qp = make_qp(pd, e.IBV_QPT_UD, scq, rcq, srq, inline, ex)
    attr = QPAttr()
    attr.qkey = QKEY
    attr.pkey_index = 0
    attr.port_num = 1
    attr.sq_psn = 0
    qp.to_rts(attr)
    return qp


def rc_connect(qp, mtu_code, rd, peer_lid, peer_qpn, my_psn, peer_psn):
    attr = QPAttr(port_num=1, path_mtu=mtu_code)
    attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ | \
        e.IBV_ACCESS_REMOTE_ATOMIC
    attr.pkey_index = 0
    attr.dest_qp_num = peer_qpn
    attr.rq_psn = peer_psn
    attr.sq_psn = my_psn
    attr.max_dest_rd_atomic = rd
    attr.max_rd_atomic = rd
    attr.min_rnr_timer = 12
    attr.timeout = 16
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = AHAttr(dlid=peer_lid, port_num=1)
    qp.to_rts(attr)


class Node:
    def __init__(self):
        global CTX
        self.ctx = CTX = Context(name="sfab_0")
        port = self.ctx.query_port(1)
        self.lid = port.lid
        if not self.lid:
            fail("port 1 has no LID")
        self.mtu_code = port.active_mtu
        self.rd = max(1, min(4, self.ctx.query_device().max_qp_rd_atom))
        self.pd = PD(self.ctx)

    def path(self, peer):
        """the path MTU (code, bytes): the smaller active MTU of the ends"""
        code = min(self.mtu_code, peer["mtu_code"])
        return code, 128 << code


def send_layout(ops, ud):
    """offsets of the receive buffers (from the MR start) and of the send
    sources, and the two MR lengths"""
    roff = soff = 0
    for op in ops:
        roff += op["gap"]
        op["roff"] = roff
        op["rlen"] = (GRH if ud else 0) + op["len"] + op["slack"]
        roff += op["rlen"]
        soff += op["sgap"]
        op["soff"] = soff
        soff += op["len"]
    return roff + 1, soff + 1


# ----------------------------------------------------------- requester

def requester():
    node = Node()
    pd = node.pd
    ex = API == "ex"
    scq, rcq = send_cq(node.ctx, 256), CQ(node.ctx, 16)
    rc1 = rc_qp(pd, scq, rcq, inline=128, ex=ex)
    rc2 = rc_qp(pd, scq, rcq, inline=128, ex=ex)
    ud = ud_qp(pd, scq, rcq, inline=128, ex=ex)
    max_inline = min(rc1.query(e.IBV_QP_CAP)[1].cap.max_inline_data,
                     ud.query(e.IBV_QP_CAP)[1].cap.max_inline_data)
    (p1, q1), (p2, q2) = psns()
    put_step("info", dict(lid=node.lid, mtu_code=node.mtu_code, max_inline=max_inline,
                          rc1=rc1.qp_num, rc1_psn=p1, rc2=rc2.qp_num, rc2_psn=p2,
                          ud=ud.qp_num))
    peer = wait_step("info")
    mtu_code, mtu = node.path(peer)
    log(f"LID {node.lid} -> {peer['lid']}, path MTU {mtu}, inline up to {max_inline}; "
        f"rc1 {rc1.qp_num:#x} -> {peer['rc1']:#x} (PSN {p1:#x}), rc2 {rc2.qp_num:#x} -> "
        f"{peer['rc2']:#x}, ud {ud.qp_num:#x} -> {peer['ud1']:#x}/{peer['ud2']:#x}")
    rc_connect(rc1, mtu_code, node.rd, peer["lid"], peer["rc1"], p1, peer["rc1_psn"])
    rc_connect(rc2, mtu_code, node.rd, peer["lid"], peer["rc2"], p2, peer["rc2_psn"])
    sched = schedule(mtu, max_inline)
    for k in ("write", "read", "send", "srq", "ud", "udsrq"):
        log(f"{k} lengths: {[op['len'] for op in sched[k]]}")
    cqs = [("send", scq), ("receive", rcq)]
    wait_step("ready")
    ok(f"connected to {PEER} (LID {peer['lid']}), path MTU {mtu}, seed {SEED}")

    # RC RDMA WRITE: the responder checks its target after each
    wsrc = Buf(pd, "wsrc", WSRC_LEN, e.IBV_ACCESS_LOCAL_WRITE)
    t0 = time.monotonic()
    ops = sched["write"]
    for i, op in enumerate(ops):
        n = op["len"]
        what = (f"RDMA WRITE{' with immediate' if op['imm'] is not None else ''} {i} "
                f"({n} bytes, source offset {op['src']}, target offset {op['dst']})")
        wsrc.put(op["src"], payload("write", i, n))
        # two SGEs now and then (ibv_wr_set_sge_list with ex)
        h = n // 2 if n > 1 and i % 3 == 1 else n
        sges = [SGE(wsrc.addr + op["src"], h, wsrc.mr.lkey)]
        if h < n:
            sges.append(SGE(wsrc.addr + op["src"] + h, n - h, wsrc.mr.lkey))
        post(rc1, 0x1000 + i, e.IBV_WR_RDMA_WRITE if op["imm"] is None
             else e.IBV_WR_RDMA_WRITE_WITH_IMM, sges, imm=op["imm"],
             rdma=(peer["wtgt_rkey"], peer["wtgt_addr"] + op["dst"]), inline_split=h < n)
        check_wc(poll(scq, what), what, 0x1000 + i, e.IBV_WC_RDMA_WRITE, rc1.qp_num)
        no_more(cqs, what)
        put_step(f"w{i}")
        wait_step(f"w{i}.ok")
    wsrc.check("RDMA WRITE source (must stay as written)")
    ok(f"RC RDMA WRITE: {len(ops)} of {min(o['len'] for o in ops)}..{max(o['len'] for o in ops)} "
       f"bytes ({sum(o['len'] for o in ops)} in all, "
       f"{sum(o['imm'] is not None for o in ops)} with immediate) to {PEER}, "
       f"whole target mapping checked there after each ({time.monotonic() - t0:.1f} s)")

    # RC RDMA READ: checked here after each
    rsrc = Buf(None, "rsrc", RSRC_LEN, 0)          # the responder's, by the seed
    rdst = Buf(pd, "rdst", RDST_LEN, e.IBV_ACCESS_LOCAL_WRITE)
    t0 = time.monotonic()
    ops = sched["read"]
    for i, op in enumerate(ops):
        n = op["len"]
        what = (f"RDMA READ {i} ({n} bytes, source offset {op['src']}, "
                f"target offset {op['dst']})")
        post(rc1, 0x2000 + i, e.IBV_WR_RDMA_READ, [SGE(rdst.addr + op["dst"], n, rdst.mr.lkey)],
             rdma=(peer["rsrc_rkey"], peer["rsrc_addr"] + op["src"]))
        check_wc(poll(scq, what), what, 0x2000 + i, e.IBV_WC_RDMA_READ, rc1.qp_num)
        no_more(cqs, what)
        src = rsrc.lo + op["src"]
        rdst.expect(op["dst"], rsrc.image[src:src + n])
        rdst.check(what, (op["dst"], n))
    put_step("read.done")
    wait_step("read.ok")
    ok(f"RC RDMA READ: {len(ops)} of {min(o['len'] for o in ops)}..{max(o['len'] for o in ops)} "
       f"bytes ({sum(o['len'] for o in ops)} in all) from {PEER}, whole local mapping "
       f"checked after each; the source unchanged ({time.monotonic() - t0:.1f} s)")

    # SENDs: all posted at once, the receiver checks
    ah = AH(pd, attr=AHAttr(dlid=peer["lid"], port_num=1))
    for phase, qp, dqpn, title in (("send", rc1, None, "RC SEND"),
                                   ("srq", rc2, None, "RC SEND to a QP on an SRQ"),
                                   ("ud", ud, peer["ud1"], "UD SEND"),
                                   ("udsrq", ud, peer["ud2"], "UD SEND to a QP on an SRQ")):
        ops = sched[phase]
        t0 = time.monotonic()
        _, slen = send_layout(ops, dqpn is not None)
        ssrc = Buf(pd, "ssrc-" + phase, slen, e.IBV_ACCESS_LOCAL_WRITE)
        for i, op in enumerate(ops):
            data = payload(phase, i, op["len"])
            ssrc.put(op["soff"], data)
            flags = e.IBV_SEND_SIGNALED | (e.IBV_SEND_INLINE if op["inline"] else 0)
            post(qp, 0x3000 + i, e.IBV_WR_SEND if op["imm"] is None else e.IBV_WR_SEND_WITH_IMM,
                 [SGE(ssrc.addr + op["soff"], op["len"], ssrc.mr.lkey)], flags=flags,
                 imm=op["imm"], ud=(ah, dqpn, QKEY) if dqpn is not None else None,
                 inline_split=op["inline"] and i % 2 == 1)
            if op["inline"]:
                # inline: the bytes were copied at post time
                ssrc.put(op["soff"], bytes(b ^ 0xff for b in data))
        for i, op in enumerate(ops):
            what = f"{title} {i} ({op['len']} bytes)"
            check_wc(poll(scq, what, PHASE_TIMEOUT), what, 0x3000 + i, e.IBV_WC_SEND,
                     qp.qp_num)
        no_more(cqs, title)
        wait_step(phase + ".ok")
        ok(f"{title}: {len(ops)} of {min(o['len'] for o in ops)}..{max(o['len'] for o in ops)} "
           f"bytes ({sum(o['imm'] is not None for o in ops)} with immediate, "
           f"{sum(o['inline'] for o in ops)} inline), checked byte for byte by {PEER} "
           f"({time.monotonic() - t0:.1f} s)")
        del ssrc

    # RC atomics on the responder's atomic MR, each original value
    # checked where it landed here
    aimg = Buf(None, "atom", ATOM_LEN, 0, align=8)      # the responder's
    ares = Buf(pd, "atom-res", 8 * N_ATOM, e.IBV_ACCESS_LOCAL_WRITE, align=8)
    t0 = time.monotonic()
    hits = 0
    for i, op in enumerate(atomics()):
        at = aimg.lo + op["off"]
        old = int.from_bytes(aimg.image[at:at + 8], "little")
        if op["cs"]:
            cmp = old if op["hit"] else op["cmp"]
            new, opcode, wop = (op["val"] if cmp == old else old, e.IBV_WC_COMP_SWAP,
                                e.IBV_WR_ATOMIC_CMP_AND_SWP)
            hits += cmp == old
            args = (peer["atom_rkey"], peer["atom_addr"] + op["off"], cmp, op["val"])
        else:
            new, opcode, wop = ((old + op["val"]) & (2 ** 64 - 1), e.IBV_WC_FETCH_ADD,
                                e.IBV_WR_ATOMIC_FETCH_AND_ADD)
            args = (peer["atom_rkey"], peer["atom_addr"] + op["off"], op["val"], 0)
        what = (f"{'compare-and-swap' if op['cs'] else 'fetch-and-add'} {i} at offset "
                f"{op['off']}")
        post(rc1, 0x4000 + i, wop, [SGE(ares.addr + 8 * i, 8, ares.mr.lkey)], atomic=args)
        check_wc(poll(scq, what), what, 0x4000 + i, opcode, rc1.qp_num)
        no_more(cqs, what)
        ares.expect(8 * i, old.to_bytes(8, "little"))
        ares.check(what + ": the original value returned", (8 * i, 8))
        aimg.image[at:at + 8] = new.to_bytes(8, "little")
    # ex: ATOMIC WRITEs on the same words, then FLUSHes of the range and
    # of the whole MR (IBA A19)
    for i, op in enumerate(awrites()):
        what = f"atomic write {i} at offset {op['off']}"
        post(rc1, 0x4800 + i, e.IBV_WR_ATOMIC_WRITE, [],
             atomic=(peer["atom_rkey"], peer["atom_addr"] + op["off"],
                     op["val"].to_bytes(8, "little")))
        check_wc(poll(scq, what), what, 0x4800 + i, e.IBV_WC_ATOMIC_WRITE, rc1.qp_num)
        no_more(cqs, what)
        at = aimg.lo + op["off"]
        aimg.image[at:at + 8] = op["val"].to_bytes(8, "little")
    if API == "ex":
        for i, level in enumerate((e.IBV_FLUSH_RANGE, e.IBV_FLUSH_MR)):
            what = f"flush {i} (level {level})"
            post(rc1, 0x4900 + i, e.IBV_WR_FLUSH, [],
                 atomic=(peer["atom_rkey"], peer["atom_addr"], ATOM_LEN, e.IBV_FLUSH_GLOBAL,
                         level))
            check_wc(poll(scq, what), what, 0x4900 + i, e.IBV_WC_FLUSH, rc1.qp_num)
            no_more(cqs, what)
    put_step("atom.done")
    wait_step("atom.ok")
    ok(f"RC atomics: {N_ATOM} ({hits} compare-and-swap hits) and {len(awrites())} atomic "
       f"writes on {PEER}'s words, each original value checked here, the whole atomic "
       f"mapping there; {2 if API == 'ex' else 0} flushes ({time.monotonic() - t0:.1f} s)")

    time.sleep(0.5)
    no_more(cqs, "the end")
    put_step("done")
    wait_step("done")
    ok("no completion missing or extra")


def awrites():
    """ex: the atomic writes after the atomics, from the seed, on the
    same few words"""
    if API != "ex":
        return []
    rng = rng_of("awrites")
    words = sorted({op["off"] for op in atomics()})
    return [dict(off=rng.choice(words), val=rng.getrandbits(64)) for _ in range(N_AWRITE)]


def atomics():
    """the atomics, from the seed: on a few words, so that they meet"""
    rng = rng_of("atomics")
    words = [8 * rng.randrange(ATOM_LEN // 8) for _ in range(4)]
    return [dict(off=rng.choice(words), cs=rng.random() < 0.5, hit=rng.random() < 0.6,
                 cmp=rng.getrandbits(64), val=rng.getrandbits(64)) for _ in range(N_ATOM)]


# ----------------------------------------------------------- responder

def responder():
    node = Node()
    pd = node.pd
    scq = CQ(node.ctx, 16)
    rcq1, rcq2, rcq3, rcq4 = (CQ(node.ctx, 128) for _ in range(4))
    srq_rc = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=1)))
    srq_ud = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=1)))
    rc1 = rc_qp(pd, scq, rcq1)
    rc2 = rc_qp(pd, scq, rcq2, srq=srq_rc)
    ud1 = ud_qp(pd, scq, rcq3)
    ud2 = ud_qp(pd, scq, rcq4, srq=srq_ud)
    wtgt = Buf(pd, "wtgt", WTGT_LEN, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    rsrc = Buf(pd, "rsrc", RSRC_LEN, e.IBV_ACCESS_REMOTE_READ)
    atom = Buf(pd, "atom", ATOM_LEN, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_ATOMIC |
               (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_FLUSH_GLOBAL if API == "ex" else 0),
               align=8)
    (_, q1), (_, q2) = psns()
    put_step("info", dict(lid=node.lid, mtu_code=node.mtu_code,
                          rc1=rc1.qp_num, rc1_psn=q1, rc2=rc2.qp_num, rc2_psn=q2,
                          ud1=ud1.qp_num, ud2=ud2.qp_num,
                          wtgt_addr=wtgt.addr, wtgt_rkey=wtgt.mr.rkey,
                          rsrc_addr=rsrc.addr, rsrc_rkey=rsrc.mr.rkey,
                          atom_addr=atom.addr, atom_rkey=atom.mr.rkey))
    peer = wait_step("info")
    mtu_code, mtu = node.path(peer)
    rc_connect(rc1, mtu_code, node.rd, peer["lid"], peer["rc1"], q1, peer["rc1_psn"])
    rc_connect(rc2, mtu_code, node.rd, peer["lid"], peer["rc2"], q2, peer["rc2_psn"])
    sched = schedule(mtu, peer["max_inline"])
    cqs = [("send", scq), ("rc receive", rcq1), ("SRQ rc receive", rcq2),
           ("ud receive", rcq3), ("SRQ ud receive", rcq4)]

    # receives: the WRITEs with immediate first, then the SENDs, in order
    wimm = [i for i, op in enumerate(sched["write"]) if op["imm"] is not None]
    ibuf = Buf(pd, "imm-recv", IMM_SLOT * len(wimm), e.IBV_ACCESS_LOCAL_WRITE)
    for k in range(len(wimm)):
        rc1.post_recv(RecvWR(wr_id=0x5000 + k, num_sge=1,
                             sg=[SGE(ibuf.addr + k * IMM_SLOT, IMM_SLOT, ibuf.mr.lkey)]))
    rbufs = {}
    for phase, post in (("send", rc1.post_recv), ("srq", srq_rc.post_recv),
                        ("ud", ud1.post_recv), ("udsrq", srq_ud.post_recv)):
        ops = sched[phase]
        rlen, _ = send_layout(ops, phase.startswith("ud"))
        b = rbufs[phase] = Buf(pd, "recv-" + phase, rlen, e.IBV_ACCESS_LOCAL_WRITE)
        for i, op in enumerate(ops):
            post(RecvWR(wr_id=0x6000 + i, num_sge=1,
                        sg=[SGE(b.addr + op["roff"], op["rlen"], b.mr.lkey)]))
    put_step("ready")
    ok(f"{len(wimm)} + {sum(len(sched[p]) for p in rbufs)} receives posted, "
       f"path MTU {mtu}, seed {SEED}")

    # RDMA WRITE: after each, the whole target mapping
    k = 0
    for i, op in enumerate(sched["write"]):
        n = op["len"]
        what = (f"RDMA WRITE{' with immediate' if op['imm'] is not None else ''} {i} "
                f"({n} bytes, target offset {op['dst']})")
        wait_step(f"w{i}")
        if op["imm"] is not None:
            check_wc(poll(rcq1, what + ": its receive"), what + ": its receive",
                     0x5000 + k, e.IBV_WC_RECV_RDMA_WITH_IMM, rc1.qp_num, n, op["imm"])
            k += 1
        no_more(cqs, what)
        wtgt.expect(op["dst"], payload("write", i, n))
        wtgt.check(what, (op["dst"], n))
        put_step(f"w{i}.ok")
    ibuf.check("the receive buffers of the WRITEs with immediate (must stay untouched)")
    ok(f"RC RDMA WRITE: {len(sched['write'])} checked ({len(wimm)} with immediate)")

    wait_step("read.done")
    rsrc.check("the RDMA READ source after the READs (must stay unchanged)")
    put_step("read.ok")

    for phase, cq, qp, title in (("send", rcq1, rc1, "RC SEND"),
                                 ("srq", rcq2, rc2, "RC SEND to a QP on an SRQ"),
                                 ("ud", rcq3, ud1, "UD SEND"),
                                 ("udsrq", rcq4, ud2, "UD SEND to a QP on an SRQ")):
        ops = sched[phase]
        b = rbufs[phase]
        ud = phase.startswith("ud")
        hdr = GRH if ud else 0
        for i, op in enumerate(ops):
            n = op["len"]
            what = (f"{title} {i} ({n} bytes{', immediate' if op['imm'] is not None else ''}"
                    f"{', inline' if op['inline'] else ''}; receive buffer of {op['rlen']} "
                    f"at MR offset {op['roff']})")
            wc = poll(cq, what, PHASE_TIMEOUT)
            if wc.status == e.IBV_WC_SUCCESS and wc.wr_id != 0x6000 + i and \
                    0x6000 <= wc.wr_id < 0x6000 + len(ops):
                fail(f"{what}: landed in receive {wc.wr_id - 0x6000}: the receives were "
                     f"not consumed in the order posted")
            check_wc(wc, what, 0x6000 + i, e.IBV_WC_RECV, qp.qp_num, hdr + n, op["imm"])
            if ud and (wc.src_qp != peer["ud"] or wc.slid != peer["lid"]):
                fail(f"{what}: source QP {wc.src_qp:#x} LID {wc.slid}, want "
                     f"{peer['ud']:#x} LID {peer['lid']}")
            data = payload(phase, i, n)
            at = b.lo + op["roff"]
            got = b.map[at + hdr:at + hdr + n]
            if got != data:
                j = next(j for j in range(n) if got[j] != data[j])
                bad = sum(1 for j in range(n) if got[j] != data[j]) if n <= 65536 else "some"
                fail(f"{what}: byte {j} of the message is {got[j]:#04x}, sent "
                     f"{data[j]:#04x} ({bad} byte(s) differ)")
            tail = slice(at + hdr + n, at + op["rlen"])
            if b.map[tail] != b.image[tail]:
                gt, wt = b.map[tail], b.image[tail]
                j = next(j for j in range(len(gt)) if gt[j] != wt[j])
                fail(f"{what}: the receive buffer beyond byte_len was written: byte "
                     f"byte_len + {j} is {gt[j]:#04x}, was {wt[j]:#04x}")
            if ud and not wc.wc_flags & e.IBV_WC_GRH and \
                    b.map[at:at + GRH] != b.image[at:at + GRH]:
                fail(f"{what}: no GRH in the completion, but the GRH space was written")
            if ud and wc.wc_flags & e.IBV_WC_GRH:
                b.image[at:at + GRH] = b.map[at:at + GRH]
            b.expect(op["roff"] + hdr, data)
        b.check(f"{title}: the receive mapping after {len(ops)} messages")
        time.sleep(0.2)
        no_more(cqs, title)
        put_step(phase + ".ok")
        ok(f"{title}: {len(ops)} messages, opcode, byte_len, immediate data and every "
           f"byte checked, receive buffers untouched beyond byte_len")

    wait_step("atom.done")
    for op in atomics():
        at = atom.lo + op["off"]
        old = int.from_bytes(atom.image[at:at + 8], "little")
        if op["cs"]:
            if (old if op["hit"] else op["cmp"]) == old:
                atom.image[at:at + 8] = op["val"].to_bytes(8, "little")
        else:
            atom.image[at:at + 8] = ((old + op["val"]) & (2 ** 64 - 1)).to_bytes(8, "little")
    for op in awrites():
        at = atom.lo + op["off"]
        atom.image[at:at + 8] = op["val"].to_bytes(8, "little")
    atom.check(f"the atomic mapping after {N_ATOM} atomics and {len(awrites())} atomic writes")
    no_more(cqs, "the atomics")
    put_step("atom.ok")
    ok(f"RC atomics: the whole atomic mapping as {N_ATOM} atomics and {len(awrites())} "
       f"atomic writes leave it")

    wait_step("done")
    time.sleep(0.5)
    no_more(cqs, "the end")
    wtgt.check("the RDMA WRITE target at the end")
    put_step("done")
    ok("no completion missing or extra")


def main():
    global ROLE, LAB, SEED, ME, PEER
    global API
    if len(sys.argv) not in (6, 7) or sys.argv[1] not in ("requester", "responder") or \
            sys.argv[6:] not in ([], ["legacy"], ["ex"]):
        sys.exit(__doc__.split("\n\n")[1])
    ROLE, LAB, ME, PEER = sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[5]
    API = sys.argv[6] if len(sys.argv) == 7 else "legacy"
    SEED = int(sys.argv[3], 0)
    log(f"{ROLE} {ME}, peer {PEER}, seed {SEED}, post API {API}")
    requester() if ROLE == "requester" else responder()


if __name__ == "__main__":
    main()
