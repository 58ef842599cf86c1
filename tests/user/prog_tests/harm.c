// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stop, or a throw, never harms the kernel (harm.bpf.c): each test is a
 * program shape that once oopsed the guest or leaked, run the way a user
 * would. The kernel log of the boot is checked by the host: an oops, a
 * WARNING or a lockdep report there fails the run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "harm.skel.h"

static struct harm_bpf *harm_load(const char *only)
{
	struct harm_bpf *skel = harm_bpf__open();
	struct bpf_program *p;

	if (!ASSERT_OK_PTR(skel, "open harm"))
		return NULL;
	skel->bss->target_pid = getpid();
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, strstr(only, bpf_program__name(p)) != NULL);
	if (ASSERT_OK(harm_bpf__load(skel), "load harm (%s)", only))
		return skel;
	harm_bpf__destroy(skel);
	return NULL;
}

/* This task's BPF-visible references (rcu_users) come back to @want. */
static void expect_task_refs(uint64_t want, const char *what)
{
	uint64_t now = 0;
	int i;

	/* maps and programs are freed after a grace period and a work item */
	for (i = 0; i < 50; i++) {
		if (testmod_task_usage(getpid(), &now) == 0 && now == want)
			break;
		usleep(100 * 1000);
	}
	ASSERT_EQ(now, want, "task references %s", what);
}

static void expect_stopped(struct bpf_program *prog, const char *how)
{
	static struct rtg_held h;
	const char *line, *eol;
	char head[64];

	if (!ASSERT_OK(held_find(prog_id_of(prog), &h), "%s in held", bpf_program__name(prog)))
		return;
	ASSERT_EQ(h.stops, 1, "%s: stops", bpf_program__name(prog));
	ASSERT_EQ(h.nruns, 0, "%s: runs left", bpf_program__name(prog));
	/* the program's own stop line says how it ended */
	snprintf(head, sizeof(head), "stopped prog %u ", prog_id_of(prog));
	line = strstr(dmesg_read(), head);
	eol = line ? strchrnul(line, '\n') : NULL;
	if (ASSERT_TRUE(line, "'%s' in dmesg", head))
		ASSERT_TRUE(memmem(line, eol - line, how, strlen(how)),
			    "%s: '%s' in '%.*s'", bpf_program__name(prog), how,
			    (int)(eol - line), line);
}

/*
 * bpf_throw() from a program whose calls are traced: the exception
 * callback gives the caller back its callee-saved registers whatever the
 * traced call pushed around itself. Twice: a caller that kept a pointer
 * in one (bpf_test_run()) oopsed on the second run.
 */
