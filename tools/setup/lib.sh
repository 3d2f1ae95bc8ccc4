# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for sfab's build and setup scripts (sourced, not run).

SFAB_TOP=${SFAB_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SFAB_CACHE=${SFAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sfab}
SFAB_JOBS=${SFAB_JOBS:-$(nproc)}
mkdir -p "$SFAB_CACHE"

# sfab_key FILE|STRING... : a short hash of the given inputs.  Arguments
# that name files contribute their contents, others their text.
sfab_key() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			sha256sum < "$a"
		elif [ -d "$a" ]; then
			(cd "$a" && find . -type f ! -name '*.o' -print0 | LC_ALL=C sort -z |
				xargs -0 sha256sum)
		else
			printf '%s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# Stage messages and progress go to standard error: the build scripts'
# standard output is the path they print last, which callers capture.

# sfab_stage NAME: start a stage's clock; sfab_stage_done [NOTE] says
# how long it took when that was 10 s or more (warm, cached runs stay quiet)
sfab_stage() {
	SFAB_STAGE=$1
	SFAB_STAGE_T0=$(date +%s)
}

sfab_stage_done() {
	[ $(( $(date +%s) - SFAB_STAGE_T0 )) -ge 10 ] || return 0
	echo "sfab: [$SFAB_STAGE] done in $(sfab_elapsed "$SFAB_STAGE_T0")${1:+ ($1)}" >&2
}

# sfab_sync SRC DST: copy a tree, touching only files whose contents
# changed, so incremental builds stay incremental.
sfab_sync() {
	mkdir -p "$2"
	rsync -rc --delete "$1"/ "$2"/
}

# sfab_elapsed T0: the time since T0 (date +%s) as 1m05s
sfab_elapsed() {
	local s=$(( $(date +%s) - $1 ))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# sfab_run LOG WHAT CMD...: run a long command with all its output in LOG,
# showing instead one line that says WHAT is built, how far it is (ninja's
# and cmake's [n/m], the number of build steps make printed, or with
# SFAB_RUN_OBJDIR the number of objects written under it) and the
# time since it started; on a terminal that line updates in place, else
# it is printed every 30 s.  When CMD fails: its last lines and the path
# of the full log, and CMD's exit status.
sfab_run() {
	local log=$1 what=$2 pid rc t0 line n last msg tty=0 i=0
	shift 2
	[ -t 2 ] && tty=1
	t0=$(date +%s)
	last=$t0
	mkdir -p "$(dirname "$log")"
	# a make that runs us (make -s prereqs) must not make CMD silent
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@" > "$log" 2>&1 < /dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
		i=$((i + 1))
		[ $((i % 5)) = 0 ] || continue
		# ninja "[12/345] ...", cmake/make "[ 45%] ..."; else make's
		# "  CC      file.o" lines
		line=$(tail -c 4096 "$log" 2>/dev/null | tr '\r' '\n' |
			grep -oE '^\[ *[0-9]+(/[0-9]+|%)\]' | tail -n 1 | tr -d '[] ')
		if [ -n "$line" ]; then
			n=$line
		elif [ -n "${SFAB_RUN_OBJDIR:-}" ]; then
			# a build that prints no steps (kunit.py keeps make's
			# output to itself): the objects written so far
			n="$(find "$SFAB_RUN_OBJDIR" -name '*.o' 2>/dev/null | wc -l) objects"
		else
			n="$(grep -cE '^  [A-Z][A-Z0-9_]* ' "$log" 2>/dev/null || true) steps"
		fi
		msg="sfab: [$what] $n, $(sfab_elapsed "$t0") (log: $log)"
		if [ $tty = 1 ]; then
			printf '\r\033[K%s' "$msg" >&2
		elif [ $(( $(date +%s) - last )) -ge 30 ]; then
			echo "$msg" >&2
			last=$(date +%s)
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	[ $tty = 1 ] && [ $i -ge 5 ] && printf '\r\033[K' >&2
	if [ $rc != 0 ]; then
		line=$(grep -E -B2 -A8 'error|Error|FAILED' "$log" | tail -n 40)
		[ -n "$line" ] || line=$(tail -n 40 "$log")
		printf '%s\n' "$line" >&2
		echo "sfab: [$what] failed after $(sfab_elapsed "$t0"), exit status $rc; full log: $log" >&2
		return $rc
	fi
	[ $(( $(date +%s) - t0 )) -lt 10 ] ||
		echo "sfab: [$what] done in $(sfab_elapsed "$t0") (log: $log)" >&2
}

# rsync options that leave out what a kernel build writes beside the
# driver's sources
SFAB_BUILD_PRODUCTS=(--exclude='*.o' --exclude='*.ko' --exclude='*.mod'
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a'
	--exclude=Module.symvers --exclude=modules.order --exclude='.*.d')

# sfab_drop_in KSRC [keep]: the driver dropped into the kernel source tree
# KSRC (a tree of tools/setup/build-kernel.sh's, which has the Kconfig and
# Makefile hooks) as a kernel tree carries it: drivers/infiniband/hw/sfab/
# with the top-level Kconfig as its Kconfig, include/sfab/,
# include/uapi/rdma/sfab-abi.h and sfab_user_ioctl_cmds.h, and
# include/rdma/peer_mem.h (the peer-memory client API,
# CONFIG_INFINIBAND_SFAB_PEER_MEM); and the test accelerator's driver,
# drivers/misc/sfab_accel/ with include/uapi/misc/sfab_accel.h and a line
# in drivers/misc/Makefile (obj-$(CONFIG_SFAB_ACCEL) += sfab_accel/).  Its
# Kconfig is not sourced: a changed drivers/misc/Kconfig would make the
# next in-tree build rewrite the shared .config; a build of it sets
# CONFIG_SFAB_ACCEL=m on the command line instead.  Takes a lock on the tree (file
# descriptor 8) that holds until the caller exits.  Without "keep" it sets
# an EXIT trap that takes the contract headers out again: left in the
# tree that out-of-tree builds use they would shadow the checkout's copies
# (the kernel's -I include comes before the driver's).  The kunit.py tree
# is a tree of its own (sfab_kunit_tree) and keeps them.
sfab_drop_in() {
	local ksrc=$1 drv=drivers/infiniband/hw/sfab
	grep -q 'hw/sfab/Kconfig' "$ksrc/drivers/infiniband/Kconfig" &&
		grep -q 'CONFIG_INFINIBAND_SFAB.*sfab/' "$ksrc/drivers/infiniband/hw/Makefile" || {
		echo "sfab: $ksrc lacks the sfab Kconfig/Makefile hooks (tools/setup/build-kernel.sh)" >&2
		return 1
	}
	exec 8> "$ksrc.drop-in.lock"
	flock 8
	# the paths are expanded now: the trap runs after this function's
	# locals are gone
	[ "${2:-}" = keep ] ||
		trap "rm -rf $(printf '%q %q %q %q %q' "$ksrc/include/sfab" \
			"$ksrc/include/uapi/rdma/sfab-abi.h" \
			"$ksrc/include/rdma/peer_mem.h" \
			"$ksrc/include/uapi/rdma/sfab_user_ioctl_cmds.h" \
			"$ksrc/include/uapi/misc/sfab_accel.h")" EXIT
	rsync -rc --delete --delete-excluded "${SFAB_BUILD_PRODUCTS[@]}" \
		--filter='P /Kconfig' "$SFAB_TOP/$drv/" "$ksrc/$drv/"
	cmp -s "$SFAB_TOP/Kconfig" "$ksrc/$drv/Kconfig" || cp "$SFAB_TOP/Kconfig" "$ksrc/$drv/Kconfig"
	rsync -rc --delete "$SFAB_TOP/include/sfab/" "$ksrc/include/sfab/"
	local h
	for h in sfab-abi.h sfab_user_ioctl_cmds.h; do
		cmp -s "$SFAB_TOP/include/uapi/rdma/$h" "$ksrc/include/uapi/rdma/$h" ||
			cp "$SFAB_TOP/include/uapi/rdma/$h" "$ksrc/include/uapi/rdma/$h"
	done
	cmp -s "$SFAB_TOP/include/rdma/peer_mem.h" "$ksrc/include/rdma/peer_mem.h" ||
		cp "$SFAB_TOP/include/rdma/peer_mem.h" "$ksrc/include/rdma/peer_mem.h"
	rsync -rc --delete --delete-excluded "${SFAB_BUILD_PRODUCTS[@]}" \
		"$SFAB_TOP/drivers/misc/sfab_accel/" "$ksrc/drivers/misc/sfab_accel/"
	# a new file, not an append: the kunit.py tree shares the inodes
	grep -q 'sfab_accel/' "$ksrc/drivers/misc/Makefile" || {
		{ cat "$ksrc/drivers/misc/Makefile" &&
			echo 'obj-$(CONFIG_SFAB_ACCEL)		+= sfab_accel/'; } > "$ksrc/drivers/misc/Makefile.sfab" &&
		mv "$ksrc/drivers/misc/Makefile.sfab" "$ksrc/drivers/misc/Makefile"
	} || return 1
	mkdir -p "$ksrc/include/uapi/misc"
	cmp -s "$SFAB_TOP/include/uapi/misc/sfab_accel.h" "$ksrc/include/uapi/misc/sfab_accel.h" ||
		cp "$SFAB_TOP/include/uapi/misc/sfab_accel.h" "$ksrc/include/uapi/misc/sfab_accel.h"
}

# sfab_kunit_tree KDIR: the kernel tree kunit.py runs in: a copy of
# KDIR's source tree made of hard links (no second copy on disk), so that
# the driver can stay dropped in there while out-of-tree builds use the
# source tree; kunit.py builds in its .kunit.  It is cached on its own,
# keyed by what the tree is made of (the linux-source version, the Kconfig
# the hook installs, build-kernel.sh's hook: SFAB_KUNIT_TREE_VERSION), so
# that a change of the guest kernel's config does not rebuild the kunit.py
# kernel.  Prints its path.
SFAB_KUNIT_TREE_VERSION=1
sfab_kunit_tree() {
	local kdir=$1 src tree
	src=$(dirname "$kdir")/src
	tree=$SFAB_CACHE/kunit-$(sfab_key "$(dpkg-query -W -f='${Version}' linux-source-6.12)" \
		"$SFAB_TOP/Kconfig" "kunit-tree $SFAB_KUNIT_TREE_VERSION")/src
	if [ ! -d "$tree" ]; then
		rm -rf "$tree.tmp"
		mkdir -p "$(dirname "$tree")"
		cp -al "$src" "$tree.tmp" && mv "$tree.tmp" "$tree" || return 1
	fi
	echo "$tree"
}

# sfab_kunit_command: the kunit.py command of Documentation/sfab/testing.rst
# (the block between ".. begin kunit-py" and ".. end kunit-py"), without
# its "cd" and "SFAB=" lines: run it with bash in the kernel tree, $SFAB
# set to the checkout
sfab_kunit_command() {
	sed -n '/^\.\. begin kunit-py/,/^\.\. end kunit-py/p' \
		"$SFAB_TOP/Documentation/sfab/testing.rst" |
		sed -e '1d' -e '$d' -e 's/^   //' | grep -vE '^(\.\. |cd |SFAB=|$)'
}
