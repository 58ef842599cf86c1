// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the watchdog. A timer on each CPU looks at the runs of the
 * task it interrupted (current->bpf_hook_run and the runs it interrupted
 * or was called from; a lazy run once adopted, rtg_lazy_adopt()): a run
 * that ran for longer than watchdog_ms, or held one resource (iterators
 * excepted: they are loop state, which watchdog_ms bounds) for longer
 * than hold_limit_us, is marked
 * (rtg_run_mark()). Both judge the time charged to the run
 * (rtg_run_charge()): not the time its task spent preempted by another
 * task, nor the time its CPU did not run at all. The
 * timer runs on the CPU the run is on and interrupts it, so it always sees
 * a run whole and its mark lands on the run it judged. A mark stays until
 * the run returns. The watchdog only decides: rtguard_run.c writes the
 * runs, and stops a marked one at its next hooked call (every call of a
 * tracked program is hooked; while a mark is pending, each takes its slow
 * path, rtg_run_stop()):
 *
 *  - unwinding, where the program is an exception boundary (tracked
 *    programs are made one when verified, but those with an exception
 *    callback of their own), its table is the truth (complete, no release
 *    that matched nothing, every call described by the verifier), no C
 *    function lies between the hook and the program's main frame, and
 *    every held resource has a release the program itself calls:
 *    everything is released, newest first, through entries in the
 *    program's own image, and the program is left through its exception
 *    callback;
 *  - fast-execute otherwise (inside a callback that a helper other than
 *    bpf_loop() calls, a table that is not the truth, a resource with no
 *    callable release): calls whose result the verifier saw as possibly
 *    NULL, and that take no argument away from the program, are skipped
 *    and return NULL, so that the verified program gives back what it
 *    holds on its own way out.
 *
 * Either way the run returns its program type's stop value
 * (rtguard_stop_policy.c). A program whose type has none is not stopped:
 * the watchdog reports the run it would have stopped and lets it go on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bpf_call_hook.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/pkt_cls.h>
#include <linux/sched/clock.h>
#include <uapi/linux/bpf.h>

#include <asm/irq_regs.h>

#include "rtguard.h"
#include "rtguard_lazy.h"
#include "rtguard_param.h"
#include "rtguard_run.h"
#include "rtguard_slow.h"

/* the most one expiry charges: expiries are 1 ms apart (struct rtg_tick) */
#define RTG_TICK_MAX_NS		(2 * NSEC_PER_MSEC)

static DEFINE_PER_CPU(struct hrtimer, rtg_watchdog_timer);
/* starts the timer for a run that found its CPU unwatched */
static DEFINE_PER_CPU(struct irq_work, rtg_watchdog_arm_work);
/* armed ticks and the time they took, for the benchmark; every expiry */
static DEFINE_PER_CPU(u64, rtg_watchdog_ticks);
static DEFINE_PER_CPU(u64, rtg_watchdog_tick_ns);
static DEFINE_PER_CPU(u64, rtg_watchdog_wakeups);
/* expiries that found no run in flight on their CPU */
static DEFINE_PER_CPU(u64, rtg_watchdog_idle_wakeups);
/* the runs begun on each CPU (mod 2^8) at its timer's last expiry */
static DEFINE_PER_CPU(u8, rtg_watchdog_begun);
/* each CPU's hooked calls take their slow path to adopt lazy runs */
static DEFINE_PER_CPU(bool, rtg_watchdog_adopting);
/* local_clock() at each CPU's last expiry, or when its timer started */
static DEFINE_PER_CPU(u64, rtg_watchdog_last);
/* the sum of each CPU's expiries' spans (&struct rtg_tick), mod 2^32 */
static DEFINE_PER_CPU(u32, rtg_watchdog_watched_us);
static enum cpuhp_state rtg_watchdog_cpuhp;
/* serialises starting the timers with the module's init and exit */
static DEFINE_MUTEX(rtg_watchdog_lock);
static bool rtg_watchdog_ready;	/* the timers are initialised */

/* a watchdog limit: the timers run only while one is set */
static int rtg_param_set_limit(const char *val, const struct kernel_param *kp)
{
	if (param_set_uint(val, kp))
		return min(rtg_param_refuse(kp, "'%.*s' is not a number (0: off)",
					    val ? (int)strcspn(val, "\n") : 0,
					    val ?: ""), 0);
	rtg_watchdog_limits_changed();
	return 0;
}

