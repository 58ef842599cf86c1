// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: how the module's parameters are parsed and refused. Each
 * part of the module declares its own parameters; a bad value is refused
 * in one dmesg line that names the parameter and the values it takes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "rtguard_param.h"

/*
 * the first value refused while insmod parses the parameters, said by
 * rtg_params_done(), which sets rtg_params_parsed first (a write through
 * sysfs before then is refused as at insmod); kernel_param_lock()
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
 * rtg_params_done() says it and fails the load with -EINVAL.
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

const struct kernel_param_ops rtg_bool_ops = {
	.set = rtg_param_set_bool,
	.get = param_get_bool,
};

/**
 * rtg_params_done() - insmod parsed the parameters
 * @mod: this module
 *
 * Called first by the module's init: from now on a refused value is said
 * at once.
 *
 * Return: 0, or -EINVAL after saying the first value refused.
 */
int rtg_params_done(struct module *mod)
{
	bool refused;

	/* the lock every parameter is set under */
	kernel_param_lock(mod);
	WRITE_ONCE(rtg_params_parsed, true);
	refused = rtg_param_refused[0];
	kernel_param_unlock(mod);
	if (!refused)
		return 0;
	pr_err("%s\n", rtg_param_refused);
	return -EINVAL;
}
