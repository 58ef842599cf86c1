// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs whose calls the verifier describes in the ways the held-set
 * description tests read back from debugfs descriptions: a pointer held on
 * one path only, one acquired by different functions on two paths, static
 * and global function frames.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;

int take = 1;
int target_pid;
__u64 seen;

#define __naked __attribute__((naked))
#define __imm(name) [name]"i"(name)
#define __imm_addr(name) [name]"i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
#define private(name) SEC(".bss." #name) __hidden __attribute__((aligned(8)))

private(L) struct bpf_spin_lock held_lock;

/*
 * Held on one path, NULL on the other, at one call: one description,
 * maybe_null. In assembly, so that the compiler does not give each path
 * a call of its own.
 */
SEC("syscall")
__naked void held_two_paths(void)
{
	asm volatile (
	"r6 = 0;"
	"r1 = %[take] ll;"
	"r1 = *(u32 *)(r1 + 0);"
	"if r1 == 0 goto 1f;"
	"r1 = 1;"
	"call %[rtg_test_obj_get];"
	"r6 = r0;"
"1:"
	"call %[rtg_test_arg0];"
	"r1 = %[seen] ll;"
	"*(u64 *)(r1 + 0) = r0;"
	"if r6 == 0 goto 2f;"
	"r1 = r6;"
	"call %[rtg_test_obj_put];"
"2:"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(take), __imm_addr(seen), __imm(rtg_test_obj_get),
	  __imm(rtg_test_arg0), __imm(rtg_test_obj_put)
	: __clobber_all);
}

/* One task, acquired by bpf_task_acquire() or by bpf_task_from_pid(). */
SEC("syscall")
int held_two_acquirers(void *ctx)
{
	struct task_struct *a, *t;

	a = bpf_task_from_pid(target_pid);
	if (!a)
		return 1;
	if (take)
		t = bpf_task_acquire(a);
	else
		t = bpf_task_from_pid(target_pid);
	bpf_task_release(a);
	if (!t)
		return 1;
	seen = rtg_test_arg0();
	bpf_task_release(t);
	return 0;
}

/* Static functions: one description names the objects of all three frames. */
static __noinline int held_static2(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(3);

	if (!o)
		return 0;
	seen += rtg_test_arg1(n);
	rtg_test_obj_put(o);
	return 1;
}

static __noinline int held_static1(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(2);
	int r;

	if (!o)
		return 0;
	r = held_static2(n);
	rtg_test_obj_put(o);
	return r;
}

SEC("syscall")
int held_static_chain(void *ctx)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);
	int r;

	if (!o)
		return 0;
	r = held_static1(take);
	rtg_test_obj_put(o);
	return r;
}

/* Global functions: each is verified on its own, from no reference. */
__noinline int held_global2(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(3);

	if (!o)
		return 0;
	seen += rtg_test_arg2(n, 2);
	rtg_test_obj_put(o);
	return 1;
}

__noinline int held_global1(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(2);
	int r;

	if (!o)
		return 0;
	r = held_global2(n);
	rtg_test_obj_put(o);
	return r;
}

SEC("syscall")
int held_global_chain(void *ctx)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);
	int r;

	if (!o)
		return 0;
	r = held_global1(take);
	rtg_test_obj_put(o);
	return r;
}

int spin_loops = 1 << 23;

static int held_spin_cb(__u32 i, void *ctx)
{
	seen += rtg_test_arg0();
	return 0;
}

/*
 * Held on one path only, then a long loop whose callback's call is where
 * the watchdog stops the run: kept on the stack, the object is readable
 * from the callback's frame, NULL on the other path.
 */
SEC("syscall")
int held_two_paths_stop(void *ctx)
{
	struct rtg_test_obj * volatile o = NULL;

	if (take)
		o = rtg_test_obj_get(1);
	bpf_loop(spin_loops, held_spin_cb, NULL, 0);
	if (o)
		rtg_test_obj_put(o);
	return 0;
}

/*
 * A stop four frames deep, three of them global functions, each frame
 * holding an object: what the outer frames hold comes from the
 * descriptions of the global functions' calls, and their R6-R9 from what
 * the prologue of each frame inside saved. The innermost loops with an
 * open-coded iterator (also held) and no C function between the frames.
 */
__noinline int held_deep3(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(4);
	int i;

	if (!o)
		return 0;
	bpf_for(i, 0, spin_loops)
		seen += rtg_test_arg0();
	rtg_test_obj_put(o);
	return n;
}

static __noinline int held_deep_static(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(3);
	int r;

	if (!o)
		return 0;
	r = held_deep3(n);
	rtg_test_obj_put(o);
	return r;
}

__noinline int held_deep1(int n)
{
	struct rtg_test_obj *o = rtg_test_obj_get(2);
	int r;

	if (!o)
		return 0;
	r = held_deep_static(n);
	rtg_test_obj_put(o);
	return r;
}

SEC("syscall")
int held_deep_stop(void *ctx)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);
	int r;

	if (!o)
		return 0;
	r = held_deep1(take);
	rtg_test_obj_put(o);
	return r;
}

/*
 * Partly described: the loop's call is reached holding an object and an
 * iterator on one path and the iterator alone on the other, where the
 * object's register holds the scalar 1, which no description merges. A
 * stop there gives back what the run's table recorded: the acquisitions
 * that reach the call. The pair before it is described and not recorded.
 * In assembly, so that the compiler does not give each path a loop of
 * its own.
 */
