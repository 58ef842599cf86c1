// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs as rtg-strace -g shows them: a run whose calls are made by the
 * program, by a bpf_loop() callback and by a global function; one whose
 * callback makes more calls than a CPU keeps records of; and a run the
 * watchdog stops while it holds an object.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

static int loop_cb(__u64 i, void *ctx)
{
	bpf_get_prandom_u32();			/* strace: cb_prandom */
	return 0;
}

__noinline int global_work(int x)
{
	int r = bpf_get_prandom_u32() & x;	/* strace: work_prandom */

	return r + bpf_ktime_get_ns() * 0;	/* strace: work_ktime */
}

SEC("syscall")
int debug_graph(void *ctx)
{
	bpf_ktime_get_ns();			/* strace: main_ktime */
	bpf_loop(3, loop_cb, NULL, 0);		/* strace: main_loop */
	global_work(1);				/* strace: main_work */
	return 7;
}

/*
 * More calls inside one call than a CPU keeps records of (RTG_TRACE_CAP,
 * 144): the JIT records bpf_loop()'s call and the first of its
 * callback's, and the rest are written alone while bpf_loop()'s record
 * is open (a tc program: the calls of sleepable ones, such as syscall
 * programs, are not recorded in line)
 */
SEC("tc")
int debug_graph_full(struct __sk_buff *skb)
{
	return bpf_loop(200, loop_cb, NULL, 0);	/* strace: full_loop */
}

/* a second of sleeps while holding an object: a 100 ms watchdog stops it */
SEC("syscall")
int debug_stopped(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(1);
	int i;

	if (!obj)
		return 1;
	bpf_for(i, 0, 1000)
		rtg_test_sleep(1000);
	rtg_test_obj_put(obj);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} self_tail SEC(".maps");

int tail_runs;

/*
 * A BPF function that tail-calls debug_tail until the kernel's limit of
 * 33: it takes the tail call counter's pointer from its caller, past
 * the hooks around its call.
 */
__noinline int tail_again(struct __sk_buff *skb)
{
	tail_runs++;
	bpf_tail_call(skb, &self_tail, 0);
	return 9;
}

SEC("tc")
int debug_tail(struct __sk_buff *skb)
{
	return tail_again(skb) + 1;
}
