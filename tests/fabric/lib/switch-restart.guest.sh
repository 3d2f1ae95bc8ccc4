# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/switch-restart (host half: switch-restart.host.sh).
# The fabric comes up Active under opensm (sweep interval 5 s); the host
# kills sfab-switchd: every port goes Down; the host starts it again: the
# cables reconnect, opensm re-sweeps and every port is Active with a LID
# again, opensm still running; no WARN/BUG/Oops.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
wait_file step.killed 300
sm_wait_down 30
wait_file step.restarted 120
t0=$(now)
sm_wait_active 180 reactive
ok "Active again $(since "$t0") s after the switch restarted"
if [ "$me" = "$sm" ]; then
	kill -0 "$SM_PID" 2>/dev/null || fail "opensm exited: $(tail -n 5 /tmp/opensm.out)"
	ok "opensm still running; $(grep -c 'SUBNET UP' /var/log/opensm.log) SUBNET UP in its log"
fi
sm_end
