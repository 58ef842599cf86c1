// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode, an strace for BPF programs. The tracing hook
 * makes the call and records it as a rtg_call trace event; formatting is
 * left to whoever reads the trace buffer.
 */
#include <linux/sched/clock.h>

#include "rtguard.h"

#define CREATE_TRACE_POINTS
#include "rtguard_trace.h"

typedef u64 (*rtg_call_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

/**
 * rtg_trace_hook() - make a helper or kfunc call and record it
 * @r1: BPF R1, first argument of the original function
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site, passed by the JIT in the sixth argument register
 *
 * Called by JIT compiled programs in debug mode in place of the function
 * @site calls. Records the arguments, the result, when the call started
 * and how long it took in the rtg_call trace event; the arguments are
 * forwarded and the result returned exactly as rtg_passthrough_hook()
 * does. While the event is disabled the hook only makes the call.
 *
 * Return: whatever the original function returned.
 */
u64 rtg_trace_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
		   const struct rtg_site *site)
{
	rtg_call_fn fn = site->func;
	u64 start, ret;

	/* nobody is reading: cost no more than the pass-through hook */
	if (!trace_rtg_call_enabled())
		return fn(r1, r2, r3, r4, r5);
	start = local_clock();
	ret = fn(r1, r2, r3, r4, r5);
	trace_rtg_call(site, r1, r2, r3, r4, r5, ret, start,
		       local_clock() - start);
	return ret;
}
