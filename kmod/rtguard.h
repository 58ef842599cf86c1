/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: shared declarations of the module's parts.
 */
#ifndef _RTGUARD_H
#define _RTGUARD_H

#include <linux/bpf.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

struct dentry;
struct rtg_image;

/* rtg_site::flags */
#define RTG_SITE_RET_PTR	BIT(0)	/* the result is a pointer */
#define RTG_SITE_RET_SIGNED	BIT(1)	/* the result is a signed integer */
#define RTG_SITE_TRACE		BIT(2)	/* also record the call (debug mode) */
#define RTG_SITE_MAY_FAIL	BIT(3)	/* an acquisition the program expects may fail */
#define RTG_SITE_ITER		BIT(4)	/* creates an iterator */

/* What a call site does to the run's table of held resources. */
enum rtg_role {
	RTG_ROLE_NONE,
	RTG_ROLE_ACQUIRE,		/* holds the result, if not NULL */
	RTG_ROLE_RELEASE,		/* gives back argument 1 */
	RTG_ROLE_RELEASE_ACQUIRE,	/* gives back argument 1, holds the result */
	RTG_ROLE_HOLD_ARG,		/* holds argument 1 (iterator, spin lock) */
	RTG_ROLE_HOLD_TOKEN,		/* holds a section (RCU, preemption) */
	RTG_ROLE_RELEASE_TOKEN,		/* ends the section */
	RTG_ROLE_KPTR_XCHG,		/* argument 2 goes to a map, the result comes out */
	RTG_ROLE_ITER_NEXT,		/* nothing held; NULL once the run is stopped */
	RTG_ROLE_GUARD,			/* nothing held; a place to stop the run */
};

/* rtg_run::stop: why the watchdog stops the run */
enum rtg_stop_reason {
	RTG_STOP_NONE,
	RTG_STOP_RUNTIME,	/* ran longer than watchdog_ms */
	RTG_STOP_HOLD,		/* held something longer than hold_limit_us */
};

#define RTG_MAX_RELEASE_FNS	16

/* rtg_held::obj of sections, which have no object */
#define RTG_TOKEN_RCU		1
#define RTG_TOKEN_PREEMPT	2

struct rtg_prog;

/**
 * struct rtg_site - one hooked helper or kfunc call of a program image
 * @func: the function the program calls
 * @count: per-CPU number of calls made through this site, or NULL when the
 *	site's hook does not count (only the pass-through hook does)
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
 * @token: for the section roles, RTG_TOKEN_*
 * @tprog: tracking state of the program, for tracked images
 * @release: for acquiring sites, the call that gives the resource back
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
	u8 token;
	struct rtg_prog *tprog;
	char release[48];
};

/**
 * struct rtg_held - one resource a run holds
 * @obj: the object, iterator or lock, or an RTG_TOKEN_* for a section
 * @site: the call site that acquired it
 * @since_ns: when (ktime_get_mono_fast_ns(): comparable across CPUs,
 *	which a sleepable run moves between and the watchdog reads from)
 */
struct rtg_held {
	u64 obj;
	const struct rtg_site *site;
	u64 since_ns;
};

/**
 * struct rtg_run - the table of one in-flight run
 * @start_ns: when the run first acquired something
 * @count: entries used in @held
 * @stop: RTG_STOP_* set by the watchdog, 0 while the run may go on
 * @fast: the run is stopping by fast-execute
 * @fast_pops: releases the program made itself since it fast-executes
 * @held: what the run holds, in order of acquisition
 */
struct rtg_run {
	u64 start_ns;
	u32 count;
	u32 stop;
	bool fast;
	u32 fast_pops;
	struct rtg_held held[];
};

/**
 * struct rtg_prog - tracking state of one program, shared by its images
 * @node: entry in rtg_progs
 * @main: aux data of the main program
 * @images: images using this state
 * @nslots: entries in each run's table
 * @nruns: run tables in the pool
 * @run_size: bytes per run table
 * @runs: the pool
 * @owners: per run table, the context (task and interrupt level) that owns
 *	it, 0 when free; apart from the tables so that a lookup reads little
 * @hint: per CPU, the run table last used there (a guess, checked)
 * @pool_exhausted: acquisitions not recorded for want of room
 * @unmatched: releases that matched nothing held
 * @no_unwind: the program takes references the tables do not track
 *	(ring buffer dynptrs): the watchdog only fast-executes it
 * @stops: runs the watchdog stopped
 * @stop_released: resources given back by stopped runs
 * @nr_release_fns: entries used in @release_fns
 * @release_fns: the release functions the program calls, by name, for
 *	the watchdog to call on a stopped run's behalf
 */
