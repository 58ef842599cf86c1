/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: shared declarations of the module's parts.
 */
#ifndef _RTGUARD_H
#define _RTGUARD_H

#include <linux/atomic.h>
#include <linux/bpf.h>
#include <linux/bpf_call_hook.h>
#include <linux/bpf_verifier.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/trace_seq.h>
#include <linux/types.h>
#include <linux/math64.h>
#include <asm/tsc.h>

struct dentry;
struct kernel_param;
struct rtg_image;

/* rtg_site::flags */
#define RTG_SITE_RET_PTR	BIT(0)	/* the result is a pointer */
#define RTG_SITE_RET_SIGNED	BIT(1)	/* the result is a signed integer */
#define RTG_SITE_TRACE		BIT(2)	/* record the call (debug mode) */
#define RTG_SITE_MAY_FAIL	BIT(3)	/* the verifier saw the result as possibly NULL */
#define RTG_SITE_ITER		BIT(4)	/* creates an iterator */
#define RTG_SITE_KFUNC		BIT(5)	/* a kfunc; else a helper (or unknown) */
#define RTG_SITE_SKIP		BIT(6)	/* fast-execute skips the call, R0 = NULL */
#define RTG_SITE_BPF_FUNC	BIT(7)	/* a call of one of the program's BPF functions */

/* What a call site does to the run's table of held resources. */
enum rtg_role {
	RTG_ROLE_NONE,
	RTG_ROLE_ACQUIRE,		/* holds the result, if not NULL */
	RTG_ROLE_RELEASE,		/* gives back argument 1 */
	RTG_ROLE_RELEASE_ACQUIRE,	/* gives back argument 1, holds the result */
	RTG_ROLE_HOLD_ARG,		/* holds argument 1 (iterator, spin lock) */
	RTG_ROLE_HOLD_TOKEN,		/* opens a section (RCU, preemption) */
	RTG_ROLE_RELEASE_TOKEN,		/* ends the section */
	RTG_ROLE_KPTR_XCHG,		/* argument 2 goes to a map, the result comes out */
	RTG_ROLE_MOVE_OUT,		/* an argument moves into a bpf_list or rbtree */
	RTG_ROLE_MOVE_IN,		/* the result comes out of a bpf_list or rbtree */
	RTG_ROLE_ITER_NEXT,		/* nothing held; NULL once the run fast-executes */
	RTG_ROLE_GUARD,			/* nothing held; a place to stop the run */
	RTG_ROLE_DYNPTR_CLONE,		/* argument 2 becomes a clone of argument 1 */
	RTG_ROLE_RELEASE_DYNPTR,	/* gives back argument 1, a dynptr, and its clones */
};

/**
 * struct rtg_fn_facts - what a helper or kfunc does to what a run holds
 * @name: the kfunc's name; for a helper, its name in the UAPI
 * @helper: the helper's &enum bpf_func_id, 0 for a kfunc
 * @role: &enum rtg_role
 * @section: for the section roles, &enum rtg_section
 * @arg: the argument the role concerns (held, given back, moved), 1 to 5
 * @verifier_acquires: the role applies only where the verifier acquired a
 *	reference for the result (bpf_map_lookup_elem() on a sockmap)
 * @what: what a successful call leaves the program holding
 * @release: the call that gives it back in the program's own code
 * @stop_release: the call the watchdog makes on a stopped run's behalf,
 *	with the object as first argument and 0 for the others; NULL when
 *	there is none it can make (bpf_obj_drop() needs the type's meta)
 * @release_args: the arguments @release takes
 * @stop_helper: the helper (&enum bpf_func_id) that @stop_release names,
 *	reached through an entry the JIT places for the acquiring call
 *	itself, so that the watchdog can call it even when the program
 *	does not (it only submits the records it reserves)
 *
 * Explicit facts are declared once, in rtguard_pairing.c; those of other
 * kfuncs follow from their KF_* flags and BTF types.
 */
struct rtg_fn_facts {
	const char *name;
	u32 helper;
	u8 role;
	u8 section;
	u8 arg;
	bool verifier_acquires;
	const char *what;
	const char *release;
	const char *stop_release;
	const char *release_args;
	u32 stop_helper;
};

/* rtg_run::stop: why the watchdog stops the run */
enum rtg_stop_reason {
	RTG_STOP_NONE,
	RTG_STOP_RUNTIME,	/* ran longer than watchdog_ms */
	RTG_STOP_HOLD,		/* held something longer than hold_limit_us */
};

