#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/kernel-rc: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, the KUnit suite sfab_kverbs in n1: the
# kernel verbs of sfab.ko as a ULP uses them, through ib_core only.  Two
# RC QPs connected through the port's own LID; ib_alloc_mr +
# ib_map_mr_sg + IB_WR_REG_MR (new key variant); RDMA WRITE and READ of
# 8 KiB checked byte for byte; fetch-and-add and compare-and-swap; SEND
# with immediate data; rounds of unsignaled WRITEs ending in a signaled
# one (one completion each); IB_WR_LOCAL_INV, after which an unsignaled
# WRITE with the key completes with IB_WC_REM_ACCESS_ERR and the next
# with IB_WC_WR_FLUSH_ERR.  Halves: lib/kernel-rc.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab kernel-rc 2node.topo 500
grep -q '^ok: kernel-rc done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
