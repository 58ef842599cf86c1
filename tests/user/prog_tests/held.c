// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verifier's held-set descriptions (kernel patch 15), as debugfs
 * descriptions shows them, and check_held comparing them with each run's
 * table (the runner turns it on for every tracked test).
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "expect.h"
#include "rtgtest.h"
#include "held.skel.h"

#define DESCRIPTIONS "/sys/kernel/debug/bpf_rtguard/descriptions"

/*
 * The description of the call to func in program prog: its header line
 * and the lines of its resources, up to the next call's (NULL if none).
 */
static char *description_of(const struct bpf_program *prog, const char *func)
{
	static char buf[4096];
	char head[96], want[64];
	const char *p, *end;

	const char *f;

	/* the name is the kernel's, cut to 15 characters; a module's
	 * function is followed by its module
	 */
	snprintf(head, sizeof(head), "prog %u ", prog_id_of(prog));
	snprintf(want, sizeof(want), " func=%s", func);
	for (p = file_read(DESCRIPTIONS); (p = strstr(p, head)); p++) {
		end = strchrnul(p, '\n');
		f = memmem(p, end - p, want, strlen(want));
		if (!f || (f[strlen(want)] != ':' && f[strlen(want)] != ' '))
			continue;
		/* its resources: the indented lines that follow */
		while (*end && end[1] == ' ')
			end = strchrnul(end + 1, '\n');
		snprintf(buf, sizeof(buf), "%.*s", (int)(end - p), p);
		return buf;
	}
	return NULL;
}

static uint64_t stat_of(const char *name)
{
	uint64_t v = ~0ULL;

	ASSERT_OK(stat_read(name, &v), "stats %s", name);
	return v;
}

/* Runs of prog, checked: every one compared, none different. */
static void runs_checked(const struct bpf_program *prog, int runs, bool whole)
{
	uint64_t ok0 = stat_of("held_checked"), part0 = stat_of("held_partly_checked");
	uint64_t diff0 = stat_of("held_differences");
	int i;

	for (i = 0; i < runs; i++)
		ASSERT_GE(run_prog(prog), 0, "run %d", i);
	ASSERT_EQ(stat_of("held_differences"), diff0, "differences");
	if (whole)
		ASSERT_GE(stat_of("held_checked") - ok0, runs, "calls checked whole");
	else
		ASSERT_GE(stat_of("held_partly_checked") + stat_of("held_checked") -
			  part0 - ok0, runs, "calls checked");
}

/*
 * The description of prog's call to func, which says its paths differ in
 * the references they hold alone (NULL if there is none).
 */
static const char *differs_in_refs(const struct bpf_program *prog, const char *func)
{
	const char *d = description_of(prog, func);

	if (ASSERT_OK_PTR(d, "described")) {
		printf("  %s\n", d);
		ASSERT_TRUE(strstr(d, " differs"), "paths differ");
		ASSERT_FALSE(strstr(d, " differs_state"), "in their references only");
	}
	return d;
}

/*
 * Runs of prog on both paths (take 1, then 0), checked: no difference,
 * and at least min checks at calls whose paths differ.
 */
static void differs_checked(struct held_bpf *skel, const struct bpf_program *prog, int min)
{
	uint64_t diff0 = stat_of("held_differences"), chk0 = stat_of("held_differs_checked");

	for (skel->data->take = 1; skel->data->take >= 0; skel->data->take--)
		ASSERT_EQ(run_prog(prog), 0, "take=%d: run", skel->data->take);
	ASSERT_EQ(stat_of("held_differences"), diff0, "differences");
	ASSERT_GE(stat_of("held_differs_checked") - chk0, min, "calls checked");
	skel->data->take = 1;
}

