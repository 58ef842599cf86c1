// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debugfs files.
 *
 *   bpf_rtguard/calls   one line per hooked call site:
 *                       prog_id prog_name insn_idx count function [module]
 *   bpf_rtguard/progs   one line per hooked program image:
 *                       prog_id prog_name func_idx sites max_refs debug_mode
 *
 *   bpf_rtguard/held    each tracked program and what its in-flight runs hold
 *
 * The pairing tables add pairing, unpaired and kfuncs (rtguard_pairing.c).
 */
#include <linux/bpf_call_hook.h>
#include <linux/debugfs.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "rtguard.h"

struct dentry *rtg_debugfs_dir;

static int rtg_calls_show(struct seq_file *m, void *v)
{
	struct rtg_image *image;
	u32 i;

	seq_puts(m, "# prog_id prog_name insn count function\n");
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node) {
		struct bpf_prog_aux *main = rtg_main_aux(image);

		for (i = 0; i < image->nr_sites; i++) {
			const struct rtg_site *site = &image->sites[i];

			seq_printf(m, "%u %s %u %llu %ps\n", main->id,
				   main->name[0] ? main->name : "-",
				   site->insn_idx, rtg_site_count(site),
				   site->func);
		}
	}
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_calls);

static int rtg_progs_show(struct seq_file *m, void *v)
{
	struct rtg_image *image;

	seq_puts(m, "# prog_id prog_name func_idx sites max_refs debug_mode\n");
	mutex_lock(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node) {
		struct bpf_prog_aux *main = rtg_main_aux(image);

		seq_printf(m, "%u %s %u %u %u %d\n", main->id,
			   main->name[0] ? main->name : "-",
			   image->aux->func_idx, image->nr_sites,
			   main->max_acquired_refs, main->debug_mode);
	}
	mutex_unlock(&rtg_images_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_progs);

static int rtg_held_show(struct seq_file *m, void *v)
{
	struct rtg_prog *tp;
	u32 i, j;

	seq_puts(m, "# prog_id prog_name slots runs pool_exhausted unmatched stops released\n"
		 "#   run pid=PID ctx=INTERRUPT_LEVEL held=N\n"
		 "#     object acquired_by release=CALL insn=SITE held_us=US\n");
	mutex_lock(&rtg_progs_lock);
	rcu_read_lock();	/* the tasks of in-flight runs */
	list_for_each_entry(tp, &rtg_progs, node) {
		seq_printf(m, "%u %s %u %u %ld %ld %ld %ld\n", tp->main->id,
			   tp->main->name[0] ? tp->main->name : "-", tp->nslots,
			   tp->nruns, atomic_long_read(&tp->pool_exhausted),
			   atomic_long_read(&tp->unmatched),
			   atomic_long_read(&tp->stops),
			   atomic_long_read(&tp->stop_released));
		for (i = 0; i < tp->nruns; i++) {
			struct rtg_run *run = rtg_run_at(tp, i);
			unsigned long owner = READ_ONCE(tp->owners[i]);
			/* pairs with the releases in rtg_run_push/pop() */
			u32 count = smp_load_acquire(&run->count);
			u64 now = ktime_get_mono_fast_ns();

			/* a snapshot of another context's table: may be torn */
			if (!owner)
				continue;
			seq_printf(m, "  run pid=%d ctx=%lu held=%u\n",
				   task_pid_nr((struct task_struct *)(owner & ~3UL)),
				   owner & 3, count);
			for (j = 0; j < count && j < tp->nslots; j++) {
				const struct rtg_held *h = &run->held[j];
				const struct rtg_site *site = READ_ONCE(h->site);

				if (!site)
					continue;
				seq_printf(m, "    %#llx %ps release=%s insn=%u held_us=%llu\n",
					   h->obj, site->func, site->release,
					   site->insn_idx,
					   (now - READ_ONCE(h->since_ns)) / NSEC_PER_USEC);
			}
		}
	}
	rcu_read_unlock();
	mutex_unlock(&rtg_progs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_held);

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
	debugfs_create_file("held", 0400, rtg_debugfs_dir, NULL,
			    &rtg_held_fops);
	return 0;
}

/**
 * rtg_debugfs_exit() - remove what rtg_debugfs_init() created
 */
void rtg_debugfs_exit(void)
{
	debugfs_remove_recursive(rtg_debugfs_dir);
}
