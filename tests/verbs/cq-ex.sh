#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/cq-ex: on the 2-node fabric with opensm Active, in n1, a receive
# CQ from ibv_create_cq_ex read with ibv_start_poll/ibv_next_poll/
# ibv_end_poll and every ibv_wc_read_* (pyverbs, libsfab): UD datagrams
# with SL 2, with and without an immediate (byte_len, qp_num, src_qp,
# slid, sl, dlid_path_bits, wc_flags, imm_data); RC SEND and RDMA WRITE
# with immediate; a batch of 12 in one pass, in order, then ENOENT; wc_flags
# the device cannot fill refused with EOPNOTSUPP (lib/cq_ex.py).  Halves:
# lib/cq-ex.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab cq-ex 2node.topo 400
grep -q '^ok: cq-ex done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
