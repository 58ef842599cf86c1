// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debugfs files.
 *
 *   bpf_rtguard/calls   one line per hooked call site:
 *                       prog ID NAME: insn= count= func=FUNCTION [module]
 *   bpf_rtguard/progs   one line per hooked program image:
 *                       prog ID NAME: func_idx= sites= max_refs= debug_mode=
 *                       held_bytes= (the verifier's held-set descriptions)
 *
 *   bpf_rtguard/sites   one line per traced call site (debug mode), what
 *                       a rtg_call record's site number stands for
 *   bpf_rtguard/held    each tracked program, then every run in flight and
 *                       what it holds
 *   bpf_rtguard/descriptions
 *                       what the verifier says each call of a tracked
 *                       program holds (rtguard_held.c has the format)
 *
 * The pairing tables add pairing, unpaired and kfuncs (rtguard_pairing.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bpf_call_hook.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "rtguard.h"
#include "rtguard_debugfs.h"
#include "rtguard_image.h"
#include "rtguard_lazy.h"
#include "rtguard_run.h"
#include "rtguard_slow.h"

struct dentry *rtg_debugfs_dir;

/*
 * What a site calls, as kallsyms names it; a BPF function of the program,
 * whose address no site keeps, by its BTF name.
 */
static void rtg_site_func_name(const struct rtg_site *site, char *buf, size_t len)
{
	if (site->flags & RTG_SITE_BPF_FUNC)
		strscpy(buf, site->names ? site->names->func : "-", len);
	else
		snprintf(buf, len, "%ps", site->func);
}

static int rtg_calls_show(struct seq_file *m, void *v)
{
	char func[KSYM_SYMBOL_LEN];
	struct rtg_image *image;
	u32 i;

	seq_puts(m, "# prog ID NAME: insn=INSN count=CALLS may_fail=0|1 func=FUNCTION\n");
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node) {
		struct bpf_prog_aux *main = rtg_main_aux(image);

		for (i = 0; i < image->nr_sites; i++) {
			const struct rtg_site *site = &image->sites[i];

			rtg_site_func_name(site, func, sizeof(func));
			seq_printf(m, "prog %u %s: insn=%u count=%llu may_fail=%d func=%s\n",
				   main->id, main->name[0] ? main->name : "-",
				   site->insn_idx, rtg_site_count(site),
				   !!(site->flags & RTG_SITE_SKIP), func);
		}
	}
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_calls);

static int rtg_progs_show(struct seq_file *m, void *v)
{
	struct rtg_image *image;

	seq_puts(m, "# prog ID NAME: func_idx=N sites=N max_refs=N debug_mode=0|1 held_bytes=N\n");
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node) {
		struct bpf_prog_aux *main = rtg_main_aux(image);

		seq_printf(m, "prog %u %s: func_idx=%u sites=%u max_refs=%u debug_mode=%d held_bytes=%u\n",
			   main->id,
			   main->name[0] ? main->name : "-",
			   image->aux->func_idx, image->nr_sites,
			   main->max_acquired_refs, main->debug_mode,
			   main->held_descs_size);
	}
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_progs);

/* A traced site's names: what the program calls, its map, a helper's prototype. */
static void rtg_site_names_show(struct seq_file *m, const struct rtg_site *site)
{
	const struct rtg_call_names *n = site->names;

	u8 i;

	if (!n) {
		seq_puts(m, " call=- map=- map_type=- args=- proto=-\n");
		return;
	}
	seq_printf(m, " call=%s map=%s map_type=%s args=", n->func, n->map[0] ? n->map : "-",
		   n->map[0] ? n->map_type : "-");
	for (i = 0; i < site->nr_args; i++)
		seq_printf(m, "%s%s", i ? "," : "", n->arg[i][0] ? n->arg[i] : "-");
	if (!site->nr_args)
		seq_putc(m, '-');
	if (n->proto)
		seq_printf(m, " proto=%s(%s)\n", n->proto->ret, n->proto->params);
	else
		seq_puts(m, " proto=-\n");
}

