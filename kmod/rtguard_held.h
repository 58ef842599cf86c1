/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the checking mode's switch, which the pre hook reads
 * (rtguard_held.c).
 */
#ifndef _RTGUARD_HELD_H
#define _RTGUARD_HELD_H

#include <linux/types.h>

extern bool rtg_check_held;

#endif /* _RTGUARD_HELD_H */
