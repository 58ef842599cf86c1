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
	if (!IS_ERR_OR_NULL(image->tprog))
		rtg_prog_put(image->tprog);
	free_percpu(image->counts);
	kvfree(image);
}

/* The hook for an image, or NULL when it is not to be hooked. */
static void *rtg_choose_hook(struct bpf_prog *prog)
{
	struct bpf_prog_aux *main = bpf_call_hook_main_aux(prog);

	switch (READ_ONCE(rtg_debug)) {
	case RTG_DEBUG_ALL:
		return rtg_trace_hook;
	case RTG_DEBUG_FLAG:
		if (main->debug_mode)
			return rtg_trace_hook;
		break;
	}
	return READ_ONCE(rtg_hook_all) ? rtg_passthrough_hook : NULL;
}

static void *rtg_prog_init(struct bpf_prog *prog)
{
	struct rtg_image *image;
	void *hook = rtg_choose_hook(prog);
	bool track = READ_ONCE(rtg_track) &&
		     rtg_track_possible(bpf_call_hook_main_aux(prog));
	u32 i, n = 0;

	if (!hook && !track)
		return NULL;

	for (i = 0; i < prog->len; i++)
		n += rtg_is_hookable_call(&prog->insnsi[i]);
	if (!n)
		return NULL;

	image = kvzalloc(struct_size(image, sites, n), GFP_KERNEL);
	if (!image)
		return ERR_PTR(-ENOMEM);
	image->max_sites = n;
	/* only the pass-through hook counts calls */
	if (hook == rtg_passthrough_hook) {
		image->counts = __alloc_percpu(sizeof(u64) * n, sizeof(u64));
		if (!image->counts) {
			kvfree(image);
			return ERR_PTR(-ENOMEM);
		}
	}
	image->aux = prog->aux;
	image->hook = hook;
	if (track) {
		image->tprog = rtg_prog_get(bpf_call_hook_main_aux(prog));
		if (IS_ERR(image->tprog)) {
			long err = PTR_ERR(image->tprog);

			rtg_image_free(image);
			return ERR_PTR(err);
		}
	}
	return image;
}

static void *rtg_select(void *data, struct bpf_prog *prog,
			const struct bpf_call_hook_call *call, u64 *arg)
{
	const struct bpf_call_info *info = call->info;
	struct rtg_image *image = data;
	struct rtg_site *site;
	void *hook = image->hook;

	if (WARN_ON_ONCE(image->nr_sites >= image->max_sites))
		return NULL;
	site = &image->sites[image->nr_sites];
	site->func = call->func;
	site->count = image->counts ? image->counts + image->nr_sites : NULL;
	site->image = image;
	site->main = bpf_call_hook_main_aux(prog);
	site->insn_idx = call->insn_idx;
	/* unknown calls show all five argument registers */
	site->nr_args = info ? min_t(u8, info->nr_args, MAX_BPF_FUNC_REG_ARGS) :
			       MAX_BPF_FUNC_REG_ARGS;
	site->ret_size = sizeof(u64);
	if (info) {
		site->arg_is_ptr = info->arg_is_ptr;
		site->arg_is_signed = info->arg_is_signed;
		site->arg_is_32bit = info->arg_is_32bit;
		site->ret_size = info->ret_size;
		if (info->ret_is_ptr)
			site->flags |= RTG_SITE_RET_PTR;
		if (info->ret_is_signed)
			site->flags |= RTG_SITE_RET_SIGNED;
	}
	if (image->tprog) {
		void *track_hook;

		site->tprog = image->tprog;
		track_hook = rtg_track_select(site, info);
		if (track_hook) {
			if (hook == rtg_trace_hook)
				site->flags |= RTG_SITE_TRACE;
			hook = track_hook;
		}
	}
	if (!hook) {
		memset(site, 0, sizeof(*site));
		return NULL;
	}
	image->nr_sites++;

	/* first hook of the image: make it visible to debugfs */
	if (image->nr_sites == 1) {
		mutex_lock(&rtg_images_lock);
		list_add_tail(&image->node, &rtg_images);
		mutex_unlock(&rtg_images_lock);
	}
	*arg = (unsigned long)site;
	return hook;
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
	.keep_call = rtg_track_keep_call,
	.may_unwind = rtg_track_may_unwind,
};

/**
 * rtg_site_count() - calls made through a site so far, on all CPUs
 * @site: a hooked call site
 *
 * Return: the sum of the site's per-CPU counters; 0 for sites of images
 * that do not count (tracking and debug hooks).
 */
u64 rtg_site_count(const struct rtg_site *site)
{
	u64 sum = 0;
	int cpu;

	if (!site->count)
		return 0;
	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(site->count, cpu);
	return sum;
}
