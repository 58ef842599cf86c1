// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode, an strace for BPF programs. Before each call
 * of a traced program the JIT saves its arguments and the time on the
 * stack (struct bpf_call_hook_args), and the post hook records the call;
 * calls reach the trace buffer as rtg_call events of up to
 * RTG_TRACE_BATCH calls of one CPU.
 *
 * A call is kept as only what changes from call to call (struct
 * rtg_call_rec): the site's number, the arguments, the result, its end
 * and duration, the task. What a site is (program, instruction, function,
 * the kinds of its arguments) is listed once in debugfs
 * bpf_rtguard/sites; names and types come from BTF. Times are in cycles
 * of the CPU's TSC (one instruction at each end; a run does not move
 * between CPUs); bpf_rtguard/stats has tsc_khz to turn them into time.
 * While the event is off, the JIT makes a traced call alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/moduleparam.h>

#include "rtguard.h"
#include "rtguard_param.h"
#include "rtguard_slow.h"

/*
 * Ended calls waiting to be written, up to RTG_TRACE_BATCH to a record
 * and as many as the text of one event holds (@text: the sum of their
 * lines' bounds, see rtg_trace_print()): the trace buffer's reserve and
 * commit cost several times what a call's hooks do. Whoever takes busy
 * first on the CPU (0 -> 1: one instruction, so interrupts see it taken
 * or not) owns the batch; a writer that finds
 * it taken (it interrupted or preempted the owner) writes its call alone.
 * The batch is written when full, by a lazy irq_work its first call
 * queues (run at the CPU's next tick, or at once on a CPU whose tick is
 * stopped), and when a reader asks (rtg_trace_flush_all()). A CPU that
 * traces nothing is never woken.
 */
struct rtg_trace_batch {
	u32 busy;
	u32 n;
	u32 text;
	struct rtg_call_rec rec[RTG_TRACE_BATCH];
};

/*
 * Allocated by rtg_trace_init(): too big for the static per-CPU area that
 * all modules share (PERCPU_MODULE_RESERVE). Hooked images pin the module,
 * so every call and run record finds it; the rtg_call event's callbacks and
 * the flushes may also run once rtg_trace_exit() took it away (NULL), as
 * the tracing core turns a going module's events off, and do nothing then.
 */
static struct rtg_trace_batch __percpu *rtg_trace_batch;

/*
 * Runs are recorded (rtg_trace_run()) only while the rtg_call event is on
 * and trace_runs is set or debugfs trace_runs is open (rtg-strace -g with
 * a command or -P holds it open while it traces): a run's bracket and
 * record cost several calls' records, and only readers that show runs
 * need them.
 * rtg_trace_runs_on, the exit flag the JIT tests as runs begin and
 * return (&bpf_call_hook_ops.exit_flag), says so on each CPU; only
 * rtg_trace_runs_update() writes it, under rtg_trace_runs_lock.
 */
DEFINE_PER_CPU(u32, rtg_trace_runs_on);
static DEFINE_MUTEX(rtg_trace_runs_lock);
/* the rtg_call event is registered; under rtg_trace_runs_lock */
static bool rtg_trace_event_on;
/* opens of debugfs trace_runs; under rtg_trace_runs_lock */
static unsigned int rtg_trace_runs_holders;

static bool rtg_trace_runs;

static void rtg_trace_runs_update(void)
{
	u32 on = rtg_trace_event_on && (READ_ONCE(rtg_trace_runs) || rtg_trace_runs_holders);
	int cpu;

	lockdep_assert_held(&rtg_trace_runs_lock);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(rtg_trace_runs_on, cpu), on);
}

static int rtg_trace_runs_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = rtg_param_parse_bool(val, kp, &on);

	if (err)
		return min(err, 0);
	mutex_lock(&rtg_trace_runs_lock);
	WRITE_ONCE(rtg_trace_runs, on);
	rtg_trace_runs_update();
	mutex_unlock(&rtg_trace_runs_lock);
	return 0;
}

static const struct kernel_param_ops rtg_trace_runs_ops = {
	.set = rtg_trace_runs_set,
	.get = param_get_bool,
};

module_param_cb(trace_runs, &rtg_trace_runs_ops, &rtg_trace_runs, 0644);
MODULE_PARM_DESC(trace_runs,
		 "While the rtg_call event is on, also record each run of a traced program as it returns (for rtg-strace -g)");

/* debugfs trace_runs: runs are recorded while it is open */
static int rtg_trace_runs_open(struct inode *inode, struct file *file)
{
	mutex_lock(&rtg_trace_runs_lock);
	rtg_trace_runs_holders++;
	rtg_trace_runs_update();
	mutex_unlock(&rtg_trace_runs_lock);
	return 0;
}

