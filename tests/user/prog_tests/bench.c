// SPDX-License-Identifier: GPL-2.0-only
/*
 * make bench: per-call cost of bpf_rtguard's hooks, measured in one guest
 * boot against the same program untraced, and against what a user would
 * attach today for the same per-call record (kprobe+kretprobe or
 * fentry+fexit writing to a BPF ring buffer). Prints figures; asserts
 * nothing about time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "bench.skel.h"
#include "bench_track.skel.h"
#include "watchdog.skel.h"

#define BENCH_RUNS	2000	/* test runs per round */
#define BENCH_ROUNDS	11
#define CALLS_PER_RUN	10

enum bench_variant {
	V_BASE, V_PASSTHROUGH, V_DEBUG_IDLE, V_DEBUG, V_DEBUG_RUNS, V_KPROBE, V_FENTRY, V_NR,
};

static const char *const variant_names[V_NR] = {
	[V_BASE] = "untraced",
	[V_PASSTHROUGH] = "pass-through hook (hook_all=1)",
	[V_DEBUG_IDLE] = "debug hook, trace event off",
	[V_DEBUG] = "debug mode (rtg_call event)",
	[V_DEBUG_RUNS] = "the same, runs recorded (-g)",
	[V_KPROBE] = "kprobe+kretprobe -> ringbuf",
	[V_FENTRY] = "fentry+fexit -> ringbuf",
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void set_params(enum bench_variant v)
{
	param_write("hook_all", v == V_PASSTHROUGH ? "1" : "0");
	bool traced = v == V_DEBUG || v == V_DEBUG_RUNS;

	param_write("debug", traced || v == V_DEBUG_IDLE ? "all" : "off");
	param_write("trace_runs", v == V_DEBUG_RUNS ? "1" : "0");
	system(traced ? "/rtg/rtg-strace --clear; /rtg/rtg-strace --enable" :
	       "/rtg/rtg-strace --disable");
}

/*
 * Median ns per run of bench_calls (ten kfunc calls), or of
 * bench_func_calls (ten calls of a global function) with @func; -1 on
 * error.
 */
static double measure(enum bench_variant v, long *records, bool func)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = BENCH_RUNS,
		    .data_in = test_pkt, .data_size_in = sizeof(test_pkt));
	struct bpf_link *l1 = NULL, *l2 = NULL;
	double t[BENCH_ROUNDS], median = -1;
	struct ring_buffer *rb = NULL;
	struct bench_bpf *skel;
	int i, fd;

	set_params(v);
	skel = bench_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open bench"))
		return -1;
	bpf_program__set_autoload(skel->progs.kp_entry, v == V_KPROBE);
	bpf_program__set_autoload(skel->progs.kp_exit, v == V_KPROBE);
	bpf_program__set_autoload(skel->progs.fe_entry, v == V_FENTRY);
	bpf_program__set_autoload(skel->progs.fe_exit, v == V_FENTRY);
	if (!ASSERT_OK(bench_bpf__load(skel), "load bench"))
		goto out;
	if (v == V_KPROBE) {
		l1 = bpf_program__attach(skel->progs.kp_entry);
		l2 = bpf_program__attach(skel->progs.kp_exit);
	} else if (v == V_FENTRY) {
		l1 = bpf_program__attach(skel->progs.fe_entry);
		l2 = bpf_program__attach(skel->progs.fe_exit);
	}
	if ((v == V_KPROBE || v == V_FENTRY) &&
	    (!ASSERT_OK_PTR(l1, "attach entry") || !ASSERT_OK_PTR(l2, "attach exit")))
		goto out;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), ringbuf_count_record,
			      records, NULL);
	fd = bpf_program__fd(func ? skel->progs.bench_func_calls : skel->progs.bench_calls);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		if (!ASSERT_OK(bpf_prog_test_run_opts(fd, &opts), "run") ||
		    !ASSERT_EQ(opts.retval, 0, "the benchmark program's return"))
			goto out;
		t[i] = opts.duration;
		if (rb)
			ring_buffer__consume(rb);
		if (v == V_DEBUG || v == V_DEBUG_RUNS)
			system("/rtg/rtg-strace --clear");
	}
	qsort(t, BENCH_ROUNDS, sizeof(t[0]), cmp_double);
	median = t[BENCH_ROUNDS / 2];
