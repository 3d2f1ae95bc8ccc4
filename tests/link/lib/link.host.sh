# SPDX-License-Identifier: GPL-2.0-only
# Host half of the link tier: every node Active and every switch port
# too; then it serves the guests' switch requests (link.guest.sh sw_req:
# swreq/ID.req in the share, "SWITCH WORDS..." for sfab-switchctl, "kill
# SWITCH" or "start SWITCH" for sfab-lab switch; the output goes to
# swreq/ID.out, the exit status to swreq/ID.rc) until every node is done.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60

# serve ID: run swreq/ID.req
serve() {
	local d=$lab/swreq words rc=0
	read -r -a words < "$d/$1.req"
	rm -f "$d/$1.req"
	case ${words[0]:-} in
	kill|start)
		sfab-lab switch "$SFAB_LAB_DIR" "${words[1]:-}" "${words[0]}" > "$d/.$1.out" 2>&1 || rc=$?
		;;
	*)
		if [ -z "$(ctl_sock "${words[0]:-none}")" ]; then
			echo "error: no switch '${words[0]:-}'" > "$d/.$1.out"
			rc=1
		else
			swctl "${words[@]}" > "$d/.$1.out" 2>&1 || rc=$?
		fi
		;;
	esac
	echo "host: $1: ${words[*]}: exit $rc: $(head -n 1 "$d/.$1.out")"
	mv "$d/.$1.out" "$d/$1.out"
	echo "$rc" > "$d/.$1.rc" && mv "$d/.$1.rc" "$d/$1.rc"
}

end=$((SECONDS + 1500))
mkdir -p "$lab/swreq"
while :; do
	for f in "$lab"/swreq/*.req; do
		[ -e "$f" ] || continue
		f=${f##*/}
		serve "${f%.req}"
	done
	done=1
	for n in $SFAB_NODES; do
		[ -e "$lab/$n.links.done" ] || done=0
	done
	[ $done = 1 ] && break
	watch_nodes
	[ $SECONDS -lt $end ] || fail "the link tests did not end in 1500 s"
	sleep 0.1
done
check_switches 120
ok "link tests done"
touch "$lab/step.done"
