// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs on runs.bpf.c: a run is the execution of a tracked program from
 * its first instruction to its return, with its own table in its own
 * frame. A run that holds nothing is watched and stopped; a run nested in
 * a run of the same program keeps its own resources; references held
 * across a global function are all released by a stop; preemption nested
 * deeper than any fixed table comes back; a million short runs are never
 * stopped by a watchdog armed at 100 times their length; programs without
 * calls and classic socket filters are never tracked; tables are empty
 * between runs and held lists only runs in flight.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "runs.skel.h"

static struct runs_bpf *runs_load(void)
{
	struct runs_bpf *skel = runs_bpf__open_and_load();

	ASSERT_OK_PTR(skel, "load runs.bpf.o");
	return skel;
}

/* Run @prog, expect a stop and nothing left behind. */
static void expect_stopped(struct bpf_program *prog, int want_stops, long want_released)
{
	const char *name = bpf_program__name(prog);
	uint64_t live0 = 0, live1 = 1;
	static struct rtg_held h;
	double ms;
	int ret;

	ASSERT_OK(testmod_live(&live0), "live objects");
	ret = run_prog_timed(prog, &ms);
	printf("  %s: returned %d after %.0f ms\n", name, ret, ms);
	ASSERT_EQ(ret, -ETIMEDOUT, "%s's return", name);
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the stop");
	if (ASSERT_OK(held_find(prog_id_of(prog), &h), "%s in held", name)) {
		ASSERT_EQ(h.stops, (long)want_stops, "%s: stops", name);
		if (want_released >= 0)
			ASSERT_EQ(h.released, want_released, "%s: released", name);
		ASSERT_EQ(h.unmatched, 0L, "%s: unmatched releases", name);
		ASSERT_EQ(h.leftover, 0L, "%s: left in the table", name);
		ASSERT_EQ(h.stray, 0L, "%s: calls outside a run", name);
		ASSERT_EQ(h.nruns, 0, "%s: runs listed after it returned", name);
	}
}

WITH_MODULE(test_runs_stop, "track=1 watchdog_ms=100");
void test_runs_stop(void)
{
	struct runs_bpf *skel = runs_load();

	if (!skel)
		return;
	/* nothing held: watched from its entry, left across bpf_loop() */
	if (test__start_subtest("idle_loop"))
		expect_stopped(skel->progs.runs_idle_loop, 1, 0);
	/* 8 + 8 references */
	if (test__start_subtest("global_subprog"))
		expect_stopped(skel->progs.runs_global, 1, 16);
	/* 16 nested preemption sections, more than any fixed table had */
	if (test__start_subtest("preempt16"))
		expect_stopped(skel->progs.runs_preempt16, 1, 16);
	if (test__start_subtest("nested_same_prog")) {
		struct bpf_program *prog = skel->progs.runs_nested;

		skel->bss->self_fd = bpf_program__fd(prog);
		/* the inner run and then the outer one, each with its own object */
		expect_stopped(prog, 2, 2);
		ASSERT_EQ(skel->data->inner_ret, -ETIMEDOUT, "inner run's return");
		ASSERT_EQ(skel->data->outer_ret, 0, "outer run went on after the inner stop");
	}
	runs_bpf__destroy(skel);
}

struct short_runs {
	struct bpf_program *prog;
	int cpu;
	long runs, want;
	int err;
};

static void *short_runs_fn(void *arg)
{
	struct short_runs *s = arg;
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = test_pkt,
		.data_size_in = sizeof(test_pkt),
		.repeat = 10000,
	);
	int i;

	pin_cpu(s->cpu);
	for (i = 0; s->runs < s->want && !s->err; i++) {
		s->err = bpf_prog_test_run_opts(bpf_program__fd(s->prog), &opts);
		s->runs += opts.repeat;
	}
	return NULL;
}

/*
 * A watchdog armed far above a run's length never stops a run that
 * behaves: the timer judges a run from the CPU it runs on, between two of
 * its instructions, so it never sees a run half begun or a table changing
 * owner, and it charges a run only for its CPU's time on it. A short run
 * takes ~8 us of guest time here; a run preempted by another task is not
 * charged for the time it was out, and one whose vCPU the host stopped
 * (a TCG vCPU is a host thread, which the host may deschedule for tens of
 * milliseconds while guest time goes on) is charged at most 2 ms for it.
 * make check runs this on 2 vCPUs and, under full preemption, on 4 vCPUs
 * over 2 host cores.
 */