/*
 * The sites of traced images, for readers of rtg_call records: what a
 * record's site number stands for: fidx is the program's BPF function the
 * call is in (its func_info index; the JIT compiles each apart, and
 * constant blinding moves a call's insn but not its function). The
 * function is named as kallsyms names it (a BPF function of the program,
 * kind=func, by its BTF name), the module "-" for a function of vmlinux;
 * id is the helper's number or the kfunc's or BPF function's BTF id; the
 * masks have bit n set for argument n; call is the helper or kfunc the
 * program calls (for a helper the verifier
 * turned into a map type's function, the helper), map the map a map
 * helper is called with, args the names of its arguments ("-" for one
 * not known), proto a helper's prototype as the kernel's UAPI
 * header documents it. A program whose runs are recorded has a line of
 * kind=run: the number its run records carry. The sites of programs
 * freed lately stay listed, with prog=0 (rtg_image_retire()).
 */
/* The traced sites of one image; @prog_id 0 once the program is gone. */
static void rtg_image_sites_show(struct seq_file *m, const struct rtg_image *image,
				 u32 prog_id)
{
	char func[KSYM_SYMBOL_LEN];
	u32 i;

	/* the number the records of its runs carry */
	if (image->run_id)
		seq_printf(m, "site=%u prog=%u name=%s insn=0 fidx=0 func=- module=- kind=run id=0 nargs=0 ptr=0 signed=0 int32=0 ret_size=8 ret_ptr=0 ret_signed=1 may_be_null=0 call=- map=- map_type=- args=- proto=-\n",
			   image->run_id, prog_id, image->prog_name);
	for (i = 0; i < image->nr_sites; i++) {
		const struct rtg_site *site = &image->sites[i];
		char *mod;

		if (!(site->flags & RTG_SITE_TRACE))
			continue;
		rtg_site_func_name(site, func, sizeof(func));
		mod = strstr(func, " [");
		if (mod) {
			*mod = 0;
			mod += 2;
			mod[strcspn(mod, "]")] = 0;
		}
		seq_printf(m, "site=%u prog=%u name=%s insn=%u fidx=%u func=%s module=%s kind=%s id=%u nargs=%u ptr=%#x signed=%#x int32=%#x ret_size=%u ret_ptr=%d ret_signed=%d may_be_null=%d",
			   site->trace_id, prog_id, image->prog_name,
			   site->insn_idx, image->func_idx, func, mod ?: "-",
			   site->flags & RTG_SITE_KFUNC ? "kfunc" :
			   site->flags & RTG_SITE_BPF_FUNC ? "func" :
			   site->func_id ? "helper" : "unknown",
			   site->func_id, site->nr_args, site->arg_is_ptr,
			   site->arg_is_signed, site->arg_is_32bit,
			   site->ret_size, !!(site->flags & RTG_SITE_RET_PTR),
			   !!(site->flags & RTG_SITE_RET_SIGNED),
			   !!(site->flags & RTG_SITE_MAY_FAIL));
		rtg_site_names_show(m, site);
	}
}

static int rtg_sites_show(struct seq_file *m, void *v)
{
	struct rtg_image *image;

	seq_puts(m, "# site=N prog=ID name=NAME insn=N fidx=N func=FUNCTION module=MODULE kind=helper|kfunc|func|unknown|run id=N nargs=N ptr=MASK signed=MASK int32=MASK ret_size=BYTES ret_ptr=0|1 ret_signed=0|1 may_be_null=0|1 call=NAME map=NAME|- map_type=TYPE|- args=NAME,...|- proto=RESULT(PARAMETERS)|-\n");
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node)
		rtg_image_sites_show(m, image, rtg_main_aux(image)->id);
	/* programs freed lately, whose records readers may still hold */
	list_for_each_entry(image, &rtg_retired, node)
		rtg_image_sites_show(m, image, 0);
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_sites);

/*
 * Runs in flight live in other tasks' stack frames and may end while
 * they are read: every read goes through copy_from_kernel_nofault(), a
 * record must lie in its task's stack, and nothing read from it is
 * dereferenced unless it is known live (the program being listed, a site
 * of an image not yet freed). Runs in interrupt context (on interrupt stacks)
 * are counted, not listed.
 */
