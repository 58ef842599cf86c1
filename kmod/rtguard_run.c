// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: runs of tracked programs and their tables of held resources.
 *
 * A run is one execution of a tracked program, from its first instruction
 * to its return. The JIT brackets it in line: after the prologue it fills
 * in a struct rtg_run in an area of the run's own stack frame, sized when
 * the program was verified for the most references it can hold at once,
 * and makes it the task's current run; when the program returns (or is
 * left through its exception callback) it makes the previous run current
 * again, and calls rtg_run_exit() only when the run was stopped, left
 * something in its table, or could not record something. The area holds
 * the run's table, which the JIT pushes to and pops from in line for
 * acquisitions and the releases of the newest entry: nothing is
 * allocated, searched or shared while a program runs, and any number of
 * runs may sleep or nest at once. current->bpf_hook_run points to the
 * innermost run of the task; runs in interrupts nest on it and return
 * before the interrupted run goes on. A bare described program's runs
 * are lazy instead: nothing in their frame (8 bytes if the program may
 * sleep), and a record from their CPU's pool once adopted
 * (rtguard_lazy.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "rtguard.h"
#include "rtguard_lazy.h"
#include "rtguard_run.h"
#include "rtguard_slow.h"
#include "rtguard_trace.h"

#define RTG_SPIN_LOCK_SLOTS	1	/* a bpf_spin_lock, counted apart by the verifier */

/* struct rtg_run is the module's view of the run the JIT keeps */
#define RTG_RUN_AS_HOOK_RUN(rtg, hook)						\
	static_assert(offsetof(struct rtg_run, rtg) ==				\
		      offsetof(struct bpf_call_hook_run, hook))
RTG_RUN_AS_HOOK_RUN(count, top);
RTG_RUN_AS_HOOK_RUN(stop, exit_flags);
RTG_RUN_AS_HOOK_RUN(nslots, nslots);
RTG_RUN_AS_HOOK_RUN(how, state);
RTG_RUN_AS_HOOK_RUN(prev, prev);
RTG_RUN_AS_HOOK_RUN(image, data);
RTG_RUN_AS_HOOK_RUN(start, start);
RTG_RUN_AS_HOOK_RUN(fast_releases, scratch);
RTG_RUN_AS_HOOK_RUN(held, slot);
static_assert(offsetof(struct rtg_run, nslots) - offsetof(struct rtg_run, stop) ==
	      sizeof_field(struct bpf_call_hook_run, exit_flags));
static_assert(offsetof(struct rtg_run, prev) - offsetof(struct rtg_run, how) ==
	      sizeof_field(struct bpf_call_hook_run, state));
static_assert(sizeof(struct rtg_run) == sizeof(struct bpf_call_hook_run));
static_assert(offsetof(struct rtg_held, obj) == offsetof(struct bpf_call_hook_slot, obj));
static_assert(offsetof(struct rtg_held, site) == offsetof(struct bpf_call_hook_slot, arg));
static_assert(offsetof(struct rtg_held, seen) == offsetof(struct bpf_call_hook_slot, aux));
static_assert(sizeof(struct rtg_held) == sizeof(struct bpf_call_hook_slot));

/* serialises changes to rtg_progs (read by debugfs) */
DEFINE_MUTEX(rtg_progs_lock);
LIST_HEAD(rtg_progs);

/**
 * rtg_run_size() - bytes of the run area for a program
 * @max_refs: the verifier's bound on references held at once
 *
 * Return: the size, a multiple of 8, at most BPF_CALL_HOOK_MAX_RUN_SIZE;
 * runs of programs that could hold more are marked incomplete when they do.
 */
u32 rtg_run_size(u32 max_refs)
{
	size_t size = struct_size_t(struct rtg_run, held,
				    max_refs + RTG_SPIN_LOCK_SLOTS);

	return min_t(size_t, round_up(size, 8),
		     rounddown(BPF_CALL_HOOK_MAX_RUN_SIZE, 8));
}

/* Bytes of the run area of a bare described program whose runs are not lazy. */
static u32 rtg_run_size_sampled(void)
{
	return round_up(struct_size_t(struct rtg_run, held, RTG_SAMPLE_SLOTS), 8);
}

/**
 * rtg_prog_get() - the tracking state of a program, created on first use
 * @main: aux data of the main program
 *
 * Called at JIT time for every image of the program, the main image first;
 * the images share one state, freed with rtg_prog_put() when the last
 * image goes. The first call may lower the program's run area.
 *
 * Return: the state, or an ERR_PTR() when it cannot be allocated.
 */
struct rtg_prog *rtg_prog_get(struct bpf_prog_aux *main)
{
	struct rtg_prog *tp;

	mutex_lock(&rtg_progs_lock);
	list_for_each_entry(tp, &rtg_progs, node) {
		if (tp->main == main) {
			refcount_inc(&tp->images);
			goto out;
		}
	}
	tp = kzalloc(sizeof(*tp), GFP_KERNEL_ACCOUNT);
	if (!tp) {
		tp = ERR_PTR(-ENOMEM);
		goto out;
	}
	tp->main = main;
	tp->stoppable = rtg_stop_policy_decode(main, &tp->stop_ret);
	/* the kernel leaves no unwind to the owner of a program with its
	 * own exception callback, which decides what a throw returns
	 */
	tp->no_unwind = !(main->call_hook_flags & BPF_CALL_HOOK_UNWIND);
	tp->trace_only = main->call_hook_flags & RTG_TRACE_ONLY;
	tp->trace_runs = main->call_hook_flags &
			 (BPF_CALL_HOOK_EXIT_ON_FLAG | BPF_CALL_HOOK_RUNS_ON_FLAG);
	tp->sleepable = main->prog->sleepable;
	if (!tp->trace_only) {
		rtg_held_prog_new(tp);
		/* the events report what tables record, decided at load */
		tp->bare_calls = rtg_prog_sampled(tp) && !trace_rtg_acquire_enabled() &&
				 !trace_rtg_release_enabled();
		/*
		 * nothing but a sample is ever in a bare described run's
		 * table; the first image, the main one, may give the rest of
		 * the stack back
		 */
		if (tp->described && tp->bare_calls)
			main->call_hook_run_size = min(main->call_hook_run_size,
						       rtg_run_size_sampled());
	}
	tp->nslots = (main->call_hook_run_size - sizeof(struct rtg_run)) /
		     sizeof(struct rtg_held);
	refcount_set(&tp->images, 1);
	list_add_tail(&tp->node, &rtg_progs);
out:
	mutex_unlock(&rtg_progs_lock);
	return tp;
}

/**
 * rtg_prog_put() - drop one image's reference on a program's tracking state
 * @tp: state from rtg_prog_get()
 */
void rtg_prog_put(struct rtg_prog *tp)
{
	mutex_lock(&rtg_progs_lock);
	if (!refcount_dec_and_test(&tp->images)) {
		mutex_unlock(&rtg_progs_lock);
		return;
	}
	list_del(&tp->node);
	mutex_unlock(&rtg_progs_lock);
	kfree(tp);
}

static void rtg_report(struct rtg_prog *tp, atomic_long_t *counter, long n,
		       const char *what)
{
	if (atomic_long_add_return(n, counter) == n)
		pr_warn_ratelimited("prog %u %s: %s\n", tp->main->id,
				    tp->main->name, what);
}

typedef u64 (*rtg_release_fn_t)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

/* stops that gave back what a description named, and a table held */
static DEFINE_PER_CPU(u64, rtg_stops_described);
static DEFINE_PER_CPU(u64, rtg_stops_from_table);

static const char *const rtg_hows[] = {
	[RTG_HOW_NONE] = "returned before a hooked call",
	[RTG_HOW_UNWOUND] = "released and unwound",
	[RTG_HOW_FAST] = "fast-executed, released by the program",
	[RTG_HOW_REPORTED] = "not stoppable (program or attach type), reported only",
	[RTG_HOW_LOOP] = "loop ended at a may_goto, left by the program",
};

/*
 * The entry that reaches @slot's function in the program's image (a
 * thunk, which starts with ENDBR), or NULL when there is none.
 */
static rtg_release_fn_t rtg_release_fn(const struct rtg_release_slot *slot)
{
	/* pairs with the release in rtg_prog_add_release_fn() */
	const struct rtg_site *site = slot ? smp_load_acquire(&slot->site) : NULL;

	return site ? READ_ONCE(site->thunk) : NULL;
}

/* Whether the program has a way out of each section in @depth. */
static bool rtg_can_end_sections(struct rtg_prog *tp, const u8 *depth)
{
	int i;

	for (i = 0; i < RTG_NR_SECTIONS; i++)
		if (depth[i] && !rtg_release_fn(tp->section_end[i]))
			return false;
	return true;
}

/* Leave each section @depth times, down to 0; the number of calls made. */
static u32 rtg_end_sections(struct rtg_prog *tp, u8 *depth)
{
	u32 n = 0;
	int i;

	for (i = 0; i < RTG_NR_SECTIONS; i++) {
		rtg_release_fn_t fn = rtg_release_fn(tp->section_end[i]);

		for (; depth[i]; depth[i]--, n++)
			fn(0, 0, 0, 0, 0);
	}
	return n;
}

/*
 * Whether table entry @h is a resource a stop gives back: a dynptr clone
 * goes with the record of its group, and a partly described run's table
 * has only what its recording calls returned for certain (the rest is
 * what samples saw, perhaps given back since).
 */
static bool rtg_held_to_release(const struct rtg_prog *tp, const struct rtg_held *h)
{
	return h->obj && !rtg_held_is_clone(h) && (!tp->partly || h->site->feeds);
}

/* Whether the watchdog can give back everything @run holds. */
static bool rtg_can_release_all(struct rtg_prog *tp, const struct rtg_run *run)
{
	int i;

	for (i = 0; i < run->count; i++) {
		const struct rtg_held *h = &run->held[i];

		if (rtg_held_to_release(tp, h) && !rtg_release_fn(h->site->stop_slot))
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
		if (!rtg_held_to_release(tp, h))
			continue;
		fn = rtg_release_fn(h->site->stop_slot);
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
		if (!rtg_release_fn(d->res[i].release))
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
		rtg_release_fn_t fn = rtg_release_fn(r->release);

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

/*
 * What a run of a bare program (&rtg_prog.bare_calls) that fast-executes
 * gives back itself, by its own calls, which make no hook to count them:
 * what the description of the call it stopped at names, else what its
 * table holds (a partly described run's, at a call whose paths differ).
 */
static u32 rtg_bare_held(const struct rtg_run *run, const struct rtg_described *d)
{
	const u8 *sections = d->n >= 0 ? d->sections : run->sections;
	u32 n = d->n >= 0 ? d->n : rtg_run_held(run);
	int i;

	for (i = 0; i < RTG_NR_SECTIONS; i++)
		n += sections[i];
	return n;
}

/**
 * rtg_run_stop() - stop a run the watchdog marked
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
long rtg_run_stop(struct rtg_run *run, const struct rtg_site *site,
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
			bpf_call_hook_unwind(0, &regs->callee, rtg_release_described, &d);
			run->how = RTG_HOW_NONE;
		}
		/*
		 * only a table that is the truth is released by the watchdog
		 * (a described run's holds what samples saw; a partly
		 * described run's is the truth at calls whose paths differ,
		 * and their descriptions say the sections)
		 */
		if (tp->partly && !rtg_held_from_table(site, run->sections))
			goto fast;
		if (!run->incomplete && !run->unmatched && !tp->no_unwind && !tp->described &&
		    rtg_can_release_all(tp, run)) {
			run->how = RTG_HOW_UNWOUND;
			/* returns only when the program cannot be left here,
			 * before releasing anything; rtg_run_exit() runs
			 * before the exception callback
			 */
			bpf_call_hook_unwind(0, &regs->callee, rtg_release_all, run);
		}
fast:
		run->how = RTG_HOW_FAST;
		if (tp->bare_calls)
			run->fast_releases = rtg_bare_held(run, &d);
	}
	return site->flags & RTG_SITE_SKIP ? -1 : 0;
}

/*
 * A run the watchdog marked returns, with @ret: say how it stopped. The
 * value the run returns to its caller.
 */
static u64 rtg_run_stopped(struct rtg_run *run, u64 ret)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u64 us = rtg_run_age_ns(run, local_clock()) / NSEC_PER_USEC;
	char count[32];
	u32 released;

	/* the run was marked on this CPU, and never left it */
	rtg_slow_add(-1);
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
	/* a bare run left its loop through releases that have no hook */
	if (run->how == RTG_HOW_LOOP && tp->bare_calls)
		strscpy(count, "its releases not counted");
	else
		snprintf(count, sizeof(count), "%u released", released);
	pr_warn_ratelimited("stopped prog %u %s after %llu us (%s): %s, %s\n",
			    tp->main->id, tp->main->name, us, rtg_stop_reason_name(run->stop),
			    rtg_hows[run->how], count);
	return tp->stop_ret;
}

