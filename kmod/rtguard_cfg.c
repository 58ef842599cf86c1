// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the control flow of a program's main function, as its JIT
 * sees it: which of its instructions lie on a cycle or come after time a
 * run may spend elsewhere, so that a call that a run makes at most once,
 * and soon, is known, and whether a run of it can be anywhere but in it.
 */
#include <linux/bitmap.h>
#include <linux/filter.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "rtguard_cfg.h"

/* Longest function analysed: 4 u32 arrays of this many entries at most. */
#define RTG_CFG_MAX_INSNS	(64 * 1024)

/*
 * The successors of instruction @i of @insn (@len instructions) in @succ;
 * Return: how many (0 to 2).
 */
static int rtg_cfg_succ(const struct bpf_insn *insn, u32 len, u32 i, u32 succ[2])
{
	u8 class = BPF_CLASS(insn[i].code), op = BPF_OP(insn[i].code);
	s64 next = (s64)i + 1, target;
	int n = 0;

	if (insn[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
		next = (s64)i + 2;
	} else if (class == BPF_JMP || class == BPF_JMP32) {
		if (op == BPF_EXIT)
			return 0;
		if (op != BPF_CALL) {
			target = next + (class == BPF_JMP32 && op == BPF_JA ?
					 insn[i].imm : insn[i].off);
			if (target >= 0 && target < len)
				succ[n++] = target;
			if (op == BPF_JA)
				return n;
		}
	}
	if (next < len)
		succ[n++] = next;
	return n;
}

/*
 * Whether @insn calls another BPF function of the program or takes one's
 * address (a callback, which a helper then calls): a run may spend any
 * time there.
 */
static bool rtg_cfg_far(const struct bpf_insn *insn)
{
	return (insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL) ||
	       (insn->code == (BPF_LD | BPF_IMM | BPF_DW) && insn->src_reg == BPF_PSEUDO_FUNC);
}

/* Number @v, and put it on both stacks. */
static void rtg_cfg_visit(u32 v, u32 *idx, u32 *low, u32 *counter, u32 *stk,
			  u32 *sp, u32 *dfs, u32 *dp)
{
	idx[v] = *counter;
	low[v] = (*counter)++;
	stk[(*sp)++] = v;
	dfs[(*dp)++] = v << 2;
}

/**
 * rtg_cfg_on_cycle() - the instructions of a function that lie on a cycle
 * @insn: its instructions, from the first
 * @len: how many
 *
 * Tarjan's strongly connected components, walked from the first
 * instruction without recursion: an instruction is on a cycle when its
 * component has more than one, or it jumps to itself. Instructions never
 * reached are on none.
 *
 * Return: a bitmap of @len bits (bitmap_free()), or NULL when the function
 * is longer than RTG_CFG_MAX_INSNS or memory is short: every instruction
 * may then be on a cycle.
 */
unsigned long *rtg_cfg_on_cycle(const struct bpf_insn *insn, u32 len)
{
	u32 *idx, *low, *stk, *dfs, sp = 0, dp = 0, counter = 1;
	unsigned long *on_cycle;
	u32 succ[2], v, w, p;
	int n;

	if (!len || len > RTG_CFG_MAX_INSNS)
		return NULL;
	on_cycle = bitmap_zalloc(len, GFP_KERNEL);
	idx = kvcalloc(4 * (size_t)len, sizeof(u32), GFP_KERNEL);
	if (!on_cycle || !idx) {
		bitmap_free(on_cycle);
		kvfree(idx);
		return NULL;
	}
	low = idx + len;
	stk = low + len;
	dfs = stk + len;

	/* dfs[]: an instruction, and in its low 2 bits its next successor */
	rtg_cfg_visit(0, idx, low, &counter, stk, &sp, dfs, &dp);
	while (dp) {
		v = dfs[dp - 1] >> 2;
		p = dfs[dp - 1] & 3;
		n = rtg_cfg_succ(insn, len, v, succ);
		if (p < n) {
			dfs[dp - 1]++;
			w = succ[p];
			if (w == v) {
				__set_bit(v, on_cycle);
			} else if (!idx[w]) {
				rtg_cfg_visit(w, idx, low, &counter, stk, &sp, dfs, &dp);
			} else if (idx[w] != U32_MAX) {
				/* on the stack: in v's component */
				low[v] = min(low[v], idx[w]);
			}
			continue;
		}
		dp--;
		if (dp)
			low[dfs[dp - 1] >> 2] = min(low[dfs[dp - 1] >> 2], low[v]);
		if (low[v] != idx[v])
			continue;
		/* v roots a component: the stack down to it */
		if (stk[sp - 1] != v) {
			do {
				w = stk[--sp];
				__set_bit(w, on_cycle);
				idx[w] = U32_MAX;
			} while (w != v);
		} else {
			idx[stk[--sp]] = U32_MAX;
		}
	}
	kvfree(idx);
	return on_cycle;
}

/**
 * rtg_cfg_straight() - whether a function runs straight through, alone
 * @insn: its instructions, from the first
 * @len: how many
 * @on_cycle: rtg_cfg_on_cycle() of them
 *
 * Return: true when no instruction lies on a cycle and none calls another
 * BPF function or takes one's address (a callback): a run of the function
 * makes each of its calls at most once, and runs no other function of its
 * program.
 */
bool rtg_cfg_straight(const struct bpf_insn *insn, u32 len,
		      const unsigned long *on_cycle)
{
	u32 i;

	if (!bitmap_empty(on_cycle, len))
		return false;
	for (i = 0; i < len; i++)
		if (rtg_cfg_far(&insn[i]))
			return false;
	return true;
}

/* Push @v on @stk unless @seen says it was. */
static void rtg_cfg_push(u32 v, unsigned long *seen, u32 *stk, u32 *sp)
{
	if (!__test_and_set_bit(v, seen))
		stk[(*sp)++] = v;
}

/**
 * rtg_cfg_mark_far() - add what a run may reach after time spent elsewhere
 * @insn: a function's instructions, from the first
 * @len: how many
 * @not_once: rtg_cfg_on_cycle() of them, to add to
 *
 * A run that calls another BPF function of its program, or passes one to
 * a helper (takes its address), may spend any time there without a call
 * of this function's: every instruction it may reach after that (after
 * the address taken: the helper's call too) is marked as if on a cycle,
 * so that the calls among them stay places to stop.
 *
 * Return: false when memory is short (@not_once is then incomplete).
 */
bool rtg_cfg_mark_far(const struct bpf_insn *insn, u32 len, unsigned long *not_once)
{
	u32 *stk, sp = 0, succ[2], i;
	unsigned long *seen;
	int n;

	seen = bitmap_zalloc(len, GFP_KERNEL);
	stk = kvcalloc(len, sizeof(u32), GFP_KERNEL);
	if (!seen || !stk) {
		bitmap_free(seen);
		kvfree(stk);
		return false;
	}
	/* each instruction is pushed once at most: @len entries are enough */
	for (i = 0; i < len; i++) {
		if (!rtg_cfg_far(&insn[i]))
			continue;
		n = rtg_cfg_succ(insn, len, i, succ);
		while (n--)
			rtg_cfg_push(succ[n], seen, stk, &sp);
	}
	while (sp) {
		i = stk[--sp];
		__set_bit(i, not_once);
		n = rtg_cfg_succ(insn, len, i, succ);
		while (n--)
			rtg_cfg_push(succ[n], seen, stk, &sp);
	}
	bitmap_free(seen);
	kvfree(stk);
	return true;
}
