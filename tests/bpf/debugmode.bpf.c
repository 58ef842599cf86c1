// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seed's debug-mode scenario: a bpf_iter_num loop calling
 * bpf_task_from_pid, a CO-RE read and bpf_task_release, then
 * bpf_cpumask_create/release. The pointers the program saw are written to
 * seen_* so that the test can compare them with the trace.
 *
 * Lines tagged "strace: NAME" are the lines the trace must name for
 * those calls: the test finds the tags in this file (installed in the
 * guest as /rtg/src/debugmode.bpf.c).
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

	bpf_for(i, 0, 3) {	/* strace: bpf_for */
		struct task_struct *t = bpf_task_from_pid(target_pid);	/* strace: from_pid */

		if (!t)
			continue;
		seen_tasks[i & 3] = (__u64)t;
		seen_tgids[i & 3] = BPF_CORE_READ(t, tgid);	/* strace: core_read */
		bpf_task_release(t);	/* strace: release */
	}
	mask = bpf_cpumask_create();	/* strace: cpumask_create */
	if (mask) {
		seen_mask = (__u64)mask;
		bpf_cpumask_release(mask);	/* strace: cpumask_release */
	}
	return 0;
}

/* loaded next to test_debug_mode, never with BPF_F_DEBUG_MODE */
SEC("syscall")
int debug_other(void *ctx)
{
	return rtg_test_arg2(1, 2) == 1002 ? 0 : 1;
}

static __always_inline int burst(void)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < 10; i++)
		sum += rtg_test_arg2(i, 1);
	return sum == 45010 ? 0 : 1;
}

/*
 * ten traced calls per run, for the all-CPU test: recorded in line by the
 * JIT (a tc program) ...
 */
SEC("tc")
int debug_burst(struct __sk_buff *skb)
{
	return burst();
}

/* ... and through the post hook (a sleepable program), in the same records */
SEC("syscall")
int debug_burst_sleepable(void *ctx)
{
	return burst();
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} dm_hash SEC(".maps");

/* helpers that fail, and what they returned */
long delete_ret, copy_ret;
char copy_buf[8];

SEC("syscall")
int debug_errno(void *ctx)
{
	__u32 missing = 12345;

	delete_ret = bpf_map_delete_elem(&dm_hash, &missing);	/* strace: delete_missing */
	/* a user address nothing is mapped at */
	copy_ret = bpf_copy_from_user(copy_buf, sizeof(copy_buf), (void *)8);	/* strace: copy_bad */
	return 0;
}

/* A mix of calls, each counted by the program itself, for -c, -e and -j. */
__u64 n_arg2, n_update, n_delete, n_delete_failed, n_from_pid, n_release;

SEC("syscall")
int debug_counted(void *ctx)
{
	__u64 one = 1;
	__u32 key;
	int i;

	for (i = 0; i < 12; i++) {
		key = i;
		n_arg2++;
		rtg_test_arg2(i, 2);
		if (i % 3 == 0) {
			n_update++;
			bpf_map_update_elem(&dm_hash, &key, &one, BPF_ANY);
		}
		/* keys 0, 3, 6, 9 exist: the others fail with -ENOENT */
		if (i % 2 == 0) {
			n_delete++;
			if (bpf_map_delete_elem(&dm_hash, &key))
				n_delete_failed++;
		}
		if (i % 4 == 1) {
			struct task_struct *t;

			n_from_pid++;
			t = bpf_task_from_pid(target_pid);
			if (t) {
				n_release++;
				bpf_task_release(t);
			}
		}
	}
	/* empty the map for the next run */
	for (i = 0; i < 12; i += 3) {
		key = i;
		n_delete++;
		if (bpf_map_delete_elem(&dm_hash, &key))
			n_delete_failed++;
	}
	return 0;
}
