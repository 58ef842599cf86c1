// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracking of track.bpf.c: the exact acquire/release events of the seed
 * scenarios, empty tables after each run, a mid-run snapshot of what a
 * blocked sleepable program holds, nesting, all CPUs at once, and a full
 * pool of run tables.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "track.skel.h"

/* track.bpf.o, loaded with the tests' pid as target_pid and inner_pid. */
static struct track_bpf *track_load(void)
{
	struct track_bpf *skel = track_bpf__open();

	if (!ASSERT_OK_PTR(skel, "open track"))
		return NULL;
	skel->bss->target_pid = getpid();
	skel->bss->inner_pid = getpid();
	if (ASSERT_OK(track_bpf__load(skel), "load track"))
		return skel;
	track_bpf__destroy(skel);
	return NULL;
}

static void seed_simple(struct track_bpf *skel)
{
	uint32_t id = prog_id_of(skel->progs.track_simple);
	struct track_event ev[32];
	int n;

	/* a task and a cpumask, released in reverse order */
	if (!track_events_start())
		return;
	ASSERT_EQ(run_prog(skel->progs.track_simple), 0, "simple run");
	n = track_events_read(id, ev, 32);
	ASSERT_EQ(n, 4, "simple: events");
	expect_event(ev, n, 0, true, "bpf_task_from_pid", skel->bss->seen[0]);
	expect_event(ev, n, 1, true, "bpf_cpumask_create", skel->bss->seen[1]);
	if (expect_event(ev, n, 2, false, "bpf_cpumask_release", skel->bss->seen[1]))
		ASSERT_EQ(ev[2].acq_insn, (int)ev[1].insn, "cpumask released as acquired at");
	if (expect_event(ev, n, 3, false, "bpf_task_release", skel->bss->seen[0]))
		ASSERT_EQ(ev[3].acq_insn, (int)ev[0].insn, "task released as acquired at");
	expect_clean("simple", id);
}

static void seed_branch(struct track_bpf *skel)
{
	uint32_t id = prog_id_of(skel->progs.track_branch);
	struct track_event ev[32];
	int n, i;

	/* each path's pair, and nothing of the other path */
	for (i = 0; i < 2; i++) {
		skel->bss->branch = i;
		if (!track_events_start())
			return;
		ASSERT_EQ(run_prog(skel->progs.track_branch), 0, "branch %d run", i);
		n = track_events_read(id, ev, 32);
		ASSERT_EQ(n, 2, "branch %d: events", i);
		expect_event(ev, n, 0, true, i ? "bpf_task_from_pid" : "rtg_test_obj_get",
			     skel->bss->seen[0]);
		expect_event(ev, n, 1, false, i ? "bpf_task_release" : "rtg_test_obj_put",
			     skel->bss->seen[0]);
	}
	expect_clean("branch", id);
}

static void seed_loop(struct track_bpf *skel)
{
	uint32_t id = prog_id_of(skel->progs.track_loop);
	struct track_event ev[32];
	int n, i;

	/* the iterator held around three task pairs */
	if (!track_events_start())
		return;
	ASSERT_EQ(run_prog(skel->progs.track_loop), 0, "loop run");
	n = track_events_read(id, ev, 32);
	ASSERT_EQ(n, 8, "loop: events");
	expect_event(ev, n, 0, true, "bpf_iter_num_new", 0);
	for (i = 0; i < 3; i++) {
		expect_event(ev, n, 1 + 2 * i, true, "bpf_task_from_pid", skel->bss->seen[i]);
		expect_event(ev, n, 2 + 2 * i, false, "bpf_task_release", skel->bss->seen[i]);
	}
	if (expect_event(ev, n, 7, false, "bpf_iter_num_destroy", 0))
		ASSERT_EQ(ev[7].obj, ev[0].obj, "iterator destroyed vs created");
	expect_clean("loop", id);
	for (i = 0; i < n; i++)
		printf("  %s %s insn %u obj %#lx\n", ev[i].acquire ? "acquire" : "release",
		       ev[i].func, ev[i].insn, ev[i].obj);
}

