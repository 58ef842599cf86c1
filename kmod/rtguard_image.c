// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: per program image state, and the call hook owner callbacks
 * through which the JIT asks which calls of an image to redirect.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bpf_call_hook.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "rtguard.h"
#include "rtguard_cfg.h"
#include "rtguard_image.h"
#include "rtguard_lazy.h"
#include "rtguard_param.h"
#include "rtguard_run.h"
#include "rtguard_slow.h"

static bool rtg_hook_all;
module_param_cb(hook_all, &rtg_bool_ops, &rtg_hook_all, 0644);
MODULE_PARM_DESC(hook_all,
		 "Redirect every helper and kfunc call of programs JIT compiled while set to a counting pass-through hook (default: off)");

/* protects rtg_images; held by debugfs readers and image setup/teardown */
DEFINE_MUTEX(rtg_images_lock);
LIST_HEAD(rtg_images);

/*
 * An image with traced sites is kept, retired, for RTG_RETIRED_SECS after
 * its program is freed (at most the RTG_RETIRED_MAX latest), so that a
 * reader of the trace that polls (an rtg-strace following a command that
 * loads, runs and unloads a program between two looks) still finds its
 * sites' names; then it is freed after a grace period.
 */
#define RTG_RETIRED_SECS	10
#define RTG_RETIRED_MAX		64

/* retired images, oldest first; rtg_images_lock */
LIST_HEAD(rtg_retired);
static unsigned int rtg_nr_retired;

static void rtg_image_free_rcu(struct rcu_head *rcu)
{
	struct rtg_image *image = container_of(rcu, struct rtg_image, rcu);

	rtg_trace_names_free(image);
	kvfree(image);
}

/* Free the retired images past their time, or all of them. rtg_images_lock. */
static void rtg_image_reap(bool all)
{
	struct rtg_image *image, *tmp;

	lockdep_assert_held(&rtg_images_lock);
	list_for_each_entry_safe(image, tmp, &rtg_retired, node) {
		if (!all && rtg_nr_retired <= RTG_RETIRED_MAX &&
		    time_before(jiffies, image->retired + RTG_RETIRED_SECS * HZ))
			break;
		list_del(&image->node);
		rtg_nr_retired--;
		rtg_trace_forget(image);
		call_rcu(&image->rcu, rtg_image_free_rcu);
	}
}

/*
 * Keep the traced sites of a freed program for readers of the trace:
 * true when @image, its other state freed, is kept (it had traced sites
 * or runs), to be freed later; false when the caller frees it.
 */
static bool rtg_image_retire(struct rtg_image *image)
{
	if (!rtg_trace_traced(image))
		return false;
	image->retired = jiffies;
	mutex_lock(&rtg_images_lock);
	list_add_tail(&image->node, &rtg_retired);
	rtg_nr_retired++;
	rtg_image_reap(false);
	mutex_unlock(&rtg_images_lock);
	return true;
}

/**
 * rtg_image_exit() - free every retired image, at module exit
 *
 * The frees wait for a grace period (rtg_trace_names_exit()).
 */
void rtg_image_exit(void)
{
	mutex_lock(&rtg_images_lock);
	rtg_image_reap(true);
	mutex_unlock(&rtg_images_lock);
}

/* what the kernel offers: helper, kfunc and BPF function calls (traced only) */
static bool rtg_is_hookable_call(const struct bpf_insn *insn, int mode)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->imm &&
	       (insn->src_reg != BPF_PSEUDO_CALL || mode == RTG_IMAGE_TRACE);
}

static void rtg_image_free(struct rtg_image *image)
{
	if (!IS_ERR_OR_NULL(image->tprog))
		rtg_prog_put(image->tprog);
	image->tprog = NULL;
	free_percpu(image->counts);
	image->counts = NULL;
	bitmap_free(image->not_once);
	image->not_once = NULL;
	/* readers of the trace may still need its traced sites */
	if (!rtg_image_retire(image))
		kvfree(image);
}

/* What an image's calls get when it is not tracked. */
static int rtg_choose_mode(struct bpf_prog *prog)
{
	if (rtg_debug_traced(bpf_call_hook_main_aux(prog)))
		return RTG_IMAGE_TRACE;
	return READ_ONCE(rtg_hook_all) ? RTG_IMAGE_PASSTHROUGH : RTG_IMAGE_NONE;
}

