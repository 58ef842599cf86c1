// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program shapes the project's first suites did not try, each of which
 * once made a stop (or a throw) harm the kernel: a throw from a traced
 * program, a stop inside a bpf_loop() callback of a traced program,
 * bpf_kptr_xchg() met by fast-execute, a program with its own exception
 * callback, and more.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_bpf.h"
#include "rtg_testmod.h"

char LICENSE[] SEC("license") = "GPL";

extern void bpf_throw(u64 cookie) __ksym;

int target_pid;
int outer = 1000000;	/* far beyond any budget */
int zero;		/* a bpf_loop flags argument the verifier can't see */
__u64 sum;

/* a long stretch with no call: the watchdog's mark lands here */
static __always_inline void no_call_spin(void)
{
	int j;

	for (j = 0; j < 4000; j++) {
		sum += j;
		asm volatile("" ::: "memory");
	}
}

/* ---- a throw through a traced call: the main frame's registers ---- */

SEC("tc")
int harm_throw(struct __sk_buff *skb)
{
	sum += bpf_get_prandom_u32();
	if (skb->len)
		bpf_throw(64);
	return 1;
}

/* ---- a stop inside a bpf_loop() callback, the loop call traced ---- */

static int loop_cb(__u64 i, void *ctx)
{
	sum += bpf_get_prandom_u32() & 1;
	return 0;
}

SEC("syscall")
int harm_loop_cb(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(target_pid);
	int i;

	if (!t)
		return 0;
	/* zero keeps bpf_loop() a call, and its callback a frame of its own */
	bpf_for(i, 0, outer)
		bpf_loop(1000, loop_cb, NULL, zero);
	bpf_task_release(t);
	return 0;
}

/* ---- bpf_kptr_xchg() and fast-execute ---- */

struct stash_value {
	struct task_struct __kptr *task;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct stash_value);
} stash SEC(".maps");

/*
 * A callback of bpf_for_each_map_elem() cannot be unwound: a stop in it
 * fast-executes. The mark lands in the stretch with no call, so the stop
 * comes at bpf_kptr_xchg(), which must not be skipped: the verifier
 * already counts t as the map's.
 */
static long xchg_cb(struct bpf_map *map, int *key, struct stash_value *v, void *ctx)
{
	struct task_struct *t;
	int i;

	bpf_for(i, 0, outer) {
		t = bpf_task_from_pid(target_pid);
		/* NULL once the run fast-executes */
		if (!t)
			return 1;
		no_call_spin();
		t = bpf_kptr_xchg(&v->task, t);
		if (t)
			bpf_task_release(t);
	}
	return 1;
}

SEC("syscall")
int harm_xchg(void *ctx)
{
	bpf_for_each_map_elem(&stash, xchg_cb, NULL, 0);
	return 0;
}

/* One task reference into the map: what a leak check must see. */
SEC("syscall")
int harm_stash_one(void *ctx)
{
	struct stash_value *v;
	struct task_struct *t;
	int key = 0;

	v = bpf_map_lookup_elem(&stash, &key);
	if (!v)
		return 1;
	t = bpf_task_from_pid(target_pid);
	if (!t)
		return 1;
	t = bpf_kptr_xchg(&v->task, t);
	if (t)
		bpf_task_release(t);
	return 0;
}

/* ---- a program with its own exception callback ---- */

#define __exception_cb(name) __attribute__((btf_decl_tag("exception_callback:" #name)))

__noinline int harm_own_cb(u64 cookie)
{
	/* what the program says when it throws; never a stop's value */
	return 7;
}

SEC("syscall")
__exception_cb(harm_own_cb)
int harm_custom_cb(void *ctx)
{
	int i, j;

	bpf_for(i, 0, outer)
		bpf_for(j, 0, 1000)
			sum += bpf_get_prandom_u32() & 1;
	/* never at run time; the verifier sees a throw */
	if (zero == 1)
		bpf_throw(1);
	return 0;
}

/* ---- a socket filter whose result a reuseport group reads as an index ---- */

SEC("socket")
int harm_reuseport_pick(struct __sk_buff *skb)
{
	return bpf_get_prandom_u32() & 1;
}

/* cls_bpf without direct action reads the result as a class id */
SEC("tc")
int harm_classid(struct __sk_buff *skb)
{
	return bpf_get_prandom_u32() & 1 ? 0x10001 : 0;
}

SEC("tc")
int harm_tc_verdict(struct __sk_buff *skb)
{
	sum += bpf_get_prandom_u32();
	return 0;	/* TC_ACT_OK */
}

/* ---- more references than a run's table holds ---- */

/*
 * The run area is capped (BPF_CALL_HOOK_MAX_RUN_SIZE: 18 references and
 * a spin lock): a run holding 20 is incomplete, so a stop fast-executes
 * it and the program gives everything back on its own way out.
 */
