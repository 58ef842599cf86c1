// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the module's init and exit. Each part declares its own
 * parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_call_hook.h>
#include <linux/module.h>
#include <asm/cpufeature.h>
#include <asm/tsc.h>

#include "rtguard.h"
#include "rtguard_debugfs.h"
#include "rtguard_image.h"
#include "rtguard_lazy.h"
#include "rtguard_param.h"

static int __init rtg_init(void)
{
	int err;

	/*
	 * Runs and calls are timed with the TSC (rtg_clock(), and the JIT's
	 * rdtsc), turned into time with tsc_khz: a kernel that found no TSC,
	 * or could not measure its frequency, leaves tsc_khz 0 for good.
	 */
	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz) {
		pr_err("no TSC of known frequency (tsc_khz 0): runs and calls cannot be timed\n");
		return -ENODEV;
	}
	err = rtg_params_done(THIS_MODULE);
	if (err)
		return err;
	err = rtg_trace_init();
	if (err)
		return err;
	rtg_debugfs_init();
	rtg_trace_tasks_init(rtg_debugfs_dir);
	err = rtg_pairing_init(rtg_debugfs_dir);
	if (err) {
		pr_err("cannot build the pairing tables: %d\n", err);
		goto out_debugfs;
	}
	err = rtg_lazy_init();
	if (err) {
		pr_err("cannot fill the pools of lazy runs: %d\n", err);
		goto out_pairing;
	}
	err = rtg_watchdog_init();
	if (err) {
		pr_err("cannot start the watchdog: %d\n", err);
		goto out_lazy;
	}
	err = bpf_call_hook_register(&rtg_call_hook_ops);
	if (err) {
		pr_err("cannot register as call hook owner: %d\n",
		       err);
		goto out_watchdog;
	}
	return 0;

out_watchdog:
	rtg_watchdog_exit();
out_lazy:
	rtg_lazy_exit();
out_pairing:
	rtg_pairing_exit();
out_debugfs:
	rtg_debugfs_exit();
	rtg_trace_exit();
	return err;
}

static void __exit rtg_exit(void)
{
	bpf_call_hook_unregister(&rtg_call_hook_ops);
	rtg_held_exit();
	rtg_watchdog_exit();
	rtg_trace_exit();
	rtg_image_exit();
	rtg_trace_names_exit();
	rtg_pairing_exit();
	rtg_debugfs_exit();
	/* debugfs read the records */
	rtg_lazy_exit();
}

module_init(rtg_init);
module_exit(rtg_exit);

MODULE_DESCRIPTION("Run-time guard for BPF programs: call hooks, resource tracking, debug tracing, watchdog");
MODULE_LICENSE("GPL");
