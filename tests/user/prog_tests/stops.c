// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stops on stops.bpf.c do no harm: no oops past a call the verifier
 * proved non-NULL; the stop policy, a row per kind of program (LSM,
 * fmod_ret and cgroup hooks fail closed, a type with no safe stop value
 * is reported and left alone); a ring buffer record is never
 * submitted by a stop, a sockmap socket and objects moved through a
 * bpf_list or rbtree are accounted for exactly.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>

#include "expect.h"
#include "stops.skel.h"

static struct stops_bpf *stops_load(const char *only)
{
	struct stops_bpf *skel = stops_bpf__open();
	struct bpf_program *p;

	if (!ASSERT_OK_PTR(skel, "open stops"))
		return NULL;
	skel->bss->target_pid = getpid();
	/* each test loads the programs it needs (and those they share maps with) */
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !only || strstr(only, bpf_program__name(p)));
	if (ASSERT_OK(stops_bpf__load(skel), "load stops (%s)", only ?: "all"))
		return skel;
	stops_bpf__destroy(skel);
	return NULL;
}

/* The program's entry in bpf_rtguard/held, asserted to exist. */
static bool held_of(struct bpf_program *prog, struct rtg_held *h)
{
	return !ASSERT_OK(held_find(prog_id_of(prog), h), "%s in held",
			  bpf_program__name(prog));
}

static void stop_counts(struct bpf_program *prog, long stops, long reported)
{
	static struct rtg_held h;

	if (held_of(prog, &h))
		return;
	ASSERT_EQ(h.stops, stops, "%s: stops", bpf_program__name(prog));
	ASSERT_EQ(h.reported, reported, "%s: reported", bpf_program__name(prog));
	ASSERT_EQ(h.nruns, 0, "%s: runs left", bpf_program__name(prog));
	ASSERT_EQ(h.unmatched, 0, "%s: unmatched releases", bpf_program__name(prog));
	ASSERT_EQ(h.leftover, 0, "%s: left in the table", bpf_program__name(prog));
}

WITH_MODULE(test_stops_fast_execute, "track=1 watchdog_ms=100");
void test_stops_fast_execute(void)
{
	static struct rtg_call_site sites[256];
	struct stops_bpf *skel = stops_load("stop_refcount");
	static const struct {
		const char *func;
		int may_fail;
	} expect[] = {
		{ "bpf_obj_new_impl", 1 },
		{ "bpf_task_from_pid", 1 },
		/* proven non-NULL on the owning reference */
		{ "bpf_refcount_acquire_impl", 0 },
		{ "bpf_task_release", 0 },
		{ "bpf_obj_drop_impl", 0 },
	};
	uint32_t id;
	int n, i, j, ret;

	if (!skel)
		return;
	id = prog_id_of(skel->progs.stop_refcount);
	if (test__start_subtest("null_only_where_verified")) {
		n = calls_read(sites, 256);
		for (i = 0; i < (int)(sizeof(expect) / sizeof(expect[0])); i++) {
			int seen = 0;

			for (j = 0; j < n; j++) {
				if (sites[j].prog_id != id || strcmp(sites[j].func, expect[i].func))
					continue;
				seen++;
				ASSERT_EQ(sites[j].may_fail, expect[i].may_fail,
					  "%s at insn %u: may fail", expect[i].func, sites[j].insn);
			}
			ASSERT_GT(seen, 0, "call sites of %s", expect[i].func);
		}
	}
	if (test__start_subtest("refcount_acquire")) {
		ret = run_prog(skel->progs.stop_refcount);
		ASSERT_EQ(ret, -ETIMEDOUT, "stop_refcount's return");
		ASSERT_HAS_STR(stop_line(skel->progs.stop_refcount),
			       "fast-executed, released by the program", "how the stop ended");
		stop_counts(skel->progs.stop_refcount, 1, 0);
	}
	stops_bpf__destroy(skel);
}

/*
 * The stop policy, one row per kind of program: whether a run may be
 * stopped, the value a stopped run returns, and what the program's hook
 * sees when it is stopped. A row's trigger attaches the program and makes
 * it run past the budget; it returns what the hook's caller saw (0, or
 * -errno).
 */
struct policy_row {
	const char *prog;
	const char *param;	/* set while the program is loaded */
	int stoppable;
	int stop_ret;		/* when stoppable */
	int (*trigger)(struct stops_bpf *skel, struct bpf_program *prog);
	int seen;		/* what the trigger returns */
	long stops;		/* held's counts after the trigger */
	long reported;
	const char *dmesg;	/* a line the trigger leaves, or NULL */
};

static int trigger_setnice(struct stops_bpf *skel, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach(prog);
	int ret;

	if (!ASSERT_OK_PTR(link, "attach %s (boot with lsm=bpf)", bpf_program__name(prog)))
		return 1;
	ret = setpriority(PRIO_PROCESS, 0, 1) ? -errno : 0;
	bpf_link__destroy(link);
	/* a long loop holding iterators, then "deny" */
	ASSERT_EQ(skel->bss->lsm_runs + skel->bss->fmod_runs, 1, "runs");
	return ret;
}

