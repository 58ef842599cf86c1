// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug mode on debugmode.bpf.c: every helper and kfunc call of a traced
 * program reaches the trace buffer, rtg-strace prints it with the names
 * and types of arguments and results and the source line of the call,
 * failed helpers with their errno, a -c summary, -e selections and JSON;
 * the debug parameter selects what is traced; calls from all CPUs are
 * recorded or counted as lost.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "debugmode.skel.h"


static struct debugmode_bpf *load_flagged(void)
{
	struct debugmode_bpf *skel = debugmode_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open debugmode"))
		return NULL;
	skel->bss->target_pid = getpid();
	prog_set_debug(skel->progs.test_debug_mode);
	if (ASSERT_OK(debugmode_bpf__load(skel), "load debugmode"))
		return skel;
	debugmode_bpf__destroy(skel);
	return NULL;
}

/* Traced call k (the line after "name+insn file:line ") starts with want. */
#define EXPECT_CALL(k, want) \
	ASSERT_PREFIX(strace_call(lines[k]), want, "traced call %d", k)

WITH_MODULE(test_debug_seed_trace, "debug=flag");
void test_debug_seed_trace(void)
{
	struct debugmode_bpf *skel;
	char want[160], **lines;
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
	EXPECT_CALL(k, "bpf_iter_num_new(it=(struct bpf_iter_num *)0x");
	ASSERT_HAS_STR(lines[k], ", start=0, end=3) = 0 <", "bpf_iter_num_new's range and result");
	expect_source("debugmode.bpf.c", lines[k], "bpf_for");
	for (i = 0, k = 1; i < 3; i++) {
		EXPECT_CALL(k, "bpf_iter_num_next(it=(struct bpf_iter_num *)0x");
		ASSERT_HAS_STR(lines[k], ") = (int *)0x", "bpf_iter_num_next %d result", i);
		expect_source("debugmode.bpf.c", lines[k], "bpf_for");
		k++;
		snprintf(want, sizeof(want),
			 "bpf_task_from_pid(pid=%d) = (struct task_struct *)%#lx <",
			 getpid(), (unsigned long)skel->bss->seen_tasks[i]);
		EXPECT_CALL(k, want);
		expect_source("debugmode.bpf.c", lines[k], "from_pid");
		k++;
		/* a helper: names and types from libbpf's bpf_helper_defs.h */
		EXPECT_CALL(k, "bpf_probe_read_kernel(dst=(void *)0x");
		ASSERT_HAS_STR(lines[k], ", size=4, unsafe_ptr=(const void *)0x",
			       "bpf_probe_read_kernel arguments");
		ASSERT_HAS_STR(lines[k], ") = 0 <", "bpf_probe_read_kernel result");
		expect_source("debugmode.bpf.c", lines[k], "core_read");
		k++;
		snprintf(want, sizeof(want), "bpf_task_release(p=(struct task_struct *)%#lx) <",
			 (unsigned long)skel->bss->seen_tasks[i]);
		EXPECT_CALL(k, want);
		expect_source("debugmode.bpf.c", lines[k], "release");
		ASSERT_EQ(skel->bss->seen_tgids[i], getpid(), "CO-RE read of tgid %d", i);
		k++;
	}
	EXPECT_CALL(k, "bpf_iter_num_next(it=(struct bpf_iter_num *)0x");
	ASSERT_HAS_STR(lines[k], ") = NULL <", "the last bpf_iter_num_next returns NULL");
	k++;
	EXPECT_CALL(k, "bpf_iter_num_destroy(it=(struct bpf_iter_num *)0x");
	ASSERT_NO_STR(strace_call(lines[k]), " = ", "a void call shows no result");
	k++;
	snprintf(want, sizeof(want), "bpf_cpumask_create() = (struct bpf_cpumask *)%#lx <",
		 (unsigned long)skel->bss->seen_mask);
	EXPECT_CALL(k, want);
	expect_source("debugmode.bpf.c", lines[k], "cpumask_create");
	k++;
	snprintf(want, sizeof(want),
		 "bpf_cpumask_release(cpumask=(struct bpf_cpumask *)%#lx) <",
		 (unsigned long)skel->bss->seen_mask);
	EXPECT_CALL(k, want);
	expect_source("debugmode.bpf.c", lines[k], "cpumask_release");
	ASSERT_HAS_STR(lines[0], "] test_debug_mode+", "program name and call site");
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* Helpers that fail show their errno by name. */
WITH_MODULE(test_debug_errno, "debug=all");
void test_debug_errno(void)
{
	struct debugmode_bpf *skel;
	const char *call;
	char **lines;
	int n, i;

	skel = debugmode_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load debugmode"))
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.debug_errno), 0, "run");
	ASSERT_EQ(skel->bss->delete_ret, -2, "bpf_map_delete_elem of a missing key");
	ASSERT_EQ(skel->bss->copy_ret, -14, "bpf_copy_from_user of a bad address");
	n = strace_lines(prog_id_of(skel->progs.debug_errno), &lines, NULL);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	if (!ASSERT_EQ(n, 2, "calls traced"))
		goto out;
	/*
	 * a hash map's delete: the program's helper, not htab_map_delete_elem,
	 * and the map by name
	 */
	call = strace_call(lines[0]);
	ASSERT_PREFIX(call, "bpf_map_delete_elem(map=dm_hash <hash>, key=", "the delete");
	ASSERT_HAS_STR(call, ", key=(const void *)0x", "the delete's key");
	ASSERT_HAS_STR(call, ") = -2 ENOENT <", "the delete's errno");
	expect_source("debugmode.bpf.c", lines[0], "delete_missing");
	call = strace_call(lines[1]);
	ASSERT_PREFIX(call, "bpf_copy_from_user(dst=(void *)0x", "the copy");
	ASSERT_HAS_STR(call, ", size=8, user_ptr=(const void *)0x8) = -14 EFAULT <",
		       "the copy's arguments and errno");
	expect_source("debugmode.bpf.c", lines[1], "copy_bad");
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* What debug_counted counted for each function, and its errors. */
struct counted {
	const char *func;
	unsigned long long calls, errors;
};

