# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/perftest-smoke (host half: perftest-smoke.host.sh).
# n2 runs each perftest server, n1 the client over 10.99.0.0/24 (eth0,
# connection setup only); the traffic is RC over sfab_0 through the switch.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
RUNS=(
	"ib_send_lat -n 200"
	"ib_send_bw -n 500 -s 4096"
	"ib_write_lat -n 200"
	"ib_write_bw -n 500 -s 4096"
	"ib_read_lat -n 200"
	"ib_read_bw -n 500 -s 4096"
	"ib_atomic_lat -n 200"
	"ib_atomic_bw -n 500"
)
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
ip link set eth0 up && ip addr add "10.99.0.${me#n}/24" dev eth0 ||
	fail "eth0: $(ip link 2>&1)"
touch "$lab/$me.eth"
for n in $SFAB_NODES; do
	wait_file "$n.eth" 120
done
# perftest calibrates its cycle counter against the clock first and
# gives up ("Can't produce a report", exit 1) when the samples do not fit
# a line (r^2 < 0.9), which TCG's timing noise sometimes causes: such a
# run is repeated, 2 s later, at most 6 times (3 in a row failed twice on
# 2 December, once on a quiet host); any other failure fails the test
CALIB_TRIES=6
calib() { grep -q "Can't produce a report" "$1"; }
port=18700
for r in "${RUNS[@]}"; do
	set -- $r
	tool=$1
	shift
	for ((try = 1; try <= CALIB_TRIES; try++)); do
		port=$((port + 1))
		tag=$tool.$try
		if [ "$me" = n2 ]; then
			(timeout 120 "$tool" -d sfab_0 -p "$port" "$@" > "$lab/$tag.server.log" 2>&1
			 echo $? > "$lab/$tag.server.rc") &
			srv=$!
			sleep 1
			touch "$lab/$tag.srv"
			wait_file "$tag.cli" 150
			wait "$srv"
			touch "$lab/$tag.srv.done"
			wait_file "$tag.verdict" 60
			[ "$(cat "$lab/$tag.verdict")" = again ] || break
		else
			wait_file "$tag.srv" 150
			sleep 0.5
			t0=$(now)
			rc=0
			timeout 120 "$tool" -d sfab_0 -p "$port" "$@" 10.99.0.2 \
				> "$lab/$tag.client.log" 2>&1 || rc=$?
			touch "$lab/$tag.cli"
			wait_file "$tag.srv.done" 150
			srv_rc=$(cat "$lab/$tag.server.rc")
			if { [ "$rc" != 0 ] && calib "$lab/$tag.client.log"; } ||
				{ [ "$srv_rc" != 0 ] && calib "$lab/$tag.server.log"; }; then
				if [ "$try" -lt "$CALIB_TRIES" ]; then
					echo "$me: $tag: perftest's clock calibration failed, again"
					sleep 2
					echo again > "$lab/$tag.verdict"
					continue
				fi
			fi
			echo done > "$lab/$tag.verdict"
			[ "$rc" = 0 ] || fail "$tool client exited $rc: $(tail -n 5 "$lab/$tag.client.log")"
			[ "$srv_rc" = 0 ] || fail "$tool server exited $srv_rc: $(head -n 3 "$lab/$tag.server.log")"
			# the result line: "#bytes #iterations numbers..."
			res=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5' "$lab/$tag.client.log" | tail -n 1)
			[ -n "$res" ] || fail "$tool printed no result line: $(tail -n 5 "$lab/$tag.client.log")"
			ok "$tool $*: $(tr -s ' \t' ' ' <<< "$res") ($(since "$t0") s)"
			break
		fi
	done
done
[ "$me" = n1 ] && touch "$lab/perftest.done"
sm_end 800
