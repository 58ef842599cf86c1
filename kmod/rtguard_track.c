// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: acquire and release hooks, which keep each run's table of
 * held resources exact. What a call site does is decided once, at JIT
 * time, from what the verifier knew of the call (KF_* flags, helper id).
 *
 * The JIT calls the function itself directly and the hooks around it
 * directly. While no run must stop and nothing traces calls or holds
 * (rtg_slow), an acquisition is pushed onto the run's table and
 * the release of its newest entry popped by the JIT in line, with no
 * hook called; every other case, and every other role, calls the post
 * hook after the call, which keeps the table exact, and, while
 * rtg_slow is set, the pre hook before it. A post hook takes no
 * clock, no lock and no atomic. A described program's calls are made
 * alone while rtg_slow is clear; a bare one's (&rtg_prog.bare_calls)
 * never take the post hook, and those that only give back no hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/kallsyms.h>

#include "rtguard.h"
#include "rtguard_trace.h"
#include "rtguard_held.h"
#include "rtguard_lazy.h"
#include "rtguard_param.h"
#include "rtguard_run.h"
#include "rtguard_slow.h"

static bool rtg_track;
module_param_cb(track, &rtg_bool_ops, &rtg_track, 0644);
MODULE_PARM_DESC(track,
		 "Track what each run holds of the programs verified while set, loaded with CAP_BPF and calling a helper or kfunc: every call is a place the watchdog can stop them, but those a described program makes plainly (see describe) (default: off)");

/*
 * The run of a lazy program making a call at @site from the frame @fp,
 * adopted (its later hooks find it current), or NULL: none in its
 * exception callback, which runs once the run returned, nor while its
 * CPU has no record for it (rtg_lazy_adopt()); counted anywhere else.
 */
static struct rtg_run *rtg_lazy_run(const struct rtg_site *site, u64 fp)
{
	struct bpf_call_hook_run *area;

	if (site->image->aux->exception_cb)
		return NULL;
	area = bpf_call_hook_frame_run(site->tprog->main, site->image->aux->prog, fp);
	if (!area)
		return rtg_run_stray(site);
	return rtg_lazy_adopt(area, site->tprog);
}

/**
 * rtg_pre() - the slow path before a call of a tracked program
 * @r1: BPF R1
 * @r2: BPF R2
 * @r3: BPF R3
 * @r4: BPF R4
 * @r5: BPF R5
 * @arg: the call site, a &struct rtg_site
 * @r6: BPF R6
 * @r7: BPF R7
 * @r8: BPF R8
 * @r9: BPF R9
 * @fp: BPF R10, the calling frame's frame pointer
 * @r12: r12 (an arena program's base)
 *
 * Called through rtg_pre_track_entry() while rtg_slow is set, and
 * before every bpf_dynptr_clone() call. The run of a lazy program is
 * found from its frames, and adopted. Compares the verifier's
 * description of what the run holds with its table in checking mode,
 * stops the current run if the watchdog marked it (and then may not
 * return), and follows a clone of a dynptr the run holds.
 *
 * Return: a negative value to skip the call (R0 = 0), else 0.
 */
long rtg_pre(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, const struct rtg_site *site,
	     u64 r6, u64 r7, u64 r8, u64 r9, u64 fp, u64 r12)
{
	struct rtg_run *run = rtg_task_run(current);

	if (rtg_prog_lazy(site->tprog))
		run = rtg_lazy_run(site, fp);
	if (run && rtg_run_prog(run) == site->tprog) {
		u64 args[MAX_BPF_FUNC_REG_ARGS] = { r1, r2, r3, r4, r5 };
		struct rtg_callee_regs regs = { { { r6, r7, r8, r9 }, r12 }, fp };

		/* a bare program's table is not the truth, not even while checking */
		if (unlikely(READ_ONCE(rtg_check_held)) && !site->tprog->bare_calls)
			rtg_held_check(run, site, args, &regs);
		if (unlikely(READ_ONCE(run->sample))) {
			if (run->sample & RTG_SAMPLE_ASKED)
				rtg_run_sample(run, site, args, &regs);
			if ((run->sample & RTG_SAMPLE_WATCH) && site->stop_slot)
				rtg_run_acquiring(run, site);
		}
		if (unlikely(READ_ONCE(run->stop)) &&
		    rtg_run_stop(run, site, args, &regs) < 0)
			return -1;
	}
	if (site->role == RTG_ROLE_DYNPTR_CLONE) {
		run = rtg_current_run(site);
		if (run)
			rtg_run_clone(run, site, r1, r2);
	}
	return 0;
}

