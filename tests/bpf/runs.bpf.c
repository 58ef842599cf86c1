// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs of tracked programs: a run that holds nothing, a run nested in a
 * run of the same program, references held across a global function,
 * preemption nested deeper than any fixed table, short runs for spurious
 * stops, and a program without any call.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

void bpf_preempt_disable(void) __ksym;
void bpf_preempt_enable(void) __ksym;

#define LONG_LOOP	(1 << 23)	/* BPF_MAX_LOOPS: minutes under TCG */

int self_fd;		/* set by the loader: a descriptor of runs_nested */
int outer_ret = 1, inner_ret = 1;
__u64 calls;

static int spin_cb(__u64 i, void *ctx)
{
	calls += bpf_get_prandom_u32() & 1;
	return 0;
}

/* Holds nothing; loops in a bpf_loop() callback that calls a helper. */
SEC("syscall")
int runs_idle_loop(void *ctx)
{
	bpf_loop(LONG_LOOP, spin_cb, NULL, 0);
	return 0;
}

/* The same program nested in its own run, in the same task and context. */
SEC("syscall")
int runs_nested(void *ctx)
{
	static int depth;
	struct rtg_test_obj *o;
	int ret = 0;

	o = rtg_test_obj_get(depth + 1);
	if (!o)
		return -1;
	if (depth++ == 0) {
		/* the inner run holds its own object and runs too long */
		inner_ret = rtg_test_run_nested(self_fd);
		outer_ret = 0;
	} else {
		bpf_loop(LONG_LOOP, spin_cb, NULL, 0);
		ret = 2;
	}
	depth--;
	rtg_test_obj_put(o);
	return ret;
}

#define GET(n)	struct rtg_test_obj *o##n = rtg_test_obj_get(n + 1)
#define PUT(n)	do { if (o##n) rtg_test_obj_put(o##n); } while (0)
/* eight here and eight in the global function: 16, within a run's table of 18 */
#define GET8()	GET(0); GET(1); GET(2); GET(3); GET(4); GET(5); GET(6); GET(7)
#define PUT8()	PUT(0); PUT(1); PUT(2); PUT(3); PUT(4); PUT(5); PUT(6); PUT(7)

/* A global function: verified on its own, its references add to the caller's. */
__noinline int take8_and_spin(int spin)
{
	GET8();
	if (spin)
		bpf_loop(LONG_LOOP, spin_cb, NULL, 0);
	PUT8();
	return 0;
}

SEC("syscall")
int runs_global(void *ctx)
{
	GET8();
	take8_and_spin(1);
	PUT8();
	return 0;
}

/* The same without the loop: for runs that must end on their own. */
SEC("syscall")
int runs_global_short(void *ctx)
{
	GET8();
	take8_and_spin(0);
	PUT8();
	return 0;
}

/* Preemption disabled 16 deep around a loop. */
SEC("syscall")
int runs_preempt16(void *ctx)
{
	int i;

	for (i = 0; i < 16; i++)
		bpf_preempt_disable();
	bpf_loop(LONG_LOOP, spin_cb, NULL, 0);
	for (i = 0; i < 16; i++)
		bpf_preempt_enable();
	return 0;
}

/* A short run holding something briefly (repeated by the test run). */
SEC("tc")
int runs_short(struct __sk_buff *skb)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);

	if (o)
		rtg_test_obj_put(o);
	return 0;
}

/* A sleepable run that holds an object while it blocks. */
SEC("syscall")
int runs_wait(void *ctx)
{
	struct rtg_test_obj *o = rtg_test_obj_get(7);
	int ret;

	if (!o)
		return -1;
	ret = rtg_test_wait();
	rtg_test_obj_put(o);
	return ret;
}

/* No helper or kfunc call at all: never tracked. */
SEC("tc")
int runs_no_calls(struct __sk_buff *skb)
{
	return skb->len > 10 ? 1 : 2;
}