static void rtg_held_show_task(struct seq_file *m, struct task_struct *t,
			       const struct rtg_prog *tp, u32 *in_irq)
{
	unsigned long stack = (unsigned long)task_stack_page(t), hi;
	struct rtg_run *addr = rtg_task_run(t);
	struct rtg_held held[8];
	struct rtg_run run;
	int depth;

	for (depth = 0; addr && depth < 16; depth++, addr = run.prev) {
		u64 now = local_clock();	/* another CPU's: close enough to show */
		size_t rec = rtg_lazy_run_bytes(addr);
		u32 i, n;

		/* an adopted lazy run is in a record of the module's */
		hi = rec ? (unsigned long)addr + rec : stack + THREAD_SIZE;
		if (!rec && ((unsigned long)addr < stack ||
			     (unsigned long)addr + sizeof(run) > hi)) {
			if (in_irq)
				(*in_irq)++;
			return;
		}
		if (copy_from_kernel_nofault(&run, addr, sizeof(run)))
			return;
		if (run.image != tp->main_image)
			continue;
		n = min(run.count, run.nslots);
		seq_printf(m, "  run pid=%d age_us=%llu top=%u stop=%s incomplete=%u rcu=%u preempt=%u\n",
			   task_pid_nr(t), rtg_run_age_ns(&run, now) / NSEC_PER_USEC, n,
			   rtg_stop_reason_name(run.stop),
			   run.incomplete, run.sections[RTG_SECTION_RCU],
			   run.sections[RTG_SECTION_PREEMPT]);
		for (i = 0; i < n; i++) {
			struct rtg_held *h = &held[i % ARRAY_SIZE(held)];

			if (i % ARRAY_SIZE(held) == 0 &&
			    ((unsigned long)&addr->held[min(n, i + 8)] > hi ||
			     copy_from_kernel_nofault(held, &addr->held[i],
						      min_t(u32, n - i, 8) * sizeof(*h))))
				break;
			if (!h->obj || !rtg_site_is_live(h->site) || rtg_held_is_clone(h))
				continue;
			seq_printf(m, "    obj=%#llx func=%ps release=%s insn=%u",
				   h->obj, h->site->func,
				   h->site->stop_slot ? h->site->stop_slot->name : "-",
				   h->site->insn_idx);
			/* in the time the watchdog charged the run */
			if (h->seen && run.clock && run.charged_us + 1ULL >= h->seen)
				seq_printf(m, " held_us=%llu\n", run.charged_us + 1ULL - h->seen);
			else
				seq_puts(m, " held_us=-\n");
		}
	}
}

static int rtg_held_show(struct seq_file *m, void *v)
{
	struct task_struct *g, *t;
	struct rtg_prog *tp;
	u32 in_irq = 0, lazy = 0, lazy_exits = 0;
	int cpu;
	bool first = true;

	seq_puts(m, "# prog ID NAME: counters\n"
		 "#   run pid=PID age_us=US top=N stop=REASON incomplete=0|1 rcu=DEPTH preempt=DEPTH\n"
		 "#     obj=OBJ func=ACQUIRED_BY release=CALL insn=SITE held_us=US\n");
	mutex_lock(&rtg_images_lock);
	mutex_lock(&rtg_progs_lock);
	list_for_each_entry(tp, &rtg_progs, node) {
		seq_printf(m, "prog %u %s: slots=%u incomplete=%ld unmatched=%ld leftover=%ld stray=%ld stops=%ld released=%ld reported=%ld stoppable=%d stop_ret=%lld unwind=%d described=%d partly=%d lazy=%d bare=%d run_area=%u\n",
			   tp->main->id, tp->main->name[0] ? tp->main->name : "-",
			   tp->nslots, atomic_long_read(&tp->incomplete),
			   atomic_long_read(&tp->unmatched),
			   atomic_long_read(&tp->leftover),
			   atomic_long_read(&tp->stray),
			   atomic_long_read(&tp->stops),
			   atomic_long_read(&tp->stop_released),
			   atomic_long_read(&tp->reported), rtg_stop_policy_stoppable(tp),
			   (s64)(s32)tp->stop_ret, !tp->no_unwind, tp->described,
			   tp->partly, rtg_prog_lazy(tp), tp->bare_calls,
			   tp->main->call_hook_run_size);
		rcu_read_lock();
		for_each_process_thread(g, t) {
			/* the stack is not pinned: every read of it may fail */
			if (READ_ONCE(t->bpf_hook_run))
				rtg_held_show_task(m, t, tp, first ? &in_irq : NULL);
		}
		rcu_read_unlock();
		first = false;
	}
	mutex_unlock(&rtg_progs_lock);
	mutex_unlock(&rtg_images_lock);
	/* each CPU counts its own (modulo 2^8) */
	for_each_possible_cpu(cpu) {
		lazy += FIELD_GET(BPF_CALL_HOOK_RUNS_LAZY,
				  READ_ONCE(per_cpu(rtg_watch_cpu.runs, cpu)));
		lazy_exits += READ_ONCE(per_cpu(rtg_watch_cpu.lazy_exits, cpu));
	}
	if (in_irq)
		seq_printf(m, "runs_in_interrupts: %u (not listed)\n", in_irq);
	if (lazy)
		seq_printf(m, "lazy_runs: %u (in flight, not adopted: not listed)\n", lazy);
	if (lazy_exits)
		seq_printf(m, "lazy_exits: %u (adopted runs in flight that keep nothing in their frames)\n",
			   lazy_exits);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_held);

