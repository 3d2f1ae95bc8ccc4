# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the fault tier (tests/fault/run-fault; host half
# fault.host.sh), on tests/configs/topologies/4node.topo with opensm in
# n1.  Every node brings its HCA up and waits for the fabric; then n2, n3
# and n4 run their tests one after the other, each reported by name
# (ltest), each asking for its own faults (fault_inject):
#   n2: fault/device-fatal, fault/flr, devlink/info, devlink/flash
#   n3: fault/mmio-dead, fault/slab-verbs, fault/slab-probe
#   n4: fault/cmd-error, fault/msix-lost, fault/cmd-timeout, devlink/health
# A device that is lost must reach a process as IBV_EVENT_DEVICE_FATAL,
# say why in the kernel log, and come back (the fw_fatal health
# reporter's recovery) with its port Active and working.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/fault/lib/fault.bash"
verbs_fabric_up

pci=$(basename "$(readlink -f /sys/class/infiniband/sfab_0/device)")
DL=pci/$pci

# --- n2 -----------------------------------------------------------------

# fault/device-fatal: the device posts a FATAL event and stops
t_device_fatal() {
	watch_events
	fault_inject fatal || tfail "fault_inject fatal failed"
	lost_and_back "injected (6)"
}

# fault/flr: a function reset through sysfs under a process holding it
t_flr() {
	watch_events
	echo 1 > "/sys/bus/pci/devices/$pci/reset" ||
		tfail "echo 1 > /sys/bus/pci/devices/$pci/reset failed"
	lost_and_back "function reset"
}

# devlink/info: what devlink dev info says is what the device says
t_devlink_info() {
	local out guid fw
	out=$(devlink dev info "$DL" 2>&1) || tfail "devlink dev info $DL: $out"
	echo "$out"
	guid=$(tr -d : < /sys/class/infiniband/sfab_0/node_guid)
	fw=$(cat /sys/class/infiniband/sfab_0/fw_ver)
	grep -q "driver sfab$" <<< "$out" || tfail "no 'driver sfab'"
	grep -q "serial_number $guid$" <<< "$out" || tfail "serial_number is not the node GUID $guid"
	grep -q "board.id SFAB-HCA-400$" <<< "$out" || tfail "no fixed board.id SFAB-HCA-400"
	[ "$(dl_version running fw)" = "$fw" ] ||
		tfail "running fw '$(dl_version running fw)', sysfs fw_ver '$fw'"
	[ "$(dl_version stored fw)" = "$fw" ] ||
		tfail "stored fw '$(dl_version stored fw)', want the image of $fw"
	ok "devlink dev info: serial $guid, board SFAB-HCA-400, fw running $fw, stored $fw"
}

# devlink/flash: bad images refused with the running device untouched; a
# good one stored, activated by devlink dev reload, fw_ver following
t_devlink_flash() {
	local fw0 out bad got
	fw0=$(cat /sys/class/infiniband/sfab_0/fw_ver)
	fw_images || tfail "cannot make the test images"
	for bad in truncated bad-crc bad-magic bad-format; do
		if out=$(devlink dev flash "$DL" file "sfab/test-$bad.fw" 2>&1); then
			tfail "devlink dev flash of the $bad image succeeded: $out"
		fi
		grep -q "image rejected" <<< "$out" ||
			tfail "the $bad image: no 'image rejected': $out"
		got=$(create_cq)
		[ "$got" = ok ] || tfail "after the $bad image: ibv_create_cq '$got'"
		[ "$(dl_version stored fw)" = "$fw0" ] ||
			tfail "after the $bad image the stored fw is '$(dl_version stored fw)'"
		ok "the $bad image refused: $(grep -o 'image rejected.*' <<< "$out" | head -n 1); sfab_0 works"
	done
	out=$(devlink dev flash "$DL" file sfab/test-new.fw 2>&1) ||
		tfail "devlink dev flash of a good image: $out"
	[ "$(dl_version stored fw)" = "$FW_NEW" ] ||
		tfail "stored fw '$(dl_version stored fw)' after flashing $FW_NEW"
	[ "$(cat /sys/class/infiniband/sfab_0/fw_ver)" = "$fw0" ] ||
		tfail "fw_ver changed before the reload"
	ok "$FW_NEW flashed: stored $(dl_version stored fw), running $(dl_version running fw)"
	reload_to "$FW_NEW" fw_activate
	# the original image back, by driver_reinit
	out=$(devlink dev flash "$DL" file sfab/test-orig.fw 2>&1) ||
		tfail "devlink dev flash of the original image: $out"
	reload_to "$fw0" driver_reinit
	fw_images_done
}

# --- n3 -----------------------------------------------------------------

# fault/mmio-dead: BAR0 reads all ones; the health poll finds it
t_mmio_dead() {
	watch_events
	fault_inject mmio-dead || tfail "fault_inject mmio-dead failed"
	lost_and_back "BAR0 reads all ones"
}

# fault/slab-verbs: every allocation and admin command of each verb
# path made to fail in turn (lib/fault_walk.py)
t_slab_verbs() {
	local base after
	fi_setup || tfail "fault injection setup failed"
	base=$(restrack_line) || tfail "rdma resource show: $base"
	/usr/bin/python3 -u "$SFAB_TOP/tests/fault/lib/fault_walk.py" --lid "$(lid_of "$me")" ||
		tfail "fault_walk.py failed"
	after=$(restrack_line)
	[ "$after" = "$base" ] || tfail "rdma resource: '$after', before the walk '$base'"
	kmemleak_scan || tfail "kmemleak"
	ok "rdma resource back to '$base'; kmemleak clean"
}

