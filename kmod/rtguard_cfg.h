/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the control flow of a function (rtguard_cfg.c).
 */
#ifndef _RTGUARD_CFG_H
#define _RTGUARD_CFG_H

#include <linux/types.h>

struct bpf_insn;

unsigned long *rtg_cfg_on_cycle(const struct bpf_insn *insn, u32 len);
bool rtg_cfg_straight(const struct bpf_insn *insn, u32 len,
		      const unsigned long *on_cycle);
bool rtg_cfg_mark_far(const struct bpf_insn *insn, u32 len, unsigned long *not_once);

#endif /* _RTGUARD_CFG_H */