/* Counters that belong to no program, "name: value" each. */
static int rtg_stats_show(struct seq_file *m, void *v)
{
	struct rtg_watchdog_stats st;
	u64 described, from_table;

	rtg_run_stop_stats(&described, &from_table);
	rtg_watchdog_stats(&st);
	seq_printf(m, "stops_described: %llu\nstops_from_table: %llu\n",
		   described, from_table);
	seq_printf(m, "watchdog_ticks: %llu\nwatchdog_tick_ns: %llu\nwatchdog_wakeups: %llu\n",
		   st.ticks, st.tick_ns, st.wakeups);
	seq_printf(m, "watchdog_idle_wakeups: %llu\n", st.idle_wakeups);
	seq_printf(m, "slow_calls: %u\nslow_acquire_calls: %u\ntsc_khz: %u\n", rtg_slow_sum(),
		   rtg_slow_acquire_sum(), tsc_khz);
	rtg_lazy_stats(m);
	rtg_held_stats(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_stats);

/* Written to by tests: the next N adoptions of lazy runs find no record. */
static int rtg_lazy_fail_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	rtg_lazy_fail(val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_lazy_fail_fops, NULL, rtg_lazy_fail_set, "%llu\n");

/* Written to by readers of the trace buffer: debug-mode calls still waiting are written. */
static int rtg_trace_flush_set(void *data, u64 val)
{
	rtg_trace_flush_all();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_trace_flush_fops, NULL, rtg_trace_flush_set, "%llu\n");

static int rtg_stop_policy_file_show(struct seq_file *m, void *v)
{
	rtg_stop_policy_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_stop_policy_file);

static int rtg_descriptions_show(struct seq_file *m, void *v)
{
	struct rtg_image *image;
	u32 i;

	rtg_held_desc_header(m);
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node) {
		for (i = 0; i < image->nr_sites; i++)
			rtg_held_desc_show(m, &image->sites[i]);
		/* once a program: the calls of its global functions */
		if (image->tprog && !image->func_idx)
			rtg_held_bpf_func_descs_show(m, rtg_main_aux(image));
	}
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_descriptions);

/**
 * rtg_debugfs_init() - create the module's debugfs directory and files
 *
 * Return: 0; debugfs being unavailable is not an error.
 */
int rtg_debugfs_init(void)
{
	rtg_debugfs_dir = debugfs_create_dir("bpf_rtguard", NULL);
	debugfs_create_file("calls", 0400, rtg_debugfs_dir, NULL,
			    &rtg_calls_fops);
	debugfs_create_file("progs", 0400, rtg_debugfs_dir, NULL,
			    &rtg_progs_fops);
	debugfs_create_file("sites", 0400, rtg_debugfs_dir, NULL,
			    &rtg_sites_fops);
	debugfs_create_file("held", 0400, rtg_debugfs_dir, NULL,
			    &rtg_held_fops);
	debugfs_create_file("stats", 0400, rtg_debugfs_dir, NULL,
			    &rtg_stats_fops);
	debugfs_create_file_unsafe("lazy_fail", 0200, rtg_debugfs_dir, NULL,
				   &rtg_lazy_fail_fops);
	debugfs_create_file_unsafe("trace_flush", 0200, rtg_debugfs_dir, NULL,
				   &rtg_trace_flush_fops);
	debugfs_create_file("trace_runs", 0400, rtg_debugfs_dir, NULL,
			    &rtg_trace_runs_fops);
	debugfs_create_file("stop_policy", 0400, rtg_debugfs_dir, NULL,
			    &rtg_stop_policy_file_fops);
	debugfs_create_file("descriptions", 0400, rtg_debugfs_dir, NULL,
			    &rtg_descriptions_fops);
	return 0;
}

/**
 * rtg_debugfs_exit() - remove what rtg_debugfs_init() created
 */
void rtg_debugfs_exit(void)
{
	debugfs_remove_recursive(rtg_debugfs_dir);
}