WITH_MODULE(test_held_descriptions, "track=1 check_held=1");
void test_held_descriptions(void)
{
	struct held_bpf *skel = held_bpf__open_and_load();
	const char *d;

	if (!ASSERT_OK_PTR(skel, "load held"))
		return;
	skel->bss->target_pid = getpid();

	/* a pointer on one path, NULL on the other: kept, maybe_null */
	if (test__start_subtest("null_on_one_path")) {
		d = description_of(skel->progs.held_two_paths, "rtg_test_arg0");
		if (ASSERT_OK_PTR(d, "described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, "refs=1\n"), "one resource");
			ASSERT_TRUE(strstr(d, " maybe_null"), "maybe_null");
			ASSERT_FALSE(strstr(d, " differs"), "one description for both paths");
		}
		skel->data->take = 1;
		runs_checked(skel->progs.held_two_paths, 20, true);
		skel->data->take = 0;
		runs_checked(skel->progs.held_two_paths, 20, true);
		skel->data->take = 1;
	}
	/* never named by one of two acquisitions: unknown, or no description */
	if (test__start_subtest("two_acquirers")) {
		d = description_of(skel->progs.held_two_acquirers, "rtg_test_arg0");
		if (ASSERT_OK_PTR(d, "described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, " differs") || strstr(d, " acq=?"),
				    "neither acquisition named alone");
		}
		skel->data->take = 0;
		runs_checked(skel->progs.held_two_acquirers, 20, false);
		skel->data->take = 1;
		runs_checked(skel->progs.held_two_acquirers, 20, false);
	}
	/* static functions: three frames, three objects, one description */
	if (test__start_subtest("static_frames")) {
		d = description_of(skel->progs.held_static_chain, "rtg_test_arg1");
		if (ASSERT_OK_PTR(d, "described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, "frames=3 global=0"), "three frames from main");
			ASSERT_TRUE(strstr(d, "refs=3\n"), "three resources");
		}
		runs_checked(skel->progs.held_static_chain, 20, true);
	}
	/* what the descriptions take, one copy of each */
	if (test__start_subtest("bytes")) {
		const struct bpf_program *progs[] = {
			skel->progs.held_two_paths, skel->progs.held_two_acquirers,
			skel->progs.held_static_chain, skel->progs.held_global_chain,
			skel->progs.held_two_paths_stop,
		};
		struct rtg_prog_line pl;
		unsigned int i;

		for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
			if (!ASSERT_OK(progs_find(prog_id_of(progs[i]), &pl), "%s in progs",
				       bpf_program__name(progs[i])))
				continue;
			printf("  %s: %u calls, held_bytes=%u\n", bpf_program__name(progs[i]),
			       pl.sites, pl.held_bytes);
			/* a header of 8 bytes and 16 a place, at the least one */
			ASSERT_GE(pl.held_bytes, 8u, "%s: described", bpf_program__name(progs[i]));
		}
	}
	/*
	 * a global function's description starts at its own frame; with
	 * those of the calls of the global functions, it names the run
	 */
	if (test__start_subtest("global_frames")) {
		d = description_of(skel->progs.held_global_chain, "rtg_test_arg2");
		if (ASSERT_OK_PTR(d, "described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, "frames=1 global=1"), "from the global function");
			ASSERT_TRUE(strstr(d, "refs=1\n"), "its own resource");
		}
		/* what the frames outside each global function hold */
		d = description_of(skel->progs.held_global_chain, "held_global1");
		if (ASSERT_OK_PTR(d, "the call of held_global1 described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, "frames=1 global=0"), "from main");
			ASSERT_TRUE(strstr(d, "refs=1\n"), "main's resource");
		}
		d = description_of(skel->progs.held_global_chain, "held_global2");
		if (ASSERT_OK_PTR(d, "the call of held_global2 described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, "frames=1 global=1"), "from held_global1");
			ASSERT_TRUE(strstr(d, "refs=1\n"), "held_global1's resource");
		}
		runs_checked(skel->progs.held_global_chain, 20, true);
	}
	/*
	 * paths that reach a call with different references: the table has
	 * only what the calls the verifier names (held_differs) recorded
	 */
	if (test__start_subtest("differs_recorded")) {
		differs_in_refs(skel->progs.held_partly_stop, "rtg_test_arg0");
		skel->data->spin_loops = 4;
		differs_checked(skel, skel->progs.held_partly_stop, 8);
		skel->data->spin_loops = 1 << 23;
	}
	/* the same, holding the spin lock: it is where the description says */
	if (test__start_subtest("differs_lock")) {
		d = differs_in_refs(skel->progs.held_partly_lock, "bpf_spin_unlock");
		ASSERT_TRUE(d && strstr(d, " spin_lock "), "the lock held");
		/* bpf_spin_lock() and bpf_spin_unlock(), on each path */
		differs_checked(skel, skel->progs.held_partly_lock, 4);
		/* the lock in another set of places on each path */
		d = description_of(skel->progs.held_lock_places, "bpf_spin_unlock");
		if (ASSERT_OK_PTR(d, "described")) {
			printf("  %s\n", d);
			ASSERT_TRUE(strstr(d, " differs_state"), "the lock's places differ");
		}
	}
	held_bpf__destroy(skel);
}

/*
 * Runs of prog on both paths (take 1, then 0), each stopped by the
 * watchdog: the stop counted once in stats stat, and no test object left.
 */
static void stopped_on_both_paths(struct held_bpf *skel, const struct bpf_program *prog,
				  const char *stat)
{
	uint64_t live0 = 0, live = 0, n0 = 0, n = 0;
	int take;

	for (take = 1; take >= 0; take--) {
		skel->data->take = take;
		ASSERT_OK(testmod_live(&live0), "test objects");
		ASSERT_OK(stat_read(stat, &n0), "stats %s", stat);
		ASSERT_EQ(run_prog(prog), -ETIMEDOUT, "take=%d: stopped", take);
		ASSERT_OK(stat_read(stat, &n), "stats %s", stat);
		ASSERT_EQ(n, n0 + 1, "take=%d: released as %s counts", take, stat);
		ASSERT_OK(testmod_live(&live), "test objects");
		ASSERT_EQ(live, live0, "take=%d: no test object left", take);
	}
}

/*
 * Two paths reach the stopping call, one holding an object, one not: the
 * stop gives back what the description reads on this run, nothing more.
 */
WITH_MODULE(test_held_stop_two_paths, "track=1 watchdog_ms=100");
void test_held_stop_two_paths(void)
{
	struct held_bpf *skel = held_bpf__open_and_load();

	if (!ASSERT_OK_PTR(skel, "load held"))
		return;
	stopped_on_both_paths(skel, skel->progs.held_two_paths_stop, "stops_described");
	printf("  %s\n", description_of(skel->progs.held_two_paths_stop, "rtg_test_arg0") ?: "-");
	held_bpf__destroy(skel);
}

/*
 * A stop inside three global functions and a static one, each frame
 * holding an object: the program keeps no table, and the stop gives back
 * all four objects by the descriptions of the call it stops at and of
 * the calls of the global functions outside it.
 */
WITH_MODULE(test_held_stop_global_frames, "track=1 check_held=0 describe=1 watchdog_ms=100");
void test_held_stop_global_frames(void)
{
	struct held_bpf *skel = held_bpf__open_and_load();
	uint64_t live0 = 0, live = 0, described0 = 0, described = 0;
	struct rtg_held h;

	if (!ASSERT_OK_PTR(skel, "load held"))
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.held_deep_stop), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "described: no table");
		ASSERT_EQ(h.lazy, 1, "described: lazy runs");
	}
	ASSERT_OK(testmod_live(&live0), "test objects");
	ASSERT_OK(stat_read("stops_described", &described0), "stats stops_described");
	ASSERT_EQ(run_prog(skel->progs.held_deep_stop), -ETIMEDOUT, "stopped");
	ASSERT_OK(stat_read("stops_described", &described), "stats stops_described");
	ASSERT_EQ(described, described0 + 1, "released by the descriptions");
	ASSERT_OK(testmod_live(&live), "test objects");
	ASSERT_EQ(live, live0, "no test object left");
	held_bpf__destroy(skel);
}

/*
 * A stop at a call that paths reach with different references (one
 * object and an iterator, or the iterator alone) in a partly described
 * program: the run's table recorded those, and only those; the pair
 * before, which the description of its call names, was not recorded.
 */
WITH_MODULE(test_held_stop_partly, "track=1 check_held=0 describe=1 watchdog_ms=100");
void test_held_stop_partly(void)
{
	struct held_bpf *skel = held_bpf__open_and_load();
	struct rtg_held h;

	if (!ASSERT_OK_PTR(skel, "load held"))
		return;
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.held_partly_stop), &h), "in held")) {
		ASSERT_EQ(h.described, 0, "not described");
		ASSERT_EQ(h.partly, 1, "partly described");
		ASSERT_EQ(h.lazy, 0, "partly described: runs current from entry");
	}
	stopped_on_both_paths(skel, skel->progs.held_partly_stop, "stops_from_table");
	/* the spin lock held where paths differ: partly described too */
	if (ASSERT_OK(held_find(prog_id_of(skel->progs.held_partly_lock), &h), "in held")) {
		ASSERT_EQ(h.described, 0, "with the lock: not described");
		ASSERT_EQ(h.partly, 1, "with the lock: partly described");
	}
	held_bpf__destroy(skel);
}

