#!/bin/bash
# Assemble the guest initramfs of the flavour: busybox-static,
# initramfs/init, the modules, the test binaries and the guest scripts.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest-lib.sh"

root=$FOUT/initramfs
initramfs_base "$root"
install -m 755 "$TOP"/tests/*.sh "$root/rtg/"
install -m 755 "$FOUT/tests/rtgtest" "$root/rtg/"
# the BPF sources, for tests that check the source lines a trace names
mkdir -p "$root/rtg/src"
install -m 644 "$TOP"/tests/bpf/*.bpf.c "$root/rtg/src/"
# the README and the design document, whose reference tables a test
# checks against the module
install -m 644 "$TOP/README.md" "$TOP/docs/bpf_rtguard.rst" "$root/rtg/src/"
install -m 644 "$FOUT/modules/tests/kmod/rtg_testmod.ko" "$root/rtg/"
# as a user installs them: rtg-strace in PATH, the module under lib/modules;
# the tests know them as /rtg/rtg-strace and /rtg/bpf_rtguard.ko
"$TOP/scripts/install.sh" "$root" >/dev/null
ln -sf /usr/sbin/rtg-strace "$root/rtg/rtg-strace"
ln -sf "/lib/modules/$(cat "$KOBJ/include/config/kernel.release")/extra/bpf_rtguard.ko" \
	"$root/rtg/bpf_rtguard.ko"
# trace-cmd, as Debian ships it, for the test of what it prints with the plugin
initramfs_add_dynamic "$root" /usr/bin/trace-cmd
# ... and perf (perf record, perf script)
initramfs_add_dynamic "$root" /usr/bin/perf
initramfs_pack "$root" "$FOUT/initramfs.cpio.gz"
