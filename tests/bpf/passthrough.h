/* SPDX-License-Identifier: GPL-2.0-only */
/* Slots shared by passthrough.bpf.c and its loader: one per called function. */
#ifndef _PASSTHROUGH_H
#define _PASSTHROUGH_H

#define PT_FUNCS(X)					\
	X(rtg_test_arg0)  X(rtg_test_arg1)		\
	X(rtg_test_arg2)  X(rtg_test_void3)		\
	X(rtg_test_last_value) X(rtg_test_arg4)		\
	X(rtg_test_arg5)  X(rtg_test_void0)		\
	X(rtg_test_sleep) X(rtg_test_obj_get)		\
	X(rtg_test_obj_put) X(bpf_ktime_get_ns)		\
	X(htab_map_update_elem) X(__htab_map_lookup_elem) \
	X(bpf_probe_read_kernel) X(bpf_snprintf)	\
	X(bpf_cpumask_create) X(bpf_cpumask_set_cpu)	\
	X(bpf_cpumask_test_cpu) X(bpf_cpumask_weight)	\
	X(bpf_cpumask_release) X(bpf_task_from_pid)	\
	X(bpf_task_release) X(bpf_skb_load_bytes)	\
	X(bpf_csum_diff) X(bpf_get_hash_recalc)		\
	X(bpf_get_current_comm) X(bpf_user_rnd_u32)	\
	X(bpf_copy_from_user) X(bpf_get_current_pid_tgid)

#define PT_SLOT(f) PT_##f,
enum { PT_FUNCS(PT_SLOT) PT_NR };
#undef PT_SLOT

#define PT_NOUT 32

#endif
