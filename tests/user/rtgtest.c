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

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
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
};

static const struct {
	const char *name;
	void (*fn)(void);
} demos[] = {
	{ "calls", demo_calls },
}, benches[] = {
	{ "calls", bench_calls },
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			puts(tests[i].name);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--demo")) {
		for (i = 0; i < sizeof(demos) / sizeof(demos[0]); i++) {
			if (strcmp(argv[2], demos[i].name))
				continue;
			demos[i].fn();
			return rtg_failures ? 1 : 0;
		}
		fprintf(stderr, "%s: no demo '%s'\n", argv[0], argv[2]);
		return 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--bench")) {
		for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
			if (strcmp(argv[2], benches[i].name))
				continue;
			benches[i].fn();
			return rtg_failures ? 1 : 0;
		}
		fprintf(stderr, "%s: no benchmark '%s'\n", argv[0], argv[2]);
		return 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s --list | TEST\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[1], tests[i].name))
			continue;
		tests[i].fn();
		return rtg_failures ? 1 : 0;
	}
	fprintf(stderr, "%s: no test '%s'\n", argv[0], argv[1]);
	return 2;
}
