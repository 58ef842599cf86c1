/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtg_testmod: a caller that sees its callee-saved registers come back
 * from a BPF program, whether the program returned or was left by an
 * unwind.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

/* values the caller keeps in rbx, r12, r13, r14 and r15 across the call */
#define RTG_KEEP_RBX	0x5e5e000000000003
#define RTG_KEEP_R12	0x5e5e00000000000c
#define RTG_KEEP_R13	0x5e5e00000000000d
#define RTG_KEEP_R14	0x5e5e00000000000e
#define RTG_KEEP_R15	0x5e5e00000000000f

/* diff[off / 8] = what reg holds, xor the value it was given */
.macro DIFF reg, keep, off
	movabsq	$\keep, %rdx
	xorq	%\reg, %rdx
	movq	%rdx, \off(%rcx)
.endm

	.text

/*
 * u64 rtg_test_call_keeping(const void *ctx, const struct bpf_insn *insn,
 *			     bpf_func_t func, u64 *diff)
 *
 * Calls func(ctx, insn) with the values above in the callee-saved
 * registers, and its own frame pointer in rbp. Out: rax as func returns
 * it; diff[0] to diff[4] what rbx, r12, r13, r14 and r15 came back as,
 * xor their value before; diff[5] the same for rbp. All 0 when the
 * callee gave them back.
 */
SYM_FUNC_START(rtg_test_call_keeping)
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushq	%rcx
	pushq	%rbp
	movabsq	$RTG_KEEP_RBX, %rbx
	movabsq	$RTG_KEEP_R12, %r12
	movabsq	$RTG_KEEP_R13, %r13
	movabsq	$RTG_KEEP_R14, %r14
	movabsq	$RTG_KEEP_R15, %r15
	CALL_NOSPEC rdx
	popq	%rdx
	popq	%rcx
	xorq	%rbp, %rdx
	movq	%rdx, 40(%rcx)
	DIFF	rbx, RTG_KEEP_RBX, 0
	DIFF	r12, RTG_KEEP_R12, 8
	DIFF	r13, RTG_KEEP_R13, 16
	DIFF	r14, RTG_KEEP_R14, 24
	DIFF	r15, RTG_KEEP_R15, 32
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	RET
SYM_FUNC_END(rtg_test_call_keeping)
