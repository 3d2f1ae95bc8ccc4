# SPDX-License-Identifier: GPL-2.0-only
# Guest side of fabric/link-up (run by tools/sfab-lab in every node; the
# host side is tests/fabric/lib/link-up.host.sh).  Steps are files in the
# lab share $SFAB_LAB_OUT: a node writes NODE.up when its port is LinkUp/Init;
# the host takes switch port 1 down and writes step.down; the node on that
# port (the first node) writes NODE.down when its port is Down/Polling,
# then after step.up NODE.reup when it is back in LinkUp/Init; everyone
# ends at step.done.  A failure writes NODE.fail and ends the guest's part.
set -u
lab=$SFAB_LAB_OUT
me=$SFAB_NODE
first=${SFAB_NODES%% *}
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
fail() {
	echo "FAIL: $me: $*"
	echo "$*" > "$lab/$me.fail"
	exit 1
}
# wait_file NAME SECONDS: for the host's step files; a host.fail ends us
wait_file() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		[ -e "$lab/$1" ] && return 0
		[ -e "$lab/host.fail" ] && fail "the host side failed: $(cat "$lab/host.fail")"
		sleep 0.2
	done
	fail "no $1 from the host after $2 s"
}
# port state and physical state of sfab_0 port 1, as ibv_devinfo shows them
port() {
	ibv_devinfo -v -d sfab_0 -i 1 2>&1 |
		awk '$1 == "state:" { s = $2 } $1 == "phys_state:" { p = $2 }
		     END { print s "/" p }'
}
# wait_port "STATE/PHYS|..." SECONDS
wait_port() {
	local st end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		st=$(port)
		case "|$1|" in *"|$st|"*) echo "$st"; return 0 ;; esac
		sleep 0.2
	done
	echo "$st"
	return 1
}

m=$(dmesg | wc -l)
t0=$(now)
insmod "$SFAB_MODDIR/sfab.ko" || fail "insmod sfab.ko failed"
for ((i = 0; i < 100; i++)); do
	[ -e /sys/class/infiniband/sfab_0 ] && break
	sleep 0.1
done
[ -e /sys/class/infiniband/sfab_0 ] || fail "sfab_0 did not appear"
st=$(wait_port "PORT_INIT/LINK_UP" 60) ||
	fail "port 1 is $st, not PORT_INIT/LINK_UP, 60 s after insmod"
dt=$(since "$t0")
echo "ok: $me port 1 $st $dt s after insmod"
echo "$dt" > "$lab/$me.up"

if [ "$me" = "$first" ]; then
	wait_file step.down 300
	t2=$(now)
	# the switch disabled its port; the HCA's own port is not disabled:
	# it lost its link and polls for it again
	st=$(wait_port "PORT_DOWN/POLLING" 30) ||
		fail "switch port down: port 1 is $st, not PORT_DOWN/POLLING"
	echo "ok: $me port 1 $st after the switch port went down ($(since "$t2") s)"
	touch "$lab/$me.down"
	wait_file step.up 60
	t2=$(now)
	st=$(wait_port "PORT_INIT/LINK_UP" 30) ||
		fail "switch port up: port 1 is $st, not PORT_INIT/LINK_UP"
	echo "ok: $me port 1 $st again ($(since "$t2") s after step.up)"
	touch "$lab/$me.reup"
fi
wait_file step.done 300
st=$(port)
[ "$st" = "PORT_INIT/LINK_UP" ] || fail "at the end port 1 is $st"
bad=$(dmesg | tail -n +$((m + 1)) | "$SFAB_TOP/tools/sfab-kreport" -) || fail "kernel log: $bad"
echo "ok: $me done"
exit 0