# fault/slab-probe: every allocation and admin command of probe made to
# fail in turn, through sysfs bind.  The allocations counted are those
# with sfab.ko within 8 frames of the allocator: the driver's own and
# those of the kernel functions it calls, not those deep inside ib_core's
# clients (ib_mad alone allocates a buffer per receive WR of QP0 and QP1:
# 1024 points of a second each under TCG)
t_slab_probe() {
	fi_setup 8 || tfail "fault injection setup failed"
	probe_walk "$pci" || tfail "probe walk failed"
	kmemleak_scan || tfail "kmemleak"
	ok "kmemleak clean"
}

# --- n4 -----------------------------------------------------------------

# fault/cmd-error: an admin command completes with an error
t_cmd_error() {
	local got
	fault_inject aq-error || tfail "fault_inject aq-error failed"
	got=$(create_cq)
	[ "$got" = EIO ] || tfail "ibv_create_cq after aq-error: '$got', want EIO"
	got=$(create_cq)
	[ "$got" = ok ] || tfail "ibv_create_cq after the failed one: '$got', want ok"
	ok "aq-error: one ibv_create_cq failed with EIO, the next worked"
}

# fault/msix-lost: an admin completion's interrupt is lost
t_msix_lost() {
	local got t0=$SECONDS mark
	mark=$(dmesg | wc -l)
	fault_inject msix-lost || tfail "fault_inject msix-lost failed"
	got=$(create_cq)
	[ "$got" = ok ] || tfail "ibv_create_cq with its interrupt lost: '$got', want ok"
	dmesg | tail -n +$((mark + 1)) | grep -q 'completed without an interrupt' ||
		tfail "the kernel log does not say a command completed without an interrupt"
	ok "msix-lost: ibv_create_cq completed without its interrupt after $((SECONDS - t0)) s"
}

# fault/cmd-timeout: admin commands never complete; the one waiting
# times out, the device is lost and recovered
t_cmd_timeout() {
	local got
	watch_events
	fault_inject aq-stall || tfail "fault_inject aq-stall failed"
	got=$(create_cq)
	[ "$got" = ETIME ] || tfail "ibv_create_cq with the admin queue stalled: '$got', want ETIME"
	ok "aq-stall: ibv_create_cq failed with ETIME"
	lost_and_back "an admin command timed out"
}

# devlink/health: the fw_fatal reporter after fault/cmd-timeout's loss;
# a second loss within its grace period waits for devlink health recover
t_devlink_health() {
	local out
	out=$(devlink health show "$DL" reporter fw_fatal 2>&1) || tfail "devlink health show: $out"
	echo "$out"
	health_counts 1 1 || tfail "after one recovered loss: $out"
	out=$(devlink health dump show "$DL" reporter fw_fatal 2>&1) || tfail "devlink health dump show: $out"
	echo "dump: $out"
	grep -q "reason: an admin command timed out" <<< "$out" || tfail "the dump does not say why"
	out=$(devlink health diagnose "$DL" reporter fw_fatal 2>&1) || tfail "devlink health diagnose: $out"
	echo "diagnose: $out"
	grep -q "state: running" <<< "$out" || tfail "diagnose does not say running"
	ok "health show: error 1 recover 1; dump: why; diagnose: running"

	watch_events
	fault_inject fatal || tfail "fault_inject fatal failed"
	wait_log "recovery: not now" 30 || tfail "a second loss within the grace period was recovered or not reported"
	out=$(devlink health diagnose "$DL" reporter fw_fatal 2>&1)
	grep -q "state: lost" <<< "$out" || tfail "diagnose after the second loss: $out"
	health_counts 2 1 || tfail "after the second loss: $(devlink health show "$DL" reporter fw_fatal)"
	ok "a second loss within the grace period: reported (error 2), not recovered, diagnose says lost"
	out=$(devlink health recover "$DL" reporter fw_fatal 2>&1) || tfail "devlink health recover: $out"
	lost_and_back "injected (6)"
	health_counts 2 2 || tfail "after devlink health recover: $(devlink health show "$DL" reporter fw_fatal)"
	ok "devlink health recover: sfab_0 back; error 2 recover 2"
}

case "$me" in
n2)
	devlink health set "$DL" reporter fw_fatal grace_period 0
	ltest fault device-fatal t_device_fatal
	ltest fault flr t_flr
	ltest devlink info t_devlink_info
	ltest devlink flash t_devlink_flash
	;;
n3)
	devlink health set "$DL" reporter fw_fatal grace_period 0
	ltest fault mmio-dead t_mmio_dead
	ltest fault slab-verbs t_slab_verbs
	ltest fault slab-probe t_slab_probe
	;;
n4)
	ltest fault cmd-error t_cmd_error
	ltest fault msix-lost t_msix_lost
	ltest fault cmd-timeout t_cmd_timeout
	ltest devlink health t_devlink_health
	;;
esac
touch "$lab/$me.faults.done"
sm_end 1500
