// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: module glue and parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_call_hook.h>
#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "rtguard.h"

bool rtg_hook_all;
bool rtg_track;
DEFINE_PER_CPU(u32, rtg_slow);
/* serialises rtg_slow_all(), which writes every CPU's word */
static DEFINE_MUTEX(rtg_slow_lock);

static void rtg_slow_add_here(void *delta)
{
	this_cpu_add(rtg_slow, (long)delta);
}

/**
 * rtg_slow_all() - send the hooked calls of every CPU through their slow
 * path (@delta 1), or stop doing so (-1)
 * @delta: 1 or -1
 *
 * Each online CPU adds @delta to its own word, in an interrupt, so that it
 * never races with the watchdog's marks and the runs' exits there, which
 * change the same word; offline CPUs, on which nothing runs, are written
 * here. Process context.
 */
void rtg_slow_all(int delta)
{
	int cpu;

	mutex_lock(&rtg_slow_lock);
	cpus_read_lock();
	on_each_cpu(rtg_slow_add_here, (void *)(long)delta, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			per_cpu(rtg_slow, cpu) += delta;
	cpus_read_unlock();
	mutex_unlock(&rtg_slow_lock);
}

/* The sum of the CPUs' words, for debugfs. */
u32 rtg_slow_sum(void)
{
	u32 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(rtg_slow, cpu));
	return sum;
}

/*
 * the first value refused while insmod parses the parameters, said by
 * rtg_init(), which sets rtg_params_parsed first (a write through sysfs
 * before then is refused as at insmod); kernel_param_lock()
 */
static char rtg_param_refused[128];
static bool rtg_params_parsed;

/**
 * rtg_param_refuse() - refuse a parameter's value, in one dmesg line
 * @kp: the parameter
 * @fmt: why, and the values it takes
 *
 * A write to /sys/module/bpf_rtguard/parameters/ gets -EINVAL and the
 * line. At insmod, where the kernel would add a line of its own for an
 * error (parse_args()), the value is left unset and the line kept:
 * rtg_init() says it and fails the load with -EINVAL.
 *
 * Return: -EINVAL, or RTG_PARAM_LATER while the module loads.
 */
int rtg_param_refuse(const struct kernel_param *kp, const char *fmt, ...)
{
	char why[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!READ_ONCE(rtg_params_parsed)) {
		if (!rtg_param_refused[0])
			snprintf(rtg_param_refused, sizeof(rtg_param_refused),
				 "%s: %s", kp->name, why);
		return RTG_PARAM_LATER;
	}
	pr_warn_ratelimited("%s: %s\n", kp->name, why);
	return -EINVAL;
}

/**
 * rtg_param_parse_bool() - a boolean parameter's value, as param_set_bool() reads it
 * @val: the value written (NULL: true)
 * @kp: the parameter
 * @on: the value parsed
 *
 * Return: 0, or what rtg_param_refuse() returns: a setter returns it when
 * negative, and 0 (nothing set) for RTG_PARAM_LATER.
 */
int rtg_param_parse_bool(const char *val, const struct kernel_param *kp, bool *on)
{
	if (!kstrtobool(val ?: "1", on))
		return 0;
	return rtg_param_refuse(kp, "'%.*s' is not a boolean (y, n, 1, 0, on, off)",
				(int)strcspn(val, "\n"), val);
}

static int rtg_param_set_bool(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = rtg_param_parse_bool(val, kp, &on);

	if (err)
		return min(err, 0);
	WRITE_ONCE(*(bool *)kp->arg, on);
	return 0;
}

static const struct kernel_param_ops rtg_bool_ops = {
	.set = rtg_param_set_bool,
	.get = param_get_bool,
};

module_param_cb(hook_all, &rtg_bool_ops, &rtg_hook_all, 0644);
MODULE_PARM_DESC(hook_all,
		 "Redirect every helper and kfunc call of programs JIT compiled while set to a counting pass-through hook (default: off)");

module_param_cb(track, &rtg_bool_ops, &rtg_track, 0644);
MODULE_PARM_DESC(track,
		 "Track what each run holds of the programs verified while set, loaded with CAP_BPF and calling a helper or kfunc: every call is a place the watchdog can stop them (default: off)");

bool rtg_describe = true;
module_param_cb(describe, &rtg_bool_ops, &rtg_describe, 0644);
MODULE_PARM_DESC(describe,
		 "Tracked programs JIT compiled while set whose every call the verifier describes completely keep no run-time table: their calls cost a compare and a branch, and a stop gives back what the description of its call names (default: on; check_held=1 keeps every table)");

