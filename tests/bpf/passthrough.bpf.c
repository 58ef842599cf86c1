// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs that call helpers and kfuncs of every shape (0 to 5 arguments,
 * void / int / 64-bit / pointer results, sleepable, KF_RET_NULL), record
 * what they got in out_* and count every call they make per function in
 * calls[], so that the loader can compare results with and without the
 * pass-through hook and check bpf_rtguard's per-site counts.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"
#include "passthrough.h"

char LICENSE[] SEC("license") = "GPL";

void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym;
u32 bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, u64);
	__type(value, u64);
} hmap SEC(".maps");

__u64 calls[PT_NR];
__u64 out_sys[PT_NOUT];
__u64 out_tc[PT_NOUT];
__u64 out_fentry[PT_NOUT];
int target_pid;
char user_buf[8];

/* count a call of f; C(f) counts and names the function to call */
#define CNT(f) __sync_fetch_and_add(&calls[PT_##f], 1)
#define C(f) (CNT(f), f)

SEC("syscall")
int pt_syscall(void *ctx)
{
	struct rtg_test_obj *obj;
	struct bpf_cpumask *mask;
	struct task_struct *t;
	u64 key = 1, val = 42, *pv, args[2] = { 7, 42 };
	char buf[16];
	int i;

	out_sys[0] = C(rtg_test_arg0)();
	out_sys[1] = (s64)C(rtg_test_arg1)(7);
	out_sys[2] = C(rtg_test_arg2)(3, 4);
	C(rtg_test_void3)(1, 2, 3);
	out_sys[3] = C(rtg_test_last_value)();
	out_sys[4] = C(rtg_test_arg4)(1, 2, 3, 4);
	out_sys[5] = C(rtg_test_arg5)(1, 2, 3, 4, 5);
	C(rtg_test_void0)();
	out_sys[6] = C(rtg_test_last_value)();
	out_sys[7] = C(rtg_test_sleep)(10);

	obj = C(rtg_test_obj_get)(0);
	out_sys[8] = !!obj;
	if (obj)
		C(rtg_test_obj_put)(obj);
	obj = C(rtg_test_obj_get)(77);
	if (obj) {
		out_sys[9] = 77;
		C(rtg_test_obj_put)(obj);
	}

	out_sys[10] = C(bpf_ktime_get_ns)() != 0;
	/* the verifier turns these into calls of the hash map's own code */
	CNT(htab_map_update_elem);
	bpf_map_update_elem(&hmap, &key, &val, BPF_ANY);
	CNT(__htab_map_lookup_elem);
	pv = bpf_map_lookup_elem(&hmap, &key);
	out_sys[11] = pv ? *pv : 0;
	C(bpf_probe_read_kernel)(&out_sys[12], sizeof(u64), &out_sys[2]);
	out_sys[13] = C(bpf_snprintf)(buf, sizeof(buf), "%d-%d", args, sizeof(args));
	out_sys[14] = buf[0] | buf[1] << 8 | buf[2] << 16;
	out_sys[15] = C(bpf_copy_from_user)(user_buf, sizeof(user_buf),
					    (void *)(long)out_sys[31]);

	mask = C(bpf_cpumask_create)();
	if (mask) {
		C(bpf_cpumask_set_cpu)(1, mask);
		out_sys[16] = C(bpf_cpumask_test_cpu)(1, (const struct cpumask *)mask);
		out_sys[17] = C(bpf_cpumask_weight)((const struct cpumask *)mask);
		C(bpf_cpumask_release)(mask);
	}
	t = C(bpf_task_from_pid)(1);
	if (t) {
		out_sys[18] = t->pid;
		C(bpf_task_release)(t);
	}
	for (i = 0; i < 5; i++)
		out_sys[19] += C(rtg_test_arg2)(i, i);
	return 0;
}

SEC("tc")
int pt_tc(struct __sk_buff *skb)
{
	__be32 from[2] = { 0x01020304, 0x05060708 }, to[2] = { 0x0a0b0c0d, 1 };
	struct rtg_test_obj *obj;
	u16 proto = 0;

	out_tc[0] = C(bpf_skb_load_bytes)(skb, 12, &proto, sizeof(proto));
	out_tc[1] = proto;
	out_tc[2] = (u32)C(bpf_csum_diff)(from, sizeof(from), to, sizeof(to), 0x55);
	out_tc[3] = C(bpf_get_hash_recalc)(skb) != 0;
	out_tc[4] = C(rtg_test_arg5)(5, 4, 3, 2, 1);
	obj = C(rtg_test_obj_get)(5);
	if (obj) {
		out_tc[5] = 1;
		C(rtg_test_obj_put)(obj);
	}
	return 3;
}

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(pt_fentry, struct pt_regs *regs)
{
	struct rtg_test_obj *obj;
	char comm[16];

	if ((C(bpf_get_current_pid_tgid)() >> 32) != target_pid)
		return 0;
	out_fentry[0] += 1;
	out_fentry[1] = C(bpf_get_current_comm)(comm, sizeof(comm));
	out_fentry[2] = comm[0];
	CNT(bpf_user_rnd_u32);	/* what bpf_get_prandom_u32() becomes */
	out_fentry[3] = (bpf_get_prandom_u32() | 1) & 1;
	out_fentry[4] = C(rtg_test_arg4)(4, 3, 2, 1);
	obj = C(rtg_test_obj_get)(9);
	if (obj) {
		out_fentry[5] += 1;
		C(rtg_test_obj_put)(obj);
	}
	return 0;
}