static void throw_twice(void)
{
	struct harm_bpf *skel;
	int i;

	if (!ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_call", true), "enable rtg_call"))
		return;
	skel = harm_load("harm_throw");
	for (i = 0; skel && i < 2; i++)
		ASSERT_EQ(run_prog(skel->progs.harm_throw), 64, "run %d: the cookie", i);
	harm_bpf__destroy(skel);
	trace_event_enable("bpf_rtguard/rtg_call", false);
}

WITH_MODULE(test_harm_throw_traced, "debug=all");
void test_harm_throw_traced(void)
{
	throw_twice();
}

WITH_MODULE(test_harm_throw_tracked, "track=1 debug=all");
void test_harm_throw_tracked(void)
{
	throw_twice();
}

/*
 * A stop inside a bpf_loop() callback unwinds across bpf_loop(), whose
 * call in the main frame is traced: the caller's registers, and the
 * task reference the run held, come back.
 */
WITH_MODULE(test_harm_loop_cb_traced, "track=1 debug=all watchdog_ms=200");
void test_harm_loop_cb_traced(void)
{
	struct harm_bpf *skel;
	uint64_t refs0 = 0;

	if (!ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references") ||
	    !ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_call", true), "enable rtg_call"))
		return;
	skel = harm_load("harm_loop_cb");
	if (skel) {
		ASSERT_EQ(run_prog(skel->progs.harm_loop_cb), -ETIMEDOUT, "harm_loop_cb's return");
		ASSERT_EQ(run_prog(skel->progs.harm_loop_cb), -ETIMEDOUT, "again");
		expect_task_refs(refs0, "after two stops");
	}
	harm_bpf__destroy(skel);
	trace_event_enable("bpf_rtguard/rtg_call", false);
}

/*
 * A stop unwinds a program whose main frame saved only the callee-saved
 * registers it uses: its caller (rtg_testmod's rtg_test_run_keeping(),
 * which keeps values of its own in every one of them and in rbp) gets
 * each back, whether the stop lands in the main frame or in a function
 * whose frame saved what the main one did not, and what the run held
 * comes back too. A program that calls bpf_loop() keeps a main frame
 * that saves them all: a stop in the callback crosses bpf_loop()'s frame.
 */
static void keep_regs(const char *name)
{
	static const char *const regs[] = { "rbx", "r12", "r13", "r14", "r15", "rbp" };
	struct harm_bpf *skel;
	struct bpf_program *prog;
	uint64_t refs0 = 0;
	char only[64];
	int i;

	if (!ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references"))
		return;
	snprintf(only, sizeof(only), "%s harm_keep_caller", name);
	skel = harm_load(only);
	if (!skel)
		return;
	prog = bpf_object__find_program_by_name(skel->obj, name);
	skel->bss->keep_fd = bpf_program__fd(prog);
	for (i = 0; i < 6; i++)
		skel->bss->keep_diff[i] = ~0ULL;
	ASSERT_EQ(run_prog(skel->progs.harm_keep_caller), 0, "%s: the caller's run", name);
	ASSERT_EQ(skel->bss->keep_ret, -ETIMEDOUT, "%s: stopped", name);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(skel->bss->keep_diff[i], 0, "%s: the caller's %s (xor its value)",
			  name, regs[i]);
	expect_stopped(prog, "released and unwound");
	harm_bpf__destroy(skel);
	expect_task_refs(refs0, name);
}

WITH_MODULE(test_harm_stop_keeps_regs, "track=1 watchdog_ms=50");
void test_harm_stop_keeps_regs(void)
{
	if (test__start_subtest("main"))
		keep_regs("harm_keep_main");
	if (test__start_subtest("sub"))
		keep_regs("harm_keep_sub");
	if (test__start_subtest("sub_ref"))
		keep_regs("harm_keep_sub_ref");
	if (test__start_subtest("loop"))
		keep_regs("harm_keep_loop");
}

#define FG_DIR "/sys/kernel/tracing/instances/rtg_fgraph"
#define KPROBE_EVENTS "/sys/kernel/tracing/kprobe_events"

/* Whether a line of the trace file at @path has @needle. */
static bool trace_has(const char *path, const char *needle)
{
	static char line[4096];
	FILE *f = fopen(path, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, needle);
	if (f)
		fclose(f);
	return found;
}

/*
 * The callers, what an exception leaves, and the stop's own functions
 * (but rtg_pre(), which check_held calls before every call: the
 * kretprobe hooks it)
 */
static const char *const fg_funcs[] = {
	"__sys_bpf\n", "bpf_prog_test_run_skb\n", "bpf_prog_test_run_syscall\n",
	"bpf_throw\n", "bpf_loop\n", "rtg_run_stop\n", "bpf_call_hook_unwind\n",
};

static void return_hooks_off(void)
{
	write_file(FG_DIR "/current_tracer", "nop");
	write_file(FG_DIR "/events/kprobes/enable", "0");
	append_file(KPROBE_EVENTS, "-:rtg_fg_pre\n");
	rmdir(FG_DIR);
}

/*
 * A throw, and a stop that unwinds across bpf_loop(), under the function
 * graph tracer and a kretprobe on the stop's entry: both hook the return
 * of a function by its return address, and keep the real one aside until
 * it returns. The
 * frames an exception leaves never return: what was kept for them goes
 * with them, and the traced functions that return afterwards (__sys_bpf()
 * first) return to their own callers.
 */
WITH_MODULE(test_harm_return_hooks, "track=1 watchdog_ms=200");
void test_harm_return_hooks(void)
{
	struct harm_bpf *skel;
	uint64_t refs0 = 0;
	int i;

	if (!ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references"))
		return;
	skel = harm_load("harm_throw harm_loop_cb");
	if (!skel)
		return;
	if (!ASSERT_OK(mkdir(FG_DIR, 0750), "trace instance"))
		goto out;
	/* one function a write: the filter takes one name at a time */
	for (i = 0; i < (int)(sizeof(fg_funcs) / sizeof(fg_funcs[0])); i++)
		if (!ASSERT_OK(append_file(FG_DIR "/set_ftrace_filter", fg_funcs[i]),
			       "function filter: %s", fg_funcs[i]))
			goto out;
	if (!ASSERT_OK(write_file(FG_DIR "/current_tracer", "function_graph"), "function_graph") ||
	    !ASSERT_OK(append_file(KPROBE_EVENTS, "r:rtg_fg_pre rtg_pre\n"), "kretprobe on rtg_pre") ||
	    /* hooked, its events dropped: they would push the graph out */
	    !ASSERT_OK(write_file(FG_DIR "/events/kprobes/rtg_fg_pre/filter", "common_pid == 0"),
		       "the kretprobe's filter") ||
	    !ASSERT_OK(write_file(FG_DIR "/events/kprobes/enable", "1"), "enable the kretprobe"))
		goto out;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(run_prog(skel->progs.harm_throw), 64, "throw %d: the cookie", i);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(run_prog(skel->progs.harm_loop_cb), -ETIMEDOUT, "stop %d", i);
	/* traced returns after the exceptions: each to its own caller */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(run_prog(skel->progs.harm_throw), 64, "throw %d after", i);
	expect_task_refs(refs0, "after the stops");
	/* the kretprobe stayed on (its hits count returns: not the stops') */
	ASSERT_STREQ(file_read(FG_DIR "/events/kprobes/rtg_fg_pre/enable"), "1\n",
		     "the kretprobe on rtg_pre() on");
	write_file(FG_DIR "/tracing_on", "0");
	ASSERT_TRUE(trace_has(FG_DIR "/trace", "__sys_bpf() {"), "function_graph traced the callers");
	ASSERT_TRUE(trace_has(FG_DIR "/trace", "bpf_throw() {"), "and bpf_throw()");
	ASSERT_TRUE(trace_has(FG_DIR "/trace", "bpf_loop()"), "and bpf_loop()");
	ASSERT_TRUE(trace_has(FG_DIR "/trace", "bpf_call_hook_unwind()"), "and the stops' unwind");
out:
	return_hooks_off();
	harm_bpf__destroy(skel);
}

/*
 * The leak check itself: a task reference a map holds shows in it, and
 * is gone once the map is.
 */
WITH_MODULE(test_harm_leak_check, "track=1");
void test_harm_leak_check(void)
{
	struct harm_bpf *skel = harm_load("harm_stash_one");
	uint64_t refs0 = 0, refs1 = 0;

	if (!skel)
		return;
	ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references");
	ASSERT_EQ(run_prog(skel->progs.harm_stash_one), 0, "harm_stash_one's return");
	ASSERT_OK(testmod_task_usage(getpid(), &refs1), "task references");
	ASSERT_EQ(refs1, refs0 + 1, "task references while the map holds one");
	harm_bpf__destroy(skel);
	expect_task_refs(refs0, "once the map is freed");
}

/*
 * Fast-execute never skips bpf_kptr_xchg(): skipped, it would return NULL
 * while the verifier already counted its argument as the map's, and the
 * task reference would belong to no one.
 */
WITH_MODULE(test_harm_kptr_xchg_fast, "track=1 watchdog_ms=100");
void test_harm_kptr_xchg_fast(void)
{
	static struct rtg_call_site sites[256];
	struct harm_bpf *skel = harm_load("harm_xchg");
	uint64_t refs0 = 0;
	int i, n;

	if (!skel)
		return;
	n = calls_read(sites, 256);
	for (i = 0; i < n; i++)
		if (sites[i].prog_id == prog_id_of(skel->progs.harm_xchg) &&
		    !strcmp(sites[i].func, "bpf_kptr_xchg"))
			ASSERT_EQ(sites[i].may_fail, 0, "bpf_kptr_xchg at insn %u skipped", sites[i].insn);
	ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references");
	for (i = 0; i < 5; i++)
		ASSERT_EQ(run_prog(skel->progs.harm_xchg), -ETIMEDOUT, "run %d's return", i);
	ASSERT_HAS_STR(stop_line(skel->progs.harm_xchg), "fast-executed, released by the program",
		       "how the last stop ended");
	harm_bpf__destroy(skel);
	expect_task_refs(refs0, "after five fast-executed stops");
}

/*
 * A program with its own exception callback is tracked and stopped, and
 * returns the stop value, not what its callback makes of a throw.
 */
WITH_MODULE(test_harm_custom_exception_cb, "track=1 watchdog_ms=100");
void test_harm_custom_exception_cb(void)
{
	struct harm_bpf *skel = harm_load("harm_custom_cb");
	static struct rtg_held h;

	if (!skel)
		return;
	skel->data->outer = 100000;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_custom_cb), &h), "in held")) {
		ASSERT_EQ(h.stoppable, 1, "stoppable");
		ASSERT_EQ(h.unwind, 0, "unwound by the watchdog");
	} else {
		printf("%s", file_read("/sys/kernel/debug/bpf_rtguard/progs"));
	}
	ASSERT_EQ(run_prog(skel->progs.harm_custom_cb), -ETIMEDOUT, "harm_custom_cb's return");
	expect_stopped(skel->progs.harm_custom_cb, "fast-executed, released by the program");
	harm_bpf__destroy(skel);
}