static int counted_of(struct debugmode_bpf *skel, struct counted *c)
{
	struct debugmode_bpf__bss *b = skel->bss;
	int i = 0;

	c[i++] = (struct counted){ "rtg_test_arg2", b->n_arg2, 0 };
	c[i++] = (struct counted){ "bpf_map_update_elem", b->n_update, 0 };
	c[i++] = (struct counted){ "bpf_map_delete_elem", b->n_delete, b->n_delete_failed };
	c[i++] = (struct counted){ "bpf_task_from_pid", b->n_from_pid, 0 };
	c[i++] = (struct counted){ "bpf_task_release", b->n_release, 0 };
	return i;
}

/* Run debug_counted once, from zeroed counters. */
static bool run_counted(struct debugmode_bpf *skel)
{
	struct debugmode_bpf__bss *b = skel->bss;

	b->n_arg2 = b->n_update = b->n_delete = b->n_delete_failed = 0;
	b->n_from_pid = b->n_release = 0;
	return ASSERT_EQ(run_prog(skel->progs.debug_counted), 0, "run debug_counted");
}

static struct debugmode_bpf *load_counted(void)
{
	struct debugmode_bpf *skel = debugmode_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open debugmode"))
		return NULL;
	skel->bss->target_pid = getpid();
	if (ASSERT_OK(debugmode_bpf__load(skel), "load debugmode"))
		return skel;
	debugmode_bpf__destroy(skel);
	return NULL;
}

static void summary_check(struct debugmode_bpf *skel, bool print)
{
	unsigned long long calls, errors, total = 0;
	struct counted c[8];
	char args[64], **lines;
	int n, i, nc;

	if (!run_counted(skel))
		return;
	nc = counted_of(skel, c);
	snprintf(args, sizeof(args), "-c -p %u", prog_id_of(skel->progs.debug_counted));
	n = strace_run(args, &lines, NULL);
	for (i = 0; i < n && print; i++)
		printf("  %s\n", lines[i]);
	for (i = 0; i < nc; i++) {
		total += c[i].calls;
		if (!ASSERT_OK(strace_summary_row(lines, n, c[i].func, &calls, &errors),
			       "-c row of %s", c[i].func))
			continue;
		ASSERT_EQ(calls, c[i].calls, "-c calls of %s", c[i].func);
		ASSERT_EQ(errors, c[i].errors, "-c errors of %s", c[i].func);
	}
	ASSERT_GT(c[2].errors, 0, "failed deletes");
	/* nothing else: the loops are plain loops */
	ASSERT_OK(strace_summary_row(lines, n, "total", &calls, &errors), "-c total row");
	ASSERT_EQ(calls, total, "-c total calls");
}

