// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark programs. bench_calls makes ten kfunc calls per run; the
 * kprobe/kretprobe and fentry/fexit pairs are what a user would attach
 * today to get the same per-call record (arguments, result, start time,
 * duration, CPU) into a BPF ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_testmod.h"

char LICENSE[] SEC("license") = "GPL";

struct call_rec {
	__u64 start_ns, dur_ns, args[5], ret, ip;
	__u32 cpu, pad;
};

struct call_start {
	__u64 start_ns, args[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct call_start);
} starts SEC(".maps");

/* a tc program: BPF_PROG_TEST_RUN repeats and times those */
SEC("tc")
int bench_calls(struct __sk_buff *skb)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < 10; i++)
		sum += rtg_test_arg2(i, 1);
	return sum == 45010 ? 0 : 1;
}

int bench_loops = 10;

/* The same calls on a loop: its runs are bracketed, its calls tested. */
SEC("tc")
int bench_calls_loop(struct __sk_buff *skb)
{
	__u64 sum = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < bench_loops && i < 10; i++)
		sum += rtg_test_arg2(i, 1);
	return sum == 45010 ? 0 : 1;
}

int bench_work_sum;

/* a global function: each call of it is a BPF-to-BPF call of its own */
__noinline int bench_work(int x)
{
	bench_work_sum += x;
	return x + 1;
}

/* ten BPF-to-BPF calls, for what debug mode's hooks add to such a call */
SEC("tc")
int bench_func_calls(struct __sk_buff *skb)
{
	int sum = 0, i;

	for (i = 0; i < 10; i++)
		sum += bench_work(i);
	return sum == 55 ? 0 : 1;
}

static __always_inline void call_begin(__u64 a, __u64 b)
{
	__u32 zero = 0;
	struct call_start *s = bpf_map_lookup_elem(&starts, &zero);

	if (!s)
		return;
	s->args[0] = a;
	s->args[1] = b;
	s->start_ns = bpf_ktime_get_ns();
}

static __always_inline void call_end(__u64 ret, __u64 ip)
{
	__u32 zero = 0;
	struct call_start *s = bpf_map_lookup_elem(&starts, &zero);
	struct call_rec *r;

	if (!s)
		return;
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r)
		return;
	r->start_ns = s->start_ns;
	r->dur_ns = bpf_ktime_get_ns() - s->start_ns;
	r->args[0] = s->args[0];
	r->args[1] = s->args[1];
	r->args[2] = r->args[3] = r->args[4] = 0;
	r->ret = ret;
	r->ip = ip;
	r->cpu = bpf_get_smp_processor_id();
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * One call per run: tracked minus untracked is a run's entry and exit,
 * none for this program, which runs straight through.
 */
SEC("tc")
int bench_one_call(struct __sk_buff *skb)
{
	return rtg_test_arg0() == 0x123456789abcdef0ULL ? 0 : 1;
}

int bench_one_turn = 1;

/* The same with a loop of one turn and no call: its runs are bracketed. */
SEC("tc")
int bench_one_call_loop(struct __sk_buff *skb)
{
	int r = rtg_test_arg0() == 0x123456789abcdef0ULL ? 0 : 1;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < bench_one_turn && i < 4; i++)
		asm volatile ("" : "+r"(r));
	return r;
}

SEC("kprobe/rtg_test_arg2")
int BPF_KPROBE(kp_entry, __u32 a, __u32 b)
{
	call_begin(a, b);
	return 0;
}

SEC("kretprobe/rtg_test_arg2")
int BPF_KRETPROBE(kp_exit, __u32 ret)
{
	call_end(ret, PT_REGS_IP(ctx));
	return 0;
}

SEC("fentry/rtg_test_arg2")
int BPF_PROG(fe_entry, __u32 a, __u32 b)
{
	call_begin(a, b);
	return 0;
}

SEC("fexit/rtg_test_arg2")
int BPF_PROG(fe_exit, __u32 a, __u32 b, __u32 ret)
{
	call_end(ret, bpf_get_func_ip(ctx));
	return 0;
}