WITH_MODULE(test_runs_no_spurious_stop, "track=1");
void test_runs_no_spurious_stop(void)
{
	struct runs_bpf *skel = runs_load();
	struct short_runs s[16] = {};
	pthread_t th[16];
	int n = ncpus(), i;
	static struct rtg_held h;
	long total = 0;

	if (!skel)
		return;
	if (n > 16)
		n = 16;
	ASSERT_OK(param_write("watchdog_ms", "100"), "watchdog_ms");
	ASSERT_OK(param_write("hold_limit_us", "100000"), "hold_limit_us");
	for (i = 0; i < n; i++) {
		s[i].prog = skel->progs.runs_short;
		s[i].cpu = i;
		s[i].want = 1000000 / n;
		ASSERT_OK(pthread_create(&th[i], NULL, short_runs_fn, &s[i]), "thread %d", i);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++) {
		ASSERT_OK(s[i].err, "test runs on CPU %d", i);
		total += s[i].runs;
	}
	ASSERT_OK(param_write("watchdog_ms", "0"), "watchdog_ms");
	ASSERT_OK(param_write("hold_limit_us", "0"), "hold_limit_us");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.runs_short), &h), "in held")) {
		printf("  %ld short runs, %ld stopped\n", total, h.stops);
		ASSERT_EQ(h.stops, 0L, "stops of runs that behave");
		ASSERT_EQ(h.unmatched, 0L, "unmatched releases");
		ASSERT_EQ(h.nruns, 0, "runs listed after they returned");
	}
	ASSERT_GE(total, 500000L, "short runs made");
	runs_bpf__destroy(skel);
}

struct waiter {
	struct bpf_program *prog;
	int ret;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;

	w->ret = run_prog(w->prog);
	return NULL;
}

/* Any number of runs may sleep at once, each with its table. */
#define WAITERS 100
WITH_MODULE(test_runs_many_sleeping, "track=1");
void test_runs_many_sleeping(void)
{
	struct runs_bpf *skel = runs_load();
	static struct waiter w[WAITERS];
	static pthread_t t[WAITERS];
	static struct rtg_held h;
	uint64_t waiting = 0, live0 = 0, live1 = 1;
	int i, tries;

	if (!skel)
		return;
	ASSERT_OK(testmod_live(&live0), "live objects");
	ASSERT_OK(testmod_go(false), "hold the runs");
	for (i = 0; i < WAITERS; i++) {
		w[i].prog = skel->progs.runs_wait;
		ASSERT_OK(pthread_create(&t[i], NULL, waiter_fn, &w[i]), "thread %d", i);
	}
	for (tries = 0; tries < 200 && waiting < WAITERS; tries++) {
		usleep(20000);
		testmod_waiting(&waiting);
	}
	ASSERT_EQ(waiting, (uint64_t)WAITERS, "runs blocked at once");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.runs_wait), &h), "in held")) {
		/* lazy runs are listed once adopted: blocked, none was */
		ASSERT_EQ(h.nruns, h.lazy ? 0 : WAITERS, "runs in flight listed");
		ASSERT_EQ(h.lazy_runs, h.lazy ? WAITERS : 0, "lazy runs in flight");
		ASSERT_EQ(h.incomplete, 0L, "incomplete runs");
	}
	ASSERT_OK(testmod_go(true), "let them go");
	for (i = 0; i < WAITERS; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(w[i].ret, 0, "run %d", i);
	}
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the runs");
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.runs_wait), &h), "in held")) {
		ASSERT_EQ(h.nruns, 0, "runs listed after they returned");
		ASSERT_EQ(h.unmatched + h.leftover + h.stray, 0L, "bookkeeping errors");
	}
	runs_bpf__destroy(skel);
}

/* The JIT image of runs_no_calls, loaded with track set to @track. */
static int no_calls_image(const char *track, uint8_t *buf, uint32_t *len)
{
	struct bpf_prog_info info = {};
	uint32_t ilen = sizeof(info);
	struct runs_bpf *skel;
	int err;

	param_write("track", track);
	skel = runs_load();
	if (!skel)
		return -1;
	info.jited_prog_len = *len;
	info.jited_prog_insns = (unsigned long)buf;
	err = bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.runs_no_calls),
				      &info, &ilen);
	*len = info.jited_prog_len;
	runs_bpf__destroy(skel);
	return err;
}

/* Tracked programs in held, but those being freed (id 0). */
static int count_tracked(void)
{
	const char *p = file_read("/sys/kernel/debug/bpf_rtguard/held");
	int n = 0;

	for (; (p = strstr(p, "\nprog ")); p++)
		n += strncmp(p, "\nprog 0 ", 8) != 0;
	return n;
}

/*
 * In a child without capabilities: load a socket filter that calls a
 * helper, and say whether bpf_rtguard tracks it (the debugfs file is
 * root's, readable by its owner without capabilities).
 */
static int load_without_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct caps[2] = {};
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_prandom_u32 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static struct rtg_held h;
	int fd;

	if (syscall(SYS_capset, &hdr, caps))
		return 2;
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rtg_nocap", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return 3;
	return held_find(prog_id(fd), &h) ? 0 : 1;
}

