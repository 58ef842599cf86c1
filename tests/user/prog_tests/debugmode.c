// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug mode on debugmode.bpf.c: every helper and kfunc call of a traced
 * program reaches the trace buffer, rtg-strace prints it with the right
 * arguments and results, and the debug parameter selects what is traced.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "debugmode.skel.h"

static struct debugmode_bpf *load_flagged(void)
{
	struct debugmode_bpf *skel = debugmode_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open debugmode"))
		return NULL;
	skel->bss->target_pid = getpid();
	bpf_program__set_flags(skel->progs.test_debug_mode,
			       bpf_program__flags(skel->progs.test_debug_mode) |
			       BPF_F_DEBUG_MODE);
	if (ASSERT_OK(debugmode_bpf__load(skel), "load debugmode"))
		return skel;
	debugmode_bpf__destroy(skel);
	return NULL;
}

/* Traced call k (the line after "name+insn ") starts with want. */
#define EXPECT_CALL(k, want) \
	ASSERT_PREFIX(strace_call(lines[k]), want, "traced call %d", k)

WITH_MODULE(test_debug_seed_trace, "debug=flag");
void test_debug_seed_trace(void)
{
	struct debugmode_bpf *skel;
	char want[128], **lines;
	int n, i, k;

	skel = load_flagged();
	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.test_debug_mode), 0, "run");
	n = strace_lines(prog_id_of(skel->progs.test_debug_mode), &lines, NULL);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	if (!ASSERT_EQ(n, 17, "calls traced"))
		goto out;

	k = 0;
	EXPECT_CALL(k, "bpf_iter_num_new(0x");
	ASSERT_HAS_STR(lines[k], ", 0, 3) = 0 <", "bpf_iter_num_new's range and result");
	for (i = 0, k = 1; i < 3; i++) {
		EXPECT_CALL(k, "bpf_iter_num_next(0x");
		ASSERT_NO_STR(lines[k], ") = 0x0 <", "bpf_iter_num_next %d result", i);
		k++;
		snprintf(want, sizeof(want), "bpf_task_from_pid(%d) = %#lx <",
			 getpid(), (unsigned long)skel->bss->seen_tasks[i]);
		EXPECT_CALL(k, want);
		k++;
		EXPECT_CALL(k, "bpf_probe_read_kernel(0x");
		ASSERT_HAS_STR(lines[k], ", 4, 0x", "bpf_probe_read_kernel size");
		ASSERT_HAS_STR(lines[k], ") = 0 <", "bpf_probe_read_kernel result");
		k++;
		snprintf(want, sizeof(want), "bpf_task_release(%#lx) <",
			 (unsigned long)skel->bss->seen_tasks[i]);
		EXPECT_CALL(k, want);
		ASSERT_EQ(skel->bss->seen_tgids[i], getpid(), "CO-RE read of tgid %d", i);
		k++;
	}
	EXPECT_CALL(k, "bpf_iter_num_next(0x");
	ASSERT_HAS_STR(lines[k], ") = 0x0 <", "the last bpf_iter_num_next returns NULL");
	k++;
	EXPECT_CALL(k, "bpf_iter_num_destroy(0x");
	ASSERT_NO_STR(lines[k], " = ", "a void call shows no result");
	k++;
	snprintf(want, sizeof(want), "bpf_cpumask_create() = %#lx <",
		 (unsigned long)skel->bss->seen_mask);
	EXPECT_CALL(k, want);
	k++;
	snprintf(want, sizeof(want), "bpf_cpumask_release(%#lx) <",
		 (unsigned long)skel->bss->seen_mask);
	EXPECT_CALL(k, want);
	ASSERT_HAS_STR(lines[0], "] test_debug_mode+", "program name and call site");
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* Traced calls of the flagged and the other program under one debug mode. */
static void select_round(const char *mode, int want_flagged, int want_other)
{
	struct debugmode_bpf *skel;
	int flagged, other;
	char **lines;

	if (!ASSERT_OK(param_write("debug", mode), "debug=%s", mode))
		return;
	skel = load_flagged();
	if (!skel)
		return;
	if (ASSERT_OK(strace_start(), "enable the trace event")) {
		ASSERT_EQ(run_prog(skel->progs.test_debug_mode), 0, "run");
		ASSERT_EQ(run_prog(skel->progs.debug_other), 0, "run other");
		flagged = strace_lines(prog_id_of(skel->progs.test_debug_mode), &lines, NULL);
		other = strace_lines(prog_id_of(skel->progs.debug_other), &lines, NULL);
		printf("  debug=%s: flagged program %d calls, other program %d calls\n",
		       mode, flagged, other);
		ASSERT_EQ(flagged, want_flagged, "debug=%s: calls of the flagged program", mode);
		ASSERT_EQ(other, want_other, "debug=%s: calls of the other program", mode);
	}
	strace_stop();
	debugmode_bpf__destroy(skel);
}

WITH_MODULE(test_debug_selection, "");
void test_debug_selection(void)
{
	if (test__start_subtest("flag"))
		select_round("flag", 17, 0);
	if (test__start_subtest("all"))
		select_round("all", 17, 1);
	if (test__start_subtest("off"))
		select_round("off", 0, 0);
}

#define BURST_RUNS 300

static void *burst_thread(void *arg)
{
	struct debugmode_bpf *skel = arg;
	static int cpu_next;
	int i, bad = 0;

	pin_cpu(__sync_fetch_and_add(&cpu_next, 1));
	for (i = 0; i < BURST_RUNS; i++)
		bad += run_prog(skel->progs.debug_burst) != 0;
	return (void *)(long)bad;
}

WITH_MODULE(test_debug_two_cpus, "debug=all");
void test_debug_two_cpus(void)
{
	struct debugmode_bpf *skel;
	unsigned long long lost = 0;
	char **lines;
	pthread_t th[2];
	void *bad[2];
	int n, i;

	if (!ASSERT_GE(ncpus(), 2, "CPUs online"))
		return;
	skel = debugmode_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load debugmode"))
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, burst_thread, skel);
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], &bad[i]);
		ASSERT_EQ((long)bad[i], 0, "bad runs of thread %d", i);
	}
	n = strace_lines(prog_id_of(skel->progs.debug_burst), &lines, &lost);
	ASSERT_EQ(n, 2 * BURST_RUNS * 10, "calls traced");
	ASSERT_EQ(lost, 0, "events lost");
	printf("  %d calls from 2 CPUs traced, %llu lost\n", n, lost);
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}