/* the parameter whose limit a stop reason is */
static inline const char *rtg_stop_reason_name(u64 reason)
{
	switch (reason) {
	case RTG_STOP_RUNTIME:
		return "watchdog_ms";
	case RTG_STOP_HOLD:
		return "hold_limit_us";
	default:
		return "none";
	}
}

/* rtg_run::how: how a stopped run ended */
enum rtg_stop_how {
	RTG_HOW_NONE,
	RTG_HOW_UNWOUND,	/* released by the watchdog, program left */
	RTG_HOW_FAST,		/* fast-executed: the program released what it held */
	RTG_HOW_REPORTED,	/* not stoppable: reported, left to run */
	RTG_HOW_LOOP,		/* its main function's may_goto loops were ended */
};

/* Sections a run can be in, counted rather than held */
enum rtg_section {
	RTG_SECTION_RCU,
	RTG_SECTION_PREEMPT,
	RTG_NR_SECTIONS,
};

#define RTG_MAX_RELEASE_FNS	16
#define RTG_MAX_ACQ_SITES	32
#define RTG_FN_NAME_LEN		48

struct rtg_prog;
struct rtg_release_slot;

/**
 * struct rtg_site - one hooked helper or kfunc call of a program image
 * @func: the function the program calls
 * @count: per-CPU number of calls made through this site, or NULL when the
 *	site does not count (only pass-through sites do)
 * @image: the image the call belongs to
 * @main: aux data of the program the image belongs to
 * @insn_idx: index of the call instruction in the whole program
 * @nr_args: number of arguments the function takes
 * @arg_is_ptr: bit n set when argument n is a pointer
 * @arg_is_signed: bit n set when argument n is a signed integer
 * @arg_is_32bit: bit n set when argument n is an integer of 32 bits or less
 * @ret_size: size of the result in bytes, 0 for void
 * @flags: RTG_SITE_*
 * @role: what the call does to the run's held resources
 * @section: for the section roles, the &enum rtg_section
 * @line_max: for traced sites, the most bytes a call's line of text
 *	takes (rtg_trace_print())
 * @trace_id: for traced sites, the site's number in rtg_call records and
 *	in debugfs bpf_rtguard/sites (never 0)
 * @func_id: the helper's &enum bpf_func_id, or the kfunc's or BPF
 *	function's BTF id; 0 when not known
 * @tprog: tracking state of the program, for tracked images
 * @thunk: for releasing sites, an entry in the image that starts with
 *	ENDBR and jumps to @func (filled in by the JIT)
 * @obj_off: for the graph roles, the node's offset inside the object
 * @held: what the verifier says the run holds before the call, or NULL
 * @verified_idx: the call's index as verified (&bpf_call_info.insn_idx,
 *	which &bpf_held_loc.acq_idx names), before any blinding
 * @names: for traced sites, what the call is called (rtguard_trace_names.c)
 * @stop_slot: for acquiring sites, the function a stop gives the resource
 *	back with (&rtg_fn_facts.stop_release), NULL when there is none
 * @feeds: what the call acquires may be held at a call whose paths hold
 *	different sets (&bpf_call_info.held_differs): a partly described
 *	program's table records it
 */
struct rtg_site {
	void *func;
	u64 __percpu *count;
	struct rtg_image *image;
	struct bpf_prog_aux *main;
	u32 insn_idx;
	u8 nr_args;
	u8 arg_is_ptr;
	u8 arg_is_signed;
	u8 arg_is_32bit;
	u8 ret_size;
	u8 flags;
	u8 role;
	u8 section;
	u16 line_max;
	u32 trace_id;
	u32 func_id;
	struct rtg_prog *tprog;
	void *thunk;
	s32 obj_off;
	const struct bpf_held_desc *held;
	u32 verified_idx;
	const struct rtg_call_names *names;
	const struct rtg_release_slot *stop_slot;
	bool feeds;
};

/**
 * struct rtg_release_slot - a function a stop calls on a run's behalf
 * @name: the function's name
 * @site: a call site of the program whose thunk reaches the function,
 *	NULL until one is JIT compiled (rtg_prog_add_release_fn())
 */
struct rtg_release_slot {
	char name[RTG_FN_NAME_LEN];
	const struct rtg_site *site;
};