struct rtg_prog {
	struct list_head node;
	struct bpf_prog_aux *main;
	refcount_t images;
	u32 nslots;
	u32 nruns;
	size_t run_size;
	void *runs;
	unsigned long *owners;
	u32 __percpu *hint;
	atomic_long_t pool_exhausted;
	atomic_long_t unmatched;
	bool no_unwind;
	atomic_long_t stops;
	atomic_long_t stop_released;
	u32 nr_release_fns;
	struct {
		char name[48];
		void *func;
	} release_fns[RTG_MAX_RELEASE_FNS];
};

/**
 * struct rtg_image - the module's state for one hooked program image
 * @node: entry in the list of hooked images
 * @tprog: the program's tracking state, NULL when not tracked
 * @aux: aux data of the image (a whole program, or one subprogram of it);
 *	it outlives the image and any clone the JIT made of it
 * @hook: the hook every call site of the image goes to
 * @nr_sites: number of entries used in @sites
 * @max_sites: number of entries allocated in @sites
 * @counts: per-CPU call counters, one per site, for pass-through images
 * @sites: the hooked call sites, in instruction order
 */
struct rtg_image {
	struct list_head node;
	struct rtg_prog *tprog;
	struct bpf_prog_aux *aux;
	void *hook;
	u32 nr_sites;
	u32 max_sites;
	u64 __percpu *counts;
	struct rtg_site sites[] __counted_by(max_sites);
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

/* rtguard_main.c */
extern bool rtg_hook_all;
extern bool rtg_track;
extern unsigned int rtg_watchdog_ms;
extern unsigned int rtg_hold_limit_us;

enum rtg_debug_mode {
	RTG_DEBUG_OFF,
	RTG_DEBUG_FLAG,		/* programs loaded with BPF_F_DEBUG_MODE */
	RTG_DEBUG_ALL,		/* every program JIT compiled while set */
};

extern int rtg_debug;

/* rtguard_image.c */
extern struct mutex rtg_images_lock;
extern struct list_head rtg_images;
extern const struct bpf_call_hook_ops rtg_call_hook_ops;
u64 rtg_site_count(const struct rtg_site *site);

/* rtguard_passthrough.c */
u64 rtg_passthrough_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			 const struct rtg_site *site);

/* rtguard_trace.c */
u64 rtg_trace_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
		   const struct rtg_site *site);

/* rtguard_table.c */
extern struct mutex rtg_progs_lock;
extern struct list_head rtg_progs;
struct rtg_prog *rtg_prog_get(struct bpf_prog_aux *main);
void rtg_prog_put(struct rtg_prog *tp);
struct rtg_run *rtg_run_push(struct rtg_prog *tp, const struct rtg_site *site,
			     u64 obj);
bool rtg_run_pop(struct rtg_prog *tp, u64 obj, const struct rtg_site **acquired);
struct rtg_run *rtg_run_at(const struct rtg_prog *tp, u32 i);
unsigned long rtg_run_key(void);
int rtg_run_find(struct rtg_prog *tp, unsigned long key);
void rtg_prog_add_release_fn(struct rtg_prog *tp, const char *name, void *func);
void *rtg_prog_release_fn(struct rtg_prog *tp, const char *name, size_t len);

/* rtguard_watchdog.c */
extern atomic_t rtg_stops_pending;
u64 rtg_stop_retval(enum bpf_prog_type type);
bool rtg_watchdog_stop(const struct rtg_site *site);
void rtg_watchdog_run_done(struct rtg_prog *tp, struct rtg_run *run);
int rtg_watchdog_init(void);
void rtg_watchdog_exit(void);

/* rtguard_track.c: the hooks, and the choice between them */
u64 rtg_track_acquire_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			   const struct rtg_site *site);
u64 rtg_track_release_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			   const struct rtg_site *site);
u64 rtg_track_release_acquire_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
				   const struct rtg_site *site);
u64 rtg_track_hold_arg_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			    const struct rtg_site *site);
u64 rtg_track_hold_token_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			      const struct rtg_site *site);
u64 rtg_track_release_token_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
				 const struct rtg_site *site);
u64 rtg_track_kptr_xchg_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			     const struct rtg_site *site);
u64 rtg_guard_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
		   const struct rtg_site *site);
u64 rtg_guard_iter_next_hook(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5,
			     const struct rtg_site *site);
bool rtg_track_keep_call(struct bpf_prog *prog, u32 func_id);
bool rtg_track_may_unwind(struct bpf_prog *prog);
bool rtg_track_possible(const struct bpf_prog_aux *main);
void *rtg_track_select(struct rtg_site *site, const struct bpf_call_info *info);

/* rtguard_pairing.c */
bool rtg_pairing_release_of(const char *acquire, char *release, size_t len);
int rtg_pairing_init(struct dentry *dir);
void rtg_pairing_exit(void);
int rtg_pairing_rebuild(void);

/* rtguard_debugfs.c */
extern struct dentry *rtg_debugfs_dir;
int rtg_debugfs_init(void);
void rtg_debugfs_exit(void);

#endif /* _RTGUARD_H */
