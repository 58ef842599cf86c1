#!/bin/sh
# Guest benchmarks (make bench): figures and ratios from this one boot.
insmod /rtg/rtg_testmod.ko
/rtg/rtgtest --bench calls
echo
/rtg/rtgtest --bench track
echo
/rtg/rtgtest --bench watchdog
