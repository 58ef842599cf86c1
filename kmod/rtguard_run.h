/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: programs' tracking state and their runs (rtguard_run.c),
 * which owns every write to a run: the hooks change its table and
 * sections through these, the watchdog marks it, and a stop ends it.
 */
#ifndef _RTGUARD_RUN_H
#define _RTGUARD_RUN_H

#include "rtguard.h"

/**
 * struct rtg_tick - an expiry of a CPU's watchdog timer, charging runs
 * @now: local_clock()
 * @span_us: the CPU's time since its expiry before this one (or since its
 *	timer started), at most 2 ms: one comes later only when the CPU kept
 *	interrupts off, where no run can be stopped, or was not run at all,
 *	as a virtual machine's vCPU the host descheduled
 * @watched_us: the sum of the CPU's expiries' @span_us before this one,
 *	mod 2^32: what runs whose task was switched out missed is a
 *	difference of two of these
 */
struct rtg_tick {
	u64 now;
	u32 span_us;
	u32 watched_us;
};

extern struct mutex rtg_progs_lock;
extern struct list_head rtg_progs;
u32 rtg_run_size(u32 max_refs);
struct rtg_prog *rtg_prog_get(struct bpf_prog_aux *main);
void rtg_prog_put(struct rtg_prog *tp);
struct rtg_release_slot *rtg_prog_release_slot(struct rtg_prog *tp, const char *name);
void rtg_prog_add_acquire(struct rtg_prog *tp, struct rtg_site *site,
			  const char *stop_release);
void rtg_prog_add_release_fn(struct rtg_prog *tp, const char *name,
			     const struct rtg_site *site);
u64 rtg_run_exit(u64 ret, struct bpf_call_hook_run *hook_run);
u64 rtg_run_exit_lazy(u64 ret, struct bpf_call_hook_run *area);
struct rtg_run *rtg_run_stray(const struct rtg_site *site);
long rtg_run_stop(struct rtg_run *run, const struct rtg_site *site,
		  const u64 *args, const struct rtg_callee_regs *regs);
void rtg_run_sample(struct rtg_run *run, const struct rtg_site *site,
		    const u64 *args, const struct rtg_callee_regs *regs);
void rtg_run_mark(struct rtg_run *run, u8 reason);
void rtg_run_end_loops(struct rtg_run *run);
u32 rtg_run_charge(struct rtg_run *run, const struct rtg_tick *tick);
u32 rtg_run_longest_hold(struct rtg_run *run);
void rtg_run_ask_sample(struct rtg_run *run);
void rtg_run_acquiring(struct rtg_run *run, const struct rtg_site *site);
void rtg_run_stop_stats(u64 *described, u64 *from_table);

/**
 * rtg_current_run() - the run of @site's program on this task
 * @site: a hooked call site of a tracked program
 *
 * Return: the innermost run of the current task, which is the run making
 * the call, or NULL if that is not a run of @site's program: counted,
 * but for a lazy run its pre hook could not adopt (rtg_lazy_adopt()).
 */
static __always_inline struct rtg_run *rtg_current_run(const struct rtg_site *site)
{
	struct rtg_run *run = rtg_task_run(current);

	if (unlikely(!run || rtg_run_prog(run) != site->tprog))
		return rtg_prog_lazy(site->tprog) ? NULL : rtg_run_stray(site);
	return run;
}

bool rtg_run_compact(struct rtg_run *run);

/**
 * rtg_run_push() - add an entry to a run's table
 * @run: the run
 * @site: the call site that made it
 * @obj: the object, iterator, lock or dynptr clone
 * @aux: &rtg_held.seen (0) or &rtg_held.clone_of
 *
 * A full table marks the run incomplete instead.
 */
static __always_inline void rtg_run_push(struct rtg_run *run,
					 const struct rtg_site *site, u64 obj,
					 u64 aux)
{
	struct rtg_held *h;

	if (unlikely(run->count >= run->nslots) && !rtg_run_compact(run)) {
		run->incomplete = 1;
		return;
	}
	h = &run->held[run->count];
	h->obj = obj;
	h->site = site;
	h->seen = aux;
	/* the watchdog timer of this CPU sees the entry before the count */
	barrier();
	WRITE_ONCE(run->count, run->count + 1);
}

/* Record that a run holds @obj, acquired at @site. */
static __always_inline void rtg_run_hold(struct rtg_run *run,
					 const struct rtg_site *site, u64 obj)
{
	rtg_run_push(run, site, obj, 0);
}

/**
 * rtg_run_clear() - clear entry @i of a run's table, and the cleared top
 * @run: the run
 * @i: an entry below the top, holding something
 *
 * Entries above @i keep their place; cleared entries at the top are
 * dropped, so entries never move.
 */
static __always_inline void rtg_run_clear(struct rtg_run *run, u32 i)
{
	u32 n = run->count;

	/* one store: the watchdog timer of this CPU sees it held or not */
	WRITE_ONCE(run->held[i].obj, 0);
	while (n && !run->held[n - 1].obj)
		n--;
	WRITE_ONCE(run->count, n);
}

const struct rtg_site *rtg_run_give_back(struct rtg_run *run, u64 obj);
void rtg_run_clone(struct rtg_run *run, const struct rtg_site *site, u64 obj,
		   u64 clone);
const struct rtg_site *rtg_run_give_back_dynptr(struct rtg_run *run, u64 obj);
u32 rtg_run_held(const struct rtg_run *run);

/* The run entered @section (RCU, preemption): one more level. */
static __always_inline void rtg_run_enter_section(struct rtg_run *run, u8 section)
{
	u8 *depth = &run->sections[section];

	if (likely(*depth < U8_MAX))
		WRITE_ONCE(*depth, *depth + 1);
	else
		run->incomplete = 1;
}

/*
 * The run left @section: one level less. Return: whether it was in it
 * (a described or partly described run's sections are what its samples
 * saw: no error).
 */
static __always_inline bool rtg_run_leave_section(struct rtg_run *run, u8 section)
{
	u8 *depth = &run->sections[section];
	bool held = *depth;

	if (likely(held))
		WRITE_ONCE(*depth, *depth - 1);
	else if (run->unmatched < U8_MAX && !rtg_prog_sampled(rtg_run_prog(run)))
		run->unmatched++;
	return held;
}

#endif /* _RTGUARD_RUN_H */