static void rtg_image_publish(struct rtg_image *image)
{
	mutex_lock(&rtg_images_lock);
	list_add_tail(&image->node, &rtg_images);
	mutex_unlock(&rtg_images_lock);
}

static void *rtg_prog_init(struct bpf_prog *prog)
{
	struct rtg_image *image;
	int mode = rtg_choose_mode(prog);
	bool track = bpf_call_hook_runs(prog);
	u32 i, n = 0;

	if (mode == RTG_IMAGE_NONE && !track)
		return NULL;

	for (i = 0; i < prog->len; i++)
		n += rtg_is_hookable_call(&prog->insnsi[i], mode);
	/* the main image of a tracked program brackets its runs */
	if (!n && !track)
		return NULL;

	image = kvzalloc(struct_size(image, sites, n), GFP_KERNEL_ACCOUNT);
	if (!image)
		return ERR_PTR(-ENOMEM);
	image->max_sites = n;
	/* only the pass-through hook counts calls */
	if (mode == RTG_IMAGE_PASSTHROUGH && !track && n) {
		image->counts = __alloc_percpu_gfp(sizeof(u64) * n, sizeof(u64),
						   GFP_KERNEL_ACCOUNT);
		if (!image->counts) {
			kvfree(image);
			return ERR_PTR(-ENOMEM);
		}
	}
	image->aux = prog->aux;
	image->func_idx = prog->aux->func_idx;
	image->mode = mode;
	strscpy(image->prog_name, bpf_call_hook_main_aux(prog)->name[0] ?
		bpf_call_hook_main_aux(prog)->name : "-");
	if (track) {
		image->tprog = rtg_prog_get(bpf_call_hook_main_aux(prog));
		if (IS_ERR(image->tprog)) {
			long err = PTR_ERR(image->tprog);

			image->tprog = NULL;
			rtg_image_free(image);
			return ERR_PTR(err);
		}
		/* the image whose runs carry it (bpf_call_hook_run.data) */
		if (!bpf_is_subprog(prog))
			image->tprog->main_image = image;
		/*
		 * a bare described program's runs keep no table as they go:
		 * the JIT only counts and times them until the module needs
		 * one (rtguard_lazy.c), with nothing in their frames (the
		 * start in the CPU's word) unless they may sleep, when their
		 * start must be their own: in 8 bytes of their frame
		 */
		if (!bpf_is_subprog(prog) && image->tprog->described &&
		    image->tprog->bare_calls)
			bpf_call_hook_main_aux(prog)->call_hook_flags |=
				BPF_CALL_HOOK_RUN_LAZY |
				(image->tprog->sleepable ? BPF_CALL_HOOK_LAZY_AREA :
							   BPF_CALL_HOOK_LAZY_CPU);
		/*
		 * where such a program's runs make a call at most once, the
		 * call is no place to stop (rtg_track_select()); runs with
		 * no place to stop at all are not bracketed
		 */
		if (!bpf_is_subprog(prog) && image->tprog->described &&
		    image->tprog->bare_calls && !image->tprog->sleepable &&
		    mode != RTG_IMAGE_TRACE) {
			image->not_once = rtg_cfg_on_cycle(prog->insnsi, prog->len);
			if (image->not_once &&
			    rtg_cfg_straight(prog->insnsi, prog->len, image->not_once)) {
				bpf_call_hook_main_aux(prog)->call_hook_flags &=
					~BPF_CALL_HOOK_RUNS;
			} else if (image->not_once &&
				   !rtg_cfg_mark_far(prog->insnsi, prog->len, image->not_once)) {
				/* not known: every call stays a place to stop */
				bitmap_free(image->not_once);
				image->not_once = NULL;
			}
		}
		if (!bpf_is_subprog(prog) && image->tprog->trace_runs)
			rtg_trace_name_run(image);
	}
	rtg_image_publish(image);
	return image;
}

static bool rtg_select(void *data, struct bpf_prog *prog,
		       const struct bpf_call_hook_call *call,
		       struct bpf_call_hook_site *hook)
{
	const struct bpf_call_info *info = call->info;
	struct rtg_image *image = data;
	struct rtg_site *site;

