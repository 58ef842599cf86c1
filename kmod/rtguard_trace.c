// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode, an strace for BPF programs. While the rtg_call
 * event is on, the JIT records each call of a traced program in line, in
 * its CPU's area of records (struct bpf_call_hook_recs); calls it could
 * not record there (the area full, or being written), and the calls of
 * tracked programs, reach the post hook with their arguments and the time
 * saved on the stack (struct bpf_call_hook_args), which records them the
 * same way. Records reach the trace buffer as rtg_call events of up to
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
 * Each CPU's records waiting to be written (struct bpf_call_hook_recs):
 * the JIT and the C writers alike take one by adding 1 to both next and
 * open in one instruction, fill it in, and end it by taking 1 from open;
 * one taken at or past limit (RTG_TRACE_CAP while the event is on, 0
 * while it is off) is given back at once, and its call is written alone,
 * as an event of its own. The area is written when no record is open
 * (rtg_trace_write_this_cpu()), as events of as many records as one
 * event's text holds (their text bounds, see rtg_trace_print()): the
 * trace buffer's reserve and commit cost several times what a call's
 * record does. It is written when full, by a lazy irq_work that the first
 * record's end queues (flush_at is 1 until then: run at the CPU's next
 * tick, or at once on a CPU whose tick is stopped), and when a reader asks
 * (rtg_trace_flush_all()). A CPU that traces nothing is never woken. A
 * record stays open while its call sleeps or its task is preempted:
 * until then the CPU's later calls fill the area and are then written
 * alone.
 *
 * Allocated by rtg_trace_init(): too big for the static per-CPU area that
 * all modules share (PERCPU_MODULE_RESERVE). Hooked images pin the module,
 * so every call and run record finds it; the rtg_call event's callbacks and
 * the flushes may also run once rtg_trace_exit() took it away (NULL), as
 * the tracing core turns a going module's events off, and do nothing then.
 */
struct bpf_call_hook_recs __percpu *rtg_trace_recs;

/* next and open, as the one word the JIT adds to */
#define RTG_REC_TAKE	(1ULL | BIT_ULL(32))
#define RTG_REC_END	BIT_ULL(32)
/* next while the area is written: past any limit, so nothing is taken */
#define RTG_REC_WRITING	BIT_ULL(31)
static_assert(offsetof(struct bpf_call_hook_recs, open) == sizeof(u32));

static u64 __percpu *rtg_recs_word(struct bpf_call_hook_recs __percpu *recs)
{
	return (u64 __percpu *)&recs->next;
}

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
	guard(mutex)(&rtg_trace_runs_lock);
	WRITE_ONCE(rtg_trace_runs, on);
	rtg_trace_runs_update();
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
	guard(mutex)(&rtg_trace_runs_lock);
	rtg_trace_runs_holders++;
	rtg_trace_runs_update();
	return 0;
}

static int rtg_trace_runs_release(struct inode *inode, struct file *file)
{
	guard(mutex)(&rtg_trace_runs_lock);
	rtg_trace_runs_holders--;
	rtg_trace_runs_update();
	return 0;
}

const struct file_operations rtg_trace_runs_fops = {
	.owner = THIS_MODULE,
	.open = rtg_trace_runs_open,
	.release = rtg_trace_runs_release,
};

static void rtg_trace_event_set(bool on)
{
	guard(mutex)(&rtg_trace_runs_lock);
	rtg_trace_event_on = on;
	rtg_trace_runs_update();
}

static void rtg_trace_flush_ipi(void *unused);

/*
 * On each CPU, with interrupts off: forget the records of a past session
 * (ended after the event went off), and take new ones.
 */
static void rtg_trace_on_ipi(void *unused)
{
	struct bpf_call_hook_recs __percpu *recs = READ_ONCE(rtg_trace_recs);
	u64 old;

	if (!recs)
		return;
	old = this_cpu_read(*rtg_recs_word(recs));
	/* none open, and not a write of them this interrupted */
	if (!(old >> 32) && (u32)old < RTG_REC_WRITING)
		this_cpu_cmpxchg(*rtg_recs_word(recs), old, 0);
	this_cpu_write(recs->flush_at, 1);
	this_cpu_write(recs->limit, RTG_TRACE_CAP);
}

/* The rtg_call event was turned on: traced calls take their hooked path. */
int rtg_trace_reg(void)
{
	if (!READ_ONCE(rtg_trace_recs))
		return -ENODEV;
	on_each_cpu(rtg_trace_on_ipi, NULL, 1);
	rtg_slow_all(1);
	rtg_trace_event_set(true);
	return 0;
}

