/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: parsing and refusing parameter values (rtguard_param.c).
 */
#ifndef _RTGUARD_PARAM_H
#define _RTGUARD_PARAM_H

#include <linux/compiler_attributes.h>
#include <linux/moduleparam.h>
#include <linux/types.h>

/* rtg_param_refuse() at insmod: the value is refused by rtg_params_done() */
#define RTG_PARAM_LATER	1

__printf(2, 3)
int rtg_param_refuse(const struct kernel_param *kp, const char *fmt, ...);
int rtg_param_parse_bool(const char *val, const struct kernel_param *kp, bool *on);
/* a bool parameter, refused in one line as rtg_param_refuse() does */
extern const struct kernel_param_ops rtg_bool_ops;
int rtg_params_done(struct module *mod);

#endif /* _RTGUARD_PARAM_H */
