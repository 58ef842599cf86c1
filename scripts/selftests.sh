#!/bin/bash
# make selftests: the kernel's own BPF selftests (test_progs, built by
# scripts/build-selftests.sh) in the guest, under every bpf_rtguard mode
# of tests/selftests.sh (the mode table), each compared to the module-
# absent baseline of the same bpf_jit_harden setting (absent-harden to
# absent as well).
#   ST_GROUPS   test_progs -t groups, comma-separated (default below), or
#               all: every test but those ST_DENY names (make selftests-all)
#   ST_DENY     with ST_GROUPS=all, test_progs -d tests (default below);
#               a mode is not compared on them
#   ST_MODES    modes, comma-separated (default: all, `sh
#               tests/selftests.sh --modes`); the baselines they need are
#               added
#   ST_PER_BOOT modes per guest boot (1: a crash loses only its mode; a
#               crash with more loses the rest of that boot's run, and the
#               modes not reached are booted again)
#   ST_TIMEOUT  seconds per mode in a boot (900; 3600 with ST_GROUPS=all,
#               whose modes took up to 1416 s)
#   RTG_MEM     guest memory (3072 MB)
#   ST_REPORT=1 no boot: judge the mode logs of the last run again
#   ST_KEEP_BASELINE=1 the baselines (absent, absent-harden) of the last
#               run are kept, not booted again, when they finished on the
#               same kernel, test_progs and bpf_testmod, with the same groups
#   ST_INITRD_ONLY=1 only build the selftests initramfs (make series-check)
#               ($OUT/selftests/MODE.log, .status)
# Per mode: the mode finished (no crash, no timeout), the kernel log is
# clean (scripts/check.sh's list of reports), insmod and rmmod (tries
# reported) worked, debugfs held showed nothing left, and every
# difference from the baseline, subtest by subtest, and every failure of
# the baseline itself, is listed in tests/selftests-expected-diffs.
# Prints every difference; ends with
# "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
export LC_ALL=C
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest-lib.sh"

groups=${ST_GROUPS:-btf/line_info,exceptions,iters,fexit_bpf2bpf,bpf_loop,dynptr,ringbuf,refcounted_kptr,rbtree,linked_list,local_kptr_stash,kptr_xchg_inline,task_kfunc,cgrp_kfunc,cpumask,timer,test_lsm,modify_return,fexit_test,spin_lock,rcu_read_lock,map_kptr,kfunc_call,verifier_debug_mode,debug_mode_flag,call_hook}
# arena_htab: when a watchdog mode ends its may_goto loop early, the
# test's user-space side walks the half-updated arena hash table and
# test_progs dies of a segmentation fault, which ends the mode's run
deny=${ST_DENY-$([ "$groups" = all ] && echo arena_htab)}
mode_timeout=${ST_TIMEOUT:-$([ "$groups" = all ] && echo 3600 || echo 900)}
per_boot=${ST_PER_BOOT:-1}
expected=$TOP/tests/selftests-expected-diffs
known=$TOP/tests/selftests-known-kernel-reports
sto=$ST_DIR/out
res=$FOUT/selftests
initrd=$FOUT/selftests-initramfs.cpio.gz
# the kernel the modules were built against, copied with them: a kernel
# rebuilt during the run (another make) does not reach its boots
kimage=$FOUT/selftests-bzImage
module=$FOUT/modules/kmod/bpf_rtguard.ko

[ -x "$sto/test_progs" ] || die "no $sto/test_progs; run scripts/build-selftests.sh"
[ -f "$module" ] || die "no $module; run make module"
for f in "$module" "$sto/bpf_testmod.ko"; do
	[ "$f" -nt "$KOBJ/vmlinux" ] ||
		die "$f is older than $KOBJ/vmlinux (kernel rebuilt since): run make selftests"
done
mkdir -p "$res"

# The kernel reports of a log, one line each: the report without its
# time and task, and apart, the function each "caller is" line names
# (reports of two CPUs interleave); a report's "Call Trace:" is part of it.
report_sigs() {	# report_sigs LOG
	grep -aE '^(kmsg: )?\[ *[0-9]+\.[0-9]+\]' "$1" |
		sed -E 's/^(kmsg: )?\[ *[0-9.]+\] //' | grep -av '^Call Trace:' |
		grep -aE "$kernel_reports|^caller is " |
		sed -E 's/ code: .*//; s/^(caller is [^+]*)\+0x.*/\1/' | sort -u
}

