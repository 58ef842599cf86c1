// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: acquire and release hooks, which keep each run's table of
 * held resources exact. What a call site does is decided once, at JIT
 * time, from what the verifier knew of the call (KF_* flags, helper id);
 * a hook only makes the call and pushes or pops one entry.
 */
#include <linux/btf.h>
#include <linux/kallsyms.h>

#include "rtguard.h"
#include "rtguard_trace.h"

typedef u64 (*rtg_call_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

static __always_inline u64 rtg_call(const struct rtg_site *site, u64 r1, u64 r2,
				    u64 r3, u64 r4, u64 r5)
{
	if (site->flags & RTG_SITE_TRACE)
		return rtg_trace_hook(r1, r2, r3, r4, r5, site);
	return ((rtg_call_fn)site->func)(r1, r2, r3, r4, r5);
}

/*
 * Whether the watchdog stops this run. A run that can be left is left
 * from rtg_watchdog_stop(); true means it fast-executes.
 */
static __always_inline bool rtg_stopping(const struct rtg_site *site)
{
	return unlikely(atomic_read(&rtg_stops_pending)) && rtg_watchdog_stop(site);
}

static void rtg_hold(const struct rtg_site *site, u64 obj)
{
	rtg_run_push(site->tprog, site, obj);
	trace_rtg_acquire(site, obj);
}

static void rtg_give_back(const struct rtg_site *site, u64 obj)
{
	const struct rtg_site *acquired = NULL;

	rtg_run_pop(site->tprog, obj, &acquired);
	trace_rtg_release(site, obj, acquired);
}

/**
 * rtg_track_acquire_hook() - make an acquiring call, hold what it returns
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site, passed by the JIT in the sixth argument register
 *
 * Return: the result of the call.
 */
u64 rtg_track_acquire_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			   const struct rtg_site *site)
{
	u64 ret;

	/* a stopped run's acquisitions fail, where failing is allowed */
	if (rtg_stopping(site) && (site->flags & RTG_SITE_MAY_FAIL))
		return 0;
	ret = rtg_call(site, r1, r2, r3, r4, r5);
	if (ret)
		rtg_hold(site, ret);
	return ret;
}

/**
 * rtg_track_release_hook() - give back argument 1, then make the call
 * @r1: BPF R1, the object released
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Return: the result of the call.
 */
u64 rtg_track_release_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			   const struct rtg_site *site)
{
	rtg_stopping(site);
	rtg_give_back(site, r1);
	return rtg_call(site, r1, r2, r3, r4, r5);
}

/**
 * rtg_track_release_acquire_hook() - give back argument 1, hold the result
 * @r1: BPF R1, the object released
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Return: the result of the call.
 */
u64 rtg_track_release_acquire_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
				   const struct rtg_site *site)
{
	u64 ret;

	rtg_give_back(site, r1);
	ret = rtg_call(site, r1, r2, r3, r4, r5);
	if (ret)
		rtg_hold(site, ret);
	return ret;
}

/**
 * rtg_track_hold_arg_hook() - make the call, hold argument 1
 * @r1: BPF R1, the iterator created or the lock taken
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * An iterator must be destroyed even when its constructor fails, so it is
 * held whatever the call returns.
 *
 * Return: the result of the call.
 */
u64 rtg_track_hold_arg_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			    const struct rtg_site *site)
{
	u64 ret;

	rtg_stopping(site);
	ret = rtg_call(site, r1, r2, r3, r4, r5);
	rtg_hold(site, r1);
	return ret;
}

/**
 * rtg_track_hold_token_hook() - make the call, hold the section it opens
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Return: the result of the call.
 */
u64 rtg_track_hold_token_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			      const struct rtg_site *site)
{
	u64 ret;

	rtg_stopping(site);
	ret = rtg_call(site, r1, r2, r3, r4, r5);
	rtg_hold(site, site->token);
	return ret;
}

/**
 * rtg_track_release_token_hook() - end the section, then make the call
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Return: the result of the call.
 */
u64 rtg_track_release_token_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
				 const struct rtg_site *site)
{
	rtg_stopping(site);
	rtg_give_back(site, site->token);
	return rtg_call(site, r1, r2, r3, r4, r5);
}

/**
 * rtg_guard_hook() - a call of a tracked program that holds nothing new
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Every call of a tracked program is a place where the watchdog can stop
 * the run.
 *
 * Return: the result of the call.
 */
