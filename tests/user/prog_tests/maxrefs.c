// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the verifier records for maxrefs.bpf.c's programs, as bpf_rtguard
 * sees it in debugfs progs: the largest number of references held at once
 * (patch 2) and BPF_F_DEBUG_MODE (patch 3).
 */
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "maxrefs.skel.h"

WITH_MODULE(test_verifier_max_refs, "hook_all=1");
void test_verifier_max_refs(void)
{
	static const struct {
		const char *name;
		uint32_t want;
	} progs[] = {
		{ "refs_one", 1 }, { "refs_three", 3 }, { "refs_iter", 2 },
		/* the call chain of global functions that holds the most */
		{ "refs_global_chain", 4 }, { "refs_global_nested", 5 },
	};
	struct maxrefs_bpf *skel;
	struct rtg_prog_line pl;
	size_t i;

	skel = maxrefs_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load maxrefs"))
		return;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p;

		if (!test__start_subtest(progs[i].name))
			continue;
		p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
		if (!ASSERT_OK_PTR(p, "program %s", progs[i].name) ||
		    !ASSERT_OK(progs_find(prog_id_of(p), &pl), "%s in debugfs progs",
			       progs[i].name))
			continue;
		ASSERT_EQ(pl.max_refs, progs[i].want, "%s: max_refs", progs[i].name);
		ASSERT_EQ(pl.debug_mode, 0, "%s: debug_mode", progs[i].name);
		printf("  %s: max_refs %u\n", progs[i].name, pl.max_refs);
	}
	maxrefs_bpf__destroy(skel);
}

/* The flag reaches the program: bpf_rtguard sees it on a hooked program. */
WITH_MODULE(test_debug_mode_flag, "hook_all=1");
void test_debug_mode_flag(void)
{
	struct maxrefs_bpf *skel;
	struct rtg_prog_line pl;

	skel = maxrefs_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open maxrefs"))
		return;
	prog_set_debug(skel->progs.refs_one);
	if (ASSERT_OK(maxrefs_bpf__load(skel), "load")) {
		if (ASSERT_OK(progs_find(prog_id_of(skel->progs.refs_one), &pl),
			      "refs_one in debugfs progs"))
			ASSERT_EQ(pl.debug_mode, 1, "refs_one loaded with BPF_F_DEBUG_MODE");
		if (ASSERT_OK(progs_find(prog_id_of(skel->progs.refs_three), &pl),
			      "refs_three in debugfs progs"))
			ASSERT_EQ(pl.debug_mode, 0, "refs_three loaded without it");
	}
	maxrefs_bpf__destroy(skel);
}
