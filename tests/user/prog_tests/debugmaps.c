// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug mode as users of standard tools and of rtg-strace meet it:
 * tracefs trace text names each call, its arguments and result; map
 * helpers are printed under the helper's name with the map's name and
 * type, for a hash, an array, a per-CPU array and an LRU hash map;
 * rtg-strace -- CMD traces the programs CMD loads, no other process's,
 * and exits with its status; bad input gets one line and a status.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "debugmaps.skel.h"
#include "debugmode.skel.h"

#define DM_CALLS 14	/* 3 per map, 4 maps, then a kfunc pair */
#define DEBUG_LONG_CALLS 64	/* debug_long's calls a run */
#define DEBUG_SHORT_CALLS 96	/* debug_short's */
#define TRACE_TASKS "/sys/kernel/debug/bpf_rtguard/trace_tasks"

static struct debugmaps_bpf *load_maps(bool flag)
{
	struct debugmaps_bpf *skel = debugmaps_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open debugmaps"))
		return NULL;
	skel->bss->target_pid = getpid();
	if (flag) {
		prog_set_debug(skel->progs.debug_maps);
		prog_set_debug(skel->progs.debug_long);
		prog_set_debug(skel->progs.debug_short);
	}
	if (ASSERT_OK(debugmaps_bpf__load(skel), "load debugmaps"))
		return skel;
	debugmaps_bpf__destroy(skel);
	return NULL;
}

static const char *const dm_maps[] = {
	"m_hash <hash>", "m_array <array>", "m_pcpu <percpu_array>",
	"m_lru <lru_hash>",
};

/*
 * The calls of one run of debug_maps, as text: call(args) = ret, with
 * the kernel's names (trace) or rtg-strace's typed values.
 */
static void expect_map_calls(char **calls, int n, bool kernel, int pid)
{
	char want[160];
	int m, k = 0;

	if (!ASSERT_EQ(n, DM_CALLS, "calls of debug_maps"))
		return;
	for (m = 0; m < 4; m++) {
		snprintf(want, sizeof(want), "bpf_map_update_elem(map=%s, key=", dm_maps[m]);
		ASSERT_PREFIX(calls[k], want, "update of %s", dm_maps[m]);
		ASSERT_HAS_STR(calls[k], ", flags=0) = 0 <", "update of %s: flags, result", dm_maps[m]);
		k++;
		snprintf(want, sizeof(want), "bpf_map_lookup_elem(map=%s, key=", dm_maps[m]);
		ASSERT_PREFIX(calls[k], want, "lookup of %s", dm_maps[m]);
		ASSERT_HAS_STR(calls[k], kernel ? ") = 0x" : ") = (void *)0x",
			       "lookup of %s finds the value", dm_maps[m]);
		k++;
		snprintf(want, sizeof(want), "bpf_map_delete_elem(map=%s, key=", dm_maps[m]);
		ASSERT_PREFIX(calls[k], want, "delete of %s", dm_maps[m]);
		/*
		 * an array's elements cannot be deleted; the kernel names the
		 * errno when it has CONFIG_SYMBOLIC_ERRNAME
		 */
		ASSERT_HAS_STR(calls[k], m == 1 || m == 2 ?
			       (kernel ? ") = -22 " : ") = -22 EINVAL <") : ") = 0 <",
			       "delete of %s: result", dm_maps[m]);
		k++;
	}
	snprintf(want, sizeof(want), "bpf_task_from_pid(pid=%d) = ", pid);
	ASSERT_PREFIX(calls[k], want, "kfunc with its argument's name");
	ASSERT_PREFIX(calls[k + 1], "bpf_task_release(p=", "kfunc release");
}

/* "name+insn " cut from a trace text line */
static char **after_site(char **lines, int n)
{
	static char *calls[DM_CALLS];
	int i;

	for (i = 0; i < n && i < DM_CALLS; i++) {
		const char *sp = strchr(lines[i], ' ');

		calls[i] = (char *)(sp ? sp + 1 : "");
	}
	return calls;
}

/*
 * @runs runs of @prog (named @name) traced into an emptied buffer, then
 * written out: the calls in the trace text, as trace_text_calls() gives
 * them
 */
