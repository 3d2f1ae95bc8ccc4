#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of the guest tier, run by tests/guest/lib/init.sh inside one
# sfab-vm guest.  Writes `ok <name>` / `not ok <name>` lines (details as
# `# ` lines before them) to $SFAB_OUT/results.
set -u
R=$SFAB_OUT/results
: > "$R"
FW=$SFAB_OUT/fw
FWVER=$(cat "$FW/version")
IBDEV=/sys/class/infiniband/sfab_0
DRV=/sys/bus/pci/drivers/sfab
KMEMLEAK=/sys/kernel/debug/kmemleak
FWPATH=/sys/module/firmware_class/parameters/path

res() {	# res ok|fail NAME [DETAIL...]
	local st=$1 name=$2
	shift 2
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /' >> "$R"
	if [ "$st" = ok ]; then echo "ok $name" >> "$R"; else echo "not ok $name" >> "$R"; fi
	echo "sfab-check: $st $name"
}

wait_for() {	# wait_for present|absent PATH
	local i
	for i in $(seq 100); do
		if [ "$1" = present ]; then [ -e "$2" ] && return 0; else [ -e "$2" ] || return 0; fi
		sleep 0.1
	done
	return 1
}

dmesg_mark() { dmesg | wc -l; }
dmesg_since() { dmesg | tail -n +$(( $1 + 1 )); }
set_fw() { echo -n "$FW/$1" > "$FWPATH"; }
# the HCA counter names and cnt_one/cnt_zero/rs_val
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
# kernel reports (tools/sfab-kreport: BUG, WARNING, lockdep, KASAN, UBSAN,
# kmemleak, ...) in the kernel log since MARK; adds them to errs
kreports_since() {
	local bad
	bad=$(dmesg_since "$1" | "$SFAB_TOP/tools/sfab-kreport" -) || errs+=("kernel log:" "$bad")
}
# restrack VAR: sfab_0's line of `rdma resource show` into VAR; when the
# tool fails or shows no sfab_0, an error in errs and status 1
restrack() {
	local out line
	if ! out=$(rdma resource show 2>&1); then
		errs+=("rdma resource show failed: $out")
		return 1
	fi
	line=$(printf '%s\n' "$out" | sed -n 's/^[0-9]*: \(sfab_0: .*\)/\1/p')
	if [ -z "$line" ]; then
		errs+=("rdma resource show has no sfab_0: $out")
		return 1
	fi
	printf -v "$1" '%s' "$line"
}
# kmemleak_clean: two kmemleak scans find no leak; an error in errs and
# status 1 when there are leaks or kmemleak does not work (a detector that
# disabled itself refuses the scan)
kmemleak_clean() {
	local out i
	for i in 1 2; do
		if ! out=$( (echo scan > "$KMEMLEAK") 2>&1); then
			errs+=("kmemleak scan $i failed (is kmemleak disabled?): $out" \
				"$(dmesg | grep -i kmemleak | tail -n 3)")
			return 1
		fi
		sleep 1
	done
	if ! out=$(cat "$KMEMLEAK" 2>&1); then
		errs+=("reading $KMEMLEAK failed: $out")
		return 1
	fi
	[ -z "$out" ] && return 0
	errs+=("kmemleak reports:" "$(printf '%s\n' "$out" | head -n 40)")
	return 1
}

bdf=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x10f0 ]; then
		bdf=$(basename "$d")
	fi
done
[ -n "$bdf" ] || echo "sfab-check: no sfab-hca PCI function found"

# ---- guest/probe -----------------------------------------------------------
set_fw good
# leaks from before this tier are not ours; guest/kernel-log scans at the end
if ! out=$( (echo clear > "$KMEMLEAK") 2>&1); then
	echo "kmemleak: clear failed: $out" >> "$SFAB_OUT/kmemleak.err"
fi
m=$(dmesg_mark)
probe_ok=0
if [ -z "$bdf" ]; then
	res fail guest/probe "no PCI function 1af4:10f0 in the guest"