out:
	ring_buffer__free(rb);
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bench_bpf__destroy(skel);
	return median;
}

WITH_MODULE(bench_calls, "");
void bench_calls(void)
{
	double ns[V_NR], fns[V_NR] = {};
	long records[V_NR] = {};
	int v;

	for (v = 0; v < V_NR; v++)
		ns[v] = measure(v, &records[v], false);
	for (v = V_BASE; v <= V_DEBUG_RUNS; v++)
		if (v != V_PASSTHROUGH)
			fns[v] = measure(v, &records[v], true);
	system("/rtg/rtg-strace --disable");

	printf("bench: %d kfunc calls per run (rtg_test_arg2), %d runs x %d rounds, median round\n",
	       CALLS_PER_RUN, BENCH_RUNS, BENCH_ROUNDS);
	printf("  %-32s %10s %16s %8s\n", "variant", "ns/run", "ns/call added", "x base");
	for (v = 0; v < V_NR; v++)
		printf("  %-32s %10.0f %16.1f %8.2f\n", variant_names[v], ns[v],
		       (ns[v] - ns[V_BASE]) / CALLS_PER_RUN, ns[v] / ns[V_BASE]);
	printf("  ring buffer records: kprobe %ld, fentry %ld (want %d each)\n",
	       records[V_KPROBE], records[V_FENTRY],
	       CALLS_PER_RUN * BENCH_RUNS * BENCH_ROUNDS);
	printf("  per recorded call, debug mode costs %.2fx the kprobe way and %.2fx the fentry way\n",
	       (ns[V_DEBUG] - ns[V_BASE]) / (ns[V_KPROBE] - ns[V_BASE]),
	       (ns[V_DEBUG] - ns[V_BASE]) / (ns[V_FENTRY] - ns[V_BASE]));
	printf("  targets: pass-through hook at most 5 per call, debug hook with the event off at most 3, a recorded call at most 100 over an untraced one\n");
	printf("bench: %d calls of a global function per run (BPF-to-BPF), same runs\n",
	       CALLS_PER_RUN);
	printf("  %-32s %10s %16s\n", "variant", "ns/run", "ns/call added");
	for (v = V_BASE; v <= V_DEBUG_RUNS; v++)
		if (v != V_PASSTHROUGH)
			printf("  %-32s %10.0f %16.1f\n", variant_names[v], fns[v],
			       (fns[v] - fns[V_BASE]) / CALLS_PER_RUN);
}

#define TRACK_PROGS 15
#define TRACK_X2 7	/* the twenty-pair variants of 0, 2, 3 and 4 */
#define TRACK_PARTLY 11	/* pairs_task after a call whose paths differ, and _x2 */
#define TRACK_LOOP 13	/* pairs_task's pairs on a loop, and _x2 */
#define PAIRS_PER_RUN 10

static const char *const track_progs[TRACK_PROGS] = {
	"pairs_task", "pairs_obj", "pairs_task_held1", "pairs_task_held8",
	"pairs_task_held16", "atomic_adds", "plain_adds",
	"pairs_task_x2", "pairs_task_held1_x2", "pairs_task_held8_x2",
	"pairs_task_held16_x2", "pairs_task_partly", "pairs_task_partly_x2",
	"pairs_task_loop", "pairs_task_loop_x2",
};

/* ns per run of one tc program: one round of BENCH_RUNS runs. */
static double time_tc_once(int fd)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = BENCH_RUNS,
		    .data_in = test_pkt, .data_size_in = sizeof(test_pkt));

	if (bpf_prog_test_run_opts(fd, &opts) || opts.retval)
		return -1;
	return opts.duration;
}

/*
 * Medians of two programs timed in alternating rounds, so that drift of
 * the emulated machine hits both alike, and (@diff, if not NULL) the
 * median of the differences of the rounds timed back to back, which a
 * round that a tick or a wakeup of the other vCPU fell in moves less.
 */