static int trace_runs(struct bpf_program *prog, const char *name, int runs, char ***lines)
{
	int i;

	ASSERT_OK(strace_start(), "an empty buffer");
	for (i = 0; i < runs; i++)
		ASSERT_EQ(run_prog(prog), 0, "run %d of %s", i, name);
	write_file("/sys/kernel/debug/bpf_rtguard/trace_flush", "1");
	return trace_text_calls(name, lines);
}

/*
 * The calls of a program read after it is gone and the names of its
 * sites forgotten (once 64 more traced images were freed): each line is
 * as long as six hex values make it, and still every call is printed.
 */
static void trace_text_unloaded(void)
{
	struct debugmaps_bpf *gone = load_maps(true), *more;
	const char *text = "";
	int i, n = 0;

	if (!gone)
		return;
	ASSERT_OK(strace_start(), "an empty buffer");
	ASSERT_EQ(run_prog(gone->progs.debug_short), 0, "run debug_short");
	write_file("/sys/kernel/debug/bpf_rtguard/trace_flush", "1");
	debugmaps_bpf__destroy(gone);
	/* three traced images a load: their frees retire more than 64 */
	for (i = 0; i < 40 && !strstr(text, "(program unloaded)"); i++) {
		more = load_maps(true);
		debugmaps_bpf__destroy(more);
		if (i >= 24) {
			usleep(250000);
			text = file_read("/sys/kernel/tracing/trace");
		}
	}
	for (const char *p = text; (p = strstr(p, "(program unloaded)(0xffffffffffffffff, "));
	     p++)
		n++;
	ASSERT_EQ(n, DEBUG_SHORT_CALLS, "every call of the program gone in the trace text");
	ASSERT_NO_STR(text, "more calls", "no call left out of an event's text");
	ASSERT_NO_STR(text, "LINE TOO BIG", "no event too big to print");
}

WITH_MODULE(test_debug_maps, "debug=flag");
void test_debug_maps(void)
{
	struct debugmaps_bpf *skel = load_maps(true);
	char **lines, *calls[DM_CALLS];
	int n, i;

	if (!skel)
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.debug_maps), 0, "run debug_maps");
	ASSERT_OK(write_file("/sys/kernel/debug/bpf_rtguard/trace_flush", "1"),
		  "flush the batches");

	if (test__start_subtest("trace_text")) {
		n = trace_text_calls("debug_maps", &lines);
		for (i = 0; i < n; i++)
			printf("  trace: %s\n", lines[i]);
		ASSERT_HAS_STR(n > 0 ? lines[0] : "", " pid=", "the task of each call");
		expect_map_calls(after_site(lines, n), n, true, getpid());
	}
	if (test__start_subtest("rtg_strace")) {
		n = strace_lines(prog_id_of(skel->progs.debug_maps), &lines, NULL);
		for (i = 0; i < n && i < DM_CALLS; i++) {
			printf("  %s\n", lines[i]);
			calls[i] = (char *)strace_call(lines[i]);
		}
		expect_map_calls(calls, n, false, getpid());
	}
	if (test__start_subtest("trace_text_full")) {
		/* full records: each event's text still fits in trace_pipe's page */
		n = trace_runs(skel->progs.debug_maps, "debug_maps", 4, &lines);
		ASSERT_EQ(n, 4 * DM_CALLS, "every call in the trace text");
		ASSERT_NO_STR(file_read("/sys/kernel/tracing/trace"), "LINE TOO BIG",
			      "no event too big to print");
	}
	if (test__start_subtest("trace_text_long")) {
		/* batches end when their text would outgrow the event's */
		n = trace_runs(skel->progs.debug_long, "debug_long", 2, &lines);
		ASSERT_EQ(n, 2 * DEBUG_LONG_CALLS, "every call in the trace text");
		if (n > 0)
			printf("  trace: %s\n", lines[n - 1]);
		ASSERT_HAS_STR(n > 0 ? lines[n - 1] : "", "rtg_test_arg5(a=18446744073709551615, b=",
			       "a long line");
		ASSERT_NO_STR(file_read("/sys/kernel/tracing/trace"), "more calls",
			      "no call left out of an event's text");
		ASSERT_NO_STR(file_read("/sys/kernel/tracing/trace"), "LINE TOO BIG",
			      "no event too big to print");
	}
	if (test__start_subtest("trace_text_unloaded"))
		trace_text_unloaded();