/* Hold @obj; the trace event costs a patched-out branch while off. */
static __always_inline void rtg_hold(struct rtg_run *run,
				     const struct rtg_site *site, u64 obj)
{
	rtg_run_hold(run, site, obj);
	/* tested here, so that the event's function is called only when on */
	if (trace_rtg_acquire_enabled())
		trace_rtg_acquire(site, obj, site);
}

static __always_inline void rtg_give_back(struct rtg_run *run,
					  const struct rtg_site *site, u64 obj)
{
	const struct rtg_site *acquired = rtg_run_give_back(run, obj);

	if (trace_rtg_release_enabled())
		trace_rtg_release(site, obj, acquired);
}

/* End of every post hook: record the call, at a traced site. */
static __always_inline u64 rtg_post_done(u64 r0, const struct bpf_call_hook_args *args,
					 const struct rtg_site *site)
{
	/*
	 * the JIT saves the arguments of traced sites only; tested here, so
	 * that a post hook a table program's call takes with the event off
	 * makes no call for it
	 */
	if (unlikely(site->flags & RTG_SITE_TRACE) && trace_rtg_call_enabled())
		rtg_trace_call(args, site, r0);
	return r0;
}

/**
 * rtg_acquire_post() - hold what an acquiring call returned
 * @r0: the result, the object acquired or NULL
 * @saved: unused
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Called only when the JIT's in-line push was not taken (rtg_slow
 * set: a stop pending, or calls or holds traced) or could not be done
 * (a full table, which rtg_run_hold() compacts), so it is the general
 * path alone.
 *
 * Return: @r0.
 */
static u64 rtg_acquire_post(u64 r0, u64 saved,
			    const struct bpf_call_hook_args *args,
			    u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (r0 && run)
		rtg_hold(run, site, r0);
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_release_post_slow() - forget what a releasing call gave back, in general
 * @r0: the result
 * @saved: BPF R1 before the call, the object released
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Return: @r0.
 */
static noinline u64 rtg_release_post_slow(u64 r0, u64 saved,
					  const struct bpf_call_hook_args *args,
					  u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run)
		rtg_give_back(run, site, saved);
	return rtg_post_done(r0, args, site);
}

/* Entries below the top that the in-line release looks at. */
#define RTG_RELEASE_NEAR_TOP	8

/**
 * rtg_release_post() - forget what a releasing call gave back
 * @r0: the result
 * @saved: BPF R1 before the call, the object released
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Called when the JIT's in-line pop was not taken (rtg_slow set)
 * or could not be done (the object is not the newest entry). In line
 * when the object is among the RTG_RELEASE_NEAR_TOP newest entries;
 * anything else is a tail call of the general path.
 *
 * Return: @r0.
 */
static u64 rtg_release_post(u64 r0, u64 saved,
			    const struct bpf_call_hook_args *args,
			    u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_task_run(current);

	if (likely(run && rtg_run_prog(run) == site->tprog && run->how != RTG_HOW_FAST &&
		   !(site->flags & RTG_SITE_TRACE) && !trace_rtg_release_enabled())) {
		u32 i = run->count;
		u32 low = i > RTG_RELEASE_NEAR_TOP ? i - RTG_RELEASE_NEAR_TOP : 0;

		while (i-- > low) {
			if (run->held[i].obj == saved) {
				rtg_run_clear(run, i);
				return r0;
			}
		}
	}
	return rtg_release_post_slow(r0, saved, args, arg);
}

