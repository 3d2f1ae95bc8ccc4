#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test of tools/sfab-kreport, the one list of kernel report patterns
# every guest tier fails on: each kind of report the debug kernels print
# (BUG, WARNING, lockdep, KASAN, UBSAN, KFENCE, DMA-API debug, debug
# objects, kmemleak, hung tasks, RCU stalls) is found in a log, a clean
# log and the messages the fault tests cause on purpose are not, and the
# fence ("sfab-kreport: ignore from here") hides what it fences only.
#
#   tests/unit/kreport.sh   (unit/kreport in make check)
set -u
kreport=$(cd "$(dirname "$0")/../.." && pwd)/tools/sfab-kreport
bad=0

# found LINE: sfab-kreport finds LINE in a log of ordinary lines
found() {
	local out
	out=$(printf '[    1.000] sfab 0000:00:04.0: sfab_0: firmware 1.2.0\n[    2.000] %s\n[    3.000] ok\n' "$1" |
		"$kreport" -)
	if [ $? = 1 ] && grep -qF -- "$1" <<< "$out"; then
		echo "ok found: $1"
	else
		echo "not ok found: $1 (got '$out')"
		bad=1
	fi
}

# clean LINE: LINE alone is no report
clean() {
	if printf '[    2.000] %s\n' "$1" | "$kreport" - > /dev/null; then
		echo "ok clean: $1"
	else
		echo "not ok clean: $1"
		bad=1
	fi
}

found "BUG: kernel NULL pointer dereference, address: 0000000000000008"
found "WARNING: CPU: 0 PID: 12 at drivers/infiniband/hw/sfab/sfab_main.c:100 sfab_probe+0x10/0x20 [sfab]"
found "WARNING: possible circular locking dependency detected"
found "BUG: KASAN: slab-use-after-free in sfab_destroy_cq+0x1c/0x90 [sfab]"
found "UBSAN: array-index-out-of-bounds in drivers/infiniband/hw/sfab/sfab_datapath.c:10:3"
found "BUG: KFENCE: out-of-bounds read in sfab_poll_cq+0x4/0x10 [sfab]"
found "DMA-API: sfab 0000:00:04.0: device driver frees DMA memory with wrong function"
found "ODEBUG: free active (active state 0) object: 00000000a1b2c3d4 object type: timer_list hint: sfab_health_work+0x0/0x80 [sfab]"
found "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
# a /sys/kernel/debug/kmemleak entry, as the tests save it
out=$(printf 'unreferenced object 0xffff888004a1c000 (size 64):\n  comm "insmod", pid 90\n' | "$kreport" -)
if [ $? = 1 ]; then echo "ok found: a kmemleak entry"; else echo "not ok found: a kmemleak entry"; bad=1; fi
found "INFO: task kworker/0:1:25 blocked for more than 120 seconds."
found "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
found "refcount_t: underflow; use-after-free."
found "list_add corruption. prev->next should be next (ffff888004a1c000)"
found "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283"
found "DMA-API: debugging out of memory - disabling"
clean "DMA-API: preallocated 65536 debug entries"
clean "DMA-API: debugging enabled by kernel config"
clean "sfab 0000:00:04.0: device lost: injected (6) (6)"
clean "sfab 0000:00:04.0: recovery: the device is back"
clean "FAULT_INJECTION: forcing a failure."
clean "sfab: probe of 0000:00:04.0 failed with error -12"
clean "sfab 0000:00:04.0: devlink flash: image rejected: bad CRC"

# DMA-API's overlap report for two MRs of a process over the same bytes
# (ib_umem_get) is no bug report, its "Mapped at:" frames neither; the
# same report from another path is, and so is what follows the block
overlap() {
	cat <<EOT
[   73.000364] DMA-API: sfab 0000:03:00.0: cacheline tracking EEXIST, overlapping mappings aren't supported
[   73.001215] WARNING: CPU: 0 PID: 262 at kernel/dma/debug.c:601 add_dma_entry+0x1a6/0x1c6
[   73.003347] Call Trace:
[   73.003691]  debug_dma_map_sg+0x28e/0x2b1
[   73.003880]  $1+0x274/0x2fb
[   73.003910]  sfab_reg_user_mr+0x264/0x333 [sfab]
[   73.004705] ---[ end trace 0000000000000000 ]---
[   73.005813] DMA-API: Mapped at:
[   73.005880]  debug_dma_map_sg+0xab/0x2b1
[   73.005950]  $1+0x274/0x2fb
[   74.000000] sfab 0000:03:00.0: next message
EOT
}
out=$(overlap ib_umem_get | "$kreport" -)
if [ $? = 0 ]; then echo "ok clean: ib_umem_get overlap report"; else echo "not ok clean: ib_umem_get overlap report: $out"; bad=1; fi
out=$(overlap nvme_rdma_alloc_qe | "$kreport" -)
if [ $? = 0 ]; then echo "ok clean: nvme_rdma_alloc_qe overlap report"; else echo "not ok clean: nvme_rdma_alloc_qe overlap report: $out"; bad=1; fi
out=$(overlap sfab_map_ring | "$kreport" -)
if [ $? = 1 ] && grep -q "Mapped at" <<< "$out" && grep -q "WARNING" <<< "$out"; then
	echo "ok found: an overlap report from the driver"
