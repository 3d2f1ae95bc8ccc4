#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/link-pull: on the 2-node fabric with opensm Active, a long
# ibv_rc_pingpong runs between n1 (client) and n2; the host takes n2's
# switch port down in the middle of it (sfab-switchctl).  Nothing hangs
# silently: within 60 s the end that had a send outstanding (the client's
# ping or the server's pong) ends with a transport retry counter exceeded
# completion (IBV_WC_RETRY_EXC_ERR, 12); a client that exits 0 fails.  On
# that end's HCA `rdma statistic` shows it: local_ack_timeout_err,
# retransmits and retrans_pkts grew by at least the QP's retry_cnt (7),
# req_transport_retries_exceeded by exactly 1.  The port comes back up,
# opensm brings it Active, and a new short pingpong works.  Halves:
# lib/link-pull.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab link-pull 2node.topo 600
grep -q '^ok: link-pull done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
