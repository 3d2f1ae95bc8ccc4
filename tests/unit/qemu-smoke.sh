#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# unit/qemu-smoke: the real QEMU sfab-hca driven over qtest, no guest:
# registers, admin queue, MSI-X delivery and masking, firmware, random BAR
# writes, trace events and guest-error logging; the cable backend; the
# sfab-accel test accelerator running a program next to the HCA
# (qemu-model/tests/sfab-qtest-smoke.py).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
qemu=$("$top/tools/setup/build-qemu.sh" | tail -n 1)
exec /usr/bin/python3 "$top/qemu-model/tests/sfab-qtest-smoke.py" "$qemu"
