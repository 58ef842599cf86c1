// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runaway programs for the watchdog: nested loops while holding
 * references, a long hold, a loop inside a subprogram, a bpf_loop
 * callback called from C, and RCU + ring buffer + iterator held at once.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

int target_pid;
int outer = 1000000;	/* loop bounds: far beyond any budget */
int zero;		/* a bpf_loop flags argument the verifier can't see */
__u64 sum;

static __always_inline void spin(int n)
{
	int i, j;

	bpf_for(i, 0, n)
		bpf_for(j, 0, 1000)
			sum += rtg_test_arg2(i, j);
}

/* holds an object and a task through nested loops */
static __always_inline int loop_run(void)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(1);
	struct task_struct *t;

	if (!obj)
		return 1;
	t = bpf_task_from_pid(target_pid);
	if (t) {
		spin(outer);
		bpf_task_release(t);
	}
	rtg_test_obj_put(obj);
	return 0;
}

SEC("syscall")
int wd_loop(void *ctx)
{
	return loop_run();
}

/*
 * The _tc twins: the same runs in a program that cannot sleep, whose lazy
 * runs keep nothing in their frames
 */
SEC("tc")
int wd_loop_tc(struct __sk_buff *skb)
{
	return loop_run();
}

/*
 * Stopped with a table the JIT and the hooks both wrote: b given back out
 * of order (the hook's search), d pushed and popped in line; a and c held.
 */
SEC("syscall")
int wd_out_of_order(void *ctx)
{
	struct rtg_test_obj *a, *b, *c, *d;

	a = rtg_test_obj_get(1);
	if (!a)
		return 1;
	b = rtg_test_obj_get(2);
	if (!b)
		goto put_a;
	c = rtg_test_obj_get(3);
	if (!c) {
		rtg_test_obj_put(b);
		goto put_a;
	}
	rtg_test_obj_put(b);
	d = rtg_test_obj_get(4);
	if (d)
		rtg_test_obj_put(d);
	spin(outer);
	rtg_test_obj_put(c);
put_a:
	rtg_test_obj_put(a);
	return 0;
}

/* quick: ten short holds in a longer run */
SEC("syscall")
int wd_short_holds(void *ctx)
{
	int i;

	bpf_for(i, 0, 10) {
		struct rtg_test_obj *obj = rtg_test_obj_get(i + 1);

		if (obj)
			rtg_test_obj_put(obj);
		rtg_test_sleep(2000);
	}
	return 0;
}

static __noinline int sub_spin(int n)
{
	spin(n);
	return 0;
}

/* the loop runs in a subprogram */
SEC("syscall")
int wd_subprog(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(2);

	if (!obj)
		return 1;
	sub_spin(outer);
	rtg_test_obj_put(obj);
	return 0;
}

static int cb(__u64 i, void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(i + 1);

	if (obj) {
		sum += rtg_test_arg2(i, 1);
		rtg_test_obj_put(obj);
	}
	return 0;
}

/* bpf_loop not inlined (flags unknown to the verifier): C calls cb */
SEC("syscall")
int wd_loop_cb(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(3);

	if (!obj)
		return 1;
	bpf_loop(outer, cb, NULL, zero);
	rtg_test_obj_put(obj);
	return 0;
}

/* RCU read section, ring buffer record and an iterator at once */
SEC("syscall")
int wd_sections(void *ctx)
{
	__u64 *r;

	bpf_rcu_read_lock();
	r = bpf_ringbuf_reserve(&rb, 2048, 0);
	if (r) {
		spin(outer);
		bpf_ringbuf_discard(r, 0);
	}
	bpf_rcu_read_unlock();
	return 0;
}

RINGBUF_FITS_PROG(wd_rb_check, rb)

__u16 listen_port;

/* a socket from sk_lookup held through the loops of a tc program */
SEC("tc")
int wd_tc_sock(struct __sk_buff *skb)
{
	struct bpf_sock *sk = lookup_listener(skb, listen_port);

	if (!sk)
		return 1;
	spin(outer);
	bpf_sk_release(sk);
	return 0;
}

int inner_pid;
__u64 inner_runs;

