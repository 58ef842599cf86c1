#!/bin/sh
# Guest test runner: runs every rtgtest test (or those named by
# rtg.tests=a,b on the kernel command line), one PASS/FAIL line each,
# and ends with "N passed, N failed".
only=$(sed -n 's/.*rtg\.tests=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
pass=0
fail=0

if ! insmod /rtg/rtg_testmod.ko; then
	echo "FAIL insmod-rtg_testmod"
	fail=$((fail + 1))
fi

for t in ${only:-$(/rtg/rtgtest --list)}; do
	echo "--- $t"
	if timeout 600 /rtg/rtgtest "$t"; then
		echo "PASS $t"
		pass=$((pass + 1))
	else
		echo "FAIL $t"
		fail=$((fail + 1))
	fi
	# each test starts without bpf_rtguard; one that leaves it loaded fails
	if [ -d /sys/module/bpf_rtguard ]; then
		echo "FAIL $t-left-bpf_rtguard-loaded"
		fail=$((fail + 1))
		rmmod bpf_rtguard
	fi
done

live=$(cat /sys/kernel/debug/rtg_testmod/live 2>/dev/null)
if [ "$live" = 0 ]; then
	echo "PASS no-leaked-test-objects"
	pass=$((pass + 1))
else
	echo "FAIL no-leaked-test-objects (live=$live)"
	fail=$((fail + 1))
fi
echo "rtg-guest: $pass passed, $fail failed"
