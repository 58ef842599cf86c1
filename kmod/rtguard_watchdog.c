// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the watchdog. A timer on each CPU looks at the runs of the
 * task it interrupted (current->bpf_hook_run and the runs it interrupted
 * or was called from): a run older than watchdog_ms, or holding one
 * resource (iterators excepted: they are loop state, which watchdog_ms
 * bounds) for longer than hold_limit_us, is marked. The timer runs on the
 * CPU the run is on and interrupts it, so it always sees a run whole and
 * its mark lands on the run it judged. A mark stays until the run
 * returns. The run stops at its next hooked call (every call of a tracked
 * program is hooked; while a mark is pending, each takes its slow path):
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

#include <linux/bpf_call_hook.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/pkt_cls.h>
#include <linux/sched/clock.h>
#include <uapi/linux/bpf.h>

#include "rtguard.h"
#include "rtguard_trace.h"

static DEFINE_PER_CPU(struct hrtimer, rtg_watchdog_timer);
/* runs in flight on each CPU (counted by the JIT) and whether it is watched */
DEFINE_PER_CPU(struct bpf_call_hook_cpu, rtg_watch_cpu);
/* starts the timer for a run that found its CPU unwatched */
static DEFINE_PER_CPU(struct irq_work, rtg_watchdog_arm_work);
/* armed ticks and the time they took, for the benchmark; every expiry */
static DEFINE_PER_CPU(u64, rtg_watchdog_ticks);
static DEFINE_PER_CPU(u64, rtg_watchdog_tick_ns);
static DEFINE_PER_CPU(u64, rtg_watchdog_wakeups);
/* expiries that found no run in flight on their CPU */
static DEFINE_PER_CPU(u64, rtg_watchdog_idle_wakeups);
/* the runs begun on each CPU (mod 2^16) at its timer's last expiry */
static DEFINE_PER_CPU(u16, rtg_watchdog_begun);
static enum cpuhp_state rtg_watchdog_cpuhp;
/* serialises starting the timers with the module's init and exit */
static DEFINE_MUTEX(rtg_watchdog_lock);
static bool rtg_watchdog_ready;	/* the timers are initialised */
/* stops that gave back what a description named, and a table held */
static DEFINE_PER_CPU(u64, rtg_stops_described);
static DEFINE_PER_CPU(u64, rtg_stops_from_table);

typedef u64 (*rtg_release_fn_t)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

static const char *const rtg_hows[] = {
	[RTG_HOW_NONE] = "returned before a hooked call",
	[RTG_HOW_UNWOUND] = "released and unwound",
	[RTG_HOW_FAST] = "fast-executed, released by the program",
	[RTG_HOW_REPORTED] = "not stoppable (program or attach type), reported only",
	[RTG_HOW_LOOP] = "loop ended at a may_goto, left by the program",
};

/* The entry of release function @name in the program's image, if any. */
static void *rtg_release_named(struct rtg_prog *tp, const char *name)
{
	return name && name[0] ? rtg_prog_release_fn(tp, name, strlen(name)) : NULL;
}

/* Whether the program has a way out of each section in @depth. */
static bool rtg_can_end_sections(struct rtg_prog *tp, const u8 *depth)
{
	int i;

	for (i = 0; i < RTG_NR_SECTIONS; i++)
		if (depth[i] && !rtg_release_named(tp, rtg_section_end(i)))
			return false;
	return true;
}

/* Leave each section @depth times, down to 0; the number of calls made. */
static u32 rtg_end_sections(struct rtg_prog *tp, u8 *depth)
{
	u32 n = 0;
	int i;

	for (i = 0; i < RTG_NR_SECTIONS; i++) {
		rtg_release_fn_t fn = rtg_release_named(tp, rtg_section_end(i));

		for (; depth[i]; depth[i]--, n++)
			fn(0, 0, 0, 0, 0);
	}
	return n;
}

/* Whether the watchdog can give back everything @run holds. */
static bool rtg_can_release_all(struct rtg_prog *tp, const struct rtg_run *run)
{
	int i;

	for (i = 0; i < run->count; i++) {
		const struct rtg_held *h = &run->held[i];

		if (h->obj && !rtg_held_is_clone(h) &&
		    !rtg_release_named(tp, h->site->stop_release))
			return false;
	}
	return rtg_can_end_sections(tp, run->sections);
}