elif ! out=$(insmod "$SFAB_MODDIR/sfab.ko" 2>&1); then
	res fail guest/probe "insmod sfab.ko failed: $out" "$(dmesg_since "$m")"
elif ! wait_for present "$IBDEV"; then
	res fail guest/probe "sfab_0 did not appear" "$(dmesg_since "$m")"
else
	drv=$(basename "$(readlink "/sys/bus/pci/devices/$bdf/driver")")
	nt=$(cat "$IBDEV/node_type")
	errs=()
	kreports_since "$m"
	bad=$(dmesg_since "$m" | grep -E 'sfab.*(fail|error)' || true)
	[ -z "$bad" ] || errs+=("driver errors:" "$bad")
	if [ "$drv" = sfab ] && [ "$nt" = "1: CA" ] && [ ${#errs[@]} = 0 ]; then
		res ok guest/probe
		probe_ok=1
	else
		res fail guest/probe "driver=$drv node_type=$nt" "${errs[@]}"
	fi
fi

# ---- guest/devinfo ---------------------------------------------------------
if [ $probe_ok = 1 ]; then
	errs=()
	info=$(ibv_devinfo -v -d sfab_0 2>&1) || errs+=("ibv_devinfo failed")
	expect() {	# expect FIELD VALUE
		printf '%s\n' "$info" | grep -qE "^[[:space:]]*$1:[[:space:]]+$2\$" ||
			errs+=("ibv_devinfo: $1 is not '$2': $(printf '%s\n' "$info" | grep -E "^[[:space:]]*$1:" | head -n 1)")
	}
	expect hca_id sfab_0
	expect transport 'InfiniBand \(0\)'
	expect fw_ver "$FWVER"
	expect node_guid "$(cat "$IBDEV/node_guid")"
	expect vendor_part_id 4336
	expect hw_ver 0x1
	expect board_id SFAB-HCA-400
	expect phys_port_cnt 1
	expect max_qp 16384
	# the image says 65536; 16-bit ring indices hold 2^15 (sfab_query_device)
	expect max_cqe 32768
	expect max_mr 65536
	expect max_pd 16384
	expect state 'PORT_DOWN \(1\)'
	expect phys_state 'POLLING \(2\)'
	expect link_layer InfiniBand
	[ "$(cat "$IBDEV/node_guid")" != 0000:0000:0000:0000 ] || errs+=("node_guid is zero")
	[ "$(cat "$IBDEV/fw_ver")" = "$FWVER" ] || errs+=("sysfs fw_ver $(cat "$IBDEV/fw_ver") != image $FWVER")
	[ "$(cat "$IBDEV/board_id")" = SFAB-HCA-400 ] || errs+=("sysfs board_id")
	[ -n "$(cat "$IBDEV/hca_type")" ] || errs+=("sysfs hca_type empty")
	ibv_devices | grep -qE '^[[:space:]]+sfab_0[[:space:]]' || errs+=("ibv_devices lacks sfab_0")
	# a user context (doorbell page mmap) and a PD through pyverbs
	py=$(python3 - 2>&1 <<'PY'
from pyverbs.device import Context
from pyverbs.pd import PD
ctx = Context(name='sfab_0')
pd = PD(ctx)
print('pd-ok', ctx.query_port(1).state)
pd.close()
ctx.close()
PY
) || errs+=("pyverbs context/PD failed: $py")
	case "$py" in *pd-ok*) ;; *) errs+=("pyverbs: $py") ;; esac
	# hardware counters: the firmware PMA through MAD_IFC (get_hw_stats)
	st=$(rdma statistic show link sfab_0/1 2>&1) ||
		errs+=("rdma statistic show link sfab_0/1 failed: $st")
	# every counter there, each once: the PMA's (traffic and errors) and
	# the transport and doorbell counters of QUERY_STATS (these always
	# move: the kernel rings doorbells); the error and transport ones
	# all 0 on a port that carried no traffic
	for c in port_xmit_wait port_xmit_data port_rcv_data port_xmit_packets \
		port_rcv_packets link_downed db_writes_cpu db_writes_peer; do
		cnt_one rs_val "$st" "$c" > /dev/null || errs+=("rdma statistic: no $c: $st")
	done
	bad=$(cnt_zero rs_val "$st" $HCA_RS_ERRORS $HCA_RS_TRANSPORT)
	[ -z "$bad" ] || errs+=("rdma statistic: $bad")
	# the PMA attributes ib_core's sysfs reads through process_mad
	pc=$(cat "$IBDEV/ports/1/counters/port_xmit_wait" 2>&1)
	[[ "$pc" =~ ^[0-9]+$ ]] || errs+=("sysfs counters/port_xmit_wait: $pc")
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/devinfo
	else
		res fail guest/devinfo "${errs[@]}" "$info"
	fi
