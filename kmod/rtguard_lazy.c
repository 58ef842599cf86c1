// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: lazy runs, adopted outside their frames.
 *
 * The runs of a described program are lazy (BPF_CALL_HOOK_RUN_LAZY): the
 * JIT counts them in their CPU's word and keeps the low half of the TSC
 * at their entry: in their CPU's lazy_start for a program that does not
 * sleep, whose runs keep nothing in their frames (BPF_CALL_HOOK_LAZY_CPU);
 * in 8 bytes of the frame of one that may
 * (BPF_CALL_HOOK_LAZY_RUN_SIZE). The module adopts such a run when it
 * first needs it, from a hook of the run or from the watchdog timer that
 * interrupted it, on the run's own CPU: it takes a struct rtg_lazy_run
 * from that CPU's pool, fills in its run and makes that the task's
 * current run, and makes the run's exit call the module: it marks the
 * run's area, whose exit then calls rtg_run_exit(), or counts the run in
 * its CPU's lazy_exits, whose lazy runs then call rtg_run_exit_lazy() as
 * they exit. Either gives the record back.
 *
 * A CPU's pool is a lock-free list: records are taken with interrupts
 * off, and an NMI that finds the CPU taking one takes none (the run is
 * adopted later); they are given back from any context. A pool below
 * RTG_LAZY_LOW records is refilled by an irq_work on its CPU (adoption
 * may happen in NMI), with memory that need not wait, and from process
 * context when there is none; a run that finds its CPU's pool empty is
 * adopted by a later tick or call once the pool has grown. Records are
 * never freed while the module is loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "rtguard.h"
#include "rtguard_lazy.h"

/* a lazy run's exit flags once adopted: no run in a frame has this stop */
#define RTG_LAZY_ADOPTED	U32_MAX

/* entries of a record's table: lazy programs are bare, their tables samples */
#define RTG_LAZY_SLOTS	RTG_SAMPLE_SLOTS

/**
 * struct rtg_lazy_run - a lazy run, adopted
 * @free: entry in its CPU's pool while not in use
 * @area: the run area in the run's frame; with BPF_CALL_HOOK_LAZY_CPU,
 *	the address of the empty area, which only names the run
 * @run: the run (followed by RTG_LAZY_SLOTS entries of its table)
 */
struct rtg_lazy_run {
	struct llist_node free;
	struct bpf_call_hook_run *area;
	struct rtg_run run;
};

#define RTG_LAZY_SIZE	(sizeof(struct rtg_lazy_run) + \
			 RTG_LAZY_SLOTS * sizeof(struct rtg_held))
/* records per chunk, which the pools are filled with (a page each) */
#define RTG_LAZY_PER_CHUNK ((PAGE_SIZE - sizeof(struct rtg_lazy_chunk)) / RTG_LAZY_SIZE)
/* a pool with fewer free records is refilled with this many chunks */
#define RTG_LAZY_LOW	4
#define RTG_LAZY_REFILL	2

/**
 * struct rtg_lazy_chunk - a page of records
 * @node: entry in rtg_lazy_chunks
 * @recs: the records, RTG_LAZY_PER_CHUNK of RTG_LAZY_SIZE bytes
 */
struct rtg_lazy_chunk {
	struct list_head node;
	u8 recs[];
};

/**
 * struct rtg_lazy_pool - a CPU's free records
 * @free: the records
 * @nr_free: how many
 * @busy: this CPU is taking one (an NMI then takes none)
 * @refill: refills the pool, asked from any context
 */
struct rtg_lazy_pool {
	struct llist_head free;
	atomic_t nr_free;
	int busy;
	struct irq_work refill;
};

DEFINE_PER_CPU(struct bpf_call_hook_cpu, rtg_watch_cpu);

static DEFINE_PER_CPU(struct rtg_lazy_pool, rtg_lazy_pool);
/* every chunk, appended by the refills, freed at module exit */
static LIST_HEAD(rtg_lazy_chunks);
static DEFINE_SPINLOCK(rtg_lazy_chunks_lock);
static atomic_long_t rtg_lazy_records;
/* adoptions that found their CPU's pool empty or busy */
static atomic_long_t rtg_lazy_deferred;
/* the next this many adoptions fail as if the pool were empty (debugfs) */
static atomic_t rtg_lazy_fail_next;

static struct rtg_lazy_run *rtg_lazy_of(struct rtg_run *run)
{
	return container_of(run, struct rtg_lazy_run, run);
}