static int trigger_sock_create(struct stops_bpf *skel, struct bpf_program *prog)
{
	struct bpf_link *link;
	int cg, fd, ret;

	cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(cg, 0, "open the cgroup2 root"))
		return 1;
	link = bpf_program__attach_cgroup(prog, cg);
	close(cg);
	if (!ASSERT_OK_PTR(link, "attach cgroup/sock_create"))
		return 1;
	/* the program would allow: a stopped run denies */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ret = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	/*
	 * a run that ends in time allows: no loop at all, since under TCG,
	 * with every call checked, even 1000 calls can take longer than the
	 * 100 ms budget on a loaded host
	 */
	skel->data->cg_outer = 0;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0, "socket() with a short run");
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(skel->bss->cg_runs, 2, "runs of the cgroup program");
	bpf_link__destroy(link);
	return ret;
}

static int trigger_setxattr(struct stops_bpf *skel, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach_lsm(prog);
	double t0 = now_ms();
	int fd;

	if (!ASSERT_OK_PTR(link, "attach lsm/inode_xattr_skipcap"))
		return 1;
	fd = open("/tmp/rtg-stops-xattr", O_CREAT | O_WRONLY, 0600);
	if (ASSERT_GE(fd, 0, "create a file")) {
		/* the hook runs whatever the file system then says */
		setxattr("/tmp/rtg-stops-xattr", "user.rtg", "1", 1, 0);
		printf("  setxattr() took %.0f ms, the hook ran %llu times\n",
		       now_ms() - t0, (unsigned long long)skel->bss->skipcap_done);
		close(fd);
	}
	bpf_link__destroy(link);
	/* not stopped: the run went on to its end */
	return skel->bss->skipcap_done == 1 ? 0 : -EINTR;
}

static const struct policy_row policy_rows[] = {
	/* LSM: the stop value denies, as the program would */
	{ "stop_lsm_setnice", NULL, 1, -EPERM, trigger_setnice, -EPERM, 1, 0, NULL },
	/* fmod_ret on a security_ function: the same, through a trampoline */
	{ "stop_fmod_setnice", NULL, 1, -EPERM, trigger_setnice, -EPERM, 1, 0,
	  "released and unwound" },
	/* cgroup: a stop denies, though the program would allow */
	{ "stop_cg_sock_create", NULL, 1, 0, trigger_sock_create, -EPERM, 1, 0, NULL },
	/* -EPERM is out of a bool hook's range [0, 1]: reported, not stopped */
	{ "stop_skipcap", NULL, 0, 0, trigger_setxattr, 0, 0, 1,
	  "not stoppable (program or attach type), reported only" },
	/* ... unless stop_unsafe=1 was set when it was verified: then 0 */
	{ "stop_skipcap", "stop_unsafe", 1, 0, NULL, 0, 0, 0, NULL },
	/* recvmsg4 must return 1, so a stop returns 1 */
	{ "stop_recvmsg4", NULL, 1, 1, NULL, 0, 0, 0, NULL },
	/* a program whose helper call is the enforcement: never stopped */
	{ "stop_send_signal", NULL, 0, 0, NULL, 0, 0, 0, NULL },
};

static void policy_row_run(const struct policy_row *row)
{
	struct stops_bpf *skel;
	struct bpf_program *prog;
	static struct rtg_held h;
	const char *line, *eol = NULL;
	char head[64];

	if (row->param && !ASSERT_OK(param_write(row->param, "1"), "%s=1", row->param))
		return;
	skel = stops_load(row->prog);
	if (row->param)
		param_write(row->param, "0");
	if (!skel)
		return;
	prog = bpf_object__find_program_by_name(skel->obj, row->prog);
	if (!held_of(prog, &h)) {
		ASSERT_EQ(h.stoppable, row->stoppable, "%s stoppable", row->prog);
		if (row->stoppable)
			ASSERT_EQ(h.stop_ret, row->stop_ret, "%s's stop value", row->prog);
	}
	if (row->trigger) {
		ASSERT_EQ(row->trigger(skel, prog), row->seen, "what %s's hook returned",
			  row->prog);
		stop_counts(prog, row->stops, row->reported);
	}
	if (row->dmesg) {
		/* one of the program's own lines says how it ended */
		snprintf(head, sizeof(head), " prog %u ", prog_id_of(prog));
		for (line = strstr(dmesg_read(), head); line; line = strstr(eol, head)) {
			eol = strchrnul(line, '\n');
			if (memmem(line, eol - line, row->dmesg, strlen(row->dmesg)))
				break;
		}
		ASSERT_TRUE(line, "'%s' on a line with '%s' in dmesg", row->dmesg, head);
	}
	stops_bpf__destroy(skel);
}