/**
 * rtg_release_dynptr_post() - forget a dynptr's record, given back
 * @r0: the result
 * @saved: BPF R1 before the call, the dynptr submitted or discarded
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * The record was reserved in one dynptr and may be given back through
 * any clone of it: never popped in line, so that the whole group goes.
 *
 * Return: @r0.
 */
static u64 rtg_release_dynptr_post(u64 r0, u64 saved,
				   const struct bpf_call_hook_args *args,
				   u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run) {
		const struct rtg_site *acquired = rtg_run_give_back_dynptr(run, saved);

		if (trace_rtg_release_enabled())
			trace_rtg_release(site, saved, acquired);
	}
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_release_acquire_post() - forget argument 1, hold the result
 * @r0: the result, the object acquired or NULL
 * @saved: BPF R1 before the call, the object released
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Return: @r0.
 */
static u64 rtg_release_acquire_post(u64 r0, u64 saved,
				    const struct bpf_call_hook_args *args,
				    u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run) {
		rtg_give_back(run, site, saved);
		if (r0)
			rtg_hold(run, site, r0);
	}
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_hold_arg_post() - hold argument 1 (an iterator created, a lock taken)
 * @r0: the result
 * @saved: BPF R1 before the call
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * An iterator must be destroyed even when its constructor fails, so it is
 * held whatever the call returned.
 *
 * Return: @r0.
 */
static u64 rtg_hold_arg_post(u64 r0, u64 saved,
			     const struct bpf_call_hook_args *args,
			     u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run)
		rtg_hold(run, site, saved);
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_section_begin_post() - the run entered a section (RCU, preemption)
 * @r0: the result
 * @saved: unused
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Return: @r0.
 */
static u64 rtg_section_begin_post(u64 r0, u64 saved,
				  const struct bpf_call_hook_args *args,
				  u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run) {
		rtg_run_enter_section(run, site->section);
		if (trace_rtg_acquire_enabled())
			trace_rtg_acquire(site, site->section + 1, site);
	}
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_section_end_post() - the run left a section
 * @r0: the result
 * @saved: unused
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * Return: @r0.
 */
static u64 rtg_section_end_post(u64 r0, u64 saved,
				const struct bpf_call_hook_args *args,
				u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run) {
		bool held = rtg_run_leave_section(run, site->section);

		/* sections are counted: the acquiring site is not known */
		if (trace_rtg_release_enabled())
			trace_rtg_release(site, site->section + 1, held ? site : NULL);
	}
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_kptr_xchg_post() - a reference moved between the run and a map
 * @r0: the reference taken out of the map, or NULL
 * @saved: BPF R2 before the call, the reference given to the map, or NULL
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site
 *
 * What goes into the map is the map's from now on and leaves the run's
 * table without being released; what comes out is the run's to release.
 *
 * Return: @r0.
 */
static u64 rtg_kptr_xchg_post(u64 r0, u64 saved,
			      const struct bpf_call_hook_args *args,
			      u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run) {
		if (saved)
			rtg_give_back(run, site, saved);
		if (r0)
			rtg_hold(run, site, r0);
	}
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_move_out_post() - an object moved into a bpf_list or rbtree
 * @r0: the result
 * @saved: the node argument before the call, inside the object
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site; its obj_off is the node's offset
 *
 * The collection owns the object from now on (or the kernel dropped it,
 * when the push failed): it leaves the run's table without a release.
 *
 * Return: @r0.
 */
static u64 rtg_move_out_post(u64 r0, u64 saved,
			     const struct bpf_call_hook_args *args,
			     u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (run)
		rtg_give_back(run, site, saved - site->obj_off);
	return rtg_post_done(r0, args, site);
}

/**
 * rtg_move_in_post() - an object came out of a bpf_list or rbtree
 * @r0: the node inside the object, or NULL
 * @saved: unused
 * @args: the call's saved arguments (traced sites)
 * @arg: the call site, a &struct rtg_site; its obj_off is the node's offset
 *
 * The run holds the object, which bpf_obj_drop() gives back.
 *
 * Return: @r0.
 */
