// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: module glue and parameters.
 */
#include <linux/bpf_call_hook.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "rtguard.h"

bool rtg_hook_all;

static int rtg_param_set_bool(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (err)
		pr_warn_ratelimited("bpf_rtguard: %s: '%.*s' is not a boolean\n",
				    kp->name, (int)strcspn(val, "\n"), val);
	return err;
}

static const struct kernel_param_ops rtg_bool_ops = {
	.set = rtg_param_set_bool,
	.get = param_get_bool,
};

module_param_cb(hook_all, &rtg_bool_ops, &rtg_hook_all, 0644);
MODULE_PARM_DESC(hook_all,
		 "Redirect every helper and kfunc call of programs JIT compiled while set to a counting pass-through hook (default: off)");

static int __init rtg_init(void)
{
	int err;

	rtg_debugfs_init();
	err = bpf_call_hook_register(&rtg_call_hook_ops);
	if (err) {
		pr_err("bpf_rtguard: cannot register as call hook owner: %d\n",
		       err);
		rtg_debugfs_exit();
	}
	return err;
}

static void __exit rtg_exit(void)
{
	bpf_call_hook_unregister(&rtg_call_hook_ops);
	rtg_debugfs_exit();
}

module_init(rtg_init);
module_exit(rtg_exit);

MODULE_DESCRIPTION("Run-time guard for BPF programs: call hooks, resource tracking, debug tracing, watchdog");
MODULE_LICENSE("GPL");