u64 rtg_guard_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
		   const struct rtg_site *site)
{
	rtg_stopping(site);
	return rtg_call(site, r1, r2, r3, r4, r5);
}

/**
 * rtg_guard_iter_next_hook() - an iterator's next, NULL for a stopped run
 * @r1: BPF R1, the iterator
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * Return: the next element, or NULL once the run fast-executes.
 */
u64 rtg_guard_iter_next_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			     const struct rtg_site *site)
{
	if (rtg_stopping(site))
		return 0;
	return rtg_call(site, r1, r2, r3, r4, r5);
}

/**
 * rtg_track_kptr_xchg_hook() - move a reference between the run and a map
 * @r1: BPF R1, the map's kptr slot
 * @r2: BPF R2, the reference the run gives to the map, or NULL
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @site: the call site
 *
 * What goes into the map is the map's from now on and leaves the run's
 * table without being released; what comes out is the run's to release.
 *
 * Return: the reference taken out of the map, or NULL.
 */
u64 rtg_track_kptr_xchg_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			     const struct rtg_site *site)
{
	u64 old;

	rtg_stopping(site);
	if (r2)
		rtg_give_back(site, r2);
	old = rtg_call(site, r1, r2, r3, r4, r5);
	if (old)
		rtg_hold(site, old);
	return old;
}

/**
 * rtg_track_keep_call() - keep bpf_kptr_xchg() a call in tracked programs
 * @prog: the program being verified
 * @func_id: the helper the verifier would inline
 *
 * Return: whether the call must stay, so that its hook sees references
 * move between runs and maps.
 */
bool rtg_track_keep_call(struct bpf_prog *prog, u32 func_id)
{
	return func_id == BPF_FUNC_kptr_xchg && READ_ONCE(rtg_track);
}

/**
 * rtg_track_may_unwind() - make tracked programs ones the watchdog can leave
 * @prog: the program just verified
 *
 * Return: whether to make it an exception boundary.
 */
bool rtg_track_may_unwind(struct bpf_prog *prog)
{
	return READ_ONCE(rtg_track);
}

/**
 * rtg_track_possible() - whether every reference move of a program is seen
 * @main: aux data of the main program
 *
 * A program verified while tracking was off has its bpf_kptr_xchg()
 * calls inlined into an atomic exchange that no hook sees; tracking it
 * could later release an object a map owns, so it is not tracked. Any
 * 64-bit atomic exchange in the program counts as such.
 *
 * Return: false when the program must not be tracked.
 */
bool rtg_track_possible(const struct bpf_prog_aux *main)
{
	const struct bpf_prog *prog = main->prog;
	u32 i;

	for (i = 0; i < prog->len; i++) {
		const struct bpf_insn *insn = &prog->insnsi[i];

		if (insn->code == (BPF_STX | BPF_ATOMIC | BPF_DW) &&
		    insn->imm == BPF_XCHG) {
			pr_warn_ratelimited("bpf_rtguard: prog %s: inlined bpf_kptr_xchg (loaded while track was off), not tracked\n",
					    main->name);
			return false;
		}
	}
	return true;
}

static void *const rtg_role_hooks[] = {
	[RTG_ROLE_ACQUIRE] = rtg_track_acquire_hook,
	[RTG_ROLE_RELEASE] = rtg_track_release_hook,
	[RTG_ROLE_RELEASE_ACQUIRE] = rtg_track_release_acquire_hook,
	[RTG_ROLE_HOLD_ARG] = rtg_track_hold_arg_hook,
	[RTG_ROLE_HOLD_TOKEN] = rtg_track_hold_token_hook,
	[RTG_ROLE_RELEASE_TOKEN] = rtg_track_release_token_hook,
	[RTG_ROLE_KPTR_XCHG] = rtg_track_kptr_xchg_hook,
	[RTG_ROLE_ITER_NEXT] = rtg_guard_iter_next_hook,
	[RTG_ROLE_GUARD] = rtg_guard_hook,
};

static const struct {
	const char *name;
	u8 role, token;
} rtg_section_kfuncs[] = {
	{ "bpf_rcu_read_lock", RTG_ROLE_HOLD_TOKEN, RTG_TOKEN_RCU },
	{ "bpf_rcu_read_unlock", RTG_ROLE_RELEASE_TOKEN, RTG_TOKEN_RCU },
	{ "bpf_preempt_disable", RTG_ROLE_HOLD_TOKEN, RTG_TOKEN_PREEMPT },
	{ "bpf_preempt_enable", RTG_ROLE_RELEASE_TOKEN, RTG_TOKEN_PREEMPT },
};

