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
#include <linux/math64.h>
#include <asm/tsc.h>

struct dentry;
struct rtg_image;

/* rtg_site::flags */
#define RTG_SITE_RET_PTR	BIT(0)	/* the result is a pointer */
#define RTG_SITE_RET_SIGNED	BIT(1)	/* the result is a signed integer */
#define RTG_SITE_TRACE		BIT(2)	/* also record the call (debug mode) */

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
};

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
 * @since_tsc: when, in TSC cycles: one instruction on the hot path,
 *	converted to time only when read (rtg_tsc_to_ns())
 */
struct rtg_held {
	u64 obj;
	const struct rtg_site *site;
	u64 since_tsc;
};

/**
 * rtg_tsc_to_ns() - TSC cycles as nanoseconds
 * @cycles: a difference of two rdtsc() readings
 *
 * Return: @cycles in nanoseconds.
 */
static inline u64 rtg_tsc_to_ns(u64 cycles)
{
	return tsc_khz ? mul_u64_u32_div(cycles, USEC_PER_SEC, tsc_khz) : 0;
}

/**
 * struct rtg_run - the table of one in-flight run
 * @start_tsc: when the run first acquired something (TSC cycles)
 * @count: entries used in @held
 * @held: what the run holds, in order of acquisition
 */
struct rtg_run {
	u64 start_tsc;
	u32 count;
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
bool rtg_track_keep_call(struct bpf_prog *prog, u32 func_id);
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
