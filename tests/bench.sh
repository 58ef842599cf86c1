#!/bin/sh
# Guest benchmarks (make bench): figures and ratios from this one boot.
/rtg/rtgtest --bench calls
echo
/rtg/rtgtest --bench track
echo
/rtg/rtgtest --bench watchdog
