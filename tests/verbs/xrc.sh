#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/xrc: XRC across the switch of the 2-node fabric with opensm Active
# (lib/xrc.c, plain libibverbs on libsfab and sfab.ko, built here).  In
# n1 two processes share one XRC domain through a file (ibv_open_xrcd;
# O_EXCL of the open domain refused), each with an XRC SRQ of its own PD;
# one creates the XRC receive QP, the other opens it (ibv_open_qp) and
# follows its state.  In n2 an XRC send QP sends 24 messages of 1 B to
# 64 KiB, alternately to the two SRQs, with ibv_post_send and with
# ibv_wr_* (ibv_wr_set_xrc_srqn), some with immediate data: each lands in
# the process its SRQ belongs to, in order, byte for byte.  RDMA WRITE,
# FETCH_ADD and READ through either SRQ reach that process's memory; a
# WRITE through one SRQ with the other process's rkey (another PD) is
# IBV_WC_REM_ACCESS_ERR and leaves the receive QP in Error for both
# holders.  A process killed holding a domain, an XRC SRQ and both kinds
# of XRC QP leaves rdma resource as it was.  Halves: lib/xrc.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
make -s -C "$SFAB_TOP" rdma-core > /dev/null || sfab_fail "make rdma-core failed"
. "${SFAB_BUILD:-$SFAB_TOP/build}/guest.env"
mkdir -p "$SFAB_TOP/build/verbs"
out=$(gcc -std=gnu11 -O1 -Wall -Wextra -Wno-unused-parameter -Werror \
	-I"$RDMA/include" -o "$SFAB_TOP/build/verbs/xrc" \
	"$SFAB_TOP/tests/verbs/lib/xrc.c" -L"$RDMA/lib" -libverbs 2>&1) ||
	{ printf '%s\n' "$out"; sfab_fail "building xrc failed"; }
sfab_verbs_lab xrc 2node.topo 400
grep -q '^ok: xrc done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
