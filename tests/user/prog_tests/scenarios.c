// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracking of scenarios.bpf.c, one subtest per program: the exact
 * acquire/release events and empty tables after the run.
 */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "scenarios.skel.h"

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
	int n;
	struct expect ev[8];
	/* to do before the run, and more to check after it */
	void (*setup)(struct scenarios_bpf *skel);
	void (*extra)(struct scenarios_bpf *skel);
	bool untracked;		/* the program is never tracked */
};

static bool stashed;	/* a task is in stash_map */

static void stash_done(struct scenarios_bpf *skel)
{
	stashed = true;
}

/* sc_kptr_unstash takes out what sc_kptr_stash put in: run that first if needed */
static void ensure_stashed(struct scenarios_bpf *skel)
{
	if (!stashed)
		ASSERT_EQ(run_prog(skel->progs.sc_kptr_stash), 0, "sc_kptr_stash first");
	stashed = false;
}

/* the callee's events are its own program's */
static void tail_callee_events(struct scenarios_bpf *skel)
{
	uint32_t callee = prog_id_of(skel->progs.sc_tail_callee);
	struct track_event cev[8];
	int cn = track_events_read(callee, cev, 8);

	ASSERT_EQ(cn, 2, "tail callee: events");
	expect_event(cev, cn, 0, true, "rtg_test_obj_get", skel->bss->seen[1]);
	expect_event(cev, cn, 1, false, "rtg_test_obj_put", skel->bss->seen[1]);
	expect_clean("tail callee", callee);
}

static void unstashed_is_stashed(struct scenarios_bpf *skel)
{
	ASSERT_EQ(skel->bss->seen[1], skel->bss->seen[0], "unstashed vs stashed task");
}

static const struct scenario scenarios[] = {
	{ "sc_subprog", 4, {
		{ true, "bpf_task_from_pid", 0 }, { true, "rtg_test_obj_get", 1 },
		{ false, "rtg_test_obj_put", 1 }, { false, "bpf_task_release", 0 } } },
	{ "sc_loop_cb", 6, {
		{ true, "rtg_test_obj_get", 0 }, { false, "rtg_test_obj_put", 0 },
		{ true, "rtg_test_obj_get", 1 }, { false, "rtg_test_obj_put", 1 },
		{ true, "rtg_test_obj_get", 2 }, { false, "rtg_test_obj_put", 2 } } },
	{ "sc_rcu", 2, {
		{ true, "bpf_rcu_read_lock", SEEN_TOKEN_RCU },
		{ false, "bpf_rcu_read_unlock", SEEN_TOKEN_RCU } } },
	{ "sc_ringbuf", 4, {
		{ true, "bpf_ringbuf_reserve", 0 }, { false, "bpf_ringbuf_submit", 0 },
		{ true, "bpf_ringbuf_reserve", 1 }, { false, "bpf_ringbuf_discard", 1 } } },
	/* the task goes into the map: it leaves the run without a release */
	{ "sc_kptr_stash", 2, {
		{ true, "bpf_task_from_pid", 0 }, { false, "bpf_kptr_xchg", 0 } },
	  NULL, stash_done },
	{ "sc_kptr_unstash", 2, {
		{ true, "bpf_kptr_xchg", 1 }, { false, "bpf_task_release", 1 } },
	  ensure_stashed, unstashed_is_stashed },
	{ "sc_spin", 2, {
		{ true, "bpf_spin_lock", 0 }, { false, "bpf_spin_unlock", 0 } } },
	{ "sc_sk_lookup", 2, {
		{ true, "bpf_tc_sk_lookup_tcp", 0 }, { false, "bpf_sk_release", 0 } } },
	/*
	 * A tail call leaves the caller's frame without its epilogue, so a
	 * program with tail calls is not tracked; the callee is, as its own
	 * program, with a run that begins where the tail call lands.
	 */
	{ "sc_tail_caller", 0, { }, NULL, tail_callee_events, true },
};

static void run_scenario(struct scenarios_bpf *skel, const struct scenario *sc)
{
	struct track_event ev[32];
	struct bpf_program *prog;
	uint32_t id;
	int n, k;

	prog = bpf_object__find_program_by_name(skel->obj, sc->prog);
	id = prog_id_of(prog);
	if (!ASSERT_NE(id, 0, "program %s", sc->prog))
		return;
	if (sc->setup)
		sc->setup(skel);
	if (!track_events_start())
		return;
	if (!ASSERT_EQ(run_prog(prog), 0, "%s's return", sc->prog))
		return;
	n = track_events_read(id, ev, 32);
	ASSERT_EQ(n, sc->n, "%s: events", sc->prog);
	for (k = 0; k < sc->n; k++) {
		const struct expect *e = &sc->ev[k];
		uint64_t obj = e->seen >= 0 ? skel->bss->seen[e->seen] :
			       e->seen == SEEN_TOKEN_RCU ? 1 : 0;

		expect_event(ev, n, k, e->acquire, e->func, obj);
	}
	if (sc->untracked) {
		static struct rtg_held h;

		ASSERT_ERR(held_find(id, &h), "%s, untracked, in held", sc->prog);
	} else {
		expect_clean(sc->prog, id);
	}
	if (sc->extra)
		sc->extra(skel);
	printf("  %s:", sc->prog);
	for (k = 0; k < n; k++)
		printf(" %s %s", ev[k].acquire ? "+" : "-", ev[k].func);
	printf("\n");
}

WITH_MODULE(test_track_scenarios, "track=1");
void test_track_scenarios(void)
{
	struct scenarios_bpf *skel;
	uint16_t port = 0;
	int lfd, key = 0, callee;
	size_t s;

	lfd = listen_loopback(&port);
	ASSERT_GE(lfd, 0, "listening socket");
	skel = scenarios_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open scenarios"))
		goto out;
	skel->bss->target_pid = getpid();
	skel->bss->listen_port = port;
	/* with the events on: a described program loaded so is not bare */
	if (!track_events_start() || !ASSERT_OK(scenarios_bpf__load(skel), "load scenarios"))
		goto destroy;
	callee = bpf_program__fd(skel->progs.sc_tail_callee);
	ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.tail_progs), &key, &callee, 0),
		  "tail call map");
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if (test__start_subtest(scenarios[s].prog))
			run_scenario(skel, &scenarios[s]);
destroy:
	scenarios_bpf__destroy(skel);
out:
	if (lfd >= 0)
		close(lfd);
	track_events_stop();
}
