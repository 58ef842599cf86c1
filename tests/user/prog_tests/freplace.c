// SPDX-License-Identifier: GPL-2.0-only
/*
 * An extension program (freplace) enters with the arguments of the BPF
 * function it replaces in R1-R5. Tracked, both the target and the
 * extension are bracketed runs: the extension's entry must keep its
 * arguments (kernel patch 10), so the target sees the sum it would see
 * without the extension, and nothing stays held.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "freplace.skel.h"
#include "freplace_ext.skel.h"

#define TEST_PKT_LEN 54

WITH_MODULE(test_track_freplace, "track=1 check_held=1");
void test_track_freplace(void)
{
	struct freplace_ext_bpf *ext = NULL;
	struct bpf_link *link = NULL;
	struct freplace_bpf *tgt;
	struct rtg_held h;
	int fd;

	tgt = freplace_bpf__open_and_load();
	if (!ASSERT_OK_PTR(tgt, "load freplace"))
		return;
	ASSERT_EQ(run_prog(tgt->progs.fr_target), 0, "fr_target without the extension");
	ASSERT_EQ(tgt->bss->fr_result, 1000 + TEST_PKT_LEN + 20, "fr_sum3's sum");
	fd = bpf_program__fd(tgt->progs.fr_target);
	ext = freplace_ext_bpf__open();
	if (!ASSERT_OK_PTR(ext, "open freplace_ext"))
		goto out;
	if (!ASSERT_OK(bpf_program__set_attach_target(ext->progs.fr_sum3_ext, fd, "fr_sum3"),
		       "attach target") ||
	    !ASSERT_OK(freplace_ext_bpf__load(ext), "load freplace_ext"))
		goto out;
	link = bpf_program__attach_freplace(ext->progs.fr_sum3_ext, fd, "fr_sum3");
	if (!ASSERT_OK_PTR(link, "attach the extension"))
		goto out;
	tgt->bss->fr_result = 0;
	ASSERT_EQ(run_prog(tgt->progs.fr_target), 0, "fr_target with the extension");
	ASSERT_EQ(tgt->bss->fr_result, 1000 + TEST_PKT_LEN + 20,
		  "the extension's sum of its three arguments");
	ASSERT_EQ(ext->bss->ext_runs, 1, "the extension ran");
	if (ASSERT_OK(held_find(prog_id_of(ext->progs.fr_sum3_ext), &h),
		      "the extension in debugfs held")) {
		ASSERT_EQ(h.leftover + h.unmatched + h.stray, 0,
			  "the extension left nothing held, released nothing it did not hold");
		ASSERT_EQ(h.nruns, 0, "no run of the extension in flight");
	}
out:
	bpf_link__destroy(link);
	freplace_ext_bpf__destroy(ext);
	freplace_bpf__destroy(tgt);
}
