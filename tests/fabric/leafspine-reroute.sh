#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/leafspine-reroute: on the leaf/spine fabric with opensm Active,
# n1 pings n3 (leaf 1, a spine, leaf 2); the host takes down the port of
# the spine on that path that leads to leaf 2 (sfab-switchctl port N down:
# the link drops at both ends).  The spine's SwitchInfo:PortStateChange
# makes opensm sweep and re-route: ibtracert then goes through the other
# spine, and 10 of 10 pings are answered again.  The port comes back up
# and opensm brings it Active again.  Halves:
# lib/leafspine-reroute.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab leafspine-reroute leafspine.topo 400
grep -q '^ok: reroute done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
