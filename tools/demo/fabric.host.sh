# SPDX-License-Identifier: GPL-2.0-only
# Host part of the fabric demo (tools/demo/fabric.sh): once the nodes are
# done (demo.done, or every node's NODE.nosm), show the switch's ports
# (sfab-switchctl) and let the nodes end.
set -u
lab=$SFAB_LAB_OUT
end=$((SECONDS + 400))
while [ $SECONDS -lt $end ]; do
	[ -e "$lab/demo.done" ] && break
	n=0
	for x in $SFAB_NODES; do
		[ -e "$lab/$x.nosm" ] && n=$((n + 1))
	done
	[ "$n" = "$(wc -w <<< "$SFAB_NODES")" ] && break
	ls "$lab"/*.fail > /dev/null 2>&1 && break
	sleep 0.5
done
{
	printf '\n=== host: sfab-switchctl -S .../sw1/ctl.sock ports\n'
	"$SFAB_TOP/tools/sfab-switchctl" -S "$SFAB_CTL_SW1" ports
} > "$lab/switch.txt"
touch "$lab/step.done"