static u64 rtg_run_ended(struct rtg_run *run, u64 ret);
static u64 rtg_run_ended_lazy(struct rtg_run *run, u64 ret);

/**
 * rtg_run_exit() - a run of a tracked program returns
 * @ret: what the program returns
 * @hook_run: the run area in the program's frame
 *
 * Called by the JIT compiled program from its epilogue, or before its
 * exception callback when it is left by bpf_throw() or the watchdog,
 * once the run is no longer the task's current one (a lazy run, adopted,
 * is given up here), and only when the run was adopted, was marked,
 * could not record something, released something it did not hold or
 * returned with entries in its table; for a program in debug
 * mode, whenever a run returns while runs are recorded (rtg_trace_run()).
 *
 * Return: what the program returns to its caller: @ret, or the value a
 * stopped run returns.
 */
u64 rtg_run_exit(u64 ret, struct bpf_call_hook_run *hook_run)
{
	/* a lazy run calls here only once adopted: it is current */
	struct rtg_run *run = rtg_lazy_run_of(hook_run);

	if (!run)
		return rtg_run_ended((struct rtg_run *)hook_run, ret);
	if (IS_ERR(run))
		return ret;
	return rtg_run_ended_lazy(run, ret);
}

/**
 * rtg_run_exit_lazy() - a lazy run that keeps nothing in its frame returns
 * @ret: what the program returns
 * @area: the address of the run's empty area, which names it
 *
 * Called as rtg_run_exit() is, by every such run that returns on a CPU
 * where the module adopted runs of this kind that have not returned
 * (&bpf_call_hook_cpu.lazy_exits): the run is one of them when it is
 * current.
 *
 * Return: what the program returns to its caller: @ret, or the value a
 * stopped run returns.
 */
