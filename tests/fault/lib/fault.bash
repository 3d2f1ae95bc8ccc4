# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/fault/lib/fault.guest.sh after sm.guest.bash: the
# pieces its tests share.  Every test runs in its own subshell (ltest):
# tfail ends that test only.

tfail() {
	echo "FAIL: $me: $*"
	exit 1
}

# watch_events: ibv_asyncwatch on sfab_0 into /tmp/aw.log ($AW its pid),
# once it has the device open; the kernel log from here on is klog's
watch_events() {
	local i
	MARK=$(dmesg | wc -l)
	stdbuf -oL ibv_asyncwatch -d sfab_0 > /tmp/aw.log 2>&1 &
	AW=$!
	for ((i = 0; i < 300; i++)); do
		grep -q "async event FD" /tmp/aw.log && return 0
		kill -0 "$AW" 2>/dev/null || break
		sleep 0.1
	done
	tfail "ibv_asyncwatch did not open sfab_0: $(cat /tmp/aw.log)"
}

klog() { dmesg | tail -n +$((MARK + 1)); }

# wait_log TEXT SECONDS: TEXT in the kernel log since watch_events
wait_log() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		klog | grep -q "$1" && return 0
		sleep 0.2
	done
	klog | grep -q "$1"
}

# create_cq: a CQ on sfab_0 through pyverbs: "ok" or the errno's name
create_cq() {
	/usr/bin/python3 - <<'PY' 2>&1
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

# port_active SECONDS: sfab_0 there with its port Active
port_active() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		ibv_devinfo -d sfab_0 2>/dev/null | grep -q PORT_ACTIVE && return 0
		sleep 0.2
	done
	ibv_devinfo -d sfab_0 2>/dev/null | grep -q PORT_ACTIVE
}

# aw_fatal: ibv_asyncwatch (watch_events) printed DEVICE_FATAL within
# 15 s; it is stopped either way (it prints events until killed)
aw_fatal() {
	local i
	for ((i = 0; i < 150; i++)); do
		grep -q DEVICE_FATAL /tmp/aw.log && break
		sleep 0.1
	done
	kill "$AW" 2>/dev/null
	wait "$AW" 2>/dev/null
	grep -q DEVICE_FATAL /tmp/aw.log
}