static void time_tc_pair(int fd0, int fd1, double *ns0, double *ns1, double *diff)
{
	double t0[BENCH_ROUNDS], t1[BENCH_ROUNDS], d[BENCH_ROUNDS];
	int i;

	for (i = 0; i < BENCH_ROUNDS; i++) {
		t0[i] = time_tc_once(fd0);
		t1[i] = time_tc_once(fd1);
		d[i] = t1[i] - t0[i];
	}
	qsort(t0, BENCH_ROUNDS, sizeof(t0[0]), cmp_double);
	qsort(t1, BENCH_ROUNDS, sizeof(t1[0]), cmp_double);
	qsort(d, BENCH_ROUNDS, sizeof(d[0]), cmp_double);
	*ns0 = t0[BENCH_ROUNDS / 2];
	*ns1 = t1[BENCH_ROUNDS / 2];
	if (diff)
		*diff = d[BENCH_ROUNDS / 2];
}

#define DIFF_ROUNDS	51

/*
 * What program fd1 adds per run over fd0: the median and quartiles of the
 * differences of DIFF_ROUNDS rounds timed back to back, so that a tick or
 * a wakeup of the other vCPU, which icount charges to the round it falls
 * in, hits one difference and not the median; -1 on error.
 */
static int time_tc_diff(int fd0, int fd1, double *med, double *q1, double *q3)
{
	double d[DIFF_ROUNDS];
	int i;

	for (i = 0; i < DIFF_ROUNDS; i++) {
		double t0 = time_tc_once(fd0), t1 = time_tc_once(fd1);

		if (t0 < 0 || t1 < 0)
			return -1;
		d[i] = t1 - t0;
	}
	qsort(d, DIFF_ROUNDS, sizeof(d[0]), cmp_double);
	*q1 = d[DIFF_ROUNDS / 4];
	*q3 = d[DIFF_ROUNDS * 3 / 4];
	*med = d[DIFF_ROUNDS / 2];
	return 0;
}

struct all_cpus {
	pthread_barrier_t *go;
	int fd, cpu;
};

static void *run_on_cpu(void *arg)
{
	struct all_cpus *a = arg;
	int i;

	pin_cpu(a->cpu);
	pthread_barrier_wait(a->go);
	for (i = 0; i < BENCH_ROUNDS; i++)
		time_tc_once(a->fd);
	return NULL;
}