/* tracked too, and runs inside every rtg_test_arg2() of wd_loop */
SEC("fentry/rtg_test_arg2")
int BPF_PROG(wd_inner, __u32 a, __u32 b)
{
	struct rtg_test_obj *obj;

	if ((bpf_get_current_pid_tgid() >> 32) != inner_pid)
		return 0;
	obj = rtg_test_obj_get(5);
	if (obj) {
		inner_runs++;
		rtg_test_obj_put(obj);
	}
	return 0;
}

__u64 inner_loop_runs;

/*
 * The same with a loop: its lazy runs keep nothing in their frames and
 * nest in those of wd_loop_tc, whose exits see them
 */
SEC("fentry/rtg_test_arg2")
int BPF_PROG(wd_inner_loop, __u32 a, __u32 b)
{
	struct rtg_test_obj *obj;
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != inner_pid)
		return 0;
	bpf_for(i, 0, 2) {
		obj = rtg_test_obj_get(5);
		if (obj) {
			inner_loop_runs++;
			rtg_test_obj_put(obj);
		}
	}
	return 0;
}

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

/* loops with preemption disabled */
SEC("syscall")
int wd_preempt(void *ctx)
{
	bpf_preempt_disable();
	spin(outer);
	bpf_preempt_enable();
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct locked);
} lock_map SEC(".maps");

/* takes and drops a spin lock in a loop while it holds an object */
SEC("tc")
int wd_spin(struct __sk_buff *skb)
{
	struct rtg_test_obj *obj;
	struct locked *v;
	__u32 key = 0;
	int i;

	v = bpf_map_lookup_elem(&lock_map, &key);
	if (!v)
		return 1;
	obj = rtg_test_obj_get(4);
	if (!obj)
		return 1;
	bpf_for(i, 0, outer) {
		int k;

		bpf_spin_lock(&v->lock);
		/* some time under the lock, where the timer can mark the run */
		for (k = 0; k < 512; k++)
			v->n += k ^ i;
		bpf_spin_unlock(&v->lock);
	}
	rtg_test_obj_put(obj);
	return 0;
}

/* needs the lock: would spin forever if a stopped run left it taken */
SEC("tc")
int wd_spin_once(struct __sk_buff *skb)
{
	struct locked *v;
	__u32 key = 0;

	v = bpf_map_lookup_elem(&lock_map, &key);
	if (!v)
		return 1;
	bpf_spin_lock(&v->lock);
	v->n++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

/* ---- loops with no call, bounded only by may_goto ---- */

/* true while the function's may_goto counter allows another iteration */
#define can_loop ({						\
	__label__ l_break, l_continue;				\
	bool ret = true;					\
	asm volatile goto("may_goto %l[l_break]" :::: l_break);	\
	goto l_continue;					\
l_break:							\
	ret = false;						\
l_continue:							\
	ret;							\
})

int loops_done;	/* iterations of the last may_goto loop */

/* a stretch of work with no call */
static __always_inline void no_call_work(void)
{
	int j;

	for (j = 0; j < 1000; j++) {
		sum += j;
		asm volatile("" ::: "memory");
	}
}

/*
 * Nothing in the loop calls, so no hook sees a mark: only the may_goto
 * counter, which the watchdog sets to 0, ends it before BPF_MAX_LOOPS.
 */
static __always_inline int may_goto_run(void)
{
	int i = 0;

	sum += bpf_get_prandom_u32();	/* a call: the program is tracked */
	while (i < outer && can_loop) {
		no_call_work();
		i++;
	}
	loops_done = i;
	return 0;
}

SEC("syscall")
int wd_may_goto(void *ctx)
{
	return may_goto_run();
}

SEC("tc")
int wd_may_goto_tc(struct __sk_buff *skb)
{
	return may_goto_run();
}

/*
 * The loop in a global function, whose may_goto counter is in its own
 * frame, which the watchdog does not end: the run is judged while it
 * loops there (a lazy run is found through that frame), and the stop
 * lands on the call after it.
 */
__noinline int wd_global_loop(int n)
{
	int i = 0;

	while (i < n && can_loop) {
		no_call_work();
		i++;
	}
	return i;
}

static __always_inline int may_goto_global_run(void)
{
	sum += bpf_get_prandom_u32();
	loops_done = wd_global_loop(outer);
	sum += bpf_get_prandom_u32();
	return 0;
}