/**
 * struct rtg_held - one resource a run holds
 * @obj: the object, iterator or lock
 * @site: the call site that acquired it
 * @seen: the run's &rtg_run.charged_us when the watchdog timer first saw
 *	it held, plus 1; 0 before that. The hooks take no clock, so a hold
 *	counts from the first tick that sees it, in the time charged to the
 *	run
 * @clone_of: for a dynptr clone (@site a bpf_dynptr_clone() call), the
 *	dynptr its group was reserved in, which a stop gives back
 *
 * A dynptr and its clones stand for one ring buffer record, which the
 * program gives back through any of them: the clones are entries of
 * their own, so that a release through one is matched, but hold nothing
 * (rtg_held_is_clone()).
 */
struct rtg_held {
	u64 obj;
	const struct rtg_site *site;
	union {
		u64 seen;
		u64 clone_of;
	};
};

/* Whether @site calls bpf_spin_lock(), whose table entry is the lock. */
static inline bool rtg_site_is_spin_lock(const struct rtg_site *site)
{
	return !(site->flags & RTG_SITE_KFUNC) && site->func_id == BPF_FUNC_spin_lock;
}

static inline bool rtg_held_is_clone(const struct rtg_held *h)
{
	return h->site->role == RTG_ROLE_DYNPTR_CLONE;
}

/**
 * enum rtg_sample_flags - a sampled run's samples (&rtg_run.sample)
 * @RTG_SAMPLE_ASKED: the watchdog timer asked for a sample: the run's
 *	next hooked call refreshes its table from the call's description
 *	(rtg_run_sample()); counted in rtg_slow
 * @RTG_SAMPLE_WATCH: the table holds what a hold limit judges: each of
 *	the run's acquiring calls restarts the holds its table has from
 *	that call (rtg_run_acquiring()), for a sample cannot tell a
 *	resource from the same one taken again there; counted in
 *	rtg_slow_acquire alone
 */
enum rtg_sample_flags {
	RTG_SAMPLE_ASKED = BIT(0),
	RTG_SAMPLE_WATCH = BIT(1),
};

/*
 * Entries of a bare described run's table, which only samples fill
 * (rtg_run_sample()): the resources a hold limit judges first in order of
 * acquisition, whose oldest hold is the run's longest. A hold of a later
 * one counts only from the first sample that kept it.
 */
#define RTG_SAMPLE_SLOTS	4

/**
 * struct rtg_run - one run of a tracked program
 * @count: entries used in @held, the top; entries below it whose @obj is
 *	0 were given back
 * @stop: &enum rtg_stop_reason, set by the watchdog timer of this CPU
 * @incomplete: something the run acquired was not recorded: a stop never
 *	releases from its table (it unwinds by the call's description, or
 *	fast-executes)
 * @sample: &enum rtg_sample_flags, for a run of a described or partly
 *	described program (rtg_prog_sampled()) while hold_limit_us is set
 * @unmatched: releases that matched nothing held (at most U8_MAX); a
 *	lazy program's (rtg_prog_lazy(), which is described) never count
 * @nslots: entries in @held
 * @how: &enum rtg_stop_how once the stop took effect
 * @sections: depth of each &enum rtg_section
 * @clock: 0 until the watchdog timer first charged the run, which turns
 *	@start into local_clock() ns; then bit 7 and the low 7 bits of its
 *	task's voluntary context switches at the run's last charge
 *	(rtg_run_charge(); a multiple of 128 sleeps between two charges goes
 *	unseen, and that time uncharged)
 * @prev: the run this one interrupted or was called from, on this task
 * @image: the module's state for the program's main image
 * @start: rtg_clock() at entry; once @clock is set, the same instant in
 *	local_clock() ns
 * @fast_releases: what a stopped run gave back, by the watchdog or by
 *	the program itself while fast-executing; set when the stop takes
 *	effect (the JIT does not clear it at entry), 0 from the mark on
 * @watched_us: until the run is marked, its CPU's watched time
 *	(&struct rtg_tick) after the run's last charge
 * @charged_us: the time the watchdog timer charged the run, which is what
 *	watchdog_ms and hold_limit_us judge (rtg_run_charge()); valid once
 *	@clock is set
 * @held: what the run holds, in order of acquisition
 *
 * The module's view of &struct bpf_call_hook_run, which the JIT keeps in
 * the run's own stack frame, in bpf_prog_aux.call_hook_run_size bytes
 * right below the program's stack: @stop, @incomplete, @sample and
 * @unmatched are its exit flags (the run's exit calls rtg_run_exit()
 * while one of them or @count is set), @how to @clock its state,
 * @fast_releases (or @watched_us) and @charged_us its scratch word. The
 * JIT fills in everything below @fast_releases at the run's entry, and
 * pushes acquisitions to and pops releases from @held in line.
 * current->bpf_hook_run points to the innermost run of the task. A lazy
 * run (rtg_prog_lazy()) of a program that may sleep keeps only its
 * area's first 8 bytes in its frame: the low half of its TSC at entry in
 * @count and exit flags that stay 0 until it is adopted; one of a program
 * that cannot keeps nothing there (rtguard_lazy.c). Adoption gives it a
 * struct rtg_run of the module's own and makes that its task's current
 * run. Only the
 * run itself and the watchdog timer of the CPU it runs on write to it.
 */