/*
 * A socket filter's result picks a socket of a reuseport group: no stop
 * value denies there, so once attached the program is not stoppable.
 */
WITH_MODULE(test_harm_reuseport_index, "track=1 watchdog_ms=100");
void test_harm_reuseport_index(void)
{
	struct harm_bpf *skel = harm_load("harm_reuseport_pick");
	struct bpf_program *prog;
	static struct rtg_held h;
	int fd, one = 1, pfd;

	if (!skel)
		return;
	prog = skel->progs.harm_reuseport_pick;
	pfd = bpf_program__fd(prog);
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		ASSERT_EQ(h.stoppable, 1, "stoppable before it is attached");
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (ASSERT_GE(fd, 0, "socket")) {
		ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)),
			  "SO_REUSEPORT");
		ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &pfd, sizeof(pfd)),
			  "SO_ATTACH_REUSEPORT_EBPF");
		if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
			ASSERT_EQ(h.stoppable, 0, "stoppable once a reuseport group reads it");
		close(fd);
	}
	harm_bpf__destroy(skel);
}

/*
 * harm_many_refs stopped: all twenty task references released by the
 * description of the call it stopped at, and the run unwound.
 */
static void many_refs_stopped(struct harm_bpf *skel)
{
	uint64_t refs0 = 0, described0 = 0, described = 0;

	ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references");
	ASSERT_OK(stat_read("stops_described", &described0), "stats stops_described");
	ASSERT_EQ(run_prog(skel->progs.harm_many_refs), -ETIMEDOUT, "harm_many_refs's return");
	expect_stopped(skel->progs.harm_many_refs, "released and unwound");
	ASSERT_OK(stat_read("stops_described", &described), "stats stops_described");
	ASSERT_EQ(described, described0 + 1, "released by the description");
	expect_task_refs(refs0, "after the stop");
}

