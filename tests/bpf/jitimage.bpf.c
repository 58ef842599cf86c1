// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program without maps or global data, so that two loads of it JIT to
 * the same bytes except for the rel32 of calls (the image moves): helpers,
 * kfuncs from vmlinux and from a module, and a bpf-to-bpf call that must
 * never be redirected.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __noinline u64 jit_subprog(u64 x)
{
	return rtg_test_arg5(x, 1, 2, 3, 4) + rtg_test_arg0();
}

SEC("syscall")
int jit_prog(void *ctx)
{
	struct task_struct *t;
	u64 r = bpf_ktime_get_ns() ? 0 : 100;

	t = bpf_task_from_pid(1);
	if (t) {
		r += t->pid;
		bpf_task_release(t);
	}
	r += jit_subprog(r);
	/* 1 + (1 + 2 + 6 + 12 + 20 + rtg_test_arg0()) */
	return r - 0x123456789abcdef0ULL == 42 ? 0 : 1;
}
