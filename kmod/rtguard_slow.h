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
/*
 * rtg_slow_acquire: what the acquiring calls of sampled programs (described
 * or partly described, &rtg_prog.described) test instead: the CPU's
 * rtg_slow, plus the runs on it whose sampled table holds something
 * (&enum rtg_sample_flags): the hooks of such a run see each of its
 * acquisitions, so that a hold never spans two acquisitions at one call.
 * Both words change together, on their CPU (rtg_slow_add()).
 */
DECLARE_PER_CPU(u32, rtg_slow_acquire);

/* This CPU's calls take their slow path (@delta 1), or one reason less. */
static inline void rtg_slow_add(int delta)
{
	this_cpu_add(rtg_slow, delta);
	this_cpu_add(rtg_slow_acquire, delta);
}

void rtg_slow_all(int delta);
u32 rtg_slow_sum(void);
u32 rtg_slow_acquire_sum(void);

#endif /* _RTGUARD_SLOW_H */