static u64 rtg_move_in_post(u64 r0, u64 saved,
			    const struct bpf_call_hook_args *args,
			    u64 arg)
{
	const struct rtg_site *site = rtg_site_of(arg);
	struct rtg_run *run = rtg_current_run(site);

	if (r0 && run)
		rtg_hold(run, site, r0 - site->obj_off);
	return rtg_post_done(r0, args, site);
}

static const struct {
	bpf_call_hook_post_t post;
	bool saves_arg;		/* the post hook needs the argument of its role */
	bool releases;		/* its function can release on the watchdog's behalf */
	bool consumes;		/* the call takes an argument away from the program */
	u8 table_op;		/* what the JIT does in line instead of @post */
	bool holds;		/* @post records a reference the call acquires */
} rtg_roles[] = {
	[RTG_ROLE_ACQUIRE] = { rtg_acquire_post, false, false, false, BPF_CALL_HOOK_TABLE_PUSH,
			       true },
	[RTG_ROLE_RELEASE] = { rtg_release_post, true, true, true, BPF_CALL_HOOK_TABLE_POP },
	/* an acquiring function is never a release for the watchdog */
	[RTG_ROLE_RELEASE_ACQUIRE] = { rtg_release_acquire_post, true, false, true, 0, true },
	[RTG_ROLE_HOLD_ARG] = { rtg_hold_arg_post, true, false, false, 0, true },
	[RTG_ROLE_HOLD_TOKEN] = { rtg_section_begin_post, false, false, false },
	[RTG_ROLE_RELEASE_TOKEN] = { rtg_section_end_post, false, true, true },
	[RTG_ROLE_KPTR_XCHG] = { rtg_kptr_xchg_post, true, false, true, 0, true },
	[RTG_ROLE_MOVE_OUT] = { rtg_move_out_post, true, false, true },
	[RTG_ROLE_MOVE_IN] = { rtg_move_in_post, false, false, false, 0, true },
	[RTG_ROLE_ITER_NEXT] = { NULL, false, false, false },
	[RTG_ROLE_GUARD] = { NULL, false, false, false },
	/* the pre hook follows the clone, before the call */
	[RTG_ROLE_DYNPTR_CLONE] = { NULL, false, false, false },
	[RTG_ROLE_RELEASE_DYNPTR] = { rtg_release_dynptr_post, true, true, true },
};

/*
 * Whether a call of a partly described program keeps its table work: it
 * acquires what a call whose paths differ may find held, or may give
 * back what the table records. Sections are not recorded: the
 * descriptions say them.
 */
static bool rtg_track_records(const struct rtg_site *site, const struct rtg_fn_facts *facts)
{
	if (site->role == RTG_ROLE_HOLD_TOKEN || site->role == RTG_ROLE_RELEASE_TOKEN)
		return false;
	if (rtg_roles[site->role].holds && site->feeds)
		return true;
	return rtg_roles[site->role].consumes && rtg_held_gives_back_recorded(site, facts->arg);
}

/*
 * The helper and kfunc calls of a program, as verified (kfunc calls not
 * yet rewritten); @clones is set to those of bpf_dynptr_clone().
 */
static u32 rtg_prog_calls(const struct bpf_prog *prog, u32 *clones)
{
	u32 clone_id = rtg_pairing_vmlinux_kfunc("bpf_dynptr_clone");
	u32 i, n = 0;

	*clones = 0;
	for (i = 0; i < prog->len; i++) {
		const struct bpf_insn *insn = &prog->insnsi[i];

		if (insn->code != (BPF_JMP | BPF_CALL) || insn->src_reg == BPF_PSEUDO_CALL)
			continue;
		n++;
		if (insn->src_reg == BPF_PSEUDO_KFUNC_CALL && !insn->off &&
		    clone_id && insn->imm == clone_id)
			(*clones)++;
	}
	return n;
}

