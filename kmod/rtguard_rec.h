/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_rtguard: the calls a rtg_call trace event carries, as the module
 * writes them (rtguard_trace.c) and rtg-strace reads them raw from the
 * trace buffer: one definition for both.
 */
#ifndef _RTGUARD_REC_H
#define _RTGUARD_REC_H

#include <linux/types.h>

#define RTG_REC_ARGS		5	/* MAX_BPF_FUNC_REG_ARGS */
#define RTG_CALL_REC_SIZE	72

/**
 * enum rtg_rec_kind - what a record stands for (&rtg_call_rec.kind)
 * @RTG_REC_CALL: a call; @site is the call site
 * @RTG_REC_RUN: a run that returned; @site is the program's run number,
 *	@args are the stop reason (0: none), what the stop gave back and
 *	the run's duration in ns, @ret its result
 * @RTG_REC_RELEASE: a stop gave back @args[0]; @site is the call site
 *	that acquired it
 */
enum rtg_rec_kind {
	RTG_REC_CALL,
	RTG_REC_RUN,
	RTG_REC_RELEASE,
};

/**
 * struct rtg_call_rec - one traced call, as a rtg_call record holds it
 *	(the layout of the kernel's struct bpf_call_hook_rec, in which the
 *	JIT records a call in line: @site, @kind and @text are its tag)
 * @args: the five argument registers
 * @ret: the result
 * @end: rtg_clock() right after the call
 * @cycles: the call's duration, in rtg_clock() cycles
 * @pid: the task that made the call
 * @site: the site's number (debugfs bpf_rtguard/sites)
 * @kind: &enum rtg_rec_kind
 * @text: the most bytes the record's line of text takes (the module's
 *	own bound, for the events it writes)
 */
struct rtg_call_rec {
	__u64 args[RTG_REC_ARGS];
	__u64 ret;
	__u64 end;
	__u32 cycles;
	__u32 pid;
	__u32 site;
	__u16 kind;
	__u16 text;
};

#endif /* _RTGUARD_REC_H */
