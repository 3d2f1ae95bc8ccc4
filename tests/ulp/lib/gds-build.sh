#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# gds-build.sh: what GPU-direct storage in a guest needs (lib/gds.bash),
# for ulp/gds-p2p (tests/ulp/run-ulp) and the benchmark (make bench):
# gds-read, and nvme-rdma.ko built from the guest kernel's own source with
# nvme-rdma-p2pdma.patch (the P2PDMA capability Linux 6.12's nvme-rdma
# lacks), both in build/ulp/gds ($SFAB_BUILD/ulp/gds) where the guests find them.  Needs
# build/guest.env (make guest-prereqs).  The compiler's output goes to
# stdout; non-zero exit on failure.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
lib=$top/tests/ulp/lib
build=${SFAB_BUILD:-$top/build}
d=$build/ulp/gds
. "$build/guest.env"
ksrc=$(readlink -f "$KDIR/source")
rm -rf "$d"
mkdir -p "$d/nvme-rdma"
gcc -O2 -g -Wall -Wextra -Werror -I"$top/include" -I"$top/include/uapi" \
	-I"$top/tools/sfab-accel" -o "$d/gds-read" "$lib/gds_read.c" \
	"$top/tools/sfab-accel/accel.c"
cp "$ksrc/drivers/nvme/host/rdma.c" "$d/nvme-rdma/"
patch -s -p4 -d "$d/nvme-rdma" < "$lib/nvme-rdma-p2pdma.patch"
printf 'obj-m := nvme-rdma.o\nnvme-rdma-y := rdma.o\nccflags-y := -I%s/drivers/nvme/host\n' \
	"$ksrc" > "$d/nvme-rdma/Kbuild"
make -C "$KDIR" M="$d/nvme-rdma" modules
