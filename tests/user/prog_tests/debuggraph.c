// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtg-strace -g on debuggraph.bpf.c: each run of a traced program with
 * its calls nested inside, calls of a bpf_loop() callback under the
 * bpf_loop() call and the callback's name, a global function's call with
 * its argument, result and duration and its calls inside, durations that
 * add up; and a run the watchdog stops,
 * with what the stop gave back.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "debuggraph.skel.h"

static struct debuggraph_bpf *load_graph(void)
{
	struct debuggraph_bpf *skel = debuggraph_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open debuggraph"))
		return NULL;
	prog_set_debug(skel->progs.debug_graph);
	prog_set_debug(skel->progs.debug_graph_full);
	prog_set_debug(skel->progs.debug_stopped);
	prog_set_debug(skel->progs.debug_tail);
	if (ASSERT_OK(debuggraph_bpf__load(skel), "load debuggraph"))
		return skel;
	debuggraph_bpf__destroy(skel);
	return NULL;
}

/* "[    1.234567] " or 15 spaces, then two spaces a level */
#define PREFIX 15

static int depth_of(const char *l)
{
	int n = 0;

	if (strlen(l) < PREFIX)
		return -1;
	while (l[PREFIX + n] == ' ')
		n++;
	return n / 2;
}

static const char *text_of(const char *l)
{
	return strlen(l) < PREFIX ? "" : l + PREFIX + 2 * depth_of(l);
}

/* The duration "<12ns>" or "<3.4us>" of a line, in ns; -1 if none. */
static long long dur_of(const char *l)
{
	const char *p = strrchr(l, '<');
	unsigned long long a, b;

	if (!p)
		return -1;
	if (sscanf(p, "<%lluns>", &a) == 1 && strstr(p, "ns>"))
		return a;
	if (sscanf(p, "<%llu.%lluus>", &a, &b) == 2)
		return a * 1000 + b * 100;
	return -1;
}

/* The first line from i on at depth d starting with want, or -1. */
static int find_line(char **lines, int n, int i, int d, const char *want)
{
	for (; i < n; i++)
		if (depth_of(lines[i]) == d && !strncmp(text_of(lines[i]), want, strlen(want)))
			return i;
	return -1;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The k-th (from 0) of the traced calls that start with want, or -1. */
static int nth_call(char **lines, int n, const char *want, int k)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(strace_call(lines[i]), want, strlen(want)) && k-- == 0)
			return i;
	return -1;
}

/*
 * Without -g, each call of a run of debug_graph names the line of
 * debuggraph.bpf.c it was made from: in the main function, in the
 * bpf_loop() callback and in the global function (calls are listed as
 * they return). Under constant blinding too, which rewrites each BPF
 * function on its own: before kernel patch 24, 6.12's bpf_adj_linfo()
 * shifted the program's line info by a blinded function's own offsets,
 * and the callback's call showed line 32, in the main function.
 */
static void graph_lines(struct debuggraph_bpf *skel)
{
	static const struct {
		const char *call;
		int k;
		const char *tag;
	} want[] = {
		{ "bpf_ktime_get_ns(", 0, "main_ktime" },
		{ "bpf_get_prandom_u32(", 0, "cb_prandom" },
		{ "bpf_get_prandom_u32(", 2, "cb_prandom" },
		{ "bpf_loop(", 0, "main_loop" },
		{ "bpf_get_prandom_u32(", 3, "work_prandom" },
		{ "bpf_ktime_get_ns(", 1, "work_ktime" },
		{ "global_work(", 0, "main_work" },
	};
	char **lines;
	int n, i, k;

	/* rtg-strace read the first run's calls */
	ASSERT_EQ(run_prog(skel->progs.debug_graph), 7, "run debug_graph again");
	n = strace_lines(prog_id_of(skel->progs.debug_graph), &lines, NULL);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	ASSERT_EQ(n, 8, "calls traced");
	for (i = 0; i < (int)ARRAY_SIZE(want); i++) {
		k = nth_call(lines, n, want[i].call, want[i].k);
		if (ASSERT_GE(k, 0, "traced call %s #%d", want[i].call, want[i].k))
			expect_source("debuggraph.bpf.c", lines[k], want[i].tag);
	}
}