else
	res fail guest/devinfo "sfab_0 did not probe"
fi

# ---- guest/uverbs -----------------------------------------------------------------
# user verbs objects through libsfab (pyverbs): CQ, UD/RC/UC QPs, an SRQ and
# a QP on it, MRs, AHs (LID and GRH), each created, queried and destroyed;
# sfabdv_query_device's capabilities and limits; the doorbell page's
# dma-buf export (sfabdv_query_db, sfabdv_export_db_dmabuf); what the
# device cannot do refused with a clean error; a process killed holding
# objects leaves none behind (restrack), no kernel warnings
if [ $probe_ok = 1 ]; then
	errs=()
	m=$(dmesg_mark)
	base=
	restrack base
	py=$(timeout 120 python3 - 2>&1 <<'PY'
import errno
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

ctx = Context(name='sfab_0')
da = ctx.query_device()
pd = PD(ctx)
cq = CQ(ctx, 100)
assert cq.cqe >= 100, cq.cqe
for t in (e.IBV_QPT_UD, e.IBV_QPT_RC, e.IBV_QPT_UC):
    qp = QP(pd, QPInitAttr(qp_type=t, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=20, max_recv_wr=30, max_send_sge=3,
                                     max_recv_sge=2, max_inline_data=64)))
    a, ia = qp.query(e.IBV_QP_CAP)
    c = ia.cap
    assert c.max_send_wr >= 20 and c.max_recv_wr >= 30, (c.max_send_wr, c.max_recv_wr)
    assert c.max_send_sge >= 3 and c.max_recv_sge >= 2 and c.max_inline_data >= 64
    qp.close()
    print('qp-ok', t)
srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=40, max_sge=2)))
assert srq.query().max_wr >= 40
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                       cap=QPCap(max_send_wr=4, max_recv_wr=0, max_recv_sge=0)))
qp.close()
srq.close()
print('srq-ok')
mr = MR(pd, 3 * 4096 + 100, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
        e.IBV_ACCESS_REMOTE_READ)
assert mr.lkey == mr.rkey and mr.lkey >> 8, hex(mr.lkey)
mr.close()
ah = AH(pd, attr=AHAttr(dlid=5, sl=1, port_num=1))
ah.close()
print('mr-ah-ok')

# libsfab's direct verbs (infiniband/sfabdv.h), as an application linked
# with -lsfab calls them: the capabilities of the QEMU HCA (doorbell BAR
# prefetchable, so mapped write-combining; send CQEs carry their WQE
# index; doorbell records) and the limits of firmware/sfab-hca.fwconf (max_qp_wr 16384,
# max_sge 16, max_inline 256)
import ctypes
class SfabdvDeviceAttr(ctypes.Structure):
    _fields_ = [('comp_mask', ctypes.c_uint64), ('device_caps', ctypes.c_uint32),
                ('max_sq_wr', ctypes.c_uint32), ('max_rq_wr', ctypes.c_uint32),
                ('max_sq_sge', ctypes.c_uint16), ('max_rq_sge', ctypes.c_uint16),
                ('max_inline_data', ctypes.c_uint32)]
