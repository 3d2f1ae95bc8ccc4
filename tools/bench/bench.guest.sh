# SPDX-License-Identifier: GPL-2.0-only
# Guest part of the benchmark (tools/bench/sfab-vs-rxe.sh).  Both nodes:
# sfab.ko, port Active (opensm in n1), eth0 up with 10.99.0.<n>/24,
# rdma_rxe on it (rxe0).  Then for each case of CASES and each device, n2
# runs the server and n1 the client; the client's output goes to
# bench/<case>.<tag>.txt in the lab share.  The tags: sfab_0; rxe1500,
# rxe0 on eth0 at its default MTU (1500: RoCE MTU 1024); rxe9000, the
# same after both nodes set eth0's MTU to 9000 (RoCE MTU 4096), rxe at its
# best.  sfab_0 and rxe1500 take each case in turn, then rxe9000 all of
# them.  A case a device cannot run (the tool fails) is written as such
# and the rest go on.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$(dirname "$SFAB_MODDIR")/guest.env"
. "$SFAB_TOP/tests/ulp/lib/nvme.bash"
. "$SFAB_TOP/tests/ulp/lib/gds.bash"
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
. "$SFAB_TOP/tools/bench/perftest.guest.bash"
# NAME TOOL [need=BYTES] ARGS...: @MTU in ARGS is the device's largest
# path MTU (4096, or 1024 for rxe1500) and @GID its GID option (the
# ibverbs examples on RoCE need one: "-g <the IPv4-mapped GID's index>";
# nothing on sfab_0's IB port).  need=BYTES skips the case on a device
# whose MTU is smaller (a UD message, a path MTU of the sweep).
# Iterations shrink with the size so that each case takes seconds.
# iters SIZE N4 N64K N1M N: N iterations below 4 KiB, N4 from 4 KiB,
# N64K from 64 KiB, N1M from 1 MiB
iters() {
	local n=$5
	[ "$1" -ge 4096 ] && n=$2
	[ "$1" -ge 65536 ] && n=$3
	[ "$1" -ge 1048576 ] && n=$4
	echo $n
}
CASES=()
for s in 2 64 1024 4096 65536 1048576; do
	n=$(iters $s 1000 200 30 1000)
	CASES+=("send_lat_$s ib_send_lat -s $s -n $n"
		"write_lat_$s ib_write_lat -s $s -n $n"
		"read_lat_$s ib_read_lat -s $s -n $n")
done
CASES+=("atomic_lat_8 ib_atomic_lat -n 1000")
for s in 64 4096 65536 1048576; do
	n=$(iters $s 2000 500 50 5000)
	CASES+=("send_bw_$s ib_send_bw -s $s -n $n"
		"write_bw_$s ib_write_bw -s $s -n $n"
		"read_bw_$s ib_read_bw -s $s -n $n")
done
CASES+=("atomic_bw_8 ib_atomic_bw -n 2000"
	"write_bw_65536_q4 ib_write_bw -s 65536 -n 200 -q 4"
	"read_bw_65536_q4 ib_read_bw -s 65536 -n 200 -q 4")
for s in 1 4096 65536 1048576; do
	n=$(iters $s 500 100 20 1000)
	CASES+=("rc_pp_$s ibv_rc_pingpong -s $s -n $n -m @MTU @GID"
		"rc_pp_e_$s ibv_rc_pingpong -e -s $s -n $n -m @MTU @GID"
		"uc_pp_$s ibv_uc_pingpong -s $s -n $n -m @MTU @GID"
		"srq_pp_$s ibv_srq_pingpong -s $s -n $n -m @MTU @GID")
done
for s in 1 1024 4096; do
	CASES+=("ud_pp_$s ibv_ud_pingpong need=$s -s $s -n 1000 @GID"
		"ud_pp_e_$s ibv_ud_pingpong need=$s -e -s $s -n 1000 @GID")