SEC("syscall")
int harm_many_refs(void *ctx)
{
	struct task_struct *t0, *t1, *t2, *t3, *t4, *t5, *t6, *t7, *t8, *t9, *t10, *t11, *t12, *t13, *t14, *t15, *t16, *t17, *t18, *t19;
	int i, j;

	t0 = bpf_task_from_pid(target_pid);
	if (!t0)
		return 0;
	t1 = bpf_task_from_pid(target_pid);
	if (!t1)
		goto r0;
	t2 = bpf_task_from_pid(target_pid);
	if (!t2)
		goto r1;
	t3 = bpf_task_from_pid(target_pid);
	if (!t3)
		goto r2;
	t4 = bpf_task_from_pid(target_pid);
	if (!t4)
		goto r3;
	t5 = bpf_task_from_pid(target_pid);
	if (!t5)
		goto r4;
	t6 = bpf_task_from_pid(target_pid);
	if (!t6)
		goto r5;
	t7 = bpf_task_from_pid(target_pid);
	if (!t7)
		goto r6;
	t8 = bpf_task_from_pid(target_pid);
	if (!t8)
		goto r7;
	t9 = bpf_task_from_pid(target_pid);
	if (!t9)
		goto r8;
	t10 = bpf_task_from_pid(target_pid);
	if (!t10)
		goto r9;
	t11 = bpf_task_from_pid(target_pid);
	if (!t11)
		goto r10;
	t12 = bpf_task_from_pid(target_pid);
	if (!t12)
		goto r11;
	t13 = bpf_task_from_pid(target_pid);
	if (!t13)
		goto r12;
	t14 = bpf_task_from_pid(target_pid);
	if (!t14)
		goto r13;
	t15 = bpf_task_from_pid(target_pid);
	if (!t15)
		goto r14;
	t16 = bpf_task_from_pid(target_pid);
	if (!t16)
		goto r15;
	t17 = bpf_task_from_pid(target_pid);
	if (!t17)
		goto r16;
	t18 = bpf_task_from_pid(target_pid);
	if (!t18)
		goto r17;
	t19 = bpf_task_from_pid(target_pid);
	if (!t19)
		goto r18;
	bpf_for(i, 0, outer)
		bpf_for(j, 0, 1000)
			sum += bpf_get_prandom_u32() & 1;
	bpf_task_release(t19);
r18:
	bpf_task_release(t18);
r17:
	bpf_task_release(t17);
r16:
	bpf_task_release(t16);
r15:
	bpf_task_release(t15);
r14:
	bpf_task_release(t14);
r13:
	bpf_task_release(t13);
r12:
	bpf_task_release(t12);
r11:
	bpf_task_release(t11);
r10:
	bpf_task_release(t10);
r9:
	bpf_task_release(t9);
r8:
	bpf_task_release(t8);
r7:
	bpf_task_release(t7);
r6:
	bpf_task_release(t6);
r5:
	bpf_task_release(t5);
r4:
	bpf_task_release(t4);
r3:
	bpf_task_release(t3);
r2:
	bpf_task_release(t2);
r1:
	bpf_task_release(t1);
r0:
	bpf_task_release(t0);
	return 0;
}

/* ---- ring buffer records given back through dynptr clones ---- */

extern int bpf_dynptr_clone(const struct bpf_dynptr *ptr, struct bpf_dynptr *clone__init) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} clone_rb SEC(".maps");

/* calls, with nothing held but the loop's iterators */
static __always_inline void busy(int n)
{
	int i, j;

	bpf_for(i, 0, n)
		bpf_for(j, 0, 1000)
			sum += bpf_get_prandom_u32() & 1;
}

/*
 * The record is submitted through a clone: the release matches the
 * group, the table is still the truth, and the stop unwinds what is
 * left (the loop's iterators), never the record again.
 */
SEC("syscall")
int harm_dynptr_clone(void *ctx)
{
	struct bpf_dynptr ptr, clone;

	if (bpf_ringbuf_reserve_dynptr(&clone_rb, 1024, 0, &ptr)) {
		bpf_ringbuf_discard_dynptr(&ptr, 0);
		return 1;
	}
	bpf_dynptr_clone(&ptr, &clone);
	bpf_ringbuf_submit_dynptr(&clone, 0);
	busy(outer);
	return 0;
}

/* Stopped while a record and two generations of clones are held. */
SEC("syscall")
int harm_clone_held(void *ctx)
{
	struct bpf_dynptr ptr, clone, clone2;

	if (bpf_ringbuf_reserve_dynptr(&clone_rb, 1024, 0, &ptr)) {
		bpf_ringbuf_discard_dynptr(&ptr, 0);
		return 1;
	}
	bpf_dynptr_clone(&ptr, &clone);
	bpf_dynptr_clone(&clone, &clone2);
	busy(outer);
	bpf_ringbuf_submit_dynptr(&clone2, 0);
	return 0;
}

