# SPDX-License-Identifier: GPL-2.0-only
"""RC QPs of one process connected through the port's own LID (pyverbs):
the path and transport attributes the one-process verbs tests share
(remote_access.py, resize_rereg.py, cq_ex.py)."""
import pyverbs.enums as e
from pyverbs.addr import AHAttr
from pyverbs.qp import QPAttr

REMOTE = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


def rts(qp, peer, lid, access=REMOTE):
    """@qp to RTS, connected to @peer through @lid: MTU 1024, PSNs 0, one
    READ/atomic each way, timeout 14, seven retries and RNR retries"""
    attr = QPAttr(port_num=1, path_mtu=e.IBV_MTU_1024)
    attr.qp_access_flags = access
    attr.dest_qp_num = peer.qp_num
    attr.rq_psn = 0
    attr.sq_psn = 0
    attr.max_dest_rd_atomic = 1
    attr.max_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = AHAttr(dlid=lid, port_num=1)
    qp.to_rts(attr)


def reset_rts(qp, peer, lid, access=REMOTE):
    """@qp (in Error, say) back through RESET to RTS, as rts() connects it"""
    qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
    rts(qp, peer, lid, access)
