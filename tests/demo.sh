#!/bin/sh
# Guest demo (make run): the seed scenarios that exist so far.
insmod /rtg/rtg_testmod.ko
echo
echo "=== pass-through hooks with call counting (hook_all=1)"
/rtg/rtgtest --demo calls
echo
echo "=== debug mode: the seed program loaded with BPF_F_DEBUG_MODE, as rtg-strace prints it"
/rtg/rtgtest --demo debug
echo
echo "=== dmesg (bpf_rtguard)"
dmesg | grep -i rtguard