SFABDV_DEVICE_CAPS_DB_WC, SFABDV_DEVICE_CAPS_CQE_WQE_INDEX, SFABDV_DEVICE_CAPS_DBREC = 1, 2, 4
ibv = ctypes.CDLL('libibverbs.so.1')
libsfab = ctypes.CDLL('libsfab.so.1')
ibv.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
ibv.ibv_get_device_list.argtypes = [ctypes.POINTER(ctypes.c_int)]
ibv.ibv_get_device_name.restype = ctypes.c_char_p
ibv.ibv_get_device_name.argtypes = [ctypes.c_void_p]
ibv.ibv_open_device.restype = ctypes.c_void_p
ibv.ibv_open_device.argtypes = [ctypes.c_void_p]
ibv.ibv_close_device.argtypes = [ctypes.c_void_p]
ibv.ibv_free_device_list.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
libsfab.sfabdv_query_device.argtypes = [ctypes.c_void_p, ctypes.POINTER(SfabdvDeviceAttr),
                                        ctypes.c_uint32]
n = ctypes.c_int()
devs = ibv.ibv_get_device_list(ctypes.byref(n))
dev = [devs[i] for i in range(n.value) if ibv.ibv_get_device_name(devs[i]) == b'sfab_0'][0]
c = ibv.ibv_open_device(dev)
assert c, 'ibv_open_device(sfab_0) failed'
dv = SfabdvDeviceAttr()
rc = libsfab.sfabdv_query_device(c, ctypes.byref(dv), ctypes.sizeof(dv))
assert rc == 0, 'sfabdv_query_device: %d' % rc
assert dv.comp_mask == 0, dv.comp_mask
assert dv.device_caps == SFABDV_DEVICE_CAPS_DB_WC | SFABDV_DEVICE_CAPS_CQE_WQE_INDEX | \
    SFABDV_DEVICE_CAPS_DBREC, hex(dv.device_caps)
got = (dv.max_sq_wr, dv.max_rq_wr, dv.max_sq_sge, dv.max_rq_sge, dv.max_inline_data)
assert got == (16384, 16384, 16, 16, 256), got
# a struct that ends before max_inline_data, or inside it (24, 27 bytes)
for short in (SfabdvDeviceAttr.max_inline_data.offset, SfabdvDeviceAttr.max_inline_data.offset + 3):
    rc = libsfab.sfabdv_query_device(c, ctypes.byref(dv), short)
    assert rc == errno.EINVAL, 'sfabdv_query_device, inlen %d: %d' % (short, rc)
ibv.ibv_close_device(c)

# the doorbell page as a dma-buf (sfabdv_query_db, sfabdv_export_db_dmabuf;
# the guest kernel has CONFIG_PCI_P2PDMA, so it exports with no importer
# in sight): a close-on-exec fd of the page's size that outlives its
# context, whose page goes to no other context while the fd is open
class SfabdvDbAttr(ctypes.Structure):
    _fields_ = [('comp_mask', ctypes.c_uint64), ('page_size', ctypes.c_uint32),
                ('page_index', ctypes.c_uint32), ('sq_offset', ctypes.c_uint32),
                ('rq_offset', ctypes.c_uint32), ('cq_offset', ctypes.c_uint32),
                ('srq_offset', ctypes.c_uint32)]
libsfab.sfabdv_query_db.argtypes = [ctypes.c_void_p, ctypes.POINTER(SfabdvDbAttr),
                                    ctypes.c_uint32]
libsfab.sfabdv_export_db_dmabuf.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
import fcntl
import os
def db_page(c):
    a = SfabdvDbAttr()
    rc = libsfab.sfabdv_query_db(c, ctypes.byref(a), ctypes.sizeof(a))
    assert rc == 0, 'sfabdv_query_db: %d' % rc
    got = (a.comp_mask, a.page_size, a.sq_offset, a.rq_offset, a.cq_offset, a.srq_offset)
    assert got == (0, 4096, 0, 8, 0x10, 0x20), got
    assert a.page_index >= 1, a.page_index
    return a.page_index