/*
 * Loaded with the events on: a described program loaded with both off
 * is bare, and neither event reports its calls (held_bare_calls).
 */
WITH_MODULE(test_track_seeds, "track=1");
void test_track_seeds(void)
{
	struct track_bpf *skel = NULL;

	if (track_events_start())
		skel = track_load();
	if (!skel) {
		track_events_stop();
		return;
	}
	if (test__start_subtest("simple"))
		seed_simple(skel);
	if (test__start_subtest("branch"))
		seed_branch(skel);
	if (test__start_subtest("loop"))
		seed_loop(skel);
	track_events_stop();
	track_bpf__destroy(skel);
}

static void *block_thread(void *arg)
{
	return (void *)(long)run_prog(((struct track_bpf *)arg)->progs.track_block);
}

/* track.bpf.o loaded, rtg_test_wait() made to block, the live objects before. */
static struct track_bpf *block_setup(uint64_t *live0)
{
	struct track_bpf *skel;

	ASSERT_OK(testmod_live(live0), "live objects");
	if (!ASSERT_OK(testmod_go(false), "go=0"))
		return NULL;
	skel = track_bpf__open_and_load();
	ASSERT_OK_PTR(skel, "load track");
	return skel;
}

/* Wait up to ms for n runs to block in rtg_test_wait(); how many did. */
static uint64_t wait_blocked(uint64_t n, int ms)
{
	uint64_t waiting = 0;
	int i;

	for (i = 0; i < ms / 10 && waiting < n; i++) {
		usleep(10000);
		testmod_waiting(&waiting);
	}
	return waiting;
}

/*
 * Run track_block in a thread until it blocks holding one object, with
 * rtg_test_wait() made to block; take its program's snapshot in @h, then
 * let it go: it returns 0 and leaves its program clean. @live0: the live
 * test objects before. Return: whether @h holds the snapshot.
 */
static bool block_snapshot(struct track_bpf *skel, uint64_t live0, struct rtg_held *h)
{
	uint32_t id = prog_id_of(skel->progs.track_block);
	uint64_t live1 = 0;
	bool taken = false;
	pthread_t th;
	void *ret;

	pthread_create(&th, NULL, block_thread, skel);
	if (ASSERT_EQ(wait_blocked(1, 5000), 1, "runs blocked")) {
		taken = ASSERT_OK(held_find(id, h), "track_block in held");
		printf("  mid-run snapshot of track_block (prog %u):\n%s", id, h->text);
		ASSERT_OK(testmod_live(&live1), "live objects");
		ASSERT_EQ(live1, live0 + 1, "live objects while blocked");
	}
	ASSERT_OK(testmod_go(true), "go=1");
	pthread_join(th, &ret);
	ASSERT_EQ((long)ret, 0, "track_block's return");
	expect_clean("after the blocked run", id);
	return taken;
}

/*
 * track_orders' table has two entries and a spin lock's slot (d finds it
 * full); 10,000 runs of it all end right, leak no test object and leave
 * its table clean (@what names the case).
 */
static void orders_many_runs(struct track_bpf *skel, const char *what)
{
	uint32_t id = prog_id_of(skel->progs.track_orders);
	uint64_t live0 = 0, live1 = 1;
	static struct rtg_held h;
	int i, bad = 0;

	if (ASSERT_OK(held_find(id, &h), "track_orders in held"))
		ASSERT_EQ(h.slots, 3u, "slots of track_orders' table");
	ASSERT_OK(testmod_live(&live0), "live objects");
	for (i = 0; i < 10000; i++)
		bad += run_prog(skel->progs.track_orders) != 0;
	ASSERT_EQ(bad, 0, "runs that failed, of 10000");
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after 10000 runs");
	expect_clean(what, id);
}

/*
 * The JIT pushes and pops in line while nothing watches; the hooks do the
 * rest (out-of-order releases, a full table) and everything while the
 * events are on. Both must leave the table exact: the events' order, then
 * many runs with the events off, clean and leaking nothing.
 */
