// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lifetime: a program whose image calls into bpf_rtguard pins the module
 * until the program is freed; one loaded with hook_all off does not.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "jitimage.skel.h"

static int run_prog(struct jitimage_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.jit_prog), &opts))
		return -errno;
	return opts.retval;
}

void test_lifetime(void)
{
	struct jitimage_bpf *skel;
	int i, err, cycles = 0;
	uint64_t refs = 0;

	/* hooked: rmmod is refused while the program exists */
	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=1"), "insmod");
	skel = jitimage_bpf__open_and_load();
	REQUIRE(skel, "load: %s", strerror(errno));
	CHECK(run_prog(skel) == 0, "hooked run");
	CHECK(read_u64("/sys/module/" MOD_RTGUARD "/refcnt", &refs) == 0 && refs >= 1,
	      "module refcount %lu with a hooked program", refs);
	/* "in use": delete_module() says EWOULDBLOCK (EAGAIN), rmmod "in use" */
	err = mod_unload(MOD_RTGUARD);
	CHECK(err == -EWOULDBLOCK, "rmmod with a hooked program: %s, want EWOULDBLOCK",
	      strerror(-err));
	CHECK(mod_loaded(MOD_RTGUARD), "module gone after a refused rmmod");
	CHECK(run_prog(skel) == 0, "run after refused rmmod");
	jitimage_bpf__destroy(skel);
	err = mod_unload_wait(MOD_RTGUARD, 5000);
	REQUIRE(err == 0, "rmmod after close: %s", strerror(-err));

	/* not hooked: the program does not pin the module and outlives it */
	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=0"), "insmod");
	skel = jitimage_bpf__open_and_load();
	REQUIRE(skel, "load: %s", strerror(errno));
	err = mod_unload(MOD_RTGUARD);
	CHECK(err == 0, "rmmod with an unhooked program: %s", strerror(-err));
	CHECK(run_prog(skel) == 0, "unhooked program after rmmod");
	jitimage_bpf__destroy(skel);

	/* 20 load/unload cycles with programs loaded and freed in between */
	for (i = 0; i < 20; i++) {
		char params[32];

		snprintf(params, sizeof(params), "hook_all=%d", i & 1 ? 0 : 1);
		if (!CHECK(!mod_load(MOD_RTGUARD, params), "insmod %d", i))
			break;
		skel = jitimage_bpf__open_and_load();
		if (CHECK(skel, "load %d: %s", i, strerror(errno))) {
			CHECK(run_prog(skel) == 0, "run %d", i);
			jitimage_bpf__destroy(skel);
		}
		err = mod_unload_wait(MOD_RTGUARD, 5000);
		if (!CHECK(err == 0, "rmmod %d: %s", i, strerror(-err)))
			break;
		cycles++;
	}
	printf("  %d insmod/load/free/rmmod cycles\n", cycles);
}
