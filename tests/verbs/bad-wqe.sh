#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/bad-wqe: on the 2-node fabric with opensm Active, in n1, a process
# writes garbage into its own send ring and doorbell page by hand
# (lib/bad_wqe.c, built here against the checkout's libsfab header): an
# unknown opcode, SGEs with another process's lkey and a WRITE to its
# rkey, an SGE past its own MR, a doorbell index a ring ahead, 63 random
# WQEs.  Each ends in error completions with the QP in Error (the index
# case with IBV_EVENT_QP_FATAL), nothing hangs; more completions than its
# CQ holds give IBV_EVENT_CQ_ERR; the other process's MR
# (every remote right granted) is intact, a correct RDMA WRITE afterwards
# works, and the kernel log stays clean.  Halves: lib/bad-wqe.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
make -s -C "$SFAB_TOP" rdma-core > /dev/null || sfab_fail "make rdma-core failed"
. "${SFAB_BUILD:-$SFAB_TOP/build}/guest.env"
mkdir -p "$SFAB_TOP/build/verbs"
src=$(dirname "$RDMA")/src
out=$(gcc -std=gnu11 -O1 -Wall -Wno-unused-parameter -I"$RDMA/include" -I"$src" \
	-I"$SFAB_TOP/include" -I"$SFAB_TOP/tools/rdma-core/providers/sfab" \
	-o "$SFAB_TOP/build/verbs/bad_wqe" "$SFAB_TOP/tests/verbs/lib/bad_wqe.c" \
	-L"$RDMA/lib" -libverbs 2>&1) || { printf '%s\n' "$out"; sfab_fail "building bad_wqe failed"; }
sfab_verbs_lab bad-wqe 2node.topo 400
grep -q '^ok: bad-wqe done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