/*
 * After a record given back through a clone, a second record held for
 * long is still judged by hold_limit_us: the stop discards it alone.
 */
SEC("syscall")
int harm_clone_hold(void *ctx)
{
	struct bpf_dynptr a, clone, b;

	if (bpf_ringbuf_reserve_dynptr(&clone_rb, 1024, 0, &a)) {
		bpf_ringbuf_discard_dynptr(&a, 0);
		return 1;
	}
	bpf_dynptr_clone(&a, &clone);
	bpf_ringbuf_submit_dynptr(&clone, 0);
	if (bpf_ringbuf_reserve_dynptr(&clone_rb, 1024, 0, &b)) {
		bpf_ringbuf_discard_dynptr(&b, 0);
		return 1;
	}
	busy(outer);
	bpf_ringbuf_submit_dynptr(&b, 0);
	return 0;
}

/* A failed reservation's dynptr, cloned and discarded through the clone. */
SEC("syscall")
int harm_clone_null(void *ctx)
{
	struct bpf_dynptr ptr, clone;
	int failed;

	/* larger than the ring buffer: the dynptr is NULL, still to give back */
	failed = bpf_ringbuf_reserve_dynptr(&clone_rb, 8192, 0, &ptr);
	bpf_dynptr_clone(&ptr, &clone);
	bpf_ringbuf_discard_dynptr(&clone, 0);
	busy(outer);
	return failed ? 0 : 1;
}

RINGBUF_FITS_PROG(harm_clone_fits, clone_rb)

/* ---- stress: records given back through any member of a clone group ---- */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} stress_rb SEC(".maps");

__u64 stress_submits;

SEC("syscall")
int harm_clone_stress(void *ctx)
{
	struct bpf_dynptr ptr, c1, c2;
	__u32 r = bpf_get_prandom_u32();
	bool ok;

	ok = !bpf_ringbuf_reserve_dynptr(&stress_rb, 8, 0, &ptr);
	bpf_dynptr_clone(&ptr, &c1);
	bpf_dynptr_clone(&c1, &c2);
	busy(r % outer);
	if (r & 1)
		bpf_ringbuf_submit_dynptr(&c1, 0);
	else if (r & 2)
		bpf_ringbuf_submit_dynptr(&c2, 0);
	else
		bpf_ringbuf_submit_dynptr(&ptr, 0);
	/* no call between the submit and the count: no stop either */
	if (ok)
		__sync_fetch_and_add(&stress_submits, 1);
	busy(outer);
	return 0;
}

/* ---- a stop gives the caller back its callee-saved registers ---- */

int keep_fd;		/* the program rtg_test_run_keeping() runs */
int keep_ret;
__u64 keep_diff[6];	/* rbx, r12, r13, r14, r15, rbp: 0 when given back */

/* R6-R9 get values of this frame's own, then the stop lands here */
static __noinline int keep_spin(int n)
{
	asm volatile ("r6 = 6; r7 = 7; r8 = 8; r9 = 9;" ::: "r6", "r7", "r8", "r9");
	busy(n);
	return 0;
}

/* the stop in the main frame, which uses R6 alone */
SEC("syscall")
int harm_keep_main(void *ctx)
{
	asm volatile ("r6 = 6;" ::: "r6");
	busy(outer);
	return 0;
}

/* the stop in a function whose frame saved all of R6-R9; the main frame saved none */
SEC("syscall")
int harm_keep_sub(void *ctx)
{
	return keep_spin(outer);
}

/* the same, with the main frame holding a task reference */
SEC("syscall")
int harm_keep_sub_ref(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(target_pid);

	if (!t)
		return 0;
	keep_spin(outer);
	bpf_task_release(t);
	return 0;
}

static int keep_loop_cb(__u64 i, void *ctx)
{
	asm volatile ("r6 = 6; r7 = 7; r8 = 8; r9 = 9;" ::: "r6", "r7", "r8", "r9");
	sum += bpf_get_prandom_u32() & 1;
	return 0;
}

/* the stop in a bpf_loop() callback: the main frame saved them all */
SEC("syscall")
int harm_keep_loop(void *ctx)
{
	int i;

	bpf_for(i, 0, outer)
		bpf_loop(1000, keep_loop_cb, NULL, zero);
	return 0;
}

SEC("syscall")
int harm_keep_caller(void *ctx)
{
	keep_ret = rtg_test_run_keeping(keep_fd, keep_diff, sizeof(keep_diff));
	return 0;
}
