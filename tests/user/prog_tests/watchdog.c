// SPDX-License-Identifier: GPL-2.0-only
/*
 * Watchdog on watchdog.bpf.c: runaway programs are stopped within the
 * budget, everything they held is released exactly once, and they return
 * the documented value; programs that behave, or run with the watchdog
 * off, are untouched.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "watchdog.skel.h"

#define STOP_MARGIN_MS 3000	/* TCG: detection, unwinding, a slow guest */

static struct watchdog_bpf *wd_load(void)
{
	struct watchdog_bpf *skel = watchdog_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open watchdog"))
		return NULL;
	skel->bss->target_pid = getpid();
	if (ASSERT_OK(watchdog_bpf__load(skel), "load watchdog"))
		return skel;
	watchdog_bpf__destroy(skel);
	return NULL;
}

static uint64_t wd_stat(const char *name)
{
	uint64_t n = 0;

	ASSERT_OK(stat_read(name, &n), "stats: %s", name);
	return n;
}

/*
 * Run prog and expect a stop: within budget + margin, the return value
 * want, released things given back (-1: not counted), nothing left, live
 * objects as before, and a dmesg line saying how.
 */
static void expect_stop(struct bpf_program *prog, int budget_ms, int want,
			long released, const char *how)
{
	const char *name = bpf_program__name(prog);
	uint32_t id = prog_id_of(prog);
	uint64_t live0 = 0, live1 = 1;
	static struct rtg_held h;
	double ms;
	int ret;

	ASSERT_OK(testmod_live(&live0), "live objects");
	ret = run_prog_timed(prog, &ms);
	printf("  %s: returned %d after %.0f ms\n", name, ret, ms);
	ASSERT_EQ(ret, want, "%s's return", name);
	ASSERT_LT(ms, budget_ms + STOP_MARGIN_MS, "%s: ms to the stop", name);
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the stop");
	if (ASSERT_OK(held_find(id, &h), "%s in held", name)) {
		ASSERT_EQ(h.stops, 1, "%s: stops", name);
		/* between two inner loops the inner iterator is not held */
		if (released >= 0) {
			ASSERT_LE(h.released, released, "%s: released", name);
			ASSERT_GE(h.released, released - 1,
				  "%s: released (one less between inner loops)", name);
		}
		ASSERT_EQ(h.nruns, 0, "%s: runs left after the stop", name);
		ASSERT_EQ(h.unmatched, 0, "%s: unmatched releases", name);
		ASSERT_EQ(h.incomplete, 0L, "%s: incomplete runs", name);
	}
	ASSERT_HAS_STR(stop_line(prog), how, "how the stop of %s ended", name);
}

/*
 * The programs the watchdog stops, one row each, run alone on a program
 * object of their own with watchdog_ms=200: what the stop gives back, and
 * what a row checks before and after.
 */
struct wd_stop {
	const char *prog;
	long released;		/* given back by the stop; -1: not counted */
	bool described;		/* the verifier describes it completely */
	void (*before)(struct watchdog_bpf *skel);
	void (*after)(struct watchdog_bpf *skel);
};

static uint64_t wd_usage0;

static void wd_task_before(struct watchdog_bpf *skel)
{
	ASSERT_OK(testmod_task_usage(getpid(), &wd_usage0), "task usage");
}

/* the task reference the program held was dropped */
static void wd_task_after(struct watchdog_bpf *skel)
{
	uint64_t usage = 1;

	ASSERT_OK(testmod_task_usage(getpid(), &usage), "task usage");
	ASSERT_EQ(usage, wd_usage0, "task usage count after the stop");
	printf("  task usage count %lu before and %lu after\n", wd_usage0, usage);
}

/* the ring buffer record was discarded */
static void wd_rb_after(struct watchdog_bpf *skel)
{
	expect_ringbuf_after_stop(bpf_map__fd(skel->maps.rb), 0, skel->progs.wd_rb_check,
				  "wd_sections");
}

static void wd_cb_before(struct watchdog_bpf *skel)
{
	skel->data->outer = 100000;
}

static const struct wd_stop wd_stops[] = {
	/* object, task, and the two loops' iterators */
	{ "wd_loop", 4, true, wd_task_before, wd_task_after },
	/* the two objects still held and the two loops' iterators, not b or d */
	{ "wd_out_of_order", 4, true },
	/* stopped in sub_spin(): object and the two iterators */
	{ "wd_subprog", 3, true },
	/* RCU section, ring buffer record, two iterators */
	{ "wd_sections", 4, true, NULL, wd_rb_after },
	/*
	 * bpf_loop() holds nothing of its own: the unwind crosses it; the
	 * callback holds in its caller's registers: not described
	 */
	{ "wd_loop_cb", -1, false, wd_cb_before },
	/*
	 * the preemption section and the two iterators; an unbalanced
	 * preempt count would show as a scheduling-while-atomic report
	 */
	{ "wd_preempt", 3, true },
};

/* Stop @r's program; with @described, one described, by its description. */
static void wd_stop_row(const struct wd_stop *r, bool described)
{
	struct watchdog_bpf *skel = wd_load();
	struct bpf_program *prog;
	static struct rtg_held h;
	uint64_t d0, t0;

	if (!skel)
		return;
	prog = bpf_object__find_program_by_name(skel->obj, r->prog);
	if (!ASSERT_OK_PTR(prog, "program %s", r->prog))
		goto out;
	if (described && ASSERT_OK(held_find(prog_id_of(prog), &h), "%s in held", r->prog)) {
		ASSERT_EQ(h.described, 1, "%s: described", r->prog);
		ASSERT_EQ(h.lazy, 1, "%s: lazy", r->prog);
	}
	if (r->before)
		r->before(skel);
	d0 = wd_stat("stops_described");
	t0 = wd_stat("stops_from_table");
	expect_stop(prog, 200, -ETIMEDOUT, r->released, "released and unwound");
	if (described) {
		ASSERT_EQ(wd_stat("stops_described") - d0, 1, "stops by the description");
		ASSERT_EQ(wd_stat("stops_from_table") - t0, 0, "stops by a table");
	}
	if (r->after)
		r->after(skel);
out:
	watchdog_bpf__destroy(skel);
}

/*
 * Each row of wd_stops as a subtest named after its program; with
 * @described (describe=1), the rows the verifier describes, each stopped
 * by its description.
 */
static void wd_stops_run(bool described)
{
	unsigned int i;

	for (i = 0; i < sizeof(wd_stops) / sizeof(wd_stops[0]); i++) {
		if ((!described || wd_stops[i].described) &&
		    test__start_subtest(wd_stops[i].prog))
			wd_stop_row(&wd_stops[i], described);
	}
}

WITH_MODULE(test_watchdog_stops, "track=1 watchdog_ms=200");
void test_watchdog_stops(void)
{
	wd_stops_run(false);
}