out:
	strace_stop();
	debugmaps_bpf__destroy(skel);
}

/*
 * The calls of debug_maps in a trace-cmd report: the text after each
 * "debug_maps+INSN " (the event's first call follows its "rtg_call: ",
 * the others are lines of their own). Returns how many.
 */
static int report_calls(const char *path, char **calls, int max)
{
	static char text[1 << 16];
	char *line, *save = NULL, *p;
	int n = 0;

	snprintf(text, sizeof(text), "%s", file_read(path));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, "debug_maps+");
		if (!p || !(p = strchr(p, ' ')))
			continue;
		printf("  report: %s\n", line);
		if (n < max)
			calls[n] = p + 1;
		n++;
	}
	return n;
}

/*
 * A report of one debug_loader_quick run, printed through the plugin
 * (decoded): the loader's map and task calls; or without it: the events,
 * but no call decoded.
 */
static void expect_report(const char *path, bool decoded)
{
	char *calls[DM_CALLS];
	int n, pid;

	if (!decoded) {
		ASSERT_HAS_STR(file_read(path), "rtg_call:", "without the plugin, the events");
		ASSERT_NO_STR(file_read(path), "bpf_map_update_elem(", "but no call decoded");
		return;
	}
	n = report_calls(path, calls, DM_CALLS);
	/* the loader's: debug_maps looks itself up */
	pid = n > 0 && strstr(calls[0], " pid=") ? atoi(strstr(calls[0], " pid=") + 5) : 0;
	ASSERT_GT(pid, 0, "the task of each call");
	expect_map_calls(calls, n, true, pid);
}

/*
 * trace-cmd, as Debian ships it, records rtg_call raw and prints it with
 * libtraceevent: without the plugin make install puts in libtraceevent's
 * plugin directory it has only the event's fields; with it, each call as
 * the kernel's trace file shows it. trace-cmd record CMD turns tracing
 * off as soon as CMD exits: the exit writes the calls still batched.
 */
WITH_MODULE(test_debug_trace_cmd, "debug=all");
void test_debug_trace_cmd(void)
{
	int round;

	strace_stop();
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(WEXITSTATUS(system("trace-cmd record -e bpf_rtguard:rtg_call -o /tmp/rtg.dat "
					     "/rtg/rtgtest --demo debug_loader_quick > /tmp/rtg-record.txt 2>&1")),
			  0, "trace-cmd record CMD, round %d", round);
		system("trace-cmd report -i /tmp/rtg.dat > /tmp/rtg-report.txt 2>&1");
		expect_report("/tmp/rtg-report.txt", true);
	}
	system("trace-cmd report -N -i /tmp/rtg.dat > /tmp/rtg-raw.txt 2>&1");
	expect_report("/tmp/rtg-raw.txt", false);
	unlink("/tmp/rtg.dat");
}

#define TRACEFS "/sys/kernel/tracing"
#define TEP_PLUGINS "/usr/lib/x86_64-linux-gnu/traceevent/plugins"

/*
 * perf, as Debian ships it (6.1), prints a tracepoint through the
 * libtraceevent it carries, which loads plugins only from
 * TRACEEVENT_PLUGIN_DIR and ~/.local/lib/traceevent/plugins: pointed at
 * the directory make install puts the plugin in, perf script prints each
 * call as trace-cmd report does; without it, the event's fields.
 */
WITH_MODULE(test_debug_perf_script, "debug=all");
void test_debug_perf_script(void)
{
	strace_stop();
	if (!ASSERT_EQ(WEXITSTATUS(system("perf record -q -N -B -a -e bpf_rtguard:rtg_call "
					  "-o /tmp/rtg.perf /rtg/rtgtest --demo debug_loader_quick "
					  "> /tmp/rtg-record.txt 2>&1")),
		       0, "perf record CMD"))
		printf("%s", file_read("/tmp/rtg-record.txt"));
	system("TRACEEVENT_PLUGIN_DIR=" TEP_PLUGINS " perf script -i /tmp/rtg.perf "
	       "> /tmp/rtg-report.txt 2>&1");
	expect_report("/tmp/rtg-report.txt", true);
	system("TRACEEVENT_PLUGIN_DIR=/nonexistent perf script -i /tmp/rtg.perf "
	       "> /tmp/rtg-raw.txt 2>&1");
	expect_report("/tmp/rtg-raw.txt", false);
	unlink("/tmp/rtg.perf");
}

