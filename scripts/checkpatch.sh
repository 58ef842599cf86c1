#!/bin/bash
# checkpatch.pl --strict from the kernel tree over kmod/, tests/kmod/ and
# every patch in kpatch/.
set -uo pipefail
. "$(dirname "$0")/common.sh"

cp=$KSRC/scripts/checkpatch.pl
[ -f "$cp" ] || die "no kernel tree; run make kernel"
rc=0
files=$(ls "$TOP"/kmod/*.[ch] "$TOP"/tests/kmod/*.[ch] | grep -v '\.mod\.c$')
# shellcheck disable=SC2086
perl "$cp" --strict --quiet --no-tree -f $files || rc=1
# the cover letter is no patch; scripts/checkpatch-known lists, by patch,
# the reports that are not faults (and why)
known=$TOP/scripts/checkpatch-known
for p in $(ls "$TOP"/kpatch/*.patch | grep -v '/0000-cover-letter\.patch$'); do
	n=$(basename "$p" | cut -c1-4)
	ignore=$(awk -v n="$n" '$1 == n { printf "%s%s", s, $2; s = "," }' "$known")
	perl "$cp" --strict --quiet --no-tree ${ignore:+--ignore "$ignore"} "$p" || rc=1
done
[ $rc = 0 ] && log "clean"
exit $rc