/* Whether the runs of @tp keep nothing in their frames. */
static bool rtg_lazy_cpu(const struct rtg_prog *tp)
{
	return tp->main->call_hook_flags & BPF_CALL_HOOK_LAZY_CPU;
}

/**
 * rtg_lazy_run_cpu() - the adopted run of a lazy run that keeps nothing
 *	in its frame
 * @area: the address of the run's empty area, which names it
 *
 * Called on the run's CPU while its program is the innermost one on its
 * task (from its hooks, the timer that interrupted it, or its exit):
 * an adopted run is then its task's current one.
 *
 * Return: the run, current, when the module adopted it, else NULL.
 */
struct rtg_run *rtg_lazy_run_cpu(struct bpf_call_hook_run *area)
{
	struct rtg_run *run = rtg_task_run(current);

	if (run && rtg_prog_lazy(rtg_run_prog(run)) && rtg_lazy_of(run)->area == area)
		return run;
	return NULL;
}

/*
 * Whether the run of @area, of @tp, in flight on this CPU with @tp the
 * innermost program on its task, has been adopted
 */
static bool rtg_lazy_adopted(struct bpf_call_hook_run *area, const struct rtg_prog *tp)
{
	if (rtg_lazy_cpu(tp))
		return rtg_lazy_run_cpu(area);
	return READ_ONCE(area->exit_flags) == RTG_LAZY_ADOPTED;
}

/* Give @n pages of records to @cpu's pool; false when memory ran out. */
static bool rtg_lazy_fill(int cpu, int n, gfp_t gfp)
{
	struct rtg_lazy_pool *pool = per_cpu_ptr(&rtg_lazy_pool, cpu);
	struct rtg_lazy_chunk *chunk;
	unsigned long flags;
	int i;

	for (; n > 0; n--) {
		chunk = kzalloc(PAGE_SIZE, gfp);
		if (!chunk)
			return false;
		spin_lock_irqsave(&rtg_lazy_chunks_lock, flags);
		list_add_tail_rcu(&chunk->node, &rtg_lazy_chunks);
		spin_unlock_irqrestore(&rtg_lazy_chunks_lock, flags);
		for (i = 0; i < RTG_LAZY_PER_CHUNK; i++) {
			struct rtg_lazy_run *l = (void *)&chunk->recs[i * RTG_LAZY_SIZE];

			llist_add(&l->free, &pool->free);
			atomic_inc(&pool->nr_free);
		}
		atomic_long_add(RTG_LAZY_PER_CHUNK, &rtg_lazy_records);
	}
	return true;
}

/* Whether @cpu's pool needs more records */
static bool rtg_lazy_low(int cpu)
{
	return atomic_read(&per_cpu(rtg_lazy_pool.nr_free, cpu)) < RTG_LAZY_LOW;
}

/* Refills from process context what the irq_work could not. */
static void rtg_lazy_refill_fn(struct work_struct *work)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (rtg_lazy_low(cpu) && !rtg_lazy_fill(cpu, RTG_LAZY_REFILL, GFP_KERNEL))
			return;
}

static DECLARE_WORK(rtg_lazy_refill_work, rtg_lazy_refill_fn);

/* Refills this CPU's pool right after an adoption found it low. */
static void rtg_lazy_refill_irq(struct irq_work *work)
{
	int cpu = smp_processor_id();

	if (rtg_lazy_low(cpu) &&
	    !rtg_lazy_fill(cpu, RTG_LAZY_REFILL, GFP_NOWAIT | __GFP_NOWARN))
		schedule_work(&rtg_lazy_refill_work);
}

/* A free record of this CPU's pool, or NULL. Interrupts are off. */
static struct rtg_lazy_run *rtg_lazy_take(void)
{
	struct rtg_lazy_pool *pool = this_cpu_ptr(&rtg_lazy_pool);
	struct llist_node *node = NULL;

	if (atomic_read(&rtg_lazy_fail_next) > 0 &&
	    atomic_dec_if_positive(&rtg_lazy_fail_next) >= 0)
		goto deferred;
	/* the only consumer of the list: an NMI in here takes nothing */
	if (this_cpu_inc_return(rtg_lazy_pool.busy) == 1)
		node = llist_del_first(&pool->free);
	this_cpu_dec(rtg_lazy_pool.busy);
	if (node && atomic_dec_return(&pool->nr_free) >= RTG_LAZY_LOW)
		return container_of(node, struct rtg_lazy_run, free);
	irq_work_queue(&pool->refill);
	if (node)
		return container_of(node, struct rtg_lazy_run, free);
deferred:
	atomic_long_inc(&rtg_lazy_deferred);
	return NULL;
}