struct rtg_run {
	u32 count;
	u8 stop;
	u8 incomplete;
	u8 sample;
	u8 unmatched;
	u32 nslots;
	u8 how;
	u8 sections[RTG_NR_SECTIONS];
	u8 clock;
	struct rtg_run *prev;
	struct rtg_image *image;
	u64 start;
	union {
		u32 fast_releases;
		u32 watched_us;
	};
	u32 charged_us;
	struct rtg_held held[];
};

/**
 * struct rtg_prog - tracking state of one program, shared by its images
 * @node: entry in rtg_progs
 * @main: aux data of the main program
 * @main_image: the main program's image, which its runs point to (only
 *	compared, never followed: it may be gone)
 * @images: images using this state
 * @nslots: entries in each run's table (from the run area size)
 * @stoppable: the watchdog stops its runs; otherwise it only reports
 *	the runs it would have stopped (rtguard_stop_policy.c)
 * @stop_ret: what a stopped run returns
 * @no_unwind: the watchdog only fast-executes the program's runs: it
 *	takes references the tables do not track (a helper that acquires on
 *	some paths only), calls a function the verifier did not describe, or
 *	has its own exception callback
 * @described: the verifier describes what the program holds at each of
 *	its calls, completely (rtg_held_prog_described()): its runs keep no
 *	table as they go; a stop gives back what the description of the
 *	call it happens at names, and the table holds what samples of those
 *	descriptions saw, for hold_limit_us
 * @partly: the verifier describes what the program holds at each of its
 *	calls but those whose paths hold different references
 *	(rtg_held_prog_described()): a stop at one of those gives back what
 *	the table holds, which records only what the acquiring calls that
 *	reach them return (&rtg_site.feeds), and at every other call what
 *	its description names; the table also holds what samples saw
 * @bare_calls: a described or partly described program loaded while the
 *	rtg_acquire and rtg_release events were off: its calls that its
 *	table does not need have no post hook, and those that only give
 *	back (a release, a section's end, a push into a collection) no hook
 *	at all; nothing records what they take or give back, and neither
 *	event reports them (rtg_track_select())
 * @trace_only: a program in debug mode that is not tracked (track=0, or
 *	its loader lacks CAP_BPF): its runs are bracketed only to be
 *	recorded, hold nothing the module follows and are never stopped
 * @trace_runs: its runs are recorded as they return (debug mode) while
 *	the CPU's rtg_trace_runs_on is set
 * @sleepable: a sleepable program, whose runs may sleep in their calls
 *	(rtg_run_charge())
 * @incomplete: runs that could not record everything
 * @unmatched: releases that matched nothing held
 * @leftover: resources still in the table when a run returned (a release
 *	the hooks cannot see, e.g. ownership moved into a bpf_list)
 * @stray: hooked calls that found no run of this program (never expected)
 * @stops: runs the watchdog stopped
 * @reported: runs it would have stopped, but the program is not stoppable
 * @stop_released: resources given back by stopped runs
 * @nr_release_fns: entries used in @release_fns
 * @release_fns: the functions a stop calls on a run's behalf, which the
 *	acquiring sites point to (rtguard_run.c)
 * @section_end: for each &enum rtg_section, the function that leaves it
 * @nr_acq_sites: entries used in @acq_sites
 * @acq_sites: the program's calls that acquire what the watchdog can give
 *	back, by their verified index, for reading descriptions
 *	(rtguard_held.c)
 * @lock_site: a bpf_spin_lock() call of the program, whose slot gives
 *	back the lock a description names
 */
