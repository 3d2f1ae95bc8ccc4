#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/perftest-smoke: on two guests cabled to one switch with opensm
# Active (tests/configs/topologies/bench.topo; its virtio-net link only
# carries perftest's TCP connection setup), each perftest tool runs
# briefly over sfab_0 between n1 (client) and n2 (server): ib_send_lat,
# ib_send_bw, ib_write_lat, ib_write_bw, ib_read_lat, ib_read_bw,
# ib_atomic_lat, ib_atomic_bw.  Each must exit 0 on both ends and print
# its result line.  Halves: lib/perftest-smoke.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab perftest-smoke bench.topo 900
grep -q '^ok: perftest-smoke done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
