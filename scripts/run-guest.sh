#!/bin/bash
# Boot the guest kernel with the initramfs under QEMU and copy its serial
# console to stdout and to a log file.
#   scripts/run-guest.sh MODE LOG [kernel args...]
# MODE is check, demo, bench or shell. RTG_SMP (2), RTG_ACCEL (tcg),
# RTG_MEM (1024) and RTG_TIMEOUT (seconds, 1500) override the defaults.
# Exits with QEMU's status, 124 on timeout.
set -uo pipefail
. "$(dirname "$0")/common.sh"

mode=$1
logf=$2
shift 2
out=${OUT:-$TOP/build}
smp=${RTG_SMP:-2}
kernel=$KOBJ/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel; run make"
[ -f "$out/initramfs.cpio.gz" ] || die "no initramfs; run make"

append="console=ttyS0 panic=-1 rtg.mode=$mode rtg.smp=$smp $*"
if [ "$mode" = shell ]; then
	exec qemu-system-x86_64 -accel "${RTG_ACCEL:-tcg}" -smp "$smp" \
		-m "${RTG_MEM:-1024}" -kernel "$kernel" \
		-initrd "$out/initramfs.cpio.gz" -append "$append" \
		-nographic -no-reboot
fi
log "booting: -smp $smp, ${RTG_ACCEL:-tcg}, $append"
timeout "${RTG_TIMEOUT:-1500}" qemu-system-x86_64 -accel "${RTG_ACCEL:-tcg}" \
	-smp "$smp" -m "${RTG_MEM:-1024}" -kernel "$kernel" \
	-initrd "$out/initramfs.cpio.gz" -append "$append" \
	-display none -serial stdio -monitor none -no-reboot </dev/null |
	tr -d '\r' | tee "$logf"
exit "${PIPESTATUS[0]}"