else
	echo "not ok found: an overlap report from the driver: $out"; bad=1
fi
out=$({ overlap ib_umem_get; echo "[   75.000000] BUG: unable to handle page fault"; } | "$kreport" -)
if [ $? = 1 ] && grep -q "BUG: unable" <<< "$out" && ! grep -q "DMA-API" <<< "$out"; then
	echo "ok found: a report after an overlap report"
else
	echo "not ok found: a report after an overlap report: $out"; bad=1
fi

# lockdep's report on fail_function's own get_random() in the kprobe
# handler (the lockdep kernel, make check-kasan) is no bug report; the
# same report through another path is, and so is what follows it
fei() {
	cat <<EOT
[  312.1] WARNING: inconsistent lock state
[  312.1] inconsistent {INITIAL USE} -> {IN-NMI} usage.
[  312.1] ffff88800c036e60 (batched_entropy_u8.lock){....}-{2:2}, at: local_lock_acquire+0x1d/0x118
[  312.1] stack backtrace:
[  312.1] Call Trace:
[  312.1]  <TASK>
[  312.1]  get_random_u8+0xa2/0x233
[  312.1]  $1+0x2b4/0x4bd
[  312.1]  $2+0x1d/0x81
[  312.1]  sfab_create_cq+0xabc/0xda3 [sfab]
[  312.1]  </TASK>
EOT
}
out=$(fei should_fail_ex fei_kprobe_handler | "$kreport" -)
if [ $? = 0 ]; then echo "ok clean: fail_function's lockdep report"; else echo "not ok clean: fail_function's lockdep report: $out"; bad=1; fi
out=$(fei sfab_poll_cq sfab_create_cq | "$kreport" -)
if [ $? = 1 ] && grep -q "inconsistent lock state" <<< "$out"; then
	echo "ok found: an inconsistent lock state elsewhere"
else
	echo "not ok found: an inconsistent lock state elsewhere: $out"; bad=1
fi
out=$({ fei should_fail_ex fei_kprobe_handler; echo "[  313.0] BUG: KASAN: use-after-free"; } | "$kreport" -)
if [ $? = 1 ] && grep -q "BUG: KASAN" <<< "$out" && ! grep -q "inconsistent" <<< "$out"; then
	echo "ok found: a report after fail_function's lockdep report"
else
	echo "not ok found: a report after fail_function's lockdep report: $out"; bad=1
fi

# lockdep's report on pciehp's own reset_lock and pci_rescan_remove_lock
# at a hot-unplug (the lockdep kernel) is no bug report; a circular
# dependency between other locks, or through another function, is
circ() {
	cat <<EOT
[  643.1] WARNING: possible circular locking dependency detected
[  643.1] irq/24-pciehp/35 is trying to acquire lock:
[  643.1] ffff88800746bb00 ($1){.+.+}-{3:3}, at: $3+0x23d/0x2cc
[  643.1] but task is already holding lock:
[  643.1] ffffffff828837e8 ($2){+.+.}-{3:3}, at: $3+0x18b/0x2cc
[  643.1] Call Trace:
[  643.1]  <TASK>
[  643.1]  __lock_acquire+0x1fe5/0x27e1
[  643.1]  $3+0x23d/0x2cc
[  643.1]  pciehp_disable_slot+0x14f/0x21c
[  643.1]  </TASK>
EOT
}
out=$(circ '&ctrl->reset_lock' pci_rescan_remove_lock pciehp_unconfigure_device | "$kreport" -)
if [ $? = 0 ]; then echo "ok clean: pciehp's lockdep report"; else echo "not ok clean: pciehp's lockdep report: $out"; bad=1; fi
out=$(circ '&dev->event_lock' pci_rescan_remove_lock pciehp_unconfigure_device | "$kreport" -)
if [ $? = 1 ] && grep -q "circular locking" <<< "$out"; then
	echo "ok found: a circular dependency on another lock"
else
	echo "not ok found: a circular dependency on another lock: $out"; bad=1
fi
out=$(circ '&ctrl->reset_lock' pci_rescan_remove_lock sfab_remove | "$kreport" -)
if [ $? = 1 ] && grep -q "circular locking" <<< "$out"; then
	echo "ok found: the same locks through another function"
else
	echo "not ok found: the same locks through another function: $out"; bad=1
fi

# a fenced report does not count; one after the fence ends does
out=$(printf '%s\n' "sfab-kreport: ignore from here: rxe" "WARNING: CPU: 0 at rxe" \
	"sfab-kreport: ignore ends" | "$kreport" -)
if [ $? = 0 ]; then echo "ok fenced"; else echo "not ok fenced: $out"; bad=1; fi
out=$(printf '%s\n' "sfab-kreport: ignore from here: rxe" "sfab-kreport: ignore ends" \
	"WARNING: CPU: 0 at sfab" | "$kreport" -)
if [ $? = 1 ]; then echo "ok after the fence"; else echo "not ok after the fence"; bad=1; fi
exit $bad
