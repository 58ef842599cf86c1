// SPDX-License-Identifier: GPL-2.0-only
/*
 * Map helpers in debug mode: an update, a lookup and a delete on a hash,
 * an array, a per-CPU array and an LRU hash map, then a kfunc pair. The
 * verifier turns each map helper into the map type's own function (and
 * would inline the lookups of the array maps): the trace names the
 * helper the program called and the map it was called with. debug_long
 * makes calls whose lines are as long as five 20-digit values make them,
 * more than one event's text holds; debug_short calls whose named lines
 * are short, but long once their program is gone (all five argument
 * registers ~0).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define DM_MAP(name, map_type)			\
	struct {				\
		__uint(type, map_type);		\
		__uint(max_entries, 4);		\
		__type(key, __u32);		\
		__type(value, __u64);		\
	} name SEC(".maps")

DM_MAP(m_hash, BPF_MAP_TYPE_HASH);
DM_MAP(m_array, BPF_MAP_TYPE_ARRAY);
DM_MAP(m_pcpu, BPF_MAP_TYPE_PERCPU_ARRAY);
DM_MAP(m_lru, BPF_MAP_TYPE_LRU_HASH);

int target_pid;

/* more than one event holds (RTG_TRACE_BATCH, 48) */
#define DEBUG_LONG_CALLS 64
#define DEBUG_SHORT_CALLS 96

/* update, lookup, delete: 0 when the lookup found what the update put */
static __always_inline int exercise(void *map)
{
	__u64 val = 7, *v;
	__u32 key = 1;

	bpf_map_update_elem(map, &key, &val, BPF_ANY);
	v = bpf_map_lookup_elem(map, &key);
	bpf_map_delete_elem(map, &key);
	return v && *v == 7 ? 0 : 1;
}

SEC("syscall")
int debug_maps(void *ctx)
{
	struct task_struct *t;
	int bad;

	bad = exercise(&m_hash) | exercise(&m_array) | exercise(&m_pcpu) |
	      exercise(&m_lru);
	t = bpf_task_from_pid(target_pid);
	if (t)
		bpf_task_release(t);
	return bad;
}

SEC("syscall")
int debug_long(void *ctx)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < DEBUG_LONG_CALLS; i++)
		sum += rtg_test_arg5(~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	return sum == (__u64)-15 * DEBUG_LONG_CALLS ? 0 : 1;
}

SEC("syscall")
int debug_short(void *ctx)
{
	int i;

	for (i = 0; i < DEBUG_SHORT_CALLS; i++)
		asm volatile ("r1 = -1; r2 = -1; r3 = -1; r4 = -1; r5 = -1;"
			      "call %[rtg_test_arg0];"
			      :: [rtg_test_arg0] "i"(rtg_test_arg0)
			      : "r0", "r1", "r2", "r3", "r4", "r5");
	/* and once from C, which gives the object the kfunc's BTF */
	return rtg_test_arg0() == 0x123456789abcdef0ULL ? 0 : 1;
}
