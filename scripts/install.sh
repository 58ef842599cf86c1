#!/bin/bash
# Install what a user of bpf_rtguard runs under DESTDIR (a root file
# system): the module as lib/modules/RELEASE/extra/bpf_rtguard.ko, for
# the patched kernel it was built against, rtg-strace as
# usr/sbin/rtg-strace, and the libtraceevent plugin that lets trace-cmd
# print debug-mode calls in libtraceevent's plugin directory. The guest's
# initramfs is made this way too.
# Never the host's own root: DESTDIR must be given and must not be /
# unless the machine runs the patched kernel (RTG_INSTALL_ROOT=1).
set -euo pipefail
. "$(dirname "$0")/common.sh"

dest=${1:-${DESTDIR:-}}
[ -n "$dest" ] || die "install: give DESTDIR (make install DESTDIR=/path/to/root)"
if [ "$(cd "$dest" 2>/dev/null && pwd)" = / ] && [ "${RTG_INSTALL_ROOT:-}" != 1 ]; then
	die "install: DESTDIR=/ installs into this machine; RTG_INSTALL_ROOT=1 if it runs the patched kernel"
fi
release=$(cat "$KOBJ/include/config/kernel.release")
install -D -m 644 "$FOUT/modules/kmod/bpf_rtguard.ko" \
	"$dest/lib/modules/$release/extra/bpf_rtguard.ko"
install -D -m 755 "$FOUT/rtg-strace/rtg-strace" "$dest/usr/sbin/rtg-strace"
plugins=usr/lib/$(gcc -print-multiarch)/traceevent/plugins
install -D -m 644 "$FOUT/rtg-strace/plugin_bpf_rtguard.so" "$dest/$plugins/plugin_bpf_rtguard.so"
log "installed under $dest: lib/modules/$release/extra/bpf_rtguard.ko usr/sbin/rtg-strace $plugins/plugin_bpf_rtguard.so"