/* -c: calls and errors per function, as the program counted them. */
WITH_MODULE(test_debug_summary, "debug=all");
void test_debug_summary(void)
{
	struct debugmode_bpf *skel = load_counted();

	if (!skel)
		return;
	if (ASSERT_OK(strace_start(), "enable the trace event"))
		summary_check(skel, true);
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* -e: only the chosen functions, every call of them. */
WITH_MODULE(test_debug_select_funcs, "debug=all");
void test_debug_select_funcs(void)
{
	struct debugmode_bpf *skel = load_counted();
	char args[96], **lines;
	int n, i, bad = 0;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event") || !run_counted(skel))
		goto out;
	snprintf(args, sizeof(args), "-p %u -e rtg_test_arg2,bpf_map_delete_elem",
		 prog_id_of(skel->progs.debug_counted));
	n = strace_run(args, &lines, NULL);
	ASSERT_EQ((unsigned long long)n, skel->bss->n_arg2 + skel->bss->n_delete,
		  "calls of the two functions");
	for (i = 0; i < n; i++) {
		const char *call = strace_call(lines[i]);

		if (strncmp(call, "rtg_test_arg2(", 14) &&
		    strncmp(call, "bpf_map_delete_elem(", 20)) {
			printf("  not selected: %s\n", lines[i]);
			bad++;
		}
	}
	ASSERT_EQ(bad, 0, "lines of other functions");
	if (n > 0)
		printf("  %s\n  ... %d lines\n", lines[0], n);
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* -j: one JSON object per call, the same calls as the text output. */
WITH_MODULE(test_debug_json, "debug=all");
void test_debug_json(void)
{
	static const char *const keys[] = {
		"time", "cpu", "pid", "prog_id", "prog", "insn", "file", "line",
		"func", "kind", "args", "dur_ns",
	};
	struct debugmode_bpf *skel = load_counted();
	char args[64], **lines, **text = NULL;
	char got[16][32], val[128];
	int n, nt, i, j, k, nk, bad = 0, badkeys = 0, differ = 0;
	unsigned int id;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event") || !run_counted(skel))
		goto out;
	id = prog_id_of(skel->progs.debug_counted);
	nt = strace_lines(id, &lines, NULL);
	text = calloc(nt > 0 ? nt : 1, sizeof(char *));
	for (i = 0; i < nt; i++)
		text[i] = strdup(strace_call(lines[i]));
	if (!run_counted(skel))
		goto out;
	snprintf(args, sizeof(args), "-j -p %u", id);
	n = strace_run(args, &lines, NULL);
	ASSERT_EQ(n, nt, "JSON lines, text lines");
	for (i = 0; i < n; i++) {
		nk = json_object_keys(lines[i], got, 16);
		if (nk < 0) {
			printf("  not a JSON object: %s\n", lines[i]);
			bad++;
			continue;
		}
		for (j = 0; j < (int)(sizeof(keys) / sizeof(keys[0])); j++) {
			for (k = 0; k < nk && strcmp(got[k], keys[j]); k++)
				;
			if (k == nk) {
				printf("  no key %s: %s\n", keys[j], lines[i]);
				badkeys++;
			}
		}
		/* the same function, in the same order, as the text trace */
		if (i < nt && (json_get(lines[i], "func", val, sizeof(val)) ||
			       strncmp(text[i], val, strlen(val)) ||
			       text[i][strlen(val)] != '(')) {
			printf("  differs: %s vs %s\n", lines[i], text[i]);
			differ++;
		}
	}
	ASSERT_EQ(bad, 0, "lines that are not one JSON object");
	ASSERT_EQ(badkeys, 0, "keys missing");
	ASSERT_EQ(differ, 0, "calls that differ from the text trace");
	if (n > 0)
		printf("  %s\n", lines[0]);
	for (i = 0; i < n; i++)
		if (strstr(lines[i], "\"errno\":\"ENOENT\""))
			break;
	ASSERT_LT(i, n, "a JSON record with errno ENOENT");
out:
	for (i = 0; text && i < nt; i++)
		free(text[i]);
	free(text);
	strace_stop();
	debugmode_bpf__destroy(skel);
}

static void *run_later(void *arg)
{
	struct debugmode_bpf *skel = arg;

	sleep(1);	/* rtg-strace -f is reading by then */
	return (void *)(long)run_counted(skel);
}

/* -f follows the buffer while the program runs; -o writes to a file. */
WITH_MODULE(test_debug_follow, "debug=all");
void test_debug_follow(void)
{
	struct debugmode_bpf *skel = load_counted();
	unsigned long long want;
	char args[96], l[1024], **lines;
	pthread_t th;
	void *ran = NULL;
	int n, infile = 0;
	FILE *f;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	unlink("/tmp/follow.out");
	pthread_create(&th, NULL, run_later, skel);
	snprintf(args, sizeof(args), "-f -t 3 -p %u -o /tmp/follow.out",
		 prog_id_of(skel->progs.debug_counted));
	n = strace_run(args, &lines, NULL);
	pthread_join(th, &ran);
	if (!ASSERT_TRUE(ran, "the program ran"))
		goto out;
	want = skel->bss->n_arg2 + skel->bss->n_update + skel->bss->n_delete +
	       skel->bss->n_from_pid + skel->bss->n_release;
	ASSERT_EQ(n, 0, "lines on stdout with -o");
	f = fopen("/tmp/follow.out", "r");
	if (!ASSERT_OK_PTR(f, "the -o file"))
		goto out;
	while (fgets(l, sizeof(l), f))
		infile += strstr(l, "] debug_counted+") != NULL;
	fclose(f);
	ASSERT_EQ((unsigned long long)infile, want, "calls followed, in the -o file");
	printf("  rtg-strace -f -t 3 -o FILE: %d calls made while it followed\n", infile);
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* The demo: the trace of the counted program, then its -c summary. */
WITH_MODULE(demo_debug_summary, "debug=all");
void demo_debug_summary(void)
{
	struct debugmode_bpf *skel = load_counted();
	char **lines;
	int n, i;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event") || !run_counted(skel))
		goto out;
	printf("rtg-strace -p ID (debug_counted, first 8 calls):\n");
	n = strace_lines(prog_id_of(skel->progs.debug_counted), &lines, NULL);
	for (i = 0; i < n && i < 8; i++)
		printf("  %s\n", lines[i]);
	printf("rtg-strace -c -p ID, after another run:\n");
	summary_check(skel, true);
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}

/* Traced calls of the flagged and the other program under one debug mode. */
static void select_round(const char *mode, int want_flagged, int want_other)
{
	struct debugmode_bpf *skel;
	int flagged = -1, other = -1;
	char **lines;

	if (!ASSERT_OK(param_write("debug", mode), "debug=%s", mode))
		return;
	skel = load_flagged();
	if (!skel)
		return;
	if (ASSERT_OK(strace_start(), "enable the trace event")) {
		/* reading consumes: one program at a time */
		if (ASSERT_EQ(run_prog(skel->progs.test_debug_mode), 0, "run"))
			flagged = strace_lines(prog_id_of(skel->progs.test_debug_mode),
					       &lines, NULL);
		if (ASSERT_EQ(run_prog(skel->progs.debug_other), 0, "run other"))
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

#define BURST_CALLS 10000	/* at least, from all CPUs */

struct burst {
	struct debugmode_bpf *skel;
	int cpu, runs, bad;
};

static void *burst_thread(void *arg)
{
	struct burst *b = arg;
	int i;

	pin_cpu(b->cpu);
	for (i = 0; i < b->runs; i++)
		b->bad += run_prog(i & 1 ? b->skel->progs.debug_burst_sleepable :
					   b->skel->progs.debug_burst) != 0;
	return NULL;
}

/*
 * 10,000 calls from all CPUs, half recorded in line by the JIT and half
 * by the post hook into the same areas: each one recorded, or counted as
 * lost.
 */
WITH_MODULE(test_debug_all_cpus, "debug=all");
void test_debug_all_cpus(void)
{
	int n, i, cpus = ncpus(), made = 0, tc = 0, sleepable = 0;
	struct debugmode_bpf *skel;
	unsigned long long lost = 0;
	struct burst b[64];
	pthread_t th[64];
	char **lines;

	if (!ASSERT_GE(cpus, 2, "CPUs online"))
		return;
	if (cpus > 64)
		cpus = 64;
	skel = debugmode_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load debugmode"))
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	for (i = 0; i < cpus; i++) {
		/* an even number of runs: as many of each program */
		b[i] = (struct burst){ skel, i, ((BURST_CALLS / 10 + cpus - 1) / cpus + 1) & ~1, 0 };
		made += b[i].runs * 10;
		pthread_create(&th[i], NULL, burst_thread, &b[i]);
	}
	for (i = 0; i < cpus; i++) {
		pthread_join(th[i], NULL);
		ASSERT_EQ(b[i].bad, 0, "bad runs on CPU %d", i);
	}
	/* one read of the buffer: rtg-strace consumes what it reads */
	n = strace_run("-e rtg_test_arg2", &lines, &lost);
	for (i = 0; i < n; i++) {
		tc += !!strstr(lines[i], " debug_burst+");
		sleepable += !!strstr(lines[i], " debug_burst_sle+");
	}
	ASSERT_EQ(tc, made / 2, "calls of the tc program");
	ASSERT_EQ(sleepable, made / 2, "calls of the sleepable program");
	printf("  %d calls made from %d CPUs: %d traced, %llu reported lost\n",
	       made, cpus, n, lost);
	if (ASSERT_NE(lost, ~0ULL, "rtg-strace reports lost records"))
		ASSERT_EQ(n + lost, (unsigned long long)made,
			  "records seen + lost reported = calls made");
	ASSERT_EQ(lost, 0, "records lost (8 MiB per CPU holds them all)");
out:
	strace_stop();
	debugmode_bpf__destroy(skel);
}
