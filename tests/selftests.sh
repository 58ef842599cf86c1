#!/bin/sh
# Guest side of make selftests: the kernel's own test_progs (in /st) under
# each bpf_rtguard mode named by rtg.st_modes=a,b,... on the kernel
# command line, on the groups rtg.st_groups=g1,g2,... (test_progs -t),
# or all of test_progs but rtg.st_deny=t1,t2,... (-d) with rtg.st_groups=all.
# The mode table below is the one list of modes; the host reads it with
# `sh tests/selftests.sh --modes`. Every mode NAME also exists as
# NAME-harden: the same with net.core.bpf_jit_harden=2.
# Output, for the host (scripts/selftests.sh):
#   rtg-st: mode NAME begin ...
#   test_progs' own lines (#N/M group/subtest:OK|FAIL|SKIP)
#   rtg-st: mode NAME test_progs exit RC
#   rtg-st: mode NAME held: LINE        (debugfs held before rmmod)
#   rtg-st: mode NAME stats: LINE
#   rtg-st: mode NAME stops N           (rtg_stop events during the run)
#   rtg-st: mode NAME held-clean 0|1   (the host judges the held: lines)
#   rtg-st: mode NAME rmmod ok|failed tries N
#   kmsg: ...                           (the kernel log of the mode)
#   rtg-st: mode NAME end
# The console shows only emergency kernel messages while a mode runs
# (oopses and panics still reach it), so that test_progs' lines stay
# whole; the rest of the kernel log follows each mode as kmsg: lines.

# name|module parameters (empty: module absent)|rtg_call event on (in a
# trace instance of its own: the kernel's tests read the top-level buffer,
# trace_printk's for its bpf_trace_printk() lines)
# (the debug modes record runs too, the heavier path: trace_runs=1;
# tracking modes check the verifier's held-set descriptions at every call;
# the *_described ones do not, so that the programs the verifier describes
# completely keep no run-time table)
modes() {
	cat <<'EOF'
absent||
hook_all|hook_all=1|
track|track=1 check_held=1|
watchdog|track=1 watchdog_ms=1 hold_limit_us=200 check_held=1|
track_described|track=1 describe=1|
watchdog_described|track=1 describe=1 watchdog_ms=1 hold_limit_us=200|
debug_event|debug=all trace_runs=1|1
track_debug|track=1 debug=all trace_runs=1 check_held=1|1
EOF
}

if [ "${1:-}" = --modes ]; then
	modes | cut -d'|' -f1
	modes | cut -d'|' -f1 | sed 's/$/-harden/'
	exit 0
fi

arg() { sed -n "s/.*rtg\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
st_modes=$(arg st_modes | tr , ' ')
st_groups=$(arg st_groups)
st_deny=$(arg st_deny)
dbg=/sys/kernel/debug/bpf_rtguard
tr=/sys/kernel/tracing
harden=/proc/sys/net/core/bpf_jit_harden

mkdir -p /mnt /sys/fs/bpf
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# test_progs' lines must not be cut by kernel messages
dmesg -n 1
dmesg -c > /dev/null
# stops in their own trace instance, the rtg_call flood in another
mkdir -p $tr/instances/st $tr/instances/stcall 2>/dev/null

run_mode() {
	name=$1
	base=${name%-harden}
	h=0
	[ "$base" != "$name" ] && h=2
	line=$(modes | grep "^$base|")
	if [ -z "$line" ]; then
		echo "rtg-st: mode $name unknown"
		return
	fi
	params=$(echo "$line" | cut -d'|' -f2)
	event=$(echo "$line" | cut -d'|' -f3)
	echo "rtg-st: mode $name begin: params='$params' rtg_call=${event:-0} bpf_jit_harden=$h groups=$st_groups"
	echo "$h" > $harden
	if [ -n "$params" ]; then
		# shellcheck disable=SC2086
		if ! insmod /rtg/bpf_rtguard.ko $params; then
			echo "rtg-st: mode $name insmod failed"
			echo "rtg-st: mode $name end"
			return
		fi
		echo > $tr/instances/st/trace
		echo 1 > $tr/instances/st/events/bpf_rtguard/rtg_stop/enable
		if [ -n "$event" ]; then
			echo 1 > $tr/instances/stcall/events/bpf_rtguard/rtg_call/enable ||
				echo "rtg-st: mode $name rtg_call event not enabled"
		fi
	fi
	t0=$(date +%s)
	# all: every test but those rtg.st_deny names (test_progs -d)
	if [ "$st_groups" = all ]; then
		set -- ${st_deny:+-d "$st_deny"}
	else
		set -- -t "$st_groups"
	fi
	(cd /st && ./test_progs "$@")
	rc=$?
	echo "rtg-st: mode $name test_progs exit $rc ($(($(date +%s) - t0)) s)"
	if [ -n "$params" ]; then
		[ -n "$event" ] && echo 0 > $tr/instances/stcall/events/bpf_rtguard/rtg_call/enable
		echo 0 > $tr/instances/st/events/bpf_rtguard/rtg_stop/enable
		echo > $tr/trace
		echo > $tr/instances/stcall/trace
		sed "s/^/rtg-st: mode $name held: /" $dbg/held
		sed "s/^/rtg-st: mode $name stats: /" $dbg/stats
		echo "rtg-st: mode $name stops $(grep -c 'rtg_stop:' $tr/instances/st/trace)"
		grep 'rtg_stop:' $tr/instances/st/trace | head -5 | sed "s/^/rtg-st: mode $name stop: /"
		echo > $tr/instances/st/trace
		# nothing held by a run still in flight, nothing left over
		if grep -v '^#' $dbg/held | grep -qE 'leftover=[1-9]|^ *run |obj='; then
			echo "rtg-st: mode $name held-clean 0"
		else
			echo "rtg-st: mode $name held-clean 1"
		fi
		# programs are freed after test_progs exits, some after an RCU
		# grace period: the module is in use until then
		tries=0
		ok=failed
		while [ $tries -lt 10 ]; do
			tries=$((tries + 1))
			if rmmod bpf_rtguard 2>/dev/null; then
				ok=ok
				break
			fi
			sync
			sleep 1
		done
		echo "rtg-st: mode $name rmmod $ok tries $tries"
	fi
	echo 0 > $harden
	dmesg -c | sed 's/^/kmsg: /'
	echo "rtg-st: mode $name end"
}

for m in $st_modes; do
	run_mode "$m"
done
echo "rtg-st: all modes done"
