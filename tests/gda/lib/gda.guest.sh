# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the gda tier (tests/gda/run-gda; host half gda.host.sh),
# on tests/configs/topologies/gda.topo: every node brings up its HCA and
# its accelerator, opensm makes the fabric Active, then the tests run one
# after the other, each reporting by name (lib/gda.bash gtest).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/gda/lib/gda.bash"
sm_node_up
gda_accel_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180

gtest accel-driver "$SFAB_TOP/tests/gda/lib/accel-driver.sh"
gtest db-mmap "$GDA" db-mmap
# the first node of the topology initiates, the second is the target
role=target
[ "$me" = "${SFAB_NODES%% *}" ] && role=initiator
gtest dmabuf-mr env SFAB_GDA_ROLE=$role "$GDA" dmabuf-mr

touch "$lab/$me.gda.done"
sm_end 900