static const struct kernel_param_ops rtg_limit_ops = {
	.set = rtg_param_set_limit,
	.get = param_get_uint,
};

static unsigned int rtg_watchdog_ms;
module_param_cb(watchdog_ms, &rtg_limit_ops, &rtg_watchdog_ms, 0644);
MODULE_PARM_DESC(watchdog_ms,
		 "Stop a tracked run that has been running for longer than this many ms (0: off; the watchdog timers run only while this or hold_limit_us is set)");

static unsigned int rtg_hold_limit_us;
module_param_cb(hold_limit_us, &rtg_limit_ops, &rtg_hold_limit_us, 0644);
MODULE_PARM_DESC(hold_limit_us,
		 "Stop a tracked run that holds one resource for longer than this many us (0: off)");

/*
 * Adopt the lazy run the timer interrupted, in its program or in what it
 * called, if any; mark the runs of the interrupted task that overran
 * (limits in us), and ask a sample of what a described run holds (its
 * table is not kept as it goes) while holds are judged. Each run is
 * charged first for the time it had (rtg_run_charge()).
 */
static void rtg_watchdog_check(u32 runtime, u32 hold, const struct rtg_tick *tick)
{
	struct rtg_run *run;
	void *image;

	/* a lazy run not adopted, interrupted in its frames or its callees' */
	if (__this_cpu_read(rtg_watch_cpu.runs) & BPF_CALL_HOOK_RUNS_LAZY) {
		struct bpf_call_hook_run *area = bpf_call_hook_irq_run(get_irq_regs(), &image);

		if (area)
			rtg_lazy_adopt(area, ((struct rtg_image *)image)->tprog);
	}
	for (run = rtg_task_run(current); run; run = run->prev) {
		u8 reason = RTG_STOP_NONE;
		bool stale = false;
		u32 charged;

		/* bracketed only to be recorded: never stopped */
		if (rtg_run_prog(run)->trace_only)
			continue;
		if (run->stop) {
			rtg_run_end_loops(run);
			continue;
		}
		charged = rtg_run_charge(run, tick);
		if (runtime && charged > runtime)
			reason = RTG_STOP_RUNTIME;
		/*
		 * a described run's table is its last sample: while the one
		 * asked a tick ago is not taken, the run may have given back
		 * what that table holds, which would then seem held for ever
		 */
		if (hold && rtg_prog_sampled(rtg_run_prog(run))) {
			stale = READ_ONCE(run->sample) & RTG_SAMPLE_ASKED;
			rtg_run_ask_sample(run);
		}
		if (hold && !stale && rtg_run_longest_hold(run) > hold)
			reason = RTG_STOP_HOLD;
		if (reason)
			rtg_run_mark(run, reason);
	}
}

static bool rtg_watchdog_armed(void)
{
	return READ_ONCE(rtg_watchdog_ms) || READ_ONCE(rtg_hold_limit_us);
}

/*
 * While lazy runs that were not adopted are in flight on this CPU (@ask),
 * its hooked calls take their slow path, where the hooks of such a run
 * adopt it: a run that the timer does not find (bpf_call_hook_irq_run()
 * gives none in a prologue or an epilogue, say) is judged from its next
 * call on.
 */
static void rtg_watchdog_ask_adoption(bool ask)
{
	if (ask == __this_cpu_read(rtg_watchdog_adopting))
		return;
	__this_cpu_write(rtg_watchdog_adopting, ask);
	rtg_slow_add(ask ? 1 : -1);
}

/*
 * A timer, not a thread: runaway programs may keep every CPU busy in
 * kernel code that does not schedule, and the timer still interrupts them.
 * It runs only while a limit is set and runs are in flight on its CPU:
 * the first run to begin on an unwatched CPU starts it (through
 * rtg_watchdog_arm()), and it stops on an expiry that finds no run in
 * flight there and none begun since the one before (a CPU whose short
 * runs keep coming is not armed anew for each), or both limits off. A
 * CPU with no run is never woken.
 *
 * rtg_watch_cpu.watch is zero while the next run must start the timer;
 * the timer, the arming work and rtg_watchdog_kick() write it, each on its
 * own CPU with interrupts off; runs only read it.
 */
