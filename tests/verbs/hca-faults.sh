#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/hca-faults: faults injected into the HCA model of a running lab
# (tools/sfab-lab inject: QMP qom-set hca0 inject; registers.rst, "Fault
# injection") and what sfab.ko makes of them, on the 4-node fabric with
# opensm on n1.  n2's device goes fatal: IBV_EVENT_DEVICE_FATAL reaches
# a process (ibv_asyncwatch) and the kernel log says why; n3's device
# stops answering MMIO (BAR0 reads all ones): the health poll finds it
# within seconds, the same event, no oops; both recover (the driver
# releases, resets and takes the function again): sfab_0 is back with
# its port Active and works; n2 then has its function reset through sysfs
# under a process that holds it: the same event and recovery; n4's next
# admin command fails
# (an ibv_create_cq fails with EIO, the next works), then an admin
# completion's interrupt is lost (the command still completes, found when
# the driver stops waiting), then its admin queue stalls (the command
# times out with ETIME, the device is lost and recovered).  Halves: lib/hca-faults.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab hca-faults 4node.topo 400
grep -q '^ok: hca-faults done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
