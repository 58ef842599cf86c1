// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the watchdog. A timer compares every tracked run's
 * age (since its first acquisition) with watchdog_ms and the age of what
 * it holds (iterators excepted: they are loop state, which watchdog_ms
 * bounds) with hold_limit_us, and marks runs that overran. The run stops
 * at its next hooked call (every call of a tracked program is hooked):
 *
 *  - unwinding, where the program is an exception boundary (see the guard
 *    callback) and no C function lies between the hook and the program's
 *    main frame: everything in the run's table is released, newest first,
 *    with the release functions the program itself calls, and the program
 *    returns rtg_stop_retval() to its caller;
 *  - fast-execute otherwise (inside a callback that bpf_loop() or another
 *    helper calls, in a program with tail calls, when something held has
 *    no release we can call: bpf_obj_drop_impl() needs a meta, a kptr
 *    taken from a map its type's destructor; or in a program that
 *    reserves ring buffer dynptrs, a reference the tables do not track):
 *    acquiring calls that
 *    may fail return NULL and iterator next returns NULL, so that the
 *    verified program gives back what it holds on its own way out.
 */
#include <linux/bpf_call_hook.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <linux/pkt_cls.h>
#include <uapi/linux/bpf.h>

#include "rtguard.h"
#include "rtguard_trace.h"

atomic_t rtg_stops_pending = ATOMIC_INIT(0);
static struct hrtimer rtg_watchdog_timer;

