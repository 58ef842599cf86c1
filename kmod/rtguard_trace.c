// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode, an strace for BPF programs. Around each call
 * of a traced program, the pre hook notes the arguments and the start
 * time and the post hook records the call as a rtg_call trace event;
 * formatting is left to whoever reads the trace buffer. While the event is
 * off, the JIT skips the pre hook and the post hook returns at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/clock.h>

#include "rtguard.h"

/* The rtg_call event was turned on: traced calls take their pre hook. */
int rtg_trace_reg(void)
{
	atomic_inc(&rtg_slow_calls);
	return 0;
}

/* ... and off. */
void rtg_trace_unreg(void)
{
	atomic_dec(&rtg_slow_calls);
}

#define CREATE_TRACE_POINTS
#include "rtguard_trace.h"

#define RTG_TRACE_SLOTS	64	/* calls in flight per CPU before a record is lost */

/*
 * A call in flight, between its pre and post hooks. A run does not move
 * between CPUs, but a preemptible one may let others run on its CPU in
 * between, so slots are taken round robin and checked by sequence number.
 */
struct rtg_trace_slot {
	u64 seq;
	u64 start_ns;
	u64 args[MAX_BPF_FUNC_REG_ARGS];
};

struct rtg_trace_cpu {
	u64 seq;
	u64 lost;
	struct rtg_trace_slot slot[RTG_TRACE_SLOTS];
};

static DEFINE_PER_CPU(struct rtg_trace_cpu, rtg_trace_cpu);

/**
 * rtg_trace_begin() - note a traced call's arguments and start time
 * @site: the call site
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 *
 * Return: the token rtg_trace_end() needs, always positive.
 */
long rtg_trace_begin(const struct rtg_site *site, u64 r1, u64 r2, u64 r3,
		     u64 r4, u64 r5)
{
	u64 seq = this_cpu_inc_return(rtg_trace_cpu.seq);
	struct rtg_trace_slot *slot = this_cpu_ptr(&rtg_trace_cpu.slot[seq % RTG_TRACE_SLOTS]);

	WRITE_ONCE(slot->seq, 0);
	barrier();
	slot->args[0] = r1;
	slot->args[1] = r2;
	slot->args[2] = r3;
	slot->args[3] = r4;
	slot->args[4] = r5;
	barrier();
	WRITE_ONCE(slot->seq, seq);
	slot->start_ns = local_clock();
	return seq & LONG_MAX;
}

/**
 * rtg_trace_end() - record a traced call
 * @token: from rtg_trace_begin()
 * @site: the call site
 * @ret: the call's result
 */
void rtg_trace_end(long token, const struct rtg_site *site, u64 ret)
{
	struct rtg_trace_slot *slot = this_cpu_ptr(&rtg_trace_cpu.slot[token % RTG_TRACE_SLOTS]);
	u64 args[MAX_BPF_FUNC_REG_ARGS], start = slot->start_ns;
	u64 now = local_clock();

	memcpy(args, slot->args, sizeof(args));
	barrier();
	/* taken again by later calls on this CPU while this one was in flight */
	if (READ_ONCE(slot->seq) != (u64)token) {
		this_cpu_inc(rtg_trace_cpu.lost);
		return;
	}
	trace_rtg_call(site, args[0], args[1], args[2], args[3], args[4], ret,
		       start, now - start);
}

/**
 * rtg_trace_post() - the post hook of a traced call that tracks nothing
 * @r0: the result
 * @saved: unused
 * @token: the pre hook's token; 0 when the event was off
 * @site: the call site
 *
 * Return: @r0.
 */
u64 rtg_trace_post(u64 r0, u64 saved, u64 token, const struct rtg_site *site)
{
	if (unlikely((long)token > 0))
		rtg_trace_end(token, site, r0);
	return r0;
}

/**
 * rtg_trace_lost() - traced calls whose record was lost
 *
 * Return: the number, summed over all CPUs.
 */
u64 rtg_trace_lost(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(rtg_trace_cpu.lost, cpu);
	return sum;
}

