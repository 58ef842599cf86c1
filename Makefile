# SPDX-License-Identifier: GPL-2.0-only
# bpf_rtguard: build the patched guest kernel, the module, the tests and the
# initramfs, then boot the guest under QEMU.
#
#   make run      build everything, boot, show the demo
#   make check    build everything, boot, run the test suite
#   make bench    build everything, boot, run the benchmarks
#   make shell    build everything, boot to a guest shell
#
# The kernel tree and its build live in $(RTGUARD_CACHE), outside the
# repository; every step rebuilds only what changed.

export RTGUARD_CACHE ?= /var/cache/bpf_rtguard
KSRC := $(RTGUARD_CACHE)/linux-source-6.12
KOBJ := $(RTGUARD_CACHE)/build
TOOLS := $(RTGUARD_CACHE)/tools
export OUT := $(CURDIR)/build

.PHONY: all setup kernel tools module tests initramfs run check bench shell \
	checkpatch clean

all: initramfs

setup:
	scripts/setup-host.sh

kernel: setup
	scripts/build-kernel.sh

tools: kernel
	scripts/build-tools.sh

module: kernel
	$(MAKE) -s -C $(KOBJ) M=$(CURDIR) modules

tests: tools
	$(MAKE) -s -C tests KSRC=$(KSRC) KOBJ=$(KOBJ) TOOLS=$(TOOLS) \
		OUT=$(OUT)/tests

initramfs: module tests
	scripts/mkinitramfs.sh

run: initramfs
	scripts/run-guest.sh demo $(OUT)/guest-demo.log

check: initramfs
	scripts/check.sh

bench: initramfs
	scripts/run-guest.sh bench $(OUT)/guest-bench.log

shell: initramfs
	scripts/run-guest.sh shell /dev/null

checkpatch: kernel
	scripts/checkpatch.sh

clean:
	$(MAKE) -s -C $(KOBJ) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf $(OUT)
