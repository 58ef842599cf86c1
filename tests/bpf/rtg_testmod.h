/* SPDX-License-Identifier: GPL-2.0-only */
/* kfuncs of tests/kmod/rtg_testmod_kfuncs.c, as BPF programs see them */
#ifndef _RTG_TESTMOD_BPF_H
#define _RTG_TESTMOD_BPF_H

/* must match tests/kmod/rtg_testmod_kfuncs.c for libbpf to accept the kfuncs */
struct rtg_test_obj {
	refcount_t ref;
	__u64 id;
};

extern __u64 rtg_test_arg0(void) __ksym;
extern int rtg_test_arg1(int a) __ksym;
extern __u32 rtg_test_arg2(__u32 a, __u32 b) __ksym;
extern void rtg_test_void3(__u64 a, __u64 b, __u64 c) __ksym;
extern __u64 rtg_test_last_value(void) __ksym;
extern __u64 rtg_test_arg4(__u64 a, __u64 b, __u64 c, __u64 d) __ksym;
extern __u64 rtg_test_arg5(__u64 a, __u64 b, __u64 c, __u64 d, __u64 e) __ksym;
extern void rtg_test_void0(void) __ksym;
extern int rtg_test_sleep(__u32 usecs) __ksym;
extern int rtg_test_wait(void) __ksym;
extern struct rtg_test_obj *rtg_test_obj_get(__u64 id) __ksym;
extern void rtg_test_obj_put(struct rtg_test_obj *obj) __ksym;
extern int rtg_test_run_nested(int prog_fd) __ksym;
extern int rtg_test_run_keeping(int prog_fd, __u64 *diff, __u32 diff__sz) __ksym;

#endif
