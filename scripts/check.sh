#!/bin/bash
# Run the guest test suite on the flavour's kernel and judge it from the host:
#  - boot 1 (-smp 2): every guest test, or those TESTS names
#    (test[/subtest],..., passed as rtg.tests= on the kernel command line);
#  - boot 2 (-smp 4, preempt=full, only without TESTS): the tracking,
#    watchdog, stop, harm and run tests again under full preemption, with
#    more vCPUs than host cores (the host stalls vCPUs), and smp;
#  - boot 3 (-smp 2, rtg.check_held=0 tsc=unstable, only without TESTS):
#    the same tests and the held ones in described mode, where the
#    programs the verifier describes completely keep no run-time table
#    (tests of the table itself ask for check_held=1 and stay in checking
#    mode), on a kernel that marks the TSC unstable;
#  - boot 4 (-smp 2, QEMU -cpu qemu64,-tsc, only without TESTS): a CPU
#    without a TSC, on which bpf_rtguard refuses to load (module_tsc);
#  - on the host: no indirect branch of bpf_rtguard.ko can reach a helper
#    or kfunc (scripts/check-indirect.sh);
#  - per boot: the guest finished (no timeout, summary line present) and
#    the kernel log has no warning, BUG, oops, lockdep, KASAN, UBSAN,
#    debug-objects, list corruption or kmemleak report.
# Prints each test's time and the slowest five; ends with
# "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest-lib.sh"

pass=0
fail=0

boot() {	# boot NAME SMP [kernel args]
	local name=$1 smp=$2 logf=$FOUT/guest-$1.log rc
	shift 2
	RTG_SMP=$smp RTG_LOG=$logf "$TOP/scripts/run-guest.sh" check "$@" >/dev/null
	rc=$?
	echo "=== guest boot '$name' ($FLAVOR kernel, -smp $smp): log $logf"
	grep -a -E '^(PASS|FAIL|--- |  )' "$logf" || true
	pass=$((pass + $(grep -a -c '^PASS ' "$logf")))
	fail=$((fail + $(grep -a -c '^FAIL ' "$logf")))
	if grep -a -q '^rtg-guest: [0-9]* passed, [0-9]* failed' "$logf" && [ "$rc" != 124 ]; then
		result "$name-guest-finished" 1
	else
		result "$name-guest-finished" 0 "qemu exit $rc$([ "$rc" = 124 ] && echo ', timeout')"
	fi
	if grep -a -Eq "$kernel_reports" "$logf"; then
		grep -a -E -A3 "$kernel_reports" "$logf" | head -40
		result "$name-kernel-log-clean" 0
	else
		result "$name-kernel-log-clean" 1
	fi
}

# IBT: no indirect branch in the module may reach a helper or kfunc
if "$TOP/scripts/check-indirect.sh" "$FOUT/modules/kmod/bpf_rtguard.ko" > "$FOUT/check-indirect.log"; then
	result host-module-indirect-branches 1
else
	cat "$FOUT/check-indirect.log"
	result host-module-indirect-branches 0
fi

# checkpatch --strict over kmod/, tests/kmod/ and the series (make checkpatch)
if [ -z "${TESTS:-}" ]; then
	if "$TOP/scripts/checkpatch.sh" > "$FOUT/checkpatch.log" 2>&1; then
		result host-checkpatch 1
	else
		cat "$FOUT/checkpatch.log"
		result host-checkpatch 0
	fi
fi

start=$(date +%s)
boot smp2 2 ${TESTS:+"rtg.tests=$TESTS"}
# the distribution's other preemption model, with more CPUs than cores:
# runs are preempted and migrate-disabled runs interleave on a CPU
[ -z "${TESTS:-}" ] && boot preempt-full 4 preempt=full \
	"rtg.tests=smp,track_*,watchdog_*,stops_*,harm_*,runs_*"
[ -z "${TESTS:-}" ] && boot described 2 rtg.check_held=0 tsc=unstable \
	"rtg.tests=smp,track_*,watchdog_*,stops_*,harm_*,held_*,runs_*"
# a CPU without a TSC: bpf_rtguard, which times runs with it, refuses to load
[ -z "${TESTS:-}" ] && RTG_CPU=qemu64,-tsc boot no-tsc 2 rtg.tests=module_tsc
echo "guest time: $(($(date +%s) - start)) s"
grep -a '^slowest' "$FOUT/guest-smp2.log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
