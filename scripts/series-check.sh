#!/bin/bash
# make series-check: the kernel series step by step. On a pristine
# linux-source-6.12 of its own ($CACHE/series), it builds the fast
# kernel (the configuration of make check) with no patch, then applies
# kpatch/ one patch at a time and builds again after each. Every kernel
# boots with the selftests initramfs (scripts/selftests.sh builds it) and
# runs the kernel's test_progs on SERIES_GROUPS, bpf_rtguard absent, with
# bpf_testmod.ko built from the step's tree for the step's kernel (the
# selftests initramfs' own is built for make check's kernel, whose BTF
# differs); the last one runs the series' own selftests as well.
# A step passes when its patch applies, the build prints no warning or
# error, the guest finishes with a clean kernel log, and every subtest
# that passed without the series passes (the series' own selftests: every
# one passes on the last step).
#   SERIES_GROUPS  test_progs -t groups (default below)
#   SERIES_OWN     the series' selftests, run on the last step only
#   SERIES_UPTO=N  stop after patch N (0: the kernel without the series)
#   SERIES_FROM=N  start at patch N, on the tree and the baseline a
#                  previous run left (the patches before N applied)
# Ends with "N passed, N failed"; non-zero on any failure.
set -uo pipefail
export LC_ALL=C
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest-lib.sh"

groups=${SERIES_GROUPS:-exceptions,iters,bpf_loop,dynptr,ringbuf,task_kfunc,cpumask,spin_lock,rcu_read_lock,kfunc_call,kptr_xchg_inline,verifier_and,verifier_bounds}
own=${SERIES_OWN:-verifier_debug_mode,debug_mode_flag,call_hook}
tarball=/usr/src/linux-source-6.12.tar.xz
sdir=$CACHE/series
src=$sdir/linux-source-6.12
obj=$sdir/build
applied=$sdir/applied
res=$FOUT/series
initrd=$FOUT/selftests-initramfs.cpio.gz
cfg=$CACHE/build/.config

ST_INITRD_ONLY=1 "$TOP/scripts/selftests.sh" || die "cannot build $initrd"
[ -f "$cfg" ] || die "no $cfg: run make kernel"
from=${SERIES_FROM:-}
mkdir -p "$sdir" "$applied" "$res"
if [ -n "$from" ]; then
	[ -s "$res/base.results" ] || die "SERIES_FROM: no baseline of a previous run in $res"
