// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracking: the exact acquire/release events of the seed scenarios, empty
 * tables after each run, and a mid-run snapshot of what a blocked
 * sleepable program holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/klog.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "track.skel.h"
#include "scenarios.skel.h"

#define TRACEFS "/sys/kernel/tracing/"
#define HELD "/sys/kernel/debug/" MOD_RTGUARD "/held"

struct track_event {
	bool acquire;
	uint32_t insn;
	uint64_t obj;
	int acq_insn;
	char func[64];
};

/* track.bpf.o, loaded with the tests' pid as target_pid and inner_pid. */
static struct track_bpf *track_load(void)
{
	struct track_bpf *skel = track_bpf__open();

	if (!CHECK(skel, "open"))
		return NULL;
	skel->bss->target_pid = getpid();
	skel->bss->inner_pid = getpid();
	if (CHECK(!track_bpf__load(skel), "load: %s", strerror(errno)))
		return skel;
	track_bpf__destroy(skel);
	return NULL;
}

static int events_reset(void)
{
	return write_file(TRACEFS "events/bpf_rtguard/rtg_acquire/enable", "1") ?:
	       write_file(TRACEFS "events/bpf_rtguard/rtg_release/enable", "1") ?:
	       write_file(TRACEFS "trace", "");
}

/* The rtg_acquire/rtg_release events of one program, in order. */
static int read_events(uint32_t id, struct track_event *ev, int max)
{
	FILE *f = fopen(TRACEFS "trace", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct track_event *e = &ev[n];
		const char *p;
		unsigned int prog;

		if ((p = strstr(line, " rtg_acquire: "))) {
			e->acquire = true;
			e->acq_insn = -1;
			if (sscanf(p + 14, "prog=%u insn=%u obj=%lx func=%63s", &prog,
				   &e->insn, &e->obj, e->func) == 4 && prog == id)
				n++;
		} else if ((p = strstr(line, " rtg_release: "))) {
			e->acquire = false;
			if (sscanf(p + 14, "prog=%u insn=%u obj=%lx acq_insn=%d func=%63s",
				   &prog, &e->insn, &e->obj, &e->acq_insn, e->func) == 5 &&
			    prog == id)
				n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * The program's line in bpf_rtguard/held: its counters, and how many
 * lines of in-flight runs follow it (copied to runs).
 */
static bool held_state(uint32_t id, long *exhausted, long *unmatched,
		       char *runs, size_t len)
{
	FILE *f = fopen(HELD, "r");
	char line[512];
	bool in = false, found = false;
	size_t off = 0;

	if (runs)
		runs[0] = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned int pid, slots, nruns;
		long ex, un;
		char name[32];

		if (line[0] != ' ') {
			in = sscanf(line, "%u %31s %u %u %ld %ld", &pid, name, &slots,
				    &nruns, &ex, &un) == 6 && pid == id;
			if (in) {
				*exhausted = ex;
				*unmatched = un;
				found = true;
			}
		} else if (in && runs && off + strlen(line) < len) {
			strcpy(runs + off, line);
			off += strlen(line);
		}
	}
	fclose(f);
	return found;
}

static int run_prog(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return opts.retval;
}

/* Expect event i to be an acquire or release by func of obj. */
static bool expect_event(const struct track_event *ev, int n, int i, bool acquire,
			 const char *func, uint64_t obj)
{
	if (!CHECK(i < n, "event %d missing (%d events)", i, n))
		return false;
	return CHECK(ev[i].acquire == acquire && !strcmp(ev[i].func, func) &&
		     (!obj || ev[i].obj == obj),
		     "event %d: %s %s %#lx, want %s %s %#lx", i,
		     ev[i].acquire ? "acquire" : "release", ev[i].func, ev[i].obj,
		     acquire ? "acquire" : "release", func, obj);
}

static void expect_clean(const char *what, uint32_t id)
{
	long exhausted = -1, unmatched = -1;
	char runs[1024];

	if (!CHECK(held_state(id, &exhausted, &unmatched, runs, sizeof(runs)),
		   "%s: program %u not in held", what, id))
		return;
	CHECK(!runs[0], "%s: table not empty after the run:\n%s", what, runs);
	CHECK(!exhausted && !unmatched, "%s: %ld exhausted, %ld unmatched", what,
	      exhausted, unmatched);
}

void test_track_seeds(void)
{
	struct track_event ev[32];
	struct track_bpf *skel;
	uint32_t id;
	int n, i;

	REQUIRE(!mod_load(MOD_RTGUARD, "track=1"), "insmod");
	skel = track_load();
	if (!skel)
		goto out;

	/* simple: a task and a cpumask, released in reverse order */
	CHECK(!events_reset(), "enable events");
	CHECK(run_prog(skel->progs.track_simple) == 0, "simple run");
	id = prog_id(bpf_program__fd(skel->progs.track_simple));
	n = read_events(id, ev, 32);
	CHECK(n == 4, "simple: %d events, want 4", n);
	expect_event(ev, n, 0, true, "bpf_task_from_pid", skel->bss->seen[0]);
	expect_event(ev, n, 1, true, "bpf_cpumask_create", skel->bss->seen[1]);
	if (expect_event(ev, n, 2, false, "bpf_cpumask_release", skel->bss->seen[1]))
		CHECK(ev[2].acq_insn == (int)ev[1].insn, "cpumask released as acquired at %d",
		      ev[2].acq_insn);
	if (expect_event(ev, n, 3, false, "bpf_task_release", skel->bss->seen[0]))
		CHECK(ev[3].acq_insn == (int)ev[0].insn, "task released as acquired at %d",
		      ev[3].acq_insn);
	expect_clean("simple", id);

	/* branch: each path's pair, and nothing of the other path */
	id = prog_id(bpf_program__fd(skel->progs.track_branch));
	for (i = 0; i < 2; i++) {
		skel->bss->branch = i;
		CHECK(!events_reset(), "enable events");
		CHECK(run_prog(skel->progs.track_branch) == 0, "branch %d run", i);
		n = read_events(id, ev, 32);
		CHECK(n == 2, "branch %d: %d events, want 2", i, n);
		expect_event(ev, n, 0, true, i ? "bpf_task_from_pid" : "rtg_test_obj_get",
			     skel->bss->seen[0]);
		expect_event(ev, n, 1, false, i ? "bpf_task_release" : "rtg_test_obj_put",
			     skel->bss->seen[0]);
	}
	expect_clean("branch", id);

	/* loop: the iterator held around three task pairs */
	CHECK(!events_reset(), "enable events");
	CHECK(run_prog(skel->progs.track_loop) == 0, "loop run");
	id = prog_id(bpf_program__fd(skel->progs.track_loop));
	n = read_events(id, ev, 32);
	CHECK(n == 8, "loop: %d events, want 8", n);
	expect_event(ev, n, 0, true, "bpf_iter_num_new", 0);
	for (i = 0; i < 3; i++) {
		expect_event(ev, n, 1 + 2 * i, true, "bpf_task_from_pid", skel->bss->seen[i]);
		expect_event(ev, n, 2 + 2 * i, false, "bpf_task_release", skel->bss->seen[i]);
	}
	if (expect_event(ev, n, 7, false, "bpf_iter_num_destroy", 0))
		CHECK(ev[7].obj == ev[0].obj, "iterator %#lx destroyed, %#lx created",
		      ev[7].obj, ev[0].obj);
	expect_clean("loop", id);
	for (i = 0; i < n; i++)
		printf("  %s %s insn %u obj %#lx\n", ev[i].acquire ? "acquire" : "release",
		       ev[i].func, ev[i].insn, ev[i].obj);
	track_bpf__destroy(skel);
out:
	write_file(TRACEFS "events/bpf_rtguard/enable", "0");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

static void *block_thread(void *arg)
{
	return (void *)(long)run_prog(((struct track_bpf *)arg)->progs.track_block);
}

/*
 * bpf_rtguard with track=1 and track.bpf.o loaded, rtg_test_wait() made to
 * block, and the live object count before anything runs.
 */
static struct track_bpf *block_setup(uint64_t *live0)
{
	struct track_bpf *skel;

	if (!CHECK(!mod_load(MOD_RTGUARD, "track=1"), "insmod"))
		return NULL;
	read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", live0);
	CHECK(!write_file("/sys/kernel/debug/" MOD_TESTMOD "/go", "0"), "go=0");
	skel = track_bpf__open_and_load();
	CHECK(skel, "load: %s", strerror(errno));
	return skel;
}

void test_track_snapshot(void)
{
	uint64_t waiting = 0, live0 = 0, live1 = 0;
	long exhausted, unmatched;
	struct track_bpf *skel;
	char runs[1024], want[160];
	pthread_t th;
	void *ret;
	int i;

	skel = block_setup(&live0);
	if (!skel)
		goto out;
	pthread_create(&th, NULL, block_thread, skel);
	for (i = 0; i < 500 && !waiting; i++) {
		usleep(10000);
		read_u64("/sys/kernel/debug/" MOD_TESTMOD "/waiting", &waiting);
	}
	if (CHECK(waiting == 1, "program not blocked")) {
		uint32_t id = prog_id(bpf_program__fd(skel->progs.track_block));

		CHECK(held_state(id, &exhausted, &unmatched, runs, sizeof(runs)),
		      "track_block not in held");
		printf("  mid-run snapshot of track_block (prog %u):\n%s", id, runs);
		snprintf(want, sizeof(want),
			 "    %#lx rtg_test_obj_get [rtg_testmod] release=rtg_test_obj_put insn=",
			 (unsigned long)skel->bss->seen[0]);
		CHECK(strstr(runs, want), "no '%s' in the snapshot", want);
		CHECK(strstr(runs, " held=1\n"), "the run holds more or less than one thing");
		read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", &live1);
		CHECK(live1 == live0 + 1, "live objects %lu while blocked, %lu before",
		      live1, live0);
	}
	CHECK(!write_file("/sys/kernel/debug/" MOD_TESTMOD "/go", "1"), "go=1");
	pthread_join(th, &ret);
	CHECK(!ret, "track_block returned %ld", (long)ret);
	expect_clean("after the blocked run", prog_id(bpf_program__fd(skel->progs.track_block)));
	read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", &live1);
	CHECK(live1 == live0, "live objects %lu after, %lu before", live1, live0);
	track_bpf__destroy(skel);
out:
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

/* one expected event: seen index of the object, or TOKEN / ANY */
#define SEEN_TOKEN_RCU	-1
#define SEEN_ANY	-2

struct expect {
	bool acquire;
	const char *func;
	int seen;
};

struct scenario {
	const char *prog;
	bool tc;
	int n;
	struct expect ev[8];
};

static const struct scenario scenarios[] = {
	{ "sc_subprog", false, 4, {
		{ true, "bpf_task_from_pid", 0 }, { true, "rtg_test_obj_get", 1 },
		{ false, "rtg_test_obj_put", 1 }, { false, "bpf_task_release", 0 } } },
	{ "sc_loop_cb", false, 6, {
		{ true, "rtg_test_obj_get", 0 }, { false, "rtg_test_obj_put", 0 },
		{ true, "rtg_test_obj_get", 1 }, { false, "rtg_test_obj_put", 1 },
		{ true, "rtg_test_obj_get", 2 }, { false, "rtg_test_obj_put", 2 } } },
	{ "sc_rcu", false, 2, {
		{ true, "bpf_rcu_read_lock", SEEN_TOKEN_RCU },
		{ false, "bpf_rcu_read_unlock", SEEN_TOKEN_RCU } } },
	{ "sc_ringbuf", false, 4, {
		{ true, "bpf_ringbuf_reserve", 0 }, { false, "bpf_ringbuf_submit", 0 },
		{ true, "bpf_ringbuf_reserve", 1 }, { false, "bpf_ringbuf_discard", 1 } } },
	/* the task goes into the map: it leaves the run without a release */
	{ "sc_kptr_stash", false, 2, {
		{ true, "bpf_task_from_pid", 0 }, { false, "bpf_kptr_xchg", 0 } } },
	{ "sc_kptr_unstash", false, 2, {
		{ true, "bpf_kptr_xchg", 1 }, { false, "bpf_task_release", 1 } } },
	{ "sc_spin", true, 2, {
		{ true, "bpf_spin_lock", 0 }, { false, "bpf_spin_unlock", 0 } } },
	{ "sc_sk_lookup", true, 2, {
		{ true, "bpf_tc_sk_lookup_tcp", 0 }, { false, "bpf_sk_release", 0 } } },
	/* the callee's events are its own program's; checked below */
	{ "sc_tail_caller", true, 2, {
		{ true, "rtg_test_obj_get", 0 }, { false, "rtg_test_obj_put", 0 } } },
};

static int run_tc(struct bpf_program *prog)
{
	uint8_t pkt[54] = { [12] = 0x08, [14] = 0x45, [23] = 6 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return opts.retval;
}

void test_track_scenarios(void)
{
	struct track_event ev[32];
	struct scenarios_bpf *skel;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int lfd, n, i, k;
	size_t s;

	REQUIRE(!mod_load(MOD_RTGUARD, "track=1"), "insmod");
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(lfd >= 0 && !bind(lfd, (void *)&addr, sizeof(addr)) && !listen(lfd, 1) &&
	      !getsockname(lfd, (void *)&addr, &alen), "listening socket: %s",
	      strerror(errno));
	skel = scenarios_bpf__open();
	if (!CHECK(skel, "open"))
		goto out;
	skel->bss->target_pid = getpid();
	skel->bss->listen_port = ntohs(addr.sin_port);
	if (!CHECK(!scenarios_bpf__load(skel), "load: %s", strerror(errno)))
		goto destroy;
	k = bpf_program__fd(skel->progs.sc_tail_callee);
	i = 0;
	CHECK(!bpf_map_update_elem(bpf_map__fd(skel->maps.tail_progs), &i, &k, 0),
	      "tail call map: %s", strerror(errno));
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		struct bpf_program *prog;
		uint32_t id;
		int ret;

		prog = bpf_object__find_program_by_name(skel->obj, sc->prog);
		id = prog ? prog_id(bpf_program__fd(prog)) : 0;
		if (!CHECK(id, "%s missing", sc->prog))
			continue;
		CHECK(!events_reset(), "enable events");
		ret = sc->tc ? run_tc(prog) : run_prog(prog);
		if (!CHECK(ret == 0, "%s returned %d", sc->prog, ret))
			continue;
		n = read_events(id, ev, 32);
		CHECK(n == sc->n, "%s: %d events, want %d", sc->prog, n, sc->n);
		for (k = 0; k < sc->n; k++) {
			const struct expect *e = &sc->ev[k];
			uint64_t obj = e->seen >= 0 ? skel->bss->seen[e->seen] :
				       e->seen == SEEN_TOKEN_RCU ? 1 : 0;

			expect_event(ev, n, k, e->acquire, e->func, obj);
		}
		expect_clean(sc->prog, id);
		if (!strcmp(sc->prog, "sc_tail_caller")) {
			uint32_t callee = prog_id(bpf_program__fd(skel->progs.sc_tail_callee));
			struct track_event cev[8];
			int cn = read_events(callee, cev, 8);

			CHECK(cn == 2, "tail callee: %d events", cn);
			expect_event(cev, cn, 0, true, "rtg_test_obj_get", skel->bss->seen[1]);
			expect_event(cev, cn, 1, false, "rtg_test_obj_put", skel->bss->seen[1]);
			expect_clean("tail callee", callee);
		}
		if (!strcmp(sc->prog, "sc_kptr_unstash"))
			CHECK(skel->bss->seen[1] == skel->bss->seen[0],
			      "unstashed %#lx, stashed %#lx", (unsigned long)skel->bss->seen[1],
			      (unsigned long)skel->bss->seen[0]);
		printf("  %s:", sc->prog);
		for (i = 0; i < n; i++)
			printf(" %s %s", ev[i].acquire ? "+" : "-", ev[i].func);
		printf("\n");
	}
destroy:
	scenarios_bpf__destroy(skel);
out:
	if (lfd >= 0)
		close(lfd);
	write_file(TRACEFS "events/bpf_rtguard/enable", "0");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

void test_track_nesting(void)
{
	struct track_event ev[16];
	struct track_bpf *skel;
	struct bpf_link *link;
	uint32_t outer, inner;
	int n;

	REQUIRE(!mod_load(MOD_RTGUARD, "track=1"), "insmod");
	skel = track_load();
	if (!skel)
		goto out;
	link = bpf_program__attach(skel->progs.track_inner);
	if (!CHECK(link, "attach: %s", strerror(errno)))
		goto destroy;
	CHECK(!events_reset(), "enable events");
	CHECK(run_prog(skel->progs.track_outer) == 0, "outer run");
	bpf_link__destroy(link);
	outer = prog_id(bpf_program__fd(skel->progs.track_outer));
	inner = prog_id(bpf_program__fd(skel->progs.track_inner));
	n = read_events(outer, ev, 16);
	CHECK(n == 2, "outer: %d events", n);
	expect_event(ev, n, 0, true, "rtg_test_obj_get", skel->bss->seen[0]);
	expect_event(ev, n, 1, false, "rtg_test_obj_put", skel->bss->seen[0]);
	n = read_events(inner, ev, 16);
	CHECK(n == 2, "inner: %d events", n);
	expect_event(ev, n, 0, true, "rtg_test_obj_get", skel->bss->seen[1]);
	expect_event(ev, n, 1, false, "rtg_test_obj_put", skel->bss->seen[1]);
	expect_clean("outer", outer);
	expect_clean("inner", inner);
	printf("  outer prog %u held %#lx while inner prog %u took and gave back %#lx\n",
	       outer, (unsigned long)skel->bss->seen[0], inner,
	       (unsigned long)skel->bss->seen[1]);
destroy:
	track_bpf__destroy(skel);
out:
	write_file(TRACEFS "events/bpf_rtguard/enable", "0");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

#define STRESS_SECONDS 3

static volatile bool stress_stop;

static void *stress_thread(void *arg)
{
	struct track_bpf *skel = arg;
	static int cpu_next;
	long runs = 0, bad = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(__sync_fetch_and_add(&cpu_next, 1) % sysconf(_SC_NPROCESSORS_ONLN), &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!stress_stop) {
		bad += run_prog(skel->progs.track_branch) != 0;
		bad += run_prog(skel->progs.track_simple) != 0;
		runs += 2;
	}
	return (void *)(bad ? -bad : runs);
}

void test_track_concurrency(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	uint64_t live0 = 0, live1 = 1;
	struct track_bpf *skel;
	long total = 0;
	pthread_t th[16];
	void *ret;

	REQUIRE(ncpu >= 2 && ncpu <= 16, "%d CPUs", ncpu);
	REQUIRE(!mod_load(MOD_RTGUARD, "track=1"), "insmod");
	read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", &live0);
	skel = track_load();
	if (!skel)
		goto out;
	stress_stop = false;
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, stress_thread, skel);
	sleep(STRESS_SECONDS);
	stress_stop = true;
	for (i = 0; i < ncpu; i++) {
		pthread_join(th[i], &ret);
		CHECK((long)ret > 0, "thread %d: %ld failed runs", i, -(long)ret);
		total += (long)ret;
	}
	expect_clean("branch, all CPUs", prog_id(bpf_program__fd(skel->progs.track_branch)));
	expect_clean("simple, all CPUs", prog_id(bpf_program__fd(skel->progs.track_simple)));
	read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", &live1);
	CHECK(live1 == live0, "live objects %lu after, %lu before", live1, live0);
	printf("  %ld tracked runs on %d CPUs in %d s, tables empty, no leak\n", total,
	       ncpu, STRESS_SECONDS);
	track_bpf__destroy(skel);
out:
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

#define BLOCKERS 30

/* count lines of a text holding needle */
static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

static bool dmesg_count(const char *needle, int *n)
{
	static char buf[1 << 18];
	int len = klogctl(3, buf, sizeof(buf) - 1);

	if (len < 0)
		return false;
	buf[len] = 0;
	*n = count_lines(buf, needle);
	return true;
}

void test_track_pool_exhausted(void)
{
	long exhausted = -1, unmatched = -1, bad = 0;
	uint64_t waiting = 0, live0 = 0, live1 = 1;
	static char runs[1 << 14];
	struct track_bpf *skel;
	char needle[96];
	pthread_t th[BLOCKERS];
	int i, nruns, msgs = -1;
	uint32_t id;
	void *ret;

	skel = block_setup(&live0);
	if (!skel)
		goto out;
	id = prog_id(bpf_program__fd(skel->progs.track_block));
	for (i = 0; i < BLOCKERS; i++)
		pthread_create(&th[i], NULL, block_thread, skel);
	for (i = 0; i < 1000 && waiting < BLOCKERS; i++) {
		usleep(10000);
		read_u64("/sys/kernel/debug/" MOD_TESTMOD "/waiting", &waiting);
	}
	CHECK(waiting == BLOCKERS, "%lu of %d runs blocked", waiting, BLOCKERS);
	CHECK(held_state(id, &exhausted, &unmatched, runs, sizeof(runs)), "held");
	nruns = count_lines(runs, "  run pid=");
	printf("  %d runs blocked holding an object: %d tracked, %ld found the pool exhausted\n",
	       BLOCKERS, nruns, exhausted);
	CHECK(nruns < BLOCKERS && exhausted == BLOCKERS - nruns,
	      "%d tables in use, %ld exhausted", nruns, exhausted);
	CHECK(!write_file("/sys/kernel/debug/" MOD_TESTMOD "/go", "1"), "go=1");
	for (i = 0; i < BLOCKERS; i++) {
		pthread_join(th[i], &ret);
		bad += ret != NULL;
	}
	CHECK(!bad, "%ld runs failed", bad);
	CHECK(held_state(id, &exhausted, &unmatched, runs, sizeof(runs)), "held");
	CHECK(!runs[0], "tables left in use:\n%s", runs);
	/* the untracked runs' releases match nothing: counted, not acted on */
	CHECK(unmatched == BLOCKERS - nruns, "%ld unmatched releases, want %d",
	      unmatched, BLOCKERS - nruns);
	snprintf(needle, sizeof(needle), "bpf_rtguard: prog %u track_block: no free run table", id);
	CHECK(dmesg_count(needle, &msgs) && msgs == 1, "'%s' %d times in dmesg", needle, msgs);
	read_u64("/sys/kernel/debug/" MOD_TESTMOD "/live", &live1);
	CHECK(live1 == live0, "live objects %lu after, %lu before", live1, live0);
	track_bpf__destroy(skel);
out:
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