u64 rtg_run_exit_lazy(u64 ret, struct bpf_call_hook_run *area)
{
	struct rtg_run *run = rtg_lazy_run_cpu(area);

	return run ? rtg_run_ended_lazy(run, ret) : ret;
}

/* What rtg_run_exit() does with a lazy run it adopted, current. */
static u64 rtg_run_ended_lazy(struct rtg_run *run, u64 ret)
{
	rtg_lazy_give_up(run);
	ret = rtg_run_ended(run, ret);
	rtg_lazy_free(run);
	return ret;
}

/* What rtg_run_exit() does with a run no longer current. */
static u64 rtg_run_ended(struct rtg_run *run, u64 ret)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u32 held;

	/* a sample the watchdog asked for, and no call came to take */
	if (unlikely(run->sample & RTG_SAMPLE_ASKED))
		rtg_slow_add(-1);
	if (unlikely(run->sample & RTG_SAMPLE_WATCH))
		this_cpu_dec(rtg_slow_acquire);
	if (unlikely(run->stop))
		ret = rtg_run_stopped(run, ret);
	if (tp->trace_runs)
		rtg_trace_run(run, ret);
	/* bracketed only to be recorded: it holds nothing followed */
	if (tp->trace_only)
		return ret;
	/*
	 * what samples of a described run saw is no record of what it gave
	 * back, nor is a partly described run's table
	 */
	if (rtg_prog_sampled(tp))
		return ret;
	if (unlikely(run->incomplete))
		rtg_report(tp, &tp->incomplete, 1,
			   "a run held more than its table records (a stop never releases from it)");
	if (unlikely(run->unmatched))
		rtg_report(tp, &tp->unmatched, run->unmatched,
			   "release of something the run does not hold");
	/* entries given back out of order may be left below the top */
	held = rtg_run_held(run);
	if (unlikely(held))
		rtg_report(tp, &tp->leftover, held,
			   "run returned with resources it did not give back through a hooked call");
	return ret;
}