/**
 * rtg_lazy_adopt() - the run of a lazy run area, adopted
 * @area: the run area of a run of a lazy program (rtg_prog_lazy()) in
 *	flight on this CPU: the run a hook of it is called for, or the run
 *	the watchdog timer of this CPU interrupted
 * @tp: its program's tracking state
 *
 * Once, on the run's own CPU: fills in a record with what the JIT left
 * out at the run's entry: its start, from the low half of the TSC its
 * entry kept, or for a run that keeps nothing in its frame the latest
 * one kept by such a run's entry on this CPU, which is no earlier (a run
 * adopted 2^32 cycles or more after its entry, or read from a later
 * entry, is taken for younger than it is: charged less, never more;
 * since such a program does not sleep, at most one tick less, see
 * rtg_run_charge()), its image, an empty
 * table, no state; and makes it current (the runs it interrupted or was
 * called from are adopted or not, but have all begun before it and return
 * after it, so an adopted run is its task's current run while its
 * program is the innermost one). Interrupts are off: the timer of this
 * CPU adopts too.
 *
 * Return: the run, or NULL while this CPU's pool has no record for it (a
 * later tick or call adopts it).
 */
struct rtg_run *rtg_lazy_adopt(struct bpf_call_hook_run *area, struct rtg_prog *tp)
{
	struct rtg_lazy_run *l;
	struct rtg_run *run;
	unsigned long flags;
	u64 now;

	/* adopted only here, on the run's own CPU, with interrupts off */
	if (rtg_lazy_adopted(area, tp))
		goto adopted;
	local_irq_save(flags);
	/* the watchdog timer may have adopted it since */
	if (rtg_lazy_adopted(area, tp)) {
		local_irq_restore(flags);
		goto adopted;
	}
	l = rtg_lazy_take();
	if (!l) {
		local_irq_restore(flags);
		return NULL;
	}
	run = &l->run;
	now = rtg_clock();
	l->area = area;
	memset(run, 0, sizeof(*run));
	if (rtg_lazy_cpu(tp))
		run->start = now - (u32)((u32)now - __this_cpu_read(rtg_watch_cpu.lazy_start));
	else
		run->start = now - (u32)((u32)now - area->top);
	run->image = (struct rtg_image *)tp->main_image;
	run->nslots = min_t(u32, tp->nslots, RTG_LAZY_SLOTS);
	run->prev = rtg_task_run(current);
	this_cpu_sub(rtg_watch_cpu.runs, RTG_RUNS_ONE_LAZY);
	if (rtg_lazy_cpu(tp))
		this_cpu_inc(rtg_watch_cpu.lazy_exits);
	else
		WRITE_ONCE(area->exit_flags, RTG_LAZY_ADOPTED);
	WRITE_ONCE(current->bpf_hook_run, (struct bpf_call_hook_run *)run);
	local_irq_restore(flags);
	return run;
adopted:
	if (rtg_lazy_cpu(tp))
		return rtg_lazy_run_cpu(area);
	run = rtg_lazy_run_of(area);
	return IS_ERR(run) ? NULL : run;
}

/**
 * rtg_lazy_run_of() - the adopted run of a lazy run area
 * @area: a run area whose exit flags its run's exit found set
 *
 * Return: its run, the current one; NULL when @area is not the area of a
 * lazy run the module adopted (it is then a run in its frame); or
 * ERR_PTR(-ESRCH), after a warning, when the task's current run is not
 * the one adopted from @area, which nothing is then done with.
 */
struct rtg_run *rtg_lazy_run_of(struct bpf_call_hook_run *area)
{
	struct rtg_run *run = rtg_task_run(current);

	if (READ_ONCE(area->exit_flags) != RTG_LAZY_ADOPTED)
		return NULL;
	if (WARN_ONCE(!run || !rtg_prog_lazy(rtg_run_prog(run)) ||
		      rtg_lazy_of(run)->area != area,
		      "adopted lazy run is not its task's current run\n"))
		return ERR_PTR(-ESRCH);
	return run;
}

/**
 * rtg_lazy_give_up() - a lazy run returns
 * @run: the run, adopted, its task's current one
 *
 * Makes the run it nested on current again: the JIT's exit then counts
 * it out as a lazy run not adopted. Its record stays the caller's until
 * rtg_lazy_free().
 */
void rtg_lazy_give_up(struct rtg_run *run)
{
	WRITE_ONCE(current->bpf_hook_run, (struct bpf_call_hook_run *)run->prev);
	if (rtg_lazy_cpu(rtg_run_prog(run)))
		this_cpu_dec(rtg_watch_cpu.lazy_exits);
	this_cpu_add(rtg_watch_cpu.runs, RTG_RUNS_ONE_LAZY);
}