WITH_MODULE(test_track_in_line, "track=1 check_held=1");
void test_track_in_line(void)
{
	struct track_bpf *skel = track_load();
	static const struct { bool acquire; int obj; } want[] = {
		{ true, 0 }, { true, 1 }, { false, 0 }, { true, 2 },
		{ false, 1 }, { true, 3 }, { false, 3 }, { false, 2 },
	};
	struct track_event ev[32];
	uint32_t id;
	int i, n;

	if (!skel)
		return;
	id = prog_id_of(skel->progs.track_orders);
	if (track_events_start()) {
		ASSERT_EQ(run_prog(skel->progs.track_orders), 0, "run with the events on");
		n = track_events_read(id, ev, 32);
		ASSERT_EQ(n, (int)(sizeof(want) / sizeof(want[0])), "events");
		for (i = 0; i < n && i < (int)(sizeof(want) / sizeof(want[0])); i++)
			expect_event(ev, n, i, want[i].acquire,
				     want[i].acquire ? "rtg_test_obj_get" : "rtg_test_obj_put",
				     skel->bss->seen[want[i].obj]);
		track_events_stop();
	}
	expect_clean("orders, events on", id);
	orders_many_runs(skel, "orders, in line");
	track_bpf__destroy(skel);
}

/*
 * A tracked program in debug mode with a run-time table (describe=0) and
 * the event off: its calls take the JIT's in-line table path, and those
 * the path cannot finish (d pushed onto a full table, releases out of
 * order) reach the post hook with no saved arguments, through a path
 * that keeps the stack as the saving path leaves it (kernel patch 8).
 * 10,000 such runs end right and leak nothing; with the event on, each
 * call is recorded with its arguments.
 */
WITH_MODULE(test_track_debug_in_line, "track=1 describe=0 check_held=0 debug=flag");
void test_track_debug_in_line(void)
{
	struct track_bpf *skel = track_bpf__open();
	int i, n, gets = 0;
	char **lines;
	uint32_t id;

	if (!ASSERT_OK_PTR(skel, "open track"))
		return;
	skel->bss->target_pid = getpid();
	skel->bss->inner_pid = getpid();
	prog_set_debug(skel->progs.track_orders);
	if (!ASSERT_OK(track_bpf__load(skel), "load track")) {
		track_bpf__destroy(skel);
		return;
	}
	id = prog_id_of(skel->progs.track_orders);
	strace_stop();
	orders_many_runs(skel, "debug mode, in line");

	if (ASSERT_OK(strace_start(), "enable the trace event")) {
		ASSERT_EQ(run_prog(skel->progs.track_orders), 0, "run with the event on");
		n = strace_lines(id, &lines, NULL);
		for (i = 0; i < n; i++) {
			printf("  %s\n", lines[i]);
			gets += strstr(lines[i], "rtg_test_obj_get(") != NULL;
		}
		ASSERT_EQ(n, 8, "calls recorded");
		ASSERT_EQ(gets, 4, "rtg_test_obj_get calls");
		ASSERT_HAS_STR(n > 0 ? lines[0] : "", "rtg_test_obj_get(", "the first call");
		ASSERT_HAS_STR(n > 0 ? lines[0] : "", "=1)", "its argument, as saved");
		strace_stop();
	}
	expect_clean("debug mode, event on", id);
	track_bpf__destroy(skel);
}

/*
 * A bare described program in debug mode: its table keeps nothing but a
 * sample of RTG_SAMPLE_SLOTS, so its traced calls only record the call,
 * even while the event sends them through their post hooks. Its runs are
 * not lazy: a debug-mode program's exits are hooked on a flag, which the
 * kernel keeps from lazy runs. Five objects held at once, five times, with
 * the event on: each call recorded, and no run left incomplete, unmatched
 * or with leftovers; a run blocked holding an object, its table empty.
 */