done
for m in 256 512 1024 2048 4096; do
	CASES+=("rc_pp_mtu${m}_65536 ibv_rc_pingpong need=$m -s 65536 -n 100 -m $m @GID")
done
# make bench BENCH_CASES='GLOB...' BENCH_DEVS='TAG...' (sfab-vs-rxe.sh
# writes them to build/bench.filter): only the cases whose names match
# one of the globs, on those devices; "nvme" or "gds" runs the storage
# parts (both: they share the IPoIB set-up), none of them without
BENCH_CASES= BENCH_DEVS=
[ -f "$SFAB_TOP/build/bench.filter" ] && . "$SFAB_TOP/build/bench.filter"
# want NAME: the filter takes the case (or part) NAME
want() {
	local g
	[ -z "$BENCH_CASES" ] && return 0
	for g in $BENCH_CASES; do
		# shellcheck disable=SC2053 # a glob, on purpose
		[[ $1 == $g ]] && return 0
	done
	return 1
}
# want_dev TAG: the filter takes the device TAG
want_dev() {
	[ -z "$BENCH_DEVS" ] || [[ " $BENCH_DEVS " == *" $1 "* ]]
}
sel=()
for c in "${CASES[@]}"; do
	want "${c%% *}" && sel+=("$c")
done
CASES=("${sel[@]}")
idx=${me#n}
peer_ip=10.99.0.2

# rxe_gid: the index of rxe0's IPv4-mapped GID (::ffff:10.99.0.<n>)
rxe_gid() {
	local g
	for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		grep -q "0000:ffff:0a63:" "$g" 2>/dev/null && { basename "$g"; return 0; }
	done
	return 1
}

# rxe_mtu MTU: eth0's MTU set, and rxe0's active MTU following it
rxe_mtu() {
	local i want=1024
	[ "$1" -ge 4200 ] && want=4096
	ip link set eth0 mtu "$1" || return 1
	for ((i = 0; i < 100; i++)); do
		ibv_devinfo -d rxe0 2>/dev/null | grep -q "active_mtu:.*$want" && return 0
		sleep 0.1
	done
	echo "rxe0's active MTU did not become $want: $(ibv_devinfo -d rxe0 | grep mtu)"
	return 1
}

sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
out=$(rxe_up 2>&1) || fail "rxe: $out"
gid=$(rxe_gid) || fail "rxe0 has no IPv4-mapped GID: $(cat /sys/class/infiniband/rxe0/ports/1/gids/* | sort -u)"
ok "sfab_0 Active, rxe0 on eth0 (10.99.0.$idx) Active, its IPv4 GID at index $gid"
touch "$lab/$me.ready"
mkdir -p "$lab/bench"
port=18515

# run_case TAG CASE...: one case on one device, n2 the server, n1 the client
run_case() {
	local tag=$1 name=$2 tool=$3 dev=rxe0 mtu=4096 gidopt="-g $gid" a args=()
	shift 3
	case $tag in
	sfab_0) dev=sfab_0 gidopt= ;;
	rxe1500) mtu=1024 ;;
	esac
	for a in "$@"; do
		case $a in
		need=*) [ "${a#need=}" -le $mtu ] || return 0 ;;
		@MTU) args+=("$mtu") ;;
		@GID) [ -n "$gidopt" ] && args+=($gidopt) ;;
		*) args+=("$a") ;;
		esac
	done
	port=$((port + 1))
	# rdma_rxe's own kernel reports (a WARNING in rxe_completer once, on a
	# read_bw case) are rxe's, not sfab's: fenced off for sfab_sm_end's
	# check and kept in the raw output
	[ "$tag" = sfab_0 ] || echo "sfab-kreport: ignore from here: rxe case $name" > /dev/kmsg
	tag=$name.$tag
	if [ "$me" = n2 ]; then
		wait_file "go.$tag" 600
		# the client says when it is done (also when it failed)
		pt_serve "srv.$tag" "done.$tag" "/tmp/$tag.srv" \
			"$tool" -d "$dev" -p "$port" "${args[@]}"
		cp "/tmp/$tag.srv" "$lab/bench/$tag.server.txt"
	else
		touch "$lab/go.$tag"
		wait_file "srv.$tag" 120
		sleep 1
		# a ping-pong that hangs (rxe's srq at 64 KiB and 1 MiB, MTU
		# 1500, did) is given up after 2 minutes, perftest after 5
		lim=300
		[ "${tool%_pingpong}" != "$tool" ] && lim=120
		pt_client "$tag" $lim "$lab/bench/$tag.txt" \
			"$tool" -d "$dev" -p "$port" "${args[@]}" "$peer_ip"
		touch "$lab/done.$tag"
	fi
	if [ "$dev" != sfab_0 ]; then
		local bad
		bad=$(dmesg | awk '/sfab-kreport: ignore from here: rxe case '"$name"'$/ { on = 1; next } on' |
			"$SFAB_TOP/tools/sfab-kreport" -) || {
			echo "$bad" > "$lab/bench/$tag.$me.kreport"
			ok "$tag: rdma_rxe's own kernel reports (not sfab's), kept in raw/$tag.$me.kreport"
		}
		echo "sfab-kreport: ignore ends" > /dev/kmsg
	fi
}

