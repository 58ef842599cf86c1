// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: per-run tables of held resources.
 *
 * Each tracked program gets, when it is JIT compiled, a pool of run
 * tables: enough for one run per CPU and interrupt context level plus a
 * few for sleepable runs, each with room for the most references the
 * verifier saw the program hold at once plus the lock-like resources the
 * verifier counts apart (RCU read section, preemption, spin lock). Nothing
 * is allocated while a program runs.
 *
 * A run is identified by the context it runs in: the current task and the
 * interrupt context level, so a sleepable run keeps its table across CPUs
 * and a run in softirq context nested in a task-context run of the same
 * program gets its own. A run claims a table at its first acquisition and
 * gives it back when it holds nothing any more; only its own context
 * writes to it.
 */
#include <linux/cpumask.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "rtguard.h"

#define RTG_LOCK_SLOTS		10	/* RCU + spin lock + nested preempt_disable */
#define RTG_SLEEPABLE_RUNS	16	/* runs beyond one per CPU and context */

/* serialises changes to rtg_progs (read under RCU by the watchdog timer) */
DEFINE_MUTEX(rtg_progs_lock);
LIST_HEAD(rtg_progs);

/**
 * rtg_run_at() - run table @i of a program's pool
 * @tp: the program's tracking state
 * @i: index, below @tp->nruns
 *
 * Return: the run table.
 */
struct rtg_run *rtg_run_at(const struct rtg_prog *tp, u32 i)
{
	return (struct rtg_run *)((char *)tp->runs + (size_t)i * tp->run_size);
}

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
	tp = kzalloc(sizeof(*tp), GFP_KERNEL);
	if (!tp) {
		tp = ERR_PTR(-ENOMEM);
		goto out;
	}
	tp->main = main;
	tp->nslots = main->max_acquired_refs + RTG_LOCK_SLOTS;
	tp->nruns = num_possible_cpus() * 4 + RTG_SLEEPABLE_RUNS;
	tp->run_size = struct_size_t(struct rtg_run, held, tp->nslots);
	tp->runs = kvcalloc(tp->nruns, tp->run_size, GFP_KERNEL);
	tp->owners = kcalloc(tp->nruns, sizeof(*tp->owners), GFP_KERNEL);
	tp->hint = alloc_percpu(u32);
	if (!tp->runs || !tp->owners || !tp->hint) {
		kvfree(tp->runs);
		kfree(tp->owners);
		free_percpu(tp->hint);
		kfree(tp);
		tp = ERR_PTR(-ENOMEM);
		goto out;
	}
	refcount_set(&tp->images, 1);
	list_add_tail_rcu(&tp->node, &rtg_progs);
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
	list_del_rcu(&tp->node);
	mutex_unlock(&rtg_progs_lock);
	synchronize_rcu();	/* the watchdog timer walks rtg_progs under RCU */
	kvfree(tp->runs);
	kfree(tp->owners);
	free_percpu(tp->hint);
	kfree(tp);
}

/**
 * rtg_run_key() - the context a run is identified by
 *
 * Return: the current task with the interrupt context level in its low bits.
 */
unsigned long rtg_run_key(void)
{
	/* task_struct is cache-line aligned: the low bits are free */
	return (unsigned long)current | interrupt_context_level();
}

/**
 * rtg_run_find() - the table a context owns
 * @tp: the program's tracking state
 * @key: the context, from rtg_run_key()
 *
 * Return: the table's index, or -1.
 */
int rtg_run_find(struct rtg_prog *tp, unsigned long key)
{
	u32 i = this_cpu_read(*tp->hint);

	/* usually the table this CPU used last */
	if (i < tp->nruns && READ_ONCE(tp->owners[i]) == key)
		return i;
	for (i = 0; i < tp->nruns; i++) {
		if (READ_ONCE(tp->owners[i]) == key) {
			this_cpu_write(*tp->hint, i);
			return i;
		}
	}
	return -1;
}

static void rtg_report(struct rtg_prog *tp, atomic_long_t *counter,
		       const char *what)
{
	if (atomic_long_inc_return(counter) == 1)
		pr_warn_ratelimited("bpf_rtguard: prog %u %s: %s\n", tp->main->id,
				    tp->main->name, what);
}

/**
 * rtg_run_push() - record that the current run of a program holds @obj
 * @tp: the program's tracking state
 * @site: the acquiring call site
 * @obj: the object, iterator or lock now held
 *
 * Return: the run's table, or NULL when the pool or the table is full
 * (counted, and reported once).
 */