WITH_MODULE(test_stops_policy, "track=1 watchdog_ms=100");
void test_stops_policy(void)
{
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(policy_rows) / sizeof(policy_rows[0]); i++) {
		snprintf(name, sizeof(name), "%s%s%s", policy_rows[i].prog,
			 policy_rows[i].param ? "_with_" : "", policy_rows[i].param ?: "");
		if (test__start_subtest(name))
			policy_row_run(&policy_rows[i]);
	}
}

static void expect_discarded(struct stops_bpf *skel, struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);

	/* the program never discards; the stop does */
	ASSERT_EQ(run_prog(prog), -ETIMEDOUT, "%s's return", name);
	stop_counts(prog, 1, 0);
	expect_ringbuf_after_stop(bpf_map__fd(skel->maps.rb), 0, skel->progs.stop_rb_check, name);
}

WITH_MODULE(test_stops_ringbuf, "track=1 watchdog_ms=100");
void test_stops_ringbuf(void)
{
	struct stops_bpf *skel = stops_load("stop_rb_submit,stop_rb_dynptr,stop_rb_check");

	if (!skel)
		return;
	expect_discarded(skel, skel->progs.stop_rb_submit);
	expect_discarded(skel, skel->progs.stop_rb_dynptr);
	ASSERT_EQ(dmesg_count(" stop_rb_submit after "), 1, "stop_rb_submit's stop in dmesg");
	ASSERT_EQ(dmesg_count(" stop_rb_dynptr after "), 1, "stop_rb_dynptr's stop in dmesg");
	ASSERT_HAS_STR(stop_line(skel->progs.stop_rb_submit), "released and unwound",
		       "how the stop of stop_rb_submit ended");
	ASSERT_HAS_STR(stop_line(skel->progs.stop_rb_dynptr), "released and unwound",
		       "how the stop of stop_rb_dynptr ended");
	stops_bpf__destroy(skel);
}

WITH_MODULE(test_stops_sockmap, "track=1 watchdog_ms=100");
void test_stops_sockmap(void)
{
	struct stops_bpf *skel = stops_load("stop_sockmap");
	static struct rtg_held h;
	uint16_t port = 0;
	uint32_t key = 0;
	uint64_t val;
	int lfd;

	if (!skel)
		return;
	lfd = listen_loopback(&port);
	if (!ASSERT_GE(lfd, 0, "listening socket"))
		goto out;
	val = lfd;
	if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.socks), &key, &val, 0),
		       "socket into the sockmap"))
		goto close;
	if (!ASSERT_OK(trace_event_enable("bpf_rtguard/rtg_release", true), "rtg_release on") ||
	    !ASSERT_OK(trace_clear(), "empty the trace buffer"))
		goto close;
	/*
	 * a run to its end: the program's own bpf_sk_release() matches (no
	 * loop: 1000 traced and checked calls once outlasted the budget)
	 */
	skel->data->sock_outer = 0;
	ASSERT_EQ(run_prog(skel->progs.stop_sockmap), 0, "a short run");
	stop_counts(skel->progs.stop_sockmap, 0, 0);
	/* stopped: the watchdog gives the socket back */
	skel->data->sock_outer = 1000000;
	ASSERT_EQ(run_prog(skel->progs.stop_sockmap), TC_ACT_SHOT, "stopped run's return");
	stop_counts(skel->progs.stop_sockmap, 1, 0);
	ASSERT_EQ(track_releases_of("sock_map_lookup"), 1,
		  "sockets the watchdog released");
	if (!held_of(skel->progs.stop_sockmap, &h))
		ASSERT_GE(h.released, 1, "released by the stop");
	/* the socket is still usable: a later run looks it up and releases it */
	skel->data->sock_outer = 0;
	ASSERT_EQ(run_prog(skel->progs.stop_sockmap), 0, "a short run after the stop");
	stop_counts(skel->progs.stop_sockmap, 1, 0);
	trace_event_enable("bpf_rtguard/rtg_release", false);
close:
	close(lfd);
out:
	stops_bpf__destroy(skel);
}

WITH_MODULE(test_stops_graph, "track=1 watchdog_ms=100");
void test_stops_graph(void)
{
	struct stops_bpf *skel = stops_load("stop_graph");
	int i, bad = 0;

	if (!skel)
		return;
	if (test__start_subtest("push_pop")) {
		for (i = 0; i < 1000; i++)
			bad += run_prog(skel->progs.stop_graph) != 0;
		ASSERT_EQ(bad, 0, "runs that failed");
		/* pushes leave the table, pops enter it, drops match them */
		stop_counts(skel->progs.stop_graph, 0, 0);
	}
	if (test__start_subtest("stopped_holding_a_popped_object")) {
		skel->bss->graph_outer = 1000000;
		ASSERT_EQ(run_prog(skel->progs.stop_graph), -ETIMEDOUT, "stopped run's return");
		/* bpf_obj_drop() needs the meta: the program drops it itself */
		ASSERT_HAS_STR(stop_line(skel->progs.stop_graph),
			       "fast-executed, released by the program", "how the stop ended");
		stop_counts(skel->progs.stop_graph, 1, 0);
	}
	stops_bpf__destroy(skel);
}