/**
 * rtg_run_stray() - a hooked call that found no run of its program
 * @site: the call site
 *
 * Return: NULL, after counting it.
 */
struct rtg_run *rtg_run_stray(const struct rtg_site *site)
{
	rtg_report(site->tprog, &site->tprog->stray, 1,
		   "hooked call outside a run of the program");
	return NULL;
}

/* The newest entry of @run for @obj, or -1. */
static int rtg_run_find(const struct rtg_run *run, u64 obj)
{
	int i = run->count;

	while (i--)
		if (run->held[i].obj == obj)
			return i;
	return -1;
}

/* A stopped run that fast-executes gave something back itself. */
static void rtg_run_count_fast(struct rtg_run *run)
{
	/* a bare run's count is what its stop found held (rtg_bare_held()) */
	if (unlikely(run->how == RTG_HOW_FAST) && !rtg_run_prog(run)->bare_calls)
		run->fast_releases++;
}

/*
 * A release that matched nothing held (@run's full table may not have
 * it). A described run's table has only what its hooks saw since its
 * calls last took the slow path, and a partly described run's only what
 * reaches its calls whose paths differ: that is no error.
 */
static const struct rtg_site *rtg_run_unmatched(struct rtg_run *run)
{
	if (rtg_prog_sampled(rtg_run_prog(run)))
		rtg_run_count_fast(run);
	else if (!run->incomplete && run->unmatched < U8_MAX)
		run->unmatched++;
	return NULL;
}

