// SPDX-License-Identifier: GPL-2.0-only
/*
 * Watchdog: runaway programs are stopped within the budget, everything
 * they held is released exactly once, and they return the documented
 * value; programs that behave, or run with the watchdog off, are untouched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "watchdog.skel.h"

#define HELD "/sys/kernel/debug/" MOD_RTGUARD "/held"
#define LIVE "/sys/kernel/debug/" MOD_TESTMOD "/live"
#define STOP_MARGIN_MS 3000	/* TCG: detection, unwinding, a slow guest */

struct wd_counts {
	long exhausted, unmatched, stops, released;
	bool runs_left;
};

static bool wd_counts(uint32_t id, struct wd_counts *c)
{
	FILE *f = fopen(HELD, "r");
	char line[512];
	bool in = false, found = false;

	memset(c, 0, sizeof(*c));
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned int pid, slots, nruns;
		struct wd_counts t;
		char name[32];

		if (line[0] != ' ') {
			in = sscanf(line, "%u %31s %u %u %ld %ld %ld %ld", &pid, name,
				    &slots, &nruns, &t.exhausted, &t.unmatched,
				    &t.stops, &t.released) == 8 && pid == id;
			if (in) {
				t.runs_left = false;
				*c = t;
				found = true;
			}
		} else if (in && strstr(line, "  run pid=")) {
			c->runs_left = true;
		}
	}
	fclose(f);
	return found;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Run a program (tc ones on a packet); its return value, and how long it took. */
static int run_timed(struct bpf_program *prog, double *ms)
{
	uint8_t pkt[54] = { [12] = 0x08, [14] = 0x45, [23] = 6 };
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	double t0;
	int err;

	if (bpf_program__type(prog) == BPF_PROG_TYPE_SCHED_CLS) {
		opts.data_in = pkt;
		opts.data_size_in = sizeof(pkt);
		opts.repeat = 1;
	}
	t0 = now_ms();
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	*ms = now_ms() - t0;
	return err ? -errno : (int)opts.retval;
}

static struct watchdog_bpf *wd_load(const char *params)
{
	struct watchdog_bpf *skel;

	if (!CHECK(!mod_load(MOD_RTGUARD, params), "insmod %s", params))
		return NULL;
	skel = watchdog_bpf__open();
	if (CHECK(skel, "open")) {
		skel->bss->target_pid = getpid();
		if (CHECK(!watchdog_bpf__load(skel), "load: %s", strerror(errno)))
			return skel;
		watchdog_bpf__destroy(skel);
	}
	mod_unload_wait(MOD_RTGUARD, 5000);
	return NULL;
}

static void wd_unload(struct watchdog_bpf *skel)
{
	watchdog_bpf__destroy(skel);
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

static bool dmesg_has(const char *needle)
{
	static char buf[1 << 18];
	int n = klogctl(3, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, needle);
}

/*
 * Run prog and expect a stop: within budget + margin, the return value
 * want, released things given back, nothing left, live objects as before.
 */
static void expect_stop(struct bpf_program *prog, int budget_ms, int want,
			long released, const char *how)
{
	uint64_t live0 = 0, live1 = 1;
	uint32_t id = prog_id(bpf_program__fd(prog));
	struct wd_counts c;
	char needle[128];
	double ms;
	int ret;

	read_u64(LIVE, &live0);
	ret = run_timed(prog, &ms);
	printf("  %s: returned %d after %.0f ms\n", bpf_program__name(prog), ret, ms);
	CHECK(ret == want, "%s returned %d, want %d", bpf_program__name(prog), ret, want);
	CHECK(ms < budget_ms + STOP_MARGIN_MS, "%s stopped after %.0f ms, budget %d ms",
	      bpf_program__name(prog), ms, budget_ms);
	read_u64(LIVE, &live1);
	CHECK(live1 == live0, "live objects %lu after, %lu before", live1, live0);
	if (CHECK(wd_counts(id, &c), "%s not tracked", bpf_program__name(prog))) {
		CHECK(c.stops == 1, "%ld stops", c.stops);
		/* between two inner loops the inner iterator is not held */
		if (released >= 0)
			CHECK(c.released == released || c.released == released - 1,
			      "%ld released, want %ld (or %ld between inner loops)",
			      c.released, released, released - 1);
		CHECK(!c.runs_left && !c.unmatched && !c.exhausted,
		      "after the stop: runs left %d, %ld unmatched, %ld exhausted",
		      c.runs_left, c.unmatched, c.exhausted);
	}
	snprintf(needle, sizeof(needle), "bpf_rtguard: stopped prog %u %s after", id,
		 bpf_program__name(prog));
	CHECK(dmesg_has(needle), "no dmesg line '%s'", needle);
	CHECK(dmesg_has(how), "no '%s' in dmesg", how);
}

#define TASK_USAGE "/sys/kernel/debug/" MOD_TESTMOD "/task_usage"

void test_watchdog_runtime(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");
	uint64_t usage0 = 0, usage1 = 1;
	char pid[16];

	if (!skel)
		return;
	snprintf(pid, sizeof(pid), "%d", getpid());
	CHECK(!write_file(TASK_USAGE, pid) && !read_u64(TASK_USAGE, &usage0),
	      "task usage");
	/* object, task, and the two loops' iterators */
	expect_stop(skel->progs.wd_loop, 200, -ETIMEDOUT, 4, "released and unwound");
	/* the task reference the program held was dropped */
	CHECK(!read_u64(TASK_USAGE, &usage1) && usage1 == usage0,
	      "task usage %lu after the stop, %lu before", usage1, usage0);
	printf("  task usage count %lu before and %lu after\n", usage0, usage1);
	wd_unload(skel);
}

void test_watchdog_subprog(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");

	if (!skel)
		return;
	/* stopped in sub_spin(): object and the two iterators */
	expect_stop(skel->progs.wd_subprog, 200, -ETIMEDOUT, 3, "released and unwound");
	wd_unload(skel);
}

static int count_record(void *ctx, void *data, size_t size)
{
	(*(long *)ctx)++;
	return 0;
}

void test_watchdog_sections(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");
	struct ring_buffer *rb;
	long records = 0;
	double ms;

	if (!skel)
		return;
	/* RCU section, ring buffer record, two iterators */
	expect_stop(skel->progs.wd_sections, 200, -ETIMEDOUT, 4, "released and unwound");
	/*
	 * The record was discarded: a consumer skips it and frees its space,
	 * so that a record of the same size fits again. A record left busy
	 * would stop the consumer, and the reservation would fail.
	 */
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), count_record, &records, NULL);
	if (CHECK(rb, "ring_buffer__new: %s", strerror(errno))) {
		CHECK(ring_buffer__consume(rb) == 0 && records == 0,
		      "%ld records consumed", records);
		CHECK(run_timed(skel->progs.wd_rb_check, &ms) == 0, "ring buffer still full");
		ring_buffer__consume(rb);
		CHECK(run_timed(skel->progs.wd_rb_check, &ms) == 0, "ring buffer still full");
		ring_buffer__free(rb);
	}
	wd_unload(skel);
}