/*
 * The flag tests in prog's JIT image (cmp dword gs:[disp32], 0: each
 * hooked call's test of its CPU's slow-path word), or -1.
 */
static int flag_tests(const struct bpf_program *prog)
{
	static uint8_t code[65536];
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), i;
	int n = 0;

	info.jited_prog_len = sizeof(code);
	info.jited_prog_insns = (unsigned long)code;
	if (!ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len),
		       "JIT image") ||
	    !ASSERT_LE(info.jited_prog_len, sizeof(code), "JIT image size"))
		return -1;
	for (i = 0; i + 9 <= info.jited_prog_len; i++)
		n += !memcmp(code + i, "\x65\x83\x3c\x25", 4) && !code[i + 8];
	return n;
}

/* prog's rtg_acquire and rtg_release events in the trace buffer. */
static void count_events(const struct bpf_program *prog, int *acquires, int *releases)
{
	static struct track_event ev[64];
	int n = track_events_read(prog_id_of(prog), ev, 64), i;

	*acquires = 0;
	*releases = 0;
	for (i = 0; i < n; i++)
		(ev[i].acquire ? acquires : releases)[0]++;
}

/*
 * A described program loaded while rtg_acquire and rtg_release are off
 * is bare: its three releases make no hook (no flag test in its image,
 * against one each when loaded with the events on), so neither event
 * reports its calls, even once turned on; loaded while they are on, it
 * keeps its post hooks and the events report every call. Both give back
 * every object.
 */