WITH_MODULE(test_watchdog_hold_limit, "track=1 hold_limit_us=20000");
void test_watchdog_hold_limit(void)
{
	struct watchdog_bpf *skel = wd_load();
	static struct rtg_held h;
	double ms;
	int ret;

	if (!skel)
		return;
	/* ten 2 ms sleeps, nothing held for long: runs past the limit */
	ret = run_prog_timed(skel->progs.wd_short_holds, &ms);
	printf("  wd_short_holds: returned %d after %.0f ms\n", ret, ms);
	ASSERT_EQ(ret, 0, "wd_short_holds' return");
	ASSERT_GT(ms, 20, "wd_short_holds' run time, ms");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_short_holds), &h),
		      "wd_short_holds in held"))
		ASSERT_EQ(h.stops, 0, "wd_short_holds' stops");
	/* holds an object through the loops: stopped by the hold limit */
	expect_stop(skel->progs.wd_loop, 20, -ETIMEDOUT, 4, "(hold_limit_us)");
	watchdog_bpf__destroy(skel);
}

static void *wd_thread(void *arg)
{
	return (void *)(long)run_prog(arg);
}

WITH_MODULE(test_watchdog_all_cpus, "track=1 watchdog_ms=200");
void test_watchdog_all_cpus(void)
{
	struct watchdog_bpf *skel = wd_load();
	int ncpu = ncpus(), i;
	uint64_t live0 = 0, live1 = 1;
	static struct rtg_held h;
	pthread_t th[16];
	void *ret;

	if (!skel)
		return;
	if (ncpu > 16)
		ncpu = 16;
	ASSERT_OK(testmod_live(&live0), "live objects");
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, wd_thread, skel->progs.wd_loop);
	for (i = 0; i < ncpu; i++) {
		pthread_join(th[i], &ret);
		ASSERT_EQ((long)ret, -ETIMEDOUT, "run %d's return", i);
	}
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the stops");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "wd_loop in held")) {
		ASSERT_EQ(h.stops, ncpu, "stops of %d runs", ncpu);
		ASSERT_EQ(h.nruns, 0, "runs left");
	}
	printf("  %d runs on %d CPUs stopped at once\n", ncpu, ncpu);
	watchdog_bpf__destroy(skel);
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

static void *wd_cpu1_thread(void *arg)
{
	if (pin_cpu(1))
		return (void *)(long)-ESRCH;
	return (void *)(long)run_prog(arg);
}

/* A run of wd_loop on CPU 1; its result, after CPU 1 went offline with @offline. */
static long wd_run_on_cpu1(struct watchdog_bpf *skel, bool offline)
{
	uint32_t id = prog_id_of(skel->progs.wd_loop);
	static struct rtg_held h;
	pthread_t th;
	void *ret;
	int i;

	if (pthread_create(&th, NULL, wd_cpu1_thread, skel->progs.wd_loop))
		return -EAGAIN;
	if (offline) {
		/* once the run is in flight there */
		for (i = 0; i < 200 && (held_find(id, &h) || h.nruns != 1); i++)
			usleep(10000);
		ASSERT_EQ(h.nruns, 1, "wd_loop's run in flight");
		ASSERT_OK(write_file(CPU1_ONLINE, "0"), "CPU 1 offline");
	}
	pthread_join(th, &ret);
	return (long)ret;
}

/*
 * CPU 1 taken offline while a tracked run overruns there: the scheduler
 * waits for the run before the CPU goes (migration disabled), and CPU 1's
 * watchdog stops it meanwhile; back online, CPU 1's watchdog stops runs
 * there again.
 */
WITH_MODULE(test_watchdog_hotplug, "track=1 watchdog_ms=200");
void test_watchdog_hotplug(void)
{
	struct watchdog_bpf *skel;
	static struct rtg_held h;
	uint64_t live0 = 0, live1 = 1;

	if (!ASSERT_GE(ncpus(), 2, "CPUs"))
		return;
	skel = wd_load();
	if (!skel)
		return;
	ASSERT_OK(testmod_live(&live0), "live objects");
	ASSERT_EQ(wd_run_on_cpu1(skel, true), -ETIMEDOUT, "the run on CPU 1, as it went, stopped");
	ASSERT_OK(write_file(CPU1_ONLINE, "1"), "CPU 1 online");
	ASSERT_EQ(wd_run_on_cpu1(skel, false), -ETIMEDOUT, "a run on CPU 1, back online, stopped");
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the stops");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "wd_loop in held"))
		ASSERT_EQ(h.stops, 2, "stops");
	/* whatever failed above, CPU 1 is left online */
	write_file(CPU1_ONLINE, "1");
	watchdog_bpf__destroy(skel);
}

/*
 * With the watchdog off, a tracked program computes what an untracked one
 * does. The test loads bpf_rtguard itself, with track=0 and then track=1.
 */
void test_watchdog_off(void)
{
	static const char *const params[2] = { "track=0", "track=1" };
	struct watchdog_bpf *skel;
	uint64_t sum[2] = {};
	int t;

	for (t = 0; t < 2; t++) {
		if (!ASSERT_OK(mod_load(MOD_RTGUARD, params[t]), "insmod %s", params[t]))
			return;
		skel = wd_load();
		if (skel) {
			skel->data->outer = 3;
			ASSERT_EQ(run_prog(skel->progs.wd_loop), 0, "run with %s", params[t]);
			sum[t] = skel->bss->sum;
			watchdog_bpf__destroy(skel);
		}
		if (!ASSERT_OK(mod_unload_wait(MOD_RTGUARD, 5000), "rmmod"))
			return;
	}
	ASSERT_NE(sum[0], 0, "sum untracked");
	ASSERT_EQ(sum[1], sum[0], "sum tracked vs untracked");
}

WITH_MODULE(test_watchdog_tc_socket, "track=1 watchdog_ms=200");
void test_watchdog_tc_socket(void)
{
	struct watchdog_bpf *skel;
	uint16_t port = 0;
	int lfd;

	lfd = listen_loopback(&port);
	if (!ASSERT_GE(lfd, 0, "listening socket"))
		return;
	skel = wd_load();
	if (skel) {
		skel->bss->listen_port = port;
		/* the socket and the two iterators; tc programs return TC_ACT_SHOT */
		expect_stop(skel->progs.wd_tc_sock, 200, TC_ACT_SHOT, 3, "released and unwound");
		/* the socket is still there to be looked up and released */
		skel->data->outer = 1;
		ASSERT_EQ(run_prog(skel->progs.wd_tc_sock), 0, "lookup after the stop");
		watchdog_bpf__destroy(skel);
	}
	close(lfd);
}

WITH_MODULE(test_watchdog_nested, "track=1 watchdog_ms=200");
void test_watchdog_nested(void)
{
	struct watchdog_bpf *skel = wd_load();
	static struct rtg_held h;
	struct bpf_link *link;

	if (!skel)
		return;
	skel->bss->inner_pid = getpid();
	link = bpf_program__attach(skel->progs.wd_inner);
	if (ASSERT_OK_PTR(link, "attach wd_inner")) {
		expect_stop(skel->progs.wd_loop, 200, -ETIMEDOUT, 4, "released and unwound");
		bpf_link__destroy(link);
		ASSERT_GT(skel->bss->inner_runs, 0, "runs of the nested program");
		if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_inner), &h),
			      "wd_inner in held")) {
			ASSERT_EQ(h.nruns, 0, "nested program: runs left");
			ASSERT_EQ(h.unmatched, 0, "nested program: unmatched releases");
			ASSERT_EQ(h.stops, 0, "nested program: stops");
		}
		printf("  the nested fentry program ran %lu times, its runs all clean\n",
		       (unsigned long)skel->bss->inner_runs);
	}
	watchdog_bpf__destroy(skel);
}

