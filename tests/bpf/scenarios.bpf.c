// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracking scenarios: a reference held across a subprogram call, a
 * bpf_loop callback, an RCU read section, ring buffer reserve/submit and
 * reserve/discard, bpf_kptr_xchg stash and unstash, a spin lock and a
 * socket lookup in tc programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct stash {
	struct task_struct __kptr *task;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stash);
} stash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct locked);
} lock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

int target_pid;
__u16 listen_port;
__u64 seen[8];

static __noinline int sub_uses_obj(int id)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(id);

	if (!obj)
		return 1;
	seen[1] = (__u64)obj;
	rtg_test_obj_put(obj);
	return 0;
}

SEC("syscall")
int sc_subprog(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(target_pid);
	int err;

	if (!t)
		return 1;
	seen[0] = (__u64)t;
	err = sub_uses_obj(3);
	bpf_task_release(t);
	return err;
}

static int loop_cb(__u64 i, void *ctx)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(i + 1);

	if (obj) {
		seen[i & 7] = (__u64)obj;
		rtg_test_obj_put(obj);
	}
	return 0;
}

SEC("syscall")
int sc_loop_cb(void *ctx)
{
	return bpf_loop(3, loop_cb, NULL, 0) == 3 ? 0 : 1;
}

SEC("syscall")
int sc_rcu(void *ctx)
{
	bpf_rcu_read_lock();
	seen[0] = bpf_ktime_get_ns();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall")
int sc_ringbuf(void *ctx)
{
	__u64 *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (!r)
		return 1;
	seen[0] = (__u64)r;
	*r = 1;
	bpf_ringbuf_submit(r, 0);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r)
		return 2;
	seen[1] = (__u64)r;
	bpf_ringbuf_discard(r, 0);
	return 0;
}

SEC("syscall")
int sc_kptr_stash(void *ctx)
{
	struct task_struct *t, *old;
	__u32 key = 0;
	struct stash *v = bpf_map_lookup_elem(&stash_map, &key);

	if (!v)
		return 1;
	t = bpf_task_from_pid(target_pid);
	if (!t)
		return 2;
	seen[0] = (__u64)t;
	old = bpf_kptr_xchg(&v->task, t);
	if (old)
		bpf_task_release(old);
	return 0;
}

SEC("syscall")
int sc_kptr_unstash(void *ctx)
{
	struct task_struct *t;
	__u32 key = 0;
	struct stash *v = bpf_map_lookup_elem(&stash_map, &key);

	if (!v)
		return 1;
	t = bpf_kptr_xchg(&v->task, NULL);
	if (!t)
		return 2;
	seen[1] = (__u64)t;
	bpf_task_release(t);
	return 0;
}

SEC("tc")
int sc_spin(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 1;
	seen[0] = (__u64)&v->lock;
	bpf_spin_lock(&v->lock);
	v->n++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

SEC("tc")
int sc_sk_lookup(struct __sk_buff *skb)
{
	struct bpf_sock *sk = lookup_listener(skb, listen_port);

	if (!sk)
		return 1;
	seen[0] = (__u64)sk;
	bpf_sk_release(sk);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tail_progs SEC(".maps");

/* the tail-called program: a tracked program of its own */
SEC("tc")
int sc_tail_callee(struct __sk_buff *skb)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(12);

	if (!obj)
		return 1;
	seen[1] = (__u64)obj;
	rtg_test_obj_put(obj);
	return 0;
}

SEC("tc")
int sc_tail_caller(struct __sk_buff *skb)
{
	struct rtg_test_obj *obj = rtg_test_obj_get(11);

	if (!obj)
		return 1;
	seen[0] = (__u64)obj;
	rtg_test_obj_put(obj);
	bpf_tail_call(skb, &tail_progs, 0);
	return 2;	/* the tail call failed */
}
