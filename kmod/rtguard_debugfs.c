// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debugfs files.
 *
 *   bpf_rtguard/calls   one line per hooked call site:
 *                       prog_id prog_name insn_idx count function [module]
 *   bpf_rtguard/progs   one line per hooked program image:
 *                       prog_id prog_name func_idx sites max_refs debug_mode
 */
#include <linux/bpf_call_hook.h>
#include <linux/debugfs.h>

#include "rtguard.h"

static struct dentry *rtg_debugfs_dir;

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
	return 0;
}

/**
 * rtg_debugfs_exit() - remove what rtg_debugfs_init() created
 */
void rtg_debugfs_exit(void)
{
	debugfs_remove_recursive(rtg_debugfs_dir);
}