static void *spin_thread(void *arg)
{
	struct watchdog_bpf *skel = arg;
	static int cpu_next;

	pin_cpu(__sync_fetch_and_add(&cpu_next, 1) % 2);
	return (void *)(long)run_prog(skel->progs.wd_spin);
}

/*
 * A BPF spin lock is held with interrupts off, so the watchdog timer of
 * the CPU a run is on never judges it inside the locked region; but a run
 * marked just before it takes the lock stops at its next hooked call,
 * bpf_spin_unlock(), and the watchdog then releases the lock with the
 * rest. Either way every run is stopped and the lock is free afterwards.
 */
static void wd_spin_lock(void)
{
	struct watchdog_bpf *skel = wd_load();
	int round, held = 0, i;
	pthread_t th[2];
	void *ret;

	if (!skel)
		return;
	if (!ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_release", true),
		       "enable rtg_release"))
		goto out;
	for (round = 0; round < 5; round++) {
		/* each round's releases once */
		if (!ASSERT_OK(trace_clear(), "empty the trace buffer"))
			break;
		for (i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, spin_thread, skel);
		for (i = 0; i < 2; i++) {
			pthread_join(th[i], &ret);
			ASSERT_EQ((long)ret, TC_ACT_SHOT, "round %d: wd_spin's return", round);
		}
		ASSERT_EQ(run_prog(skel->progs.wd_spin_once), 0, "lock taken after a stop");
		held += track_releases_of("bpf_spin_lock");
	}
	printf("  %d rounds of 2 stopped runs, %d stopped holding the spin lock\n",
	       round, held);
	/* a lock is released once per stopped run at most, never twice */
	ASSERT_LE(held, 2 * round, "watchdog releases of the spin lock");
out:
	trace_event_enable("bpf_rtguard/rtg_release", false);
	watchdog_bpf__destroy(skel);
}

WITH_MODULE(test_watchdog_spin_lock, "track=1 watchdog_ms=100");
void test_watchdog_spin_lock(void)
{
	wd_spin_lock();
}

/*
 * The same stops on programs the JIT blinded (net.core.bpf_jit_harden=2,
 * which rewrites every program before the JIT sees it): what a run holds
 * is still known, released and given back.
 */
WITH_MODULE(test_watchdog_blinded, "track=1 watchdog_ms=200");
void test_watchdog_blinded(void)
{
	char old[8];

	if (!ASSERT_OK(jit_harden_set(old, sizeof(old)), "bpf_jit_harden=2") ||
	    !ASSERT_STREQ(file_read(JIT_HARDEN), "2\n", "bpf_jit_harden"))
		return;
	wd_stops_run(false);
	if (test__start_subtest("spin_lock")) {
		param_write("watchdog_ms", "100");
		wd_spin_lock();
	}
	write_file(JIT_HARDEN, old);
}

/*
 * @prog was stopped once, and has no run left nor a call that found
 * none; its line of held in *@out, when given.
 */