static void graph_run(void)
{
	struct debuggraph_bpf *skel = load_graph();
	int n, i, run, loop, cb, glob, end, calls = 0;
	long long sum = 0, d;
	char args[64], **lines;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start_graph(), "enable the event, runs recorded"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.debug_graph), 7, "run debug_graph");
	snprintf(args, sizeof(args), "-g -p %u", prog_id_of(skel->progs.debug_graph));
	n = strace_run(args, &lines, NULL);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);

	run = find_line(lines, n, 0, 0, "debug_graph() {");
	if (!ASSERT_GE(run, 0, "the run opens at depth 0"))
		goto out;
	end = find_line(lines, n, run + 1, 0, "} = 7 <");
	ASSERT_GT(end, run, "the run closes with its result and duration");
	ASSERT_GE(find_line(lines, n, run + 1, 1, "bpf_ktime_get_ns() = "), 0,
		  "the program's own call, inside the run");
	loop = find_line(lines, n, run + 1, 1, "bpf_loop(nr_loops=3, ");
	if (!ASSERT_GT(loop, run, "bpf_loop, inside the run"))
		goto out;
	ASSERT_HAS_STR(lines[loop], ") {", "bpf_loop opens: its callback made calls");
	cb = find_line(lines, n, loop + 1, 2, "loop_cb() {");
	ASSERT_EQ(cb, loop + 1, "the callback's name under bpf_loop");
	for (i = cb + 1; i < n && depth_of(lines[i]) == 3; i++) {
		ASSERT_PREFIX(text_of(lines[i]), "bpf_get_prandom_u32() = ",
			      "a call of the callback, under it");
		d = dur_of(lines[i]);
		sum += d > 0 ? d : 0;
		calls++;
	}
	ASSERT_EQ(calls, 3, "calls of the callback");
	i = find_line(lines, n, cb + 1, 1, "} = 3 <");
	ASSERT_GT(i, cb, "bpf_loop closes with its result");
	if (i > 0)
		ASSERT_GE(dur_of(lines[i]), sum, "bpf_loop lasted at least its callback's calls");
	/* a BPF-to-BPF call is recorded: entered with its argument, left with its result */
	glob = find_line(lines, n, run + 1, 1, "global_work(x=1) {");
	ASSERT_GT(glob, loop, "the global function's call, after bpf_loop");
	if (glob > 0 && ASSERT_LT(glob + 3, n, "the global function's lines")) {
		ASSERT_PREFIX(text_of(lines[glob + 1]), "bpf_get_prandom_u32() = ",
			      "its first call, under it");
		ASSERT_EQ(depth_of(lines[glob + 1]), 2, "one level deeper");
		ASSERT_PREFIX(text_of(lines[glob + 2]), "bpf_ktime_get_ns() = ",
			      "its second call");
		ASSERT_EQ(depth_of(lines[glob + 2]), 2, "at the same level");
		ASSERT_PREFIX(text_of(lines[glob + 3]), "} = ", "it closes with its result");
		ASSERT_EQ(depth_of(lines[glob + 3]), 1, "at its own level");
		sum = dur_of(lines[glob + 1]) + dur_of(lines[glob + 2]);
		ASSERT_GE(dur_of(lines[glob + 3]), sum, "it lasted at least its two calls");
	}
	/* the run's top-level calls fit in it */
	for (i = run + 1, sum = 0; end > 0 && i < end; i++) {
		if (depth_of(lines[i]) != 1)
			continue;
		d = dur_of(lines[i]);
		sum += d > 0 ? d : 0;
	}
	if (end > 0)
		ASSERT_GE(dur_of(lines[end]), sum, "the run lasted at least its calls");
	graph_lines(skel);