void test_watchdog_callback(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");

	if (!skel)
		return;
	skel->data->outer = 100000;
	/* bpf_loop calls the callback from C: fast-execute, the program's own return */
	expect_stop(skel->progs.wd_loop_cb, 200, 0, -1, "fast-executed");
	wd_unload(skel);
}

void test_watchdog_hold_limit(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 hold_limit_us=20000");
	struct wd_counts c;
	double ms;
	int ret;

	if (!skel)
		return;
	/* ten 2 ms sleeps, nothing held for long: runs past the limit */
	ret = run_timed(skel->progs.wd_short_holds, &ms);
	printf("  wd_short_holds: returned %d after %.0f ms\n", ret, ms);
	CHECK(ret == 0, "short holds returned %d", ret);
	CHECK(ms > 20, "short holds took only %.0f ms", ms);
	CHECK(wd_counts(prog_id(bpf_program__fd(skel->progs.wd_short_holds)), &c) &&
	      c.stops == 0, "short holds stopped %ld times", c.stops);
	/* holds an object through the loops: stopped by the hold limit */
	expect_stop(skel->progs.wd_loop, 20, -ETIMEDOUT, 4, "(hold_limit_us)");
	wd_unload(skel);
}

static void *wd_thread(void *arg)
{
	double ms;

	return (void *)(long)run_timed(arg, &ms);
}

void test_watchdog_all_cpus(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	uint64_t live0 = 0, live1 = 1;
	struct wd_counts c;
	pthread_t th[16];
	void *ret;

	if (!skel)
		return;
	read_u64(LIVE, &live0);
	for (i = 0; i < ncpu && i < 16; i++)
		pthread_create(&th[i], NULL, wd_thread, skel->progs.wd_loop);
	for (i = 0; i < ncpu && i < 16; i++) {
		pthread_join(th[i], &ret);
		CHECK((long)ret == -ETIMEDOUT, "run %d returned %ld", i, (long)ret);
	}
	read_u64(LIVE, &live1);
	CHECK(live1 == live0, "live objects %lu after, %lu before", live1, live0);
	CHECK(wd_counts(prog_id(bpf_program__fd(skel->progs.wd_loop)), &c) &&
	      c.stops == ncpu && !c.runs_left, "%ld stops of %d runs", c.stops, ncpu);
	printf("  %d runs on %d CPUs stopped at once\n", ncpu, ncpu);
	wd_unload(skel);
}

