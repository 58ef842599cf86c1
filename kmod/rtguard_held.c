// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: the verifier's description of what a program holds before
 * each call (struct bpf_held_desc), read in a run's own frames, and its
 * checking mode, which compares it with the run's table at every call.
 *
 * A description names, for each resource, every place (a register, a
 * stack slot of one of the program's frames) that holds it on some path
 * through the call. Read on one run, they must all hold one object;
 * otherwise the description does not fit the run and is not used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_verifier.h>
#include <linux/moduleparam.h>

#include "rtguard.h"
#include "rtguard_held.h"
#include "rtguard_param.h"
#include "rtguard_slow.h"

/* frames of one program a description can name, and one more */
#define RTG_HELD_MAX_FRAMES	(MAX_CALL_FRAMES + 1)

/**
 * struct rtg_held_part - one description of what a run holds, and its frames
 * @d: the description
 * @base: the index in &rtg_held_cx.fr of the innermost frame it names
 */
struct rtg_held_part {
	const struct bpf_held_desc *d;
	int base;
};

/**
 * struct rtg_held_cx - where a run's values are, seen from its pre hook
 * @args: BPF R1 to R5 of the calling frame
 * @fr: the program's frames, the calling one first (@frames)
 * @nr_frames: entries in @fr
 * @frames: room for them
 * @part: the descriptions that name what the run holds, the call's first,
 *	then for a global function's frames, that of the call of the
 *	function in the frame outside, and so on
 * @nr_parts: entries in @part
 * @whole: @part ends with a description the verifier began from the main
 *	program, and names every frame of the run
 */
struct rtg_held_cx {
	const u64 *args;
	const struct bpf_call_hook_frame *fr;
	int nr_frames;
	struct bpf_call_hook_frame frames[RTG_HELD_MAX_FRAMES];
	struct rtg_held_part part[RTG_HELD_MAX_FRAMES];
	int nr_parts;
	bool whole;
};

static_assert(RTG_HELD_MAX_FRAMES <= BPF_CALL_HOOK_MAX_FRAMES);

/* Why a tracked program keeps its table: the first call that needs it */
enum rtg_held_why {
	RTG_HELD_WHY_DESCRIBED,	/* none: the program is described */
	RTG_HELD_WHY_PARTLY,	/* its table follows what reaches calls whose paths differ */
	RTG_HELD_WHY_NO_DESC,	/* the verifier described no call, or not this one */
	RTG_HELD_WHY_DIFFERS,	/* paths reach the call holding different sections or frames */
	RTG_HELD_WHY_DIFFERS_GLOBAL, /* ... different sets, in or across a global function */
	RTG_HELD_WHY_TOO_MANY,	/* more than 255 resources */
	RTG_HELD_WHY_MIXED,	/* a helper acquires on some paths only */
	RTG_HELD_WHY_CLONE,	/* the program clones a dynptr */
	RTG_HELD_WHY_NOWHERE,	/* a place no hook can read: a callback's caller's register */
	RTG_HELD_WHY_ACQ_UNKNOWN, /* paths acquired a resource by different calls */
	RTG_HELD_WHY_ARGS_ONLY,	/* held only in a global function's arguments */
	RTG_HELD_WHY_NO_CALLS,	/* no helper or kfunc call: nothing to describe */
	RTG_HELD_WHY_OFF,	/* describe=0 or check_held=1 */
	RTG_HELD_NR_WHYS,
};

static const char * const rtg_held_why_names[RTG_HELD_NR_WHYS] = {
	[RTG_HELD_WHY_DESCRIBED] = "held_described_progs",
	[RTG_HELD_WHY_PARTLY] = "held_partly_described_progs",
	[RTG_HELD_WHY_NO_DESC] = "held_undescribed_no_description",
	[RTG_HELD_WHY_DIFFERS] = "held_undescribed_differs",
	[RTG_HELD_WHY_DIFFERS_GLOBAL] = "held_undescribed_differs_global",
	[RTG_HELD_WHY_TOO_MANY] = "held_undescribed_too_many",
	[RTG_HELD_WHY_MIXED] = "held_undescribed_mixed_acquire",
	[RTG_HELD_WHY_CLONE] = "held_undescribed_dynptr_clone",
	[RTG_HELD_WHY_NOWHERE] = "held_undescribed_nowhere",
	[RTG_HELD_WHY_ACQ_UNKNOWN] = "held_undescribed_acquirer_unknown",
	[RTG_HELD_WHY_ARGS_ONLY] = "held_undescribed_args_only",
	[RTG_HELD_WHY_NO_CALLS] = "held_undescribed_no_calls",
	[RTG_HELD_WHY_OFF] = "held_undescribed_describe_off",
};

bool rtg_check_held;
static bool rtg_describe = true;
module_param_cb(describe, &rtg_bool_ops, &rtg_describe, 0644);
MODULE_PARM_DESC(describe,
		 "Tracked programs JIT compiled while set whose every call the verifier describes completely keep no run-time table: their calls cost a compare and a branch (nothing, in a program loaded while the rtg_acquire and rtg_release events are off, for a call that only gives back, and, if the program does not sleep, for one its runs make at most once: on no loop of its main function, after no BPF function call or callback; the runs of one with no loop and no BPF function call are not bracketed at all), and a stop gives back what the description of its call names; those described but for calls whose paths hold different references keep one for what reaches those calls only (default: on; check_held=1 keeps every table)");

/* calls checked that needed a walk of the frames, per CPU */
static DEFINE_PER_CPU(u32, rtg_held_walks);
#define RTG_HELD_WALK_EVERY	64
static DEFINE_MUTEX(rtg_check_held_lock);
static atomic_long_t rtg_held_counts[RTG_HELD_NR_COUNTS];
/* tracked programs so far, those described, and their descriptions' bytes */
static DEFINE_MUTEX(rtg_held_stats_lock);
static u64 rtg_held_progs;
/* of them, described, and those that keep a table, by why (enum rtg_held_why) */
static u64 rtg_held_whys[RTG_HELD_NR_WHYS];
static u64 rtg_held_bytes;
static u32 rtg_held_bytes_max;

static const char * const rtg_held_kind_names[] = {
	[BPF_HELD_PTR] = "pointer",
	[BPF_HELD_DYNPTR] = "dynptr",
	[BPF_HELD_ITER] = "iterator",
	[BPF_HELD_LOCK] = "spin_lock",
};

/**
 * rtg_held_read() - the object a resource's places hold on this run
 * @part: the description, and where its frames are in @cx
 * @i: index in @part->d->loc of the resource's first place; on return, of
 *	the next resource's
 * @cx: where the run's registers and frames are
 * @obj: the object (for a dynptr, its record; for an iterator, its slot),
 *	or 0 when the resource is not held on this run (all of its places
 *	hold NULL, which the description allows)
 * @slot: for a dynptr or an iterator, the address of its first place
 *
 * Return: RTG_HELD_OK, RTG_HELD_UNREADABLE when a place cannot be read
 * from here, or RTG_HELD_AMBIGUOUS when the places disagree.
 */
static enum rtg_held_count rtg_held_read(const struct rtg_held_part *part, u32 *i,
					 const struct rtg_held_cx *cx, u64 *obj, u64 *slot)
{
	const struct bpf_held_desc *d = part->d;
	enum rtg_held_count res = RTG_HELD_OK;
	u8 ref = d->loc[*i].ref;
	u32 places = 0, nulls = 0, gone = 0;
	bool have = false;
	u64 v;

	*obj = 0;
	for (; *i < d->nr_locs && d->loc[*i].ref == ref; (*i)++) {
		const struct bpf_held_loc *l = &d->loc[*i];
		int depth = part->base + d->frames - 1 - l->frame;

		if (res != RTG_HELD_OK)
			continue;
		if (l->reg == BPF_HELD_NOWHERE || depth >= cx->nr_frames) {
			res = RTG_HELD_UNREADABLE;
			continue;
		}
		if (depth && l->reg >= BPF_REG_1 && l->reg <= BPF_REG_5) {
			/*
			 * the arguments of a global function's call, which
			 * clobbers them: the resource has other places
			 */
			gone++;
			continue;
		}
		if (l->reg == BPF_HELD_STACK) {
			v = cx->fr[depth].fp + l->off;
		} else if (!depth && l->reg >= BPF_REG_1 && l->reg <= BPF_REG_5) {
			v = cx->args[l->reg - BPF_REG_1];
		} else if (l->reg >= BPF_REG_6 && l->reg <= BPF_REG_9 &&
			   (cx->fr[depth].known & BIT(l->reg - BPF_REG_6))) {
			v = cx->fr[depth].r[l->reg - BPF_REG_6];
		} else {
			/* a caller's R6-R9 across a C function (a callback's) */
			res = RTG_HELD_UNREADABLE;
			continue;
		}
		/* a pointer is read; a dynptr or an iterator is its slot */
		if ((l->kind == BPF_HELD_PTR || l->kind == BPF_HELD_LOCK) &&
		    l->reg == BPF_HELD_STACK)
			v = *(u64 *)v;
		else if (!places)
			*slot = v;
		places++;
		if ((l->flags & BPF_HELD_MAYBE_NULL) && !v) {
			nulls++;
			continue;
		}
		if (l->kind == BPF_HELD_PTR || l->kind == BPF_HELD_LOCK)
			v += l->addend;
		/* clones of a dynptr share its record */
		else if (l->kind == BPF_HELD_DYNPTR)
			v = *(u64 *)v;
		if (!have)
			*obj = v;
		else if (v != *obj)
			res = RTG_HELD_AMBIGUOUS;
		have = true;
	}
	/* not held here: every place NULL, or else they disagree */
	if (res == RTG_HELD_OK && ((nulls && nulls != places) || (have && !*obj)))
		res = RTG_HELD_AMBIGUOUS;
	if (res == RTG_HELD_OK && gone && !places)
		res = RTG_HELD_UNREADABLE;
	return res;
}

static void rtg_held_count(enum rtg_held_count c)
{
	atomic_long_inc(&rtg_held_counts[c]);
}

/* A ring buffer record reserved in a dynptr: the table holds the dynptr. */
static bool rtg_held_is_dynptr(const struct rtg_held *h)
{
	return h->site->role == RTG_ROLE_HOLD_ARG && !(h->site->flags & RTG_SITE_KFUNC) &&
	       h->site->func_id == BPF_FUNC_ringbuf_reserve_dynptr;
}

/* Whether table entry @h stands for resource @obj of kind @kind. */
static bool rtg_held_matches(const struct rtg_held *h, u64 obj, u8 kind)
{
	if (kind == BPF_HELD_DYNPTR)
		return rtg_held_is_dynptr(h) && *(u64 *)h->obj == obj;
	return h->obj == obj;
}

static void rtg_held_report(const struct rtg_site *site, const char *what, u64 obj,
			    u8 kind)
{
	rtg_held_count(RTG_HELD_DIFFERENT);
	pr_warn_ratelimited("check_held: prog %s insn %u: %s %s %p\n",
			    site->main->name, site->insn_idx, what,
			    kind < ARRAY_SIZE(rtg_held_kind_names) ?
			    rtg_held_kind_names[kind] : "resource", (void *)obj);
}

/*
 * Chain the descriptions that name what the run holds, from @d, the
 * call's: where @d's verifier state began from a global function, the
 * frame outside it is making the call of that function, whose own
 * description names what that frame and those outside it hold.
 */
static void rtg_held_chain(struct rtg_held_cx *cx, const struct bpf_held_desc *d)
{
	int base = 0;

	cx->nr_parts = 0;
	cx->whole = false;
	for (;;) {
		cx->part[cx->nr_parts].d = d;
		cx->part[cx->nr_parts++].base = base;
		base += d->frames;
		if (!d->global) {
			cx->whole = base == cx->nr_frames;
			return;
		}
		if (base >= cx->nr_frames || !cx->fr[base].call ||
		    cx->nr_parts == ARRAY_SIZE(cx->part))
			return;
		d = cx->fr[base].call->held;
		if (!d || d->flags)
			return;
	}
}

/*
 * Find the frames of the run making @site's call that description @d
 * names (and one more, to tell whether the run has more), and for a
 * global function's, those outside it, then the descriptions that name
 * them.
 */
static bool rtg_held_cx_init(struct rtg_held_cx *cx, const struct rtg_site *site,
			     const struct bpf_held_desc *d, const u64 *args,
			     const struct rtg_callee_regs *regs)
{
	struct bpf_call_hook_frame *fr = cx->frames;

	cx->args = args;
	cx->fr = fr;
	if (d->frames > 1 || d->global) {
		int n = d->global ? RTG_HELD_MAX_FRAMES :
			min_t(int, d->frames + 1, RTG_HELD_MAX_FRAMES);

		cx->nr_frames = bpf_call_hook_frames(site->main, regs->callee.r, fr, n);
		if (!cx->nr_frames || fr[0].fp != regs->fp)
			return false;
	} else {
		/* the calling frame alone: its registers are all here */
		fr[0].fp = regs->fp;
		memcpy(fr[0].r, regs->callee.r, sizeof(fr[0].r));
		fr[0].known = GENMASK(ARRAY_SIZE(fr[0].r) - 1, 0);
		fr[0].call = NULL;
		cx->nr_frames = 1;
	}
	rtg_held_chain(cx, d);
	return true;
}

/* rcu and preempt depths of the run, as @cx's descriptions name them */
static void rtg_held_sections(const struct rtg_held_cx *cx, u8 *sections)
{
	int p;

	sections[RTG_SECTION_RCU] = 0;
	sections[RTG_SECTION_PREEMPT] = 0;
	for (p = 0; p < cx->nr_parts; p++) {
		sections[RTG_SECTION_RCU] += cx->part[p].d->rcu;
		sections[RTG_SECTION_PREEMPT] += cx->part[p].d->preempt;
	}
}

/* Whether a place of @d holds the spin lock. */
static bool rtg_held_has_lock(const struct bpf_held_desc *d)
{
	u32 i;

	for (i = 0; i < d->nr_locs; i++)
		if (d->loc[i].kind == BPF_HELD_LOCK)
			return true;
	return false;
}

/*
 * Whether @d describes a helper or kfunc call of a main program's
 * verifier state whose paths differ in the references alone: a table
 * that follows only the acquisitions that reach such calls
 * (&bpf_call_info.held_differs) has them, and @d the sections and the
 * places of the lock (kernel patch 30 says the paths differ in more
 * otherwise, BPF_HELD_DIFFERS_STATE).
 */
static bool rtg_held_differs_refs_only(const struct bpf_held_desc *d)
{
	return d && d->flags == BPF_HELD_DIFFERS && !d->global;
}

/*
 * The spin lock @d names (read through @site's frame, as @args and @regs
 * give it) in *@lock, or 0 when it names none.
 */
static bool rtg_held_read_lock(const struct rtg_site *site, const struct bpf_held_desc *d,
			       const u64 *args, const struct rtg_callee_regs *regs, u64 *lock)
{
	struct rtg_held_cx cx;
	u64 slot;
	u32 i;

	*lock = 0;
	for (i = 0; i < d->nr_locs && d->loc[i].kind != BPF_HELD_LOCK; i++)
		;
	if (i == d->nr_locs)
		return true;
	return rtg_held_cx_init(&cx, site, d, args, regs) &&
	       rtg_held_read(&cx.part[0], &i, &cx, lock, &slot) == RTG_HELD_OK && *lock;
}

/*
 * At a call whose paths hold different references and the same sections
 * (a partly described program's table is read there), every resource in
 * the table must come from a call the verifier says records it
 * (&bpf_call_info.held_differs), a spin lock be the one the description
 * names, and the sections be the description's.
 */
static void rtg_held_check_differs(struct rtg_run *run, const struct rtg_site *site,
				   const u64 *args, const struct rtg_callee_regs *regs)
{
	const struct bpf_held_desc *d = site->held;
	u64 lock, locks = 0;
	u32 j;

	if (run->incomplete) {
		rtg_held_count(RTG_HELD_TABLE_INCOMPLETE);
		return;
	}
	if (!rtg_held_read_lock(site, d, args, regs, &lock)) {
		rtg_held_count(RTG_HELD_UNREADABLE);
		return;
	}
	for (j = 0; j < run->count; j++) {
		const struct rtg_held *h = &run->held[j];

		if (!h->obj || rtg_held_is_clone(h))
			continue;
		/* the lock: the one the description names, and only it */
		if (rtg_site_is_spin_lock(h->site)) {
			if (h->obj != lock || locks++) {
				rtg_held_report(site, "in the table, not the described lock:",
						h->obj, BPF_HELD_LOCK);
				return;
			}
			continue;
		}
		if (!h->site->feeds) {
			rtg_held_report(site, "in the table, from a call that does not record it:",
					h->obj, BPF_HELD_PTR);
			return;
		}
	}
	if (lock && !locks) {
		rtg_held_report(site, "described, not in the table:", lock, BPF_HELD_LOCK);
		return;
	}
	if (run->sections[RTG_SECTION_RCU] != d->rcu ||
	    run->sections[RTG_SECTION_PREEMPT] != d->preempt) {
		rtg_held_report(site, "sections differ: rcu/preempt",
				d->rcu * 256 + d->preempt, BPF_HELD_LOCK + 1);
		return;
	}
	rtg_held_count(RTG_HELD_DIFFERS_CHECKED);
}

/**
 * rtg_held_check() - compare the description of a call with the run's table
 * @run: the current run, of @site's program, not stopped
 * @site: the call about to be made
 * @args: BPF R1-R5
 * @regs: BPF R6-R9 and R10 of the calling frame
 *
 * Every resource the description names must be in the table; when the
 * description covers the whole run (the verifier began from the main
 * program), every entry of the table must be named too, and the sections
 * must agree. A difference is counted and reported in one line.
 */
void rtg_held_check(struct rtg_run *run, const struct rtg_site *site,
		    const u64 *args, const struct rtg_callee_regs *regs)
{
	const struct bpf_held_desc *d = site->held;
	struct rtg_held_cx cx;
	bool used[64] = {}, complete = true;
	u8 sections[RTG_NR_SECTIONS];
	u64 obj, slot;
	u32 i, j;
	int p;

	if (!d || d->flags) {
		if (rtg_held_differs_refs_only(d))
			rtg_held_check_differs(run, site, args, regs);
		else
			rtg_held_count(RTG_HELD_NO_DESC);
		return;
	}
	if (run->incomplete || run->count > ARRAY_SIZE(used)) {
		rtg_held_count(RTG_HELD_TABLE_INCOMPLETE);
		return;
	}
	/*
	 * Walking the frames costs an unwind: one call in RTG_HELD_WALK_EVERY
	 * that needs it is checked, and every call a stop happens at, so
	 * that a long run is not slowed into an RCU stall.
	 */
	if ((d->frames > 1 || d->global) && !run->stop &&
	    (this_cpu_inc_return(rtg_held_walks) & (RTG_HELD_WALK_EVERY - 1))) {
		rtg_held_count(RTG_HELD_NOT_SAMPLED);
		return;
	}
	if (!rtg_held_cx_init(&cx, site, d, args, regs)) {
		rtg_held_count(RTG_HELD_UNREADABLE);
		return;
	}
	for (p = 0; p < cx.nr_parts; p++) {
		const struct rtg_held_part *part = &cx.part[p];

		for (i = 0; i < part->d->nr_locs;) {
			u8 kind = part->d->loc[i].kind;
			enum rtg_held_count res;

			res = rtg_held_read(part, &i, &cx, &obj, &slot);
			if (res != RTG_HELD_OK) {
				rtg_held_count(res);
				complete = false;
				continue;
			}
			if (!obj)
				continue;
			for (j = 0; j < run->count; j++) {
				const struct rtg_held *h = &run->held[j];

				if (!used[j] && h->obj && !rtg_held_is_clone(h) &&
				    rtg_held_matches(h, obj, kind))
					break;
			}
			if (j == run->count) {
				rtg_held_report(site, "described, not in the table:", obj, kind);
				return;
			}
			used[j] = true;
		}
	}
	/* the descriptions cover the run when no frame of it lies outside */
	if (cx.whole && complete) {
		for (j = 0; j < run->count; j++) {
			const struct rtg_held *h = &run->held[j];

			if (!used[j] && h->obj && !rtg_held_is_clone(h)) {
				rtg_held_report(site, "in the table, not described:",
						h->obj, BPF_HELD_PTR);
				return;
			}
		}
		rtg_held_sections(&cx, sections);
		if (run->sections[RTG_SECTION_RCU] != sections[RTG_SECTION_RCU] ||
		    run->sections[RTG_SECTION_PREEMPT] != sections[RTG_SECTION_PREEMPT]) {
			rtg_held_report(site, "sections differ: rcu/preempt",
					sections[RTG_SECTION_RCU] * 256 +
					sections[RTG_SECTION_PREEMPT], BPF_HELD_LOCK + 1);
			return;
		}
	}
	rtg_held_count(complete ? RTG_HELD_OK : RTG_HELD_PARTIAL);
}

/**
 * rtg_held_add_acq_site() - remember a call that acquires what a stop gives back
 * @tp: the program's tracking state
 * @site: the call site, with its stop release
 *
 * Called at JIT time; descriptions name resources by the call that
 * acquired them (&bpf_held_loc.acq_idx), and the lock by whichever
 * bpf_spin_lock() call took it.
 */
void rtg_held_add_acq_site(struct rtg_prog *tp, const struct rtg_site *site)
{
	u32 n = tp->nr_acq_sites;

	if (rtg_site_is_spin_lock(site) && !tp->lock_site)
		/* readers on the stop path see the site whole */
		smp_store_release(&tp->lock_site, site);
	if (n >= RTG_MAX_ACQ_SITES)
		return;
	tp->acq_sites[n] = site;
	/* readers on the stop path see the entry before the count */
	smp_store_release(&tp->nr_acq_sites, n + 1);
}

/* An acquiring call of the program, by verified index, or NULL. */
static const struct rtg_site *rtg_held_acq_site(struct rtg_prog *tp, u32 verified_idx)
{
	/* pairs with the release in rtg_held_add_acq_site() */
	u32 n = smp_load_acquire(&tp->nr_acq_sites), i;

	for (i = 0; i < n; i++)
		if (tp->acq_sites[i]->verified_idx == verified_idx)
			return tp->acq_sites[i];
	return NULL;
}

/**
 * rtg_held_resolve() - what a run holds before a call, by the call's description
 * @site: the call about to be made, of a tracked program
 * @args: BPF R1-R5
 * @regs: BPF R6-R9 and R10 of the calling frame
 * @res: filled with the resources held, in order of acquisition
 * @max: entries in @res
 * @sections: filled with the depth of each &enum rtg_section
 *
 * Inside a global function, what the frames outside it hold comes from
 * the description of the call of the function (and so on outwards), and
 * was acquired first.
 *
 * Return: the number of resources, or -1 when the descriptions do not
 * say all that the run holds: there is none for a call on the way, a
 * place cannot be read from here, the places of a resource disagree, or
 * a resource has no release the watchdog knows.
 */
int rtg_held_resolve(const struct rtg_site *site, const u64 *args,
		     const struct rtg_callee_regs *regs, struct rtg_held_res *res,
		     int max, u8 *sections)
{
	const struct bpf_held_desc *d = site->held;
	struct rtg_held_cx cx;
	u32 i, acq_idx;
	u64 obj, slot;
	int n = 0, p;
	u8 kind;

	if (!d || d->flags || !rtg_held_cx_init(&cx, site, d, args, regs) || !cx.whole)
		return -1;
	/* the outermost description's resources were acquired first */
	for (p = cx.nr_parts - 1; p >= 0; p--) {
		const struct rtg_held_part *part = &cx.part[p];

		for (i = 0; i < part->d->nr_locs;) {
			kind = part->d->loc[i].kind;
			acq_idx = part->d->loc[i].acq_idx;
			if (rtg_held_read(part, &i, &cx, &obj, &slot) != RTG_HELD_OK)
				return -1;
			if (!obj)
				continue;
			if (n == max)
				return -1;
			/* the lock: whichever bpf_spin_lock() call took it */
			if (kind == BPF_HELD_LOCK)
				/* pairs with the release in rtg_held_add_acq_site() */
				res[n].acq = smp_load_acquire(&site->tprog->lock_site);
			else
				res[n].acq = rtg_held_acq_site(site->tprog, acq_idx);
			if (!res[n].acq)
				return -1;
			res[n].release = res[n].acq->stop_slot;
			res[n++].obj = kind == BPF_HELD_DYNPTR ? slot : obj;
		}
	}
	rtg_held_sections(&cx, sections);
	return n;
}

/* Whether the places of @d->loc[@i]'s resource are all in R1-R5. */
static bool rtg_held_arg_only(const struct bpf_held_desc *d, u32 i)
{
	u32 k;

	for (k = 0; k < d->nr_locs; k++)
		if (d->loc[k].ref == d->loc[i].ref &&
		    (d->loc[k].reg < BPF_REG_1 || d->loc[k].reg > BPF_REG_5))
			return false;
	return true;
}

/* Whether one call's description can say all that a run holds there, or why not. */
static enum rtg_held_why rtg_held_desc_complete(const struct bpf_call_info *info,
						u32 clone_id)
{
	const struct bpf_held_desc *d = info->held;
	u32 i;

	if (!d)
		return RTG_HELD_WHY_NO_DESC;
	if (info->ret_acquired_mixed)
		return RTG_HELD_WHY_MIXED;
	/* a dynptr's clones are places of their own, read as disagreeing */
	if (!info->bpf_func && info->btf && clone_id && info->id == clone_id)
		return RTG_HELD_WHY_CLONE;
	if (d->flags & BPF_HELD_DIFFERS)
		return RTG_HELD_WHY_DIFFERS;
	if (d->flags)
		return RTG_HELD_WHY_TOO_MANY;
	for (i = 0; i < d->nr_locs; i++) {
		if (d->loc[i].reg == BPF_HELD_NOWHERE)
			return RTG_HELD_WHY_NOWHERE;
		if (d->loc[i].kind != BPF_HELD_LOCK &&
		    d->loc[i].acq_idx == BPF_HELD_ACQ_UNKNOWN)
			return RTG_HELD_WHY_ACQ_UNKNOWN;
		/*
		 * a global function's call clobbers its arguments: each
		 * resource must have another place
		 */
		if (info->bpf_func && rtg_held_arg_only(d, i))
			return RTG_HELD_WHY_ARGS_ONLY;
	}
	return RTG_HELD_WHY_DESCRIBED;
}

/*
 * A call whose paths differ: partly described (its references from the
 * table, its sections from @info's description), or why not.
 */
static enum rtg_held_why rtg_held_differs_why(const struct bpf_call_info *info)
{
	const struct bpf_held_desc *d = info->held;

	if (d->flags != BPF_HELD_DIFFERS)
		return RTG_HELD_WHY_DIFFERS;
	if (info->bpf_func || d->global)
		return RTG_HELD_WHY_DIFFERS_GLOBAL;
	return RTG_HELD_WHY_PARTLY;
}

/*
 * Whether a program keeps no run-time table (@main verified and
 * rewritten), keeps one only for what reaches its calls whose paths
 * differ, or why it keeps a whole one.
 *
 * A program is described when the verifier described every one of its
 * helper and kfunc calls and every call of one of its global functions,
 * each description agreeing on all paths but for NULL, naming the call
 * that acquired each resource and no place that a hook cannot read, and
 * the program never clones a dynptr. It is partly described when that
 * holds but for helper and kfunc calls of the main program's verifier
 * state whose paths hold different references (and the same sections,
 * and the spin lock in the same places or on no path).
 * Programs loaded while describe is off keep their table, and so do those
 * loaded while check_held is set, to compare.
 */
static enum rtg_held_why rtg_held_prog_described(const struct bpf_prog_aux *main)
{
	u32 clone_id = rtg_pairing_vmlinux_kfunc("bpf_dynptr_clone");
	enum rtg_held_why why;
	u32 i, calls = 0, differ = 0;

	if (!READ_ONCE(rtg_describe) || READ_ONCE(rtg_check_held))
		return RTG_HELD_WHY_OFF;
	for (i = 0; i < main->call_info_cnt; i++) {
		const struct bpf_call_info *info = &main->call_info[i];

		/*
		 * a call of a static BPF function takes and gives back
		 * nothing, and is not described: its callee's calls name
		 * its caller's frames too
		 */
		if (info->bpf_func && !info->held)
			continue;
		why = rtg_held_desc_complete(info, clone_id);
		if (why == RTG_HELD_WHY_DIFFERS)
			why = rtg_held_differs_why(info);
		if (why == RTG_HELD_WHY_PARTLY)
			differ++;
		else if (why != RTG_HELD_WHY_DESCRIBED)
			return why;
		calls += !info->bpf_func;
	}
	if (!calls)
		return RTG_HELD_WHY_NO_CALLS;
	return differ ? RTG_HELD_WHY_PARTLY : RTG_HELD_WHY_DESCRIBED;
}

/**
 * rtg_held_prog_new() - decide how a tracked program's runs record what they hold
 * @tp: its state, being made
 *
 * Sets &rtg_prog.described or &rtg_prog.partly, and counts the
 * descriptions' memory, for debugfs stats.
 */
void rtg_held_prog_new(struct rtg_prog *tp)
{
	const struct bpf_prog_aux *main = tp->main;
	enum rtg_held_why why = rtg_held_prog_described(main);

	tp->described = why == RTG_HELD_WHY_DESCRIBED;
	tp->partly = why == RTG_HELD_WHY_PARTLY;
	mutex_lock(&rtg_held_stats_lock);
	rtg_held_progs++;
	rtg_held_whys[why]++;
	rtg_held_bytes += main->held_descs_size;
	rtg_held_bytes_max = max(rtg_held_bytes_max, main->held_descs_size);
	mutex_unlock(&rtg_held_stats_lock);
}

/**
 * rtg_held_from_table() - whether a stop at a call of a partly described
 *	program takes what the run holds from its table
 * @site: the call
 * @sections: filled with the depth of each &enum rtg_section, from the
 *	call's description, when it does
 *
 * Return: true at a call whose paths differ in what they hold: the
 * table has every resource there, and the description the sections.
 * False too where the spin lock is held (the table never records it):
 * the run fast-executes there. The watchdog's mark cannot reach such a
 * call first: its timer needs interrupts, which bpf_spin_lock() turns
 * off, and its call is hooked.
 */
bool rtg_held_from_table(const struct rtg_site *site, u8 *sections)
{
	const struct bpf_held_desc *d = site->held;

	if (!site->tprog->partly || !rtg_held_differs_refs_only(d) || rtg_held_has_lock(d))
		return false;
	memset(sections, 0, RTG_NR_SECTIONS);
	sections[RTG_SECTION_RCU] = d->rcu;
	sections[RTG_SECTION_PREEMPT] = d->preempt;
	return true;
}

/* The call of @main at (final) instruction @insn_idx, or NULL. */
static const struct bpf_call_info *rtg_held_call_at(const struct bpf_prog_aux *main,
						    u32 insn_idx)
{
	u32 i;

	for (i = 0; i < main->call_info_cnt; i++)
		if (main->call_info[i].insn_idx == insn_idx)
			return &main->call_info[i];
	return NULL;
}

/**
 * rtg_held_gives_back_recorded() - whether a call of a partly described
 *	program may give back what its table records
 * @site: the call, which takes a resource away from the program
 * @arg: the BPF register of the argument it takes
 *
 * Called at JIT time. The resource is found by the call's description in
 * @arg of the calling frame: when the call that acquired it records it
 * (&bpf_call_info.held_differs), or any of that is not known, the call
 * keeps its table operation. A lock is never recorded.
 *
 * Return: whether the call's hook must take the resource out of the table.
 */
bool rtg_held_gives_back_recorded(const struct rtg_site *site, u8 arg)
{
	const struct bpf_held_desc *d = site->held;
	const struct bpf_call_info *acq;
	u32 i;

	if (!d || d->flags)
		return true;
	for (i = 0; i < d->nr_locs; i++) {
		const struct bpf_held_loc *l = &d->loc[i];

		if (l->frame != d->frames - 1 || l->reg != arg)
			continue;
		if (l->kind == BPF_HELD_LOCK)
			return false;
		if (l->acq_idx == BPF_HELD_ACQ_UNKNOWN)
			return true;
		acq = rtg_held_call_at(site->main, l->acq_idx);
		return !acq || acq->held_differs;
	}
	return true;
}

/**
 * rtg_held_stats() - what the checking mode found so far
 * @m: the stats file
 */
void rtg_held_stats(struct seq_file *m)
{
	static const char * const names[RTG_HELD_NR_COUNTS] = {
		[RTG_HELD_OK] = "held_checked",
		[RTG_HELD_PARTIAL] = "held_partly_checked",
		[RTG_HELD_UNREADABLE] = "held_unreadable",
		[RTG_HELD_AMBIGUOUS] = "held_ambiguous",
		[RTG_HELD_NO_DESC] = "held_no_description",
		[RTG_HELD_TABLE_INCOMPLETE] = "held_table_incomplete",
		[RTG_HELD_NOT_SAMPLED] = "held_not_sampled",
		[RTG_HELD_DIFFERENT] = "held_differences",
		[RTG_HELD_DIFFERS_CHECKED] = "held_differs_checked",
	};
	int c;

	for (c = 0; c < RTG_HELD_NR_COUNTS; c++)
		seq_printf(m, "%s: %ld\n", names[c], atomic_long_read(&rtg_held_counts[c]));
	mutex_lock(&rtg_held_stats_lock);
	seq_printf(m, "held_progs: %llu\n", rtg_held_progs);
	for (c = 0; c < RTG_HELD_NR_WHYS; c++)
		seq_printf(m, "%s: %llu\n", rtg_held_why_names[c], rtg_held_whys[c]);
	seq_printf(m, "held_bytes: %llu\nheld_bytes_max: %u\n", rtg_held_bytes,
		   rtg_held_bytes_max);
	mutex_unlock(&rtg_held_stats_lock);
}

/**
 * rtg_held_desc_header() - the format of debugfs descriptions
 * @m: the file
 */
void rtg_held_desc_header(struct seq_file *m)
{
	seq_puts(m, "# prog ID NAME insn=INSN func=FUNCTION: frames=N global=0|1 rcu=0|1 preempt=N [differs] [differs_state] [too_many] refs=N\n"
		    "#   ref=N KIND acq=INSN|? [maybe_null] PLACE...   (PLACE: fF:rN or fF:fp-N or nowhere, then +ADDEND)\n");
}

/* A description after its call's name: the sections, then each resource. */
static void rtg_held_desc_body(struct seq_file *m, const struct bpf_held_desc *d)
{
	const struct bpf_held_loc *l;
	u32 i;

	seq_printf(m, ": frames=%u global=%u rcu=%u preempt=%u%s%s%s refs=%u\n",
		   d->frames, d->global, d->rcu, d->preempt,
		   d->flags & BPF_HELD_DIFFERS ? " differs" : "",
		   d->flags & BPF_HELD_DIFFERS_STATE ? " differs_state" : "",
		   d->flags & BPF_HELD_TOO_MANY ? " too_many" : "", d->nr_refs);
	for (i = 0; i < d->nr_locs; i++) {
		l = &d->loc[i];
		if (!i || l->ref != d->loc[i - 1].ref) {
			seq_printf(m, "%s  ref=%u %s acq=", i ? "\n" : "", l->ref,
				   l->kind < ARRAY_SIZE(rtg_held_kind_names) ?
				   rtg_held_kind_names[l->kind] : "?");
			if (l->acq_idx == BPF_HELD_ACQ_UNKNOWN)
				seq_putc(m, '?');
			else
				seq_printf(m, "%u", l->acq_idx);
			if (l->flags & BPF_HELD_MAYBE_NULL)
				seq_puts(m, " maybe_null");
		}
		if (l->reg == BPF_HELD_NOWHERE)
			seq_puts(m, " nowhere");
		else if (l->reg == BPF_HELD_STACK)
			seq_printf(m, " f%u:fp%d", l->frame, l->off);
		else
			seq_printf(m, " f%u:r%u", l->frame, l->reg);
		if (l->addend)
			seq_printf(m, "%+d", l->addend);
	}
	if (d->nr_locs)
		seq_putc(m, '\n');
}

static void rtg_held_desc_head(struct seq_file *m, const struct bpf_prog_aux *main,
			       u32 insn_idx)
{
	seq_printf(m, "prog %u %s insn=%u func=", main->id,
		   main->name[0] ? main->name : "-", insn_idx);
}

/**
 * rtg_held_desc_show() - one call's description, in debugfs descriptions
 * @m: the file
 * @site: a call of a tracked program
 */
void rtg_held_desc_show(struct seq_file *m, const struct rtg_site *site)
{
	if (!site->held)
		return;
	rtg_held_desc_head(m, site->main, site->insn_idx);
	seq_printf(m, "%ps", site->func);
	rtg_held_desc_body(m, site->held);
}

/**
 * rtg_held_bpf_func_descs_show() - the descriptions of the calls of global functions
 * @m: the file
 * @main: a tracked program
 *
 * Each names what the frames outside the function hold while it runs.
 */
void rtg_held_bpf_func_descs_show(struct seq_file *m, const struct bpf_prog_aux *main)
{
	const struct bpf_call_info *info;
	u32 i;

	for (i = 0; i < main->call_info_cnt; i++) {
		info = &main->call_info[i];
		if (!info->bpf_func || !info->held)
			continue;
		rtg_held_desc_head(m, main, info->insn_idx);
		seq_puts(m, info->name ?: "-");
		rtg_held_desc_body(m, info->held);
	}
}

static int rtg_param_set_check_held(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = rtg_param_parse_bool(val, kp, &on);

	if (err)
		return min(err, 0);
	mutex_lock(&rtg_check_held_lock);
	/* every tracked call takes the pre hook while checking */
	if (on && !rtg_check_held)
		rtg_slow_all(1);
	else if (!on && rtg_check_held)
		rtg_slow_all(-1);
	WRITE_ONCE(rtg_check_held, on);
	mutex_unlock(&rtg_check_held_lock);
	return 0;
}

/* at unload: the module's own count of slow calls goes with it */
void rtg_held_exit(void)
{
	mutex_lock(&rtg_check_held_lock);
	if (rtg_check_held)
		rtg_slow_all(-1);
	rtg_check_held = false;
	mutex_unlock(&rtg_check_held_lock);
}

static const struct kernel_param_ops rtg_check_held_ops = {
	.set = rtg_param_set_check_held,
	.get = param_get_bool,
};

module_param_cb(check_held, &rtg_check_held_ops, &rtg_check_held, 0644);
MODULE_PARM_DESC(check_held,
		 "Compare, before every call of a tracked program, the verifier's description of what the run holds with the run's table; differences are counted in debugfs stats and reported (default: off)");