SEC("syscall")
int wd_may_goto_global(void *ctx)
{
	return may_goto_global_run();
}

SEC("tc")
int wd_may_goto_global_tc(struct __sk_buff *skb)
{
	return may_goto_global_run();
}

/*
 * A run that spends its time in callbacks of a helper, which the watchdog
 * never interrupts in the run's main frame's own instructions: a lazy run
 * is found by its calls' slow path, through the helper's frames.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} cb_map SEC(".maps");

int cb_calls;	/* callbacks run by the last wd_each */

static long wd_each_cb(struct bpf_map *map, __u32 *key, __u64 *val, void *ctx)
{
	int j;

	for (j = 0; j < 1000; j++) {
		sum += j;
		asm volatile("" ::: "memory");
	}
	sum += bpf_get_prandom_u32();
	cb_calls++;
	return 0;
}

SEC("syscall")
int wd_each(void *ctx)
{
	cb_calls = 0;
	bpf_for_each_map_elem(&cb_map, wd_each_cb, NULL, 0);
	return 0;
}

/*
 * All of the run's time in the callbacks of one bpf_loop() that make no
 * call: the watchdog interrupts the run in them or in bpf_loop(), never
 * in its main frame's own instructions, and the stop lands on the call
 * after the loop.
 */
static int wd_quiet_cb_fn(__u64 i, void *ctx)
{
	no_call_work();
	return 0;
}

static __always_inline int quiet_cb_run(void)
{
	sum += bpf_get_prandom_u32();
	loops_done = bpf_loop(outer, wd_quiet_cb_fn, NULL, zero);
	sum += bpf_get_prandom_u32();
	return 0;
}

SEC("syscall")
int wd_quiet_cb(void *ctx)
{
	return quiet_cb_run();
}

/*
 * A call the runs of a program that cannot sleep make at most once is no
 * place to stop, but after a callback or a BPF function call, where the
 * run may have spent any time: the call after the loop stays one.
 */
SEC("tc")
int wd_quiet_cb_tc(struct __sk_buff *skb)
{
	return quiet_cb_run();
}

int held_calls = 1000;	/* calls wd_released_quiet makes while it holds */

/*
 * An object held across calls, whose samples see it, then given back,
 * then a stretch in callbacks of one bpf_loop() that make no call: no
 * sample is taken while the run holds nothing.
 */
SEC("syscall")
int wd_released_quiet(void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(1);
	int i;

	if (!obj)
		return 1;
	bpf_for(i, 0, held_calls)
		sum += bpf_get_prandom_u32();
	rtg_test_obj_put(obj);
	loops_done = bpf_loop(outer, wd_quiet_cb_fn, NULL, zero);
	sum += bpf_get_prandom_u32();
	return 0;
}

int reheld_loops = 1;	/* times wd_reheld takes and gives back its task */
int reheld_keep;	/* wd_reheld holds an object throughout */

/*
 * The same task taken and given back at the same call, over and over,
 * each time held across a stretch of work and one more call (where a
 * tick's sample is most likely taken): however long the run, no hold is
 * longer than one turn of the loop, but for the object taken before the
 * loop with reheld_keep.
 */
SEC("syscall")
int wd_reheld(void *ctx)
{
	struct rtg_test_obj *obj = NULL;
	int i, j;

	if (reheld_keep) {
		obj = rtg_test_obj_get(1);
		if (!obj)
			return 1;
	}
	bpf_for(i, 0, reheld_loops) {
		struct task_struct *t = bpf_task_from_pid(target_pid);

		if (!t)
			break;
		for (j = 0; j < 10; j++)
			no_call_work();
		sum += bpf_get_prandom_u32();
		bpf_task_release(t);
	}
	if (obj)
		rtg_test_obj_put(obj);
	return 0;
}

/* The same holding a task: the stop lands on its release after the loop. */
SEC("syscall")
int wd_goto_held(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(target_pid);
	int i = 0;

	if (!t)
		return 1;
	while (i < outer && can_loop) {
		no_call_work();
		i++;
	}
	loops_done = i;
	bpf_task_release(t);
	return 0;
}
