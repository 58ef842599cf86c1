// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode, an strace for BPF programs. Around each call
 * of a traced program, the pre hook notes the arguments and the start
 * time and the post hook records the call; calls reach the trace buffer
 * as rtg_call events of up to RTG_TRACE_BATCH calls of one CPU.
 *
 * A call is kept as only what changes from call to call (struct
 * rtg_call_rec): the site's number, the arguments, the result, its end
 * and duration, the task. What a site is (program, instruction, function,
 * the kinds of its arguments) is listed once in debugfs
 * bpf_rtguard/sites; names and types come from BTF. Times are in cycles
 * of the CPU's TSC (one instruction at each end; a run does not move
 * between CPUs); bpf_rtguard/stats has tsc_khz to turn them into time.
 * While the event is off, the JIT skips the pre hook and the post hook
 * returns at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>

#include "rtguard.h"

/*
 * Calls in flight, taken round robin. A run does not move between CPUs,
 * but a preemptible one may let others run on its CPU in between, and an
 * interrupt may trace calls of its own: a slot is checked by sequence
 * number when the call ends.
 */
struct rtg_trace_cpu {
	u64 seq;
	u64 lost;
	struct rtg_trace_slot slot[RTG_TRACE_SLOTS];
};

static DEFINE_PER_CPU(struct rtg_trace_cpu, rtg_trace_cpu);

/*
 * Ended calls waiting to be written, RTG_TRACE_BATCH to a record: the
 * trace buffer's reserve and commit cost several times what a call's
 * hooks do. Whoever takes busy first on the CPU (0 -> 1: one instruction,
 * so interrupts see it taken or not) owns the batch; a writer that finds
 * it taken (it interrupted the owner) writes its call alone. The batch
 * is written when full, by a lazy irq_work its first call queues (run
 * at the CPU's next tick, or at once on a CPU whose tick is stopped), and
 * when a reader asks (rtg_trace_flush_all()). A CPU that traces nothing
 * is never woken.
 */
struct rtg_trace_batch {
	u32 busy;
	u32 n;
	struct rtg_call_rec rec[RTG_TRACE_BATCH];
};

static DEFINE_PER_CPU(struct rtg_trace_batch, rtg_trace_batch);

/* The rtg_call event was turned on: traced calls take their pre hook. */
int rtg_trace_reg(void)
{
	int cpu;

	/* nothing is lost while the event is off: count from now on */
	for_each_possible_cpu(cpu) {
		WRITE_ONCE(per_cpu(rtg_trace_cpu.lost, cpu), 0);
		/* no traced call has ended since the event was last off */
		per_cpu(rtg_trace_batch.n, cpu) = 0;
	}
	rtg_slow_all(1);
	return 0;
}

/* ... and off. */
void rtg_trace_unreg(void)
{
	rtg_slow_all(-1);
}

/* rtg_acquire or rtg_release was turned on: tracked calls take their hooks. */
int rtg_hold_trace_reg(void)
{
	rtg_slow_all(1);
	return 0;
}

/* ... and off. */
void rtg_hold_trace_unreg(void)
{
	rtg_slow_all(-1);
}

#define CREATE_TRACE_POINTS
#include "rtguard_trace.h"

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
	slot->start = rtg_clock();
	return seq & LONG_MAX;
}

/* Write the batch of this CPU, whose busy the caller took. */
static void rtg_trace_write(struct rtg_trace_batch *b)
{
	if (b->n)
		trace_rtg_call(b->rec, b->n, rtg_clock());
	b->n = 0;
}

/*
 * Write this CPU's waiting calls. Called with preemption off; does
 * nothing, and returns false, when it interrupted the batch's owner.
 */
static bool rtg_trace_flush_this_cpu(void)
{
	bool owner = this_cpu_inc_return(rtg_trace_batch.busy) == 1;

	if (owner)
		rtg_trace_write(this_cpu_ptr(&rtg_trace_batch));
	this_cpu_dec(rtg_trace_batch.busy);
	return owner;
}

static void rtg_trace_flush_work_fn(struct irq_work *work)
{
	/* the owner it interrupted writes nothing more: try the next tick */
	if (!rtg_trace_flush_this_cpu())
		irq_work_queue(work);
}

/* set up by rtg_trace_init(): a module's per-CPU data is not relocated */
static DEFINE_PER_CPU(struct irq_work, rtg_trace_flush_work);

static void rtg_trace_flush_ipi(void *unused)
{
	rtg_trace_flush_this_cpu();
}

/**
 * rtg_trace_flush_all() - write the waiting calls of every CPU
 *
 * For readers, before they read the trace buffer (debugfs trace_flush).
 */
void rtg_trace_flush_all(void)
{
	on_each_cpu(rtg_trace_flush_ipi, NULL, 1);
}