if [ "$me" = n1 ]; then
	for n in $SFAB_NODES; do
		wait_file "$n.ready" 300
	done
fi
for c in "${CASES[@]}"; do
	for tag in sfab_0 rxe1500; do
		want_dev $tag && run_case $tag $c
	done
done
# rxe at its best: both ends at MTU 9000 before either goes on
want_dev rxe9000 || CASES=()
rxe_mtu 9000 || fail "eth0 at MTU 9000: $(ip link show eth0)"
touch "$lab/$me.mtu9000"
wait_file n1.mtu9000 300
wait_file n2.mtu9000 300
ok "eth0 at MTU 9000, rxe0's active MTU 4096"
for c in "${CASES[@]}"; do
	run_case rxe9000 $c
done

# NVMe over RDMA: n2's nvmet-rdma serves one memory-backed null_blk on two
# ports, its IPoIB address (sfab_0) and its eth0 address (rxe0, eth0 at
# MTU 9000 by now); n1 connects to each in turn and runs fio, 4 KiB
# random reads at queue depth 1 (latency) and 32 (IOPS), 10 s each.
# fio's JSON to bench/nvme_*.TAG.json
NQN=nqn.2026-12.org.sfab:bench
if ! want nvme && ! want gds; then
	[ "$me" = n1 ] && touch "$lab/bench.done"
	sm_end 3400
	exit 0
fi
# ib0 at 10.77.0.<n> (tests/ulp/lib/ulp.bash)
out=$(ib_up 2>&1) || fail "IPoIB: $out"
if [ "$me" = n2 ]; then
	load_ko null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 || fail "null_blk"
	nvmet_subsys "$NQN" /dev/nullb0 || fail "nvmet subsystem"
	nvmet_port 1 10.77.0.2 "$NQN" || fail "nvmet port 10.77.0.2"
	nvmet_port 2 10.99.0.2 "$NQN" || fail "nvmet port 10.99.0.2"
	ok "nvmet-rdma: $NQN on 10.77.0.2 (sfab_0) and 10.99.0.2 (rxe0)"
	touch "$lab/nvme.target"
	wait_file nvme.done 400
	nvmet_teardown "$NQN" || echo "skip: the nvmet teardown failed"
