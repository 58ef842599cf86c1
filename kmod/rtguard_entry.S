/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the entry the JIT calls before a hooked helper or kfunc
 * call takes its slow path (see struct bpf_call_hook_site).
 */
#include <linux/linkage.h>
#include <asm/frame.h>

	.text

/* the five BPF argument registers, kept for the call the JIT makes next */
.macro SAVE_ARGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
.endm

.macro RESTORE_ARGS
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

/*
 * long rtg_pre_track_entry(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, u64 arg)
 *
 * A bpf_call_hook_pre_t. In: the five BPF argument registers (rdi, rsi,
 *      rdx, rcx, r8), and the struct rtg_site of the call in r9.
 * Out: rax as rtg_pre() returns it; rdi, rsi, rdx, rcx and r8
 *      unchanged, so that the JIT can make the original call right after.
 *
 * The entry of the calls of tracked programs: rtg_pre() receives the six
 * and, as its seventh to twelfth arguments, BPF R6-R9 (rbx, r13, r14,
 * r15), R10 (rbp) and r12 of the calling frame. It may leave the program
 * (bpf_call_hook_unwind()): the unwinder then finds this frame through
 * ORC and the program's frame below it as the JIT left it.
 */
SYM_FUNC_START(rtg_pre_track_entry)
	movq	%rbp, %rax
	FRAME_BEGIN
	SAVE_ARGS
	/*
	 * arguments seven to twelve, on the stack: r12, R10, R9-R6,
	 * pushed through a scratch register (they are copies, dropped
	 * unrestored)
	 */
	movq	%r12, %r11
	pushq	%r11
	pushq	%rax
	movq	%r15, %r11
	pushq	%r11
	movq	%r14, %r11
	pushq	%r11
	movq	%r13, %r11
	pushq	%r11
	movq	%rbx, %r11
	pushq	%r11
	call	rtg_pre
	addq	$48, %rsp
	RESTORE_ARGS
	FRAME_END
	RET
SYM_FUNC_END(rtg_pre_track_entry)
