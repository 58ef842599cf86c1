/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard trace events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bpf_rtguard

#if !defined(_RTGUARD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RTGUARD_TRACE_H

#include <linux/tracepoint.h>

#include "rtguard.h"

/*
 * One helper or kfunc call of a program in debug mode. Only raw values are
 * stored; rtg-strace (tests/tools) turns them into one strace-like line.
 */
TRACE_EVENT_FN(rtg_call,

	TP_PROTO(const struct rtg_site *site, u64 r1, u64 r2, u64 r3, u64 r4,
		 u64 r5, u64 ret, u64 start_ns, u64 dur_ns),

	TP_ARGS(site, r1, r2, r3, r4, r5, ret, start_ns, dur_ns),

	TP_STRUCT__entry(
		__field(u64, start_ns)
		__field(u64, dur_ns)
		__field(u64, ret)
		__array(u64, args, MAX_BPF_FUNC_REG_ARGS)
		__field(void *, func)
		__field(u32, prog_id)
		__field(u32, insn)
		__field(u8, nr_args)
		__field(u8, arg_is_ptr)
		__field(u8, arg_is_signed)
		__field(u8, arg_is_32bit)
		__field(u8, ret_size)
		__field(bool, ret_ptr)
		__field(bool, ret_signed)
		__array(char, prog_name, BPF_OBJ_NAME_LEN)
	),

	TP_fast_assign(
		__entry->start_ns = start_ns;
		__entry->dur_ns = dur_ns;
		__entry->ret = ret;
		__entry->args[0] = r1;
		__entry->args[1] = r2;
		__entry->args[2] = r3;
		__entry->args[3] = r4;
		__entry->args[4] = r5;
		__entry->func = site->func;
		__entry->prog_id = site->main->id;
		__entry->insn = site->insn_idx;
		__entry->nr_args = site->nr_args;
		__entry->arg_is_ptr = site->arg_is_ptr;
		__entry->arg_is_signed = site->arg_is_signed;
		__entry->arg_is_32bit = site->arg_is_32bit;
		__entry->ret_size = site->ret_size;
		__entry->ret_ptr = site->flags & RTG_SITE_RET_PTR;
		__entry->ret_signed = site->flags & RTG_SITE_RET_SIGNED;
		memcpy(__entry->prog_name, site->main->name, BPF_OBJ_NAME_LEN);
	),

	TP_printk("t=%llu dur=%llu prog=%u name=%.16s insn=%u nargs=%u ptr=%#x signed=%#x int32=%#x retsize=%u retptr=%u retsigned=%u args=%#llx,%#llx,%#llx,%#llx,%#llx ret=%#llx func=%ps",
		  __entry->start_ns, __entry->dur_ns, __entry->prog_id,
		  __entry->prog_name[0] ? __entry->prog_name : "-",
		  __entry->insn, __entry->nr_args, __entry->arg_is_ptr,
		  __entry->arg_is_signed, __entry->arg_is_32bit,
		  __entry->ret_size, __entry->ret_ptr, __entry->ret_signed,
		  __entry->args[0], __entry->args[1],
		  __entry->args[2], __entry->args[3], __entry->args[4],
		  __entry->ret, __entry->func),

	rtg_trace_reg, rtg_trace_unreg
);

/*
 * A tracked run took a resource (an object, an iterator, a lock, a section)
 * or gave one back. acq_insn is the site that acquired it: the site itself
 * for an acquisition, -1 for a release of something the run did not hold.
 */
DECLARE_EVENT_CLASS(rtg_hold_class,

	TP_PROTO(const struct rtg_site *site, u64 obj,
		 const struct rtg_site *acquired),

	TP_ARGS(site, obj, acquired),

	TP_STRUCT__entry(
		__field(u64, obj)
		__field(void *, func)
		__field(u32, prog_id)
		__field(u32, insn)
		__field(s32, acq_insn)
	),

	TP_fast_assign(
		__entry->obj = obj;
		__entry->func = site->func;
		__entry->prog_id = site->main->id;
		__entry->insn = site->insn_idx;
		__entry->acq_insn = acquired ? acquired->insn_idx : -1;
	),

	TP_printk("prog=%u insn=%u obj=%#llx acq_insn=%d func=%ps",
		  __entry->prog_id, __entry->insn, __entry->obj,
		  __entry->acq_insn, __entry->func)
);

DEFINE_EVENT(rtg_hold_class, rtg_acquire,
	TP_PROTO(const struct rtg_site *site, u64 obj,
		 const struct rtg_site *acquired),
	TP_ARGS(site, obj, acquired)
);

DEFINE_EVENT(rtg_hold_class, rtg_release,
	TP_PROTO(const struct rtg_site *site, u64 obj,
		 const struct rtg_site *acquired),
	TP_ARGS(site, obj, acquired)
);

TRACE_DEFINE_ENUM(RTG_STOP_RUNTIME);
TRACE_DEFINE_ENUM(RTG_STOP_HOLD);
TRACE_DEFINE_ENUM(RTG_HOW_NONE);
TRACE_DEFINE_ENUM(RTG_HOW_UNWOUND);
TRACE_DEFINE_ENUM(RTG_HOW_FAST);
TRACE_DEFINE_ENUM(RTG_HOW_REPORTED);

/* The watchdog stopped a run: why, after how long, how, what was released. */
TRACE_EVENT(rtg_stop,

	TP_PROTO(const struct bpf_prog_aux *main, u8 reason, u64 elapsed_us,
		 u32 released, u8 how),

	TP_ARGS(main, reason, elapsed_us, released, how),

	TP_STRUCT__entry(
		__field(u64, elapsed_us)
		__field(u32, prog_id)
		__field(u32, released)
		__field(u8, reason)
		__field(u8, how)
	),

	TP_fast_assign(
		__entry->elapsed_us = elapsed_us;
		__entry->prog_id = main->id;
		__entry->released = released;
		__entry->reason = reason;
		__entry->how = how;
	),

	TP_printk("prog=%u reason=%s elapsed_us=%llu released=%u how=%s",
		  __entry->prog_id,
		  __print_symbolic(__entry->reason,
				   { RTG_STOP_RUNTIME, "watchdog_ms" },
				   { RTG_STOP_HOLD, "hold_limit_us" }),
		  __entry->elapsed_us, __entry->released,
		  __print_symbolic(__entry->how,
				   { RTG_HOW_NONE, "none" },
				   { RTG_HOW_UNWOUND, "unwound" },
				   { RTG_HOW_FAST, "fast" },
				   { RTG_HOW_REPORTED, "reported" }))
);

#endif /* _RTGUARD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rtguard_trace
#include <trace/define_trace.h>
