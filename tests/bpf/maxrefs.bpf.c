// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs whose largest number of simultaneously held references is
 * known: the verifier must record exactly that in max_acquired_refs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"

char LICENSE[] SEC("license") = "GPL";

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

int branch;

/* one at a time, twice: 1 */
SEC("syscall")
int refs_one(void *ctx)
{
	struct rtg_test_obj *a;

	a = rtg_test_obj_get(1);
	if (a)
		rtg_test_obj_put(a);
	a = rtg_test_obj_get(2);
	if (a)
		rtg_test_obj_put(a);
	return 0;
}

/* two on one path, three on the other: 3 */
SEC("syscall")
int refs_three(void *ctx)
{
	struct rtg_test_obj *a, *b, *c = NULL;

	a = rtg_test_obj_get(1);
	if (!a)
		return 0;
	b = rtg_test_obj_get(2);
	if (!b)
		goto put_a;
	if (branch)
		c = rtg_test_obj_get(3);
	if (c)
		rtg_test_obj_put(c);
	rtg_test_obj_put(b);
put_a:
	rtg_test_obj_put(a);
	return 0;
}

/* an iterator holds a reference too: iterator + object = 2 */
SEC("syscall")
int refs_iter(void *ctx)
{
	struct bpf_iter_num it;
	struct rtg_test_obj *a;
	int *v;

	bpf_iter_num_new(&it, 0, 2);
	while ((v = bpf_iter_num_next(&it))) {
		a = rtg_test_obj_get(*v + 1);
		if (a)
			rtg_test_obj_put(a);
	}
	bpf_iter_num_destroy(&it);
	return 0;
}

/* hold @n objects at once, from a global function verified on its own */
static __always_inline int hold(int n)
{
	struct rtg_test_obj *a = NULL, *b = NULL, *c = NULL;

	a = rtg_test_obj_get(1);
	if (!a)
		return 0;
	if (n > 1)
		b = rtg_test_obj_get(2);
	if (b && n > 2)
		c = rtg_test_obj_get(3);
	if (c)
		rtg_test_obj_put(c);
	if (b)
		rtg_test_obj_put(b);
	rtg_test_obj_put(a);
	return 0;
}

__noinline int take_two(int x)
{
	return hold(2) + x;
}

__noinline int take_three(int x)
{
	return hold(3) + x;
}

/* holds one, then calls a global function that holds one and calls take_three */
__noinline int one_then_three(int x)
{
	struct rtg_test_obj *a = rtg_test_obj_get(4);
	int r = 0;

	if (a) {
		r = take_three(x);
		rtg_test_obj_put(a);
	}
	return r;
}

/* one held across take_two, then across take_three: 1 + 3, not 1 + 2 + 3 */
SEC("syscall")
int refs_global_chain(void *ctx)
{
	struct rtg_test_obj *a = rtg_test_obj_get(5);
	int r;

	if (!a)
		return 0;
	r = take_two(0) + take_three(0);
	rtg_test_obj_put(a);
	return r;
}

/* a chain of three entries: 1 + 1 + 3 */
SEC("syscall")
int refs_global_nested(void *ctx)
{
	struct rtg_test_obj *a = rtg_test_obj_get(6);
	int r;

	if (!a)
		return 0;
	r = one_then_three(0);
	rtg_test_obj_put(a);
	return r;
}
