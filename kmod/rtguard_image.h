/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the hooked images, those retired, and the call hook owner's
 * operations (rtguard_image.c).
 */
#ifndef _RTGUARD_IMAGE_H
#define _RTGUARD_IMAGE_H

#include <linux/bpf_call_hook.h>
#include <linux/list.h>
#include <linux/mutex.h>

extern struct mutex rtg_images_lock;
extern struct list_head rtg_images;
extern const struct bpf_call_hook_ops rtg_call_hook_ops;
extern struct list_head rtg_retired;

#endif /* _RTGUARD_IMAGE_H */