/**
 * rtg_lazy_free() - give a lazy run's record back to this CPU's pool
 * @run: a run rtg_lazy_give_up() gave up
 */
void rtg_lazy_free(struct rtg_run *run)
{
	struct rtg_lazy_pool *pool = this_cpu_ptr(&rtg_lazy_pool);
	struct rtg_lazy_run *l = rtg_lazy_of(run);

	l->area = NULL;
	llist_add(&l->free, &pool->free);
	atomic_inc(&pool->nr_free);
}

/**
 * rtg_run_area() - the run area of a run in its frame
 * @run: a run in flight
 *
 * Return: @run itself, or for a lazy run the area the module adopted it
 * from.
 */
struct bpf_call_hook_run *rtg_run_area(struct rtg_run *run)
{
	if (rtg_prog_lazy(rtg_run_prog(run)))
		return rtg_lazy_of(run)->area;
	return (struct bpf_call_hook_run *)run;
}

/**
 * rtg_lazy_run_bytes() - whether @addr may be an adopted lazy run
 * @addr: an address read from a task's runs
 *
 * Return: the bytes of a record from @addr on, when @addr is the run of
 * one of the module's records (which may be free, or another run's, by
 * the time it is read), else 0.
 */
size_t rtg_lazy_run_bytes(const void *addr)
{
	const size_t run_off = offsetof(struct rtg_lazy_run, run);
	struct rtg_lazy_chunk *chunk;
	unsigned long off;
	size_t bytes = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(chunk, &rtg_lazy_chunks, node) {
		off = (unsigned long)addr - (unsigned long)chunk->recs;
		if (off < RTG_LAZY_PER_CHUNK * RTG_LAZY_SIZE &&
		    off % RTG_LAZY_SIZE == run_off) {
			bytes = RTG_LAZY_SIZE - run_off;
			break;
		}
	}
	rcu_read_unlock();
	return bytes;
}

/**
 * rtg_lazy_stats() - the records' counters, for debugfs
 * @m: the file
 */
void rtg_lazy_stats(struct seq_file *m)
{
	long free = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		free += atomic_read(&per_cpu(rtg_lazy_pool.nr_free, cpu));
	seq_printf(m, "lazy_records: %ld\nlazy_records_in_use: %ld\nlazy_adoptions_deferred: %ld\n",
		   atomic_long_read(&rtg_lazy_records),
		   atomic_long_read(&rtg_lazy_records) - free,
		   atomic_long_read(&rtg_lazy_deferred));
}

/**
 * rtg_lazy_fail() - make the next adoptions find no record
 * @n: how many
 *
 * For tests: what a run does while its CPU's pool is empty.
 */
void rtg_lazy_fail(int n)
{
	atomic_set(&rtg_lazy_fail_next, n);
}

/**
 * rtg_lazy_init() - fill each CPU's pool
 *
 * Return: 0, or -ENOMEM.
 */
int rtg_lazy_init(void)
{
	int cpu;

	BUILD_BUG_ON(RTG_LAZY_PER_CHUNK < 1);
	for_each_possible_cpu(cpu) {
		init_llist_head(per_cpu_ptr(&rtg_lazy_pool.free, cpu));
		init_irq_work(per_cpu_ptr(&rtg_lazy_pool.refill, cpu), rtg_lazy_refill_irq);
	}
	for_each_possible_cpu(cpu) {
		if (!rtg_lazy_fill(cpu, RTG_LAZY_REFILL, GFP_KERNEL)) {
			rtg_lazy_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * rtg_lazy_exit() - free every record
 *
 * Called once no program can run the module's code: no run is in flight.
 */
void rtg_lazy_exit(void)
{
	struct rtg_lazy_chunk *chunk, *tmp;
	long free = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		irq_work_sync(per_cpu_ptr(&rtg_lazy_pool.refill, cpu));
		free += atomic_read(&per_cpu(rtg_lazy_pool.nr_free, cpu));
	}
	cancel_work_sync(&rtg_lazy_refill_work);
	WARN_ONCE(free != atomic_long_read(&rtg_lazy_records),
		  "%ld lazy runs in flight at exit\n", atomic_long_read(&rtg_lazy_records) - free);
	/* readers of the chunks list (debugfs) are gone by now */
	list_for_each_entry_safe(chunk, tmp, &rtg_lazy_chunks, node) {
		list_del(&chunk->node);
		kfree(chunk);
	}
	atomic_long_set(&rtg_lazy_records, 0);
}