/* Whether the guest runs under -icount (make bench's default). */
static bool icount(void)
{
	char buf[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return strstr(buf, "rtg.icount=1");
}

/*
 * ns per run of one program running on every CPU at once: all runs over
 * the time from the start to the last CPU's end. Under -icount the vCPUs
 * take turns on one host thread and the guest clock counts the
 * instructions of all of them, so that time is the sum of every run;
 * otherwise the CPUs run side by side, and it is each CPU's share.
 */
static double time_tc_all_cpus(int fd)
{
	int ncpu = ncpus(), i;
	struct all_cpus a[16];
	pthread_barrier_t go;
	struct timespec t0, t1;
	pthread_t th[16];
	double ns, runs;

	if (ncpu > 16)
		ncpu = 16;
	pthread_barrier_init(&go, NULL, ncpu + 1);
	for (i = 0; i < ncpu; i++) {
		a[i] = (struct all_cpus){ .go = &go, .fd = fd, .cpu = i };
		pthread_create(&th[i], NULL, run_on_cpu, &a[i]);
	}
	pthread_barrier_wait(&go);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_barrier_destroy(&go);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	runs = (double)ncpu * BENCH_ROUNDS * BENCH_RUNS;
	return icount() ? ns / runs : ns * ncpu / runs;
}

/*
 * ns per run of each program, loaded untracked (0), tracked and described
 * by the verifier (1: no run-time table), and tracked with a run-time
 * table (2: describe=0).
 */
static bool time_track_progs(double ns[3][TRACK_PROGS], double d[3][TRACK_PROGS],
			     double all[3])
{
	static const char *const track[3] = { "0", "1", "1" };
	static const char *const describe[3] = { "1", "1", "0" };
	struct bench_track_bpf *skel[3] = {};
	struct rtg_held h;
	bool ok = false;
	int t, i;

	for (t = 0; t < 3; t++) {
		param_write("track", track[t]);
		param_write("describe", describe[t]);
		skel[t] = bench_track_bpf__open_and_load();
		if (!ASSERT_OK_PTR(skel[t], "load bench_track"))
			goto out;
	}
	for (i = 0; i < TRACK_PROGS; i++) {
		int fd[3];

		for (t = 0; t < 3; t++) {
			struct bpf_program *p;

			p = bpf_object__find_program_by_name(skel[t]->obj, track_progs[i]);
			fd[t] = p ? bpf_program__fd(p) : -1;
		}
		d[0][i] = 0;
		time_tc_pair(fd[0], fd[1], &ns[0][i], &ns[1][i], &d[1][i]);
		time_tc_pair(fd[0], fd[2], &ns[0][i], &ns[2][i], &d[2][i]);
		for (t = 0; t < 3; t++)
			ASSERT_GT(ns[t][i], 0, "%s (%d), ns", track_progs[i], t);
	}
	/* the pairs after the differing call are not recorded: partly described */
	if (ASSERT_OK(held_find(prog_id_of(skel[1]->progs.pairs_task_partly), &h),
		      "pairs_task_partly in held"))
		ASSERT_EQ(h.partly, 1, "pairs_task_partly partly described");
	for (t = 0; t < 3; t++)
		all[t] = time_tc_all_cpus(bpf_program__fd(skel[t]->progs.pairs_task));
	ok = true;
out:
	param_write("track", "0");
	param_write("describe", "1");
	for (t = 0; t < 3; t++)
		bench_track_bpf__destroy(skel[t]);
	return ok;
}

/*
 * a table's row: what a pair adds for tracked variant t over untracked,
 * from the medians of the differences of rounds timed back to back
 */
static void print_track_row(double ns[3][TRACK_PROGS], double d[3][TRACK_PROGS], int t, int i,
			    double atomic)
{
	/* the held references are tracked pairs too, as is the differing call's */
	static const int pairs[TRACK_LOOP + 1] = { 10, 10, 11, 18, 66,
		[TRACK_PARTLY] = 11, [TRACK_LOOP] = 10 };
	static const int x2[TRACK_LOOP + 1] = { TRACK_X2, -1, TRACK_X2 + 1, TRACK_X2 + 2,
		TRACK_X2 + 3, [TRACK_PARTLY] = TRACK_PARTLY + 1, [TRACK_LOOP] = TRACK_LOOP + 1 };
	double all = d[t][i] / pairs[i];
	double pair = all;

	/* ten more pairs, the same held: what they add is theirs alone */
	if (x2[i] > 0)
		pair = (d[t][x2[i]] - d[t][i]) / PAIRS_PER_RUN;
	printf("  %-26s %10.0f %10.0f %14.1f %14.1f %12.2f\n", track_progs[i],
	       ns[0][i], ns[t][i], pair, all, pair / atomic);
}

WITH_MODULE(bench_track, "");
void bench_track(void)
{
	static const char *const what[3] = { NULL,
		"described by the verifier (no run-time table; target: within 2 of untracked)",
		"with a run-time table (describe=0; target: at most 33)" };
	double ns[3][TRACK_PROGS], d[3][TRACK_PROGS], all[3], atomic;
	int i, t;

	if (!time_track_progs(ns, d, all))
		return;
	atomic = (ns[0][5] - ns[0][6]) / 10;
	printf("bench: tracking, 10 (and 20) acquire+release pairs per run (tc test runs), %d runs x %d rounds,\n"
	       "       untracked and tracked timed in alternating rounds: medians, and added from the median of\n"
	       "       the differences of rounds timed back to back\n",
	       BENCH_RUNS, BENCH_ROUNDS);
	for (t = 1; t < 3; t++) {
		printf(" tracked, %s:\n", what[t]);
		printf("  %-26s %10s %10s %14s %14s %12s\n", "program", "untracked", "tracked",
		       "pair added", "all averaged", "x atomic add");
		for (i = 0; i < 5; i++)
			print_track_row(ns, d, t, i, atomic);
		print_track_row(ns, d, t, TRACK_PARTLY, atomic);
		print_track_row(ns, d, t, TRACK_LOOP, atomic);
		printf("  %-26s %10.0f %10.0f %14.1f %14s %12.2f\n", "pairs_task, all CPUs at once",
		       all[0], all[t], (all[t] - all[0]) / PAIRS_PER_RUN, "",
		       (all[t] - all[0]) / PAIRS_PER_RUN / atomic);
	}
	printf("  yardstick: one BPF atomic add on a map value costs %.1f ns over a plain add (%.0f vs %.0f ns per 10)\n",
	       atomic, ns[0][5], ns[0][6]);
	printf("  (one pair is two hooked calls, acquire and release. pair added: what ten more pairs add, per pair;\n"
	       "   all averaged: the run's whole tracking cost over its 10 + N pairs, the N held ones acquired\n"
	       "   before and released after the ten, first in first out within groups of eight, with entry and exit;\n"
	       "   pairs_task_partly: the pairs after a call whose paths differ, which partly describes the program\n"
	       "   when tracked with describe=1, and which the pairs never reach: they are not recorded;\n"
	       "   the others' pairs are unrolled, a call each run makes once; pairs_task_loop: the same pairs on\n"
	       "   a loop, whose calls a run makes again, where a described acquisition tests its CPU's word)\n");
}

/* Loads of bench.bpf.o's bench_calls under the given parameters. */
static struct bench_bpf *bench_calls_load(const char *track, const char *wd_ms)
{
	struct bench_bpf *skel;

	param_write("track", track);
	param_write("watchdog_ms", wd_ms);
	skel = bench_bpf__open();
	if (!skel)
		return NULL;
	bpf_program__set_autoload(skel->progs.kp_entry, false);
	bpf_program__set_autoload(skel->progs.kp_exit, false);
	bpf_program__set_autoload(skel->progs.fe_entry, false);
	bpf_program__set_autoload(skel->progs.fe_exit, false);
	if (!bench_bpf__load(skel))
		return skel;
	bench_bpf__destroy(skel);
	return NULL;
}

#define STOPS 9

struct tick_figures {
	double tick_ns;		/* an armed tick, judging the run in flight */
	double idle_off;	/* wakeups per CPU and second, idle, watchdog off */
	double idle_on;		/* the same, watchdog_ms set */
	double run_ms;		/* a run stopped at 500 ms */
	uint64_t run_wakeups;	/* expiries during it, all CPUs */
	uint64_t run_idle;	/* of which, found no run in flight */
};

/*
 * The watchdog's timers with n tracked programs loaded: idle, with the
 * watchdog off and on, then while one CPU runs a run of 500 ms (the cost
 * of a tick, and what the other CPUs see).
 */
static void tick_cost(int n, struct tick_figures *f)
{
	static struct bench_bpf *skel[100];
	struct rlimit files = { 4096, 4096 };
	struct watchdog_bpf *wd;
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
	uint64_t i0 = 0, i1 = 0;
	int i, loaded = 0, cpus = ncpus();
	double s0, s1, s2, s3;

	memset(f, 0, sizeof(*f));
	/* 100 skeletons of a dozen programs and maps outgrow 1024 files */
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &files), "RLIMIT_NOFILE");
	for (i = 0; i < n; i++)
		loaded += !!(skel[i] = bench_calls_load("1", "0"));
	wd = watchdog_bpf__open();
	if (wd) {
		wd->bss->target_pid = getpid();
		if (watchdog_bpf__load(wd)) {
			watchdog_bpf__destroy(wd);
			wd = NULL;
		}
	}
	s0 = now_ms();
	stat_read("watchdog_wakeups", &w0);
	usleep(1000000);
	stat_read("watchdog_wakeups", &w1);
	s1 = now_ms();
	param_write("watchdog_ms", "500");
	stat_read("watchdog_wakeups", &w2);
	s2 = now_ms();
	usleep(1000000);
	stat_read("watchdog_wakeups", &w3);
	s3 = now_ms();
	f->idle_off = (w1 - w0) / cpus / ((s1 - s0) / 1000);
	f->idle_on = (w3 - w2) / cpus / ((s3 - s2) / 1000);
	if (ASSERT_OK_PTR(wd, "load watchdog")) {
		stat_read("watchdog_ticks", &n0);
		stat_read("watchdog_tick_ns", &t0);
		stat_read("watchdog_idle_wakeups", &i0);
		ASSERT_EQ(run_prog_timed(wd->progs.wd_loop, &f->run_ms), -ETIMEDOUT,
			  "wd_loop stopped");
		stat_read("watchdog_ticks", &n1);
		stat_read("watchdog_tick_ns", &t1);
		stat_read("watchdog_wakeups", &w0);
		stat_read("watchdog_idle_wakeups", &i1);
		f->run_wakeups = w0 - w3;
		f->run_idle = i1 - i0;
		f->tick_ns = n1 > n0 ? (double)(t1 - t0) / (n1 - n0) : -1;
		watchdog_bpf__destroy(wd);
	}
	param_write("watchdog_ms", "0");
	for (i = 0; i < n; i++)
		bench_bpf__destroy(skel[i]);
	ASSERT_EQ(loaded, n, "tracked programs loaded");
}