struct rtg_prog {
	struct list_head node;
	struct bpf_prog_aux *main;
	const struct rtg_image *main_image;
	refcount_t images;
	u32 nslots;
	bool stoppable;
	u64 stop_ret;
	bool no_unwind;
	bool described;
	bool partly;
	bool bare_calls;
	bool trace_only;
	bool trace_runs;
	bool sleepable;
	atomic_long_t incomplete;
	atomic_long_t unmatched;
	atomic_long_t leftover;
	atomic_long_t stray;
	atomic_long_t stops;
	atomic_long_t reported;
	atomic_long_t stop_released;
	u32 nr_release_fns;
	struct rtg_release_slot release_fns[RTG_MAX_RELEASE_FNS];
	const struct rtg_release_slot *section_end[RTG_NR_SECTIONS];
	u32 nr_acq_sites;
	const struct rtg_site *acq_sites[RTG_MAX_ACQ_SITES];
	const struct rtg_site *lock_site;
};

/*
 * Whether @tp's table is not the whole truth: a described or partly
 * described program's holds what samples of its descriptions saw.
 */
static inline bool rtg_prog_sampled(const struct rtg_prog *tp)
{
	return tp->described || tp->partly;
}

/*
 * Whether the runs of @tp are lazy: the JIT counts and times them but
 * does not make them current; a run is adopted (rtg_lazy_adopt()) when
 * the watchdog or its slow path first needs it.
 */
static inline bool rtg_prog_lazy(const struct rtg_prog *tp)
{
	return tp->main->call_hook_flags & BPF_CALL_HOOK_RUN_LAZY;
}

/**
 * struct rtg_image - the module's state for one hooked program image
 * @node: entry in the list of hooked images
 * @rcu: frees an image with traced sites, which readers of the trace
 *	buffer may be printing
 * @retired: when its program was freed (jiffies), for a retired image
 *	(on rtg_retired instead of rtg_images: only its sites remain)
 * @tprog: the program's tracking state, NULL when not tracked
 * @aux: aux data of the image (a whole program, or one subprogram of it);
 *	it outlives the image and any clone the JIT made of it
 * @mode: the hooks chosen for the image's calls, &enum rtg_image_mode
 * @run_id: for the main image of a program whose runs are recorded, the
 *	number rtg_call records of its runs carry (rtg_trace_name_run()),
 *	else 0
 * @prog_name: the program's name, for readers of the trace
 * @func_idx: the image's BPF function (&bpf_prog_aux.func_idx), for
 *	readers of the trace: a retired image's @aux is gone
 * @nr_sites: number of entries used in @sites
 * @max_sites: number of entries allocated in @sites
 * @counts: per-CPU call counters, one per site, for pass-through images
 * @not_once: for the main image of a bare described program that does
 *	not sleep, the instructions on a cycle of its control flow, or that
 *	a run may reach after it called another BPF function of its program
 *	or took one's address (rtg_cfg_on_cycle(), rtg_cfg_mark_far(); one
 *	bit an instruction, read while its sites are chosen): its runs make
 *	its other calls at most once, and soon after they begin; NULL for
 *	any other image, or when not known
 * @sites: the hooked call sites, in instruction order
 */
struct rtg_image {
	struct list_head node;
	struct rcu_head rcu;
	unsigned long retired;
	struct rtg_prog *tprog;
	struct bpf_prog_aux *aux;
	int mode;
	u32 run_id;
	char prog_name[BPF_OBJ_NAME_LEN];
	u32 func_idx;
	u32 nr_sites;
	u32 max_sites;
	u64 __percpu *counts;
	unsigned long *not_once;
	struct rtg_site sites[] __counted_by(max_sites);
};

enum rtg_image_mode {
	RTG_IMAGE_NONE,
	RTG_IMAGE_PASSTHROUGH,	/* count calls */
	RTG_IMAGE_TRACE,	/* record calls (debug mode) */
};

/**
 * rtg_main_aux() - aux data of the program an image belongs to
 * @image: a hooked image
 *
 * Return: the main program's aux data (id, name, verifier results).
 */
static inline struct bpf_prog_aux *rtg_main_aux(const struct rtg_image *image)
{
	return image->aux->main_prog_aux ?: image->aux;
}

/**
 * rtg_clock() - the clock of runs: the TSC of the CPU the caller is on
 *
 * One instruction. A run does not move between CPUs (BPF programs run
 * with migration disabled), and the watchdog timer that judges it runs
 * on its CPU, so its start and the timer's now come from one counter.
 *
 * Return: TSC cycles.
 */
static __always_inline u64 rtg_clock(void)
{
	return rdtsc();
}

/**
 * rtg_clock_ns() - rtg_clock() cycles in ns
 * @cycles: a difference of rtg_clock() values
 *
 * Return: nanoseconds.
 */
static inline u64 rtg_clock_ns(u64 cycles)
{
	return mul_u64_u32_div(cycles, USEC_PER_SEC, tsc_khz);
}