static void expect_one_stop(struct bpf_program *prog, struct rtg_held *out)
{
	static struct rtg_held h;

	if (!ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		return;
	ASSERT_EQ(h.stops, 1, "stops");
	ASSERT_EQ(h.nruns, 0, "runs left after the stop");
	ASSERT_EQ(h.stray, 0L, "calls that found no run");
	if (out)
		*out = h;
}

/*
 * A run that spends its time in the callbacks of bpf_for_each_map_elem(),
 * each making a call: stopped inside one, where it fast-executes to its
 * end (the helper cannot be left), returning the stop value. A lazy run
 * is adopted there by its calls' slow path, through the helper's frames.
 */
WITH_MODULE(test_watchdog_callback_run, "track=1 watchdog_ms=100");
void test_watchdog_callback_run(void)
{
	struct watchdog_bpf *skel = wd_load();
	struct bpf_program *prog;
	double ms;
	int ret;

	if (!skel)
		return;
	prog = skel->progs.wd_each;
	ret = run_prog_timed(prog, &ms);
	printf("  wd_each: returned %d after %.0f ms, %d callbacks\n", ret, ms,
	       skel->bss->cb_calls);
	ASSERT_EQ(ret, -ETIMEDOUT, "stopped");
	ASSERT_EQ(skel->bss->cb_calls, 65536, "every callback ran (fast-executed)");
	expect_one_stop(prog, NULL);
	watchdog_bpf__destroy(skel);
}

/*
 * A loop with no call in a global function, which runs to its end (about
 * a second): the run was judged while it looped (charged, marked), and
 * the call after the loop stops it.
 */
static void wd_may_goto_global(struct watchdog_bpf *skel, struct bpf_program *prog, int want)
{
	double ms;
	int ret;

	skel->bss->loops_done = -1;
	ret = run_prog_timed(prog, &ms);
	printf("  %s: returned %d after %.0f ms\n", bpf_program__name(prog), ret, ms);
	ASSERT_EQ(ret, want, "stopped at the call after the loop");
	ASSERT_EQ(skel->bss->loops_done, skel->data->outer, "the loop ran to its end");
	expect_one_stop(prog, NULL);
}

/*
 * A tc twin of a syscall program (which may sleep): a lazy run of it
 * keeps nothing in its frame, but for a program loaded with the events on
 * or hardened, where the runs are not lazy.
 */
static void expect_lazy_cpu(struct bpf_program *prog)
{
	static struct rtg_held h;

	if (!ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		return;
	if (h.lazy)
		ASSERT_EQ(h.run_area, 0u, "%s: run area", bpf_program__name(prog));
}

/*
 * Loops with no call, bounded only by may_goto (can_loop, cond_break):
 * no hook sees the mark, so the watchdog ends them through their counter
 * and the program leaves along its own path, returning the stop value;
 * holding a task, the stop then lands on the release after the loop and
 * unwinds it, or, in a bare program, whose release has no hook, the
 * program gives the task back itself.
 */
WITH_MODULE(test_watchdog_may_goto, "track=1 watchdog_ms=100");
void test_watchdog_may_goto(void)
{
	struct watchdog_bpf *skel = wd_load();
	uint64_t usage0 = 0, usage1 = 1;

	if (!skel)
		return;
	/* about a second unstopped (TCG): not stopped fails, never hangs */
	skel->data->outer = 300000;
	if (test__start_subtest("no_call")) {
		static struct rtg_held h;
		bool bare = !held_find(prog_id_of(skel->progs.wd_may_goto), &h) && h.bare;

		expect_stop(skel->progs.wd_may_goto, 100, -ETIMEDOUT, 0,
			    bare ? "loop ended at a may_goto, left by the program, its releases not counted" :
			    "loop ended at a may_goto, left by the program, 0 released");
		ASSERT_LT(skel->bss->loops_done, skel->data->outer, "iterations before the loop ended");
	}
	if (test__start_subtest("held")) {
		static struct rtg_held h;
		bool bare = !held_find(prog_id_of(skel->progs.wd_goto_held), &h) && h.bare;

		ASSERT_OK(testmod_task_usage(getpid(), &usage0), "task usage");
		skel->bss->loops_done = -1;
		/* a bare program's release is no place to stop: it leaves by its path */
		if (bare)
			expect_stop(skel->progs.wd_goto_held, 100, -ETIMEDOUT, 0,
				    "loop ended at a may_goto, left by the program, its releases not counted");
		else
			expect_stop(skel->progs.wd_goto_held, 100, -ETIMEDOUT, 1,
				    "released and unwound");
		ASSERT_GE(skel->bss->loops_done, 0, "the loop ended");
		ASSERT_LT(skel->bss->loops_done, skel->data->outer, "iterations before the loop ended");
		ASSERT_OK(testmod_task_usage(getpid(), &usage1), "task usage");
		ASSERT_EQ(usage1, usage0, "task usage count after the stop");
	}
	if (test__start_subtest("global"))
		wd_may_goto_global(skel, skel->progs.wd_may_goto_global, -ETIMEDOUT);
	/* the same in programs that cannot sleep, whose lazy runs keep nothing in their frames */
	if (test__start_subtest("no_call_tc")) {
		expect_lazy_cpu(skel->progs.wd_may_goto_tc);
		expect_stop(skel->progs.wd_may_goto_tc, 100, TC_ACT_SHOT, -1,
			    "loop ended at a may_goto, left by the program");
		ASSERT_LT(skel->bss->loops_done, skel->data->outer, "iterations before the loop ended");
	}
	if (test__start_subtest("global_tc")) {
		expect_lazy_cpu(skel->progs.wd_may_goto_global_tc);
		wd_may_goto_global(skel, skel->progs.wd_may_goto_global_tc, TC_ACT_SHOT);
	}
	watchdog_bpf__destroy(skel);
}


/* prog's runs are lazy, with a run area of run_area bytes in their frames */
static void wd_lazy_area(struct bpf_program *prog, unsigned int run_area)
{
	static struct rtg_held h;

	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held")) {
		ASSERT_EQ(h.lazy, 1, "%s: lazy", bpf_program__name(prog));
		ASSERT_EQ(h.run_area, run_area, "%s: run area", bpf_program__name(prog));
	}
}

/* prog was stopped once, and no lazy run is left in flight, adopted or not */
static void wd_lazy_stopped(struct bpf_program *prog)
{
	static struct rtg_held h;

	expect_one_stop(prog, &h);
	ASSERT_EQ(h.lazy_runs, 0, "lazy runs in flight, not adopted");
	ASSERT_EQ(h.lazy_exits, 0, "adopted lazy runs in flight, nothing in their frames");
}

typedef void (*wd_lazy_fn)(struct watchdog_bpf *skel, struct bpf_program *prog, int want);

/* fn on wd_quiet_cb, whose runs keep 8 bytes of their frames, then on wd_quiet_cb_tc */
static void wd_lazy_both(wd_lazy_fn fn)
{
	struct watchdog_bpf *skel = wd_load();

	if (!skel)
		return;
	wd_lazy_area(skel->progs.wd_quiet_cb, 8);
	fn(skel, skel->progs.wd_quiet_cb, -ETIMEDOUT);
	wd_lazy_area(skel->progs.wd_quiet_cb_tc, 0);
	fn(skel, skel->progs.wd_quiet_cb_tc, TC_ACT_SHOT);
	watchdog_bpf__destroy(skel);
}

/*
 * A lazy run whose time is all in the callbacks of one bpf_loop() that
 * make no call (about a second): the timer finds it through bpf_loop()'s
 * frames and charges it tick by tick, so the call after the loop stops
 * it. Adopted only by that call, it would be charged one tick and return.
 */
static void wd_lazy_callback(struct watchdog_bpf *skel, struct bpf_program *prog, int want)
{
	const char *name = bpf_program__name(prog), *line;
	unsigned long us = 0;
	double ms;
	int ret;

	skel->data->outer = 300000;
	skel->bss->loops_done = -1;
	ret = run_prog_timed(prog, &ms);
	printf("  %s: returned %d after %.0f ms\n", name, ret, ms);
	ASSERT_EQ(ret, want, "stopped at the call after the loop");
	ASSERT_EQ(skel->bss->loops_done, skel->data->outer, "the loop ran to its end");
	ASSERT_GT(ms, 100, "ms: the loop outlasts the budget");
	/* its age at the stop, from the start its adoption read: no more than it ran */
	line = strstr(stop_line(prog), " after ");
	if (ASSERT_OK_PTR(line, "stop line") &&
	    ASSERT_EQ(sscanf(line, " after %lu us", &us), 1, "age in the stop line")) {
		ASSERT_GE(us, 100000ul, "%s: age at the stop, over the budget", name);
		ASSERT_LE(us, (unsigned long)(ms * 1000), "%s: age at the stop, within the run", name);
	}
	wd_lazy_stopped(prog);
}

/*
 * wd_quiet_cb may sleep: its lazy runs keep the TSC's low half and their
 * exit flags in 8 bytes of their frames; wd_quiet_cb_tc cannot, and its
 * runs keep nothing there (their starts are their CPU's). The call after
 * the loop stops either: in wd_quiet_cb_tc, a call its runs make once,
 * but after time in callbacks.
 */
WITH_MODULE(test_watchdog_lazy_callback, "track=1 check_held=0 describe=1 watchdog_ms=100");
void test_watchdog_lazy_callback(void)
{
	wd_lazy_both(wd_lazy_callback);
}

/*
 * A lazy run is adopted into a record of its CPU's pool: while the pool
 * has none for it (lazy_fail makes the next N adoptions find none), the
 * run goes on unadopted and a later tick adopts it. wd_quiet_cb, about a
 * second in callbacks with no call, has its first 200 adoptions fail,
 * then is adopted, charged from there and stopped at the call after the
 * loop; every record is back in its pool afterwards.
 */
static void wd_lazy_deferred(struct watchdog_bpf *skel, struct bpf_program *prog, int want)
{
	const char *name = bpf_program__name(prog);
	uint64_t deferred0, deferred1;
	double ms;
	int ret;

	deferred0 = wd_stat("lazy_adoptions_deferred");
	if (!ASSERT_OK(write_file("/sys/kernel/debug/bpf_rtguard/lazy_fail", "200"), "lazy_fail"))
		return;
	skel->data->outer = 300000;
	skel->bss->loops_done = -1;
	ret = run_prog_timed(prog, &ms);
	write_file("/sys/kernel/debug/bpf_rtguard/lazy_fail", "0");
	deferred1 = wd_stat("lazy_adoptions_deferred");
	printf("  %s: returned %d after %.0f ms, %llu adoptions deferred\n", name, ret, ms,
	       (unsigned long long)(deferred1 - deferred0));
	ASSERT_EQ(deferred1 - deferred0, 200, "adoptions that found no record");
	ASSERT_EQ(ret, want, "stopped at the call after the loop, once adopted");
	ASSERT_EQ(skel->bss->loops_done, skel->data->outer, "the loop ran to its end");
	wd_lazy_stopped(prog);
	ASSERT_EQ(wd_stat("lazy_records_in_use"), 0, "records not back in their pool");
}

/* wd_quiet_cb's runs keep 8 bytes of their frames, wd_quiet_cb_tc's none */
WITH_MODULE(test_watchdog_lazy_deferred, "track=1 check_held=0 describe=1 watchdog_ms=100");
void test_watchdog_lazy_deferred(void)
{
	wd_lazy_both(wd_lazy_deferred);
}

/*
 * hold_limit_us judges a described run by its last sample, and a sample
 * asked for a tick ago and not yet taken says nothing: the run may have
 * given back what it held since (a bare program's release has no hook).
 * wd_released_quiet holds an object across calls, which sample it, gives
 * it back, then spends about a second in callbacks that make no call: it
 * is never stopped for a hold (it was, by the stale sample, after 100 ms).
 */
WITH_MODULE(test_watchdog_hold_stale_sample,
	    "track=1 check_held=0 describe=1 hold_limit_us=100000");
void test_watchdog_hold_stale_sample(void)
{
	struct watchdog_bpf *skel = wd_load();
	struct bpf_program *prog;
	static struct rtg_held h;
	double ms;
	int ret;

	if (!skel)
		return;
	prog = skel->progs.wd_released_quiet;
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "described");
		ASSERT_EQ(h.bare, 1, "bare");
	}
	/* calls for 10 to 50 ms holding the object: ticks ask samples, calls take them */
	skel->data->outer = 0;
	for (ms = 0; ms < 10 && skel->data->held_calls < (1 << 24);)
		if (run_prog_timed(prog, &ms) || ms < 10)
			skel->data->held_calls *= 2;
	printf("  %d calls holding the object: %.0f ms\n", skel->data->held_calls, ms);
	if (!ASSERT_GE(ms, 10, "ms holding") || !ASSERT_LT(ms, 50, "ms holding"))
		goto out;
	skel->data->outer = 300000;
	skel->bss->loops_done = -1;
	ret = run_prog_timed(prog, &ms);
	printf("  wd_released_quiet: returned %d after %.0f ms\n", ret, ms);
	ASSERT_EQ(ret, 0, "not stopped");
	ASSERT_EQ(skel->bss->loops_done, skel->data->outer, "the loop ran to its end");
	ASSERT_GT(ms, 100, "ms: the quiet loop outlasts the hold limit");
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		ASSERT_EQ(h.stops, 0, "stops");
out:
	watchdog_bpf__destroy(skel);
}