static int rtg_trace_runs_release(struct inode *inode, struct file *file)
{
	mutex_lock(&rtg_trace_runs_lock);
	rtg_trace_runs_holders--;
	rtg_trace_runs_update();
	mutex_unlock(&rtg_trace_runs_lock);
	return 0;
}

const struct file_operations rtg_trace_runs_fops = {
	.owner = THIS_MODULE,
	.open = rtg_trace_runs_open,
	.release = rtg_trace_runs_release,
};

static void rtg_trace_event_set(bool on)
{
	mutex_lock(&rtg_trace_runs_lock);
	rtg_trace_event_on = on;
	rtg_trace_runs_update();
	mutex_unlock(&rtg_trace_runs_lock);
}

/* The rtg_call event was turned on: traced calls take their hooked path. */
int rtg_trace_reg(void)
{
	struct rtg_trace_batch __percpu *batch;
	int cpu;

	rcu_read_lock();
	batch = READ_ONCE(rtg_trace_batch);
	/* no traced call has ended since the event was last off */
	if (batch) {
		for_each_possible_cpu(cpu) {
			per_cpu_ptr(batch, cpu)->n = 0;
			per_cpu_ptr(batch, cpu)->text = 0;
		}
	}
	rcu_read_unlock();
	if (!batch)
		return -ENODEV;
	rtg_slow_all(1);
	rtg_trace_event_set(true);
	return 0;
}

/*
 * ... and off: the calls still batched are written first, while the
 * tracepoint still has its probe, for a reader that turns the event off
 * and then reads what the buffer holds.
 */