/*
 * A run's table is capped (its area is part of the run's stack): a run
 * holding more than fits is incomplete, so its table cannot be released.
 * The verifier's description of the call it stops at names all twenty
 * references (and the rest): the stop releases them and unwinds.
 */
WITH_MODULE(test_harm_table_cap, "track=1 watchdog_ms=100 check_held=1");
void test_harm_table_cap(void)
{
	struct harm_bpf *skel = harm_load("harm_many_refs");
	static struct rtg_held h;

	if (!skel)
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_many_refs), &h), "in held")) {
		ASSERT_EQ(h.slots, 19u, "slots of a 512-byte run area");
		ASSERT_EQ(h.run_area, 512u, "run area");
	}
	many_refs_stopped(skel);
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_many_refs), &h), "in held"))
		ASSERT_EQ(h.incomplete, 1L, "incomplete runs");
	harm_bpf__destroy(skel);
}

/*
 * The same program, described and bare (loaded with the events off):
 * its runs are lazy and keep 8 bytes of their frame, their records room
 * for a sample of four resources only, and the stop releases all twenty
 * by the description. Loaded with rtg_release on, it is not bare, its
 * runs are current from their entry and keep the whole area. Loaded with
 * bpf_jit_harden=2 (no symbols: no lazy runs), its runs are current from
 * their entry with an area of 144 bytes, room for the sample.
 */