/* rtg-strace -- CMD: the loader below, run by rtg-strace */
void demo_debug_loader(void)
{
	struct debugmaps_bpf *skel = load_maps(false);

	if (!skel)
		return;
	printf("loader: prog %u\n", prog_id_of(skel->progs.debug_maps));
	ASSERT_EQ(run_prog(skel->progs.debug_maps), 0, "run debug_maps");
	/* a program the test process loads meanwhile is not traced */
	usleep(500000);
	debugmaps_bpf__destroy(skel);
}

/* ... and one that unloads its program at once */
void demo_debug_loader_quick(void)
{
	struct debugmaps_bpf *skel = load_maps(false);

	if (!skel)
		return;
	ASSERT_EQ(run_prog(skel->progs.debug_maps), 0, "run debug_maps");
	debugmaps_bpf__destroy(skel);
}

/* The number of trace lines of rtg-strace's output naming program name. */
static int out_calls(const char *name, char *loader_line, size_t len)
{
	char l[2048], want[64];
	int n = 0;
	FILE *f = fopen("/tmp/strace.out", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "] %s+", name);
	loader_line[0] = 0;
	while (fgets(l, sizeof(l), f)) {
		n += !!strstr(l, want);
		if (!strncmp(l, "loader: prog ", 13)) {
			strncpy(loader_line, l, len - 1);
			loader_line[len - 1] = 0;
		}
	}
	fclose(f);
	return n;
}

WITH_MODULE(test_debug_command, "debug=flag");
void test_debug_command(void)
{
	struct debugmaps_bpf *own = NULL;
	char err[512], line[64], args[128];
	pid_t pid;
	int st;

	if (test__start_subtest("loader")) {
		/* the test's own program, loaded while the loader runs */
		pid = fork();
		if (!pid) {
			usleep(200000);
			own = load_maps(false);
			if (own) {
				run_prog(own->progs.debug_maps);
				usleep(600000);
				debugmaps_bpf__destroy(own);
			}
			_exit(0);
		}
		st = strace_status("-- /rtg/rtgtest --demo debug_loader", err, sizeof(err));
		waitpid(pid, NULL, 0);
		ASSERT_EQ(st, 0, "rtg-strace's status is the loader's");
		ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), DM_CALLS,
			  "calls traced: the loader's one run, not the other process's");
		ASSERT_PREFIX(line, "loader: prog ", "the loader ran under rtg-strace");
		ASSERT_PREFIX(err, "rtg-strace: 14 calls, 0 records lost", "rtg-strace's count");
	}
	if (test__start_subtest("orphan")) {
		/*
		 * the loader's parent exits at once (a daemon's double fork):
		 * it is reparented to rtg-strace, its subreaper, and stays traced
		 */
		st = strace_status("-- sh -c '(/rtg/rtgtest --demo debug_loader_quick &); sleep 2'",
				   err, sizeof(err));
		ASSERT_EQ(st, 0, "rtg-strace's status is the command's");
		ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), DM_CALLS,
			  "calls of the reparented loader");
	}
	if (test__start_subtest("quick_loader")) {
		/* freed before rtg-strace looked: its sites stay listed */
		st = strace_status("-- /rtg/rtgtest --demo debug_loader_quick", err, sizeof(err));
		ASSERT_EQ(st, 0, "rtg-strace's status is the loader's");
		ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), DM_CALLS,
			  "calls of a program freed before rtg-strace read them, named");
	}
	if (test__start_subtest("graph")) {
		/*
		 * -g with a command: runs recorded while it runs (debugfs
		 * trace_runs held open), the parameter left as it is
		 */
		char val[8] = "";

		st = strace_status("-g -- /rtg/rtgtest --demo debug_loader_quick", err, sizeof(err));
		ASSERT_EQ(st, 0, "rtg-strace's status is the loader's");
		ASSERT_HAS_STR(file_read("/tmp/strace.out"), "debug_maps() {",
			       "the loader's run, recorded");
		ASSERT_NO_STR(file_read("/tmp/strace.err"), "no run was recorded", "no note");
		ASSERT_OK(param_read("trace_runs", val, sizeof(val)), "trace_runs");
		ASSERT_STREQ(val, "N", "the trace_runs parameter left off");
	}
	if (test__start_subtest("pid")) {
		/* -P: a running process's programs from now on */
		char want[16], c = 'x';
		FILE *p = NULL;
		int go[2], i;

		if (!ASSERT_OK(pipe(go), "pipe"))
			goto pid_out;
		pid = fork();
		if (!pid) {
			close(go[1]);
			if (read(go[0], &c, 1) == 1) {
				own = load_maps(false);
				if (own) {
					run_prog(own->progs.debug_maps);
					debugmaps_bpf__destroy(own);
				}
			}
			_exit(0);
		}
		close(go[0]);
		snprintf(args, sizeof(args), STRACE " -P %d -t 30 >/tmp/strace.out 2>/tmp/strace.err; echo $?", pid);
		p = popen(args, "r");
		/* rtg-strace has told the kernel when trace_tasks lists the pid */
		snprintf(want, sizeof(want), "%d\n", pid);
		for (i = 0; i < 100 && !strstr(file_read(TRACE_TASKS), want); i++)
			usleep(50000);
		ASSERT_LT(i, 100, "trace_tasks lists the process");
		ASSERT_EQ(write(go[1], &c, 1), 1, "let the process load its program");
		close(go[1]);
		waitpid(pid, NULL, 0);
		st = p && fscanf(p, "%d", &st) == 1 ? st : -1;
		ASSERT_EQ(st, 0, "rtg-strace -P ends when the process does");
		ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), DM_CALLS,
			  "calls of the program the process loaded");
		ASSERT_STREQ(file_read(TRACE_TASKS), "", "closed: no process traced");
