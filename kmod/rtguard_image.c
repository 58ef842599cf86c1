// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: per program image state, and the call hook owner callbacks
 * through which the JIT asks which calls of an image to redirect.
 */
#include <linux/bpf_call_hook.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "rtguard.h"

/* protects rtg_images; held by debugfs readers and image setup/teardown */
DEFINE_MUTEX(rtg_images_lock);
LIST_HEAD(rtg_images);

static bool rtg_is_hookable_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) &&
	       insn->src_reg != BPF_PSEUDO_CALL && insn->imm;
}

static void rtg_image_free(struct rtg_image *image)
{
	free_percpu(image->counts);
	kvfree(image);
}

static void *rtg_prog_init(struct bpf_prog *prog)
{
	struct rtg_image *image;
	u32 i, n = 0;

	if (!READ_ONCE(rtg_hook_all))
		return NULL;

	for (i = 0; i < prog->len; i++)
		n += rtg_is_hookable_call(&prog->insnsi[i]);
	if (!n)
		return NULL;

	image = kvzalloc(struct_size(image, sites, n), GFP_KERNEL);
	if (!image)
		return ERR_PTR(-ENOMEM);
	image->max_sites = n;
	image->counts = __alloc_percpu(sizeof(u64) * n, sizeof(u64));
	if (!image->counts) {
		kvfree(image);
		return ERR_PTR(-ENOMEM);
	}
	image->aux = prog->aux;
	return image;
}

static void *rtg_select(void *data, struct bpf_prog *prog,
			const struct bpf_insn *insn, u32 insn_idx,
			void *func, u64 *arg)
{
	struct rtg_image *image = data;
	struct rtg_site *site;

	if (WARN_ON_ONCE(image->nr_sites >= image->max_sites))
		return NULL;
	site = &image->sites[image->nr_sites];
	site->func = func;
	site->count = image->counts + image->nr_sites;
	site->image = image;
	site->insn_idx = insn_idx;
	image->nr_sites++;

	/* first hook of the image: make it visible to debugfs */
	if (image->nr_sites == 1) {
		mutex_lock(&rtg_images_lock);
		list_add_tail(&image->node, &rtg_images);
		mutex_unlock(&rtg_images_lock);
	}
	*arg = (unsigned long)site;
	return rtg_passthrough_hook;
}

static void rtg_prog_free(void *data, struct bpf_prog *prog)
{
	struct rtg_image *image = data;

	if (image->nr_sites) {
		mutex_lock(&rtg_images_lock);
		list_del(&image->node);
		mutex_unlock(&rtg_images_lock);
	}
	rtg_image_free(image);
}

const struct bpf_call_hook_ops rtg_call_hook_ops = {
	.owner = THIS_MODULE,
	.prog_init = rtg_prog_init,
	.select = rtg_select,
	.prog_free = rtg_prog_free,
};

/**
 * rtg_site_count() - calls made through a site so far, on all CPUs
 * @site: a hooked call site
 *
 * Return: the sum of the site's per-CPU counters.
 */
u64 rtg_site_count(const struct rtg_site *site)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(site->count, cpu);
	return sum;
}