static u8 rtg_kfunc_role(struct rtg_site *site, u32 flags, const char *name)
{
	size_t i;

	if ((flags & KF_ACQUIRE) && (flags & KF_RELEASE))
		return RTG_ROLE_RELEASE_ACQUIRE;
	if (flags & KF_ACQUIRE)
		return RTG_ROLE_ACQUIRE;
	if (flags & (KF_RELEASE | KF_ITER_DESTROY))
		return RTG_ROLE_RELEASE;
	if (flags & KF_ITER_NEW)
		return RTG_ROLE_HOLD_ARG;
	if (flags & KF_ITER_NEXT)
		return RTG_ROLE_ITER_NEXT;
	for (i = 0; i < ARRAY_SIZE(rtg_section_kfuncs); i++) {
		if (strcmp(name, rtg_section_kfuncs[i].name))
			continue;
		site->token = rtg_section_kfuncs[i].token;
		return rtg_section_kfuncs[i].role;
	}
	return RTG_ROLE_GUARD;
}

static u8 rtg_helper_role(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_sk_lookup_tcp:
	case BPF_FUNC_sk_lookup_udp:
	case BPF_FUNC_skc_lookup_tcp:
	case BPF_FUNC_ringbuf_reserve:
		return RTG_ROLE_ACQUIRE;
	case BPF_FUNC_sk_release:
	case BPF_FUNC_ringbuf_submit:
	case BPF_FUNC_ringbuf_discard:
	case BPF_FUNC_spin_unlock:
		return RTG_ROLE_RELEASE;
	case BPF_FUNC_spin_lock:
		return RTG_ROLE_HOLD_ARG;
	case BPF_FUNC_kptr_xchg:
		return RTG_ROLE_KPTR_XCHG;
	default:
		return RTG_ROLE_GUARD;
	}
}

/**
 * rtg_track_select() - decide what a call site of a tracked image does
 * @site: the site, filled in but for its role
 * @info: the verifier's description of the call, or NULL
 *
 * Every call of a tracked program is hooked: a call that neither acquires
 * nor releases is still a place where the watchdog can stop the run.
 *
 * Return: the tracking hook for the site.
 */
void *rtg_track_select(struct rtg_site *site, const struct bpf_call_info *info)
{
	char name[KSYM_NAME_LEN];

	sprint_symbol_no_offset(name, (unsigned long)site->func);
	name[strcspn(name, " ")] = 0;	/* " [module]" */
	if (!info)
		site->role = RTG_ROLE_GUARD;
	else if (info->btf)
		site->role = rtg_kfunc_role(site, info->kfunc_flags, name);
	else
		site->role = rtg_helper_role(info->id);
	if (info && info->btf && (info->kfunc_flags & KF_RET_NULL))
		site->flags |= RTG_SITE_MAY_FAIL;
	if (info && info->btf && (info->kfunc_flags & KF_ITER_NEW))
		site->flags |= RTG_SITE_ITER;
	if (info && !info->btf && (info->id == BPF_FUNC_sk_lookup_tcp ||
				   info->id == BPF_FUNC_sk_lookup_udp ||
				   info->id == BPF_FUNC_skc_lookup_tcp ||
				   info->id == BPF_FUNC_ringbuf_reserve))
		site->flags |= RTG_SITE_MAY_FAIL;
	if (info && !info->btf && info->id == BPF_FUNC_ringbuf_reserve_dynptr)
		site->tprog->no_unwind = true;
	switch (site->role) {
	case RTG_ROLE_RELEASE:
	case RTG_ROLE_RELEASE_ACQUIRE:
	case RTG_ROLE_RELEASE_TOKEN:
		rtg_prog_add_release_fn(site->tprog, name, site->func);
		break;
	case RTG_ROLE_GUARD:
	case RTG_ROLE_ITER_NEXT:
		return rtg_role_hooks[site->role];
	}
	if (site->role == RTG_ROLE_KPTR_XCHG)
		strscpy(site->release, "dtor-of-kptr-type");
	else if (!rtg_pairing_release_of(name, site->release, sizeof(site->release)))
		strscpy(site->release, "-");
	return rtg_role_hooks[site->role];
}
