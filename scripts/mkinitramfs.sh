#!/bin/bash
# Assemble the guest initramfs: busybox-static, initramfs/init, the modules,
# the test binary and the guest scripts.
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=${OUT:-$TOP/build}
root=$out/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,rtg}
cp /bin/busybox "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
mknod -m 600 "$root/dev/console" c 5 1
install -m 755 "$TOP/initramfs/init" "$root/init"
install -m 755 "$TOP"/tests/*.sh "$root/rtg/"
install -m 755 "$out/tests/rtgtest" "$out/tests/rtg-strace" "$root/rtg/"
install -m 644 "$TOP/kmod/bpf_rtguard.ko" "$TOP/tests/kmod/rtg_testmod.ko" "$root/rtg/"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.cpio.gz"
log "$out/initramfs.cpio.gz ($(du -h "$out/initramfs.cpio.gz" | cut -f1))"