	/* a call of one of the program's BPF functions is only recorded */
	if (!call->func && image->mode != RTG_IMAGE_TRACE)
		return false;
	if (WARN_ON_ONCE(image->nr_sites >= image->max_sites))
		return false;
	site = &image->sites[image->nr_sites];
	site->func = call->func;
	site->image = image;
	site->main = bpf_call_hook_main_aux(prog);
	site->insn_idx = call->insn_idx;
	/* unknown calls show all five argument registers */
	site->nr_args = info ? min_t(u8, info->nr_args, MAX_BPF_FUNC_REG_ARGS) :
			       MAX_BPF_FUNC_REG_ARGS;
	site->ret_size = sizeof(u64);
	if (info) {
		site->func_id = info->id;
		if (info->bpf_func)
			site->flags |= RTG_SITE_BPF_FUNC;
		else if (info->btf)
			site->flags |= RTG_SITE_KFUNC;
		if (info->ret_may_be_null)
			site->flags |= RTG_SITE_MAY_FAIL;
		site->arg_is_ptr = info->arg_is_ptr;
		site->arg_is_signed = info->arg_is_signed;
		site->arg_is_32bit = info->arg_is_32bit;
		site->ret_size = info->ret_size;
		if (info->ret_is_ptr)
			site->flags |= RTG_SITE_RET_PTR;
		if (info->ret_is_signed)
			site->flags |= RTG_SITE_RET_SIGNED;
	}
	if (image->mode == RTG_IMAGE_TRACE) {
		site->flags |= RTG_SITE_TRACE;
		rtg_trace_name_site(site, info);
	}
	hook->arg = (unsigned long)site;

	if (image->tprog && !image->tprog->trace_only && call->func) {
		site->tprog = image->tprog;
		rtg_track_select(site, info, hook, image->not_once &&
				 !test_bit(call->insn - prog->insnsi, image->not_once));
	} else if (image->mode == RTG_IMAGE_TRACE) {
		/*
		 * while nothing reads the event, the call is made alone; else
		 * the JIT records it in line, or when it cannot, saves its
		 * arguments for the post hook, which records it
		 */
		hook->pre_flag = &rtg_slow;
		hook->post = rtg_trace_post;
		hook->pass_args = true;
		hook->plain_when_clear = true;
		/*
		 * not while a call may sleep: its record would stay open, and
		 * the CPU's later calls be written alone, for as long
		 */
		if (!prog->sleepable) {
			hook->recs = rtg_trace_recs;
			hook->rec_tag = site->trace_id | (u64)RTG_REC_CALL << 32 |
					(u64)site->line_max << 48;
			hook->rec_flush = rtg_trace_rec_flush;
		}
	} else {
		site->count = image->counts + image->nr_sites;
		/* all the hook needs */
		hook->arg = (__force unsigned long)site->count;
		hook->note = rtg_passthrough_note;
	}
	image->nr_sites++;
	return true;
}

static void rtg_prog_free(void *data, struct bpf_prog *prog)
{
	struct rtg_image *image = data;

	mutex_lock(&rtg_images_lock);
	list_del(&image->node);
	mutex_unlock(&rtg_images_lock);
	rtg_image_free(image);
}

const struct bpf_call_hook_ops rtg_call_hook_ops = {
	.owner = THIS_MODULE,
	.prog_debug = rtg_prog_debug,
	.prog_verified = rtg_track_prog_verified,
	.prog_init = rtg_prog_init,
	.select = rtg_select,
	.prog_free = rtg_prog_free,
	.run_exit = rtg_run_exit,
	.lazy_exit = rtg_run_exit_lazy,
	.cpu = &rtg_watch_cpu,
	.exit_flag = &rtg_trace_runs_on,
	.run_arm = rtg_watchdog_arm,
};

/**
 * rtg_site_is_live() - whether a site pointer belongs to a hooked image
 * @site: a pointer read from a run's table, possibly stale
 *
 * Called with rtg_images_lock held, under which a live site stays live.
 *
 * Return: true when @site is a site of an image not yet freed.
 */
bool rtg_site_is_live(const struct rtg_site *site)
{
	struct rtg_image *image;

	lockdep_assert_held(&rtg_images_lock);
	list_for_each_entry(image, &rtg_images, node)
		if (site >= image->sites && site < image->sites + image->nr_sites)
			return true;
	return false;
}

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
