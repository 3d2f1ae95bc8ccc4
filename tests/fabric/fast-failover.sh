#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/fast-failover: on the leaf/spine fabric with fast failover on
# (leafspine-failover.topo), opensm brings every port Active and is then
# stopped, so that nothing but the switches can re-route.  n1 pings n3
# without pause (leaf 1, a spine, leaf 2); the host takes down leaf 1's
# port towards that spine.  Leaf 1 moves n3's LID to its other up-link;
# the spine, with no other way down to leaf 1, tells leaf 2, which moves
# n1's LID off it.  At most 2 pings are lost and 10 in a row are
# answered again within 30 s; the switches' failover counters say who
# moved what.  Halves: lib/fast-failover.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab fast-failover "${SFAB_FAILOVER_TOPO:-leafspine-failover.topo}" 400
grep -q '^ok: fast-failover done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