/**
 * rtg_track_prog_verified() - decide once whether a program is tracked
 * @prog: the program that just passed the verifier
 * @capable: whether its loader has CAP_BPF
 * @retval: the range its return value is held to, or NULL for any
 *
 * A program verified while track is set, loaded with CAP_BPF, and calling
 * at least one helper or kfunc (a place where a run can be seen and
 * stopped) is tracked: its runs are bracketed, with a run area sized by
 * the verifier's bound on references held at once, it is made an
 * exception boundary so that the watchdog can leave it, and its
 * bpf_kptr_xchg() calls stay calls; how a stop ends its runs is decided
 * now too (rtg_stop_policy_verified()). Every image of it follows this.
 *
 * The runs of a program in debug mode are recorded as they return while
 * the CPU's rtg_trace_runs_on is set (the event is on, and trace_runs):
 * a tracked one's, and, bracketed for that alone (RTG_TRACE_ONLY) and
 * only when they begin while it is, an untracked one's.
 *
 * Return: BPF_CALL_HOOK_* flags.
 */
u32 rtg_track_prog_verified(struct bpf_prog *prog, bool capable,
			    const struct bpf_retval_range *retval)
{
	u32 runs = rtg_debug_traced(prog->aux) ? BPF_CALL_HOOK_EXIT_ON_FLAG : 0;
	u32 clones;

	if (!READ_ONCE(rtg_track) || !capable || !rtg_prog_calls(prog, &clones)) {
		if (!runs)
			return 0;
		/* and only the runs that begin while the event is on */
		prog->aux->call_hook_run_size = rtg_run_size(0);
		return BPF_CALL_HOOK_RUNS | BPF_CALL_HOOK_RUNS_ON_FLAG | RTG_TRACE_ONLY;
	}
	/*
	 * A dynptr clone shares the reference of the dynptr it clones, which
	 * the verifier counts once, but has an entry of its own: one for
	 * each clone call, which writes a stack slot at a constant offset
	 * of its frame that the verifier lets nothing overwrite while the
	 * clone is live. A run that still holds more is incomplete.
	 */
	prog->aux->call_hook_run_size = rtg_run_size(prog->aux->max_acquired_refs + clones);
	return BPF_CALL_HOOK_RUNS | BPF_CALL_HOOK_UNWIND | BPF_CALL_HOOK_KEEP_XCHG |
	       runs | rtg_stop_policy_verified(prog, retval);
}

/**
 * rtg_track_select() - decide what a call site of a tracked image does
 * @site: the site, filled in but for its role
 * @info: the verifier's description of the call, or NULL
 * @hook: what the JIT emits around the call
 * @once: the program is bare and described, and its runs make this call
 *	at most once, and soon after it begins (&rtg_image.not_once)
 *
 * Every call of a tracked program gets the pre hook (a place where the
 * watchdog can stop the run), but a bare program's calls that only give
 * back, and those @once; acquiring and releasing calls get the post hook
 * of their role, but a bare program's that its table does not need.
 *
 * Return: true.
 */
bool rtg_track_select(struct rtg_site *site, const struct bpf_call_info *info,
		      struct bpf_call_hook_site *hook, bool once)
{
	char name[KSYM_NAME_LEN], stop_release[RTG_FN_NAME_LEN];
	struct rtg_fn_facts facts;

	sprint_symbol_no_offset(name, (unsigned long)site->func);
	name[strcspn(name, " ")] = 0;	/* " [module]" */
	rtg_fn_facts_of(info, name, &facts, stop_release, sizeof(stop_release));
	site->role = facts.role;
	site->section = facts.section;
	if (info && info->btf && (info->kfunc_flags & KF_ITER_NEW))
		site->flags |= RTG_SITE_ITER;
	/*
	 * A helper that acquires on some paths only cannot be followed, nor
	 * can a call the verifier did not describe: the table of a run
	 * through either is not the truth, so it is never unwound.
	 */
	if (!info || info->ret_acquired_mixed)
		site->tprog->no_unwind = true;
	site->held = info ? info->held : NULL;
	site->feeds = info && info->held_differs;
	site->verified_idx = info ? info->insn_idx : U32_MAX;
	rtg_prog_add_acquire(site->tprog, site, stop_release);
	/* sections are counted, not named by the calls that opened them */
	if (site->stop_slot)
		rtg_held_add_acq_site(site->tprog, site);
	if (site->role == RTG_ROLE_MOVE_OUT)
		site->obj_off = info->arg_off;
	else if (site->role == RTG_ROLE_MOVE_IN)
		site->obj_off = info->ret_off;

