#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/data-integrity: end-to-end data checks across the switches, where
# ibv_*_pingpong check almost nothing.  Two labs, one after the other: the
# 2-node fabric (n1 to n2 through one switch) and the leaf/spine (n1 on
# leaf 1 to n3 on leaf 2: leaf, spine, leaf; ibtracert must show the
# switch count), opensm Active.  In each, lib/data_integrity.py (pyverbs
# on libsfab) in the two nodes: RC RDMA WRITEs (some with immediate),
# READs and SENDs (some with immediate, some inline) of random bytes, 1 B
# to 1 MiB, always 1, 4095, 4096, 4097, the active MTU - 1, MTU, MTU + 1
# and 1 MiB, at random source and target offsets (also flush with the MR's
# ends; some WRITEs from two SGEs), RC atomics (fetch-and-add,
# compare-and-swap hits and misses, each original value checked), RC PSNs starting just below the 24-bit wrap; the same SENDs to
# an RC QP on an SRQ; UD SENDs of 1 B to the path MTU to a UD QP and to
# one on an SRQ.  Every registered region lies inside a larger mapping
# with random guard bytes; after each WRITE and READ the sha256 of the
# whole target mapping must equal that of the image the checker computes
# from the seed on its own; a receiver checks opcode, byte_len (40 + the
# length for UD), imm_data and every byte of each message, and that its
# receive buffer beyond byte_len (and the GRH space without a GRH) is
# untouched.  Every completion IBV_WC_SUCCESS with the expected wr_id,
# opcode and QP; none missing (each wait has a deadline: a hang fails, and
# says what was outstanding), none extra.  The seed is printed;
# SFAB_DI_SEED=N repeats a run.  Halves: lib/data-integrity.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
seed=${SFAB_DI_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export SFAB_DI_SEED=$seed
echo "# seed $seed (SFAB_DI_SEED=$seed make check TESTS=verbs/data-integrity repeats it)"

# di_lab TOPO REQUESTER RESPONDER HOPS: one lab between the two nodes
# (HOPS switches apart); fails the test, with what failed and the seed,
# unless both ends finished
di_lab() {
	local why msg rc=0
	why=$(mktemp)
	(
		export SFAB_DI_PAIR="$2 $3" SFAB_DI_HOPS=$4 SFAB_DI_WHY=$why
		sfab_verbs_lab data-integrity "$1" 900
		grep -q '^ok: data-integrity done' "$OUT/host.log" || {
			sfab_lab_report "$OUT"
			sfab_fail "the host half did not finish"
		}
	) || rc=$?
	msg=$(head -c 1000 "$why")
	rm -f "$why"
	msg=${msg% (seed $seed)}
	[ $rc -eq 0 ] || sfab_fail "$1, $2 -> $3: ${msg:-the lab failed}" \
		"(seed $seed: SFAB_DI_SEED=$seed repeats it)"
}

# SFAB_DI_API=ex: the requester posts and polls through the ibv_wr_* and
# ibv_start_poll APIs (verbs/qp-ex); SFAB_DI_LABS: which of the two labs
export SFAB_DI_API=${SFAB_DI_API:-legacy}
for l in ${SFAB_DI_LABS:-2node leafspine}; do
	case $l in
	2node) di_lab 2node.topo n1 n2 1 ;;
	leafspine) di_lab leafspine.topo n1 n3 3 ;;
	*) sfab_fail "SFAB_DI_LABS: no lab '$l' (2node, leafspine)" ;;
	esac
done
exit 0
