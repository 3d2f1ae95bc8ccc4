# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests in tests/build/ and tests/lint/ (sourced, not run;
# the runner runs only *.sh).  Each test is one script: exit 0 pass,
# 1 fail, 77 skip with `SKIP: <reason>` as the last line of stdout.

. "$(dirname "${BASH_SOURCE[0]}")/../../tools/setup/lib.sh"

SFAB_BUILD=${SFAB_BUILD:-$SFAB_TOP/build}
SFAB_DRV=drivers/infiniband/hw/sfab
# the test accelerator's driver, built and checked beside it
SFAB_ACCEL_DRV=drivers/misc/sfab_accel

sfab_skip() {
	echo "SKIP: $*"
	exit 77
}

sfab_fail() {
	echo "FAIL: $*"
	exit 1
}

# sfab_kdir: the project kernel's object directory (KDIR), built by
# tools/setup/build-kernel.sh if it is not cached yet.
sfab_kdir() {
	local out
	if ! out=$("$SFAB_TOP/tools/setup/build-kernel.sh" 2>&1); then
		printf '%s\n' "$out" | tail -n 30
		sfab_fail "tools/setup/build-kernel.sh failed"
	fi
	KDIR=$(printf '%s\n' "$out" | tail -n 1)
	[ -f "$KDIR/Makefile" ] || sfab_fail "build-kernel.sh printed '$KDIR', not a kernel build directory"
}

# the kernel source tree next to KDIR (tools/setup/build-kernel.sh layout)
sfab_ksrc() {
	KSRC=$(dirname "$KDIR")/src
	[ -f "$KSRC/scripts/checkpatch.pl" ] || sfab_fail "no kernel source tree at $KSRC"
}

# sfab_mirror NAME: a pristine copy of the drivers (sfab and sfab-accel)
# and the hardware contract under $SFAB_BUILD/tests/NAME, laid out as in
# the repository so the drivers' relative include paths resolve; sets
# MIRROR to the copy's sfab driver directory, ACCEL_MIRROR to its
# sfab-accel driver directory, LOG and ACCEL_LOG to build logs beside
# them.  Holds a lock on the copy until the script exits.
sfab_mirror() {
	local dst=$SFAB_BUILD/tests/$1 d

	mkdir -p "$dst/$SFAB_DRV" "$dst/$SFAB_ACCEL_DRV" "$dst/include"
	exec 9> "$dst.lock"
	flock 9
	for d in "$SFAB_DRV" "$SFAB_ACCEL_DRV"; do
		rsync -rc --delete --delete-excluded "${SFAB_BUILD_PRODUCTS[@]}" \
			"$SFAB_TOP/$d/" "$dst/$d/"
	done
	rsync -rc --delete "$SFAB_TOP/include/" "$dst/include/"
	MIRROR=$dst/$SFAB_DRV
	ACCEL_MIRROR=$dst/$SFAB_ACCEL_DRV
	LOG=$dst/build.log
	ACCEL_LOG=$dst/build-accel.log
}

# sfab_make LOG ARGS...: run make with ARGS, niced, output to LOG.
sfab_make() {
	local log=$1
	shift
	nice -n 10 make -j"$SFAB_JOBS" "$@" > "$log" 2>&1
}

# sfab_diagnostics LOG: lines of LOG that are warnings or errors from the
# compiler, sparse, modpost or make.
sfab_diagnostics() {
	grep -E 'warning:|error:|WARNING|ERROR|Error [0-9]' "$1" || true
}

# sfab_check_build RC LOG WHAT: fail with the diagnostics when the build
# failed or printed any, else print a summary.
sfab_check_build() {
	local rc=$1 log=$2 what=$3 diags n

	diags=$(sfab_diagnostics "$log")
	n=$(printf '%s' "$diags" | grep -c . || true)
	if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
		echo "$what: make exited $rc with $n diagnostic lines"
		if [ -n "$diags" ]; then
			printf '%s\n' "$diags" | head -n 60
		else
			tail -n 40 "$log"
		fi
		echo "full log: $log"
		exit 1
	fi
	echo "$what: clean ($(grep -cE '^ +(CC|CHECK)' "$log") compile/check steps, log $log)"
}

# sfab_expect_modules DIR KCONFIG: sfab.ko must be in DIR, and
# sfab_kunit.ko too when the kernel config KCONFIG has KUnit.
sfab_expect_modules() {
	[ -f "$1/sfab.ko" ] || sfab_fail "no sfab.ko in $1"
	if grep -qE '^CONFIG_KUNIT=[ym]' "$2"; then
		[ -f "$1/sfab_kunit.ko" ] || sfab_fail "kernel has KUnit but no sfab_kunit.ko in $1"
		echo "built: sfab.ko sfab_kunit.ko"
	else
		echo "built: sfab.ko (kernel without KUnit: no sfab_kunit.ko)"
	fi
}

# sfab_expect_accel DIR: sfab_accel.ko must be in DIR
sfab_expect_accel() {
	[ -f "$1/sfab_accel.ko" ] || sfab_fail "no sfab_accel.ko in $1"
	echo "built: sfab_accel.ko"
}