WITH_MODULE(test_harm_table_cap_described, "track=1 watchdog_ms=100 check_held=0 describe=1");
void test_harm_table_cap_described(void)
{
	struct harm_bpf *skel = harm_load("harm_many_refs"), *full = NULL;
	static struct rtg_held h;
	char old[16];

	if (!skel)
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_many_refs), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "described");
		ASSERT_EQ(h.bare, 1, "bare");
		ASSERT_EQ(h.slots, 4u, "slots of a bare described run");
		ASSERT_EQ(h.lazy, 1, "lazy");
		ASSERT_EQ(h.run_area, 8u, "run area of a lazy run");
	}
	many_refs_stopped(skel);
	if (ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_release", true), "rtg_release on"))
		full = harm_load("harm_many_refs");
	trace_event_enable("bpf_rtguard/rtg_release", false);
	if (full && ASSERT_OK(held_find(prog_id_of(full->progs.harm_many_refs), &h),
			      "in held, loaded with rtg_release on")) {
		ASSERT_EQ(h.bare, 0, "loaded with rtg_release on: not bare");
		ASSERT_EQ(h.slots, 19u, "loaded with rtg_release on: slots of 512 bytes");
		ASSERT_EQ(h.lazy, 0, "loaded with rtg_release on: not lazy");
		ASSERT_EQ(h.run_area, 512u, "loaded with rtg_release on: run area");
	}
	harm_bpf__destroy(full);
	full = NULL;
	if (ASSERT_OK(jit_harden_set(old, sizeof(old)), "bpf_jit_harden=2"))
		full = harm_load("harm_many_refs");
	write_file(JIT_HARDEN, old);
	if (full && ASSERT_OK(held_find(prog_id_of(full->progs.harm_many_refs), &h),
			      "in held, loaded with bpf_jit_harden=2")) {
		ASSERT_EQ(h.bare, 1, "hardened: bare");
		ASSERT_EQ(h.lazy, 0, "hardened: not lazy");
		ASSERT_EQ(h.run_area, 144u, "hardened: run area");
		ASSERT_EQ(h.slots, 4u, "hardened: slots");
	}
	harm_bpf__destroy(full);
	harm_bpf__destroy(skel);
}

/*
 * A record submitted through a dynptr clone is the consumer's: a stop of
 * the run must not discard it again through the original, which the
 * run's table still holds. The consumer sees it once, and a record fits
 * again.
 */
/*
 * cls_bpf without direct action reads a program's result as a class id
 * (patch 9 marks it when attached): such a program is stoppable until it
 * is attached that way, then not. One attached with direct action, on
 * the same hook, stays stoppable.
 */