/* On each CPU: write what waits, and take no more records. */
static void rtg_trace_off_ipi(void *unused)
{
	struct bpf_call_hook_recs __percpu *recs = READ_ONCE(rtg_trace_recs);

	rtg_trace_flush_ipi(NULL);
	if (recs)
		this_cpu_write(recs->limit, 0);
}

/*
 * ... and off: the calls still waiting are written first, while the
 * tracepoint still has its probe, for a reader that turns the event off
 * and then reads what the buffer holds.
 */
void rtg_trace_unreg(void)
{
	on_each_cpu(rtg_trace_off_ipi, NULL, 1);
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

/*
 * Write @nr records as events of as many as one event's text holds: an
 * event ends once the sum of its lines' bounds passes RTG_TRACE_TEXT_MAX
 * - RTG_TRACE_LINE_MAX (see rtg_trace_print()), or at RTG_TRACE_BATCH.
 */
static void rtg_trace_write(const struct rtg_call_rec *r, u32 nr)
{
	u64 tsc = rtg_clock();
	u32 i, first = 0, text = 0;

	for (i = 0; i < nr; i++) {
		text += r[i].text;
		if (text > RTG_TRACE_TEXT_MAX - RTG_TRACE_LINE_MAX ||
		    i + 1 - first == RTG_TRACE_BATCH) {
			trace_rtg_call(r + first, i + 1 - first, tsc);
			first = i + 1;
			text = 0;
		}
	}
	if (first < nr)
		trace_rtg_call(r + first, nr - first, tsc);
}

/*
 * Write this CPU's records, with preemption off. Returns false, having
 * written nothing, while a record is open (or one was taken meanwhile, by
 * an interrupt), or when it interrupted a write of them: the writer of
 * that record writes them once it ends it, when the area is full, the
 * write it interrupted does, or a flush tries again.
 */
static bool rtg_trace_write_this_cpu(struct bpf_call_hook_recs __percpu *recs)
{
	u64 __percpu *word = rtg_recs_word(recs);
	u64 old = this_cpu_read(*word);
	/* with none open, next counts the records taken and not given back */
	u32 nr = min_t(u32, (u32)old, RTG_TRACE_CAP);

	/* open records, or another write of the area this one interrupted */
	if (old >> 32 || (u32)old >= RTG_REC_WRITING)
		return false;
	if (!nr)
		return true;
	/* no record can be taken while they are read, but given back */
	if (this_cpu_cmpxchg(*word, old, RTG_REC_WRITING) != old)
		return false;
	rtg_trace_write((const struct rtg_call_rec *)this_cpu_ptr(recs)->rec, nr);
	this_cpu_write(recs->flush_at, 1);
	this_cpu_write(*word, 0);
	return true;
}

/*
 * Write this CPU's waiting calls. Called with preemption off; does
 * nothing, and returns false, while a record is open.
 */
static bool rtg_trace_flush_this_cpu(void)
{
	struct bpf_call_hook_recs __percpu *recs = READ_ONCE(rtg_trace_recs);

	return !recs || rtg_trace_write_this_cpu(recs);
}

static void rtg_trace_flush_work_fn(struct irq_work *work)
{
	struct bpf_call_hook_recs __percpu *recs = READ_ONCE(rtg_trace_recs);

	/*
	 * a record is open (its call runs, or its task was preempted): the
	 * next record's end queues this again (flush_at 1), never a record
	 * that stays open, so that irq_work_sync() at exit returns
	 */
	if (!rtg_trace_flush_this_cpu() && recs)
		this_cpu_write(recs->flush_at, 1);
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

/**
 * rtg_trace_rec_flush() - a record ended with next at flush_at
 *
 * The &bpf_call_hook_site.rec_flush of traced sites, and called as the C
 * writers end theirs: write the area once it is full; after the first
 * record since it was last written, have it written soon.
 */
notrace void rtg_trace_rec_flush(void)
{
	struct bpf_call_hook_recs __percpu *recs = rtg_trace_recs;

	preempt_disable_notrace();
	if (this_cpu_read(recs->next) >= this_cpu_read(recs->limit)) {
		rtg_trace_write_this_cpu(recs);
	} else {
		this_cpu_write(recs->flush_at, RTG_TRACE_CAP);
		irq_work_queue(this_cpu_ptr(&rtg_trace_flush_work));
	}
	preempt_enable_notrace();
}

/*
 * Take a record on this CPU, for a C writer that runs with migration
 * disabled, as the JIT does: NULL when the area has none to give.
 */
static __always_inline struct rtg_call_rec *rtg_trace_take(struct bpf_call_hook_recs __percpu *recs)
{
	u64 __percpu *word = rtg_recs_word(recs);
	u32 i = (u32)this_cpu_add_return(*word, RTG_REC_TAKE) - 1;

	if (likely(i < this_cpu_read(recs->limit)))
		return (struct rtg_call_rec *)&this_cpu_ptr(recs)->rec[i];
	this_cpu_sub(*word, RTG_REC_TAKE);
	return NULL;
}

/* End a record rtg_trace_take() gave. */
static __always_inline void rtg_trace_end(struct bpf_call_hook_recs __percpu *recs)
{
	u32 next = (u32)this_cpu_sub_return(*rtg_recs_word(recs), RTG_REC_END);

	if (unlikely(next >= this_cpu_read(recs->flush_at)))
		rtg_trace_rec_flush();
}

static __always_inline void rtg_trace_fill(struct rtg_call_rec *r,
					   const struct bpf_call_hook_args *args,
					   const struct rtg_site *site, u64 ret, u64 end)
{
	memcpy(r->args, args->r, sizeof(r->args));
	r->ret = ret;
	r->end = end;
	r->cycles = end - args->tsc;
	r->pid = current->pid;
	r->site = site->trace_id;
	r->kind = RTG_REC_CALL;
	r->text = site->line_max;
}

/* A record the area had no room for: an event of its own. */
static void rtg_trace_alone(const struct rtg_call_rec *r)
{
	trace_rtg_call(r, 1, rtg_clock());
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
 * runs with migration disabled, so this CPU's area stays this CPU's.
 */
static __always_inline void __rtg_trace_call(const struct bpf_call_hook_args *args,
					     const struct rtg_site *site, u64 ret)
{
	struct bpf_call_hook_recs __percpu *recs = rtg_trace_recs;
	struct rtg_call_rec *r;
	u64 end;

	/* the event was turned on after the call took its in-line path */
	if (!trace_rtg_call_enabled() || unlikely(!args))
		return;
	end = rtg_clock();
	r = rtg_trace_take(recs);
	if (likely(r)) {
		rtg_trace_fill(r, args, site, ret, end);
		rtg_trace_end(recs);
	} else {
		rtg_trace_call_alone(args, site, ret, end);
	}
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

/* Add a record that is not a call's to this CPU's area. */
static void rtg_trace_record(const struct rtg_call_rec *r)
{
	struct bpf_call_hook_recs __percpu *recs = rtg_trace_recs;
	struct rtg_call_rec *to;

	preempt_disable_notrace();
	to = rtg_trace_take(recs);
	if (likely(to)) {
		*to = *r;
		rtg_trace_end(recs);
	} else {
		rtg_trace_alone(r);
	}
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
		.text = RTG_TRACE_RECORD_LINE_MAX,
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
		.text = RTG_TRACE_RECORD_LINE_MAX,
	};

	if (trace_rtg_call_enabled() && r.site)
		rtg_trace_record(&r);
}

/*
 * A recorder that runs a command and turns tracing off as soon as it
 * exits (trace-cmd record CMD) would miss the command's last calls, which
 * wait in their CPU's records until its next tick: while the event is
 * on, a task's exit writes every CPU's records.
 */
static struct tracepoint *rtg_exit_tp;

static void rtg_trace_find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		rtg_exit_tp = tp;
}

static bool rtg_trace_recs_wait(int cpu, void *unused)
{
	struct bpf_call_hook_recs __percpu *recs = READ_ONCE(rtg_trace_recs);

	return recs && READ_ONCE(per_cpu_ptr(recs, cpu)->next);
}

static void rtg_trace_task_exit(void *data, struct task_struct *p)
{
	if (trace_rtg_call_enabled())
		on_each_cpu_cond(rtg_trace_recs_wait, rtg_trace_flush_ipi, NULL, 1);
}

/**
 * rtg_trace_init() - set up each CPU's records and flush, before anything
 *	is traced
 *
 * Return: 0, or -ENOMEM.
 */
int rtg_trace_init(void)
{
	int cpu;

	rtg_trace_recs = __alloc_percpu(struct_size(rtg_trace_recs, rec, RTG_TRACE_CAP),
					__alignof__(struct bpf_call_hook_recs));
	if (!rtg_trace_recs)
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
	struct bpf_call_hook_recs __percpu *recs = rtg_trace_recs;
	int cpu;

	if (rtg_exit_tp) {
		tracepoint_probe_unregister(rtg_exit_tp, rtg_trace_task_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&rtg_trace_flush_work, cpu));
	if (!recs)
		return;
	/* while the event may still be on, with nothing left to record */
	rtg_trace_flush_all();
	WRITE_ONCE(rtg_trace_recs, NULL);
	/* flushes run with interrupts off: RCU readers */
	synchronize_rcu();
	free_percpu(recs);
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