typedef u64 (*rtg_call_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

/**
 * rtg_stop_retval() - what a program stopped by unwinding returns
 * @type: the program's type
 *
 * Return: -ETIMEDOUT for syscall programs (the test run's retval),
 * TC_ACT_SHOT for tc, XDP_ABORTED for XDP, 0 for everything else.
 */
u64 rtg_stop_retval(enum bpf_prog_type type)
{
	switch (type) {
	case BPF_PROG_TYPE_SYSCALL:
		return (u32)-ETIMEDOUT;
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
		return TC_ACT_SHOT;
	case BPF_PROG_TYPE_XDP:
		return XDP_ABORTED;
	default:
		return 0;
	}
}

static const char *const rtg_reasons[] = {
	[RTG_STOP_RUNTIME] = "watchdog_ms",
	[RTG_STOP_HOLD] = "hold_limit_us",
};

static void rtg_stop_report(struct rtg_prog *tp, struct rtg_run *run,
			    const char *how, u32 released)
{
	u64 us = (ktime_get_mono_fast_ns() - run->start_ns) / NSEC_PER_USEC;
	u32 reason = READ_ONCE(run->stop);

	atomic_long_inc(&tp->stops);
	atomic_long_add(released, &tp->stop_released);
	trace_rtg_stop(tp->main, reason, us, released, how);
	pr_warn_ratelimited("bpf_rtguard: stopped prog %u %s after %llu us (%s): %s, %u released\n",
			    tp->main->id, tp->main->name, us,
			    rtg_reasons[reason < ARRAY_SIZE(rtg_reasons) ? reason : 0] ?: "?",
			    how, released);
}

/* The function that gives back what @h holds, if the program calls it. */
static void *rtg_release_fn(struct rtg_prog *tp, const struct rtg_held *h)
{
	const char *names = h->site->release, *alt = strchr(names, '/');
	void *fn = NULL;

	/* dropping a program-allocated object needs its type's meta */
	if (!strncmp(names, "bpf_obj_drop_impl", 17) ||
	    !strncmp(names, "bpf_percpu_obj_drop_impl", 24))
		return NULL;
	/* a ring buffer record is discarded, not submitted */
	if (alt)
		fn = rtg_prog_release_fn(tp, alt + 1, strlen(alt + 1));
	if (!fn)
		fn = rtg_prog_release_fn(tp, names, alt ? alt - names : strlen(names));
	return fn;
}

/* Release everything @run holds, newest first; false if something can't be. */
static bool rtg_release_all(struct rtg_prog *tp, struct rtg_run *run, u32 *released)
{
	int i;

	for (i = run->count - 1; i >= 0; i--)
		if (!rtg_release_fn(tp, &run->held[i]))
			return false;
	for (i = run->count - 1; i >= 0; i--) {
		const struct rtg_held *h = &run->held[i];
		rtg_call_fn fn = rtg_release_fn(tp, h);

		switch (h->site->role) {
		case RTG_ROLE_HOLD_TOKEN:
			fn(0, 0, 0, 0, 0);
			break;
		default:	/* the object, and flags 0 for a ring buffer record */
			fn(h->obj, 0, 0, 0, 0);
			break;
		}
		trace_rtg_release(h->site, h->obj, h->site);
		(*released)++;
	}
	return true;
}

/**
 * rtg_watchdog_stop() - stop the current run if the watchdog marked it
 * @site: the hooked call being made
 *
 * Called from the hooks while a stop is pending somewhere. Unwinds when it
 * can (and then does not return); otherwise switches the run to
 * fast-execute.
 *
 * Return: true when the run fast-executes: acquiring calls return NULL.
 */
bool rtg_watchdog_stop(const struct rtg_site *site)
{
	struct rtg_prog *tp = site->tprog;
	struct rtg_run *run;
	u32 released = 0;
	int idx;

	if (!tp)
		return false;
	idx = rtg_run_find(tp, rtg_run_key());
	if (idx < 0)
		return false;
	run = rtg_run_at(tp, idx);
	if (!READ_ONCE(run->stop))
		return false;
	if (run->fast)
		return true;
	if (!tp->no_unwind && bpf_call_hook_can_unwind() &&
	    rtg_release_all(tp, run, &released)) {
		rtg_stop_report(tp, run, "released and unwound", released);
		run->count = 0;
		if (xchg(&run->stop, 0))
			atomic_dec(&rtg_stops_pending);
		/* the emptied table is seen before it is free again */
		smp_store_release(&tp->owners[idx], 0);
		bpf_call_hook_unwind(rtg_stop_retval(tp->main->prog->type));
		return false;	/* not reached */
	}
	run->fast = true;
	run->fast_pops = 0;
	return true;
}

/**
 * rtg_watchdog_run_done() - a stopped run gave back its last resource
 * @tp: the program's tracking state
 * @run: the run, now empty
 */
void rtg_watchdog_run_done(struct rtg_prog *tp, struct rtg_run *run)
{
	if (run->fast)
		rtg_stop_report(tp, run, "fast-executed, released by the program",
				run->fast_pops);
	run->fast = false;
	if (xchg(&run->stop, 0))
		atomic_dec(&rtg_stops_pending);
}

static void rtg_watchdog_scan(u64 runtime_ns, u64 hold_ns)
{
	struct rtg_prog *tp;
	u32 i, j;

	rcu_read_lock();
	list_for_each_entry_rcu(tp, &rtg_progs, node) {
		for (i = 0; i < tp->nruns; i++) {
			struct rtg_run *run = rtg_run_at(tp, i);
			u64 now = ktime_get_mono_fast_ns();
			u32 reason = 0;

			if (!READ_ONCE(tp->owners[i]) || READ_ONCE(run->stop))
				continue;
			/* signed: a table claimed after "now" was read is young */
			if (runtime_ns &&
			    (s64)(now - READ_ONCE(run->start_ns)) > (s64)runtime_ns)
				reason = RTG_STOP_RUNTIME;
			/* iterators are loop state: watchdog_ms bounds loops */
			for (j = 0; !reason && hold_ns && j < READ_ONCE(run->count) &&
			     j < tp->nslots; j++) {
				const struct rtg_held *h = &run->held[j];
				const struct rtg_site *site = READ_ONCE(h->site);

				if (site && !(site->flags & RTG_SITE_ITER) &&
				    (s64)(now - READ_ONCE(h->since_ns)) > (s64)hold_ns)
					reason = RTG_STOP_HOLD;
			}
			if (reason && !cmpxchg(&run->stop, 0, reason))
				atomic_inc(&rtg_stops_pending);
		}
	}
	rcu_read_unlock();
}

/*
 * A timer, not a thread: runaway programs may keep every CPU busy in
 * kernel code that does not schedule, and the timer still interrupts them.
 */
static enum hrtimer_restart rtg_watchdog_fn(struct hrtimer *timer)
{
	u32 ms = READ_ONCE(rtg_watchdog_ms), us = READ_ONCE(rtg_hold_limit_us);

	if (ms || us)
		rtg_watchdog_scan((u64)ms * NSEC_PER_MSEC, (u64)us * NSEC_PER_USEC);
	/* 1 ms resolution while armed, idle otherwise */
	hrtimer_forward_now(timer, ms || us ? ms_to_ktime(1) : ms_to_ktime(50));
	return HRTIMER_RESTART;
}

/**
 * rtg_watchdog_init() - start the watchdog timer
 *
 * Return: 0.
 */
int rtg_watchdog_init(void)
{
	hrtimer_init(&rtg_watchdog_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	rtg_watchdog_timer.function = rtg_watchdog_fn;
	hrtimer_start(&rtg_watchdog_timer, ms_to_ktime(1), HRTIMER_MODE_REL);
	return 0;
}

/**
 * rtg_watchdog_exit() - stop the watchdog timer
 */
void rtg_watchdog_exit(void)
{
	hrtimer_cancel(&rtg_watchdog_timer);
}
