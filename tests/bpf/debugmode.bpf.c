// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seed's debug-mode scenario: a bpf_iter_num loop calling
 * bpf_task_from_pid, a CO-RE read and bpf_task_release, then
 * bpf_cpumask_create/release. The pointers the program saw are written to
 * seen_* so that the test can compare them with the trace.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

int target_pid;
__u64 seen_tasks[4];
int seen_tgids[4];
__u64 seen_mask;

SEC("syscall")
int test_debug_mode(void *ctx)
{
	struct bpf_cpumask *mask;
	int i;

	bpf_for(i, 0, 3) {
		struct task_struct *t = bpf_task_from_pid(target_pid);

		if (!t)
			continue;
		seen_tasks[i & 3] = (__u64)t;
		seen_tgids[i & 3] = BPF_CORE_READ(t, tgid);
		bpf_task_release(t);
	}
	mask = bpf_cpumask_create();
	if (mask) {
		seen_mask = (__u64)mask;
		bpf_cpumask_release(mask);
	}
	return 0;
}

/* loaded next to test_debug_mode, never with BPF_F_DEBUG_MODE */
SEC("syscall")
int debug_other(void *ctx)
{
	return rtg_test_arg2(1, 2) == 1002 ? 0 : 1;
}

/* ten traced calls per run, for the two-CPU test */
SEC("syscall")
int debug_burst(void *ctx)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < 10; i++)
		sum += rtg_test_arg2(i, 1);
	return sum == 45010 ? 0 : 1;
}