/**
 * rtg_run_age_ns() - how long a run has run, as of local_clock() @now
 * @run: a run, read on its own CPU or copied from it
 * @now: local_clock()
 *
 * Before the watchdog timer first saw the run, its start is the TSC at
 * entry; from then on, local_clock() ns, which the kernel keeps right
 * when it marks the TSC unstable.
 *
 * Return: nanoseconds.
 */
static inline u64 rtg_run_age_ns(const struct rtg_run *run, u64 now)
{
	if (!READ_ONCE(run->clock))
		return rtg_clock_ns(rtg_clock() - run->start);
	return now > run->start ? now - run->start : 0;
}

enum rtg_debug_mode {
	RTG_DEBUG_OFF,
	RTG_DEBUG_FLAG,		/* programs loaded with BPF_F_DEBUG_MODE or traced */
	RTG_DEBUG_ALL,		/* every program loaded while set */
};

/*
 * Owner bit of bpf_prog_aux.call_hook_flags (BPF_CALL_HOOK_OWNER_MASK;
 * rtguard_stop_policy.c has the others): a program in debug mode whose
 * runs are bracketed only to be recorded (&rtg_prog.trace_only)
 */
#define RTG_TRACE_ONLY	BIT(17)

/**
 * rtg_site_of() - the site a hook is called for
 * @arg: &bpf_call_hook_site.arg, which the module sets to its site (but
 *	for the pass-through hook's)
 *
 * Return: the site.
 */
static inline const struct rtg_site *rtg_site_of(u64 arg)
{
	return (const struct rtg_site *)(unsigned long)arg;
}

/**
 * rtg_task_run() - the innermost run of a task
 * @task: the task; current, or one whose runs are read with care
 *
 * Return: the module's view of &task_struct.bpf_hook_run, or NULL.
 */
static inline struct rtg_run *rtg_task_run(struct task_struct *task)
{
	return (struct rtg_run *)READ_ONCE(task->bpf_hook_run);
}

/* rtguard_entry.S: a bpf_call_hook_pre_t that saves R1-R5 around rtg_pre() */
long rtg_pre_track_entry(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, u64 arg);

/* rtguard_image.c */
u64 rtg_site_count(const struct rtg_site *site);
bool rtg_site_is_live(const struct rtg_site *site);
void rtg_image_exit(void);

/* rtguard_passthrough.S */
void rtg_passthrough_note(u64 arg);

/* rtguard_trace.c */
/*
 * calls a record of the rtg_call event carries at most: 3,456 bytes, in
 * one ring buffer page with room to spare; fewer when their text would
 * not fit in what trace_pipe prints an event into (rtg_trace_print())
 */
#define RTG_TRACE_BATCH		48
/*
 * records a CPU keeps before it writes them, as events of up to
 * RTG_TRACE_BATCH (three such events, or four of the 36 a text of lines
 * of 206 bytes holds)
 */
#define RTG_TRACE_CAP		144
/* a line of an event's text, one call's, is shorter */
#define RTG_TRACE_LINE_MAX	640
/*
 * and a run's or a stop's release's (rtg_print_call(): two names of
 * BPF_OBJ_NAME_LEN and RTG_CALL_NAME_LEN at most, three numbers, the end)
 */
#define RTG_TRACE_RECORD_LINE_MAX	256
/* an event's text, at most: its header line takes the rest of the page */
#define RTG_TRACE_TEXT_MAX	(TRACE_SEQ_BUFFER_SIZE - 256)

#include "rtguard_rec.h"
static_assert(sizeof(struct rtg_call_rec) == RTG_CALL_REC_SIZE);
static_assert(RTG_REC_ARGS == MAX_BPF_FUNC_REG_ARGS);
/* the ring buffer takes events of up to a page less its headers */
static_assert(RTG_TRACE_BATCH * RTG_CALL_REC_SIZE <= PAGE_SIZE - 512);
/* the JIT writes calls' records in line, as struct bpf_call_hook_rec */
static_assert(sizeof(struct rtg_call_rec) == sizeof(struct bpf_call_hook_rec));
static_assert(offsetof(struct rtg_call_rec, ret) == offsetof(struct bpf_call_hook_rec, ret));
static_assert(offsetof(struct rtg_call_rec, end) == offsetof(struct bpf_call_hook_rec, end));
static_assert(offsetof(struct rtg_call_rec, cycles) ==
	      offsetof(struct bpf_call_hook_rec, cycles));
