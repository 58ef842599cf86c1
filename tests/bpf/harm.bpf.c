// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program shapes the project's first suites did not try, each of which
 * once made a stop (or a throw) harm the kernel: a throw from a traced
 * program, a stop inside a bpf_loop() callback of a traced program,
 * bpf_kptr_xchg() met by fast-execute, an fmod_ret security hook, helpers
 * whose call is the enforcement.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

extern void bpf_throw(u64 cookie) __ksym;

#define EPERM 1

int target_pid;
int outer = 1000000;	/* far beyond any budget */
int zero;		/* a bpf_loop flags argument the verifier can't see */
__u64 sum;

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_pid;
}

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

/* ---- fmod_ret on a security hook: a stop must still deny ---- */

int fmod_runs;

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(harm_fmod_setnice, struct task_struct *p, int nice, int ret)
{
	int i, j;

	if (!is_target())
		return ret;
	fmod_runs++;
	bpf_for(i, 0, outer)
		bpf_for(j, 0, 1000)
			sum += bpf_get_prandom_u32() & 1;
	return -EPERM;
}

/* ---- helpers whose call is the enforcement ---- */

SEC("kprobe/rtg_test_arg2")
int harm_send_signal(struct pt_regs *regs)
{
	if (is_target())
		bpf_send_signal(9);
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