struct rtg_run *rtg_run_push(struct rtg_prog *tp, const struct rtg_site *site,
			     u64 obj)
{
	unsigned long key = rtg_run_key();
	int i = rtg_run_find(tp, key);
	struct rtg_run *run;
	struct rtg_held *h;

	if (i < 0) {
		u32 first = this_cpu_read(*tp->hint), n;

		/* claim a free table, trying this CPU's last one first */
		for (n = 0; n < tp->nruns; n++) {
			unsigned long free = 0;

			i = (first + n) % tp->nruns;
			if (!READ_ONCE(tp->owners[i]) &&
			    try_cmpxchg(&tp->owners[i], &free, key))
				break;
		}
		if (n == tp->nruns) {
			rtg_report(tp, &tp->pool_exhausted, "no free run table");
			return NULL;
		}
		this_cpu_write(*tp->hint, i);
		run = rtg_run_at(tp, i);
		run->count = 0;
		run->fast = false;
		/* a stop meant for the table's last owner is void */
		if (xchg(&run->stop, 0))
			atomic_dec(&rtg_stops_pending);
		run->start_ns = ktime_get_mono_fast_ns();
	} else {
		run = rtg_run_at(tp, i);
	}
	if (run->count >= tp->nslots) {
		rtg_report(tp, &tp->pool_exhausted, "run table full");
		return NULL;
	}
	h = &run->held[run->count];
	h->obj = obj;
	h->site = site;
	h->since_ns = ktime_get_mono_fast_ns();
	/* visible to debugfs readers only once filled in */
	smp_store_release(&run->count, run->count + 1);
	return run;
}

/**
 * rtg_run_pop() - record that the current run gave @obj back
 * @tp: the program's tracking state
 * @obj: the object, iterator or lock released
 * @acquired: set to the site that acquired it
 *
 * The most recent entry for @obj goes; the order of the others is kept.
 * The run's table is freed when it holds nothing any more.
 *
 * Return: true, or false for a release that matches nothing held (counted,
 * and reported once).
 */
bool rtg_run_pop(struct rtg_prog *tp, u64 obj, const struct rtg_site **acquired)
{
	int idx = rtg_run_find(tp, rtg_run_key());
	struct rtg_run *run = idx < 0 ? NULL : rtg_run_at(tp, idx);
	int i;

	for (i = run ? (int)run->count - 1 : -1; i >= 0; i--)
		if (run->held[i].obj == obj)
			break;
	if (i < 0) {
		rtg_report(tp, &tp->unmatched, "release of something the run does not hold");
		return false;
	}
	*acquired = run->held[i].site;
	if (run->fast)
		run->fast_pops++;
	memmove(&run->held[i], &run->held[i + 1],
		(run->count - i - 1) * sizeof(run->held[0]));
	/* debugfs readers see the shifted entries before the new count */
	smp_store_release(&run->count, run->count - 1);
	if (!run->count) {
		if (READ_ONCE(run->stop))
			rtg_watchdog_run_done(tp, run);
		/* the empty table is seen before the run is free again */
		smp_store_release(&tp->owners[idx], 0);
	}
	return true;
}

/**
 * rtg_prog_add_release_fn() - remember a release function the program calls
 * @tp: the program's tracking state
 * @name: the function's name
 * @func: its address
 *
 * Called at JIT time for each releasing call site.
 */
void rtg_prog_add_release_fn(struct rtg_prog *tp, const char *name, void *func)
{
	u32 n = tp->nr_release_fns;

	if (rtg_prog_release_fn(tp, name, strlen(name)) || n >= RTG_MAX_RELEASE_FNS)
		return;
	strscpy(tp->release_fns[n].name, name);
	tp->release_fns[n].func = func;
	/* readers on the stop path see the entry before the count */
	smp_store_release(&tp->nr_release_fns, n + 1);
}

/**
 * rtg_prog_release_fn() - a release function the program calls, by name
 * @tp: the program's tracking state
 * @name: the name, not necessarily NUL-terminated
 * @len: its length
 *
 * Return: the function's address, or NULL.
 */
void *rtg_prog_release_fn(struct rtg_prog *tp, const char *name, size_t len)
{
	/* pairs with the release in rtg_prog_add_release_fn() */
	u32 n = smp_load_acquire(&tp->nr_release_fns), i;

	for (i = 0; i < n; i++)
		if (strlen(tp->release_fns[i].name) == len &&
		    !strncmp(tp->release_fns[i].name, name, len))
			return tp->release_fns[i].func;
	return NULL;
}
