#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of guest/stock-kernel, run by tests/guest/lib/init.sh in a
# guest booted on Debian's stock 6.12 kernel: load sfab.ko as built
# against that kernel's headers (after its ib_core/ib_uverbs from the
# stock module tree), check sfab_0 and its fw_ver through the project's
# rdma-core build, unload, and check dmesg.  Writes `ok guest/stock-kernel`
# or `not ok guest/stock-kernel` (details as `# ` lines before it) to
# $SFAB_OUT/results.
set -u
NAME=guest/stock-kernel
R=$SFAB_OUT/results
: > "$R"
S=$SFAB_OUT/stock
KO=$S/sfab.ko
IBDEV=/sys/class/infiniband/sfab_0
errs=()

wait_for() {	# wait_for present|absent PATH
	local _
	for _ in $(seq 100); do
		if [ "$1" = present ]; then [ -e "$2" ] && return 0; else [ -e "$2" ] || return 0; fi
		sleep 0.1
	done
	return 1
}

finish() {
	if [ ${#errs[@]} = 0 ]; then
		printf '# %s\n' "$@" >> "$R"
		echo "ok $NAME" >> "$R"
	else
		# the reasons last, next to the verdict
		printf '%s\n' "dmesg (last lines):" "$(dmesg | tail -n 20)" "${errs[@]}" |
			sed 's/^/# /' >> "$R"
		echo "not ok $NAME" >> "$R"
	fi
	echo "sfab-check: $NAME: ${#errs[@]} errors"
	exit 0
}

kver=$(uname -r)
[ "$kver" = "$(cat "$S/kver")" ] || { errs+=("running $kver, not the stock $(cat "$S/kver")"); finish; }
[ -d "/lib/modules/$kver" ] || { errs+=("no /lib/modules/$kver in the guest"); finish; }
vm=$(modinfo -F vermagic "$KO" 2>&1)
case "$vm" in "$kver "*) ;; *) errs+=("sfab.ko vermagic '$vm' is not for $kver"); finish ;; esac

# the stock kernel's RDMA core, from its own module tree
deps=$(modinfo -F depends "$KO" | tr ',' ' ')
for m in ib_uverbs $deps; do
	out=$(modprobe "$m" 2>&1) || errs+=("modprobe $m: $out")
done
[ ${#errs[@]} = 0 ] || finish

if ! out=$(insmod "$KO" 2>&1); then
	errs+=("insmod sfab.ko: $out")
	finish
fi
wait_for present "$IBDEV" || { errs+=("sfab_0 did not appear"); finish; }
[ "$(cat "$IBDEV/node_type")" = "1: CA" ] || errs+=("node_type $(cat "$IBDEV/node_type")")

fwver=$(cat "$S/fwversion")
info=$(ibv_devinfo -d sfab_0 2>&1) || errs+=("ibv_devinfo -d sfab_0 failed: $info")
got=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p')
[ "$got" = "$fwver" ] || errs+=("ibv_devinfo fw_ver '$got', image has '$fwver'")
[ "$(cat "$IBDEV/fw_ver")" = "$fwver" ] || errs+=("sysfs fw_ver $(cat "$IBDEV/fw_ver") != $fwver")
echo "sfab-check: $(printf '%s\n' "$info" | grep -E 'hca_id|fw_ver|state' | tr -s ' \t' ' ')"

out=$(rmmod sfab 2>&1) || errs+=("rmmod sfab: $out")
wait_for absent "$IBDEV" || errs+=("sfab_0 still there after rmmod")
[ ! -e /sys/module/sfab ] || errs+=("sfab still loaded after rmmod")

# the whole boot: the stock kernel itself is clean here, so any of these
# is ours
bad=$(dmesg | "$SFAB_TOP/tools/sfab-kreport" -)
[ -z "$bad" ] || errs+=("dmesg:" "$bad")
# the driver's own errors; an unsigned module's taint notice is expected
drv=$(dmesg | grep -E 'sfab.*(fail|error|Error)' |
	grep -v 'module verification failed: signature and/or required key missing' || true)
[ -z "$drv" ] || errs+=("driver errors in dmesg:" "$drv")
finish "stock $kver: modprobe ib_uverbs $deps; insmod, sfab_0 fw_ver $fwver, rmmod clean"
