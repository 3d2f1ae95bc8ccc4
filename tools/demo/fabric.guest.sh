# SPDX-License-Identifier: GPL-2.0-only
# Guest part of the fabric demo (tools/demo/fabric.sh), run by
# tools/sfab-lab in each node: load sfab.ko, wait for the port to train
# with the switch; in n1 ($SFAB_OPENSM) run Debian's opensm, then describe
# the fabric with Debian's infiniband-diags.  Each node's text goes to
# demo-NODE.txt in the lab share; fabric.sh prints them.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
txt=$lab/demo-$me.txt
say() { printf '\n=== %s: %s\n' "$me" "$*" >> "$txt"; }
run() { say "$*"; "$@" >> "$txt" 2>&1; }

sm_port_up
if ! sm_mad_agents > /dev/null; then
	run ibstat sfab_0
	if [ "$me" = "$sm" ]; then
		cat >> "$txt" <<-'NOTE'

		sfab demo: both HCA ports trained with the switch and are LinkUp /
		Initializing.  opensm needs host QP0/QP1 (ib_mad sends SMPs through
		them), which sfab_0 does not offer yet, so opensm is not started
		and the ports stay Initializing without LIDs.
		NOTE
	fi
	touch "$lab/$me.nosm"
	wait_file step.done 300	# the host shows the switch's ports first
	exit 0
fi
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	for n in $SFAB_NODES; do
		wait_file "$n.active" 300
	done
	run ibstat sfab_0
	run ibnetdiscover
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		run perfquery "$(lid_of "$n")" 1
	done
	say "opensm (/var/log/opensm.log)"
	grep -E 'Entering|SUBNET UP' /var/log/opensm.log >> "$txt"
	touch "$lab/demo.done"
	wait_file step.done 60
else
	run ibstat sfab_0
fi
sm_end 300
