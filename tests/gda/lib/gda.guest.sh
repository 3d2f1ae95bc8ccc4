# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the gda tier (tests/gda/run-gda; host half gda.host.sh),
# on tests/configs/topologies/gda.topo: every node brings up its HCA and
# its accelerator, opensm makes the fabric Active, then the tests run one
# after the other, each reporting by name (lib/gda.bash gtest).  The pair
# tests run between the first node and the last: the first runs opensm;
# the last, whose CPU has nothing else to ring doorbells for, is the
# accelerator that posts in gda/accel-rdma-write-e2e.  The nodes between
# join for gda/accel-alltoall, which every node runs.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/gda/lib/gda.bash"
sm_node_up
gda_accel_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180

first=${SFAB_NODES%% *}
last=${SFAB_NODES##* }
gtest accel-driver "$SFAB_TOP/tests/gda/lib/accel-driver.sh"
gtest db-mmap "$GDA" db-mmap
gtest db-dmabuf-export "$GDA" db-dmabuf-export
if [ "$me" = "$first" ] || [ "$me" = "$last" ]; then
	role=target
	[ "$me" = "$first" ] && role=initiator
	gtest dmabuf-mr env SFAB_GDA_ROLE=$role "$GDA" dmabuf-mr
	gtest dmabuf-mr-move env SFAB_GDA_ROLE=$role "$GDA" dmabuf-mr-move
	if [ "$me" = "$first" ]; then
		gtest peermem-client env SFAB_GDA_ROLE=initiator "$GDA" peermem-client
	else
		gtest peermem-client sh -c "'$GDA' peermem-client &&
			insmod '$SFAB_MODDIR/sfab_accel_peermem.ko' &&
			SFAB_PEERMEM_LOADED=1 '$GDA' peermem-client"
	fi
	role=target
	[ "$me" = "$last" ] && role=initiator
	gtest accel-rdma-write-e2e env SFAB_GDA_ROLE=$role "$GDA" accel-rdma-write-e2e
	[ "$me" = "$last" ] && gtest zero-cpu-doorbells "$GDA" zero-cpu-doorbells
fi
gtest accel-alltoall env SFAB_GDA_NODES="$SFAB_NODES" SFAB_GDA_ME="$me" \
	SFAB_GDA_SM="$first" "$GDA" accel-alltoall
# last: it unbinds this node's HCA
[ "$me" = "$last" ] && gtest revoke-on-unbind "$GDA" revoke-on-unbind

touch "$lab/$me.gda.done"
sm_end 900