out:
	strace_stop();
	debuggraph_bpf__destroy(skel);
}

WITH_MODULE(test_debug_graph, "debug=flag");
void test_debug_graph(void)
{
	graph_run();
}

/*
 * The same on a program the JIT blinded (net.core.bpf_jit_harden=2):
 * blinding moves the offset of the call of global_work over the
 * instructions it inserts, and the call is still offered and recorded,
 * each call with its source line.
 */
WITH_MODULE(test_debug_graph_blinded, "debug=flag");
void test_debug_graph_blinded(void)
{
	char old[8];

	if (!ASSERT_OK(jit_harden_set(old, sizeof(old)), "bpf_jit_harden=2") ||
	    !ASSERT_STREQ(file_read(JIT_HARDEN), "2\n", "bpf_jit_harden"))
		return;
	graph_run();
	write_file(JIT_HARDEN, old);
}

/*
 * A call whose record stays open (bpf_loop()) while its callback makes
 * more calls than the CPU's area of records holds: the JIT takes records
 * for bpf_loop() and the first 143 calls, the others are written alone
 * (kernel patch 25); each call is printed once, in order, under
 * bpf_loop(), and nothing is lost.
 */
WITH_MODULE(test_debug_graph_full, "debug=flag");
void test_debug_graph_full(void)
{
	struct debuggraph_bpf *skel = load_graph();
	unsigned long long lost = 1;
	int n, i, loop, cb, calls = 0;
	char args[64], **lines;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start_graph(), "enable the event, runs recorded"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.debug_graph_full), 200, "run debug_graph_full");
	snprintf(args, sizeof(args), "-g -p %u", prog_id_of(skel->progs.debug_graph_full));
	n = strace_run(args, &lines, &lost);
	for (i = 0; i < n && i < 4; i++)
		printf("  %s\n", lines[i]);
	for (i = n > 8 ? n - 4 : 4; i < n; i++)
		printf("  %s\n", lines[i]);
	ASSERT_EQ(lost, 0, "no record lost");
	loop = find_line(lines, n, 0, 1, "bpf_loop(nr_loops=200, ");
	if (!ASSERT_GE(loop, 0, "bpf_loop, inside the run"))
		goto out;
	ASSERT_HAS_STR(lines[loop], ") {", "bpf_loop opens: its callback made calls");
	cb = find_line(lines, n, loop + 1, 2, "loop_cb() {");
	ASSERT_EQ(cb, loop + 1, "the callback's name under bpf_loop");
	for (i = cb + 1; i < n && depth_of(lines[i]) == 3; i++)
		calls += !strncmp(text_of(lines[i]), "bpf_get_prandom_u32() = ", 24);
	ASSERT_EQ(calls, 200, "each call of the callback, once, under it");
	ASSERT_EQ(i - cb - 1, 200, "nothing else under it");
	ASSERT_GT(find_line(lines, n, cb + 1, 1, "} = 200 <"), cb,
		  "bpf_loop closes with its result, after them");
out:
	strace_stop();
	debuggraph_bpf__destroy(skel);
}

/*
 * A run the watchdog stops, with what the stop gave back: recorded though
 * runs are not (trace_runs off), as a stopped run calls the module anyway.
 */