/**
 * rtg_run_give_back() - record that a run gave @obj back
 * @run: the run
 * @obj: the object, iterator or lock released
 *
 * The most recent entry for @obj is cleared; entries above it keep their
 * place, and cleared entries at the top are dropped, so a release costs
 * the distance from the top and never moves entries.
 *
 * Return: the site that acquired @obj, or NULL for a release that
 * matches nothing held (counted in the run, unless the run is incomplete:
 * then what its full table could not record is given back too).
 */
const struct rtg_site *rtg_run_give_back(struct rtg_run *run, u64 obj)
{
	int i = rtg_run_find(run, obj);
	const struct rtg_site *site;

	if (i < 0)
		return rtg_run_unmatched(run);
	site = run->held[i].site;
	rtg_run_clear(run, i);
	rtg_run_count_fast(run);
	return site;
}

/**
 * rtg_run_clone() - a dynptr the run holds was cloned
 * @run: the run
 * @site: the bpf_dynptr_clone() call
 * @obj: the dynptr cloned (argument 1)
 * @clone: the clone (argument 2)
 *
 * Called before the call: the verifier makes @clone stand for the same
 * record whatever the call returns. A dynptr the run does not hold (one
 * over memory, an skb or xdp buffer) has no clones to follow.
 */
void rtg_run_clone(struct rtg_run *run, const struct rtg_site *site, u64 obj,
		   u64 clone)
{
	int i = rtg_run_find(run, obj);

	if (i < 0)
		return;
	/* a clone of a clone belongs to the first dynptr's group too */
	if (rtg_held_is_clone(&run->held[i]))
		obj = run->held[i].clone_of;
	rtg_run_push(run, site, clone, obj);
}

/**
 * rtg_run_give_back_dynptr() - record that a run gave back a dynptr's record
 * @run: the run
 * @obj: the dynptr submitted or discarded, the first of its group or a clone
 *
 * Every dynptr of the group stands for the record just given back: all
 * their entries are cleared.
 *
 * Return: the site that reserved the record, or NULL for a release that
 * matches nothing held (counted as rtg_run_give_back() does).
 */
const struct rtg_site *rtg_run_give_back_dynptr(struct rtg_run *run, u64 obj)
{
	const struct rtg_site *site = NULL;
	int i = rtg_run_find(run, obj);
	u64 first;

	if (i < 0)
		return rtg_run_unmatched(run);
	first = rtg_held_is_clone(&run->held[i]) ? run->held[i].clone_of : obj;
	for (i = run->count - 1; i >= 0; i--) {
		const struct rtg_held *h = &run->held[i];

		if (!h->obj)
			continue;
		if (rtg_held_is_clone(h) ? h->clone_of == first : h->obj == first) {
			if (!rtg_held_is_clone(h))
				site = h->site;
			rtg_run_clear(run, i);
		}
	}
	rtg_run_count_fast(run);
	return site;
}

/**
 * rtg_run_compact() - drop the given-back entries of a full table
 * @run: the run, whose table is full up to its top
 *
 * Return: whether room was made.
 */
bool rtg_run_compact(struct rtg_run *run)
{
	unsigned long flags;
	u32 i, n = 0;

	/* the watchdog timer of this CPU never sees entries half moved */
	local_irq_save(flags);
	for (i = 0; i < run->count; i++)
		if (run->held[i].obj)
			run->held[n++] = run->held[i];
	WRITE_ONCE(run->count, n);
	local_irq_restore(flags);
	return n < run->nslots;
}

