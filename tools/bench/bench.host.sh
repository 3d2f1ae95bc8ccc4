# SPDX-License-Identifier: GPL-2.0-only
# Host part of the benchmark (tools/bench/sfab-vs-rxe.sh): wait for the
# guests' runs, then let them end.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_file bench.done 3400
ok "bench done"
touch "$lab/step.done"