static void bench_ticks(void)
{
	struct tick_figures one, hundred;

	tick_cost(1, &one);
	tick_cost(100, &hundred);
	printf("  armed watchdog tick, per CPU: %.0f ns with 1 tracked program loaded, %.0f ns with 100 (one run in flight; target: equal)\n",
	       one.tick_ns, hundred.tick_ns);
	printf("  watchdog timer wakeups per CPU and second, 100 tracked programs loaded, idle: %.0f with the watchdog off, %.0f with watchdog_ms set (target: 0 with no run in flight)\n",
	       hundred.idle_off, hundred.idle_on);
	printf("  a run of %.0f ms on one CPU of %d: %lu timer expiries, %lu of them with no run in flight on their CPU (target: 0, one after the run's end at most)\n",
	       hundred.run_ms, ncpus(), hundred.run_wakeups, hundred.run_idle);
}

#define HOLD_TURNS	1000
#define HOLD_ROUNDS	5

/* ns of one run of a syscall program, from the call to its return; or -1. */
static double time_run_once(const struct bpf_program *prog)
{
	double ms;

	if (run_prog_timed(prog, &ms))
		return -1;
	return ms * 1e6;
}

/*
 * What a hold limit costs a long described run that holds an object
 * across its acquiring calls, which it then watches (rtg_run_acquiring()):
 * wd_reheld keeping its object, with hold_limit_us off and set (never
 * reached), per turn of its loop (one acquiring call, one other call).
 */
