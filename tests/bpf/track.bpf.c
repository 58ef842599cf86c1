// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seed's tracking scenarios (simple: task + cpumask; branch; loop over
 * bpf_iter_num) and a sleepable program that blocks while it holds an
 * object, for a mid-run snapshot of its table.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

int target_pid;
int branch;
__u64 seen[8];

SEC("syscall")
int track_simple(void *ctx)
{
	struct bpf_cpumask *mask;
	struct task_struct *t;

	t = bpf_task_from_pid(target_pid);
	if (!t)
		return 1;
	seen[0] = (__u64)t;
	mask = bpf_cpumask_create();
	if (mask) {
		seen[1] = (__u64)mask;
		bpf_cpumask_release(mask);
	}
	bpf_task_release(t);
	return 0;
}

/*
 * Four objects, at most two held at once (a table of three): a and b
 * given back first in, first out (the hooks' search), d pushed onto a
 * full table (the hook makes room), then two releases of the newest
 * (popped in line).
 */
SEC("syscall")
int track_orders(void *ctx)
{
	struct rtg_test_obj *a, *b, *c, *d;

	a = rtg_test_obj_get(1);
	if (!a)
		return 1;
	b = rtg_test_obj_get(2);
	if (!b) {
		rtg_test_obj_put(a);
		return 1;
	}
	seen[0] = (__u64)a;
	seen[1] = (__u64)b;
	rtg_test_obj_put(a);
	c = rtg_test_obj_get(3);
	if (!c) {
		rtg_test_obj_put(b);
		return 1;
	}
	seen[2] = (__u64)c;
	rtg_test_obj_put(b);
	d = rtg_test_obj_get(4);
	if (!d) {
		rtg_test_obj_put(c);
		return 1;
	}
	seen[3] = (__u64)d;
	rtg_test_obj_put(d);
	rtg_test_obj_put(c);
	return 0;
}

/*
 * Five objects held at once, more than the sample a bare described run's
 * table keeps (RTG_SAMPLE_SLOTS), given back newest first.
 */
SEC("syscall")
int track_five(void *ctx)
{
	struct rtg_test_obj *a = rtg_test_obj_get(1), *b = rtg_test_obj_get(2);
	struct rtg_test_obj *c = rtg_test_obj_get(3), *d = rtg_test_obj_get(4);
	struct rtg_test_obj *e = rtg_test_obj_get(5);
	int missing = 0;

	seen[0] = (__u64)a;
	seen[4] = (__u64)e;
	if (e)
		rtg_test_obj_put(e);
	else
		missing++;
	if (d)
		rtg_test_obj_put(d);
	else
		missing++;
	if (c)
		rtg_test_obj_put(c);
	else
		missing++;
	if (b)
		rtg_test_obj_put(b);
	else
		missing++;
	if (a)
		rtg_test_obj_put(a);
	else
		missing++;
	return missing;
}

SEC("syscall")
int track_branch(void *ctx)
{
	struct rtg_test_obj *obj;
	struct task_struct *t;

	if (branch) {
		t = bpf_task_from_pid(target_pid);
		if (!t)
			return 1;
		seen[0] = (__u64)t;
		bpf_task_release(t);
	} else {
		obj = rtg_test_obj_get(7);
		if (!obj)
			return 1;
		seen[0] = (__u64)obj;
		rtg_test_obj_put(obj);
	}
	return 0;
}

SEC("syscall")
int track_loop(void *ctx)
{
	struct task_struct *t;
	int i;

	bpf_for(i, 0, 3) {
		t = bpf_task_from_pid(target_pid);
		if (!t)
			continue;
		seen[i & 7] = (__u64)t;
		bpf_task_release(t);
	}
	return 0;
}

SEC("syscall")
int track_block(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(42);
	int err;

	if (!obj)
		return 1;
	seen[0] = (__u64)obj;
	err = rtg_test_wait();
	rtg_test_obj_put(obj);
	return err ? 2 : 0;
}

/* nesting: holds an object while a kfunc runs a tracked fentry program */
SEC("syscall")
int track_outer(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(100);
	__u32 r;

	if (!obj)
		return 1;
	seen[0] = (__u64)obj;
	r = rtg_test_arg2(5, 6);
	rtg_test_obj_put(obj);
	return r == 5006 ? 0 : 2;
}

int inner_pid;

SEC("fentry/rtg_test_arg2")
int BPF_PROG(track_inner, __u32 a, __u32 b)
{
	struct rtg_test_obj *obj;

	if ((bpf_get_current_pid_tgid() >> 32) != inner_pid)
		return 0;
	obj = rtg_test_obj_get(200);
	if (obj) {
		seen[1] = (__u64)obj;
		rtg_test_obj_put(obj);
	}
	return 0;
}
