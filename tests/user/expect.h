/* SPDX-License-Identifier: GPL-2.0-only */
/* Assertions that several test files share. */
#ifndef _RTG_EXPECT_H
#define _RTG_EXPECT_H

#include "rtgtest.h"

/* Enable rtg_acquire and rtg_release and empty the trace buffer; or disable them. */
bool track_events_start(void);
void track_events_stop(void);

/* Event i is an acquire (or release) by func of obj (any object if obj is 0). */
bool expect_event(const struct track_event *ev, int n, int i, bool acquire,
		  const char *func, uint64_t obj);

/* Program id is tracked, holds nothing, and had no exhausted pool or unmatched release. */
void expect_clean(const char *what, uint32_t id);

#endif
