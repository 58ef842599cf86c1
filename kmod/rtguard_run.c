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
 * before the interrupted run goes on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "rtguard.h"

#define RTG_SPIN_LOCK_SLOTS	1	/* a bpf_spin_lock, counted apart by the verifier */

/* struct rtg_run is the module's view of the run the JIT keeps */
#define RTG_RUN_AS_HOOK_RUN(rtg, hook)						\
	static_assert(offsetof(struct rtg_run, rtg) ==				\
		      offsetof(struct bpf_call_hook_run, hook))
RTG_RUN_AS_HOOK_RUN(prev, prev);
RTG_RUN_AS_HOOK_RUN(image, data);
RTG_RUN_AS_HOOK_RUN(start, start);
RTG_RUN_AS_HOOK_RUN(nslots, nslots);
RTG_RUN_AS_HOOK_RUN(count, top);
RTG_RUN_AS_HOOK_RUN(stop, exit_flags);
RTG_RUN_AS_HOOK_RUN(how, state);
RTG_RUN_AS_HOOK_RUN(fast_releases, scratch);
RTG_RUN_AS_HOOK_RUN(held, slot);
static_assert(offsetof(struct rtg_run, how) - offsetof(struct rtg_run, stop) ==
	      sizeof_field(struct bpf_call_hook_run, exit_flags));
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

/*
 * tracked programs so far, those described (no run-time table), and
 * their descriptions' bytes; rtg_progs_lock
 */
u64 rtg_held_progs;
u64 rtg_held_described_progs;
u64 rtg_held_bytes;
u32 rtg_held_bytes_max;

/**
 * rtg_prog_get() - the tracking state of a program, created on first use
 * @main: aux data of the main program
 *
 * Called at JIT time for every image of the program; the images share one
 * state, freed with rtg_prog_put() when the last image goes.
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
	tp->nslots = (main->call_hook_run_size - sizeof(struct rtg_run)) /
		     sizeof(struct rtg_held);
	tp->trace_only = main->call_hook_flags & RTG_TRACE_ONLY;
	tp->trace_runs = main->call_hook_flags &
			 (BPF_CALL_HOOK_EXIT_ON_FLAG | BPF_CALL_HOOK_RUNS_ON_FLAG);
	tp->described = !tp->trace_only && rtg_held_prog_described(main);
	refcount_set(&tp->images, 1);
	list_add_tail(&tp->node, &rtg_progs);
	if (tp->trace_only)
		goto out;
	/* the descriptions' memory, over every tracked program */
	rtg_held_progs++;
	rtg_held_described_progs += tp->described;
	rtg_held_bytes += main->held_descs_size;
	rtg_held_bytes_max = max(rtg_held_bytes_max, main->held_descs_size);
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

/**
 * rtg_run_exit() - a run of a tracked program returns
 * @ret: what the program returns
 * @run: the run area in the program's frame
 *
 * Called by the JIT compiled program from its epilogue, or before its
 * exception callback when it is left by bpf_throw() or the watchdog,
 * once the run is no longer the task's current one, and only when the
 * run was marked, could not record something, released something it did
 * not hold or returned with entries in its table; for a program in debug
 * mode, whenever a run returns (rtg_trace_run() records it).
 *
 * Return: what the program returns to its caller: @ret, or the value a
 * stopped run returns.
 */
u64 rtg_run_exit(u64 ret, struct rtg_run *run)
{
	struct rtg_prog *tp = rtg_run_prog(run);
	u32 held;

	/* a sample the watchdog asked for, and no call came to take */
	if (unlikely(run->sample))
		this_cpu_dec(rtg_slow);
	if (unlikely(run->stop))
		ret = rtg_watchdog_run_exit(run, ret);
	if (tp->trace_runs)
		rtg_trace_run(run, ret);
	/* bracketed only to be recorded: it holds nothing followed */
	if (tp->trace_only)
		return ret;
	/* what samples of a described run saw is no record of what it gave back */
	if (tp->described)
		return ret;
	if (unlikely(run->incomplete))
		rtg_report(tp, &tp->incomplete, 1,
			   "a run held more than its table records (not unwound)");
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
	if (unlikely(run->how == RTG_HOW_FAST))
		run->fast_releases++;
}

