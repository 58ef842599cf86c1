/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the pass-through hook, which counts calls.
 */
#include <linux/linkage.h>

	.text

/*
 * void rtg_passthrough_note(u64 arg)
 *
 * A bpf_call_hook_note_t. In: the site's per-CPU count of calls
 * (&rtg_site.count) in rdi, the call's result in rax.
 * Out: rax unchanged, so that the result reaches the program untouched
 *      (void, 32-bit, 64-bit and pointer results alike).
 *
 * Called by JIT compiled programs right after the function of a site,
 * which the program calls directly. It neither sleeps nor takes locks,
 * so it is safe wherever the call is, after sleepable kfuncs included;
 * ftrace does not trace it. Three instructions: ENDBR, the increment
 * of this CPU's count (the program runs with migration disabled, and the
 * increment is one instruction, so an interrupt sees it whole), RET.
 */
SYM_FUNC_START(rtg_passthrough_note)
	incq	%gs:(%rdi)
	RET
SYM_FUNC_END(rtg_passthrough_note)