c = ibv.ibv_open_device(dev)
assert c, 'ibv_open_device(sfab_0) failed'
p1 = db_page(c)
rc = libsfab.sfabdv_query_db(c, ctypes.byref(SfabdvDbAttr()), SfabdvDbAttr.srq_offset.offset)
assert rc == errno.EINVAL, 'sfabdv_query_db, short: %d' % rc
assert libsfab.sfabdv_export_db_dmabuf(c, None) == errno.EINVAL
fd = ctypes.c_int(-1)
rc = libsfab.sfabdv_export_db_dmabuf(c, ctypes.byref(fd))
assert rc == 0 and fd.value >= 0, 'sfabdv_export_db_dmabuf: %d fd %d' % (rc, fd.value)
assert fcntl.fcntl(fd.value, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
assert os.lseek(fd.value, 0, os.SEEK_END) == 4096
ibv.ibv_close_device(c)
# the context is gone, its export revoked, the fd still there
assert os.lseek(fd.value, 0, os.SEEK_END) == 4096
c = ibv.ibv_open_device(dev)
assert c, 'ibv_open_device(sfab_0) failed'
p2 = db_page(c)
assert p2 != p1, 'page %d handed out again while exported' % p1
os.close(fd.value)
ibv.ibv_close_device(c)
ibv.ibv_free_device_list(devs)
print('sfabdv-ok caps %#x, doorbell pages %d %d' % (dv.device_caps, p1, p2))

def refused(what, fn, codes):
    try:
        fn()
    except PyverbsRDMAError as ex:
        if ex.error_code not in codes:
            raise AssertionError('%s: errno %d, want %s' % (what, ex.error_code, codes))
        print('refused', what, ex.error_code)
        return
    raise AssertionError('%s: accepted' % what)

refused('cq beyond max_cqe', lambda: CQ(ctx, da.max_cqe + 1), (errno.EINVAL,))
refused('resize_cq beyond max_cqe', lambda: cq.resize(da.max_cqe + 1), (errno.EINVAL,))
cq.resize(200)
assert cq.cqe >= 200, 'resize_cq to 200: cqe %d' % cq.cqe
refused('qp beyond max_sge', lambda: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
        cap=QPCap(max_send_sge=da.max_sge + 1))), (errno.EINVAL,))
refused('qp type', lambda: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RAW_PACKET, scq=cq, rcq=cq)),
        (errno.EOPNOTSUPP, errno.EINVAL))
refused('odp mr', lambda: MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND),
        (errno.EOPNOTSUPP, errno.EINVAL))
# the port has one GID: a GRH naming another index is refused
AH(pd, attr=AHAttr(dlid=5, port_num=1, is_global=1, gr=GlobalRoute(sgid_index=0))).close()
refused('ah with gid index 1', lambda: AH(pd, attr=AHAttr(dlid=5, port_num=1, is_global=1,
        gr=GlobalRoute(sgid_index=1))), (errno.EINVAL,))
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq))
a = QPAttr(qp_state=e.IBV_QPS_RTS)
refused('reset to rts', lambda: qp.modify(a, e.IBV_QP_STATE), (errno.EINVAL,))
print('done')
PY
)
	case "$py" in *done*) ;; *) errs+=("pyverbs objects: $py") ;; esac
	# a process killed while it holds objects: the kernel cleans up
	timeout 60 python3 - > /tmp/uverbs-kill.out 2>&1 <<'PY' &
import os, time
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
ctx = Context(name='sfab_0')
pd = PD(ctx)
cq = CQ(ctx, 10)
srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=10, max_sge=1)))
qps = [QP(pd, QPInitAttr(qp_type=t, scq=cq, rcq=cq)) for t in
       (e.IBV_QPT_UD, e.IBV_QPT_RC, e.IBV_QPT_UC)]
mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
print('holding', flush=True)
os.kill(os.getpid(), 9)
PY
	wait $!
	grep -q holding /tmp/uverbs-kill.out || errs+=("killed holder: $(cat /tmp/uverbs-kill.out)")
	after=
	if [ -n "$base" ] && restrack after; then
		[ "$base" = "$after" ] || errs+=("restrack before: $base" "restrack after: $after")
	fi
	kreports_since "$m"
	bad=$(dmesg_since "$m" | grep -E 'use-after|refused' || true)
	[ -z "$bad" ] || errs+=("dmesg:" "$bad")
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/uverbs "$(printf '%s\n' "$py" | grep -c refused) bad requests refused"
	else
		res fail guest/uverbs "${errs[@]}"
	fi
else
	res fail guest/uverbs "sfab_0 did not probe"
fi

# ---- kunit/* -----------------------------------------------------------------
# sfab_kunit.ko runs its suites when it loads; their KTAP results go to
# the share, where tests/guest/run-guest checks every case of every suite
# against the sources (tests/lib/ktap.py)
mkdir -p "$SFAB_OUT/kunit"
kout=$(insmod "$SFAB_MODDIR/sfab_kunit.ko" 2>&1) ||
	echo "insmod sfab_kunit.ko: $kout" > "$SFAB_OUT/kunit/insmod.err"