WITH_MODULE(test_held_bare_calls, "track=1 check_held=0 describe=1");
void test_held_bare_calls(void)
{
	struct held_bpf *bare = NULL, *full = NULL;
	int n_bare = -1, n_full = -1, acq, rel;
	uint64_t live0 = 0, live = 0;
	struct rtg_held h;

	bare = held_bpf__open_and_load();
	if (!ASSERT_OK_PTR(bare, "load held, events off"))
		return;
	ASSERT_OK(testmod_live(&live0), "test objects");
	if (ASSERT_OK(held_find(prog_id_of(bare->progs.held_static_chain), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "events off: described");
		ASSERT_EQ(h.bare, 1, "events off: bare");
	}
	n_bare = flag_tests(bare->progs.held_static_chain);
	if (!track_events_start())
		goto out;
	full = held_bpf__open_and_load();
	if (!ASSERT_OK_PTR(full, "load held, events on"))
		goto out;
	if (ASSERT_OK(held_find(prog_id_of(full->progs.held_static_chain), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "events on: described");
		ASSERT_EQ(h.bare, 0, "events on: not bare");
	}
	n_full = flag_tests(full->progs.held_static_chain);
	printf("  flag tests: %d bare, %d with the events on\n", n_bare, n_full);
	ASSERT_GE(n_bare, 4, "bare: three acquisitions and a call tested");
	ASSERT_EQ(n_full - n_bare, 3, "bare: the three releases untested");

	bare->data->take = 1;
	full->data->take = 1;
	if (test__start_subtest("bare")) {
		ASSERT_EQ(run_prog(bare->progs.held_static_chain), 1, "bare run");
		count_events(bare->progs.held_static_chain, &acq, &rel);
		ASSERT_EQ(acq, 0, "bare: acquisitions reported");
		ASSERT_EQ(rel, 0, "bare: releases reported");
	}
	if (test__start_subtest("events_on")) {
		ASSERT_EQ(run_prog(full->progs.held_static_chain), 1, "run");
		count_events(full->progs.held_static_chain, &acq, &rel);
		ASSERT_EQ(acq, 3, "acquisitions reported");
		ASSERT_EQ(rel, 3, "releases reported");
	}
	ASSERT_OK(testmod_live(&live), "test objects");
	ASSERT_EQ(live, live0, "no test object left");
out:
	track_events_stop();
	held_bpf__destroy(full);
	held_bpf__destroy(bare);
}

/* held's programs loaded while the acquire and release events are on, or NULL. */
static struct held_bpf *held_load_events_on(void)
{
	struct held_bpf *skel;

	if (!track_events_start())
		return NULL;
	skel = held_bpf__open_and_load();
	track_events_stop();
	ASSERT_OK_PTR(skel, "load held, events on");
	return skel;
}

/*
 * A bare described program that does not sleep makes the calls its runs
 * make at most once plainly: the compare and branch stay on its loops'
 * calls alone (held_once: its loop's acquisition; held_once_entered: the
 * call of a loop entered by a jump past it, not the one before), and a
 * program loaded while the events are on tests each call. Each image
 * has one test more: its run's entry tests whether its CPU is watched;
 * a lazy image (events off) one more again: its run's exit tests whether
 * its CPU has adopted runs whose exits the module must see.
 * The runs give back every object.
 */
WITH_MODULE(test_held_once, "track=1 check_held=0 describe=1");
void test_held_once(void)
{
	struct held_bpf *bare = NULL, *full = NULL;
	uint64_t live0 = 0, live = 0;
	struct rtg_held h;

	ASSERT_OK(testmod_live(&live0), "test objects");
	bare = held_bpf__open_and_load();
	if (!ASSERT_OK_PTR(bare, "load held, events off"))
		return;
	if (ASSERT_OK(held_find(prog_id_of(bare->progs.held_once), &h), "in held")) {
		ASSERT_EQ(h.described, 1, "described");
		ASSERT_EQ(h.bare, 1, "bare");
	}
	ASSERT_EQ(flag_tests(bare->progs.held_once), 2 + 1, "bare: the loop's acquisition tested");
	ASSERT_EQ(flag_tests(bare->progs.held_once_entered), 2 + 1, "bare: the loop's call tested");
	ASSERT_EQ(run_prog(bare->progs.held_once), 3, "bare run");
	ASSERT_EQ(run_prog(bare->progs.held_once_entered), 0, "bare run, loop entered");
	full = held_load_events_on();
	if (!full)
		goto out;
	ASSERT_EQ(flag_tests(full->progs.held_once), 1 + 4, "events on: every call tested");
	ASSERT_EQ(flag_tests(full->progs.held_once_entered), 1 + 2, "events on: both calls tested");
	ASSERT_EQ(run_prog(full->progs.held_once), 3, "run");
out:
	ASSERT_OK(testmod_live(&live), "test objects");
	ASSERT_EQ(live, live0, "no test object left");
	held_bpf__destroy(full);
	held_bpf__destroy(bare);
}

/*
 * Program prog's entry in held, its run area and whether it is bare: a
 * bracketed run has an area, or is lazy and keeps nothing in its frame.
 */
static void straight_expect(const struct bpf_program *prog, bool bracketed, const char *what)
{
	struct rtg_held h;

	if (!ASSERT_OK(held_find(prog_id_of(prog), &h), what))
		return;
	ASSERT_EQ(h.described, 1, what);
	if (bracketed) {
		ASSERT_TRUE(h.run_area > 0 || h.lazy, what);
	} else {
		ASSERT_EQ(h.bare, 1, what);
		ASSERT_EQ(h.run_area, 0, what);
		ASSERT_EQ(h.lazy, 0, what);
	}
}

/*
 * A bare described program that does not sleep, has no loop and calls
 * no BPF function has no place to stop: its runs are not bracketed (no
 * run area, and no entry test of its CPU's watch flag), and the object
 * it takes is given back as before. A loop, a callback or the events on
 * at load keep the bracket; lazy, the runs of such a tc program keep
 * nothing in their frames.
 */
WITH_MODULE(test_held_straight, "track=1 check_held=0 describe=1");
void test_held_straight(void)
{
	struct held_bpf *bare = NULL, *full = NULL;
	uint64_t live0 = 0, live = 0;
	struct rtg_held h;

	ASSERT_OK(testmod_live(&live0), "test objects");
	bare = held_bpf__open_and_load();
	if (!ASSERT_OK_PTR(bare, "load held, events off"))
		return;
	straight_expect(bare->progs.held_straight, false, "straight: not bracketed");
	straight_expect(bare->progs.held_straight_loop_cb, true, "callback: bracketed");
	straight_expect(bare->progs.held_once, true, "loop: bracketed");
	if (ASSERT_OK(held_find(prog_id_of(bare->progs.held_once), &h), "loop: in held")) {
		ASSERT_EQ(h.lazy, 1, "loop: lazy");
		ASSERT_EQ(h.run_area, 0u, "loop: nothing in the frame");
	}
	ASSERT_EQ(flag_tests(bare->progs.held_straight), 0, "straight: no flag test");
	/* its bpf_loop(), inlined by the verifier, calls the callback: no call after it */
	ASSERT_EQ(flag_tests(bare->progs.held_straight_loop_cb), 2,
		  "callback: the entry's and the exit's tests");
	ASSERT_EQ(run_prog(bare->progs.held_straight), 5, "straight run");
	ASSERT_EQ(run_prog(bare->progs.held_straight_loop_cb), 5, "callback run");
	full = held_load_events_on();
	if (!full)
		goto out;
	straight_expect(full->progs.held_straight, true, "events on: bracketed");
	ASSERT_EQ(run_prog(full->progs.held_straight), 5, "events on: run");
out:
	ASSERT_OK(testmod_live(&live), "test objects");
	ASSERT_EQ(live, live0, "no test object left");
	held_bpf__destroy(full);
	held_bpf__destroy(bare);
}
