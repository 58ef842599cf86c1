// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: rtg_slow, the per-CPU word that sends hooked calls through
 * their slow path. The JIT tests it in line before each such call.
 */
#include <linux/cpu.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "rtguard_slow.h"

DEFINE_PER_CPU(u32, rtg_slow);
DEFINE_PER_CPU(u32, rtg_slow_acquire);
/* serialises rtg_slow_all(), which writes every CPU's word */
static DEFINE_MUTEX(rtg_slow_lock);

static void rtg_slow_add_here(void *delta)
{
	rtg_slow_add((long)delta);
}

/**
 * rtg_slow_all() - send the hooked calls of every CPU through their slow
 * path (@delta 1), or stop doing so (-1)
 * @delta: 1 or -1
 *
 * Each online CPU adds @delta to its own word, in an interrupt, so that it
 * never races with the watchdog's marks and the runs' exits there, which
 * change the same word; offline CPUs, on which nothing runs, are written
 * here. Process context.
 */
void rtg_slow_all(int delta)
{
	int cpu;

	mutex_lock(&rtg_slow_lock);
	cpus_read_lock();
	on_each_cpu(rtg_slow_add_here, (void *)(long)delta, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu)) {
			per_cpu(rtg_slow, cpu) += delta;
			per_cpu(rtg_slow_acquire, cpu) += delta;
		}
	cpus_read_unlock();
	mutex_unlock(&rtg_slow_lock);
}

static u32 rtg_words_sum(u32 __percpu *word)
{
	u32 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(word, cpu));
	return sum;
}

/* The sums of the CPUs' words, for debugfs. */
u32 rtg_slow_sum(void)
{
	return rtg_words_sum(&rtg_slow);
}

u32 rtg_slow_acquire_sum(void)
{
	return rtg_words_sum(&rtg_slow_acquire);
}