SEC("syscall")
__naked void held_partly_stop(void)
{
	asm volatile (
	"r1 = 5;"
	"call %[rtg_test_obj_get];"
	"if r0 == 0 goto 3f;"
	"r6 = r0;"
	"r1 = 0;"
	"call %[rtg_test_arg1];"
	"r1 = r6;"
	"call %[rtg_test_obj_put];"
	"r7 = 1;"
	"r1 = %[take] ll;"
	"r8 = *(u32 *)(r1 + 0);"
	"if r8 == 0 goto 1f;"
	"r1 = 2;"
	"call %[rtg_test_obj_get];"
	"r7 = r0;"
"1:"
	"r1 = %[spin_loops] ll;"
	"r3 = *(u32 *)(r1 + 0);"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"call %[bpf_iter_num_new];"
"2:"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_next];"
	"if r0 == 0 goto 4f;"
	"call %[rtg_test_arg0];"
	"r1 = %[seen] ll;"
	"*(u64 *)(r1 + 0) = r0;"
	"goto 2b;"
"4:"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_destroy];"
	"if r8 == 0 goto 3f;"
	"if r7 == 0 goto 3f;"
	"r1 = r7;"
	"call %[rtg_test_obj_put];"
"3:"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(take), __imm_addr(seen), __imm_addr(spin_loops),
	  __imm(rtg_test_obj_get), __imm(rtg_test_obj_put), __imm(rtg_test_arg0),
	  __imm(rtg_test_arg1), __imm(bpf_iter_num_new), __imm(bpf_iter_num_next),
	  __imm(bpf_iter_num_destroy)
	: __clobber_all);
}

/*
 * Partly described, holding the spin lock at a call whose paths differ:
 * bpf_spin_unlock() is reached holding an object and the lock on one
 * path, the lock alone on the other, where the object's register holds
 * the scalar 1. The lock is in R1 on both: the description names its
 * place for every path. held_lock_places also keeps it in R6 on the
 * first path: the paths differ in the lock's places too (differs_state).
 */
#define HELD_LOCK_PROG(name, take_also)					\
SEC("syscall")								\
__naked void name(void)							\
{									\
	asm volatile (							\
	"r6 = 1;"							\
	"r7 = 1;"							\
	"r1 = %[take] ll;"						\
	"r8 = *(u32 *)(r1 + 0);"					\
	"if r8 == 0 goto 1f;"						\
	"r1 = 2;"							\
	"call %[rtg_test_obj_get];"					\
	"r7 = r0;"							\
	take_also							\
"1:"									\
	"r1 = %[held_lock] ll;"						\
	"call %[bpf_spin_lock];"					\
	"r1 = %[held_lock] ll;"						\
	"call %[bpf_spin_unlock];"					\
	"if r8 == 0 goto 2f;"						\
	"if r7 == 0 goto 2f;"						\
	"r1 = r7;"							\
	"call %[rtg_test_obj_put];"					\
"2:"									\
	"r0 = 0;"							\
	"exit;"								\
	:								\
	: __imm_addr(take), __imm_addr(held_lock), __imm(rtg_test_obj_get), \
	  __imm(rtg_test_obj_put), __imm(bpf_spin_lock), __imm(bpf_spin_unlock) \
	: __clobber_all);						\
}

HELD_LOCK_PROG(held_partly_lock, "")
HELD_LOCK_PROG(held_lock_places, "r6 = %[held_lock] ll;")

int loops = 3;

/*
 * A program that does not sleep: a pair its runs make once, then the same
 * pair on a loop (the compiler cannot unroll it: the bound is a global).
 */
SEC("tc")
int held_once(struct __sk_buff *skb)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);
	int i, r = 0;

	if (o)
		rtg_test_obj_put(o);
	for (i = 0; i < loops && i < 8; i++) {
		o = rtg_test_obj_get(2);
		if (o) {
			rtg_test_obj_put(o);
			r++;
		}
	}
	return r;
}

/*
 * A call made once, then a loop entered by a jump past its call, which
 * lies below the loop's test: on the cycle all the same.
 */
SEC("tc")
int held_once_entered(struct __sk_buff *skb)
{
	asm volatile (
	"r6 = 0;"
	"call %[bpf_get_prandom_u32];"
	"goto 2f;"
"1:"
	"call %[bpf_get_prandom_u32];"
	"r6 += 1;"
"2:"
	"if r6 < 3 goto 1b;"
	:
	: [bpf_get_prandom_u32]"i"(bpf_get_prandom_u32)
	: "r0", "r1", "r2", "r3", "r4", "r5", "r6", "memory");
	return 0;
}

/*
 * A program that does not sleep and runs straight through: its runs have
 * no place to stop, and are not bracketed.
 */
SEC("tc")
int held_straight(struct __sk_buff *skb)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);

	if (!o)
		return 0;
	rtg_test_obj_put(o);
	return 5;
}

static int held_straight_cb(__u32 i, void *ctx)
{
	return 0;
}

/* The same with a callback, which a run may call many times: bracketed. */
SEC("tc")
int held_straight_loop_cb(struct __sk_buff *skb)
{
	struct rtg_test_obj *o = rtg_test_obj_get(1);

	if (!o)
		return 0;
	rtg_test_obj_put(o);
	bpf_loop(2, held_straight_cb, NULL, 0);
	return 5;
}