/*
 * Give back everything @run holds, newest first, then leave its sections.
 * The entries are thunks in the program's image (ENDBR, then a direct
 * jump to the function): the only indirect calls the module makes to
 * functions a program calls.
 */
static void rtg_release_all(void *arg)
{
	struct rtg_run *run = arg;
	struct rtg_prog *tp = rtg_run_prog(run);
	u32 released = 0;
	int i;

	for (i = run->count - 1; i >= 0; i--) {
		const struct rtg_held *h = &run->held[i];
		rtg_release_fn_t fn;

		WRITE_ONCE(run->count, i + 1);
		/* a dynptr clone goes with the record of its group */
		if (!h->obj || rtg_held_is_clone(h))
			continue;
		fn = rtg_release_named(tp, h->site->stop_release);
		/* the object, and flags 0 for a ring buffer record */
		fn(h->obj, 0, 0, 0, 0);
		trace_rtg_release(h->site, h->obj, h->site);
		rtg_trace_stop_release(h->site, h->obj);
		released++;
	}
	WRITE_ONCE(run->count, 0);
	run->fast_releases = released + rtg_end_sections(tp, run->sections);
	this_cpu_inc(rtg_stops_from_table);
}

/* what a run holds before the call it stops at, by the call's description */
struct rtg_described {
	struct rtg_run *run;
	int n;
	u8 sections[RTG_NR_SECTIONS];
	struct rtg_held_res res[RTG_DESCRIBED_MAX];
};

/* Whether the watchdog can give back everything @d names. */
static bool rtg_can_release_described(struct rtg_prog *tp, const struct rtg_described *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (!rtg_release_named(tp, d->res[i].release))
			return false;
	return rtg_can_end_sections(tp, d->sections);
}

/*
 * Give back what the description of the stopping call names, newest
 * first, then leave its sections; the run's table goes with it.
 */
static void rtg_release_described(void *arg)
{
	struct rtg_described *d = arg;
	struct rtg_run *run = d->run;
	struct rtg_prog *tp = rtg_run_prog(run);
	u32 released = 0;
	int i;

	for (i = d->n - 1; i >= 0; i--) {
		const struct rtg_held_res *r = &d->res[i];
		rtg_release_fn_t fn = rtg_release_named(tp, r->release);

		fn(r->obj, 0, 0, 0, 0);
		trace_rtg_release(r->acq, r->obj, r->acq);
		rtg_trace_stop_release(r->acq, r->obj);
		released++;
	}
	released += rtg_end_sections(tp, d->sections);
	/* the table said the same, or check_held reported it */
	WRITE_ONCE(run->count, 0);
	memset(run->sections, 0, sizeof(run->sections));
	run->fast_releases = released;
	this_cpu_inc(rtg_stops_described);
}

/**
 * rtg_watchdog_stop() - stop a run the watchdog marked
 * @run: the current run, marked
 * @site: the hooked call it is about to make
 * @args: BPF R1-R5 of the call
 * @regs: BPF R6-R10 of the calling frame
 *
 * Called from the pre hook. Unwinds when it can (and then does not
 * return), giving back what the verifier's description of the call says
 * the run holds or, without a usable one, what the run's table holds;
 * otherwise switches the run to fast-execute.
 *
 * Return: -1 when the call is to be skipped (its result may be NULL),
 * else 0.
 */
