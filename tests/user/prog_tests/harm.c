// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stop, or a throw, never harms the kernel (harm.bpf.c): each test is a
 * program shape that once oopsed the guest or leaked, run the way a user
 * would. The kernel log of the boot is checked by the host: an oops, a
 * WARNING or a lockdep report there fails the run.
 */
#define _GNU_SOURCE
#include <sys/resource.h>
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

	if (!ASSERT_OK(held_find(prog_id_of(prog), &h), "%s in held", bpf_program__name(prog)))
		return;
	ASSERT_EQ(h.stops, 1, "%s: stops", bpf_program__name(prog));
	ASSERT_EQ(h.nruns, 0, "%s: runs left", bpf_program__name(prog));
	ASSERT_TRUE(dmesg_has(how), "'%s' in dmesg", how);
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
	ASSERT_TRUE(dmesg_has("fast-executed, released by the program"), "fast-executed");
	harm_bpf__destroy(skel);
	expect_task_refs(refs0, "after five fast-executed stops");
}

/* An fmod_ret program on security_task_setnice() that denies, stopped, still denies. */
WITH_MODULE(test_harm_fmod_ret, "track=1 watchdog_ms=100");
void test_harm_fmod_ret(void)
{
	struct harm_bpf *skel = harm_load("harm_fmod_setnice");
	static struct rtg_held h;
	struct bpf_link *link;
	int ret, err;

	if (!skel)
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_fmod_setnice), &h), "in held")) {
		ASSERT_EQ(h.stoppable, 1, "stoppable");
		ASSERT_EQ(h.stop_ret, -EPERM, "stop value");
	}
	link = bpf_program__attach(skel->progs.harm_fmod_setnice);
	if (ASSERT_OK_PTR(link, "attach fmod_ret/security_task_setnice")) {
		ret = setpriority(PRIO_PROCESS, 0, 1);
		err = errno;
		ASSERT_EQ(ret, -1, "setpriority while the program is stopped");
		ASSERT_EQ(err, EPERM, "errno of setpriority");
		ASSERT_EQ(skel->bss->fmod_runs, 1, "runs of the fmod_ret program");
		expect_stopped(skel->progs.harm_fmod_setnice, "released and unwound");
		bpf_link__destroy(link);
	}
	harm_bpf__destroy(skel);
}

/* A program whose helper call is the enforcement is reported, never stopped. */
WITH_MODULE(test_harm_verdict_helper, "track=1 watchdog_ms=100");
void test_harm_verdict_helper(void)
{
	struct harm_bpf *skel = harm_load("harm_send_signal");
	static struct rtg_held h;

	if (!skel)
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.harm_send_signal), &h), "in held"))
		ASSERT_EQ(h.stoppable, 0, "a bpf_send_signal() caller stoppable");
	harm_bpf__destroy(skel);
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