static_assert(offsetof(struct rtg_call_rec, pid) == offsetof(struct bpf_call_hook_rec, pid));
static_assert(offsetof(struct rtg_call_rec, site) == offsetof(struct bpf_call_hook_rec, tag));
/* the tag a traced site gives the JIT: site | kind << 32 | text << 48 */
static_assert(offsetof(struct rtg_call_rec, kind) == offsetof(struct rtg_call_rec, site) + 4);
static_assert(offsetof(struct rtg_call_rec, text) == offsetof(struct rtg_call_rec, site) + 6);

/*
 * Copy @nr records by assignment, which the compiler does in 8-byte
 * moves: make bench measured 7 instructions a call fewer than a memcpy()
 * of a length known only at run time
 */
static inline void rtg_trace_copy(void *dst, const struct rtg_call_rec *src, u32 nr)
{
	struct rtg_call_rec *d = dst;
	u32 i;

	for (i = 0; i < nr; i++)
		d[i] = src[i];
}

/**
 * struct rtg_helper_proto - a helper as the kernel's UAPI header documents it
 * @name: "bpf_map_lookup_elem"
 * @ret: its result type, "void *"
 * @params: its parameters, "struct bpf_map *map, const void *key"
 */
struct rtg_helper_proto {
	const char *name;
	const char *ret;
	const char *params;
};

#define RTG_CALL_NAME_LEN	64
#define RTG_ARG_NAME_LEN	32

/**
 * struct rtg_call_names - what a traced call is called in its program
 * @prog: the program's name, "-" when it has none
 * @func: the helper or kfunc, as the program calls it
 * @arg: the names of its arguments, "" when unknown
 * @map: for a map helper called with one map, the map's name; else ""
 * @map_type: and its type, "hash"
 * @proto: a helper's documented prototype, NULL for others
 */
struct rtg_call_names {
	char prog[BPF_OBJ_NAME_LEN];
	char func[RTG_CALL_NAME_LEN];
	char arg[MAX_BPF_FUNC_REG_ARGS][RTG_ARG_NAME_LEN];
	char map[BPF_OBJ_NAME_LEN];
	char map_type[RTG_ARG_NAME_LEN];
	const struct rtg_helper_proto *proto;
};

/* rtguard_trace_tasks.c */
bool rtg_debug_traced(const struct bpf_prog_aux *main);
bool rtg_prog_debug(const struct bpf_prog *prog);
void rtg_trace_tasks_init(struct dentry *dir);

/* rtguard_trace_names.c */
const struct rtg_helper_proto *rtg_helper_proto_of(u32 id);
void rtg_trace_name_site(struct rtg_site *site, const struct bpf_call_info *info);
void rtg_trace_name_run(struct rtg_image *image);
bool rtg_trace_traced(const struct rtg_image *image);
void rtg_trace_forget(struct rtg_image *image);
void rtg_trace_names_free(struct rtg_image *image);
void rtg_trace_names_exit(void);
struct trace_seq;
const char *rtg_trace_print(struct trace_seq *p, const void *recs, u32 nr);

DECLARE_PER_CPU(u32, rtg_trace_runs_on);
extern const struct file_operations rtg_trace_runs_fops;
int rtg_trace_init(void);
void rtg_trace_exit(void);
void rtg_trace_flush_all(void);
void rtg_trace_call(const struct bpf_call_hook_args *args, const struct rtg_site *site,
		    u64 ret);
u64 rtg_trace_post(u64 r0, u64 saved, const struct bpf_call_hook_args *args,
		   u64 arg);
extern struct bpf_call_hook_recs __percpu *rtg_trace_recs;
void rtg_trace_rec_flush(void);
void rtg_trace_run(const struct rtg_run *run, u64 ret);
void rtg_trace_stop_release(const struct rtg_site *acq, u64 obj);
int rtg_trace_reg(void);
void rtg_trace_unreg(void);
int rtg_hold_trace_reg(void);
void rtg_hold_trace_unreg(void);

/**
 * rtg_run_prog() - the tracking state of a run's program
 * @run: a run in flight
 *
 * Return: the state its images share.
 */
static inline struct rtg_prog *rtg_run_prog(const struct rtg_run *run)
{
	return run->image->tprog;
}

/* rtguard_held.c */

/**
 * struct rtg_callee_regs - the calling frame's registers, as the pre hook
 *	found them
 * @callee: its callee-saved registers: BPF R6 to R9, and r12, which an
 *	unwind gives back to the program's caller
 * @fp: BPF R10, the frame pointer
 */
struct rtg_callee_regs {
	struct bpf_call_hook_regs callee;
	u64 fp;
};

