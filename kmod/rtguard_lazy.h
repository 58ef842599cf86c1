/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: lazy runs, adopted outside their frames (rtguard_lazy.c),
 * which owns their records.
 */
#ifndef _RTGUARD_LAZY_H
#define _RTGUARD_LAZY_H

#include "rtguard.h"

/*
 * The runs in flight on each CPU, which the JIT counts and the module
 * adopts (rtg_lazy_adopt()), and whether the CPU is watched, which the
 * watchdog writes (rtguard_watchdog.c)
 */
DECLARE_PER_CPU(struct bpf_call_hook_cpu, rtg_watch_cpu);

/* one lazy run not adopted, in &bpf_call_hook_cpu.runs */
#define RTG_RUNS_ONE_LAZY	(BPF_CALL_HOOK_RUN_LAZY_EXITED - 1)

struct rtg_run *rtg_lazy_adopt(struct bpf_call_hook_run *area, struct rtg_prog *tp);
struct rtg_run *rtg_lazy_run_of(struct bpf_call_hook_run *area);
struct rtg_run *rtg_lazy_run_cpu(struct bpf_call_hook_run *area);
void rtg_lazy_give_up(struct rtg_run *run);
void rtg_lazy_free(struct rtg_run *run);
struct bpf_call_hook_run *rtg_run_area(struct rtg_run *run);
size_t rtg_lazy_run_bytes(const void *addr);
void rtg_lazy_stats(struct seq_file *m);
void rtg_lazy_fail(int n);
int rtg_lazy_init(void);
void rtg_lazy_exit(void);

#endif /* _RTGUARD_LAZY_H */
