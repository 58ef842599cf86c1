// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the pass-through hook, which counts calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rtguard.h"

/**
 * rtg_passthrough_post() - count a helper or kfunc call
 * @r0: the result of the call
 * @saved: unused
 * @args: unused (pass-through sites save no arguments)
 * @arg: the site's per-CPU count of calls (&rtg_site.count)
 *
 * Called by JIT compiled programs right after the function of a site,
 * which the program calls directly. The result reaches the program
 * untouched, so void, 32-bit, 64-bit and pointer results are exactly as
 * without the hook. It neither sleeps nor takes locks, so it is safe
 * wherever the call is, after sleepable kfuncs included. Not traced by
 * ftrace: four instructions.
 *
 * Return: @r0.
 */
notrace u64 rtg_passthrough_post(u64 r0, u64 saved, const struct bpf_call_hook_args *args,
				 u64 arg)
{
	this_cpu_inc(*(u64 __percpu __force *)(unsigned long)arg);
	return r0;
}
