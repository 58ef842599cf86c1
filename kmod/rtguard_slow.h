/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the slow-path word (rtguard_slow.c).
 */
#ifndef _RTGUARD_SLOW_H
#define _RTGUARD_SLOW_H

#include <linux/percpu-defs.h>
#include <linux/types.h>

/*
 * rtg_slow: while a CPU's word is not zero, hooked calls made on it take
 * their slow path (the pre hook): the watchdog marked a run there (one for
 * each marked run in flight, rtg_run_mark()), or on every CPU one of the
 * rtg_call, rtg_acquire and rtg_release events is on or check_held is
 * set (rtg_slow_all()). The JIT tests it in line before each such call.
 */
DECLARE_PER_CPU(u32, rtg_slow);
void rtg_slow_all(int delta);
u32 rtg_slow_sum(void);

#endif /* _RTGUARD_SLOW_H */
