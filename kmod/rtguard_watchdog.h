/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the per-CPU word of runs in flight that the JIT counts
 * and the watchdog reads (rtguard_watchdog.c).
 */
#ifndef _RTGUARD_WATCHDOG_H
#define _RTGUARD_WATCHDOG_H

#include <linux/bpf_call_hook.h>
#include <linux/percpu-defs.h>

DECLARE_PER_CPU(struct bpf_call_hook_cpu, rtg_watch_cpu);

#endif /* _RTGUARD_WATCHDOG_H */
