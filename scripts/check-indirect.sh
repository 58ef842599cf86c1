#!/bin/bash
# Host-side check for kernels with IBT (objtool seals functions whose
# address is never taken) and retpolines: list every indirect call or jump
# in bpf_rtguard.ko and fail on any outside the functions allowed below.
#   scripts/check-indirect.sh MODULE.ko
#
# Allowed, because their targets can never be a helper or kfunc:
#   rtg_release_all, rtg_release_described, rtg_end_sections
#                       call thunks that the JIT placed in the program's
#                       own image, each starting with ENDBR (patch "call
#                       the owner's hooks around helper and kfunc calls")
#   __traceiter_*, trace_event_raw_event_*, perf_trace_*, trace_raw_output_*,
#   __bpf_trace_*, trace_event_get_offsets_*: the tracepoint glue the
#                       kernel's TRACE_EVENT() macros generate; they call
#                       registered trace probes, which take their address
set -euo pipefail
ko=${1:?usage: check-indirect.sh MODULE.ko}
allowed='^((rtg_release_all|rtg_release_described|rtg_end_sections)(\.[a-z]+\.[0-9]+)?|__traceiter_.*|trace_event_raw_event_.*|perf_trace_.*|trace_raw_output_.*|__bpf_trace_.*|trace_event_get_offsets_.*)$'

objdump -dr --no-show-raw-insn "$ko" | awk -v allowed="$allowed" '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
	# call *%rax, jmp *0x8(%rbx), and retpoline thunk calls (relocations)
	/(call|jmp)[a-z]* +\*/ || /R_X86_64_(PLT32|PC32)[ \t]+__x86_indirect_(jump_)?thunk_/ {
		n++
		if (fn ~ allowed) { ok++; printf "allowed  %s: %s\n", fn, $0 }
		else { bad++; printf "INDIRECT %s: %s\n", fn, $0 }
	}
	END {
		printf "%d indirect branches, %d in allowed functions, %d elsewhere\n", n, ok, bad
		exit bad > 0
	}'
