// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracking benchmark programs (tc, so that BPF_PROG_TEST_RUN repeats and
 * times them): ten acquire+release pairs per run, and twenty (_x2, so
 * that what the ten more cost is the pairs' alone), unrolled (a run makes
 * each call once) or on a loop (_loop), with 0, 1, 8 or 16 other
 * references held meanwhile, acquired before and released after
 * them, first in first out within each group of eight; and ten atomic
 * adds on a map value as the yardstick the maintainers named. 16, not
 * more: a run's table holds 18 references (a 512-byte run area).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u64 counter;

#define PAIRS 10

/* n pairs, unrolled (a run makes each call once) or on a loop */
#define TASK_PAIRS(name, unroll)					\
static __always_inline int name(int n)					\
{									\
	int i, bad = 0;							\
									\
	_Pragma(unroll)							\
	for (i = 0; i < n; i++) {					\
		struct task_struct *t = bpf_task_from_pid(1);		\
									\
		if (t)							\
			bpf_task_release(t);				\
		else							\
			bad++;						\
	}								\
	return bad;							\
}

TASK_PAIRS(task_pairs, "clang loop unroll(full)")
TASK_PAIRS(task_pairs_looped, "clang loop unroll(disable)")

SEC("tc")
int pairs_task(struct __sk_buff *skb)
{
	return task_pairs(PAIRS);
}

SEC("tc")
int pairs_task_x2(struct __sk_buff *skb)
{
	return task_pairs(2 * PAIRS);
}

SEC("tc")
int pairs_obj(struct __sk_buff *skb)
{
	int i, bad = 0;

#pragma clang loop unroll(full)
	for (i = 0; i < PAIRS; i++) {
		struct rtg_test_obj *o = rtg_test_obj_get(1);

		if (o)
			rtg_test_obj_put(o);
		else
			bad++;
	}
	return bad;
}

SEC("tc")
int pairs_task_loop(struct __sk_buff *skb)
{
	return task_pairs_looped(PAIRS);
}

SEC("tc")
int pairs_task_loop_x2(struct __sk_buff *skb)
{
	return task_pairs_looped(2 * PAIRS);
}

SEC("tc")
int atomic_adds(struct __sk_buff *skb)
{
	int i;

	for (i = 0; i < PAIRS; i++)
		__sync_fetch_and_add(&counter, 1);
	return 0;
}

SEC("tc")
int plain_adds(struct __sk_buff *skb)
{
	int i;

	for (i = 0; i < PAIRS; i++)
		counter += 1;
	return 0;
}

#define GET(n)	struct rtg_test_obj *o##n = rtg_test_obj_get(1)
#define PUT(n)	do { if (o##n) rtg_test_obj_put(o##n); } while (0)
#define GET8(n)	GET(n##0); GET(n##1); GET(n##2); GET(n##3); \
		GET(n##4); GET(n##5); GET(n##6); GET(n##7)
#define PUT8(n)	PUT(n##0); PUT(n##1); PUT(n##2); PUT(n##3); \
		PUT(n##4); PUT(n##5); PUT(n##6); PUT(n##7)

#define HELD_PROGS(name, get, put)				\
SEC("tc")							\
int name(struct __sk_buff *skb)					\
{								\
	get;							\
	int bad = task_pairs(PAIRS);				\
								\
	put;							\
	return bad;						\
}								\
								\
SEC("tc")							\
int name##_x2(struct __sk_buff *skb)				\
{								\
	get;							\
	int bad = task_pairs(2 * PAIRS);			\
								\
	put;							\
	return bad;						\
}

HELD_PROGS(pairs_task_held1, GET(0), PUT(0))
HELD_PROGS(pairs_task_held8, GET8(1), PUT8(1))
HELD_PROGS(pairs_task_held16, GET8(1); GET8(2), PUT8(2); PUT8(1))

int partly_take;

/*
 * A call that paths reach holding an object or, in its register, the
 * scalar 1: its description says that the paths differ, so the program
 * is partly described, and the pairs after it, which never reach it, are
 * not recorded. In assembly, so that the compiler does not give each
 * path a call of its own.
 */
static __always_inline void differing_call(void)
{
	asm volatile (
	"r7 = 1;"
	"r1 = %[partly_take] ll;"
	"r8 = *(u32 *)(r1 + 0);"
	"if r8 == 0 goto 1f;"
	"r1 = 1;"
	"call %[rtg_test_obj_get];"
	"r7 = r0;"
"1:"
	"call %[bpf_get_prandom_u32];"
	"if r8 == 0 goto 2f;"
	"if r7 == 0 goto 2f;"
	"r1 = r7;"
	"call %[rtg_test_obj_put];"
"2:"
	:
	: [partly_take]"i"(&partly_take), [rtg_test_obj_get]"i"(rtg_test_obj_get),
	  [bpf_get_prandom_u32]"i"(bpf_get_prandom_u32), [rtg_test_obj_put]"i"(rtg_test_obj_put)
	: "r0", "r1", "r2", "r3", "r4", "r5", "r7", "r8", "memory");
}

SEC("tc")
int pairs_task_partly(struct __sk_buff *skb)
{
	differing_call();
	return task_pairs(PAIRS);
}

SEC("tc")
int pairs_task_partly_x2(struct __sk_buff *skb)
{
	differing_call();
	return task_pairs(2 * PAIRS);
}
