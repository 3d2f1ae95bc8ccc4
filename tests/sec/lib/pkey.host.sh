# SPDX-License-Identifier: GPL-2.0-only
# Host half of sec/pkey-partition: every node Active, then waits for the
# guests (lib/pkey.py in both).
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file pkey.done 400
ok "pkey done"
touch "$lab/step.done"
