// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the pass-through hook, which counts a call and makes it.
 */
#include "rtguard.h"

typedef u64 (*rtg_call_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

/**
 * rtg_passthrough_hook() - count a helper or kfunc call, then make it
 * @r1: BPF R1, first argument of the original function
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site, passed by the JIT in the sixth argument register
 *
 * Called by JIT compiled programs in place of the function @site calls.
 * All five argument registers are forwarded whatever the function's
 * arity (a function that takes fewer ignores the rest, as the C calling
 * convention allows), and its return register is returned untouched, so
 * void, 32-bit, 64-bit and pointer results reach the program exactly as
 * without the hook. The hook neither sleeps nor takes locks, so it is
 * safe wherever the original call is, sleepable kfuncs included.
 *
 * Return: whatever the original function returned.
 */
u64 rtg_passthrough_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			 const struct rtg_site *site)
{
	this_cpu_inc(*site->count);
	return ((rtg_call_fn)site->func)(r1, r2, r3, r4, r5);
}