static enum hrtimer_restart rtg_watchdog_fn(struct hrtimer *timer)
{
	u32 ms = READ_ONCE(rtg_watchdog_ms), us = READ_ONCE(rtg_hold_limit_us);
	struct rtg_tick tick = { .now = local_clock() };
	u64 span;
	u32 runs;
	u8 begun;

	/* a gone CPU's timer, moved here by hrtimers_cpu_dying() */
	if (timer != this_cpu_ptr(&rtg_watchdog_timer))
		return HRTIMER_NORESTART;
	__this_cpu_inc(rtg_watchdog_wakeups);
	span = tick.now - min(__this_cpu_read(rtg_watchdog_last), tick.now);
	tick.span_us = DIV_ROUND_CLOSEST_ULL(min(span, RTG_TICK_MAX_NS), NSEC_PER_USEC);
	tick.watched_us = __this_cpu_read(rtg_watchdog_watched_us);
	__this_cpu_write(rtg_watchdog_last, tick.now);
	__this_cpu_write(rtg_watchdog_watched_us, tick.watched_us + tick.span_us);
	runs = __this_cpu_read(rtg_watch_cpu.runs);
	/* with both limits off, no run need start it again */
	if (!ms && !us) {
		rtg_watchdog_ask_adoption(false);
		return HRTIMER_NORESTART;
	}
	begun = FIELD_GET(BPF_CALL_HOOK_RUNS_BEGUN, runs);
	if (!(runs & BPF_CALL_HOOK_RUNS_IN_FLIGHT)) {
		__this_cpu_inc(rtg_watchdog_idle_wakeups);
		if (begun == __this_cpu_read(rtg_watchdog_begun)) {
			rtg_watchdog_ask_adoption(false);
			__this_cpu_write(rtg_watch_cpu.watch, 0);
			return HRTIMER_NORESTART;
		}
	}
	__this_cpu_write(rtg_watchdog_begun, begun);
	rtg_watchdog_check(min_t(u64, (u64)ms * USEC_PER_MSEC, U32_MAX), us, &tick);
	/* the lazy runs this tick did not adopt: their next calls do */
	rtg_watchdog_ask_adoption(__this_cpu_read(rtg_watch_cpu.runs) & BPF_CALL_HOOK_RUNS_LAZY);
	__this_cpu_inc(rtg_watchdog_ticks);
	__this_cpu_add(rtg_watchdog_tick_ns, local_clock() - tick.now);
	/* 1 ms resolution (CLOCK_MONOTONIC) */
	hrtimer_forward(timer, ktime_get(), ms_to_ktime(1));
	return HRTIMER_RESTART;
}

/* Start this CPU's timer if a limit is set and it is not running. */
static void rtg_watchdog_start(void)
{
	struct hrtimer *timer = this_cpu_ptr(&rtg_watchdog_timer);

	/* an expiry on this CPU never runs while this does */
	if (rtg_watchdog_armed() && !hrtimer_active(timer)) {
		u32 runs = __this_cpu_read(rtg_watch_cpu.runs);

		__this_cpu_write(rtg_watchdog_begun, FIELD_GET(BPF_CALL_HOOK_RUNS_BEGUN, runs));
		__this_cpu_write(rtg_watchdog_last, local_clock());
		hrtimer_start(timer, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED_HARD);
	}
}

static void rtg_watchdog_arm_fn(struct irq_work *work)
{
	rtg_watchdog_start();
}

/**
 * rtg_watchdog_arm() - a run begins on a CPU whose timer is stopped
 *
 * Called by the JIT compiled entry of a run (&bpf_call_hook_ops.run_arm),
 * in whatever context the program runs in: NMI, or holding the hrtimer
 * base lock (a program on the hrtimer_start tracepoint). So the timer is
 * started from an interrupt work, which runs on this CPU as soon as
 * interrupts are on. Runs that begin meanwhile do not ask again.
 */
notrace void rtg_watchdog_arm(void)
{
	this_cpu_write(rtg_watch_cpu.watch, 1);
	irq_work_queue(this_cpu_ptr(&rtg_watchdog_arm_work));
}

/*
 * A limit was set: start this CPU's timer if a run is in flight here (it
 * may have begun with both limits off), else have the next run start it.
 */
