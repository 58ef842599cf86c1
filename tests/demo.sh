#!/bin/sh
# Guest demo (make run): the seed scenarios that exist so far.
insmod /rtg/rtg_testmod.ko
echo
echo "=== pass-through hooks with call counting"
/rtg/rtgtest --demo calls
echo
echo "=== dmesg (bpf_rtguard)"
dmesg | grep -i rtguard
