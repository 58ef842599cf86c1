// SPDX-License-Identifier: GPL-2.0-only
/*
 * An extension program for freplace.bpf.c's fr_sum3(): the same sum,
 * with a task reference taken and given back, so that a tracked run has
 * something to record.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
void bpf_task_release(struct task_struct *p) __ksym;

int ext_runs;

SEC("freplace/fr_sum3")
int fr_sum3_ext(int a, struct __sk_buff *skb, int c)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	ext_runs++;
	if (!skb)
		return 0;
	return a + skb->len + c;
}