for f in /sys/kernel/debug/kunit/*/results; do
	[ -f "$f" ] || continue
	suite=$(basename "$(dirname "$f")")
	cp "$f" "$SFAB_OUT/kunit/$suite.ktap"
	echo "sfab-check: kunit $suite: $(grep -cE '^    ok ' "$f") ok," \
		"$(grep -cE '^ *not ok ' "$f") not ok, $(grep -c '# SKIP' "$f") skipped"
done
rmmod sfab_kunit 2>/dev/null

# ---- guest/dma-own-bar ---------------------------------------------------------
# the device's DMA pointed at its own BARs by the kernel: the KUnit suite
# sfab_dma_own_bar of sfab_kverbs_kunit.ko (the filter leaves out the
# module's other suite, which the verbs tier runs) makes an MR over the
# first pages of BAR0, BAR2 and BAR4 and sends RDMA WRITE, READ, SEND and
# receives into and out of them: each must fail with the IBA error, the
# device keep working, the kernel log stay clean and restrack return to
# its count
if [ -e "$IBDEV" ]; then
	errs=()
	m=$(dmesg_mark)
	restrack rt0
	glob=/sys/module/kunit/parameters/filter_glob
	# -n: the parameter keeps a newline as part of the glob
	if ! echo -n sfab_dma_own_bar > "$glob"; then
		errs+=("cannot set $glob")
	else
		kout=$(timeout 300 insmod "$SFAB_MODDIR/sfab_kverbs_kunit.ko" 2>&1) ||
			errs+=("insmod sfab_kverbs_kunit.ko: $kout")
		echo -n '*.*' > "$glob"
		f=/sys/kernel/debug/kunit/sfab_dma_own_bar/results
		if [ -f "$f" ]; then
			cp "$f" "$SFAB_OUT/dma-own-bar.ktap"
			kt=$(/usr/bin/python3 "$SFAB_TOP/tests/lib/ktap.py" \
				--suite sfab_dma_own_bar \
				"$SFAB_TOP/drivers/infiniband/hw/sfab/tests" "$f") ||
				errs+=("$kt" "$(grep -E 'Expected|ASSERT|EXPECT|BAR|wr_id' "$f" | head -n 20)")
		else
			errs+=("no KUnit results for sfab_dma_own_bar; debugfs kunit:" \
				"$(ls /sys/kernel/debug/kunit 2>&1)" "$(dmesg_since "$m" | tail -n 30)")
		fi
		[ -d /sys/kernel/debug/kunit/sfab_kverbs ] &&
			errs+=("the filter let suite sfab_kverbs run too")
		rmmod sfab_kverbs_kunit || errs+=("rmmod sfab_kverbs_kunit failed")
	fi
	ibv_devinfo -d sfab_0 > /dev/null 2>&1 || errs+=("ibv_devinfo after the suite failed")
	restrack rt1
	[ "${rt0:-}" = "${rt1:-}" ] || errs+=("restrack before: ${rt0:-?}" "restrack after:  ${rt1:-?}")
	kreports_since "$m"
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/dma-own-bar "$(grep -oE 'ok [0-9]+ sfab_dma_own_bar_[a-z]+' "$SFAB_OUT/dma-own-bar.ktap" | tr '\n' ' ')"
	else
		res fail guest/dma-own-bar "${errs[@]}"
	fi
else
	res fail guest/dma-own-bar "no sfab_0"
fi

# ---- guest/rebind-20 ----------------------------------------------------------
if [ $probe_ok = 1 ]; then
	errs=()
	base=
	restrack base
	out=$( (echo clear > "$KMEMLEAK") 2>&1) || errs+=("kmemleak clear failed: $out")
	m=$(dmesg_mark)
	for i in $(seq 20); do
		echo "$bdf" > "$DRV/unbind" || { errs+=("unbind $i failed"); break; }
		wait_for absent "$IBDEV" || { errs+=("sfab_0 still there after unbind $i"); break; }
		echo "$bdf" > "$DRV/bind" || { errs+=("bind $i failed"); break; }
		wait_for present "$IBDEV" || { errs+=("sfab_0 missing after bind $i"); break; }
		ibv_devinfo -d sfab_0 > /dev/null 2>&1 || errs+=("ibv_devinfo failed after bind $i")
	done
	after=
	if [ -n "$base" ] && restrack after; then
		[ "$base" = "$after" ] || errs+=("restrack before: $base" "restrack after: $after")
	fi
	kmemleak_clean
	kreports_since "$m"
	bad=$(dmesg_since "$m" | grep -E 'use-after' || true)
	[ -z "$bad" ] || errs+=("dmesg:" "$bad")
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/rebind-20 "20 cycles; restrack: $after; kmemleak clean"
	else
		res fail guest/rebind-20 "${errs[@]}"
	fi
else
	res fail guest/rebind-20 "sfab_0 did not probe"
fi

# ---- guest/bad-firmware --------------------------------------------------------
# each corrupt image (and a missing one) makes probe fail with one clear
# error line from the driver; then a good image binds again
declare -A why=([magic]='bad magic' [format]='unsupported format version'
	[size]='inconsistent size' [crc]='CRC mismatch' [profile]='bad device profile'
	[truncate]='inconsistent size' [missing]='')
if [ -n "$bdf" ]; then
	errs=()
	[ -e "$DRV/$bdf" ] && echo "$bdf" > "$DRV/unbind"
	mkdir -p "$FW/missing"
	for k in magic format size crc profile truncate missing; do
		set_fw "$k"
		m=$(dmesg_mark)
		if echo "$bdf" > "$DRV/bind" 2>/dev/null; then
			errs+=("$k: bind succeeded with a bad image")
			echo "$bdf" > "$DRV/unbind"
			continue
		fi
		[ -e "$DRV/$bdf" ] && errs+=("$k: device bound after failed probe")
		# the driver's own lines; the driver core's "probe with driver
		# sfab failed" and the loader's "failed to load" are not its
		msgs=$(dmesg_since "$m" | grep -E "sfab [0-9a-f]{4}:" |
			grep -vE 'probe with driver sfab failed|firmware: failed to load' || true)
		n=$(printf '%s' "$msgs" | grep -c . || true)
		[ "$n" = 1 ] || errs+=("$k: $n driver messages, want 1:" "$msgs")
		printf '%s' "$msgs" | grep -q 'sfab/sfab-hca.fw' || errs+=("$k: message does not name the image: $msgs")
		[ -z "${why[$k]}" ] || printf '%s' "$msgs" | grep -qF "${why[$k]}" ||
			errs+=("$k: message lacks '${why[$k]}': $msgs")
		bad=$(dmesg_since "$m" | "$SFAB_TOP/tools/sfab-kreport" -) || errs+=("$k: $bad")
		echo "sfab-check: bad-firmware $k: $msgs"
	done
	# the good image binds again, cleanly: no driver error, no kernel
	# report, the image's fw_ver
	set_fw good
	m=$(dmesg_mark)
	echo "$bdf" > "$DRV/bind" && wait_for present "$IBDEV" ||
		errs+=("good image does not bind again")
	ibv_devinfo -d sfab_0 > /dev/null 2>&1 || errs+=("ibv_devinfo after recovery failed")
	[ "$(cat "$IBDEV/fw_ver" 2>&1)" = "$FWVER" ] ||
		errs+=("fw_ver after recovery: $(cat "$IBDEV/fw_ver" 2>&1), want $FWVER")
	kreports_since "$m"
	msgs=$(dmesg_since "$m" | grep -E "sfab [0-9a-f]{4}:.*(fail|error|bad|invalid)" || true)
	[ -z "$msgs" ] || errs+=("driver errors on the good rebind:" "$msgs")
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/bad-firmware
	else
		res fail guest/bad-firmware "${errs[@]}"
	fi
else
	res fail guest/bad-firmware "no sfab-hca PCI function"
fi

# ---- guest/mmio-garbage --------------------------------------------------------
# random accesses of every size to BAR0 and the doorbell BAR with the driver
# unbound; QEMU must survive, and a rebind must bring the HCA back
if [ -n "$bdf" ]; then
	errs=()
	m=$(dmesg_mark)
	[ -e "$DRV/$bdf" ] && echo "$bdf" > "$DRV/unbind"
	py=$(python3 - "/sys/bus/pci/devices/$bdf" 2>&1 <<'PY'
import ctypes, mmap, os, random, sys
dev = sys.argv[1]
rng = random.Random(20261130)
n = 0
for res, count in (("resource0", 20000), ("resource2", 5000)):
    path = os.path.join(dev, res)
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDWR | os.O_SYNC)
    mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    types = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64)
    for i in range(count):
        t = rng.choice(types) if rng.random() < 0.2 else ctypes.c_uint32
        w = ctypes.sizeof(t)
        # mostly the register window where the device decodes, some anywhere
        span = 0x100 if (res == "resource0" and rng.random() < 0.7) else size
        off = rng.randrange(0, span - w + 1) & ~(w - 1)
        cell = t.from_buffer(mm, off)
        if rng.random() < 0.25:
            _ = cell.value
        else:
            cell.value = rng.getrandbits(8 * w)
        del cell
        n += 1
    mm.close()
    os.close(fd)
print("accesses", n)
PY
)
	echo "sfab-check: mmio-garbage: $py"
	case "$py" in accesses*) ;; *) errs+=("garbage writer failed: $py") ;; esac
	m2=$(dmesg_mark)
	echo "$bdf" > "$DRV/bind" && wait_for present "$IBDEV" ||
		errs+=("no sfab_0 after rebind" "$(dmesg_since "$m2")")
	ibv_devinfo -d sfab_0 > /dev/null 2>&1 || errs+=("ibv_devinfo after garbage failed")
	# the garbage and the rebind: no kernel report; the rebind as clean
	# as a first probe
	kreports_since "$m"
	msgs=$(dmesg_since "$m2" | grep -E "sfab [0-9a-f]{4}:.*(fail|error|bad|invalid)" || true)
	[ -z "$msgs" ] || errs+=("driver errors on the rebind:" "$msgs")
	if [ ${#errs[@]} = 0 ]; then
		res ok guest/mmio-garbage "$py; rebind ok"
	else
		res fail guest/mmio-garbage "${errs[@]}"
	fi
else
	res fail guest/mmio-garbage "no sfab-hca PCI function"
fi

# ---- guest/kernel-log ------------------------------------------------------------
# the last kmemleak scans of the tier; tests/guest/run-guest reads them
# with the whole kernel log (init.sh writes dmesg.log) for guest/kernel-log
errs=()
if kmemleak_clean; then
	: > "$SFAB_OUT/kmemleak.log"
else
	printf '%s\n' "${errs[@]}" > "$SFAB_OUT/kmemleak.log"
fi
exit 0
