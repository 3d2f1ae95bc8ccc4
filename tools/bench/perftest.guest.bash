# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the benchmarks' guest parts (bench.guest.sh, scale.guest.sh)
# after tests/fabric/lib/sm.guest.bash: one server and one client of a
# perftest or ibverbs example, their steps as lab files.

# pt_serve READY DONE OUT CMD...: the server CMD in the background, its
# output to OUT; the lab file READY once it has had a second to listen;
# then it waits for the client's lab file DONE, gives the server 3 s to
# end by itself and stops it
pt_serve() {
	local ready=$1 done=$2 out=$3 srv i
	shift 3
	timeout 300 "$@" > "$out" 2>&1 &
	srv=$!
	sleep 1
	touch "$lab/$ready"
	wait_file "$done" 330
	for ((i = 0; i < 30; i++)); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
}

# pt_client NAME LIMIT OUT CMD...: the client CMD, LIMIT seconds at most,
# its output to OUT (a .txt); "ok: NAME: S s", or a skip line and
# OUT's .failed file next to it
pt_client() {
	local name=$1 lim=$2 out=$3 t0 rc=0
	shift 3
	t0=$(now)
	timeout "$lim" "$@" > "$out" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name: $(since "$t0") s"
	else
		echo "skip: $name: $1 failed (exit $rc): $(tail -n 3 "$out" | tr '\n' ' ')"
		touch "${out%.txt}.failed"
	fi
}