WITH_MODULE(test_track_debug_described, "track=1 check_held=0 debug=flag");
void test_track_debug_described(void)
{
	uint64_t live0 = 0, live1 = 0;
	static struct rtg_held h;
	struct track_bpf *skel;
	int i, n, gets = 0;
	char **lines;
	uint32_t id;

	ASSERT_OK(testmod_live(&live0), "live objects");
	skel = track_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open track"))
		return;
	prog_set_debug(skel->progs.track_five);
	prog_set_debug(skel->progs.track_block);
	if (!ASSERT_OK(track_bpf__load(skel), "load track")) {
		track_bpf__destroy(skel);
		return;
	}
	id = prog_id_of(skel->progs.track_five);
	if (ASSERT_OK(held_find(id, &h), "track_five in held")) {
		ASSERT_EQ(h.described, 1, "described");
		ASSERT_EQ(h.bare, 1, "bare");
		ASSERT_EQ(h.lazy, 0, "lazy");
		ASSERT_LT(h.slots, 5U, "a sample smaller than what a run holds");
	}
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	for (i = 0; i < 5; i++)
		ASSERT_EQ(run_prog(skel->progs.track_five), 0, "run %d", i);
	n = strace_lines(id, &lines, NULL);
	for (i = 0; i < n; i++)
		gets += strstr(lines[i], "rtg_test_obj_get(") != NULL;
	if (n > 0)
		printf("  %s\n  %s\n", lines[0], lines[n - 1]);
	ASSERT_EQ(n, 50, "calls recorded");
	ASSERT_EQ(gets, 25, "rtg_test_obj_get calls");
	expect_clean("debug mode, described, event on", id);

	if (ASSERT_OK(testmod_go(false), "go=0") && block_snapshot(skel, live0, &h))
		ASSERT_HAS_STR(h.text, " top=0 ", "nothing in the run's table");
	strace_stop();
out:
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the runs");
	track_bpf__destroy(skel);
}

WITH_MODULE(test_track_snapshot, "track=1 check_held=1");
void test_track_snapshot(void)
{
	uint64_t live0 = 0, live1 = 0;
	static struct rtg_held h;
	struct track_bpf *skel;
	char want[160];

	skel = block_setup(&live0);
	if (!skel)
		return;
	if (block_snapshot(skel, live0, &h)) {
		snprintf(want, sizeof(want),
			 "    obj=%#lx func=rtg_test_obj_get [rtg_testmod] release=rtg_test_obj_put insn=",
			 (unsigned long)skel->bss->seen[0]);
		ASSERT_HAS_STR(h.text, want, "the held object in the snapshot");
		ASSERT_HAS_STR(h.text, " top=1 ", "the run holds one thing");
	}
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the run");
	track_bpf__destroy(skel);
}

WITH_MODULE(test_track_nesting, "track=1 check_held=1");
void test_track_nesting(void)
{
	struct track_event ev[16];
	struct track_bpf *skel;
	struct bpf_link *link;
	uint32_t outer, inner;
	int n;

	skel = track_load();
	if (!skel)
		return;
	link = bpf_program__attach(skel->progs.track_inner);
	if (!ASSERT_OK_PTR(link, "attach track_inner"))
		goto out;
	if (track_events_start())
		ASSERT_EQ(run_prog(skel->progs.track_outer), 0, "outer run");
	bpf_link__destroy(link);
	outer = prog_id_of(skel->progs.track_outer);
	inner = prog_id_of(skel->progs.track_inner);
	n = track_events_read(outer, ev, 16);
	ASSERT_EQ(n, 2, "outer: events");
	expect_event(ev, n, 0, true, "rtg_test_obj_get", skel->bss->seen[0]);
	expect_event(ev, n, 1, false, "rtg_test_obj_put", skel->bss->seen[0]);
	n = track_events_read(inner, ev, 16);
	ASSERT_EQ(n, 2, "inner: events");
	expect_event(ev, n, 0, true, "rtg_test_obj_get", skel->bss->seen[1]);
	expect_event(ev, n, 1, false, "rtg_test_obj_put", skel->bss->seen[1]);
	expect_clean("outer", outer);
	expect_clean("inner", inner);
	printf("  outer prog %u held %#lx while inner prog %u took and gave back %#lx\n",
	       outer, (unsigned long)skel->bss->seen[0], inner,
	       (unsigned long)skel->bss->seen[1]);
out:
	track_events_stop();
	track_bpf__destroy(skel);
}