/* What reading a description found, counted in debugfs stats */
enum rtg_held_count {
	RTG_HELD_OK,		/* every resource read, and matched */
	RTG_HELD_PARTIAL,	/* the resources read matched */
	RTG_HELD_UNREADABLE,	/* a place cannot be read from the hook */
	RTG_HELD_AMBIGUOUS,	/* a resource's places disagree */
	RTG_HELD_NO_DESC,	/* the verifier gave no usable description */
	RTG_HELD_TABLE_INCOMPLETE, /* the run's table missed something */
	RTG_HELD_NOT_SAMPLED,	/* a walk of the frames not taken this time */
	RTG_HELD_DIFFERENT,	/* the description and the table differ */
	RTG_HELD_DIFFERS_CHECKED, /* paths differ: the table had only what it records */
	RTG_HELD_NR_COUNTS,
};

/**
 * struct rtg_held_res - one resource a run holds, as a description says
 * @obj: what its release takes: the object, or the dynptr's or the
 *	iterator's slot, or the lock
 * @release: the function that gives it back
 * @acq: the call that acquired it (for the lock, a bpf_spin_lock() call)
 */
struct rtg_held_res {
	u64 obj;
	const struct rtg_release_slot *release;
	const struct rtg_site *acq;
};

/* resources a stop gives back by a description at most */
#define RTG_DESCRIBED_MAX	32

int rtg_held_resolve(const struct rtg_site *site, const u64 *args,
		     const struct rtg_callee_regs *regs, struct rtg_held_res *res,
		     int max, u8 *sections);
void rtg_held_check(struct rtg_run *run, const struct rtg_site *site,
		    const u64 *args, const struct rtg_callee_regs *regs);
void rtg_held_prog_new(struct rtg_prog *tp);
bool rtg_held_from_table(const struct rtg_site *site, u8 *sections);
bool rtg_held_gives_back_recorded(const struct rtg_site *site, u8 arg);
void rtg_held_add_acq_site(struct rtg_prog *tp, const struct rtg_site *site);
void rtg_held_stats(struct seq_file *m);
void rtg_held_desc_header(struct seq_file *m);
void rtg_held_desc_show(struct seq_file *m, const struct rtg_site *site);
void rtg_held_bpf_func_descs_show(struct seq_file *m, const struct bpf_prog_aux *main);
void rtg_held_exit(void);

/* rtguard_watchdog.c */
/**
 * struct rtg_watchdog_stats - what the watchdog did, summed over the CPUs
 * @ticks: timer expiries that judged runs
 * @tick_ns: the time they took
 * @wakeups: timer expiries, all of them
 * @idle_wakeups: expiries that found no run in flight on their CPU
 */
struct rtg_watchdog_stats {
	u64 ticks, tick_ns, wakeups, idle_wakeups;
};

void rtg_watchdog_stats(struct rtg_watchdog_stats *st);
void rtg_watchdog_limits_changed(void);
void rtg_watchdog_arm(void);
int rtg_watchdog_init(void);
void rtg_watchdog_exit(void);

/* rtguard_track.c: the hooks, and the choice between them */
long rtg_pre(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, const struct rtg_site *site,
	     u64 r6, u64 r7, u64 r8, u64 r9, u64 fp, u64 r12);
u32 rtg_track_prog_verified(struct bpf_prog *prog, bool capable,
			    const struct bpf_retval_range *retval);
bool rtg_track_select(struct rtg_site *site, const struct bpf_call_info *info,
		      struct bpf_call_hook_site *hook, bool once);

/* rtguard_stop_policy.c */
u32 rtg_stop_policy_verified(struct bpf_prog *prog,
			     const struct bpf_retval_range *retval);
bool rtg_stop_policy_decode(const struct bpf_prog_aux *main, u64 *ret);
bool rtg_stop_policy_stoppable(const struct rtg_prog *tp);
void rtg_stop_policy_show(struct seq_file *m);

/* rtguard_pairing.c */
bool rtg_fn_facts_of(const struct bpf_call_info *info, const char *name,
		     struct rtg_fn_facts *facts, char *stop_release, size_t len);
u32 rtg_pairing_vmlinux_kfunc(const char *name);
int rtg_pairing_init(struct dentry *dir);
void rtg_pairing_exit(void);
int rtg_pairing_rebuild(void);

/* rtguard_debugfs.c */
int rtg_debugfs_init(void);
void rtg_debugfs_exit(void);

#endif /* _RTGUARD_H */