long rtg_watchdog_stop(struct rtg_run *run, const struct rtg_site *site,
		       const u64 *args, const struct rtg_callee_regs *regs)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	struct rtg_described d = { .run = run };

	/* not set at the run's entry: it counts from here */
	if (run->how == RTG_HOW_NONE)
		run->fast_releases = 0;
	if (unlikely(!rtg_stop_policy_stoppable(tp))) {
		run->how = RTG_HOW_REPORTED;
		return 0;
	}
	/* the first hooked call since the mark, a loop ended or not */
	if (run->how == RTG_HOW_NONE || run->how == RTG_HOW_LOOP) {
		d.n = tp->no_unwind ? -1 :
		      rtg_held_resolve(site, args, regs, d.res, RTG_DESCRIBED_MAX, d.sections);
		if (d.n >= 0 && rtg_can_release_described(tp, &d)) {
			run->how = RTG_HOW_UNWOUND;
			bpf_call_hook_unwind(0, rtg_release_described, &d);
			run->how = RTG_HOW_NONE;
		}
		/*
		 * only a table that is the truth is released by the watchdog
		 * (a described run's holds what samples saw)
		 */
		if (!run->incomplete && !run->unmatched && !tp->no_unwind && !tp->described &&
		    rtg_can_release_all(tp, run)) {
			run->how = RTG_HOW_UNWOUND;
			/* returns only when the program cannot be left here,
			 * before releasing anything; rtg_run_exit() runs
			 * before the exception callback
			 */
			bpf_call_hook_unwind(0, rtg_release_all, run);
		}
		run->how = RTG_HOW_FAST;
	}
	return site->flags & RTG_SITE_SKIP ? -1 : 0;
}

/**
 * rtg_watchdog_run_exit() - a run the watchdog marked returns
 * @run: the run
 * @ret: what the program returns
 *
 * Return: the value the run returns to its caller.
 */
u64 rtg_watchdog_run_exit(struct rtg_run *run, u64 ret)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u64 us = rtg_run_age_ns(run, local_clock()) / NSEC_PER_USEC;
	u32 released;

	/* the run was marked on this CPU, and never left it */
	this_cpu_dec(rtg_slow);
	if (run->how == RTG_HOW_NONE)
		return ret;
	released = run->fast_releases;
	if (run->how == RTG_HOW_REPORTED) {
		atomic_long_inc(&tp->reported);
		trace_rtg_stop(tp->main, run->stop, us, 0, run->how);
		pr_warn_ratelimited("would stop prog %u %s after %llu us (%s): %s\n",
				    tp->main->id, tp->main->name, us,
				    rtg_stop_reason_name(run->stop), rtg_hows[run->how]);
		return ret;
	}
	atomic_long_inc(&tp->stops);
	atomic_long_add(released, &tp->stop_released);
	trace_rtg_stop(tp->main, run->stop, us, released, run->how);
	pr_warn_ratelimited("stopped prog %u %s after %llu us (%s): %s, %u released\n",
			    tp->main->id, tp->main->name, us, rtg_stop_reason_name(run->stop),
			    rtg_hows[run->how], released);
	return tp->stop_ret;
}

/*
 * A marked run may be in a loop with no call, where no hook sees its
 * mark: end the may_goto loops of its main function (again at each tick,
 * in case the write landed between a may_goto's load and store of the
 * counter). The program leaves them on a path the verifier checked.
 */
static void rtg_watchdog_end_loops(struct rtg_run *run)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u64 *counter;

	if (run->how == RTG_HOW_REPORTED || run->how == RTG_HOW_UNWOUND ||
	    !rtg_stop_policy_stoppable(tp))
		return;
	counter = bpf_call_hook_may_goto(tp->main, (struct bpf_call_hook_run *)run);
	if (!counter)
		return;
	WRITE_ONCE(*counter, 0);
	if (run->how == RTG_HOW_NONE) {
		run->fast_releases = 0;
		run->how = RTG_HOW_LOOP;
	}
}

/*
 * Mark the runs of the interrupted task that overran (limits in ns). A
 * run's start, the TSC at its entry, becomes local_clock() ns at the
 * first tick that sees it: its age is then measured with the clock the
 * kernel keeps right when it marks the TSC unstable, and only the short
 * time from the entry to that tick with the TSC.
 */
