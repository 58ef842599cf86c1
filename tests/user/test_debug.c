// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug mode: every helper and kfunc call of a traced program reaches the
 * trace buffer, and rtg-strace prints it with the right arguments and
 * results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "debugmode.skel.h"
#include "passthrough.skel.h"

#define STRACE "/rtg/rtg-strace"
#define MAX_LINES 8192

static char *lines[MAX_LINES];

/* rtg-strace's lines for one program id; returns how many. */
static int strace_lines(uint32_t id, unsigned long long *lost)
{
	char cmd[128], buf[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), STRACE " -l -p %u 2>/tmp/strace.err", id);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(buf, sizeof(buf), p)) {
		buf[strcspn(buf, "\n")] = 0;
		if (n < MAX_LINES) {
			free(lines[n]);
			lines[n++] = strdup(buf);
		}
	}
	pclose(p);
	if (lost) {
		FILE *e = fopen("/tmp/strace.err", "r");

		*lost = ~0ULL;
		if (e) {
			if (fscanf(e, "rtg-strace: %llu events lost", lost) != 1)
				*lost = ~0ULL;
			fclose(e);
		}
	}
	return n;
}

/* The part of a line after "name+insn ": "func(args) = ret <dur>". */
static const char *call_of(const char *line)
{
	const char *p = strchr(line, ']');

	p = p ? strchr(p + 2, ' ') : NULL;
	return p ? p + 1 : "";
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int trace_reset(void)
{
	return system(STRACE " --clear && " STRACE " --enable") ? -1 : 0;
}

static int run_syscall_prog(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return opts.retval;
}

void test_debug_seed_trace(void)
{
	struct debugmode_bpf *skel;
	char want[128];
	uint32_t id;
	int n, i, k;

	REQUIRE(!mod_load(MOD_RTGUARD, "debug=flag"), "insmod");
	skel = debugmode_bpf__open();
	if (!CHECK(skel, "open"))
		goto out;
	skel->bss->target_pid = getpid();
	bpf_program__set_flags(skel->progs.test_debug_mode,
			       bpf_program__flags(skel->progs.test_debug_mode) |
			       BPF_F_DEBUG_MODE);
	if (!CHECK(!debugmode_bpf__load(skel), "load: %s", strerror(errno)) ||
	    !CHECK(!trace_reset(), "enable the trace event"))
		goto destroy;
	CHECK(run_syscall_prog(skel->progs.test_debug_mode) == 0, "run");
	id = prog_id(bpf_program__fd(skel->progs.test_debug_mode));
	n = strace_lines(id, NULL);
	for (i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	if (!CHECK(n == 17, "%d calls traced, want 17", n))
		goto destroy;

	k = 0;
	CHECK(starts(call_of(lines[k]), "bpf_iter_num_new(0x") &&
	      strstr(lines[k], ", 0, 3) = 0 <"), "%s", lines[k]);
	for (i = 0, k = 1; i < 3; i++) {
		CHECK(starts(call_of(lines[k]), "bpf_iter_num_next(0x") &&
		      !strstr(lines[k], ") = 0x0 <"), "%s", lines[k]);
		k++;
		snprintf(want, sizeof(want), "bpf_task_from_pid(%d) = %#lx <",
			 getpid(), (unsigned long)skel->bss->seen_tasks[i]);
		CHECK(starts(call_of(lines[k]), want), "%s, want %s", lines[k], want);
		k++;
		CHECK(starts(call_of(lines[k]), "bpf_probe_read_kernel(0x") &&
		      strstr(lines[k], ", 4, 0x") && strstr(lines[k], ") = 0 <"),
		      "%s", lines[k]);
		k++;
		snprintf(want, sizeof(want), "bpf_task_release(%#lx) <",
			 (unsigned long)skel->bss->seen_tasks[i]);
		CHECK(starts(call_of(lines[k]), want), "%s, want %s", lines[k], want);
		CHECK(skel->bss->seen_tgids[i] == getpid(), "CO-RE read tgid %d",
		      skel->bss->seen_tgids[i]);
		k++;
	}
	CHECK(starts(call_of(lines[k]), "bpf_iter_num_next(0x") &&
	      strstr(lines[k], ") = 0x0 <"), "%s", lines[k]);
	k++;
	CHECK(starts(call_of(lines[k]), "bpf_iter_num_destroy(0x") &&
	      !strstr(lines[k], " = "), "%s", lines[k]);
	k++;
	snprintf(want, sizeof(want), "bpf_cpumask_create() = %#lx <",
		 (unsigned long)skel->bss->seen_mask);
	CHECK(starts(call_of(lines[k]), want), "%s, want %s", lines[k], want);
	k++;
	snprintf(want, sizeof(want), "bpf_cpumask_release(%#lx) <",
		 (unsigned long)skel->bss->seen_mask);
	CHECK(starts(call_of(lines[k]), want), "%s, want %s", lines[k], want);
	CHECK(strstr(lines[0], "] test_debug_mode+"), "%s", lines[0]);
destroy:
	debugmode_bpf__destroy(skel);
out:
	system(STRACE " --disable");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

/* Traced calls of the flagged and the other program under one debug mode. */
static void select_round(const char *mode, int *flagged, int *other)
{
	struct debugmode_bpf *skel;

	*flagged = *other = -1;
	REQUIRE(!param_write("debug", mode), "debug=%s", mode);
	skel = debugmode_bpf__open();
	REQUIRE(skel, "open");
	skel->bss->target_pid = getpid();
	bpf_program__set_flags(skel->progs.test_debug_mode,
			       bpf_program__flags(skel->progs.test_debug_mode) |
			       BPF_F_DEBUG_MODE);
	if (CHECK(!debugmode_bpf__load(skel), "load: %s", strerror(errno)) &&
	    CHECK(!trace_reset(), "enable")) {
		CHECK(run_syscall_prog(skel->progs.test_debug_mode) == 0, "run");
		CHECK(run_syscall_prog(skel->progs.debug_other) == 0, "run other");
		*flagged = strace_lines(prog_id(bpf_program__fd(skel->progs.test_debug_mode)), NULL);
		*other = strace_lines(prog_id(bpf_program__fd(skel->progs.debug_other)), NULL);
	}
	debugmode_bpf__destroy(skel);
	printf("  debug=%s: flagged program %d calls, other program %d calls\n",
	       mode, *flagged, *other);
}

void test_debug_selection(void)
{
	int flagged, other;

	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	select_round("flag", &flagged, &other);
	CHECK(flagged == 17 && other == 0, "flag mode");
	select_round("all", &flagged, &other);
	CHECK(flagged == 17 && other == 1, "all mode");
	select_round("off", &flagged, &other);
	CHECK(flagged == 0 && other == 0, "off mode");
	system(STRACE " --disable");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

/* Find the traced call that starts with @call; NULL if none. */
static const char *find_call(int n, const char *call)
{
	int i;

	for (i = 0; i < n; i++)
		if (starts(call_of(lines[i]), call))
			return lines[i];
	return NULL;
}

void test_debug_arg_counts(void)
{
	static const char *const want[] = {
		"rtg_test_arg0() = 1311768467463790320 <",
		"rtg_test_arg1(7) = -7 <",
		"rtg_test_arg2(3, 4) = 3004 <",
		"rtg_test_void3(1, 2, 3) <",
		"rtg_test_arg4(1, 2, 3, 4) = 281483566841860 <",
		"rtg_test_arg5(1, 2, 3, 4, 5) = 55 <",
		"rtg_test_void0() <",
		"rtg_test_sleep(10) = 10 <",
		"rtg_test_obj_get(0) = 0x0 <",
		"bpf_ktime_get_ns() = ",
		"bpf_snprintf(0x",
		"htab_map_update_elem(0x",
		"bpf_cpumask_set_cpu(1, 0x",
		"bpf_cpumask_test_cpu(1, 0x",
	};
	struct passthrough_bpf *skel;
	const char *l;
	size_t i;
	int n;

	REQUIRE(!mod_load(MOD_RTGUARD, "debug=all"), "insmod");
	skel = passthrough_bpf__open_and_load();
	if (CHECK(skel, "load: %s", strerror(errno))) {
		if (CHECK(!trace_reset(), "enable")) {
			CHECK(run_syscall_prog(skel->progs.pt_syscall) == 0, "run");
			n = strace_lines(prog_id(bpf_program__fd(skel->progs.pt_syscall)),
					 NULL);
			for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
				l = find_call(n, want[i]);
				if (CHECK(l, "no traced call starts with '%s'", want[i]))
					printf("  %s\n", l);
			}
			l = find_call(n, "bpf_snprintf(");
			CHECK(l && strstr(l, ", 16, 0x") && strstr(l, ", 16) = 5 <"),
			      "%s", l ? l : "(none)");
			l = find_call(n, "htab_map_update_elem(");
			CHECK(l && strstr(l, ", 0) = 0 <"), "%s", l ? l : "(none)");
		}
		passthrough_bpf__destroy(skel);
	}
	system(STRACE " --disable");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

#define BURST_RUNS 300

static void *burst_thread(void *arg)
{
	struct debugmode_bpf *skel = arg;
	static int cpu_next;
	cpu_set_t set;
	int i, bad = 0;

	CPU_ZERO(&set);
	CPU_SET(__sync_fetch_and_add(&cpu_next, 1), &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < BURST_RUNS; i++)
		bad += run_syscall_prog(skel->progs.debug_burst) != 0;
	return (void *)(long)bad;
}

void test_debug_two_cpus(void)
{
	struct debugmode_bpf *skel;
	unsigned long long lost = 0;
	pthread_t th[2];
	void *bad[2];
	int n, i;

	REQUIRE(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs two CPUs");
	REQUIRE(!mod_load(MOD_RTGUARD, "debug=all"), "insmod");
	skel = debugmode_bpf__open_and_load();
	if (CHECK(skel, "load: %s", strerror(errno))) {
		if (CHECK(!trace_reset(), "enable")) {
			for (i = 0; i < 2; i++)
				pthread_create(&th[i], NULL, burst_thread, skel);
			for (i = 0; i < 2; i++) {
				pthread_join(th[i], &bad[i]);
				CHECK(!bad[i], "thread %d: %ld bad runs", i, (long)bad[i]);
			}
			n = strace_lines(prog_id(bpf_program__fd(skel->progs.debug_burst)),
					 &lost);
			CHECK(n == 2 * BURST_RUNS * 10, "%d calls traced, want %d", n,
			      2 * BURST_RUNS * 10);
			CHECK(lost == 0, "%llu events lost", lost);
			printf("  %d calls from 2 CPUs traced, %llu lost\n", n, lost);
		}
		debugmode_bpf__destroy(skel);
	}
	system(STRACE " --disable");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

void test_debug_param_einval(void)
{
	static char buf[1 << 17];
	char val[16];
	int err, n;

	/* at insmod time too, and without a value */
	err = mod_load(MOD_RTGUARD, "debug=verbose");
	CHECK(err == -EINVAL, "insmod debug=verbose: %s, want EINVAL", strerror(-err));
	err = mod_load(MOD_RTGUARD, "debug");
	CHECK(err == -EINVAL, "insmod debug: %s, want EINVAL", strerror(-err));
	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	CHECK(!param_read("debug", val, sizeof(val)) && !strcmp(val, "flag"),
	      "default debug mode '%s'", val);
	err = param_write("debug", "verbose\n");
	CHECK(err == -EINVAL, "debug=verbose: %s, want EINVAL", strerror(-err));
	n = klogctl(3, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	CHECK(strstr(buf, "bpf_rtguard: debug: 'verbose' is not one of off, flag, all"),
	      "no dmesg line for the refused value");
	CHECK(!param_read("debug", val, sizeof(val)) && !strcmp(val, "flag"),
	      "debug changed to '%s' by a refused write", val);
	CHECK(!param_write("debug", "all") && !param_read("debug", val, sizeof(val)) &&
	      !strcmp(val, "all"), "debug=all reads '%s'", val);
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