WITH_MODULE(test_harm_cls_bpf_classid, "track=1 watchdog_ms=100");
void test_harm_cls_bpf_classid(void)
{
	struct harm_bpf *skel = harm_load("harm_classid,harm_tc_verdict");
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = 1, .attach_point = BPF_TC_INGRESS);
	struct bpf_program *classid, *verdict;
	static struct rtg_held h;

	if (!skel)
		return;
	classid = skel->progs.harm_classid;
	verdict = skel->progs.harm_tc_verdict;
	if (ASSERT_OK(held_find(prog_id_of(classid), &h), "harm_classid in held"))
		ASSERT_EQ(h.stoppable, 1, "harm_classid stoppable before it is attached");
	if (!ASSERT_OK(bpf_tc_hook_create(&hook), "clsact on lo"))
		goto out;
	ASSERT_OK(tc_attach_cls_bpf(1, bpf_program__fd(verdict), 1, true),
		  "attach harm_tc_verdict with direct action");
	ASSERT_OK(tc_attach_cls_bpf(1, bpf_program__fd(classid), 2, false),
		  "attach harm_classid without direct action");
	if (ASSERT_OK(held_find(prog_id_of(classid), &h), "harm_classid in held"))
		ASSERT_EQ(h.stoppable, 0, "harm_classid stoppable once its result is a class id");
	if (ASSERT_OK(held_find(prog_id_of(verdict), &h), "harm_tc_verdict in held"))
		ASSERT_EQ(h.stoppable, 1, "harm_tc_verdict stoppable with direct action");
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	ASSERT_OK(bpf_tc_hook_destroy(&hook), "remove clsact");
out:
	harm_bpf__destroy(skel);
}

/*
 * A dynptr and its clones stand for one ring buffer record, given back
 * through any of them (harm.bpf.c): each release matches the group, so
 * the table stays the truth, and a stop discards what is still reserved,
 * once.
 */
static void clone_stop(const char *prog, long records)
{
	struct harm_bpf *skel;
	struct bpf_program *p;
	char only[64];

	snprintf(only, sizeof(only), "%s,harm_clone_fits", prog);
	skel = harm_load(only);
	if (!skel)
		return;
	p = bpf_object__find_program_by_name(skel->obj, prog);
	/* seconds unstopped: a run that is not stopped fails, not hangs */
	skel->data->outer = 5000;
	ASSERT_EQ(run_prog(p), -ETIMEDOUT, "%s's return", prog);
	expect_stopped(p, "released and unwound");
	expect_clean(prog, prog_id_of(p));
	expect_ringbuf_after_stop(bpf_map__fd(skel->maps.clone_rb), records,
				  skel->progs.harm_clone_fits, prog);
	harm_bpf__destroy(skel);
}

/* submitted through a clone, then stopped: the record is delivered */
WITH_MODULE(test_harm_dynptr_clone, "track=1 watchdog_ms=100");
void test_harm_dynptr_clone(void)
{
	clone_stop("harm_dynptr_clone", 1);
}

/* stopped holding the record and two clones: it is discarded once */
WITH_MODULE(test_harm_clone_held, "track=1 watchdog_ms=100");
void test_harm_clone_held(void)
{
	clone_stop("harm_clone_held", 0);
}

/* holds are judged after a release through a clone */
WITH_MODULE(test_harm_clone_hold, "track=1 hold_limit_us=20000");
void test_harm_clone_hold(void)
{
	clone_stop("harm_clone_hold", 1);
}

/* the clone of a failed reservation's dynptr */
WITH_MODULE(test_harm_clone_null, "track=1 watchdog_ms=100");
void test_harm_clone_null(void)
{
	clone_stop("harm_clone_null", 0);
}

/*
 * Stops at random points: every CPU runs the shapes above over and over
 * with a 1 ms budget, so that runs end on their own or are stopped
 * wherever the watchdog finds them (in a bpf_loop() callback, a
 * bpf_for_each_map_elem() callback, around bpf_kptr_xchg(), holding
 * twenty references, with an exception callback of their own, holding
 * a ring buffer record and two clones of its dynptr). Every run returns
 * 0 or the stop value, each program's stopped runs are exactly its
 * stops, no task reference is left, and every record submitted (through
 * any dynptr of its group) is delivered once.
 */