static void bench_hold_watch(void)
{
	double d[HOLD_ROUNDS], off = -1, on = -1;
	struct watchdog_bpf *wd = NULL;
	char check[8] = "0";
	int i;

	param_read("check_held", check, sizeof(check));
	param_write("track", "1");
	param_write("describe", "1");
	param_write("check_held", "0");
	wd = watchdog_bpf__open();
	if (!ASSERT_OK_PTR(wd, "open watchdog"))
		goto out;
	wd->bss->target_pid = getpid();
	wd->bss->reheld_keep = 1;
	wd->data->reheld_loops = HOLD_TURNS;
	if (!ASSERT_OK(watchdog_bpf__load(wd), "load watchdog"))
		goto out;
	for (i = 0; i < HOLD_ROUNDS; i++) {
		param_write("hold_limit_us", "0");
		off = time_run_once(wd->progs.wd_reheld);
		param_write("hold_limit_us", "10000000");
		on = time_run_once(wd->progs.wd_reheld);
		d[i] = on - off;
		if (!ASSERT_GT(off, 0, "run, hold_limit_us off") ||
		    !ASSERT_GT(on, 0, "run, hold_limit_us set"))
			goto out;
	}
	qsort(d, HOLD_ROUNDS, sizeof(d[0]), cmp_double);
	printf("  a described run holding an object over %d turns of an acquiring call and another call (%.0f ns per turn): hold_limit_us set adds %.0f ns per turn (median of %d; watched acquisitions and the ticks' samples)\n",
	       HOLD_TURNS, off / HOLD_TURNS, d[HOLD_ROUNDS / 2] / HOLD_TURNS, HOLD_ROUNDS);
out:
	param_write("hold_limit_us", "0");
	param_write("check_held", check);
	param_write("track", "0");
	watchdog_bpf__destroy(wd);
}

