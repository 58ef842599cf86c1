/* SPDX-License-Identifier: GPL-2.0-only */
/* vmlinux kfuncs and helpers shared by the test programs. */
#ifndef _RTG_BPF_H
#define _RTG_BPF_H

#include <bpf/bpf_endian.h>

struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
void bpf_task_release(struct task_struct *p) __ksym;
struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
void bpf_rcu_read_lock(void) __ksym;
void bpf_rcu_read_unlock(void) __ksym;

/* a map value with a spin lock */
struct locked {
	struct bpf_spin_lock lock;
	__u64 n;
};

#ifndef BPF_F_CURRENT_NETNS
#define BPF_F_CURRENT_NETNS (-1L)	/* uapi enum, not in vmlinux BTF */
#endif

/* Look up the TCP listener on 127.0.0.1:port, as a connection from :40000 would. */
static __always_inline struct bpf_sock *lookup_listener(struct __sk_buff *skb, __u16 port)
{
	struct bpf_sock_tuple tuple = {};

	tuple.ipv4.saddr = bpf_htonl(0x7f000001);
	tuple.ipv4.daddr = bpf_htonl(0x7f000001);
	tuple.ipv4.sport = bpf_htons(40000);
	tuple.ipv4.dport = bpf_htons(port);
	return bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
}

/*
 * A syscall program that reserves more than half of ring buffer rb (of
 * 4096 bytes) and discards it: it returns 1 when a record leaked.
 */
#define RINGBUF_FITS_PROG(name, rb)					\
SEC("syscall")								\
int name(void *ctx)							\
{									\
	__u64 *r = bpf_ringbuf_reserve(&rb, 2048, 0);			\
									\
	if (!r)								\
		return 1;						\
	bpf_ringbuf_discard(r, 0);					\
	return 0;							\
}

#endif
