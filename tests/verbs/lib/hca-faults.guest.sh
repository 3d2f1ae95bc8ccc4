# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/hca-faults (host half: hca-faults.host.sh).  n2,
# n3, n4 say NODE.watching when ready for their faults; the host injects
# and says NODE.injected (n4: then NODE.injected2 after n4.step2).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up

# watch_events: ibv_asyncwatch on sfab_0 into /tmp/aw.log ($AW its pid);
# the kernel log from here on is klog's
watch_events() {
	MARK=$(dmesg | wc -l)
	stdbuf -oL ibv_asyncwatch -d sfab_0 > /tmp/aw.log 2>&1 &
	AW=$!
	sleep 1
}

klog() { dmesg | tail -n +$((MARK + 1)); }

# lost_and_back WHY: the device was lost: the async event reached a
# process, the log says WHY; then it is recovered (released, reset, taken
# again) and its port comes back Active
lost_and_back() {
	local why=$1 i t_lost t_back got
	for ((i = 0; i < 150; i++)); do
		grep -q DEVICE_FATAL /tmp/aw.log && break
		sleep 0.1
	done
	kill "$AW" 2>/dev/null
	wait "$AW" 2>/dev/null
	grep -q DEVICE_FATAL /tmp/aw.log ||
		fail "no IBV_EVENT_DEVICE_FATAL within 15 s: $(cat /tmp/aw.log)"
	ok "ibv_asyncwatch: $(grep DEVICE_FATAL /tmp/aw.log | head -n 1 | sed 's/^ *//')"
	klog | grep -q "device lost: $why" ||
		fail "the kernel log does not say 'device lost: $why': $(klog | grep sfab | tail -n 5)"
	ok "kernel log: $(klog | grep -o "device lost: $why.*" | head -n 1)"
	for ((i = 0; i < 600; i++)); do
		klog | grep -q 'recovery: the device is back' &&
			ibv_devinfo -d sfab_0 2>/dev/null | grep -q PORT_ACTIVE && break
		sleep 0.1
	done
	klog | grep -q 'recovery: the device is back' ||
		fail "not recovered in 60 s: $(klog | grep sfab | tail -n 5)"
	ibv_devinfo -d sfab_0 2>/dev/null | grep -q PORT_ACTIVE ||
		fail "recovered, but the port is not Active in 60 s: $(ibv_devinfo -d sfab_0 2>&1 | grep state)"
	got=$(create_cq 2>&1)
	[ "$got" = ok ] || fail "ibv_create_cq on the recovered sfab_0: '$got'"
	t_lost=$(klog | grep 'device lost:' | head -n 1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	t_back=$(klog | grep 'recovery: the device is back' | head -n 1 |
		sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	ok "recovered: sfab_0 registered again $(awk "BEGIN { printf \"%.1f\", $t_back - $t_lost }") s after it was lost, its port Active, a CQ made"
}

# create_cq WANT: a CQ on sfab_0 through pyverbs: "ok" or the errno's name
create_cq() {
	/usr/bin/python3 - <<'PY'
import errno
from pyverbs.device import Context
from pyverbs.cq import CQ
from pyverbs.pyverbs_error import PyverbsRDMAError
ctx = Context(name="sfab_0")
try:
    CQ(ctx, 16).close()
    print("ok")
except PyverbsRDMAError as e:
    print(errno.errorcode.get(e.error_code, e.error_code))
PY
}

case "$me" in
n2|n3)
	watch_events
	touch "$lab/$me.watching"
	wait_file "$me.injected" 120
	if [ "$me" = n2 ]; then
		lost_and_back "injected (6)"
		# a function reset through sysfs under a process that holds it
		pci=$(basename "$(readlink -f /sys/class/infiniband/sfab_0/device)")
		watch_events
		echo 1 > "/sys/bus/pci/devices/$pci/reset" ||
			fail "echo 1 > /sys/bus/pci/devices/$pci/reset failed"
		lost_and_back "function reset"
	else
		lost_and_back "BAR0 reads all ones"
	fi
	;;
n4)
	touch "$lab/$me.watching"
	wait_file "$me.injected" 120
	got=$(create_cq 2>&1)
	[ "$got" = EIO ] || fail "ibv_create_cq after aq-error: '$got', want EIO"
	got=$(create_cq 2>&1)
	[ "$got" = ok ] || fail "ibv_create_cq after the failed one: '$got', want ok"
	ok "aq-error: one ibv_create_cq failed with EIO, the next worked"
	touch "$lab/$me.step2"
	wait_file "$me.injected2" 60
	t0=$SECONDS
	got=$(create_cq 2>&1)
	[ "$got" = ok ] || fail "ibv_create_cq with its interrupt lost: '$got', want ok"
	dmesg | grep -q 'completed without an interrupt' ||
		fail "the kernel log does not say a command completed without an interrupt"
	ok "msix-lost: ibv_create_cq completed without its interrupt after $((SECONDS - t0)) s"
	# admin commands that never complete: the one waiting times out
	watch_events
	touch "$lab/$me.step3"
	wait_file "$me.injected3" 60
	got=$(create_cq 2>&1)
	[ "$got" = ETIME ] || fail "ibv_create_cq with the admin queue stalled: '$got', want ETIME"
	ok "aq-stall: ibv_create_cq failed with ETIME"
	lost_and_back "an admin command timed out"
	;;
esac
touch "$lab/$me.faults.done"
sm_end 400