/* Programs that are never tracked: no call to hook, classic BPF, no CAP_BPF. */
WITH_MODULE(test_runs_untracked, "track=1");
void test_runs_untracked(void)
{
	static struct rtg_held h;

	if (test__start_subtest("no_calls")) {
		struct runs_bpf *skel = runs_load();

		if (skel) {
			struct rtg_prog_line pl;

			ASSERT_EQ(run_prog(skel->progs.runs_no_calls), 1, "result");
			ASSERT_ERR(held_find(prog_id_of(skel->progs.runs_no_calls), &h),
				   "a program without calls in held");
			ASSERT_ERR(progs_find(prog_id_of(skel->progs.runs_no_calls), &pl),
				   "a program without calls in progs");
			runs_bpf__destroy(skel);
		}
	}
	if (test__start_subtest("no_calls_same_bytes")) {
		static uint8_t a[4096], b[4096];
		uint32_t la = sizeof(a), lb = sizeof(b);

		/* nothing to bracket: no exception boundary, no run area */
		if (ASSERT_OK(no_calls_image("0", a, &la), "image with track=0") &&
		    ASSERT_OK(no_calls_image("1", b, &lb), "image with track=1")) {
			ASSERT_EQ(lb, la, "image bytes, track=1 vs track=0");
			ASSERT_EQ(memcmp(a, b, la < lb ? la : lb), 0, "images differ");
		}
		param_write("track", "1");
	}
	if (test__start_subtest("classic_socket_filter")) {
		/* ld #rand (a helper call once converted); ret #-1 */
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_RANDOM),
			BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		};
		struct sock_fprog fprog = { .len = 2, .filter = code };
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		int before = count_tracked();

		ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog,
				     sizeof(fprog)), "attach a classic filter");
		ASSERT_EQ(count_tracked(), before, "tracked programs after attaching a classic filter");
		close(fd);
	}
	if (test__start_subtest("no_cap_bpf")) {
		char old[16] = "2";
		const char *v = file_read("/proc/sys/kernel/unprivileged_bpf_disabled");
		int status = -1;
		pid_t pid;

		snprintf(old, sizeof(old), "%s", v ?: "2");
		old[strcspn(old, "\n")] = 0;
		if (!ASSERT_OK(write_file("/proc/sys/kernel/unprivileged_bpf_disabled", "0"),
			       "allow unprivileged BPF"))
			return;
		pid = fork();
		if (pid == 0)
			_exit(load_without_caps());
		waitpid(pid, &status, 0);
		write_file("/proc/sys/kernel/unprivileged_bpf_disabled", old);
		ASSERT_TRUE(WIFEXITED(status), "child exited");
		/* 0: loaded and not tracked; 1: tracked; 2+: could not load */
		ASSERT_EQ(WEXITSTATUS(status), 0, "a program loaded without CAP_BPF, tracked?");
	}
}

struct toggler {
	volatile bool stop;
	long flips;
};

static void *toggle_fn(void *arg)
{
	struct toggler *tg = arg;

	while (!tg->stop) {
		param_write("track", tg->flips & 1 ? "0" : "1");
		tg->flips++;
	}
	return NULL;
}

/*
 * track flips while programs with a global function load and run under
 * an armed watchdog: each program is tracked whole or not at all, so no
 * release goes unseen and nothing is released twice.
 */
WITH_MODULE(test_runs_track_toggled, "track=1 watchdog_ms=100");
void test_runs_track_toggled(void)
{
	struct toggler tg = {};
	uint64_t live0 = 0, live1 = 1;
	pthread_t t;
	int i, j, tracked = 0;
	long stops = 0;

	ASSERT_OK(testmod_live(&live0), "live objects");
	if (!ASSERT_OK(pthread_create(&t, NULL, toggle_fn, &tg), "toggler"))
		return;
	for (i = 0; i < 6; i++) {
		struct runs_bpf *skel = runs_load();
		static struct rtg_held h;
		int ret;

		if (!skel)
			break;
		for (j = 0; j < 20; j++) {
			ret = run_prog(skel->progs.runs_global_short);
			/* a run the host stalls past the budget is stopped, rightly */
			ASSERT_TRUE(ret == 0 || ret == -ETIMEDOUT, "round %d run %d: %d", i, j, ret);
		}
		if (!held_find(prog_id_of(skel->progs.runs_global_short), &h)) {
			tracked++;
			stops += h.stops;
			ASSERT_EQ(h.unmatched + h.leftover + h.stray, 0L,
				  "bookkeeping errors, round %d", i);
		}
		runs_bpf__destroy(skel);
	}
	tg.stop = true;
	pthread_join(t, NULL);
	printf("  track flipped %ld times; %d of 6 loads tracked, %ld runs stopped\n",
	       tg.flips, tracked, stops);
	ASSERT_OK(testmod_live(&live1), "live objects");
	ASSERT_EQ(live1, live0, "live objects after the rounds");
}
