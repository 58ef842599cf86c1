// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtgtest: the guest tests of bpf_rtguard in one static binary.
 *
 *   rtgtest --list      names of all tests, one per line
 *   rtgtest NAME        run one test; exit 0 when every check held
 *   rtgtest --demo NAME run one demo scenario (see demo.sh)
 *   rtgtest --bench NAME run one benchmark (see bench.sh)
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"

struct rtg_entry {
	const char *name;
	void (*fn)(void);
};

static const struct rtg_entry tests[] = {
	{ "smp", test_smp },
	{ "passthrough", test_passthrough },
	{ "jit_identity", test_jit_identity },
	{ "jit_hook_target", test_jit_hook_target },
	{ "lifetime", test_lifetime },
	{ "param_einval", test_param_einval },
	{ "debug_mode_eperm", test_debug_mode_eperm },
	{ "debug_mode_flag", test_debug_mode_flag },
	{ "verifier_max_refs", test_verifier_max_refs },
	{ "debug_seed_trace", test_debug_seed_trace },
	{ "debug_selection", test_debug_selection },
	{ "debug_arg_counts", test_debug_arg_counts },
	{ "debug_two_cpus", test_debug_two_cpus },
	{ "debug_param_einval", test_debug_param_einval },
	{ "pairing_complete", test_pairing_complete },
	{ "pairing_follows_modules", test_pairing_follows_modules },
	{ "track_seeds", test_track_seeds },
	{ "track_snapshot", test_track_snapshot },
	{ "track_scenarios", test_track_scenarios },
	{ "track_nesting", test_track_nesting },
	{ "track_concurrency", test_track_concurrency },
	{ "track_pool_exhausted", test_track_pool_exhausted },
	{ "watchdog_runtime", test_watchdog_runtime },
	{ "watchdog_subprog", test_watchdog_subprog },
	{ "watchdog_sections", test_watchdog_sections },
	{ "watchdog_callback", test_watchdog_callback },
	{ "watchdog_hold_limit", test_watchdog_hold_limit },
	{ "watchdog_all_cpus", test_watchdog_all_cpus },
	{ "watchdog_off", test_watchdog_off },
	{ "watchdog_tc_socket", test_watchdog_tc_socket },
	{ "watchdog_nested", test_watchdog_nested },
	{ "watchdog_preempt", test_watchdog_preempt },
	{ "watchdog_spin_lock", test_watchdog_spin_lock },
	{ NULL },
}, demos[] = {
	{ "calls", demo_calls },
	{ "debug", test_debug_seed_trace },	/* prints the trace it checks */
	{ "track", test_track_seeds },		/* prints the events it checks */
	{ "held", test_track_snapshot },	/* prints the snapshot it checks */
	{ "watchdog", test_watchdog_runtime },	/* prints the stop it checks */
	{ NULL },
}, benches[] = {
	{ "calls", bench_calls },
	{ "track", bench_track },
	{ "watchdog", bench_watchdog },
	{ NULL },
};

/* Run the entry called name; exit status as main() returns it. */
static int run_entry(const struct rtg_entry *e, const char *what, const char *name)
{
	for (; e->name; e++) {
		if (strcmp(name, e->name))
			continue;
		e->fn();
		return rtg_failures ? 1 : 0;
	}
	fprintf(stderr, "rtgtest: no %s '%s'\n", what, name);
	return 2;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	const struct rtg_entry *e;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (e = tests; e->name; e++)
			puts(e->name);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--demo"))
		return run_entry(demos, "demo", argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return run_entry(benches, "benchmark", argv[2]);
	if (argc == 2)
		return run_entry(tests, "test", argv[1]);
	fprintf(stderr, "usage: %s --list | TEST | --demo NAME | --bench NAME\n", argv[0]);
	return 2;
}