pid_out:
		if (p)
			pclose(p);
	}
	if (test__start_subtest("own_buffer")) {
		/*
		 * rtg-strace -- CMD reads a trace instance of its own: the
		 * top-level buffer, its events, size and event switch are
		 * left to other readers
		 */
		char size[32];

		snprintf(size, sizeof(size), "%s", file_read(TRACEFS "/buffer_size_kb"));
		ASSERT_OK(system("echo rtg-own-buffer-marker > " TRACEFS "/trace_marker"),
			  "write a marker into the top-level buffer");
		st = strace_status("-- /rtg/rtgtest --demo debug_loader_quick", err, sizeof(err));
		ASSERT_EQ(st, 0, "rtg-strace's status is the loader's");
		ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), DM_CALLS, "calls traced");
		ASSERT_HAS_STR(file_read(TRACEFS "/trace"), "rtg-own-buffer-marker",
			       "the top-level buffer's events are not consumed");
		ASSERT_STREQ(file_read(TRACEFS "/events/bpf_rtguard/rtg_call/enable"), "0\n",
			     "the top-level event stays off");
		ASSERT_STREQ(file_read(TRACEFS "/buffer_size_kb"), size,
			     "the top-level buffer keeps its size");
		ASSERT_NE(system("ls -d " TRACEFS "/instances/rtg-strace* 2>/dev/null"), 0,
			  "rtg-strace's instance is gone");
		write_file(TRACEFS "/trace", "");
	}
	if (test__start_subtest("status")) {
		st = strace_status("-- /bin/sh -c 'exit 7'", err, sizeof(err));
		ASSERT_EQ(st, 7, "rtg-strace exits with the command's status");
		st = strace_status("-- /no/such/command", err, sizeof(err));
		ASSERT_EQ(st, 127, "a command that cannot run");
		ASSERT_STREQ(err, "rtg-strace: /no/such/command: No such file or directory",
			     "and why");
	}
	if (test__start_subtest("not_after_exit")) {
		/* the tree is traced only while rtg-strace runs */
		own = load_maps(false);
		if (own) {
			ASSERT_OK(strace_start(), "enable the trace event");
			ASSERT_EQ(run_prog(own->progs.debug_maps), 0, "run");
			st = strace_status("", err, sizeof(err));
			ASSERT_EQ(out_calls("debug_maps", line, sizeof(line)), 0,
				  "calls of a program loaded after rtg-strace exited");
			strace_stop();
			debugmaps_bpf__destroy(own);
		}
	}
}