/* With the watchdog off, a tracked program computes what an untracked one does. */
void test_watchdog_off(void)
{
	struct watchdog_bpf *skel;
	uint64_t sum[2] = {};
	double ms;
	int t;

	for (t = 0; t < 2; t++) {
		skel = wd_load(t ? "track=1" : "track=0");
		if (!skel)
			return;
		skel->data->outer = 3;
		CHECK(run_timed(skel->progs.wd_loop, &ms) == 0, "run (track=%d)", t);
		sum[t] = skel->bss->sum;
		wd_unload(skel);
	}
	CHECK(sum[0] == sum[1] && sum[0], "sums %lu untracked, %lu tracked", sum[0], sum[1]);
}

void test_watchdog_tc_socket(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct watchdog_bpf *skel;
	double ms;
	int lfd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	REQUIRE(lfd >= 0 && !bind(lfd, (void *)&addr, sizeof(addr)) && !listen(lfd, 1) &&
		!getsockname(lfd, (void *)&addr, &alen), "listener: %s", strerror(errno));
	skel = wd_load("track=1 watchdog_ms=200");
	if (skel) {
		skel->bss->listen_port = ntohs(addr.sin_port);
		/* the socket and the two iterators; tc programs return TC_ACT_SHOT */
		expect_stop(skel->progs.wd_tc_sock, 200, TC_ACT_SHOT, 3, "released and unwound");
		/* the socket is still there to be looked up and released */
		skel->data->outer = 1;
		CHECK(run_timed(skel->progs.wd_tc_sock, &ms) == 0, "lookup after the stop");
		wd_unload(skel);
	}
	close(lfd);
}

void test_watchdog_nested(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");
	struct bpf_link *link;
	struct wd_counts c;

	if (!skel)
		return;
	skel->bss->inner_pid = getpid();
	link = bpf_program__attach(skel->progs.wd_inner);
	if (CHECK(link, "attach: %s", strerror(errno))) {
		expect_stop(skel->progs.wd_loop, 200, -ETIMEDOUT, 4, "released and unwound");
		bpf_link__destroy(link);
		CHECK(skel->bss->inner_runs > 0, "the nested program never ran");
		CHECK(wd_counts(prog_id(bpf_program__fd(skel->progs.wd_inner)), &c) &&
		      !c.runs_left && !c.unmatched && !c.stops,
		      "nested program: runs left %d, %ld unmatched, %ld stops",
		      c.runs_left, c.unmatched, c.stops);
		printf("  the nested fentry program ran %lu times, its runs all clean\n",
		       (unsigned long)skel->bss->inner_runs);
	}
	wd_unload(skel);
}

void test_watchdog_preempt(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=200");

	if (!skel)
		return;
	/* the preemption section and the two iterators; an unbalanced
	 * preempt count would show as a scheduling-while-atomic report
	 */
	expect_stop(skel->progs.wd_preempt, 200, -ETIMEDOUT, 3, "released and unwound");
	wd_unload(skel);
}

static void *spin_thread(void *arg)
{
	struct watchdog_bpf *skel = arg;
	static int cpu_next;
	cpu_set_t set;
	double ms;

	CPU_ZERO(&set);
	CPU_SET(__sync_fetch_and_add(&cpu_next, 1) % 2, &set);
	sched_setaffinity(0, sizeof(set), &set);
	return (void *)(long)run_timed(skel->progs.wd_spin, &ms);
}

/* rtg_release events the watchdog emitted for a held spin lock */
static int spin_lock_releases(void)
{
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, " rtg_release: ") && strstr(line, "func=bpf_spin_lock");
	fclose(f);
	return n;
}

/*
 * A BPF spin lock is held with interrupts off and only a few calls are
 * allowed under it, so a run is stopped holding one only when the timer
 * on another CPU marks it inside the locked region and the stop comes at
 * bpf_spin_unlock(): repeat until that happened, and check every time
 * that the lock is free afterwards.
 */
void test_watchdog_spin_lock(void)
{
	struct watchdog_bpf *skel = wd_load("track=1 watchdog_ms=100");
	int round, held = 0, i;
	pthread_t th[2];
	void *ret;
	double ms;

	if (!skel)
		return;
	CHECK(!write_file("/sys/kernel/tracing/events/bpf_rtguard/rtg_release/enable", "1") &&
	      !write_file("/sys/kernel/tracing/trace", ""), "enable events");
	for (round = 0; round < 100 && !held; round++) {
		for (i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, spin_thread, skel);
		for (i = 0; i < 2; i++) {
			pthread_join(th[i], &ret);
			CHECK((long)ret == TC_ACT_SHOT, "round %d: wd_spin returned %ld",
			      round, (long)ret);
		}
		CHECK(run_timed(skel->progs.wd_spin_once, &ms) == 0, "lock taken after a stop");
		held = spin_lock_releases();
	}
	printf("  %d rounds of 2 stopped runs until one was stopped holding the spin lock\n",
	       round);
	CHECK(held > 0, "no run was stopped while it held the spin lock");
	write_file("/sys/kernel/tracing/events/bpf_rtguard/rtg_release/enable", "0");
	wd_unload(skel);
}