/*
 * A described run that takes the same task at the same call over and
 * over, and holds it across one more call each time, is never stopped for
 * a hold: each of its holds is short, though every sample sees the task,
 * an equal object acquired at an equal place (it was stopped after 35
 * ms). The same run holding an object from before its loop is stopped
 * for that hold, and gives back both.
 */
WITH_MODULE(test_watchdog_hold_reheld,
	    "track=1 check_held=0 describe=1 hold_limit_us=20000");
void test_watchdog_hold_reheld(void)
{
	struct watchdog_bpf *skel = wd_load();
	uint64_t usage0 = 0, usage1 = 1;
	struct bpf_program *prog;
	static struct rtg_held h;
	double ms = 0;
	int ret = 0;

	if (!skel)
		return;
	prog = skel->progs.wd_reheld;
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		ASSERT_EQ(h.described, 1, "described");
	ASSERT_OK(testmod_task_usage(getpid(), &usage0), "task usage");
	/* runs of 200 ms and more: ten times the hold limit */
	while (!ret && ms < 200 && skel->data->reheld_loops < (1 << 24)) {
		skel->data->reheld_loops *= 2;
		ret = run_prog_timed(prog, &ms);
	}
	printf("  wd_reheld: %d turns, returned %d after %.0f ms\n",
	       skel->data->reheld_loops, ret, ms);
	ASSERT_EQ(ret, 0, "not stopped for holding");
	ASSERT_GE(ms, 200, "ms: the run outlasts the hold limit");
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "in held"))
		ASSERT_EQ(h.stops, 0, "stops");
	ASSERT_OK(testmod_task_usage(getpid(), &usage1), "task usage");
	ASSERT_EQ(usage1, usage0, "task references");
	if (test__start_subtest("kept")) {
		skel->bss->reheld_keep = 1;
		expect_stop(prog, 20, -ETIMEDOUT, 3, "(hold_limit_us): released and unwound");
	}
	ASSERT_EQ(wd_stat("slow_calls"), 0, "CPUs whose calls stay slow");
	ASSERT_EQ(wd_stat("lazy_records_in_use"), 0, "records of lazy runs not back in their pool");
	ASSERT_EQ(wd_stat("slow_acquire_calls"), 0, "CPUs whose acquiring calls stay slow");
	watchdog_bpf__destroy(skel);
}

static uint64_t wd_wakeups(void)
{
	return wd_stat("watchdog_wakeups");
}

/*
 * A CPU's watchdog timer runs only while a limit is set and a tracked run
 * is in flight there: with both limits off no CPU is woken, nor with one
 * set while nothing runs; a run of 150 ms wakes its own CPU's timer, about
 * once a millisecond, and no other CPU's (no expiry finds its CPU without
 * a run while it runs); once the run returns, the timer expires once more
 * at most, then never.
 */
WITH_MODULE(test_watchdog_idle, "track=1");
void test_watchdog_idle(void)
{
	struct watchdog_bpf *skel = wd_load();
	uint64_t a, b, c, d, idle0, idle1;
	double ms;

	if (!skel)
		return;
	a = wd_wakeups();
	usleep(300 * 1000);
	ASSERT_EQ(wd_wakeups(), a, "wakeups with both limits off");
	ASSERT_OK(param_write("hold_limit_us", "100000"), "hold_limit_us=100000");
	usleep(300 * 1000);
	ASSERT_EQ(wd_wakeups(), a, "wakeups with hold_limit_us set, nothing running");
	ASSERT_OK(param_write("hold_limit_us", "0"), "hold_limit_us=0");
	ASSERT_OK(param_write("watchdog_ms", "150"), "watchdog_ms=150");
	usleep(300 * 1000);
	ASSERT_EQ(wd_wakeups(), a, "wakeups with watchdog_ms set, nothing running");

	idle0 = wd_stat("watchdog_idle_wakeups");
	ASSERT_EQ(run_prog_timed(skel->progs.wd_loop, &ms), -ETIMEDOUT, "wd_loop stopped");
	b = wd_wakeups();
	idle1 = wd_stat("watchdog_idle_wakeups");
	printf("  a run of %.0f ms: %lu timer expiries, %lu of them with no run in flight\n",
	       ms, b - a, idle1 - idle0);
	ASSERT_GE(b - a, 50, "expiries during a 150 ms run");
	/* one CPU at 1 kHz, not every CPU */
	ASSERT_LE(b - a, (uint64_t)ms + 5, "expiries during the run: one CPU's timer");
	ASSERT_LE(idle1 - idle0, 1, "expiries that found no run in flight");

	usleep(300 * 1000);
	c = wd_wakeups();
	ASSERT_LE(c - b, 1, "expiries once the run returned: one at most");
	usleep(300 * 1000);
	ASSERT_EQ(wd_wakeups(), c, "expiries after that");
	ASSERT_OK(param_write("watchdog_ms", "0"), "watchdog_ms=0");
	/* a limit that is not a number is refused, and starts nothing */
	ASSERT_ERR(param_write("watchdog_ms", "soon"), "watchdog_ms=soon refused");
	usleep(100 * 1000);
	d = wd_wakeups();
	ASSERT_EQ(d, c, "wakeups after a refused limit");
	watchdog_bpf__destroy(skel);
}