	hook->pre = rtg_pre_track_entry;
	/* a clone is followed on every run, a stop only while one is pending */
	if (site->role != RTG_ROLE_DYNPTR_CLONE)
		hook->pre_flag = &rtg_slow;
	/*
	 * Fast-execute skips a call whose result the verifier saw as
	 * possibly NULL, but never one that takes an argument from the
	 * program (a release, bpf_kptr_xchg(), a push into a bpf_list): the
	 * verifier already counts that argument as gone, so a skipped call
	 * would leave it owned by no one.
	 */
	if ((site->flags & RTG_SITE_MAY_FAIL) && !rtg_roles[site->role].consumes &&
	    !(info && info->btf && (info->kfunc_flags & KF_RELEASE)))
		site->flags |= RTG_SITE_SKIP;
	hook->may_skip = site->flags & RTG_SITE_SKIP;
	hook->pass_args = site->flags & RTG_SITE_TRACE;
	hook->post = rtg_roles[site->role].post;
	hook->save_reg = rtg_roles[site->role].saves_arg ? facts.arg : 0;
	/* the common cases are done in line while no call is slow */
	hook->table_op = rtg_roles[site->role].table_op;
	/*
	 * A described program's calls are made alone while no call is slow
	 * (its hooks only while a stop, a sample or an event is pending):
	 * a stop reads what the run holds from the description. So are a
	 * partly described program's, but those its table needs.
	 */
	if (site->tprog->described ||
	    (site->tprog->partly && !rtg_track_records(site, &facts))) {
		hook->table_op = BPF_CALL_HOOK_TABLE_NONE;
		hook->plain_when_clear = true;
		/* a sampled run watches its acquisitions (rtg_run_acquiring()) */
		if (site->stop_slot && hook->pre_flag)
			hook->pre_flag = &rtg_slow_acquire;
		/*
		 * A bare program's calls record nothing its table does not
		 * need (no post hook but a traced call's, which records the
		 * call alone), and a call that only gives back is no place to
		 * stop either: the call that took what it gives back was one,
		 * and a run makes no more such calls in a row than it holds
		 * resources.
		 */
		if (site->tprog->bare_calls) {
			/*
			 * Nor is a call a run makes at most once: a run that
			 * loops makes its calls on the loop again, and one
			 * that does not ends soon after (its program does not
			 * sleep), but for time spent in BPF functions and
			 * callbacks, after which every call stays one
			 * (rtg_cfg_mark_far()). A sample that sees what it
			 * took knows it from anything taken before.
			 */
			bool plain = once ||
				     (rtg_roles[site->role].consumes &&
				      !rtg_roles[site->role].holds &&
				      !(site->flags & RTG_SITE_TRACE));

			hook->post = NULL;
			hook->save_reg = 0;
			if (plain && site->role != RTG_ROLE_DYNPTR_CLONE) {
				hook->pre = NULL;
				hook->pre_flag = NULL;
				hook->plain_when_clear = false;
				hook->may_skip = false;
				site->flags &= ~RTG_SITE_SKIP;
			}
		}
	}
	if (!hook->post && (site->flags & RTG_SITE_TRACE))
		hook->post = rtg_trace_post;
	if (rtg_roles[site->role].releases) {
		hook->thunk = &site->thunk;
		rtg_prog_add_release_fn(site->tprog, name, site);
	} else if (facts.stop_helper) {
		const struct bpf_func_proto *proto =
			bpf_base_func_proto(facts.stop_helper, site->image->aux->prog);

		if (proto) {
			hook->thunk = &site->thunk;
			hook->thunk_func = proto->func;
			rtg_prog_add_release_fn(site->tprog, facts.stop_release, site);
		}
	}
	return true;
}
