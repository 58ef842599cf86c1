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
# the cover letter is no patch
for p in $(ls "$TOP"/kpatch/*.patch | grep -v '/0000-cover-letter\.patch$'); do
	perl "$cp" --strict --quiet --no-tree "$p" || rc=1
done
[ $rc = 0 ] && log "clean"
exit $rc