/**
 * rtg_run_held() - how many resources a run holds
 * @run: the run
 *
 * Return: the entries below the top that are not cleared, dynptr clones
 * not counted.
 */
u32 rtg_run_held(const struct rtg_run *run)
{
	u32 i, n = 0;

	for (i = 0; i < run->count; i++)
		n += run->held[i].obj && !rtg_held_is_clone(&run->held[i]);
	return n;
}

/**
 * rtg_prog_release_slot() - the slot of a function a stop calls
 * @tp: the program's tracking state
 * @name: the function's name
 *
 * Called at JIT time: acquiring sites keep the slot of the function that
 * gives back what they acquire, which a releasing site of the program
 * fills in when it is JIT compiled (rtg_prog_add_release_fn()).
 *
 * Return: the slot, or NULL for an empty @name or a full table (the
 * watchdog then cannot give the resource back and fast-executes).
 */
struct rtg_release_slot *rtg_prog_release_slot(struct rtg_prog *tp, const char *name)
{
	u32 n = tp->nr_release_fns, i;

	if (!name[0])
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(tp->release_fns[i].name, name))
			return &tp->release_fns[i];
	if (n >= RTG_MAX_RELEASE_FNS)
		return NULL;
	strscpy(tp->release_fns[n].name, name);
	tp->nr_release_fns = n + 1;
	return &tp->release_fns[n];
}

/**
 * rtg_prog_add_acquire() - a call site acquires what a stop can give back
 * @tp: the program's tracking state
 * @site: the call site, acquiring or opening a section
 * @stop_release: the function a stop gives it back with, "" for none
 *
 * Called at JIT time. The site, or for a section the program, keeps the
 * slot of @stop_release.
 */
void rtg_prog_add_acquire(struct rtg_prog *tp, struct rtg_site *site,
			  const char *stop_release)
{
	struct rtg_release_slot *slot = rtg_prog_release_slot(tp, stop_release);

	/* a section's end, once known, stays known */
	if (site->role == RTG_ROLE_HOLD_TOKEN) {
		if (slot)
			tp->section_end[site->section] = slot;
	} else {
		site->stop_slot = slot;
	}
}

/**
 * rtg_prog_add_release_fn() - a call site reaches a function a stop calls
 * @tp: the program's tracking state
 * @name: the function's name
 * @site: a call site of it, whose thunk reaches it
 *
 * Called at JIT time for each releasing call site.
 */
void rtg_prog_add_release_fn(struct rtg_prog *tp, const char *name,
			     const struct rtg_site *site)
{
	struct rtg_release_slot *slot = rtg_prog_release_slot(tp, name);

	if (slot && !slot->site)
		/* the stop path sees the site whole (rtg_release_fn()) */
		smp_store_release(&slot->site, site);
}

/**
 * rtg_run_mark() - have a run stop at its next hooked call
 * @run: the run, interrupted on its CPU by the watchdog timer
 * @reason: &enum rtg_stop_reason
 *
 * Its CPU's calls take their slow path until the run returns.
 */
void rtg_run_mark(struct rtg_run *run, u8 reason)
{
	/* the scratch word is the stop's from now on */
	run->fast_releases = 0;
	WRITE_ONCE(run->stop, reason);
	rtg_slow_add(1);
	rtg_run_end_loops(run);
}

/**
 * rtg_run_end_loops() - end the may_goto loops of a marked run
 * @run: the run, marked, interrupted on its CPU by the watchdog timer
 *
 * A marked run may be in a loop with no call, where no hook sees its
 * mark: end the may_goto loops of its main function (again at each tick,
 * in case the write landed between a may_goto's load and store of the
 * counter). The program leaves them on a path the verifier checked.
 */
void rtg_run_end_loops(struct rtg_run *run)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u64 *counter;

	if (run->how == RTG_HOW_REPORTED || run->how == RTG_HOW_UNWOUND ||
	    !rtg_stop_policy_stoppable(tp))
		return;
	counter = bpf_call_hook_may_goto(tp->main, rtg_run_area(run));
	if (!counter)
		return;
	WRITE_ONCE(*counter, 0);
	if (run->how == RTG_HOW_NONE) {
		run->fast_releases = 0;
		run->how = RTG_HOW_LOOP;
	}
}