WITH_MODULE(test_debug_graph_stop, "track=1 debug=flag watchdog_ms=100");
void test_debug_graph_stop(void)
{
	struct debuggraph_bpf *skel = load_graph();
	char args[64], **lines;
	int n, i, run, end;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	run_prog(skel->progs.debug_stopped);
	snprintf(args, sizeof(args), "-g -p %u", prog_id_of(skel->progs.debug_stopped));
	n = strace_run(args, &lines, NULL);
	for (i = 0; i < n && i < 8; i++)
		printf("  %s\n", lines[i]);
	for (i = n > 8 ? n - 4 : 8; i < n; i++)
		printf("  %s\n", lines[i]);
	run = find_line(lines, n, 0, 0, "debug_stopped() {");
	if (!ASSERT_GE(run, 0, "the run opens"))
		goto out;
	ASSERT_PREFIX(text_of(lines[run + 1]), "rtg_test_obj_get(id=1) = ",
		      "it acquires first");
	/* newest first: the iterator, then the object */
	i = find_line(lines, n, run + 1, 1, "stop gave back 0x");
	if (ASSERT_GT(i, run, "what the stop gave back, inside the run")) {
		ASSERT_HAS_STR(lines[i], "(acquired by bpf_iter_num_new, debug_stopped+",
			       "the iterator, and what had made it");
		ASSERT_HAS_STR(lines[i + 1], "(acquired by rtg_test_obj_get, debug_stopped+",
			       "the object, and what had acquired it");
	}
	end = find_line(lines, n, run + 1, 0, "} = ");
	if (ASSERT_GT(end, run, "the run closes"))
		ASSERT_HAS_STR(lines[end], " stopped by the watchdog (watchdog_ms), ",
			       "stopped, and why");
	ASSERT_LT(find_line(lines, n, 0, 1, "rtg_test_obj_put("), 0,
		  "the program never gave it back itself");
out:
	strace_stop();
	debuggraph_bpf__destroy(skel);
}

/*
 * Top-level runs of debug_graph that rtg-strace -g @args prints, and in
 * @calls the calls of bpf_ktime_get_ns() at any depth.
 */
static int graph_runs(const char *args, int *calls)
{
	int n, i, runs = 0;
	char **lines;

	n = strace_run(args, &lines, NULL);
	*calls = 0;
	for (i = 0; i < n; i++) {
		runs += !strncmp(text_of(lines[i]), "debug_graph() {", 15) && depth_of(lines[i]) == 0;
		*calls += !!strstr(lines[i], "bpf_ktime_get_ns() = ");
	}
	return runs;
}

/*
 * An untracked program in debug mode is bracketed only for the runs that
 * begin while runs are recorded (kernel patch 18): the rtg_call event on
 * and trace_runs set. Else its runs arm no watchdog timer, though a limit
 * is set, and are not recorded, its calls are (and rtg-strace -g says why
 * no run came); with both, each run is recorded.
 */
