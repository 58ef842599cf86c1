#!/bin/sh
# Guest test runner (make check): every rtgtest test, or those named by
# rtg.tests=test[/subtest],... on the kernel command line, each in its
# own process; ends with "rtg-guest: N passed, N failed".
only=$(sed -n 's/.*rtg\.tests=\([^ ]*\).*/\1/p' /proc/cmdline)
exec /rtg/rtgtest ${only:+-t "$only"}