/*
 * A real-time thread on the run's CPU preempts a tracked run (under full
 * preemption) and keeps the CPU for 600 ms, longer than the budget: the
 * watchdog charges a run only for its CPU's time on it. A run whose own
 * time is well within watchdog_ms and hold_limit_us is not stopped,
 * though its wall time is well over both; a runaway is stopped once its
 * own time is over the budget, 600 ms later than by the wall clock.
 */
#define PREEMPT_MODE "/sys/kernel/debug/sched/preempt"
#define HOG_MS 600

struct wd_hog {
	pthread_t th;
	double start_ms, end_ms;
	int err;
};

/* on CPU 0, wakes 30 ms after it starts, then keeps the CPU for HOG_MS */
static void *wd_hog_fn(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct wd_hog *h = arg;

	h->err = pin_cpu(0);
	if (!h->err)
		h->err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (h->err)
		return NULL;
	usleep(30 * 1000);
	h->start_ms = now_ms();
	while (now_ms() - h->start_ms < HOG_MS)
		;
	h->end_ms = now_ms();
	return NULL;
}

/*
 * run wd_loop on CPU 0 while the hog preempts it; the wall time in *ms,
 * in *preempted whether the hog woke before the run returned
 */
static int wd_run_preempted(struct watchdog_bpf *skel, double *ms, bool *preempted)
{
	struct wd_hog hog = {};
	double t0, t1;
	int ret;

	ASSERT_OK(pthread_create(&hog.th, NULL, wd_hog_fn, &hog), "hog thread");
	t0 = now_ms();
	ret = run_prog(skel->progs.wd_loop);
	t1 = now_ms();
	pthread_join(hog.th, NULL);
	*ms = t1 - t0;
	printf("  %d outer: returned %d after %.0f ms, the hog ran %.0f to %.0f ms into it\n",
	       skel->data->outer, ret, *ms, hog.start_ms - t0, hog.end_ms - t0);
	ASSERT_OK(hog.err, "hog: CPU 0 and SCHED_FIFO");
	ASSERT_GT(hog.start_ms, t0, "the hog ran after the run began");
	*preempted = hog.start_ms < t1;
	return ret;
}

/* the distribution's kernel preempts voluntarily unless told: full, saved in mode */
static void wd_preempt_full(char *mode, size_t len)
{
	mode[0] = 0;
	if (access(PREEMPT_MODE, F_OK) == 0) {
		snprintf(mode, len, "%s", file_read(PREEMPT_MODE));
		ASSERT_OK(write_file(PREEMPT_MODE, "full"), "preempt=full");
	}
}

/* the preemption mode wd_preempt_full() saved */
static void wd_preempt_restore(char *mode)
{
	/* "none voluntary (full)": the one in brackets */
	char *l = strchr(mode, '('), *r = l ? strchr(l, ')') : NULL;

	if (r) {
		*r = 0;
		ASSERT_OK(write_file(PREEMPT_MODE, l + 1), "preempt=%s again", l + 1);
	}
}

/* wd_loop's outer for about @own_ms of its own time on this CPU */
static int wd_loop_calibrate(struct watchdog_bpf *skel, double own_ms)
{
	double ms;

	/* the second run: the first warms up */
	skel->data->outer = 20;
	ASSERT_OK(run_prog_timed(skel->progs.wd_loop, &ms), "calibration run");
	ASSERT_OK(run_prog_timed(skel->progs.wd_loop, &ms), "calibration run");
	printf("  20 outer: %.1f ms\n", ms);
	return (int)(20 * own_ms / (ms > 0.1 ? ms : 0.1)) + 1;
}

WITH_MODULE(test_watchdog_preempted, "track=1 watchdog_ms=400 hold_limit_us=400000");
void test_watchdog_preempted(void)
{
	struct watchdog_bpf *skel = wd_load();
	static struct rtg_held h;
	char mode[64], needle[64];
	bool preempted = false;
	int tries, ret = -1;
	uint32_t id;
	double ms;

	if (!skel)
		return;
	id = prog_id_of(skel->progs.wd_loop);
	wd_preempt_full(mode, sizeof(mode));
	ASSERT_OK(pin_cpu(0), "pin to CPU 0");
	/* about 120 ms of the run's own time */
	skel->data->outer = wd_loop_calibrate(skel, 120);
	/*
	 * a calibration slowed by the host leaves the run shorter than the
	 * hog's 30 ms sleep: it then ran alone, and its wall time is its own
	 */
	for (tries = 0; tries < 3 && !preempted; tries++) {
		ret = wd_run_preempted(skel, &ms, &preempted);
		if (!preempted)
			skel->data->outer = (int)(skel->data->outer * 120 / (ms > 1 ? ms : 1)) + 1;
	}
	ASSERT_TRUE(preempted, "the hog preempted the run");
	ASSERT_EQ(ret, 0, "the run's return: not stopped");
	ASSERT_GT(ms, HOG_MS - 50.0, "the run's wall time, over both limits");
	if (ASSERT_OK(held_find(id, &h), "wd_loop in held"))
		ASSERT_EQ(h.stops, 0L, "stops");
	snprintf(needle, sizeof(needle), "prog %u wd_loop after", id);
	ASSERT_FALSE(dmesg_has(needle), "no stop in dmesg");

	skel->data->outer = 1000000;
	ASSERT_EQ(wd_run_preempted(skel, &ms, &preempted), -ETIMEDOUT, "a runaway: stopped");
	ASSERT_TRUE(preempted, "the hog preempted the runaway");
	ASSERT_GT(ms, 400.0 + HOG_MS - 50, "the stop: after 400 ms of its own");
	ASSERT_LT(ms, 400.0 + HOG_MS + STOP_MARGIN_MS, "the stop: ms");
	if (ASSERT_OK(held_find(id, &h), "wd_loop in held")) {
		ASSERT_EQ(h.stops, 1L, "stops");
		ASSERT_EQ(h.nruns, 0, "runs left");
	}
	wd_preempt_restore(mode);
	watchdog_bpf__destroy(skel);
}

/*
 * Many lazy runs in flight on one CPU at once: 64 threads on CPU 0, under
 * full preemption, each run wd_loop for about 40 ms of its own time, so
 * that the ticks adopt every run while all are in flight, more than the
 * CPU's pool holds at first (50). The pool grows (from process context:
 * a run that finds it empty is adopted by a later tick), no run is
 * stopped, and every record is back in its pool afterwards.
 */
