# SPDX-License-Identifier: GPL-2.0-only
#
# sfab: one entry point.
#
#   make            firmware, host tools, kernel modules, QEMU, rdma-core,
#                   sfab-switchd
#   make check      every test a change must pass (TESTS=<glob> for a subset)
#   make check-kasan the guest tiers on the KASAN guest kernel
#   make check-kunit-py the KUnit suites through kunit.py (its own kernel)
#   make soak       DURATION=10m of mixed traffic under faults, checked
#   make demo       the 2-node fabric: two guests, a switch, opensm, diags
#   make lab        an interactive fabric lab (TOPO=<topology file>)
#   make clean      remove build/ (caches in ~/.cache/sfab stay)
#
# Heavy builds (guest kernel, QEMU, rdma-core) are cached outside the
# checkout in $(SFAB_CACHE), keyed by a hash of their inputs.

TOP := $(CURDIR)
# the build directory; a make run by a test (SFAB_BUILD in its
# environment) stays on the build of the make check that started it
O ?= $(or $(SFAB_BUILD),$(TOP)/build)
override O := $(abspath $(O))
export SFAB_BUILD := $(O)
SETUP := $(TOP)/tools/setup
CC ?= gcc
SHELL := /bin/bash
HOST_CFLAGS := -O2 -g -Wall -Wextra -Werror -I$(TOP)/include

.PHONY: all deps firmware fwpack kernel modules qemu rdma-core switch tools accel-tool \
	guest-prereqs prereqs check check-kasan check-kunit-py soak fuzz fuzz-qemu demo bench bench-scale demo-devinfo lab unit sim sim-scale clean

all: firmware modules qemu tools

deps:
	@$(SETUP)/host-deps.sh

# --- firmware -------------------------------------------------------------
FWPACK := $(O)/firmware/sfab-fwpack
FW := $(O)/firmware/sfab/sfab-hca.fw

