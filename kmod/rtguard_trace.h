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
 * One helper or kfunc call of a program in debug mode: only what changes
 * from call to call. site is the number debugfs bpf_rtguard/sites gives
 * the call site (program, instruction, function, kinds of arguments), or
 * 0 when later calls on the CPU overwrote the arguments before they were
 * copied (the record then counts as lost). cycles is the call's duration
 * in TSC cycles (bpf_rtguard/stats: tsc_khz); the event's own timestamp
 * is taken right after the call.
 */
TRACE_EVENT_FN(rtg_call,

	TP_PROTO(const struct rtg_trace_slot *slot, u64 token, u32 site,
		 u64 ret, u64 cycles),

	TP_ARGS(slot, token, site, ret, cycles),

	TP_STRUCT__entry(
		__array(u64, args, MAX_BPF_FUNC_REG_ARGS)
		__field(u64, ret)
		__field(u64, cycles)
		__field(u32, site)
	),

	TP_fast_assign(
		memcpy(__entry->args, slot->args, sizeof(__entry->args));
		__entry->ret = ret;
		__entry->cycles = cycles;
		barrier();
		__entry->site = READ_ONCE(slot->seq) == token ? site : 0;
	),

	TP_printk("site=%u args=%#llx,%#llx,%#llx,%#llx,%#llx ret=%#llx cycles=%llu",
		  __entry->site, __entry->args[0], __entry->args[1],
		  __entry->args[2], __entry->args[3], __entry->args[4],
		  __entry->ret, __entry->cycles),

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
