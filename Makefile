# SPDX-License-Identifier: GPL-2.0-only
# bpf_rtguard: build the patched guest kernel, the module, the tests and the
# initramfs, then boot the guest under QEMU.
#
#   make run          build everything, boot, show the demo
#   make check        build everything, boot, run the test suite
#                     (TESTS=test[/subtest],... runs a selection)
#   make check-debug  the same suite on the debug kernel (KASAN, kmemleak, ...)
#   make bench        build everything, boot, run the benchmarks
#   make shell        build everything, boot to a guest shell
#   make selftests    the kernel's BPF selftests (test_progs) in the guest
#                     under every module mode, compared to the module absent
#                     (ST_GROUPS=g1,g2 and ST_MODES=m1,m2 select)
#   make selftests-all all of test_progs, not only the groups make
#                     selftests runs (ST_MODES=m1,m2 select; ST_DENY=t1,t2
#                     leaves tests out)
#   make series-check the kernel series patch by patch: each step applied to
#                     a pristine tree of its own, built and booted
#                     (test_progs, bpf_rtguard absent)
#
# Every setting (RTGUARD_CACHE, OUT, CLANG, RTG_FLAVOR) has its default in
# scripts/common.sh; this file only calls the scripts (make passes
# VAR=value arguments on to them in the environment), and every step
# rebuilds only what changed.

.PHONY: all setup kernel tools module tests rtg-strace initramfs run check \
	check-debug bench shell checkpatch clean selftests selftests-all selftests-build \
	series-check install

all: initramfs

setup:
	scripts/setup-host.sh

kernel: setup
	scripts/build-kernel.sh

tools: kernel
	scripts/build-tools.sh

module: kernel
	scripts/build-module.sh

tests: tools
	scripts/build-tests.sh

rtg-strace: tools
	scripts/build-rtg-strace.sh

initramfs: module tests rtg-strace
	scripts/mkinitramfs.sh

# the module and rtg-strace under DESTDIR, a root file system
install: module rtg-strace
	scripts/install.sh "$(DESTDIR)"

run: initramfs
	scripts/run-guest.sh demo

check: initramfs
	scripts/check.sh

check-debug:
	$(MAKE) --no-print-directory RTG_FLAVOR=debug check

bench: initramfs
	scripts/run-guest.sh bench

shell: initramfs
	scripts/run-guest.sh shell

selftests-build: kernel
	scripts/build-selftests.sh

selftests: selftests-build module
	scripts/selftests.sh

selftests-all: selftests-build module
	ST_GROUPS=all scripts/selftests.sh

series-check: selftests-build module
	scripts/series-check.sh

checkpatch: kernel
	scripts/checkpatch.sh

clean:
	scripts/clean.sh
