#!/bin/sh
# Guest demo (make run): tests that print what they check, and demo_calls.
echo
echo "=== tracked references (track=1): the seed's loop over bpf_iter_num, event by event"
/rtg/rtgtest --demo track_seeds/loop
echo
echo "=== what a blocked sleepable run holds, read from debugfs bpf_rtguard/held mid-run"
/rtg/rtgtest --demo track_snapshot
echo
echo "=== debug mode: the seed program loaded with BPF_F_DEBUG_MODE, as rtg-strace prints it"
/rtg/rtgtest --demo debug_seed_trace
echo
echo "=== debug mode: a program that counts its own calls, its trace and rtg-strace -c"
/rtg/rtgtest --demo debug_summary
echo
echo "=== pass-through hooks with call counting (hook_all=1)"
/rtg/rtgtest --demo calls
echo
echo "=== a watchdog stop (track=1 watchdog_ms=200): nested bpf_for loops holding an object and a task"
/rtg/rtgtest --demo watchdog_stops/wd_loop
dmesg | grep "stopped prog"
echo
echo "=== dmesg (bpf_rtguard)"
dmesg | grep -i rtguard