/* a watchdog limit: the timers run only while one is set */
static int rtg_param_set_limit(const char *val, const struct kernel_param *kp)
{
	if (param_set_uint(val, kp))
		return min(rtg_param_refuse(kp, "'%.*s' is not a number (0: off)",
					    val ? (int)strcspn(val, "\n") : 0,
					    val ?: ""), 0);
	rtg_watchdog_limits_changed();
	return 0;
}

static const struct kernel_param_ops rtg_limit_ops = {
	.set = rtg_param_set_limit,
	.get = param_get_uint,
};

unsigned int rtg_watchdog_ms;
module_param_cb(watchdog_ms, &rtg_limit_ops, &rtg_watchdog_ms, 0644);
MODULE_PARM_DESC(watchdog_ms,
		 "Stop a tracked run that has been running for longer than this many ms (0: off; the watchdog timers run only while this or hold_limit_us is set)");

unsigned int rtg_hold_limit_us;
module_param_cb(hold_limit_us, &rtg_limit_ops, &rtg_hold_limit_us, 0644);
MODULE_PARM_DESC(hold_limit_us,
		 "Stop a tracked run that holds one resource for longer than this many us (0: off)");

bool rtg_stop_unsafe;
module_param_cb(stop_unsafe, &rtg_bool_ops, &rtg_stop_unsafe, 0644);
MODULE_PARM_DESC(stop_unsafe,
		 "Also stop programs verified while set whose type has no safe stop value (struct_ops, freplace, an LSM hook returning bool): they return 0 or their one allowed value (default: off, such runs are reported, not stopped)");

int rtg_debug = RTG_DEBUG_FLAG;

static const char * const rtg_debug_names[] = {
	[RTG_DEBUG_OFF] = "off",
	[RTG_DEBUG_FLAG] = "flag",
	[RTG_DEBUG_ALL] = "all",
};

static int rtg_param_set_debug(const char *val, const struct kernel_param *kp)
{
	int mode = val ? sysfs_match_string(rtg_debug_names, val) : -EINVAL;

	if (mode >= 0) {
		WRITE_ONCE(*(int *)kp->arg, mode);
		return 0;
	}
	if (!val)
		return min(rtg_param_refuse(kp, "needs a value: off, flag or all"), 0);
	return min(rtg_param_refuse(kp, "'%.*s' is not one of off, flag, all",
				    (int)strcspn(val, "\n"), val), 0);
}

static int rtg_param_get_debug(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rtg_debug_names[READ_ONCE(*(int *)kp->arg)]);
}

/* NOARG: a bare "debug" reaches the setter, which says what it takes */
static const struct kernel_param_ops rtg_debug_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = rtg_param_set_debug,
	.get = rtg_param_get_debug,
};

module_param_cb(debug, &rtg_debug_ops, &rtg_debug, 0644);
MODULE_PARM_DESC(debug,
		 "Trace every helper and kfunc call (trace event bpf_rtguard:rtg_call) of: flag = programs loaded with BPF_F_DEBUG_MODE or by a process tree written to debugfs trace_tasks (default), all = every program loaded while set, off = none");

static int __init rtg_init(void)
{
	bool refused;
	int err;

	/* the lock every parameter is set under */
	kernel_param_lock(THIS_MODULE);
	WRITE_ONCE(rtg_params_parsed, true);
	refused = rtg_param_refused[0];
	kernel_param_unlock(THIS_MODULE);
	if (refused) {
		pr_err("%s\n", rtg_param_refused);
		return -EINVAL;
	}
	rtg_trace_init();
	rtg_debugfs_init();
	rtg_trace_tasks_init(rtg_debugfs_dir);
	err = rtg_pairing_init(rtg_debugfs_dir);
	if (err) {
		pr_err("cannot build the pairing tables: %d\n", err);
		goto out_debugfs;
	}
	err = rtg_watchdog_init();
	if (err) {
		pr_err("cannot start the watchdog: %d\n", err);
		goto out_pairing;
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
	rtg_trace_names_exit();
	rtg_pairing_exit();
	rtg_debugfs_exit();
}

module_init(rtg_init);
module_exit(rtg_exit);

MODULE_DESCRIPTION("Run-time guard for BPF programs: call hooks, resource tracking, debug tracing, watchdog");
MODULE_LICENSE("GPL");