/*
 * A complete record @r: the owner of the CPU's batch (@r its next entry)
 * counts it in and writes the batch when full; a writer that interrupted
 * the owner writes @r alone. In line: a traced call's post hook runs it.
 */
static __always_inline void rtg_trace_add(struct rtg_trace_batch *b,
					  const struct rtg_call_rec *r, bool owner)
{
	if (unlikely(!owner))
		trace_rtg_call(r, 1, rtg_clock());
	else if (++b->n == RTG_TRACE_BATCH)
		rtg_trace_write(b);
	else if (b->n == 1)
		irq_work_queue(this_cpu_ptr(&rtg_trace_flush_work));
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
	struct rtg_call_rec alone, *r = &alone;
	struct rtg_trace_batch *b;
	u64 end = rtg_clock();
	bool owner;

	/* taken again by later calls on this CPU while this one was in flight */
	if (unlikely(READ_ONCE(slot->seq) != (u64)token)) {
		this_cpu_inc(rtg_trace_cpu.lost);
		return;
	}
	preempt_disable_notrace();
	b = this_cpu_ptr(&rtg_trace_batch);
	owner = this_cpu_inc_return(rtg_trace_batch.busy) == 1;
	if (likely(owner))
		r = &b->rec[b->n];
	memcpy(r->args, slot->args, sizeof(r->args));
	r->ret = ret;
	r->end = end;
	r->cycles = end - slot->start;
	r->pid = current->pid;
	r->kind = RTG_REC_CALL;
	barrier();
	/* and again now that the arguments are copied */
	r->site = READ_ONCE(slot->seq) == (u64)token ? site->trace_id : 0;
	rtg_trace_add(b, r, owner);
	this_cpu_dec(rtg_trace_batch.busy);
	preempt_enable_notrace();
}

/* Add a record that is not a call's to this CPU's batch. */
static void rtg_trace_record(const struct rtg_call_rec *r)
{
	struct rtg_trace_batch *b;
	bool owner;

	preempt_disable_notrace();
	b = this_cpu_ptr(&rtg_trace_batch);
	owner = this_cpu_inc_return(rtg_trace_batch.busy) == 1;
	if (likely(owner))
		b->rec[b->n] = *r;
	rtg_trace_add(b, owner ? &b->rec[b->n] : r, owner);
	this_cpu_dec(rtg_trace_batch.busy);
	preempt_enable_notrace();
}

/**
 * rtg_trace_run() - record a run of a traced program as it returns
 * @run: the run, no longer the task's current one
 * @ret: what it returns
 *
 * For readers that show runs with their calls (rtg-strace -g): the
 * run's number, its duration, result, and whether and how it was
 * stopped.
 */
void rtg_trace_run(const struct rtg_run *run, u64 ret)
{
	struct rtg_call_rec r = {
		.ret = ret,
		.site = run->image->run_id,
		.pid = current->pid,
		.kind = RTG_REC_RUN,
	};
	u64 ns;

	if (!trace_rtg_call_enabled() || !r.site)
		return;
	r.end = rtg_clock();
	ns = rtg_run_age_ns(run, local_clock());
	r.args[0] = run->stop;
	r.args[1] = run->stop ? run->fast_releases : 0;
	r.args[2] = ns;
	r.cycles = min_t(u64, ns * READ_ONCE(tsc_khz) / USEC_PER_SEC, U32_MAX);
	rtg_trace_record(&r);
}

/**
 * rtg_trace_stop_release() - record what a stop gave back
 * @acq: the call site that acquired it
 * @obj: what was given back
 */
void rtg_trace_stop_release(const struct rtg_site *acq, u64 obj)
{
	struct rtg_call_rec r = {
		.args = { obj },
		.end = rtg_clock(),
		.site = acq->trace_id,
		.pid = current->pid,
		.kind = RTG_REC_RELEASE,
	};

	if (trace_rtg_call_enabled() && r.site)
		rtg_trace_record(&r);
}

/**
 * rtg_trace_init() - set up each CPU's flush, before anything is traced
 */
void rtg_trace_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(rtg_trace_flush_work, cpu) = IRQ_WORK_INIT_LAZY(rtg_trace_flush_work_fn);
}

/**
 * rtg_trace_exit() - wait for the flushes still queued, at module exit
 */
void rtg_trace_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&rtg_trace_flush_work, cpu));
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
 * Calls that ended after later calls on their CPU had taken their slot
 * (more than RTG_TRACE_SLOTS in flight), since the event was last turned
 * on. Records the trace buffer itself dropped are counted by the buffer.
 *
 * Return: the number, summed over all CPUs.
 */
u64 rtg_trace_lost(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(rtg_trace_cpu.lost, cpu));
	return sum;
}
