/* SPDX-License-Identifier: GPL-2.0-only */
/* Assertions that several test files share. */
#ifndef _RTG_EXPECT_H
#define _RTG_EXPECT_H

#include "rtgtest.h"

struct bpf_program;

/* Enable rtg_acquire and rtg_release and empty the trace buffer; or disable them. */
bool track_events_start(void);
void track_events_stop(void);

/* Event i is an acquire (or release) by func of obj (any object if obj is 0). */
bool expect_event(const struct track_event *ev, int n, int i, bool acquire,
		  const char *func, uint64_t obj);

/*
 * After a stop: the consumer of ring buffer map_fd sees exactly @records
 * records, and a record the size of the one the stop dealt with fits
 * again (@fits: a RINGBUF_FITS_PROG of rtg_bpf.h), twice.
 */
void expect_ringbuf_after_stop(int map_fd, long records, struct bpf_program *fits,
			       const char *what);

/*
 * An rtg-strace line names BPF source src (tests/bpf/, in the guest's
 * /rtg/src) and its line tagged with the comment "strace: tag".
 */
void expect_source(const char *src, const char *line, const char *tag);

/* Program id is tracked, holds nothing, and had no exhausted pool or unmatched release. */
void expect_clean(const char *what, uint32_t id);

#endif