WITH_MODULE(test_debug_runs_recorded, "debug=flag watchdog_ms=1000");
void test_debug_runs_recorded(void)
{
	struct debuggraph_bpf *skel = load_graph();
	uint64_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
	char args[64], val[8] = "";
	int i, calls;

	if (!skel)
		return;
	strace_stop();
	snprintf(args, sizeof(args), "-g -p %u", prog_id_of(skel->progs.debug_graph));
	ASSERT_OK(stat_read("watchdog_wakeups", &w0), "watchdog_wakeups");
	for (i = 0; i < 200; i++)
		run_prog(skel->progs.debug_graph);
	usleep(20 * 1000);
	ASSERT_OK(stat_read("watchdog_wakeups", &w1), "watchdog_wakeups");
	ASSERT_EQ(w1 - w0, 0, "timer expiries after 200 runs begun with the event off");

	/* the event on, trace_runs off (its default) */
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_OK(param_read("trace_runs", val, sizeof(val)), "trace_runs");
	ASSERT_STREQ(val, "N", "trace_runs: off by default, and --enable leaves it");
	for (i = 0; i < 200; i++)
		ASSERT_EQ(run_prog(skel->progs.debug_graph), 7, "run debug_graph");
	usleep(20 * 1000);
	ASSERT_OK(stat_read("watchdog_wakeups", &w2), "watchdog_wakeups");
	ASSERT_EQ(w2 - w1, 0, "timer expiries after 200 runs begun with runs not recorded");
	ASSERT_EQ(graph_runs(args, &calls), 0, "runs recorded with trace_runs off");
	ASSERT_EQ(calls, 400, "their calls are: two of bpf_ktime_get_ns() a run");
	ASSERT_HAS_STR(file_read("/tmp/strace.err"),
		       "rtg-strace: no run was recorded: bpf_rtguard's trace_runs is off",
		       "-g says why no run came");

	/* -g --enable: runs recorded */
	if (!ASSERT_OK(strace_start_graph(), "enable the event, runs recorded"))
		goto out;
	ASSERT_OK(param_read("trace_runs", val, sizeof(val)), "trace_runs");
	ASSERT_STREQ(val, "Y", "trace_runs set by -g --enable");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(run_prog(skel->progs.debug_graph), 7, "run debug_graph");
	usleep(20 * 1000);
	ASSERT_OK(stat_read("watchdog_wakeups", &w3), "watchdog_wakeups");
	ASSERT_GT(w3 - w2, 0, "timer expiries after runs begun while runs are recorded");
	ASSERT_EQ(graph_runs(args, &calls), 3, "runs recorded: those begun while runs are");
	ASSERT_EQ(calls, 6, "with their calls");
	ASSERT_NO_STR(file_read("/tmp/strace.err"), "no run was recorded", "no note then");
out:
	strace_stop();
	param_write("trace_runs", "0");
	debuggraph_bpf__destroy(skel);
}

/*
 * A call of a BPF function that may reach a tail call (kernel patch 23):
 * the tail call counter's pointer passes the hooks around the call, so
 * the chain stops at the kernel's 33 tail calls whether the calls are
 * recorded or not, and returns the same; each of the 34 calls of the
 * function is recorded, the one whose tail call failed with its own 9.
 */
WITH_MODULE(test_debug_graph_tail, "debug=flag");
void test_debug_graph_tail(void)
{
	struct debuggraph_bpf *skel = load_graph();
	int fd, n, i, ret, calls = 0, failed = 0;
	char args[64], **lines;
	__u32 key = 0;

	if (!skel)
		return;
	fd = bpf_program__fd(skel->progs.debug_tail);
	if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.self_tail), &key, &fd, 0),
		       "fill the program array"))
		goto out;
	strace_stop();
	ret = run_prog(skel->progs.debug_tail);
	ASSERT_GE(ret, 10, "untraced: the failed tail call's 9, and one more");
	ASSERT_EQ(skel->bss->tail_runs, 34, "untraced: the first run and 33 tail calls");
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.debug_tail), ret, "traced: the same result");
	ASSERT_EQ(skel->bss->tail_runs, 68, "traced: the first run and 33 tail calls");
	ASSERT_OK(write_file("/sys/kernel/debug/bpf_rtguard/trace_flush", "1"),
		  "flush the batches");
	n = trace_text_calls("debug_tail", &lines);
	for (i = 0; i < n; i++)
		calls += !!strstr(lines[i], " tail_again(skb=0x");
	ASSERT_EQ(calls, 34, "calls of tail_again in the trace's text");
	calls = 0;
	snprintf(args, sizeof(args), "-p %u", prog_id_of(skel->progs.debug_tail));
	n = strace_run(args, &lines, NULL);
	for (i = 0; i < n; i++) {
		const char *c = strace_call(lines[i]);

		if (!c || strncmp(c, "tail_again(skb=(struct __sk_buff *)0x", 37))
			continue;
		calls++;
		failed += !!strstr(c, ") = 9 <");
	}
	for (i = 0; i < n && i < 2; i++)
		printf("  %s\n", lines[i]);
	ASSERT_EQ(calls, 34, "calls of tail_again recorded");
	ASSERT_EQ(failed, 1, "the one whose tail call failed");
out:
	strace_stop();
	debuggraph_bpf__destroy(skel);
}