/* What rtg-strace says about bad input, and its status. */
static void expect_refused(const char *args, int status, const char *msg)
{
	char err[512];
	int st = strace_status(args, err, sizeof(err));

	printf("  rtg-strace %s: %d, %s\n", args, st, err);
	ASSERT_EQ(st, status, "status of rtg-strace %s", args);
	ASSERT_PREFIX(err, msg, "message of rtg-strace %s", args);
}

WITH_MODULE(test_debug_bad_input, "debug=flag");
void test_debug_bad_input(void)
{
	struct debugmode_bpf *skel = debugmode_bpf__open_and_load();
	char args[64], want[160];
	int i;

	if (!ASSERT_OK_PTR(skel, "load debugmode"))
		return;
	expect_refused("-p 999999", 1, "rtg-strace: -p 999999: no such program");
	/* loaded without the flag: not in debug mode, cannot become so */
	snprintf(args, sizeof(args), "-p %u", prog_id_of(skel->progs.debug_other));
	snprintf(want, sizeof(want), "rtg-strace: -p %u: program debug_other is not in debug mode; a loaded program cannot be re-JITed",
		 prog_id_of(skel->progs.debug_other));
	expect_refused(args, 1, want);
	expect_refused("-e no_such_function_at_all", 1,
		       "rtg-strace: -e no_such_function_at_all: no helper, kfunc or kernel function of that name");
	expect_refused("-e bpf_map_lookup_elem -c", 0, "rtg-strace: ");
	expect_refused("-P 999999", 1, "rtg-strace: -P 999999: no such process");
	expect_refused("-t x", 2, "rtg-strace: -t x: not a number of seconds");
	expect_refused("-j -c", 2, "rtg-strace: -j, -c and -g do not go together");
	expect_refused("--help", 0, "");
	ASSERT_HAS_STR(file_read("/tmp/strace.out"), "-- CMD", "--help names the command form");

	if (test__start_subtest("tracefs_unmounted")) {
		if (ASSERT_OK(umount("/sys/kernel/tracing"), "umount tracefs")) {
			expect_refused("", 1, "rtg-strace: tracefs is not mounted on /sys/kernel/tracing");
			ASSERT_OK(mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL),
				  "mount tracefs again");
		}
	}
	if (test__start_subtest("buffer_overflow")) {
		/* one page per CPU holds 50 calls: 28,000 do not fit */
		struct debugmaps_bpf *maps = load_maps(true);

		ASSERT_OK(strace_start(), "enable the trace event");
		ASSERT_OK(write_file("/sys/kernel/tracing/buffer_size_kb", "4"), "a small buffer");
		for (i = 0; maps && i < 2000; i++)
			if (run_prog(maps->progs.debug_maps))
				break;
		ASSERT_EQ(i, 2000, "runs");
		debugmaps_bpf__destroy(maps);
		expect_refused("-c", 3, "rtg-strace: ");
		ASSERT_HAS_STR(file_read("/tmp/strace.err"), "dropped by the trace buffer",
			       "how many records the buffer dropped");
		strace_stop();
		write_file("/sys/kernel/tracing/buffer_size_kb", "8192");
	}
	debugmode_bpf__destroy(skel);
}

/* The module absent: one line that says so. */
void test_debug_no_module(void)
{
	if (!ASSERT_FALSE(mod_loaded(MOD_RTGUARD), "bpf_rtguard not loaded"))
		return;
	expect_refused("", 1, "rtg-strace: bpf_rtguard is not loaded");
	expect_refused("-- /bin/true", 1, "rtg-strace: bpf_rtguard is not loaded");
}

/* make install put the module, rtg-strace and the plugin where a user finds them. */
void test_debug_installed(void)
{
	struct utsname u;
	char path[256];

	ASSERT_OK(uname(&u), "uname");
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/bpf_rtguard.ko", u.release);
	ASSERT_OK(access(path, R_OK), "the module at %s", path);
	ASSERT_EQ(WEXITSTATUS(system("rtg-strace --help | grep -q -- '-- CMD'")), 0,
		  "rtg-strace in PATH, with its usage");
	ASSERT_OK(access(TEP_PLUGINS "/plugin_bpf_rtguard.so", R_OK),
		  "the plugin in libtraceevent's directory");
}