/*
 * A release that matched nothing held (@run's full table may not have
 * it). A described run's table has only what its hooks saw since its
 * calls last took the slow path: that is no error.
 */
static const struct rtg_site *rtg_run_unmatched(struct rtg_run *run)
{
	if (rtg_run_prog(run)->described)
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

static int rtg_prog_find_release_fn(struct rtg_prog *tp, const char *name,
				    size_t len)
{
	/* pairs with the release in rtg_prog_add_release_fn() */
	u32 n = smp_load_acquire(&tp->nr_release_fns), i;

	for (i = 0; i < n; i++)
		if (strlen(tp->release_fns[i].name) == len &&
		    !strncmp(tp->release_fns[i].name, name, len))
			return i;
	return -1;
}

/**
 * rtg_prog_add_release_fn() - remember a release function the program calls
 * @tp: the program's tracking state
 * @name: the function's name
 * @site: a call site of it, whose thunk reaches it
 *
 * Called at JIT time for each releasing call site.
 */
void rtg_prog_add_release_fn(struct rtg_prog *tp, const char *name,
			     const struct rtg_site *site)
{
	u32 n = tp->nr_release_fns;

	if (rtg_prog_find_release_fn(tp, name, strlen(name)) >= 0 ||
	    n >= RTG_MAX_RELEASE_FNS)
		return;
	strscpy(tp->release_fns[n].name, name);
	tp->release_fns[n].site = site;
	/* readers on the stop path see the entry before the count */
	smp_store_release(&tp->nr_release_fns, n + 1);
}

/**
 * rtg_prog_release_fn() - a release function the program calls, by name
 * @tp: the program's tracking state
 * @name: the name, not necessarily NUL-terminated
 * @len: its length
 *
 * Return: an entry point that reaches the function (a thunk in the
 * program's image, which starts with ENDBR), or NULL.
 */
void *rtg_prog_release_fn(struct rtg_prog *tp, const char *name, size_t len)
{
	int i = rtg_prog_find_release_fn(tp, name, len);

	return i < 0 ? NULL : READ_ONCE(tp->release_fns[i].site->thunk);
}

/**
 * rtg_prog_add_acq_site() - remember a call that acquires what a stop gives back
 * @tp: the program's tracking state
 * @site: the call site, with its stop release
 *
 * Called at JIT time; descriptions name resources by the call that
 * acquired them (&bpf_held_loc.acq_idx).
 */
void rtg_prog_add_acq_site(struct rtg_prog *tp, const struct rtg_site *site)
{
	u32 n = tp->nr_acq_sites;

	if (n >= RTG_MAX_ACQ_SITES)
		return;
	tp->acq_sites[n] = site;
	/* readers on the stop path see the entry before the count */
	smp_store_release(&tp->nr_acq_sites, n + 1);
}

/**
 * rtg_prog_acq_site() - an acquiring call of the program, by verified index
 * @tp: the program's tracking state
 * @verified_idx: &bpf_held_loc.acq_idx
 *
 * Return: the call site, or NULL when it is not one the watchdog knows.
 */
const struct rtg_site *rtg_prog_acq_site(struct rtg_prog *tp, u32 verified_idx)
{
	/* pairs with the release in rtg_prog_add_acq_site() */
	u32 n = smp_load_acquire(&tp->nr_acq_sites), i;

	for (i = 0; i < n; i++)
		if (tp->acq_sites[i]->verified_idx == verified_idx)
			return tp->acq_sites[i];
	return NULL;
}

/**
 * rtg_prog_acq_site_of() - an acquiring call of the program, by its release
 * @tp: the program's tracking state
 * @release: the name of the function the watchdog gives it back with
 *
 * Return: the first such call site, or NULL.
 */
const struct rtg_site *rtg_prog_acq_site_of(struct rtg_prog *tp, const char *release)
{
	/* pairs with the release in rtg_prog_add_acq_site() */
	u32 n = smp_load_acquire(&tp->nr_acq_sites), i;

	for (i = 0; i < n; i++)
		if (!strcmp(tp->acq_sites[i]->stop_release, release))
			return tp->acq_sites[i];
	return NULL;
}