#define WD_POOL_THREADS 64

struct wd_pool_run {
	pthread_t th;
	struct watchdog_bpf *skel;
	pthread_barrier_t *go;
	int err, ret;
};

static void *wd_pool_fn(void *arg)
{
	struct wd_pool_run *r = arg;

	r->err = pin_cpu(0);
	pthread_barrier_wait(r->go);
	if (!r->err)
		r->ret = run_prog(r->skel->progs.wd_loop);
	return NULL;
}

WITH_MODULE(test_watchdog_lazy_pool, "track=1 check_held=0 describe=1 watchdog_ms=10000");
void test_watchdog_lazy_pool(void)
{
	static struct wd_pool_run runs[WD_POOL_THREADS];
	struct watchdog_bpf *skel = wd_load();
	uint64_t records0, records1;
	pthread_barrier_t go;
	static struct rtg_held h;
	char mode[64];
	int i, ok = 0;
	double t0;

	if (!skel)
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "in held"))
		ASSERT_EQ(h.lazy, 1, "wd_loop: lazy");
	wd_preempt_full(mode, sizeof(mode));
	ASSERT_OK(pin_cpu(0), "pin to CPU 0");
	skel->data->outer = wd_loop_calibrate(skel, 40);
	records0 = wd_stat("lazy_records");
	pthread_barrier_init(&go, NULL, WD_POOL_THREADS);
	for (i = 0; i < WD_POOL_THREADS; i++) {
		runs[i] = (struct wd_pool_run){ .skel = skel, .go = &go, .ret = -1 };
		if (!ASSERT_OK(pthread_create(&runs[i].th, NULL, wd_pool_fn, &runs[i]),
			       "thread %d", i))
			break;
	}
	t0 = now_ms();
	for (int j = 0; j < i; j++) {
		pthread_join(runs[j].th, NULL);
		ASSERT_OK(runs[j].err, "thread %d on CPU 0", j);
		ok += runs[j].ret == 0;
	}
	records1 = wd_stat("lazy_records");
	printf("  %d runs returned 0 in %.0f ms; records %llu, then %llu, %llu adoptions deferred\n",
	       ok, now_ms() - t0, (unsigned long long)records0, (unsigned long long)records1,
	       (unsigned long long)wd_stat("lazy_adoptions_deferred"));
	ASSERT_EQ(ok, WD_POOL_THREADS, "runs not stopped");
	ASSERT_GT(records1, records0, "records: the pool grew");
	ASSERT_EQ(wd_stat("lazy_records_in_use"), 0, "records not back in their pool");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "in held")) {
		ASSERT_EQ(h.stops, 0L, "stops");
		ASSERT_EQ(h.lazy_runs, 0, "lazy runs in flight, not adopted");
		ASSERT_EQ(h.lazy_exits, 0, "adopted lazy runs in flight, nothing in their frames");
	}
	pthread_barrier_destroy(&go);
	wd_preempt_restore(mode);
	watchdog_bpf__destroy(skel);
}

/*
 * Described mode (describe=1, check_held off): the programs the verifier
 * describes completely keep no run-time table, and a stop gives back
 * what the description of the call it happens at names, each object
 * once; hold_limit_us judges what samples of the descriptions saw.
 */
WITH_MODULE(test_watchdog_described, "track=1 check_held=0 describe=1 watchdog_ms=200");
void test_watchdog_described(void)
{
	struct watchdog_bpf *skel;
	static struct rtg_held h;

	/* wd_loop_cb's callback holds in its caller's registers: not described */
	skel = wd_load();
	if (!skel)
		return;
	ASSERT_GE(wd_stat("held_described_progs"), 5, "stats: described programs");
	ASSERT_LT(wd_stat("held_described_progs"), wd_stat("held_progs"),
		  "stats: described programs, of the tracked ones");
	watchdog_bpf__destroy(skel);
	wd_stops_run(true);
	/* a program of its own: held counts stops per program */
	skel = wd_load();
	if (skel && test__start_subtest("hold_limit")) {
		ASSERT_OK(param_write("watchdog_ms", "0"), "watchdog_ms=0");
		ASSERT_OK(param_write("hold_limit_us", "20000"), "hold_limit_us=20000");
		expect_stop(skel->progs.wd_loop, 20, -ETIMEDOUT, 4, "(hold_limit_us)");
		ASSERT_OK(param_write("hold_limit_us", "0"), "hold_limit_us=0");
		ASSERT_OK(param_write("watchdog_ms", "200"), "watchdog_ms=200");
	}
	watchdog_bpf__destroy(skel);
	/* describe=0: the same program keeps a table, and is stopped by it */
	if (test__start_subtest("describe_off")) {
		uint64_t d0, t0;

		ASSERT_OK(param_write("describe", "0"), "describe=0");
		skel = wd_load();
		if (!skel)
			return;
		if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "wd_loop in held"))
			ASSERT_EQ(h.described, 0, "wd_loop: described");
		d0 = wd_stat("stops_described");
		t0 = wd_stat("stops_from_table");
		expect_stop(skel->progs.wd_loop, 200, -ETIMEDOUT, 4, "released and unwound");
		/* a table a stop may read is still read through the description */
		ASSERT_EQ(wd_stat("stops_described") + wd_stat("stops_from_table") - d0 - t0, 1,
			  "stops");
		watchdog_bpf__destroy(skel);
	}
}

/*
 * Lazy runs stopped at random points: every CPU runs the described
 * programs (a loop in main, in a BPF function, behind may_goto in main and
 * in a global function, in bpf_loop() callbacks that make no call,
 * holding an object, a task, an RCU section, a ring buffer record, a
 * preemption section; four of them also as tc programs, which cannot
 * sleep and whose runs keep nothing in their frames) and one that keeps
 * a table, with
 * the nested fentry programs attached to the call they loop on (one of
 * them lazy, keeping nothing in its frame), and loop
 * bounds that change from round to round, so that runs end on their own
 * or are stopped, adopted by a tick, by a slow call or never. Meanwhile
 * another thread turns rtg_release on and off (every CPU's calls slow,
 * then fast again) and moves the budget between 1 and 2 ms. Every run
 * returns 0 or the stop value, each program's stopped runs are exactly
 * its stops, nothing is left in flight, adopted or not, no CPU's calls
 * stay slow, and no object, task reference or ring buffer record is left.
 */
#define LAZY_ROUNDS 40

static const char *const lazy_progs[] = {
	"wd_loop", "wd_subprog", "wd_sections", "wd_preempt", "wd_may_goto", "wd_goto_held",
	"wd_may_goto_global", "wd_quiet_cb", "wd_loop_tc", "wd_may_goto_tc",
	"wd_may_goto_global_tc", "wd_quiet_cb_tc", "wd_loop_cb",
};

#define NR_LAZY (sizeof(lazy_progs) / sizeof(lazy_progs[0]))
/* what each returns when stopped (the tc twins: TC_ACT_SHOT) */
static int lazy_stop_ret[NR_LAZY];
/* wd_loop_cb's callback holds in its caller's registers: a table */
#define LAZY_DESCRIBED (NR_LAZY - 1)