static void rtg_watchdog_kick(void *unused)
{
	if (!rtg_watchdog_armed() || hrtimer_active(this_cpu_ptr(&rtg_watchdog_timer)))
		return;
	if (__this_cpu_read(rtg_watch_cpu.runs) & BPF_CALL_HOOK_RUNS_IN_FLIGHT)
		rtg_watchdog_start();
	else
		__this_cpu_write(rtg_watch_cpu.watch, 0);
}

/**
 * rtg_watchdog_limits_changed() - watchdog_ms or hold_limit_us was written
 *
 * When a limit is now set, the CPUs with runs in flight start their
 * timers, and the others start them with their next run; the timers stop
 * on their own once both limits are off.
 */
void rtg_watchdog_limits_changed(void)
{
	mutex_lock(&rtg_watchdog_lock);
	if (rtg_watchdog_ready && rtg_watchdog_armed()) {
		cpus_read_lock();
		on_each_cpu(rtg_watchdog_kick, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&rtg_watchdog_lock);
}

static int rtg_watchdog_cpu_online(unsigned int cpu)
{
	/* still queued elsewhere since the CPU last went (see below) */
	hrtimer_cancel(this_cpu_ptr(&rtg_watchdog_timer));
	local_irq_disable();
	rtg_watchdog_kick(NULL);
	local_irq_enable();
	return 0;
}

/*
 * A CPU goes: no run asks for its timer from now on, but the timer goes
 * on judging the runs in flight there. The scheduler waits for them
 * before the CPU goes (they run with migration disabled:
 * sched_cpu_wait_empty()), and a runaway one would keep it waiting; once
 * the CPU has no task left, hrtimers_cpu_dying() moves the timer to
 * another CPU, where it ends at its next expiry, and the CPU's next
 * online cancels it.
 */
static int rtg_watchdog_cpu_offline(unsigned int cpu)
{
	local_irq_disable();
	__this_cpu_write(rtg_watch_cpu.watch, 1);
	local_irq_enable();
	irq_work_sync(this_cpu_ptr(&rtg_watchdog_arm_work));
	return 0;
}

/**
 * rtg_watchdog_stats() - what the watchdog did so far, on all CPUs
 * @st: filled in
 */
void rtg_watchdog_stats(struct rtg_watchdog_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		st->ticks += per_cpu(rtg_watchdog_ticks, cpu);
		st->tick_ns += per_cpu(rtg_watchdog_tick_ns, cpu);
		st->wakeups += per_cpu(rtg_watchdog_wakeups, cpu);
		st->idle_wakeups += per_cpu(rtg_watchdog_idle_wakeups, cpu);
	}
}

/**
 * rtg_watchdog_init() - set up the watchdog timer of every CPU
 *
 * A CPU's timer runs while a limit is set and a run is in flight there.
 *
 * Return: 0, or a negative errno.
 */
int rtg_watchdog_init(void)
{
	int cpu, ret;

	/* the CPUs' timers start below: until then, no run asks */
	for_each_possible_cpu(cpu) {
		struct hrtimer *timer = per_cpu_ptr(&rtg_watchdog_timer, cpu);

		per_cpu(rtg_watch_cpu.watch, cpu) = 1;
		per_cpu(rtg_watchdog_arm_work, cpu) =
			IRQ_WORK_INIT_HARD(rtg_watchdog_arm_fn);
		/* started pinned, on its own CPU: hrtimer_start() moves its base there */
		hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		timer->function = rtg_watchdog_fn;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "bpf_rtguard:watchdog",
				rtg_watchdog_cpu_online, rtg_watchdog_cpu_offline);
	if (ret < 0)
		return ret;
	rtg_watchdog_cpuhp = ret;
	mutex_lock(&rtg_watchdog_lock);
	rtg_watchdog_ready = true;
	mutex_unlock(&rtg_watchdog_lock);
	/* a limit written while the CPUs were set up */
	rtg_watchdog_limits_changed();
	return 0;
}

/**
 * rtg_watchdog_exit() - stop the watchdog timers
 */
void rtg_watchdog_exit(void)
{
	int cpu;

	/* no limit written from now on starts a timer */
	mutex_lock(&rtg_watchdog_lock);
	rtg_watchdog_ready = false;
	mutex_unlock(&rtg_watchdog_lock);
	/* no run asks for a timer from now on, on any CPU... */
	cpuhp_remove_state(rtg_watchdog_cpuhp);
	/* ... and none is in flight: hooked images pin the module */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&rtg_watchdog_timer, cpu));
}
