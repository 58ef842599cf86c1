// SPDX-License-Identifier: GPL-2.0-only
#include <bpf/libbpf.h>

#include "expect.h"

bool track_events_start(void)
{
	return ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_acquire", true),
			 "enable rtg_acquire") &&
	       ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_release", true),
			 "enable rtg_release") &&
	       ASSERT_OK(trace_clear(), "empty the trace buffer");
}

void track_events_stop(void)
{
	trace_event_enable("bpf_rtguard", false);
}

bool expect_event(const struct track_event *ev, int n, int i, bool acquire,
		  const char *func, uint64_t obj)
{
	if (!ASSERT_LT(i, n, "event %d present", i))
		return false;
	return ASSERT_EQ(ev[i].acquire, acquire, "event %d is an %s", i,
			 acquire ? "acquire" : "release") &
	       ASSERT_STREQ(ev[i].func, func, "event %d's function", i) &
	       (!obj || ASSERT_EQ(ev[i].obj, obj, "event %d's object", i));
}

void expect_clean(const char *what, uint32_t id)
{
	static struct rtg_held h;

	if (!ASSERT_OK(held_find(id, &h), "%s: program %u in held", what, id))
		return;
	ASSERT_STREQ(h.text, "", "%s: the program's runs after the run", what);
	ASSERT_EQ(h.incomplete, 0L, "%s: incomplete runs", what);
	ASSERT_EQ(h.leftover + h.stray, 0L, "%s: bookkeeping errors", what);
	ASSERT_EQ(h.unmatched, 0, "%s: unmatched releases", what);
}

void expect_ringbuf_after_stop(int map_fd, long records, struct bpf_program *fits,
			       const char *what)
{
	struct ring_buffer *rb;
	long seen = 0;
	int i;

	rb = ring_buffer__new(map_fd, ringbuf_count_record, &seen, NULL);
	if (!ASSERT_OK_PTR(rb, "ring_buffer__new"))
		return;
	/*
	 * A record the stop discarded is skipped by the consumer, which frees
	 * its space; one left busy would stop the consumer, and the next
	 * reservation would fail.
	 */
	ASSERT_EQ(ring_buffer__consume(rb), (int)records, "records consumed after %s", what);
	ASSERT_EQ(seen, records, "records the consumer sees after %s", what);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(run_prog(fits), 0, "a record fits again after %s (%d)", what, i);
		ring_buffer__consume(rb);
	}
	ring_buffer__free(rb);
}

/* The line of the guest's /rtg/src/src tagged "strace: tag", or -1. */
static int tag_line(const char *src, const char *tag)
{
	char path[128], want[64], l[512];
	int n = 0, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/rtg/src/%s", src);
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "/* strace: %s */", tag);
	while (fgets(l, sizeof(l), f)) {
		n++;
		if (strstr(l, want))
			found = n;
	}
	fclose(f);
	return found;
}

void expect_source(const char *src, const char *line, const char *tag)
{
	char file[64] = "";
	int want = tag_line(src, tag), got = -1;

	if (!ASSERT_GT(want, 0, "tag '%s' in %s", tag, src))
		return;
	if (!ASSERT_OK(strace_source(line, file, sizeof(file), &got),
		       "source location in '%s'", line))
		return;
	ASSERT_STREQ(file, src, "source file of the '%s' call", tag);
	ASSERT_EQ(got, want, "source line of the '%s' call", tag);
}