/**
 * rtg_run_charge() - charge a run for the time it had
 * @run: the run, interrupted on its CPU by the watchdog timer
 * @tick: the expiry
 *
 * The run's task is on this CPU now, and was for at most @tick's span,
 * which is charged. Since the run's last charge, the task may also have
 * been switched out while this CPU's expiries saw other tasks (the run
 * keeps its CPU's watched time after its last charge): that time is
 * charged when the task gave the CPU up itself (it slept in a call of a
 * sleepable program: the program's doing), not when another task
 * preempted it. The first charge, with no such record, is the run's time
 * since its entry: all of it for a sleepable program, which may have
 * slept; at most @tick's span for another, which was switched out only
 * if preempted (a short run preempted just after its entry is seen first
 * as it comes back). It also turns the run's start,
 * the TSC at its entry, into local_clock() ns, the clock the kernel keeps
 * right when it marks the TSC unstable, for readers of the run's age.
 *
 * Return: the run's charged time, in microseconds.
 */
u32 rtg_run_charge(struct rtg_run *run, const struct rtg_tick *tick)
{
	u8 switches = 0x80 | (current->nvcsw & 0x7f);
	u64 us = tick->span_us;

	if (!run->clock) {
		u64 ns = rtg_clock_ns(rtg_clock() - run->start);
		u64 since_entry = DIV_ROUND_CLOSEST_ULL(ns, NSEC_PER_USEC);

		run->start = tick->now - ns;
		if (!rtg_run_prog(run)->sleepable)
			since_entry = min(since_entry, us);
		run->charged_us = min_t(u64, since_entry, U32_MAX);
	} else {
		/* slept: the time its CPU's expiries saw other tasks, or none */
		if (run->clock != switches)
			us += (u32)(tick->watched_us - run->watched_us);
		run->charged_us = min_t(u64, run->charged_us + us, U32_MAX);
	}
	run->watched_us = tick->watched_us + tick->span_us;
	WRITE_ONCE(run->clock, switches);
	return run->charged_us;
}

/*
 * Whether a hold limit judges @h: iterators are loop state, which
 * watchdog_ms bounds, and a dynptr clone's group is judged by its first
 * dynptr.
 */
static bool rtg_held_judged(const struct rtg_held *h)
{
	return h->obj && !rtg_held_is_clone(h) && !(h->site->flags & RTG_SITE_ITER);
}

/**
 * rtg_run_longest_hold() - how long a run has held the oldest thing it holds
 * @run: the run, interrupted on its CPU by the watchdog timer, just
 *	charged (rtg_run_charge())
 *
 * In the time charged to the run, from the first tick that saw each
 * entry: entries not seen before are seen now. Iterators are loop state,
 * which watchdog_ms bounds, and are not judged; a dynptr clone's group is
 * judged by its first dynptr. After a release that matched nothing, an
 * entry may stand for something already given back: then no hold is
 * judged.
 *
 * Return: microseconds, 0 when nothing judged is held.
 */
u32 rtg_run_longest_hold(struct rtg_run *run)
{
	u64 now = (u64)run->charged_us + 1, oldest = now;
	u32 j;

	if (!rtg_prog_sampled(rtg_run_prog(run)) && run->unmatched)
		return 0;
	for (j = 0; j < run->count; j++) {
		struct rtg_held *h = &run->held[j];

		if (!h->obj || rtg_held_is_clone(h))
			continue;
		if (!h->seen)
			WRITE_ONCE(h->seen, now);
		else if (rtg_held_judged(h))
			oldest = min(oldest, h->seen);
	}
	return now - oldest;
}

/* Whether @run's table holds anything a hold limit judges. */
static bool rtg_run_judged(const struct rtg_run *run)
{
	u32 j;

	for (j = 0; j < run->count; j++)
		if (rtg_held_judged(&run->held[j]))
			return true;
	return false;
}

/**
 * rtg_run_ask_sample() - have a described run's next call say what it holds
 * @run: a run of a described program, interrupted on its CPU by the
 *	watchdog timer
 *
 * Its next hooked call takes the slow path, where rtg_run_sample() fills
 * its table from the call's description, for hold_limit_us.
 */
void rtg_run_ask_sample(struct rtg_run *run)
{
	if (run->sample & RTG_SAMPLE_ASKED)
		return;
	WRITE_ONCE(run->sample, run->sample | RTG_SAMPLE_ASKED);
	rtg_slow_add(1);
}

