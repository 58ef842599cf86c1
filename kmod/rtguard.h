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

struct rtg_image;

/* rtg_site::flags */
#define RTG_SITE_RET_PTR	BIT(0)	/* the result is a pointer */
#define RTG_SITE_RET_SIGNED	BIT(1)	/* the result is a signed integer */

/**
 * struct rtg_site - one hooked helper or kfunc call of a program image
 * @func: the function the program calls
 * @count: per-CPU number of calls made through this site
 * @image: the image the call belongs to
 * @main: aux data of the program the image belongs to
 * @insn_idx: index of the call instruction in the whole program
 * @nr_args: number of arguments the function takes
 * @arg_is_ptr: bit n set when argument n is a pointer
 * @arg_is_signed: bit n set when argument n is a signed integer
 * @arg_is_32bit: bit n set when argument n is an integer of 32 bits or less
 * @ret_size: size of the result in bytes, 0 for void
 * @flags: RTG_SITE_*
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
};

/**
 * struct rtg_image - the module's state for one hooked program image
 * @node: entry in the list of hooked images
 * @aux: aux data of the image (a whole program, or one subprogram of it);
 *	it outlives the image and any clone the JIT made of it
 * @hook: the hook every call site of the image goes to
 * @nr_sites: number of entries used in @sites
 * @max_sites: number of entries allocated in @sites
 * @counts: per-CPU call counters, one per site
 * @sites: the hooked call sites, in instruction order
 */
struct rtg_image {
	struct list_head node;
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

/* rtguard_debugfs.c */
int rtg_debugfs_init(void);
void rtg_debugfs_exit(void);

#endif /* _RTGUARD_H */