void rtg_trace_unreg(void)
{
	rtg_trace_flush_all();
	rtg_trace_event_set(false);
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

/* Write the batch of this CPU, whose busy the caller took. */
static void rtg_trace_write(struct rtg_trace_batch *b)
{
	if (b->n)
		trace_rtg_call(b->rec, b->n, rtg_clock());
	b->n = 0;
	b->text = 0;
}

/*
 * Write this CPU's waiting calls. Called with preemption off; does
 * nothing, and returns false, when it interrupted the batch's owner.
 */
static bool rtg_trace_flush_this_cpu(void)
{
	struct rtg_trace_batch __percpu *batch = READ_ONCE(rtg_trace_batch);
	bool owner;

	if (!batch)
		return true;
	owner = this_cpu_inc_return(batch->busy) == 1;
	if (owner)
		rtg_trace_write(this_cpu_ptr(batch));
	this_cpu_dec(batch->busy);
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
 * Count in the record the owner of this CPU's batch just wrote at its
 * end, whose line is at most @line_max bytes: write the batch when full
 * (once the next record's line might start too far for the event's
 * text), or have it written soon. In line: a traced call's post hook
 * runs it.
 */
static __always_inline void rtg_trace_add(struct rtg_trace_batch *b, u32 line_max)
{
	b->text += line_max;
	if (++b->n == RTG_TRACE_BATCH || b->text > RTG_TRACE_TEXT_MAX - RTG_TRACE_LINE_MAX)
		rtg_trace_write(b);
	else if (b->n == 1)
		irq_work_queue(this_cpu_ptr(&rtg_trace_flush_work));
}

/* A record made while this CPU's batch has an owner it interrupted. */
static void rtg_trace_alone(const struct rtg_call_rec *r)
{
	trace_rtg_call(r, 1, rtg_clock());
}

static __always_inline void rtg_trace_fill(struct rtg_call_rec *r,
					   const struct bpf_call_hook_args *args,
					   const struct rtg_site *site, u64 ret, u64 end)
{
	memcpy(r->args, args->r, sizeof(r->args));
	r->ret = ret;
	r->end = end;
	r->cycles = end - args->tsc;
	r->site = site->trace_id;
	r->pid = current->pid;
	r->kind = RTG_REC_CALL;
}

static noinline void rtg_trace_call_alone(const struct bpf_call_hook_args *args,
					  const struct rtg_site *site, u64 ret, u64 end)
{
	struct rtg_call_rec r;

	rtg_trace_fill(&r, args, site, ret, end);
	rtg_trace_alone(&r);
}

/*
 * Record a traced call; see rtg_trace_call(). The program that made it
 * runs with migration disabled, so this CPU's batch stays this CPU's;
 * another task that preempts the batch's owner finds it taken and
 * writes its call alone, as an interrupt does.
 */
static __always_inline void __rtg_trace_call(const struct bpf_call_hook_args *args,
					     const struct rtg_site *site, u64 ret)
{
	struct rtg_trace_batch *b;
	u64 end;

	/* the event was turned on after the call took its in-line path */
	if (!trace_rtg_call_enabled() || unlikely(!args))
		return;
	end = rtg_clock();
	b = this_cpu_ptr(rtg_trace_batch);
	if (likely(this_cpu_inc_return(rtg_trace_batch->busy) == 1)) {
		rtg_trace_fill(&b->rec[b->n], args, site, ret, end);
		rtg_trace_add(b, site->line_max);
	} else {
		rtg_trace_call_alone(args, site, ret, end);
	}
	this_cpu_dec(rtg_trace_batch->busy);
}

/**
 * rtg_trace_call() - record a traced call
 * @args: its arguments and start, as the JIT saved them; NULL after a
 *	table operation made in line
 * @arg: the call site, a &struct rtg_site
 * @ret: the call's result
 *
 * Called by the post hooks of traced sites, which the JIT calls while
 * rtg_slow is set on the CPU, for the event or for another reason: the
 * event may be off. The call's duration includes its pre hook.
 */
void rtg_trace_call(const struct bpf_call_hook_args *args, const struct rtg_site *site,
		    u64 ret)
{
	__rtg_trace_call(args, site, ret);
}

/* Add a record that is not a call's to this CPU's batch. */
static void rtg_trace_record(const struct rtg_call_rec *r)
{
	struct rtg_trace_batch *b;

	preempt_disable_notrace();
	b = this_cpu_ptr(rtg_trace_batch);
	if (likely(this_cpu_inc_return(rtg_trace_batch->busy) == 1)) {
		b->rec[b->n] = *r;
		rtg_trace_add(b, RTG_TRACE_RECORD_LINE_MAX);
	} else {
		rtg_trace_alone(r);
	}
	this_cpu_dec(rtg_trace_batch->busy);
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
	/* local_clock() only once the watchdog converted the run's start */
	ns = rtg_run_age_ns(run, READ_ONCE(run->clock) ? local_clock() : 0);
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

/*
 * A recorder that runs a command and turns tracing off as soon as it
 * exits (trace-cmd record CMD) would miss the command's last calls, which
 * wait in their CPU's batch until its next tick: while the event is on,
 * a task's exit writes every batch that holds a call.
 */
static struct tracepoint *rtg_exit_tp;

static void rtg_trace_find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		rtg_exit_tp = tp;
}

static bool rtg_trace_batch_waits(int cpu, void *unused)
{
	struct rtg_trace_batch __percpu *batch = READ_ONCE(rtg_trace_batch);

	return batch && READ_ONCE(per_cpu_ptr(batch, cpu)->n);
}

static void rtg_trace_task_exit(void *data, struct task_struct *p)
{
	if (trace_rtg_call_enabled())
		on_each_cpu_cond(rtg_trace_batch_waits, rtg_trace_flush_ipi, NULL, 1);
}

/**
 * rtg_trace_init() - set up each CPU's batch and flush, before anything
 *	is traced
 *
 * Return: 0, or -ENOMEM.
 */
int rtg_trace_init(void)
{
	int cpu;

	rtg_trace_batch = alloc_percpu(struct rtg_trace_batch);
	if (!rtg_trace_batch)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		per_cpu(rtg_trace_flush_work, cpu) = IRQ_WORK_INIT_LAZY(rtg_trace_flush_work_fn);
	for_each_kernel_tracepoint(rtg_trace_find_exit_tp, NULL);
	if (!rtg_exit_tp ||
	    tracepoint_probe_register(rtg_exit_tp, rtg_trace_task_exit, NULL)) {
		pr_warn("no flush at task exit: a traced command's last calls wait for a tick\n");
		rtg_exit_tp = NULL;
	}
	return 0;
}

/**
 * rtg_trace_exit() - wait for the flushes still queued, at module exit
 */
void rtg_trace_exit(void)
{
	struct rtg_trace_batch __percpu *batch = rtg_trace_batch;
	int cpu;

	if (rtg_exit_tp) {
		tracepoint_probe_unregister(rtg_exit_tp, rtg_trace_task_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&rtg_trace_flush_work, cpu));
	if (!batch)
		return;
	/* while the event may still be on, with nothing left to batch */
	rtg_trace_flush_all();
	WRITE_ONCE(rtg_trace_batch, NULL);
	/* flushes run with interrupts off: RCU readers */
	synchronize_rcu();
	free_percpu(batch);
}

/**
 * rtg_trace_post() - the post hook of a traced call that tracks nothing
 * @r0: the result
 * @saved: unused
 * @args: the call's arguments, as the JIT saved them
 * @arg: the call site, a &struct rtg_site
 *
 * Return: @r0.
 */
notrace u64 rtg_trace_post(u64 r0, u64 saved, const struct bpf_call_hook_args *args,
			   u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);

	__rtg_trace_call(args, site, r0);
	return r0;
}