static void rtg_watchdog_check(u64 runtime, u64 hold)
{
	u64 now = local_clock();
	struct rtg_run *run;
	u32 j;

	for (run = READ_ONCE(current->bpf_hook_run); run; run = run->prev) {
		u8 reason = RTG_STOP_NONE;

		/* bracketed only to be recorded: never stopped */
		if (rtg_run_prog(run)->trace_only)
			continue;
		if (run->stop) {
			rtg_watchdog_end_loops(run);
			continue;
		}
		if (!run->clock) {
			run->start = now - rtg_clock_ns(rtg_clock() - run->start);
			WRITE_ONCE(run->clock, 1);
		}
		if (runtime && now - run->start > runtime)
			reason = RTG_STOP_RUNTIME;
		/* a described run's next call tells what it holds */
		if (hold && rtg_run_prog(run)->described && !run->sample) {
			WRITE_ONCE(run->sample, 1);
			this_cpu_inc(rtg_slow);
		}
		/*
		 * After a release that matched nothing, an entry may stand
		 * for something already given back: holds are not judged.
		 */
		for (j = 0; hold && !run->unmatched && j < run->count; j++) {
			struct rtg_held *h = &run->held[j];

			/* a clone's group is judged by its first dynptr */
			if (!h->obj || rtg_held_is_clone(h))
				continue;
			/* a hold counts from the first tick that sees it */
			if (!h->seen) {
				h->seen = now;
				continue;
			}
			if (!(h->site->flags & RTG_SITE_ITER) &&
			    now - h->seen > hold)
				reason = RTG_STOP_HOLD;
		}
		if (reason) {
			WRITE_ONCE(run->stop, reason);
			this_cpu_inc(rtg_slow);
			rtg_watchdog_end_loops(run);
		}
	}
}

static bool rtg_watchdog_armed(void)
{
	return READ_ONCE(rtg_watchdog_ms) || READ_ONCE(rtg_hold_limit_us);
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
	u32 runs;
	u16 begun;
	u64 t0;

	__this_cpu_inc(rtg_watchdog_wakeups);
	/* with both limits off, no run need start it again */
	if (!ms && !us)
		return HRTIMER_NORESTART;
	runs = __this_cpu_read(rtg_watch_cpu.runs);
	begun = runs >> 16;
	if (!(runs & BPF_CALL_HOOK_RUNS_IN_FLIGHT)) {
		__this_cpu_inc(rtg_watchdog_idle_wakeups);
		if (begun == __this_cpu_read(rtg_watchdog_begun)) {
			__this_cpu_write(rtg_watch_cpu.watch, 0);
			return HRTIMER_NORESTART;
		}
	}
	__this_cpu_write(rtg_watchdog_begun, begun);
	t0 = local_clock();
	rtg_watchdog_check((u64)ms * NSEC_PER_MSEC, (u64)us * NSEC_PER_USEC);
	__this_cpu_inc(rtg_watchdog_ticks);
	__this_cpu_add(rtg_watchdog_tick_ns, local_clock() - t0);
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
		__this_cpu_write(rtg_watchdog_begun, __this_cpu_read(rtg_watch_cpu.runs) >> 16);
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
	struct hrtimer *timer = this_cpu_ptr(&rtg_watchdog_timer);

	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = rtg_watchdog_fn;
	local_irq_disable();
	rtg_watchdog_kick(NULL);
	local_irq_enable();
	return 0;
}

static int rtg_watchdog_cpu_offline(unsigned int cpu)
{
	/* no run asks for the timer from now on */
	local_irq_disable();
	__this_cpu_write(rtg_watch_cpu.watch, 1);
	local_irq_enable();
	irq_work_sync(this_cpu_ptr(&rtg_watchdog_arm_work));
	hrtimer_cancel(this_cpu_ptr(&rtg_watchdog_timer));
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
		st->stops_described += per_cpu(rtg_stops_described, cpu);
		st->stops_from_table += per_cpu(rtg_stops_from_table, cpu);
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

	/* the CPUs' timers are set up below: until then, no run asks */
	for_each_possible_cpu(cpu) {
		per_cpu(rtg_watch_cpu.watch, cpu) = 1;
		per_cpu(rtg_watchdog_arm_work, cpu) =
			IRQ_WORK_INIT_HARD(rtg_watchdog_arm_fn);
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
	/* no limit written from now on starts a timer */
	mutex_lock(&rtg_watchdog_lock);
	rtg_watchdog_ready = false;
	mutex_unlock(&rtg_watchdog_lock);
	cpuhp_remove_state(rtg_watchdog_cpuhp);
}