#define STRESS_ROUNDS 60

static const char *const stress_progs[] = {
	"harm_loop_cb", "harm_xchg", "harm_many_refs", "harm_custom_cb", "harm_clone_stress",
};
#define NR_STRESS (sizeof(stress_progs) / sizeof(stress_progs[0]))

struct stress_thread {
	struct harm_bpf *skel;
	int cpu;
	long stopped[NR_STRESS], other;
};

static void *stress_thread(void *arg)
{
	struct stress_thread *st = arg;
	unsigned int i, round;

	pin_cpu(st->cpu);
	for (round = 0; round < STRESS_ROUNDS; round++) {
		for (i = 0; i < NR_STRESS; i++) {
			struct bpf_program *p =
				bpf_object__find_program_by_name(st->skel->obj, stress_progs[i]);
			int ret = run_prog(p);

			if (ret == -ETIMEDOUT)
				st->stopped[i]++;
			else if (ret != 0)
				st->other++;
		}
	}
	return NULL;
}

WITH_MODULE(test_harm_stress, "track=1 watchdog_ms=1");
void test_harm_stress(void)
{
	struct harm_bpf *skel = harm_load("harm_loop_cb,harm_xchg,harm_many_refs,harm_custom_cb,"
					  "harm_clone_stress");
	struct ring_buffer *rb;
	long records = 0;
	struct stress_thread st[16] = {};
	int ncpu = ncpus(), i, c;
	static struct rtg_held h;
	uint64_t refs0 = 0;
	long total = 0;

	if (!skel)
		return;
	if (ncpu > 16)
		ncpu = 16;
	/* runs of a few ms: some end on their own, some are stopped */
	skel->data->outer = 8;
	ASSERT_OK(testmod_task_usage(getpid(), &refs0), "task references");
	for (c = 0; c < ncpu; c++) {
		st[c].skel = skel;
		st[c].cpu = c;
	}
	{
		pthread_t th[16];

		for (c = 0; c < ncpu; c++)
			pthread_create(&th[c], NULL, stress_thread, &st[c]);
		for (c = 0; c < ncpu; c++)
			pthread_join(th[c], NULL);
	}
	for (i = 0; i < (int)NR_STRESS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, stress_progs[i]);
		long stopped = 0;

		for (c = 0; c < ncpu; c++)
			stopped += st[c].stopped[i];
		total += stopped;
		if (ASSERT_OK(held_find(prog_id_of(p), &h), "%s in held", stress_progs[i])) {
			ASSERT_EQ(h.stops, stopped, "%s: stops, and runs that returned -ETIMEDOUT",
				  stress_progs[i]);
			ASSERT_EQ(h.nruns, 0, "%s: runs left", stress_progs[i]);
			ASSERT_EQ(h.unmatched, 0L, "%s: unmatched releases", stress_progs[i]);
		}
		printf("  %s: %ld of %d runs stopped\n", stress_progs[i], stopped,
		       ncpu * STRESS_ROUNDS);
	}
	for (c = 0; c < ncpu; c++)
		ASSERT_EQ(st[c].other, 0L, "CPU %d: runs that returned neither 0 nor the stop value", c);
	ASSERT_GT(total, 0L, "stopped runs");
	/* every record submitted is delivered once; none is left reserved */
	rb = ring_buffer__new(bpf_map__fd(skel->maps.stress_rb), ringbuf_count_record,
			      &records, NULL);
	if (ASSERT_OK_PTR(rb, "ring_buffer__new")) {
		ring_buffer__consume(rb);
		ASSERT_EQ(records, (long)skel->bss->stress_submits, "records consumed, records submitted");
		ASSERT_GT(records, 0L, "records submitted");
		ring_buffer__free(rb);
	}
	harm_bpf__destroy(skel);
	expect_task_refs(refs0, "after the stress");
}
