#!/bin/bash
# Boot the flavour's guest kernel with its initramfs under QEMU.
#   scripts/run-guest.sh MODE [kernel args...]
# MODE is check, demo, bench, selftests or shell. The serial console goes
# to stdout and, but for shell, to RTG_LOG ($FOUT/guest-MODE.log).
# RTG_INITRD (the flavour's $FOUT/initramfs.cpio.gz) picks another
# initramfs (make selftests boots its own), RTG_KERNEL another bzImage
# (make selftests: a copy taken with its modules). RTG_SMP (2),
# RTG_ACCEL (tcg), RTG_CPU (QEMU -cpu; its default), RTG_MEM (1024) and
# RTG_TIMEOUT (seconds, 1500; 5400 for
# the debug kernel) override the defaults; RTG_BENCH_WALL=1 runs the
# benchmarks without -icount. Exits with QEMU's status, 124
# on timeout.
set -uo pipefail
. "$(dirname "$0")/common.sh"

mode=$1
shift
smp=${RTG_SMP:-2}
logf=${RTG_LOG:-$FOUT/guest-$mode.log}
kernel=${RTG_KERNEL:-$KOBJ/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "no kernel at $kernel; run make"
initrd=${RTG_INITRD:-$FOUT/initramfs.cpio.gz}
[ -f "$initrd" ] || die "no initramfs at $initrd; run make"
[ "$FLAVOR" = debug ] && timeout_s=5400 || timeout_s=1500

append="console=ttyS0 panic=-1 lsm=bpf rtg.mode=$mode rtg.smp=$smp $*"
# Benchmarks count guest instructions: with -icount shift=0 one guest
# nanosecond is one instruction, whatever the host does (RTG_BENCH_WALL=1
# for wall-clock figures instead).
icount=()
if [ "$mode" = bench ] && [ -z "${RTG_BENCH_WALL:-}" ]; then
	icount=(-icount shift=0,sleep=off)
	append+=" rtg.icount=1"
fi
qemu=(qemu-system-x86_64 -accel "${RTG_ACCEL:-tcg}" "${icount[@]}" -smp "$smp"
	${RTG_CPU:+-cpu "$RTG_CPU"}
	-m "${RTG_MEM:-1024}" -kernel "$kernel"
	-initrd "$initrd" -append "$append" -no-reboot)
# one guest at a time on this machine (2 cores): wait for any other
exec 8>/var/lock/rtg-guest
flock 8
if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -nographic
fi
log "booting the $FLAVOR kernel: -smp $smp, ${RTG_ACCEL:-tcg}, $append"
timeout "${RTG_TIMEOUT:-$timeout_s}" "${qemu[@]}" -display none \
	-serial stdio -monitor none </dev/null | tr -d '\r' | tee "$logf"
exit "${PIPESTATUS[0]}"
