#!/bin/bash
# Extract Debian's linux-source-6.12 into the cache, apply kpatch/*.patch in
# order, configure it (tinyconfig + the flavour's fragments, see
# common.sh) and build bzImage and the module build tree in $KOBJ. Each
# step runs only when its inputs changed. The whole script holds
# $KBUILD_LOCK: one kernel build at a time on this machine.
set -euo pipefail
. "$(dirname "$0")/common.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball missing (package linux-source-6.12)"
mkdir -p "$CACHE"

# Whether a process above this one holds the lock (flock $KBUILD_LOCK make ...)
lock_held_above() {
	local ino pid p
	ino=$(stat -c %i "$KBUILD_LOCK")
	for pid in $(awk -v ino="$ino" '$2 == "FLOCK" { n = split($6, a, ":");
			if (a[n] == ino) print $5 }' /proc/locks); do
		for ((p = PPID; p > 1; p = $(awk '{ print $4 }' "/proc/$p/stat"))); do
			[ "$p" = "$pid" ] && return 0
		done
	done
	return 1
}

exec 9>>"$KBUILD_LOCK"
if ! flock -n 9 && ! lock_held_above; then
	log "waiting for $KBUILD_LOCK (another kernel build)"
	flock 9
fi

# 1. Pristine source, re-extracted when the Debian package changes.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
if [ ! -f "$KSRC/.rtg-version" ] || [ "$(cat "$KSRC/.rtg-version")" != "$srcver" ]; then
	log "extracting linux-source-6.12 $srcver into $CACHE"
	rm -rf "$KSRC" "$KOBJ" "$CACHE/applied"
	tar -C "$CACHE" -xf "$tarball"
	echo "$srcver" > "$KSRC/.rtg-version"
fi

# 2. The patch series: revert what is applied when kpatch/ changed, then
# apply kpatch/ in order. Reverting touches only the patched files, and a
# file that ends up as it was gets its old time back, so make rebuilds
# only what depends on a file that changed.
applied=$CACHE/applied
mkdir -p "$applied"
# the series' patches of a directory, in order: the cover letter changes nothing
series() {
	ls "$1"/*.patch 2>/dev/null | grep -v '/0000-cover-letter\.patch$'
}
if ! diff -rq "$TOP/kpatch" "$applied" >/dev/null 2>&1; then
	stamps=$(mktemp)
	# (nothing is applied yet in a new cache: no error for that)
	cat "$applied"/*.patch "$TOP"/kpatch/*.patch 2>/dev/null |
		sed -n 's#^+++ b/##p' | sort -u | while read -r f; do
		if [ -f "$KSRC/$f" ]; then
			echo "$(sha1sum < "$KSRC/$f" | cut -d' ' -f1) $(stat -c %Y "$KSRC/$f") $f"
		fi
	done > "$stamps" || true
	for p in $(series "$applied" | sort -r); do
		log "reverting $(basename "$p")"
		patch -d "$KSRC" -p1 -R -s --no-backup-if-mismatch < "$p" ||
			die "cannot revert $p; remove $KSRC to start over"
		rm -f "$p"
	done
	rm -f "$applied"/*.patch
	for p in $(series "$TOP/kpatch"); do
		log "applying $(basename "$p")"
		patch -d "$KSRC" -p1 -s --no-backup-if-mismatch --forward < "$p" ||
			die "$(basename "$p") does not apply"
		cp "$p" "$applied/"
	done
	cp "$TOP"/kpatch/0000-cover-letter.patch "$applied/" 2>/dev/null || true
	while read -r sum time f; do
		if [ -f "$KSRC/$f" ] &&
		   [ "$(sha1sum < "$KSRC/$f" | cut -d' ' -f1)" = "$sum" ]; then
			touch -d "@$time" "$KSRC/$f"
		fi
	done < "$stamps"
	rm -f "$stamps"
fi

# 3. Configuration: tinyconfig plus the fragments, redone when they change.
mkdir -p "$KOBJ"
# shellcheck disable=SC2086
cfgsum=$(cat $FRAGMENTS | sha256sum | cut -d' ' -f1)
if [ ! -f "$KOBJ/.config" ] || [ "$(cat "$KOBJ/.rtg-config" 2>/dev/null)" != "$cfgsum" ]; then
	log "configuring $FLAVOR kernel (tinyconfig + ${FRAGMENTS//$TOP\//})"
	make -s -C "$KSRC" O="$KOBJ" ARCH=x86_64 tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" \
		$FRAGMENTS >/dev/null
	make -s -C "$KSRC" O="$KOBJ" ARCH=x86_64 olddefconfig
	# every =y line of the fragments must have survived olddefconfig,
	# but those a later fragment turns off (the debug kernel's preemption)
	# shellcheck disable=SC2086
	grep -hE '^CONFIG_[A-Z0-9_]+=y' $FRAGMENTS | while read -r l; do
		sym=${l%%=*}
		# shellcheck disable=SC2086
		grep -hqx "# $sym is not set" $FRAGMENTS && continue
		grep -qx "$l" "$KOBJ/.config" || die "config: $l did not stick"
	done
	echo "$cfgsum" > "$KOBJ/.rtg-config"
fi

# 4. Build; make itself skips what is up to date.
log "building the $FLAVOR kernel: bzImage and modules (-j$NPROC)"
make -s -C "$KSRC" O="$KOBJ" ARCH=x86_64 -j"$NPROC" bzImage modules
log "kernel ready: $KOBJ/arch/x86/boot/bzImage"
