#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fault/slab-verbs: every failure point of each verb path of sfab, one at
a time (pyverbs on sfab_0; root; fault.bash fi_setup done).

usage: fault_walk.py --lid LID

For each verb (open device: alloc_ucontext and the doorbell mmaps; alloc
PD; create CQ, SRQ, RC and UD QPs, AH, MW; reg MR; modify QP
RESET->INIT->RTR->RTS; resize CQ; modify SRQ; and the destroy of each),
two walks, N = 1, 2, ... until N passes the last point:
  allocations: the Nth allocation made with sfab.ko on the stack fails
    (/proc/thread-self/fail-nth with the stacktrace filter);
  admin commands (the create and modify verbs): the Nth sfab_com_*
    command fails (fail_function; not MAD_IFC, QUERY_PORT or QUERY_STATS,
    which the SM and the port work send too, nor the destroys: a failed
    destroy stops the device, fault/cmd-timeout's path).
Each time the verb must fail with an error (or live with the failure, as
an optional allocation allows) and not crash, and the same verb then
works.  Prints a line per walk; exits 1 with "FAIL: ..." on the first
failure.  The caller compares `rdma resource` and kmemleak before and
after.
"""
import argparse
import errno
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

FI = "/sys/kernel/debug"
NTH = "/proc/thread-self/fail-nth"
DEV = "sfab_0"
# the commands the verbs send that nothing else on the node sends
VERB_CMDS = ["sfab_com_create_cq", "sfab_com_resize_cq", "sfab_com_create_qp",
             "sfab_com_modify_qp", "sfab_com_query_qp", "sfab_com_set_qp_dbrec",
             "sfab_com_create_mr", "sfab_com_update_mr", "sfab_com_create_srq",
             "sfab_com_modify_srq", "sfab_com_resize_srq"]


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def put(path, text):
    with open(path, "w") as f:
        f.write(text)


def get(path):
    with open(path) as f:
        return f.read().strip()


class Alloc:
    """the Nth allocation of this thread with sfab on the stack fails"""
    name = "allocations"

    def setup(self):
        pass

    def arm(self, n):
        put(NTH, str(n))

    def fired(self):
        left = int(get(NTH))
        put(NTH, "0")
        return left == 0

    def done(self):
        pass


class Cmd:
    """the Nth admin command of VERB_CMDS fails (fail_function)"""
    name = "admin commands"

    def setup(self):
        put(f"{FI}/fail_function/inject", "")
        for f in VERB_CMDS:
            put(f"{FI}/fail_function/inject", f)
        put(f"{FI}/fail_function/times", "0")
        put(f"{FI}/fail_function/interval", "1")
        put(f"{FI}/fail_function/verbose", "0")
        put(f"{FI}/fail_function/probability", "100")

    def arm(self, n):
        put(f"{FI}/fail_function/space", str(n))
        put(f"{FI}/fail_function/times", "1")

    def fired(self):
        left = int(get(f"{FI}/fail_function/times"))
        put(f"{FI}/fail_function/times", "0")
        return left == 0

    def done(self):
        put(f"{FI}/fail_function/probability", "0")
        put(f"{FI}/fail_function/inject", "")


class Verbs:
    """the objects the verbs under test need, made with nothing failing"""

    def __init__(self, lid):
        self.lid = lid
        self.ctx = Context(name=DEV)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.has_mw = self.ctx.query_device().max_mw > 0

    def close(self):
        for o in (self.cq, self.pd, self.ctx):
            o.close()

    def qp(self, qpt=e.IBV_QPT_RC, srq=None):
        cap = QPCap(max_send_wr=16, max_recv_wr=0 if srq else 16, max_send_sge=1,
                    max_recv_sge=1)
        return QP(self.pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, cap=cap,
                                      srq=srq))

    def srq(self):
        return SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=1)))

    def to_rts(self, qp):
        """RESET -> INIT -> RTR -> RTS, connected to itself"""
        a = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
        a.pkey_index = 0
        a.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                  e.IBV_QP_ACCESS_FLAGS)
        a = QPAttr(qp_state=e.IBV_QPS_RTR, path_mtu=e.IBV_MTU_1024)
        a.dest_qp_num = qp.qp_num
        a.rq_psn = 0
        a.max_dest_rd_atomic = 1
        a.min_rnr_timer = 12
        a.ah_attr = AHAttr(dlid=self.lid, port_num=1)
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                  e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
                  e.IBV_QP_MIN_RNR_TIMER)
        a = QPAttr(qp_state=e.IBV_QPS_RTS)
        a.sq_psn = 0
        a.timeout = 14
        a.retry_cnt = 7
        a.rnr_retry = 7
        a.max_rd_atomic = 1
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
                  e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC)


def cases(v):
    """(name, prepare, verb): prepare() makes what the verb needs (nothing
    failing), verb(p) is the one that fails; each returns what must be
    closed afterwards, in order"""
    mr_access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | \
        e.IBV_ACCESS_REMOTE_READ
    c = [
        ("open device", lambda: [], lambda p: [Context(name=DEV)]),
        ("alloc PD", lambda: [], lambda p: [PD(v.ctx)]),
        ("create CQ", lambda: [], lambda p: [CQ(v.ctx, 256)]),
        ("create SRQ", lambda: [], lambda p: [v.srq()]),
        ("create RC QP", lambda: [], lambda p: [v.qp()]),
        ("create UD QP", lambda: [], lambda p: [v.qp(e.IBV_QPT_UD)]),
        ("create RC QP on an SRQ", lambda: [v.srq()], lambda p: [v.qp(srq=p[0])]),
        ("reg MR", lambda: [], lambda p: [MR(v.pd, 65536, mr_access)]),
        ("create AH", lambda: [],
         lambda p: [AH(v.pd, attr=AHAttr(dlid=v.lid, port_num=1))]),
        ("modify QP to RTS", lambda: [v.qp()], lambda p: (v.to_rts(p[0]), [])[1]),
        ("resize CQ", lambda: [CQ(v.ctx, 16)], lambda p: (p[0].resize(512), [])[1]),
        ("modify SRQ", lambda: [v.srq()],
         lambda p: (p[0].modify(SrqAttr(srq_limit=8), e.IBV_SRQ_LIMIT), [])[1]),
        # the destroys: the object made before, destroyed under the fault
        ("destroy CQ", lambda: [CQ(v.ctx, 16)], lambda p: (p[0].close(), [])[1]),
        ("destroy QP", lambda: [v.qp()], lambda p: (p[0].close(), [])[1]),
        ("destroy SRQ", lambda: [v.srq()], lambda p: (p[0].close(), [])[1]),
        ("dereg MR", lambda: [MR(v.pd, 4096, mr_access)], lambda p: (p[0].close(), [])[1]),
        ("dealloc PD", lambda: [PD(v.ctx)], lambda p: (p[0].close(), [])[1]),
        ("close device", lambda: [Context(name=DEV)], lambda p: (p[0].close(), [])[1]),
    ]
    if v.has_mw:
        c.insert(9, ("alloc MW", lambda: [], lambda p: [MW(v.pd, e.IBV_MW_TYPE_1)]))
    return c


def close_all(objs):
    for o in reversed(objs):
        o.close()


def walk(mode, name, prepare, verb, destroy):
    """N = 1, 2, ...: the Nth point fails; until the verb passes them all"""
    t0 = time.monotonic()
    sites = failed = lived = 0
    for n in range(1, 10000):
        p = prepare()
        err = None
        got = []
        mode.arm(n)
        try:
            got = verb(p)
        except (PyverbsRDMAError, PyverbsError) as ex:
            err = ex
        fired = mode.fired()
        if not fired:
            if err is not None:
                fail(f"{name}: {mode.name}: failed with nothing injected: {err}")
            close_all(got)
            close_all(p)
            break
        sites += 1
        if err is None:
            lived += 1
        else:
            failed += 1
            code = getattr(err, "error_code", None)
            if code is not None and code <= 0 and not destroy:
                fail(f"{name}: {mode.name} {n}: an error without an errno: {err}")
        # a destroy that failed leaves its object: it goes now
        close_all(got)
        close_all(p)
        # the same verb works again
        p = prepare()
        try:
            got = verb(p)
        except (PyverbsRDMAError, PyverbsError) as ex:
            fail(f"{name}: after {mode.name} point {n} failed, the verb fails again: {ex}")
        close_all(got)
        close_all(p)
    else:
        fail(f"{name}: {mode.name}: no end after 10000 points")
    print(f"ok: {name}: {mode.name}: {sites} failure points, {failed} failed cleanly, "
          f"{lived} lived with it ({time.monotonic() - t0:.1f} s)", flush=True)
    return sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lid", type=int, required=True)
    a = ap.parse_args()
    v = Verbs(a.lid)
    total = 0
    for mode in (Alloc(), Cmd()):
        mode.setup()
        try:
            for name, prepare, verb in cases(v):
                destroy = name.startswith(("destroy", "dereg", "dealloc", "close"))
                if isinstance(mode, Cmd) and destroy:
                    continue
                total += walk(mode, name, prepare, verb, destroy)
        finally:
            mode.done()
    v.close()
    if total == 0:
        fail("no failure point was reached: is fault injection working?")
    print(f"ok: {total} failure points in all", flush=True)


if __name__ == "__main__":
    main()
