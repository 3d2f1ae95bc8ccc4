# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest half of the gda tier (tests/gda/lib/gda.guest.sh)
# after tests/fabric/lib/sm.guest.bash.  Each test runs in a subshell and
# leaves its result in the lab share, gda/NAME.NODE.rc ("STATUS SECONDS")
# and gda/NAME.NODE.log; tests/gda/run-gda reports them by name.  A failed
# test does not stop the others.

gda_build=$(dirname "$SFAB_MODDIR")
GDA=$gda_build/gda/gda

# gtest NAME CMD...: run CMD as test NAME on this node (sm.guest.bash ltest)
gtest() { ltest gda "$@"; }

# the accelerator's driver; /dev/sfab-accel0 appears
gda_accel_up() {
	local i
	[ -n "${SFAB_ACCEL:-}" ] || fail "this node has no accelerator (topology accel=on)"
	insmod "$SFAB_MODDIR/sfab_accel.ko" || fail "insmod sfab_accel.ko failed"
	for ((i = 0; i < 50; i++)); do
		[ -c /dev/sfab-accel0 ] && break
		sleep 0.1
	done
	[ -c /dev/sfab-accel0 ] || fail "no /dev/sfab-accel0 after insmod sfab_accel.ko"
	ok "sfab_accel.ko loaded: /dev/sfab-accel0"
}