else
	load_ko nvme_rdma || fail "nvme_rdma"
	wait_file nvme.target 300
	# rxe0 is at its best here (eth0 at MTU 9000): its files say rxe9000
	for dev in sfab_0 rxe9000; do
		a=10.77.0.2
		[ "$dev" = rxe9000 ] && a=10.99.0.2
		nvme connect -t rdma -a "$a" -s 4420 -n "$NQN" ||
			{ echo "skip: nvme.$dev: nvme connect to $a failed"; continue; }
		blk=$(nvme_ns_dev "$NQN") || { echo "skip: nvme.$dev: no namespace"; continue; }
		for qd in 1 32; do
			timeout 120 fio --name="nvme_qd$qd" --filename="$blk" --ioengine=libaio \
				--direct=1 --rw=randread --bs=4k --iodepth=$qd --size=64M \
				--time_based --runtime=10 --ramp_time=2 --output-format=json \
				> "$lab/bench/nvme_qd$qd.$dev.json" 2> "/tmp/fio.$dev.err" &&
				ok "nvme_qd$qd.$dev" ||
				echo "skip: nvme_qd$qd.$dev: fio failed: $(tail -n 2 "/tmp/fio.$dev.err")"
		done
		nvme disconnect -n "$NQN" || echo "skip: nvme disconnect from $a failed"
	done
	touch "$lab/nvme.done"
fi

# GPU-direct storage over sfab_0 (lib/gds.bash, as ulp/gds-p2p): n2's
# nvmet serves its NVMe SSD as namespace 1 from its accelerator's memory
# (p2pmem) and as namespace 2 from RAM; n1, with the nvme-rdma.ko that
# takes P2PDMA pages, reads 16 MiB with 128 KiB O_DIRECT reads
# (gds-read): namespace 1 straight into its accelerator's memory (gds),
# namespace 2 into RAM and copied into the accelerator (bounce: through
# RAM at both ends), one after the other, GDS_REPS times.  Each read's
# data is checked.  bench/gds.txt: "gds BYTES USEC 0" and
# "bounce BYTES USEC COPY_USEC" lines.
GDS_NQN=nqn.2026-12.org.sfab:bench-gds
GDS_REPS=3
if [ "$me" = n2 ]; then
	if dev=$(gds_ssd) && sum=$(gds_fill "$dev") && accel=$(gds_accel) &&
		gds_serve "$GDS_NQN" "$dev" "$accel" 10.77.0.2; then
		echo "$sum" > "$lab/gds.sum"
		echo ok > "$lab/gds.target"
		ok "gds: nvmet serves $dev from $accel's memory (namespace 1) and from RAM (2)"
		wait_file gds.done 900
		nvmet_teardown "$GDS_NQN" || echo "skip: gds: the nvmet teardown failed"
	else
		echo "skip: gds: no NVMe SSD, accelerator or nvmet subsystem (see the console)"
		echo fail > "$lab/gds.target"
	fi
	rmmod sfab_accel 2>/dev/null
else
	wait_file gds.target 600
	if [ "$(cat "$lab/gds.target")" != ok ]; then
		echo "skip: gds: the target failed"
	elif ! [ -x "$GDS_DIR/gds-read" ] || ! insmod "$SFAB_MODDIR/sfab_accel.ko" ||
		! gds_nvme_rdma patched || ! gds_connect "$GDS_NQN" 10.77.0.2; then
		echo "skip: gds: no gds-read (tests/ulp/lib/gds-build.sh), accelerator or connection"
	else
		sum=$(cat "$lab/gds.sum")
		for ((r = 1; r <= GDS_REPS; r++)); do
			for m in gds bounce; do
				if [ $m = gds ]; then
					out=$(gds_read "$GDS_NS1" p2p "$sum")
				else
					out=$(gds_read "$GDS_NS2" bounce "$sum")
				fi || { echo "skip: gds: $m: $out"; continue; }
				echo "$m $out" >> "$lab/bench/gds.txt"
			done
		done
		ok "gds: $GDS_REPS reads of 16 MiB each way"
		nvme disconnect -n "$GDS_NQN" > /dev/null || echo "skip: gds: nvme disconnect failed"
	fi
	gds_nvme_rdma stock > /dev/null
	rmmod sfab_accel 2>/dev/null
	touch "$lab/gds.done"
fi
[ "$me" = n1 ] && touch "$lab/bench.done"
sm_end 3400
