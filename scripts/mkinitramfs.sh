#!/bin/bash
# Assemble the guest initramfs of the flavour: busybox-static,
# initramfs/init, the modules, the test binaries and the guest scripts.
set -euo pipefail
. "$(dirname "$0")/common.sh"

root=$FOUT/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,rtg}
cp /bin/busybox "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
mknod -m 600 "$root/dev/console" c 5 1
install -m 755 "$TOP/initramfs/init" "$root/init"
install -m 755 "$TOP"/tests/*.sh "$root/rtg/"
install -m 755 "$FOUT/tests/rtgtest" "$FOUT/tests/rtg-strace" "$root/rtg/"
# the BPF sources, for tests that check the source lines a trace names
mkdir -p "$root/rtg/src"
install -m 644 "$TOP"/tests/bpf/*.bpf.c "$root/rtg/src/"
install -m 644 "$FOUT/modules/kmod/bpf_rtguard.ko" \
	"$FOUT/modules/tests/kmod/rtg_testmod.ko" "$root/rtg/"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$FOUT/initramfs.cpio.gz"
log "$FOUT/initramfs.cpio.gz ($(du -h "$FOUT/initramfs.cpio.gz" | cut -f1))"