else
	rm -f "$res"/*
fi

exec 9>>"$KBUILD_LOCK"

# The source with no patch: extracted once; the patches a previous run
# applied are reverted, newest first.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
if [ ! -f "$src/.rtg-version" ] || [ "$(cat "$src/.rtg-version")" != "$srcver" ]; then
	log "extracting linux-source-6.12 $srcver into $sdir"
	rm -rf "$src" "$obj" "$applied"
	mkdir -p "$applied"
	tar -C "$sdir" -xf "$tarball"
	echo "$srcver" > "$src/.rtg-version"
fi
for p in $(ls "$applied"/*.patch 2>/dev/null | sort -r); do
	# with SERIES_FROM, the patches before it stay
	n=$(basename "$p")
	[ -n "$from" ] && [ "$((10#${n:0:4}))" -lt "$from" ] && continue
	patch -d "$src" -p1 -R -s --no-backup-if-mismatch < "$p" ||
		die "cannot revert $p; remove $sdir to start over"
	rm -f "$p"
done
mkdir -p "$obj"
cp "$cfg" "$obj/.config"

pass=0
fail=0

# Build the tree as it is now; the step's warnings and errors go to LOG.
build() {	# build LOG
	flock 9
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig > "$1" 2>&1 &&
		make -s -C "$src" O="$obj" ARCH=x86_64 -j"$NPROC" bzImage modules >> "$1" 2>&1 &&
		testmod >> "$1" 2>&1
	local rc=$?
	flock -u 9
	return $rc
}

# bpf_testmod.ko of the step's tree, built for its kernel, put where
# test_progs looks for it (/st) by an archive appended to the initramfs
testmod() {
	local d=$sdir/testmod root=$sdir/overlay
	rm -rf "$d" "$root"
	cp -r "$src/tools/testing/selftests/bpf/bpf_testmod" "$d" &&
		make -s -C "$obj" M="$d" -j"$NPROC" modules &&
		mkdir -p "$root/st" && cp "$d/bpf_testmod.ko" "$root/st/" || return 1
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$sdir/overlay.cpio.gz"
	cat "$initrd" "$sdir/overlay.cpio.gz" > "$sdir/initrd.cpio.gz"
}

# "test[/subtest]<TAB>OK|FAIL|SKIP" lines of a test_progs log, sorted
parse() {
	sed -nE 's/^#[0-9]+(\/[0-9]+)? +(.*):(OK|FAIL|SKIP)( \(SKIP: [0-9]+\/[0-9]+\))?$/\2\t\3/p' "$1" |
		sort -t$'\t' -k1,1 -u
}

# Boot the step's kernel; its test_progs results go to RESULTS.
boot() {	# boot NAME GROUPS
	local logf=$res/$1.log
	RTG_MEM=${RTG_MEM:-3072} RTG_LOG=$logf RTG_TIMEOUT=900 \
		RTG_INITRD=$sdir/initrd.cpio.gz RTG_KERNEL=$obj/arch/x86/boot/bzImage \
		"$TOP/scripts/run-guest.sh" selftests rtg.st_modes=absent \
		"rtg.st_groups=$2" > /dev/null
	parse "$logf" > "$res/$1.results"
}

# Judge step NAME against the results without the series.
judge() {	# judge NAME
	local logf=$res/$1.log why=""
	if ! grep -aq '^rtg-st: mode absent end' "$logf"; then
		why="the guest did not finish (crash or timeout)"
	elif grep -aqE "$kernel_reports" "$logf"; then
		why="kernel log: $(grep -aE "$kernel_reports" "$logf" | head -1)"
	else
		# a subtest that passed without the series and not now
		local lost
		lost=$(join -t$'\t' "$res/base.results" "$res/$1.results" |
			awk -F'\t' '$2 == "OK" && $3 != "OK" { print $1 ": " $3 }' | head -3)
		[ -z "$lost" ] || why="$lost"
		lost=$(join -t$'\t' -v1 "$res/base.results" "$res/$1.results" | cut -f1 | head -3)
		[ -z "$lost" ] || why="${why:+$why; }not run: $lost"
	fi
	if [ -z "$why" ]; then
		result "$1" 1 "$(grep -c $'\tOK$' "$res/$1.results") subtests OK"
	else
		result "$1" 0 "$why"
	fi
}

steps=$(ls "$TOP"/kpatch/*.patch | grep -v '/0000-cover-letter\.patch$')
if [ -n "$from" ]; then
	log "from patch $from, on the tree and baseline of the previous run"
	steps=$(echo "$steps" | awk -v f="$from" '{ n = $0; sub(/.*\//, "", n) } n + 0 >= f')
elif log "step base: linux-source-6.12 $srcver without the series"; build "$res/base.build"; then
	boot base "$groups"
	if ! grep -aq '^rtg-st: mode absent end' "$res/base.log" || [ ! -s "$res/base.results" ]; then
		result base 0 "the unpatched kernel did not run test_progs: see $res/base.log"
		echo "$pass passed, $fail failed"
		exit 1
	fi
	result base 1 "$(grep -c $'\tOK$' "$res/base.results") subtests OK"
else
	result base 0 "build failed: $(head -3 "$res/base.build")"
	echo "$pass passed, $fail failed"
	exit 1
fi

if [ -n "${SERIES_UPTO:-}" ]; then
	steps=$(echo "$steps" | awk -v u="$SERIES_UPTO" '{ n = $0; sub(/.*\//, "", n) } n + 0 <= u')
fi
last=$(ls "$TOP"/kpatch/*.patch | tail -1)
for p in $steps; do
	[ -n "$p" ] || continue
	name=$(basename "$p" .patch)
	name=${name:0:4}
	log "step $name: $(basename "$p")"
	if ! patch -d "$src" -p1 -s --no-backup-if-mismatch --forward < "$p" > "$res/$name.build" 2>&1; then
		result "$name" 0 "does not apply: $(head -2 "$res/$name.build")"
		break
	fi
	cp "$p" "$applied/"
	if ! build "$res/$name.build"; then
		result "$name" 0 "build failed: $(grep -m2 -E 'error|Error' "$res/$name.build")"
		break
	fi
	if grep -q 'warning:' "$res/$name.build"; then
		result "$name" 0 "build warning: $(grep -m1 'warning:' "$res/$name.build")"
		continue
	fi
	if [ "$p" = "$last" ]; then
		boot "$name" "$groups,$own"
		judge "$name"
		# the series' own selftests: each must pass
		bad=$(grep -E "^(${own//,/|})(/|$(printf '\t'))" "$res/$name.results" |
			awk -F'\t' '$2 != "OK"' | head -3)
		n=$(grep -cE "^(${own//,/|})(/|$(printf '\t'))" "$res/$name.results")
		if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
			result "$name/own" 1 "$n of the series' selftests OK"
		else
			result "$name/own" 0 "${bad:-none ran}"
		fi
	else
		boot "$name" "$groups"
		judge "$name"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