/**
 * rtg_run_acquiring() - a watched run is about to acquire at @site
 * @run: the current run, its sample flags RTG_SAMPLE_WATCH
 * @site: an acquiring call of its program (one with a &rtg_site.stop_slot)
 *
 * A later sample that sees an object acquired at @site cannot tell it
 * from one given back since, with no hook, and taken again here: its
 * hold counts from the first tick after this call. A hold is then judged
 * shorter than it is when the program takes one object twice at one
 * call and keeps both, never longer.
 */
void rtg_run_acquiring(struct rtg_run *run, const struct rtg_site *site)
{
	u32 j;

	/* the lock's entries name the first bpf_spin_lock() call */
	if (rtg_site_is_spin_lock(site))
		site = READ_ONCE(site->tprog->lock_site);
	for (j = 0; j < run->count; j++)
		if (run->held[j].site == site)
			WRITE_ONCE(run->held[j].seen, 0);
}

/**
 * rtg_run_stop_stats() - stops so far, on all CPUs
 * @described: stops that gave back what a description named
 * @from_table: stops that gave back what a run's table held
 */
void rtg_run_stop_stats(u64 *described, u64 *from_table)
{
	int cpu;

	*described = 0;
	*from_table = 0;
	for_each_possible_cpu(cpu) {
		*described += per_cpu(rtg_stops_described, cpu);
		*from_table += per_cpu(rtg_stops_from_table, cpu);
	}
}

/*
 * Fit a sample of @n resources into a table of @max entries: the ones a
 * hold limit judges (not iterators, see rtg_run_longest_hold()), in order
 * of acquisition, so that the oldest hold is kept. Return: how many.
 */
static int rtg_sample_fit(struct rtg_held_res *res, int n, u32 max)
{
	int i, k = 0;

	for (i = 0; i < n && k < max; i++)
		if (!(res[i].acq->flags & RTG_SITE_ITER))
			res[k++] = res[i];
	return k;
}

/**
 * rtg_run_sample() - refresh a described run's table before a call
 * @run: the current run, of a described program, asked for a sample
 * @site: the call it is about to make
 * @args: BPF R1-R5
 * @regs: BPF R6-R9 and R10 of the calling frame
 *
 * The table then holds what the call's description names, each entry
 * keeping the time the watchdog first saw it when an earlier sample had
 * it, so that hold_limit_us judges described runs as it judges the
 * others. A description that does not fit the run empties the table:
 * nothing is judged that is not known. A partly described run's table
 * is left as it is then (a stop at a call whose paths differ reads it),
 * and at such a call.
 */
void rtg_run_sample(struct rtg_run *run, const struct rtg_site *site,
		    const u64 *args, const struct rtg_callee_regs *regs)
{
	struct rtg_held_res res[RTG_DESCRIBED_MAX];
	u8 sections[RTG_NR_SECTIONS], watch;
	u64 seen[RTG_DESCRIBED_MAX];
	unsigned long flags;
	int n, i, j;

	n = rtg_held_resolve(site, args, regs, res, RTG_DESCRIBED_MAX, sections);
	if (rtg_run_prog(run)->partly && (n < 0 || n > rtg_run_prog(run)->nslots))
		n = -1;
	else if (n > rtg_run_prog(run)->nslots)
		n = rtg_sample_fit(res, n, rtg_run_prog(run)->nslots);
	for (i = 0; i < n; i++) {
		seen[i] = 0;
		for (j = 0; j < run->count; j++)
			if (run->held[j].obj == res[i].obj && run->held[j].site == res[i].acq)
				seen[i] = run->held[j].seen;
	}
	/* the watchdog timer of this CPU sees the old table or the new one */
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		run->held[i].obj = res[i].obj;
		run->held[i].site = res[i].acq;
		run->held[i].seen = seen[i];
	}
	if (n >= 0) {
		run->count = n;
		memcpy(run->sections, sections, sizeof(run->sections));
	} else if (!rtg_run_prog(run)->partly) {
		run->count = 0;
	}
	watch = rtg_run_judged(run) ? RTG_SAMPLE_WATCH : 0;
	if (watch != (run->sample & RTG_SAMPLE_WATCH))
		this_cpu_add(rtg_slow_acquire, watch ? 1 : -1);
	run->sample = watch;
	local_irq_restore(flags);
	/* asked by the watchdog: the only way here */
	rtg_slow_add(-1);
}