#define STRESS_SECONDS 3

static volatile bool stress_stop;

static void *stress_thread(void *arg)
{
	struct track_bpf *skel = arg;
	static int cpu_next;
	long runs = 0, bad = 0;

	pin_cpu(__sync_fetch_and_add(&cpu_next, 1) % ncpus());
	while (!stress_stop) {
		bad += run_prog(skel->progs.track_branch) != 0;
		bad += run_prog(skel->progs.track_simple) != 0;
		runs += 2;
	}
	return (void *)(bad ? -bad : runs);
}

WITH_MODULE(test_track_concurrency, "track=1");
void test_track_concurrency(void)
{
	int ncpu = ncpus(), i;
	uint64_t live0 = 0, live1 = 1;
	struct track_bpf *skel;
	long total = 0;
	pthread_t th[16];
	void *ret;

	if (!ASSERT_GE(ncpu, 2, "CPUs") || !ASSERT_LE(ncpu, 16, "CPUs"))
		return;
	ASSERT_OK(testmod_live(&live0), "live objects");
	skel = track_load();
	if (!skel)
		return;
	stress_stop = false;
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, stress_thread, skel);
	sleep(STRESS_SECONDS);
	stress_stop = true;
	for (i = 0; i < ncpu; i++) {
		pthread_join(th[i], &ret);
		ASSERT_GT((long)ret, 0, "thread %d's runs (negative: failed runs)", i);
		total += (long)ret;
	}
	expect_clean("branch, all CPUs", prog_id_of(skel->progs.track_branch));
	expect_clean("simple, all CPUs", prog_id_of(skel->progs.track_simple));
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the runs");
	printf("  %ld tracked runs on %d CPUs in %d s, tables empty, no leak\n", total,
	       ncpu, STRESS_SECONDS);
	track_bpf__destroy(skel);
}

#define BLOCKERS 30

/* Every blocked run has its own table in its own frame: none is left out. */
WITH_MODULE(test_track_blocked_runs, "track=1");
void test_track_blocked_runs(void)
{
	uint64_t live0 = 0, live1 = 1;
	static struct rtg_held h;
	struct track_bpf *skel;
	pthread_t th[BLOCKERS];
	long bad = 0;
	int i;
	uint32_t id;
	void *ret;

	skel = block_setup(&live0);
	if (!skel)
		return;
	id = prog_id_of(skel->progs.track_block);
	for (i = 0; i < BLOCKERS; i++)
		pthread_create(&th[i], NULL, block_thread, skel);
	ASSERT_EQ(wait_blocked(BLOCKERS, 10000), BLOCKERS, "runs blocked");
	if (ASSERT_OK(held_find(id, &h), "track_block in held")) {
		printf("  %d runs blocked holding an object: %d listed in held, %d lazy not adopted\n",
		       BLOCKERS, h.nruns, h.lazy_runs);
		/* lazy runs are listed once adopted: blocked, none was */
		ASSERT_EQ(h.nruns, h.lazy ? 0 : BLOCKERS, "runs in flight listed");
		ASSERT_EQ(h.lazy_runs, h.lazy ? BLOCKERS : 0, "lazy runs in flight");
		ASSERT_EQ(h.incomplete, 0L, "incomplete runs");
	}
	ASSERT_OK(testmod_go(true), "go=1");
	for (i = 0; i < BLOCKERS; i++) {
		pthread_join(th[i], &ret);
		bad += ret != NULL;
	}
	ASSERT_EQ(bad, 0L, "failed runs");
	ASSERT_OK(held_find(id, &h), "track_block in held");
	ASSERT_STREQ(h.text, "", "runs listed after they returned");
	ASSERT_EQ(h.unmatched + h.leftover + h.stray, 0L, "bookkeeping errors");
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the runs");
	track_bpf__destroy(skel);
}
