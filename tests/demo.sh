#!/bin/sh
# Guest demo (make run): the seed scenarios that exist so far.
insmod /rtg/rtg_testmod.ko
echo
echo "=== tracked references (track=1): the seed's loop over bpf_iter_num, event by event"
/rtg/rtgtest --demo track
echo
echo "=== what a blocked sleepable run holds, read from debugfs bpf_rtguard/held mid-run"
/rtg/rtgtest --demo held
echo
echo "=== debug mode: the seed program loaded with BPF_F_DEBUG_MODE, as rtg-strace prints it"
/rtg/rtgtest --demo debug
echo
echo "=== pass-through hooks with call counting (hook_all=1)"
/rtg/rtgtest --demo calls
echo
echo "=== a watchdog stop (track=1 watchdog_ms=200): nested bpf_for loops holding an object and a task"
/rtg/rtgtest --demo watchdog
dmesg | grep "stopped prog"
echo
echo "=== dmesg (bpf_rtguard)"
dmesg | grep -i rtguard