# lost_and_back WHY: the device was lost: the async event reached a
# process, the log says WHY; then it is recovered (released, reset, taken
# again) and its port comes back Active
lost_and_back() {
	local why=$1 i t_lost t_back got
	aw_fatal || tfail "no IBV_EVENT_DEVICE_FATAL within 15 s: $(cat /tmp/aw.log)"
	ok "ibv_asyncwatch: $(grep DEVICE_FATAL /tmp/aw.log | head -n 1 | sed 's/^ *//')"
	klog | grep -q "device lost: $why" ||
		tfail "the kernel log does not say 'device lost: $why': $(klog | grep sfab | tail -n 5)"
	ok "kernel log: $(klog | grep -o "device lost: $why.*" | head -n 1)"
	wait_log 'recovery: the device is back' 60 ||
		tfail "not recovered in 60 s: $(klog | grep sfab | tail -n 5)"
	port_active 60 ||
		tfail "recovered, but the port is not Active in 60 s: $(ibv_devinfo -d sfab_0 2>&1 | grep state)"
	got=$(create_cq)
	[ "$got" = ok ] || tfail "ibv_create_cq on the recovered sfab_0: '$got'"
	t_lost=$(klog | grep 'device lost:' | head -n 1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	t_back=$(klog | grep 'recovery: the device is back' | tail -n 1 |
		sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	ok "recovered: sfab_0 registered again $(awk "BEGIN { printf \"%.1f\", $t_back - $t_lost }") s after it was lost, its port Active, a CQ made"
}

# --- devlink ------------------------------------------------------------

# dl_version running|stored|fixed NAME: a version devlink dev info shows
dl_version() {
	devlink dev info "$DL" 2>/dev/null |
		awk -v k="$1:" -v n="$2" '$1 == k { s = 1; next } /:$/ { s = 0 } s && $1 == n { print $2; exit }'
}

# health_counts ERRORS RECOVERS: what devlink health show says of fw_fatal
health_counts() {
	devlink health show "$DL" reporter fw_fatal 2>/dev/null |
		grep -q "error $1 recover $2 "
}

# fw_images: the images devlink/flash flashes, in a firmware directory of
# its own that the firmware loader searches instead of the build's
# (fw_images_done puts the build's back): the original, one with another
# version (FW_NEW), and bad ones
FW_NEW=1.99.0
fw_images() {
	local d=/tmp/fwtest/sfab fwpack
	FW_PATH0=$(cat /sys/module/firmware_class/parameters/path)
	fwpack=$(dirname "$SFAB_MODDIR")/firmware/sfab-fwpack
	mkdir -p "$d" || return 1
	cp "$FW_PATH0/sfab/sfab-hca.fw" "$d/sfab-hca.fw" || return 1
	cp "$d/sfab-hca.fw" "$d/test-orig.fw"
	sed "s/^fw_version\t= .*/fw_version\t= $FW_NEW/" "$SFAB_TOP/firmware/sfab-hca.fwconf" > /tmp/fwtest/new.fwconf
	grep -q "^fw_version.*= $FW_NEW$" /tmp/fwtest/new.fwconf || { echo "no fw_version line to change"; return 1; }
	"$fwpack" -o "$d/test-new.fw" /tmp/fwtest/new.fwconf || return 1
	head -c 100 "$d/sfab-hca.fw" > "$d/test-truncated.fw"
	# a payload byte flipped: the CRC no longer matches
	cp "$d/sfab-hca.fw" "$d/test-bad-crc.fw"
	printf '\377' | dd of="$d/test-bad-crc.fw" bs=1 seek=$(($(stat -c %s "$d/sfab-hca.fw") - 1)) conv=notrunc status=none
	cp "$d/sfab-hca.fw" "$d/test-bad-magic.fw"
	printf 'XXXX' | dd of="$d/test-bad-magic.fw" bs=1 seek=0 conv=notrunc status=none
	cp "$d/sfab-hca.fw" "$d/test-bad-format.fw"
	printf '\377\377' | dd of="$d/test-bad-format.fw" bs=1 seek=4 conv=notrunc status=none
	echo -n /tmp/fwtest > /sys/module/firmware_class/parameters/path
}

fw_images_done() {
	echo -n "$FW_PATH0" > /sys/module/firmware_class/parameters/path
}

# reload_to VERSION ACTION: devlink dev reload with ACTION brings sfab_0
# back running firmware VERSION, its port Active, working
reload_to() {
	local out t0=$SECONDS got
	out=$(devlink dev reload "$DL" action "$2" 2>&1) ||
		tfail "devlink dev reload $DL action $2: $out"
	grep -q "fw_activate" <<< "$out" ||
		tfail "devlink dev reload action $2 does not say fw_activate was performed: $out"
	[ "$(cat /sys/class/infiniband/sfab_0/fw_ver 2>/dev/null)" = "$1" ] ||
		tfail "after the reload fw_ver is '$(cat /sys/class/infiniband/sfab_0/fw_ver 2>&1)', want $1"
	[ "$(dl_version running fw)" = "$1" ] ||
		tfail "after the reload devlink says running '$(dl_version running fw)', want $1"
	port_active 60 || tfail "after the reload the port is not Active in 60 s"
	got=$(create_cq)
	[ "$got" = ok ] || tfail "ibv_create_cq after the reload: '$got'"
	ok "devlink dev reload action $2: $(tr '\n' ' ' <<< "$out"); fw_ver $1, port Active after $((SECONDS - t0)) s, a CQ made"
}

# --- fault injection ------------------------------------------------------

FI=/sys/kernel/debug

# restrack_line: sfab_0's line of `rdma resource show`
restrack_line() {
	local out
	out=$(rdma resource show 2>&1) || { echo "$out"; return 1; }
	grep -m 1 ' sfab_0: ' <<< "$out" || { echo "no sfab_0 in: $out"; return 1; }
}

# fi_setup [DEPTH]: failslab and fail_page_alloc count only allocations
# with sfab.ko in the DEPTH (32) innermost frames of the stack (the
# stacktrace filter over its text, from /proc/kallsyms), sleeping ones
# too, of every order; nothing fails until a task asks through
# /proc/thread-self/fail-nth
fi_setup() {
	local a lo hi text depth=${1:-32}
	# (no process substitution: the guest has no /dev/fd)
	text=$(awk '$4 == "[sfab]" && ($2 == "t" || $2 == "T") { print $1 }' /proc/kallsyms | sort)
	lo=$(head -n 1 <<< "$text")
	hi=$(tail -n 1 <<< "$text")
	[ -n "$hi" ] || { echo "no sfab text in /proc/kallsyms"; return 1; }
	# the last function's end is not listed: 64 KiB past its start
	hi=$(printf '%#x' $((0x$hi + 0x10000)))
	for a in failslab fail_page_alloc; do
		[ -d "$FI/$a" ] || { echo "no $FI/$a: the kernel lacks fault injection"; return 1; }
		echo 0 > "$FI/$a/probability"
		echo N > "$FI/$a/ignore-gfp-wait"
		echo "0x$lo" > "$FI/$a/require-start"
		echo "$hi" > "$FI/$a/require-end"
		echo "$depth" > "$FI/$a/stacktrace-depth"
		echo 0 > "$FI/$a/verbose"
	done
	echo N > "$FI/fail_page_alloc/ignore-gfp-highmem"
	echo 0 > "$FI/fail_page_alloc/min-order"
	echo "fault injection: sfab text 0x$lo-$hi, $depth frames"
	fi_reject_dma_debug
}

# fi_reject_dma_debug: no failure inside dma-debug's own bookkeeping
# (kernel/dma/debug.c), which runs within sfab's DMA mappings: a failed
# allocation there disables dma-debug for the rest of the boot ("DMA-API:
# cacheline tracking ENOMEM, dma-debug disabled"), a report about the
# checker, not the driver, and the end of DMA-API checking for every
# later test.  The reject range spans that file's entry points, from
# /proc/kallsyms; a kernel without dma-debug has none of them.
fi_reject_dma_debug() {
	local a syms dlo dhi
	syms=$(awk '($2 == "t" || $2 == "T") && $3 ~ /^(add_dma_entry|active_cacheline_insert|dma_entry_alloc|dma_debug_create_entries|debug_dma_map_page|debug_dma_map_sg|debug_dma_alloc_coherent|debug_dma_map_resource)$/ { print $1 }' /proc/kallsyms | sort)
	[ -n "$syms" ] || { echo "fault injection: no dma-debug in this kernel"; return 0; }
	dlo=$(head -n 1 <<< "$syms")
	dhi=$(tail -n 1 <<< "$syms")
	# one object file's functions lie together; farther apart, the names
	# are not what this expects: reject nothing rather than too much
	if [ $((0x$dhi - 0x$dlo)) -gt $((0x40000)) ]; then
		echo "fault injection: dma-debug's functions 0x$dlo..0x$dhi too far apart; not rejected"
		return 0
	fi
	dhi=$(printf '%#x' $((0x$dhi + 0x2000)))
	for a in failslab fail_page_alloc; do
		echo "0x$dlo" > "$FI/$a/reject-start"
		echo "$dhi" > "$FI/$a/reject-end"
	done
	echo "fault injection: dma-debug 0x$dlo-$dhi rejected"
}

# fail_function over FUNCTION...: armed by fail_arm, with nothing failing
# until then
fi_functions() {
	local f
	echo > "$FI/fail_function/inject"
	for f; do
		echo "$f" > "$FI/fail_function/inject" || { echo "cannot inject into $f"; return 1; }
	done
	echo 0 > "$FI/fail_function/times"
	echo 100 > "$FI/fail_function/probability"
	echo 1 > "$FI/fail_function/interval"
	echo 0 > "$FI/fail_function/verbose"
}

fi_functions_done() {
	echo 0 > "$FI/fail_function/probability"
	echo > "$FI/fail_function/inject"
}

# kmemleak_scan: no leak found since kmemleak_mark
kmemleak_mark() {
	echo scan > "$FI/kmemleak" && echo clear > "$FI/kmemleak"
}

kmemleak_scan() {
	local out
	# objects younger than 5 s are not reported
	sleep 6
	echo scan > "$FI/kmemleak" || { echo "kmemleak scan failed"; return 1; }
	echo scan > "$FI/kmemleak"
	out=$(cat "$FI/kmemleak")
	[ -z "$out" ] && return 0
	echo "kmemleak: $(head -n 40 <<< "$out")"
	return 1
}

# probe_walk PCI: the function unbound, then bound again once per failure
# point of probe: first the Nth allocation with sfab on the stack
# (fail-nth: this shell is the task that probes), then the Nth admin
# command (fail_function); each bind fails cleanly (or probe lives with
# the failure), until N is past the last point and probe succeeds
probe_walk() {
	local pci=$1 drv=/sys/bus/pci/drivers/sfab n left rc sites failed lived t0 times
	local cmds
	echo "$pci" > "$drv/unbind" || { echo "unbind $pci failed"; return 1; }
	kmemleak_mark
	t0=$SECONDS sites=0 failed=0 lived=0
	for ((n = 1; ; n++)); do
		echo "$n" > /proc/self/fail-nth
		rc=0
		echo "$pci" > "$drv/bind" 2> /dev/null || rc=$?
		read -r left < /proc/self/fail-nth
		echo 0 > /proc/self/fail-nth
		if [ "$left" != 0 ]; then
			[ $rc = 0 ] || { echo "probe failed with no failure injected"; return 1; }
			break
		fi
		sites=$((sites + 1))
		if [ $rc = 0 ]; then
			lived=$((lived + 1))
			echo "$pci" > "$drv/unbind" || { echo "unbind after allocation $n failed"; return 1; }
		else
			failed=$((failed + 1))
			[ -e "/sys/bus/pci/devices/$pci/driver" ] &&
				{ echo "allocation $n: bind failed, yet a driver holds $pci"; return 1; }
		fi
	done
	echo "probe, allocations: $sites failure points ($failed probes failed cleanly, $lived lived with it) in $((SECONDS - t0)) s"
	port_active 60 || { echo "after the allocation walk the port is not Active"; return 1; }

	# the admin commands of probe (not MAD_IFC: the SM's MADs may come)
	cmds=$(awk '$2 == "[sfab]" && $1 ~ /^sfab_com_/ && $1 != "sfab_com_mad_ifc" { print $1 }' \
		"$FI/fail_function/injectable")
	[ "$(wc -l <<< "$cmds")" -gt 10 ] ||
		{ echo "fail_function: only these sfab_com_* are injectable: $cmds"; return 1; }
	echo "$pci" > "$drv/unbind" || return 1
	# shellcheck disable=SC2086 # one function name a word
	fi_functions $cmds || return 1
	t0=$SECONDS sites=0 failed=0 lived=0
	for ((n = 1; ; n++)); do
		echo "$n" > "$FI/fail_function/space"
		echo 1 > "$FI/fail_function/times"
		rc=0
		echo "$pci" > "$drv/bind" 2> /dev/null || rc=$?
		read -r times < "$FI/fail_function/times"
		echo 0 > "$FI/fail_function/times"
		if [ "$times" != 0 ]; then
			[ $rc = 0 ] || { fi_functions_done; echo "probe failed with no command failed"; return 1; }
			break
		fi
		sites=$((sites + 1))
		if [ $rc = 0 ]; then
			lived=$((lived + 1))
			echo "$pci" > "$drv/unbind"
		else
			failed=$((failed + 1))
		fi
	done
	fi_functions_done
	echo "probe, admin commands: $sites failure points ($failed probes failed cleanly, $lived lived with it) in $((SECONDS - t0)) s"
	port_active 60 || { echo "after the command walk the port is not Active"; return 1; }
	[ "$(create_cq)" = ok ] || { echo "ibv_create_cq after the walks failed"; return 1; }
}