struct lazy_thread {
	struct watchdog_bpf *skel;
	struct ring_buffer *rb;	/* CPU 0's: wd_sections' discarded records */
	int cpu;
	long stopped[NR_LAZY], other;
};

static volatile bool lazy_done;

static void *lazy_thread(void *arg)
{
	static const int bounds[] = { 1, 3, 30, 300, 3000 };
	struct lazy_thread *lt = arg;
	unsigned int i, round;

	pin_cpu(lt->cpu);
	for (round = 0; round < LAZY_ROUNDS; round++) {
		if (lt->cpu == 0)
			__atomic_store_n(&lt->skel->data->outer, bounds[round % 5],
					 __ATOMIC_RELAXED);
		for (i = 0; i < NR_LAZY; i++) {
			int ret = run_prog(bpf_object__find_program_by_name(lt->skel->obj,
									     lazy_progs[i]));

			if (ret == lazy_stop_ret[i])
				lt->stopped[i]++;
			else if (ret != 0)
				lt->other++;
		}
		/* a discarded record's space comes back once consumed */
		if (lt->rb)
			ring_buffer__consume(lt->rb);
	}
	return NULL;
}

static void *lazy_toggler(void *arg)
{
	long *toggles = arg;
	bool on = false;

	while (!lazy_done) {
		on = !on;
		if (trace_event_enable("bpf_rtguard/rtg_release", on) ||
		    param_write("watchdog_ms", on ? "2" : "1"))
			break;
		(*toggles)++;
		usleep(3000);
	}
	trace_event_enable("bpf_rtguard/rtg_release", false);
	param_write("watchdog_ms", "1");
	return NULL;
}

WITH_MODULE(test_watchdog_lazy_stress, "track=1 check_held=0 describe=1 watchdog_ms=1");
void test_watchdog_lazy_stress(void)
{
	struct watchdog_bpf *skel = wd_load();
	struct lazy_thread lt[16] = {};
	uint64_t live0 = 0, live1 = 1, usage0 = 0, usage1 = 1, d0;
	int ncpu = ncpus(), c;
	pthread_t th[16], tog;
	static struct rtg_held h;
	struct bpf_link *link, *link_loop;
	long total = 0, toggles = 0, records = 0;
	unsigned int i;

	if (!skel)
		return;
	if (ncpu > 16)
		ncpu = 16;
	lt[0].rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), ringbuf_count_record, &records,
				    NULL);
	if (!ASSERT_OK_PTR(lt[0].rb, "ring_buffer__new"))
		goto out;
	skel->bss->inner_pid = getpid();
	link = bpf_program__attach(skel->progs.wd_inner);
	if (!ASSERT_OK_PTR(link, "attach wd_inner"))
		goto out;
	link_loop = bpf_program__attach(skel->progs.wd_inner_loop);
	if (!ASSERT_OK_PTR(link_loop, "attach wd_inner_loop")) {
		bpf_link__destroy(link);
		goto out;
	}
	expect_lazy_cpu(skel->progs.wd_inner_loop);
	ASSERT_OK(testmod_live(&live0), "live objects");
	ASSERT_OK(testmod_task_usage(getpid(), &usage0), "task usage");
	d0 = wd_stat("stops_described");
	for (i = 0; i < NR_LAZY; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, lazy_progs[i]);

		lazy_stop_ret[i] = bpf_program__type(p) == BPF_PROG_TYPE_SCHED_CLS ? TC_ACT_SHOT :
										      -ETIMEDOUT;
		if (lazy_stop_ret[i] == TC_ACT_SHOT)
			expect_lazy_cpu(p);
	}
	lazy_done = false;
	pthread_create(&tog, NULL, lazy_toggler, &toggles);
	for (c = 0; c < ncpu; c++) {
		lt[c].skel = skel;
		lt[c].cpu = c;
		pthread_create(&th[c], NULL, lazy_thread, &lt[c]);
	}
	for (c = 0; c < ncpu; c++)
		pthread_join(th[c], NULL);
	lazy_done = true;
	pthread_join(tog, NULL);
	bpf_link__destroy(link_loop);
	bpf_link__destroy(link);
	ASSERT_GT(skel->bss->inner_loop_runs, 0, "wd_inner_loop's runs, nested");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_inner_loop), &h), "wd_inner_loop in held"))
		ASSERT_EQ(h.nruns, 0, "wd_inner_loop: runs left");

	for (i = 0; i < NR_LAZY; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, lazy_progs[i]);
		long stopped = 0;

		for (c = 0; c < ncpu; c++)
			stopped += lt[c].stopped[i];
		total += stopped;
		printf("  %s: %ld of %d runs stopped\n", lazy_progs[i], stopped,
		       ncpu * LAZY_ROUNDS);
		if (!ASSERT_OK(held_find(prog_id_of(p), &h), "%s in held", lazy_progs[i]))
			continue;
		ASSERT_EQ(h.lazy, (int)(i < LAZY_DESCRIBED), "%s: lazy", lazy_progs[i]);
		ASSERT_EQ(h.stops, stopped, "%s: stops, and runs that returned the stop value",
			  lazy_progs[i]);
		ASSERT_EQ(h.nruns, 0, "%s: runs left", lazy_progs[i]);
		ASSERT_EQ(h.unmatched, 0L, "%s: unmatched releases", lazy_progs[i]);
		ASSERT_EQ(h.incomplete, 0L, "%s: incomplete runs", lazy_progs[i]);
	}
	for (c = 0; c < ncpu; c++)
		ASSERT_EQ(lt[c].other, 0L, "CPU %d: runs that returned neither 0 nor the stop value",
			  c);
	printf("  %ld stops, %lu by a description; the event and budget toggled %ld times\n",
	       total, (unsigned long)(wd_stat("stops_described") - d0), toggles);
	ASSERT_GT(total, 0L, "stopped runs");
	ASSERT_GT(wd_stat("stops_described") - d0, 0, "stops by a description");
	ASSERT_GT(toggles, 1L, "event and budget toggles");
	ASSERT_EQ(records, 0L, "wd_sections' records delivered (each is discarded)");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.wd_loop), &h), "wd_loop in held")) {
		ASSERT_EQ(h.lazy_runs, 0, "lazy runs in flight, not adopted");
		ASSERT_EQ(h.lazy_exits, 0, "adopted lazy runs in flight, nothing in their frames");
	}
	ASSERT_EQ(wd_stat("slow_calls"), 0, "CPUs whose calls stay slow");
	ASSERT_EQ(wd_stat("slow_acquire_calls"), 0, "CPUs whose acquiring calls stay slow");
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the stress");
	ASSERT_OK(testmod_task_usage(getpid(), &usage1), "task usage");
	ASSERT_EQ(usage1, usage0, "task usage count after the stress");
	expect_ringbuf_after_stop(bpf_map__fd(skel->maps.rb), 0, skel->progs.wd_rb_check,
				  "wd_sections");
out:
	ring_buffer__free(lt[0].rb);
	watchdog_bpf__destroy(skel);
}