all_modes=$(sh "$TOP/tests/selftests.sh" --modes)
modes=()
for m in ${ST_MODES:+${ST_MODES//,/ }}; do
	grep -qx -- "$m" <<< "$all_modes" || die "ST_MODES: no mode $m (modes: $(echo $all_modes))"
done
want=${ST_MODES:-$(echo $all_modes | tr ' ' ,)}
want=",$want,"
# the baselines first: absent, absent-harden when a -harden mode runs
for m in $all_modes; do
	if [[ $want == *",$m,"* ]] || { [ "$m" = absent ]; } ||
	   { [ "$m" = absent-harden ] && [[ $want == *-harden,* ]]; }; then
		modes+=("$m")
	fi
done
baseline() { case $1 in absent) ;; absent-harden) echo absent ;; *-harden) echo absent-harden ;; *) echo absent ;; esac; }

# --- the selftests initramfs: busybox, init, this runner, the module,
# test_progs with its objects and modules in /st, its shared libraries
mkinitrd() {
	local root=$FOUT/selftests-initramfs lib f
	if [ -f "$initrd" ] && [ -z "$(find "$sto/test_progs" "$sto"/*.bpf.o "$sto"/*.ko \
		"$module" "$TOP/tests/selftests.sh" "$TOP/initramfs/init" /bin/busybox \
		-newer "$initrd" 2>/dev/null | head -1)" ]; then
		return
	fi
	initramfs_base "$root" mnt st
	install -m 755 "$TOP/tests/selftests.sh" "$root/rtg/"
	install -m 644 "$module" "$root/rtg/"
	install -m 755 "$sto/test_progs" "$root/st/"
	for f in "$sto"/*.ko "$sto"/urandom_read "$sto"/liburandom_read.so "$sto"/uprobe_multi; do
		[ -f "$f" ] && cp "$f" "$root/st/"
	done
	# the BPF objects without their DWARF (BTF stays)
	for f in "$sto"/*.bpf.o; do
		llvm-strip-19 -g -o "$root/st/$(basename "$f")" "$f"
	done
	# shared libraries, where the dynamic linker looks for them;
	# libgcc_s for pthread_cancel/pthread_exit
	for lib in $(ldd "$sto/test_progs" "$sto/urandom_read" 2>/dev/null | grep -oE '/[^ ]+' | sort -u) \
		   "$(readlink -f "$(gcc -print-file-name=libgcc_s.so.1)")"; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	initramfs_pack "$root" "$initrd"
}

if [ -n "${ST_INITRD_ONLY:-}" ]; then
	mkinitrd
	exit 0
fi

pass=0
fail=0

# --- boots: each takes up to per_boot modes of the queue; a mode that
# began and did not end crashed the guest (or timed out); the modes after
# it go back to the queue
declare -A mlog status qrc
queue=("${modes[@]}")
nboot=0
start=$(date +%s)
if [ -n "${ST_REPORT:-}" ]; then
	queue=()
	for m in "${modes[@]}"; do
		[ -f "$res/$m.status" ] || continue
		read -r status[$m] qrc[$m] < "$res/$m.status"
		mlog[$m]=$res/$m.log
	done
else
	mkinitrd
	cp "$KOBJ/arch/x86/boot/bzImage" "$kimage"
	# ST_KEEP_BASELINE=1: a baseline that finished on this kernel and
	# test_progs (their contents: make relinks test_progs), with these
	# groups, is not booted again
	build=$(cat "$kimage" "$sto/test_progs" "$sto/bpf_testmod.ko" | sha256sum | cut -c1-16)
	queue=()
	for m in "${modes[@]}"; do
		if [ -n "${ST_KEEP_BASELINE:-}" ] && { [ "$m" = absent ] || [ "$m" = absent-harden ]; } &&
		   [ "$(cat "$res/$m.build" 2>/dev/null)" = "$build" ] &&
		   grep -aqx "rtg-st: mode $m begin: .* groups=$groups" "$res/$m.log" &&
		   read -r status[$m] qrc[$m] < "$res/$m.status" && [ "${status[$m]}" = finished ]; then
			log "mode $m: the baseline of $(date -r "$res/$m.log" '+%F %T') kept"
			mlog[$m]=$res/$m.log
			continue
		fi
		unset "status[$m]" "qrc[$m]"
		rm -f "$res/$m.status"
		queue+=("$m")
	done
fi
while [ ${#queue[@]} -gt 0 ]; do
	batch=("${queue[@]:0:$per_boot}")
	nboot=$((nboot + 1))
	logf=$FOUT/guest-selftests-$nboot.log
	list=$(IFS=,; echo "${batch[*]}")
	log "boot $nboot: modes $list (log $logf)"
	t0=$(date +%s)
	RTG_MEM=${RTG_MEM:-3072} RTG_LOG=$logf \
		RTG_TIMEOUT=$((mode_timeout * ${#batch[@]} + 60)) RTG_INITRD=$initrd RTG_KERNEL=$kimage \
		"$TOP/scripts/run-guest.sh" selftests "rtg.st_modes=$list" \
		"rtg.st_groups=$groups" ${deny:+"rtg.st_deny=$deny"} > /dev/null
	rc=$?
	log "boot $nboot: qemu exit $rc after $(($(date +%s) - t0)) s"
	queue=("${queue[@]:${#batch[@]}}")
	crashed=""
	prev=""
	for m in "${batch[@]}"; do
		if ! grep -aq "^rtg-st: mode $m begin" "$logf"; then
			# not reached: a mode before it in this boot crashed
			queue=("$m" "${queue[@]}")
			continue
		fi
		# the mode's lines: from its begin (the boot's first mode: from
		# the start, with the boot log) to its end, or to the log's end
		if [ -z "$prev" ]; then
			sed -n "1,/^rtg-st: mode $m end/p" "$logf" > "$res/$m.log"
		else
			sed -n "/^rtg-st: mode $m begin/,/^rtg-st: mode $m end/p" "$logf" > "$res/$m.log"
		fi
		mlog[$m]=$res/$m.log
		qrc[$m]=$rc
		if grep -aq "^rtg-st: mode $m end" "$logf"; then
			status[$m]=finished
		elif [ "$rc" = 124 ]; then
			status[$m]=timeout
		else
			status[$m]=crashed
		fi
		echo "${status[$m]} $rc" > "$res/$m.status"
		echo "$build" > "$res/$m.build"
		prev=$m
	done
done
runtime=$(($(date +%s) - start))

# --- results: "test[/subtest] RESULT" lines of test_progs, per mode
parse() {	# parse LOG -> sorted "key<TAB>OK|FAIL|SKIP"
	sed -nE 's/^#[0-9]+(\/[0-9]+)? +(.*):(OK|FAIL|SKIP)( \(SKIP: [0-9]+\/[0-9]+\))?$/\2\t\3/p' "$1" |
		sort -t$'\t' -k1,1 -u
}
expected_diff() {	# expected_diff MODE KEY RESULT -> reason, or nothing
	local mg kg why
	[ -f "$expected" ] || return 0
	while read -r mg kg why; do
		case $mg in ''|'#'*) continue ;; esac
		# "->SKIP reason": only that result is expected
		if [[ $why == "->"* ]]; then
			[ "${why%% *}" = "->$3" ] || continue
			why=${why#* }
		fi
		# shellcheck disable=SC2053
		if [[ $1 == $mg ]] && [[ $2 == $kg || ${2%%/*} == $kg ]]; then
			echo "$why"
			return
		fi
	done < "$expected"
}

declare -A nok nfail nskip summ
for m in "${modes[@]}"; do
	[ -n "${mlog[$m]:-}" ] || continue
	parse "${mlog[$m]}" > "$res/$m.results"
	nok[$m]=$(grep -c $'\tOK$' "$res/$m.results")
	nfail[$m]=$(grep -c $'\tFAIL$' "$res/$m.results")
	nskip[$m]=$(grep -c $'\tSKIP$' "$res/$m.results")
done

table=()
for m in "${modes[@]}"; do
	echo "=== mode $m: ${status[$m]:-not run}, log ${mlog[$m]:-none}"
	l=${mlog[$m]:-/dev/null}
	# finished
	case ${status[$m]:-} in
	finished) result "$m-finished" 1 ;;
	timeout) result "$m-finished" 0 "timeout after $mode_timeout s a mode; last test_progs line: $(grep -aE '^#[0-9]' "$l" | tail -1)" ;;
	crashed)
		echo "    the guest died in mode $m (qemu exit ${qrc[$m]}); last test_progs line: $(grep -aE '^#[0-9]' "$l" | tail -1)"
		grep -aE -m12 'BUG:|Oops|general protection|Kernel panic|RIP:|Call Trace:|^\[ *[0-9.]+\]  [a-z_0-9.]+\+0x' "$l" | sed 's/^/    /'
		result "$m-finished" 0 "crashed: $(grep -aoE -m1 '(BUG:|Oops:|general protection fault|Kernel panic)[^]]*' "$l" | cut -c1-100)" ;;
	*) result "$m-finished" 0 "not run" ;;
	esac
	[ -n "${mlog[$m]:-}" ] || continue
	grep -a 'test_progs exit\|^Summary:' "$l" | sed 's/^/    /'
	# kernel log: no report but those of the stock kernel that the
	# baseline without the module shows too (tests/selftests-known-kernel-reports)
	base=absent
	[[ $m == *-harden ]] && base=absent-harden
	report_sigs "$l" > "$res/$m.reports"
	report_sigs "${mlog[$base]:-/dev/null}" | grep -aFx -f <(cut -f1 "$known" | grep -v '^#') \
		> "$res/$m.excused" || true
	if grep -aqvFx -f "$res/$m.excused" "$res/$m.reports"; then
		grep -aE '^(kmsg: )?\[ *[0-9]+\.[0-9]+\]' "$l" | grep -aE -A3 "$kernel_reports" | head -30 | sed 's/^/    /'
		grep -avFx -f "$res/$m.excused" "$res/$m.reports" | sed 's/^/    not excused (not in the known list, or not in the baseline): /'
		result "$m-kernel-log-clean" 0
	else
		sed 's/^/    in the baseline too (known): /' "$res/$m.excused" | sort -u
		result "$m-kernel-log-clean" 1
	fi
	# module: insmod, held, rmmod
	tries="-"
	if [ "$m" != absent ] && [ "$m" != absent-harden ]; then
		if grep -aq "^rtg-st: mode $m insmod failed" "$l"; then
			result "$m-insmod" 0
		fi
		grep -a "^rtg-st: mode $m \(stops\|stop:\|held: [^#]\)" "$l" | head -12 | sed 's/^/    /'
		# debugfs held after the run (its # lines describe the format):
		# no run in flight, nothing held, nothing left over
		if grep -aq "^rtg-st: mode $m held: " "$l"; then
			# no grep -q at the end of a pipe: its early exit would
			# fail the pipe (pipefail) and hide what it found
			if [ "$(sed -n "s/^rtg-st: mode $m held: //p" "$l" | grep -v '^#' |
				grep -cE 'leftover=[1-9]|^ *run |obj=|^lazy_runs:')" != 0 ]; then
				result "$m-held-clean" 0 "debugfs held shows what a run still holds or left"
			else
				result "$m-held-clean" 1
			fi
		fi
		# no run left watching its acquisitions: the word the acquiring
		# calls test is the others' (check_held and the events add to both)
		s=$(sed -nE "s/^rtg-st: mode $m stats: slow_calls: ([0-9]+)/\1/p" "$l")
		a=$(sed -nE "s/^rtg-st: mode $m stats: slow_acquire_calls: ([0-9]+)/\1/p" "$l")
		if [ -n "$s" ] && [ -n "$a" ]; then
			result "$m-slow-words" "$([ "$s" = "$a" ] && echo 1 || echo 0)" \
				"slow_calls $s, slow_acquire_calls $a"
		fi
		# check_held: the verifier's descriptions matched every table
		d=$(sed -nE "s/^rtg-st: mode $m stats: held_differences: ([0-9]+)/\1/p" "$l")
		if [ -n "$d" ]; then
			sed -nE "s/^rtg-st: mode $m stats: (held_[a-z_]+: [0-9]+)/\1/p" "$l" |
				paste -sd, | sed 's/^/    check_held: /'
			result "$m-held-descriptions" "$([ "$d" = 0 ] && echo 1 || echo 0)" "$d calls where the description and the table differ (kmsg: check_held lines)"
		fi
		r=$(sed -nE "s/^rtg-st: mode $m rmmod (ok|failed) tries ([0-9]+).*/\1 \2/p" "$l")
		if [ -n "$r" ]; then
			tries=${r#* }
			result "$m-rmmod" "$([ "${r% *}" = ok ] && echo 1 || echo 0)" "${r% *} after $tries tries"
		fi
	fi
	# differences from the baseline
	b=$(baseline "$m")
	ndiff=0
	nexp=0
	if [ -n "$b" ] && [ -f "$res/$b.results" ] && [ -f "$res/$m.results" ]; then
		unexpected=0
		while IFS=$'\t' read -r key was now; do
			# a crashed or timed-out mode: only what it reached
			[ "${status[$m]}" != finished ] && [ "$now" = missing ] && continue
			# a test left out (ST_DENY), if its baseline ran it
			[[ ,$deny, == *",${key%%/*},"* ]] && [ "$now" = missing ] && continue
			ndiff=$((ndiff + 1))
			why=$(expected_diff "$m" "$key" "$now")
			if [ -n "$why" ]; then
				nexp=$((nexp + 1))
				echo "    diff $key: $b $was, $m $now (expected: $why)"
			else
				unexpected=$((unexpected + 1))
				echo "    diff $key: $b $was, $m $now"
			fi
		done < <(join -t$'\t' -a1 -a2 -e missing -o 0,1.2,2.2 "$res/$b.results" "$res/$m.results" |
			awk -F'\t' '$2 != $3')
		if [ "${status[$m]}" != finished ]; then
			echo "    ($(($(wc -l < "$res/$b.results") - $(wc -l < "$res/$m.results"))) results of $b not reached)"
		fi
		result "$m-same-as-$b" "$([ "$unexpected" = 0 ] && echo 1 || echo 0)" \
			"$ndiff differences, $nexp expected"
	elif [ -n "$b" ]; then
		result "$m-same-as-$b" 0 "no results to compare"
	fi
	# the baseline itself (absent): a test failing there is compared
	# with nothing, so it must be listed as a difference from a kernel
	# where it passes. With ST_GROUPS=all, the many that this guest
	# cannot run (no network namespaces, veth, io_uring, ip or bpftool)
	# are only counted: the modes are judged against them
	if [ -z "$b" ] && [ -f "$res/$m.results" ] && [ "$groups" = all ]; then
		echo "    $(grep -c $'\tFAIL$' "$res/$m.results") results fail in the baseline (not judged with ST_GROUPS=all)"
	elif [ -z "$b" ] && [ -f "$res/$m.results" ]; then
		unexpected=0
		while IFS=$'\t' read -r key now; do
			why=$(expected_diff "$m" "$key" "$now")
			if [ -n "$why" ]; then
				echo "    fails in the baseline: $key (expected: $why)"
			else
				unexpected=$((unexpected + 1))
				echo "    fails in the baseline: $key"
			fi
		done < <(awk -F'\t' '$2 == "FAIL"' "$res/$m.results")
		result "$m-passes" "$([ "$unexpected" = 0 ] && echo 1 || echo 0)" \
			"$unexpected failures not in tests/selftests-expected-diffs"
	fi
	stops=$(sed -nE "s/^rtg-st: mode $m stops ([0-9]+).*/\1/p" "$l")
	table+=("$(printf '%-20s %-9s %5s %5s %5s %6s %6s %6s' "$m" "${status[$m]}" \
		"${nok[$m]}" "${nfail[$m]}" "${nskip[$m]}" "$ndiff" "${stops:--}" "$tries")")
done

echo "=== per mode (results: test_progs lines, tests and subtests; diff: against the baseline)"
printf '%-20s %-9s %5s %5s %5s %6s %6s %6s\n' mode status ok fail skip diff stops rmmod
printf '%s\n' "${table[@]}"
echo "groups: $groups"
echo "guest time: $runtime s, $nboot boots"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