fwpack: $(FWPACK)
$(FWPACK): firmware/sfab-fwpack.c $(wildcard include/sfab/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $<

firmware: $(FW)
$(FW): firmware/sfab-hca.fwconf $(FWPACK)
	@mkdir -p $(dir $@)
	$(FWPACK) -o $@ $<

# --- guest kernel and the driver -------------------------------------------
kernel:
	@$(SETUP)/build-kernel.sh

# The out-of-tree build writes objects next to its sources, so build a
# mirror of the tree under $(O)/driver; the driver's relative include
# path then finds the mirrored include/.
# Both drivers land in $(O)/modules: sfab.ko (and its KUnit modules) and
# sfab_accel.ko, the test accelerator's driver.
DRV_MIRROR := $(O)/driver
DRV_DIRS := drivers/infiniband/hw/sfab drivers/misc/sfab_accel
modules:
	@set -o pipefail && kdir=$$($(SETUP)/build-kernel.sh | tail -n 1) && \
	mkdir -p $(DRV_MIRROR)/include && \
	for d in $(DRV_DIRS); do \
		mkdir -p $(DRV_MIRROR)/$$d && \
		rsync -rc --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			--exclude='*.mod*' --exclude='Module.symvers' --exclude='modules.order' \
			$$d/ $(DRV_MIRROR)/$$d/ || exit 1; \
	done && \
	rsync -rc --delete include/ $(DRV_MIRROR)/include/ && \
	for d in $(DRV_DIRS); do \
		$(MAKE) -s -C $$kdir O=$$kdir M=$(DRV_MIRROR)/$$d modules || exit 1; \
	done && \
	mkdir -p $(O)/modules && \
	cp $$(for d in $(DRV_DIRS); do find $(DRV_MIRROR)/$$d -name '*.ko'; done) $(O)/modules/

# --- QEMU and rdma-core ----------------------------------------------------
# build/qemu/qemu-system-x86_64: the cached QEMU under a fixed name, for
# PATH (kunit.py runs "qemu-system-x86_64", Documentation/sfab/testing.rst)
qemu:
	@set -o pipefail && q=$$($(SETUP)/build-qemu.sh | tail -n 1) && \
	mkdir -p $(O)/qemu && ln -sfn "$$q" $(O)/qemu/qemu-system-x86_64

rdma-core:
	@$(SETUP)/build-rdma-core.sh

switch:
	@$(MAKE) -s -C qemu-model/switch O=$(O)

# the test accelerator's library and CLI (tools/sfab-accel)
ACCEL_TOOL := $(O)/tools/sfab-accel
ACCEL_TOOL_SRCS := tools/sfab-accel/sfab-accel.c tools/sfab-accel/accel.c
accel-tool: $(ACCEL_TOOL)
$(ACCEL_TOOL): $(ACCEL_TOOL_SRCS) tools/sfab-accel/accel.h \
		include/uapi/misc/sfab_accel.h $(wildcard include/sfab/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -I$(TOP)/include/uapi -o $@ $(ACCEL_TOOL_SRCS)

tools: fwpack rdma-core switch accel-tool

# paths a guest needs, for tools/sfab-vm
guest-prereqs: firmware modules
	@set -o pipefail && \
	q=$$($(SETUP)/build-qemu.sh | tail -n 1) && \
	k=$$($(SETUP)/build-kernel.sh | tail -n 1) && \
	r=$$($(SETUP)/build-rdma-core.sh | tail -n 1) && \
	test -x "$$q" && test -f "$$k/arch/x86/boot/bzImage" && test -d "$$r/lib" && \
	printf "QEMU='%s'\nKDIR='%s'\nRDMA='%s'\nMODDIR='%s'\nFWDIR='%s'\n" \
		"$$q" "$$k" "$$r" "$(O)/modules" "$(O)/firmware" > $(O)/guest.env

# --- tests and demos -------------------------------------------------------
# every cached build the tests use, built before the tests run so that a
# first run shows its progress (tools/setup/lib.sh sfab_run) instead of
# spending minutes inside a test whose output is captured
prereqs: guest-prereqs switch
	@$(SETUP)/build-rdma-core.sh > /dev/null

check: deps
	@$(MAKE) -s prereqs || echo "sfab: building what the tests need failed (above); the tests that need it fail"
	@/usr/bin/python3 $(TOP)/tests/run $(if $(TESTS),--tests '$(TESTS)')

unit:
	@/usr/bin/python3 $(TOP)/tests/run --tests 'unit/*'

# the fabric simulation's small scenarios (tools/sim on ns-3; in make check)
sim: deps
	@$(MAKE) -s prereqs || echo "sfab: building what sim/live-crosscheck's lab needs failed (above)"
	@/usr/bin/python3 $(TOP)/tests/run --tests 'sim/*'

# the fabric simulation at growing sizes, one process each: fat trees of
# 16 HCAs and up and a dragonfly, as far as SFAB_SIM_SCALE_S seconds
# (default 720) allow; build/sim/scale/results.txt and its plots
sim-scale: deps
	@/usr/bin/python3 $(TOP)/tools/sim/scale.py

# build/kunit-py: the driver's KUnit suites through kunit.py, the way
# kernel CI runs them, on a kernel of kunit.py's own (about 19 minutes to
# build on 2 cores, so not in make check, whose guest tier runs the same
# suites as modules: kunit/*)
check-kunit-py: deps
	@$(MAKE) -s guest-prereqs && $(SETUP)/build-kunit.sh > /dev/null || \
		echo "sfab: building the kunit.py kernel failed (above); the test fails"
	@/usr/bin/python3 $(TOP)/tests/run --tests build/kunit-py

# DURATION of mixed RC/UD traffic with link faults and opensm restarts
# on the leaf/spine fabric, every byte checked; a table at the end
# (tests/soak/run-soak, Documentation/sfab/reliability.rst, "Soak")
DURATION ?= 10m
soak: deps
	@$(MAKE) -s prereqs || echo "sfab: building what the soak needs failed (above); it fails"
	@DURATION='$(DURATION)' /usr/bin/python3 $(TOP)/tests/run --tests soak/mixed,soak/kernel-log

# every libFuzzer target (tests/fuzz) FUZZ_S seconds, growing the corpus
# kept in ~/.cache/sfab/fuzz; executions per target in build/fuzz/results.txt
FUZZ_S ?= 600
fuzz: deps
	@mkdir -p $(O)/fuzz
	@echo "# make fuzz FUZZ_S=$(FUZZ_S), $$(date -u +%Y-%m-%dT%H:%MZ), $$(git -C $(TOP) describe --always --dirty 2>/dev/null)" >>$(O)/fuzz/results.txt
	@$(TOP)/tests/fuzz/run -s $(FUZZ_S) -o $(O)/tests/fuzz \
		-c $${SFAB_CACHE:-$$HOME/.cache/sfab}/fuzz -r $(O)/fuzz/results.txt \
		$(FUZZ_TARGETS)

# QEMU's own fuzzer (generic-fuzz) over sfab-hca for FUZZ_S seconds
# (tests/fuzz/qemu-fuzz), the corpus kept in ~/.cache/sfab/fuzz/qemu;
# the result in build/fuzz/results.txt
fuzz-qemu: deps
	@mkdir -p $(O)/fuzz
	@echo "# make fuzz-qemu FUZZ_S=$(FUZZ_S), $$(date -u +%Y-%m-%dT%H:%MZ), $$(git -C $(TOP) describe --always --dirty 2>/dev/null)" >>$(O)/fuzz/results.txt
	@$(TOP)/tests/fuzz/qemu-fuzz -s $(FUZZ_S) -o $(O)/tests/fuzz \
		-c $${SFAB_CACHE:-$$HOME/.cache/sfab}/fuzz/qemu -r $(O)/fuzz/results.txt

# the guest tiers again on the KASAN guest kernel (SFAB_KERNEL=kasan:
# tests/configs/guest-kernel-kasan.config on top of the guest kernel's,
# cached under a key of its own), in a build directory of its own
# ($(O)/kasan: the driver built against that kernel); the results are
# named kasan/TIER/NAME.  KASAN_TESTS (globs, as TESTS) picks the tiers;
# Documentation/sfab/testing.rst, "make check-kasan", has their times.
KASAN_TESTS ?= guest/*,kunit/*,verbs/*,fault/*,devlink/*
check-kasan: deps
	@$(MAKE) -s O=$(O)/kasan SFAB_KERNEL=kasan guest-prereqs switch rdma-core || \
		echo "sfab: building what the KASAN tests need failed (above); the tests that need it fail"
	@SFAB_KERNEL=kasan SFAB_BUILD=$(O)/kasan /usr/bin/python3 $(TOP)/tests/run \
		--prefix kasan/ --tests '$(or $(TESTS),$(KASAN_TESTS))'

# the 2-node fabric with opensm (tools/demo/fabric.sh); demo-devinfo: the
# single-guest description of the HCA
demo: deps
	@$(TOP)/tools/demo/fabric.sh

# sfab against rdma_rxe on the same two guests (not a pass/fail test):
# build/bench/results.txt, Documentation/sfab/benchmark.rst
# BENCH_CASES='write_lat_2 *_bw_65536' BENCH_DEVS=sfab_0: a part of it
bench: deps
	@BENCH_CASES='$(BENCH_CASES)' BENCH_DEVS='$(BENCH_DEVS)' \
		$(TOP)/tools/bench/sfab-vs-rxe.sh

# the same phases on 2, 4 and 8 guests and on leaf/spine: build/bench/scale.txt
bench-scale: deps
	@SCALE_TOPOS='$(SCALE_TOPOS)' SCALE_PERF='$(SCALE_PERF)' $(TOP)/tools/bench/scale.sh

demo-devinfo: deps
	@$(TOP)/tools/sfab-vm --script $(TOP)/tools/demo/devinfo.sh --timeout 300

# an interactive fabric: TOPO=<file> (default two nodes on one switch)
TOPO ?= $(TOP)/tests/configs/topologies/2node.topo
lab: deps
	@$(TOP)/tools/sfab-lab shell $(TOPO)

clean:
	rm -rf $(O)
