/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the module's debugfs directory (rtguard_debugfs.c).
 */
#ifndef _RTGUARD_DEBUGFS_H
#define _RTGUARD_DEBUGFS_H

struct dentry;

extern struct dentry *rtg_debugfs_dir;

#endif /* _RTGUARD_DEBUGFS_H */