/* A run's entry and exit: prog1 (tracked) against prog0 (untracked). */
static void time_entry_exit(const struct bpf_program *prog0, const struct bpf_program *prog1,
			    const char *what, const char *target)
{
	double one0, one1, diff = -1, q1 = -1, q3 = -1;

	time_tc_pair(bpf_program__fd(prog0), bpf_program__fd(prog1), &one0, &one1, NULL);
	ASSERT_OK(time_tc_diff(bpf_program__fd(prog0), bpf_program__fd(prog1), &diff, &q1, &q3),
		  "entry+exit timed, %s", what);
	printf("  run entry+exit of a tracked program %s: %.0f ns, quartiles %.0f to %.0f, of %d back-to-back rounds (%.0f vs %.0f per run, medians; target %s)\n",
	       what, diff, q1, q3, DIFF_ROUNDS, one0, one1, target);
}

WITH_MODULE(bench_watchdog, "");
void bench_watchdog(void)
{
	struct bench_bpf *plain, *tracked, *guarded;
	double base, armed, lat[STOPS];
	struct watchdog_bpf *wd;
	int i;

	plain = bench_calls_load("0", "0");
	tracked = bench_calls_load("1", "0");
	guarded = bench_calls_load("1", "60000");	/* armed, never firing */
	if (ASSERT_OK_PTR(plain, "load untracked") & ASSERT_OK_PTR(tracked, "load tracked") &
	    ASSERT_OK_PTR(guarded, "load tracked")) {
		double trk;

		/* loading guarded set watchdog_ms: arm it only where asked */
		param_write("watchdog_ms", "0");
		printf("bench: watchdog, 10 kfunc calls per run (tc test runs), %d runs x %d rounds, median\n",
		       BENCH_RUNS, BENCH_ROUNDS);
		time_entry_exit(plain->progs.bench_one_call, tracked->progs.bench_one_call,
				"that runs straight (one call per run, not bracketed)", "0");
		time_entry_exit(plain->progs.bench_one_call_loop,
				tracked->progs.bench_one_call_loop,
				"with a loop (one call, one turn per run)", "at most 8");
		time_tc_pair(bpf_program__fd(plain->progs.bench_calls_loop),
			     bpf_program__fd(tracked->progs.bench_calls_loop), &base, &trk, NULL);
		param_write("watchdog_ms", "60000");
		time_tc_pair(bpf_program__fd(plain->progs.bench_calls_loop),
			     bpf_program__fd(guarded->progs.bench_calls_loop), &base, &armed, NULL);
		param_write("watchdog_ms", "0");
		printf("  untracked %.0f ns/run, tracked %.0f, tracked with watchdog_ms armed %.0f (the ten calls on a loop): armed adds %.1f ns per call over tracked (target at most 5)\n",
		       base, trk, armed, (armed - trk) / 10);
	}
	bench_bpf__destroy(plain);
	bench_bpf__destroy(tracked);
	bench_bpf__destroy(guarded);
	bench_ticks();
	bench_hold_watch();

	/* stop latency: budget expiry to the caller getting control back */
	param_write("watchdog_ms", "50");
	param_write("track", "1");
	wd = watchdog_bpf__open();
	if (ASSERT_OK_PTR(wd, "open watchdog")) {
		wd->bss->target_pid = getpid();
		if (ASSERT_OK(watchdog_bpf__load(wd), "load watchdog")) {
			for (i = 0; i < STOPS; i++) {
				LIBBPF_OPTS(bpf_test_run_opts, opts);
				struct timespec a, b;

				clock_gettime(CLOCK_MONOTONIC, &a);
				bpf_prog_test_run_opts(bpf_program__fd(wd->progs.wd_loop), &opts);
				clock_gettime(CLOCK_MONOTONIC, &b);
				lat[i] = (b.tv_sec - a.tv_sec) * 1e3 +
					 (b.tv_nsec - a.tv_nsec) / 1e6 - 50;
				ASSERT_EQ((int)opts.retval, -ETIMEDOUT, "stop %d's return", i);
			}
			qsort(lat, STOPS, sizeof(lat[0]), cmp_double);
			printf("  stop latency over %d stops (budget 50 ms, run to return): min %.2f ms, median %.2f ms, max %.2f ms (target: median at most 1 ms)\n",
			       STOPS, lat[0], lat[STOPS / 2], lat[STOPS - 1]);
		}
		watchdog_bpf__destroy(wd);
	}
	param_write("watchdog_ms", "0");
	param_write("track", "0");
}
