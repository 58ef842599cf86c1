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
 * Helper and kfunc calls of programs in debug mode, up to RTG_TRACE_BATCH
 * of one CPU per record (struct rtg_call_rec, in rtguard.h): only what
 * changes from call to call. A call's time is the record's timestamp
 * less the rtg_clock() cycles from its end to tsc, the clock when the
 * record was written (bpf_rtguard/stats: tsc_khz). The text (trace,
 * trace_pipe) is one line per call, with the names the program was
 * written with (rtg_trace_print()).
 */
TRACE_EVENT_FN(rtg_call,
	       TP_PROTO(const struct rtg_call_rec *recs, u32 nr, u64 tsc),
	       TP_ARGS(recs, nr, tsc),
	       TP_STRUCT__entry(__field(u64, tsc)
				__field(u32, nr)
				/* nr struct rtg_call_rec, as u64s */
				__dynamic_array(u64, recs,
						nr * sizeof(*recs) / sizeof(u64))),
	       TP_fast_assign(__entry->tsc = tsc;
			      __entry->nr = nr;
			      rtg_trace_copy(__get_dynamic_array(recs), recs, nr);),
	       TP_printk("%s", rtg_trace_print(p, __get_dynamic_array(recs),
					       __entry->nr)),
	       rtg_trace_reg, rtg_trace_unreg);

/*
 * A tracked run took a resource (an object, an iterator, a lock, a section)
 * or gave one back. acq_insn is the site that acquired it: the site itself
 * for an acquisition, -1 for a release of something the run did not hold.
 * While either event is on, tracked calls take their post hook instead of
 * the JIT's in-line push and pop, which the events could not see.
 */
DECLARE_EVENT_CLASS(rtg_hold_class,
		    TP_PROTO(const struct rtg_site *site, u64 obj,
			     const struct rtg_site *acquired),
		    TP_ARGS(site, obj, acquired),
		    TP_STRUCT__entry(__field(u64, obj)
				     __field(void *, func)
				     __field(u32, prog_id)
				     __field(u32, insn)
				     __field(s32, acq_insn)),
		    TP_fast_assign(__entry->obj = obj;
				   __entry->func = site->func;
				   __entry->prog_id = site->main->id;
				   __entry->insn = site->insn_idx;
				   __entry->acq_insn = acquired ? acquired->insn_idx : -1;),
		    TP_printk("prog=%u insn=%u obj=%#llx acq_insn=%d func=%ps",
			      __entry->prog_id, __entry->insn, __entry->obj,
			      __entry->acq_insn, __entry->func));

DEFINE_EVENT_FN(rtg_hold_class, rtg_acquire,
		TP_PROTO(const struct rtg_site *site, u64 obj,
			 const struct rtg_site *acquired),
		TP_ARGS(site, obj, acquired),
		rtg_hold_trace_reg, rtg_hold_trace_unreg);

DEFINE_EVENT_FN(rtg_hold_class, rtg_release,
		TP_PROTO(const struct rtg_site *site, u64 obj,
			 const struct rtg_site *acquired),
		TP_ARGS(site, obj, acquired),
		rtg_hold_trace_reg, rtg_hold_trace_unreg);

TRACE_DEFINE_ENUM(RTG_STOP_RUNTIME);
TRACE_DEFINE_ENUM(RTG_STOP_HOLD);
TRACE_DEFINE_ENUM(RTG_HOW_NONE);
TRACE_DEFINE_ENUM(RTG_HOW_UNWOUND);
TRACE_DEFINE_ENUM(RTG_HOW_FAST);
TRACE_DEFINE_ENUM(RTG_HOW_REPORTED);
TRACE_DEFINE_ENUM(RTG_HOW_LOOP);

/* The watchdog stopped a run: why, after how long, how, what was released. */
TRACE_EVENT(rtg_stop,
	    TP_PROTO(const struct bpf_prog_aux *main, u8 reason, u64 elapsed_us,
		     u32 released, u8 how),
	    TP_ARGS(main, reason, elapsed_us, released, how),
	    TP_STRUCT__entry(__field(u64, elapsed_us)
			     __field(u32, prog_id)
			     __field(u32, released)
			     __field(u8, reason)
			     __field(u8, how)),
	    TP_fast_assign(__entry->elapsed_us = elapsed_us;
			   __entry->prog_id = main->id;
			   __entry->released = released;
			   __entry->reason = reason;
			   __entry->how = how;),
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
				       { RTG_HOW_REPORTED, "reported" },
				       { RTG_HOW_LOOP, "loop" })));

#endif /* _RTGUARD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rtguard_trace
#include <trace/define_trace.h>
