// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debugfs files.
 *
 *   bpf_rtguard/calls   one line per hooked call site:
 *                       prog_id prog_name insn_idx count function [module]
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
		struct bpf_prog_aux *main = image->aux->main_prog_aux ?: image->aux;

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
	return 0;
}

/**
 * rtg_debugfs_exit() - remove what rtg_debugfs_init() created
 */
void rtg_debugfs_exit(void)
{
	debugfs_remove_recursive(rtg_debugfs_dir);
}
