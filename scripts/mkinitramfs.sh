#!/bin/bash
# Assemble the guest initramfs of the flavour: busybox-static,
# initramfs/init, the modules, the test binaries and the guest scripts.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest-lib.sh"

root=$FOUT/initramfs
initramfs_base "$root"
install -m 755 "$TOP"/tests/*.sh "$root/rtg/"
install -m 755 "$FOUT/tests/rtgtest" "$FOUT/tests/rtg-strace" "$root/rtg/"
# the BPF sources, for tests that check the source lines a trace names
mkdir -p "$root/rtg/src"
install -m 644 "$TOP"/tests/bpf/*.bpf.c "$root/rtg/src/"
install -m 644 "$FOUT/modules/kmod/bpf_rtguard.ko" \
	"$FOUT/modules/tests/kmod/rtg_testmod.ko" "$root/rtg/"
initramfs_pack "$root" "$FOUT/initramfs.cpio.gz"
