// SPDX-License-Identifier: GPL-2.0-only
/*
 * JIT images of jitimage.bpf.c: a hooked call calls the hook's first byte
 * with the call site in %r9; an owner that selects nothing leaves the image
 * as it is without an owner; a hooked program pins bpf_rtguard until it is
 * freed.
 */
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
#include "jitimage.skel.h"

#define MAX_FUNCS 8

struct jit_image {
	uint32_t nfuncs;
	uint64_t addr[MAX_FUNCS];
	uint32_t len[MAX_FUNCS];
	uint8_t *bytes;		/* the images of all functions, in order */
	uint32_t id;
	int retval;
	int nsites;		/* bpf_rtguard call sites of the program */
	int sites_once;		/* of those, sites counted exactly once */
};

/* Count the program's sites in bpf_rtguard/calls while it is loaded. */
static void jit_sites(struct jit_image *im)
{
	static struct rtg_call_site sites[256];
	int n = calls_read(sites, 256), k;

	for (k = 0; k < n; k++) {
		if (sites[k].prog_id != im->id)
			continue;
		im->nsites++;
		im->sites_once += sites[k].count == 1;
	}
}

static int32_t rel32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Load jitimage.bpf.o, run it once and read back its JIT image. */
static int jit_load(struct jit_image *im)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), total;
	struct jitimage_bpf *skel;
	int fd, err = -1;

	memset(im, 0, sizeof(*im));
	skel = jitimage_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load jitimage"))
		return -1;
	fd = bpf_program__fd(skel->progs.jit_prog);
	im->retval = run_prog(skel->progs.jit_prog);
	if (!ASSERT_GE(im->retval, 0, "run jit_prog"))
		goto out;
	if (!ASSERT_OK(bpf_prog_get_info_by_fd(fd, &info, &len), "prog info"))
		goto out;
	total = info.jited_prog_len;
	im->nfuncs = info.nr_jited_ksyms;
	im->id = info.id;
	if (!ASSERT_GT(im->nfuncs, 0, "JITed functions") ||
	    !ASSERT_LE(im->nfuncs, MAX_FUNCS, "JITed functions") ||
	    !ASSERT_EQ(info.nr_jited_func_lens, im->nfuncs, "function lengths"))
		goto out;
	im->bytes = malloc(total);
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = total;
	info.jited_prog_insns = (unsigned long)im->bytes;
	info.nr_jited_ksyms = im->nfuncs;
	info.jited_ksyms = (unsigned long)im->addr;
	info.nr_jited_func_lens = im->nfuncs;
	info.jited_func_lens = (unsigned long)im->len;
	len = sizeof(info);
	if (ASSERT_OK(bpf_prog_get_info_by_fd(fd, &info, &len), "JIT image"))
		err = 0;
	jit_sites(im);
out:
	jitimage_bpf__destroy(skel);
	return err;
}

/* A call target, as an index of the image's own functions or as itself. */
static uint64_t call_target(const struct jit_image *im, uint32_t f, uint32_t at,
			    const uint8_t *code)
{
	uint64_t t = im->addr[f] + at + 5 + rel32(code + at + 1);
	uint32_t k;

	for (k = 0; k < im->nfuncs; k++)
		if (t == im->addr[k])
			return k;
	return t;
}

/*
 * Function f of a and b is equal but for the rel32 of direct calls, which
 * differ because the images sit at different addresses: such a difference
 * is allowed when both calls reach the same function. Returns the first
 * offset that differs otherwise, or -1.
 */
static int first_difference(const struct jit_image *a, const struct jit_image *b,
			    uint32_t f, uint32_t off)
{
	const uint8_t *x = a->bytes + off, *y = b->bytes + off;
	uint32_t len = a->len[f], i = 0, j;

	while (i < len) {
		if (x[i] == y[i]) {
			i++;
			continue;
		}
		for (j = i > 4 ? i - 4 : 0; j < i; j++) {
			if (x[j] == 0xe8 && y[j] == 0xe8 && j + 5 <= len &&
			    call_target(a, f, j, x) == call_target(b, f, j, y))
				break;
		}
		if (j == i)
			return i;
		i = j + 5;
	}
	return -1;
}

/*
 * Both images come from the patched kernel: one JIT compiled with no call
 * hook owner registered, one with bpf_rtguard registered (hook_all=0) and
 * selecting no call. This shows that an owner selecting nothing leaves the
 * image as it is; it does not compare with an unpatched kernel's JIT.
 */
void test_jit_idle_owner(void)
{
	struct jit_image none, idle;
	uint32_t f, off = 0, same = 0;

	if (!ASSERT_FALSE(mod_loaded(MOD_RTGUARD), "bpf_rtguard loaded before the test"))
		return;
	if (jit_load(&none))
		return;
	ASSERT_EQ(none.retval, 0, "retval without an owner");
	if (!ASSERT_OK(mod_load(MOD_RTGUARD, "hook_all=0"), "insmod hook_all=0"))
		goto out;
	if (!jit_load(&idle)) {
		ASSERT_EQ(idle.retval, 0, "retval with an idle owner");
		ASSERT_EQ(idle.nfuncs, none.nfuncs, "functions");
		for (f = 0; f < none.nfuncs && f < idle.nfuncs; f++) {
			if (ASSERT_EQ(idle.len[f], none.len[f], "bytes of function %u", f) &&
			    ASSERT_EQ(first_difference(&none, &idle, f, off), -1,
				      "first differing byte of function %u", f))
				same++;
			off += none.len[f];
		}
		ASSERT_EQ(idle.nsites, 0, "sites hooked with hook_all=0");
		printf("  %u of %u functions (%u bytes) identical with an owner selecting nothing\n",
		       same, none.nfuncs, off);
		free(idle.bytes);
	}
	ASSERT_OK(mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
out:
	free(none.bytes);
}

WITH_MODULE(test_jit_hook_target, "hook_all=1");
void test_jit_hook_target(void)
{
	uint32_t f, off = 0, p, hooked = 0, pseudo = 0, bad = 0;
	struct jit_image im;
	uint64_t hook;

	hook = kallsyms_addr("rtg_passthrough_hook");
	if (!ASSERT_NE(hook, 0, "rtg_passthrough_hook in kallsyms"))
		return;
	if (jit_load(&im))
		return;
	ASSERT_EQ(im.retval, 0, "retval");
	ASSERT_EQ(im.nfuncs, 2, "functions");
	for (f = 0; f < im.nfuncs; f++) {
		const uint8_t *b = im.bytes + off;

		for (p = 0; p + 5 <= im.len[f]; p++) {
			uint64_t target, arg;

			if (b[p] == 0xe8 && f == 0 && im.nfuncs > 1 &&
			    im.addr[0] + p + 5 + rel32(b + p + 1) == im.addr[1])
				pseudo++;
			/* movabs $site, %r9; call hook */
			if (p + 15 > im.len[f] || b[p] != 0x49 || b[p + 1] != 0xb9 ||
			    b[p + 10] != 0xe8)
				continue;
			memcpy(&arg, b + p + 2, sizeof(arg));
			target = im.addr[f] + p + 15 + rel32(b + p + 11);
			if (target == hook && arg >> 47 == 0x1ffff)
				hooked++;
			else
				bad++;
			if (target != hook)
				printf("  call at func %u +%u goes to hook%+ld\n",
				       f, p + 10, (long)(target - hook));
		}
		off += im.len[f];
	}
	ASSERT_EQ(im.sites_once, im.nsites, "sites counted once");
	ASSERT_EQ(bad, 0, "calls next to a site argument that miss the hook");
	ASSERT_EQ(hooked, 5, "hooked calls");
	ASSERT_EQ(im.nsites, (int)hooked, "sites in debugfs vs hooked calls");
	ASSERT_EQ(pseudo, 1, "bpf-to-bpf calls left");
	printf("  %u calls go to rtg_passthrough_hook at %#lx, %u bpf-to-bpf call untouched\n",
	       hooked, hook, pseudo);
	free(im.bytes);
}

/*
 * Lifetime: a program whose image calls into bpf_rtguard pins the module
 * until the program is freed; one loaded with hook_all off does not. The
 * test loads and unloads bpf_rtguard itself.
 */
void test_lifetime(void)
{
	struct jitimage_bpf *skel;
	int i, err, cycles = 0;
	uint64_t refs = 0;

	/* hooked: rmmod is refused while the program exists */
	if (!ASSERT_OK(mod_load(MOD_RTGUARD, "hook_all=1"), "insmod hook_all=1"))
		return;
	skel = jitimage_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load"))
		goto unload;
	ASSERT_EQ(run_prog(skel->progs.jit_prog), 0, "hooked run");
	ASSERT_OK(read_u64("/sys/module/" MOD_RTGUARD "/refcnt", &refs), "refcnt");
	ASSERT_GE(refs, 1, "module refcount with a hooked program");
	/* "in use": delete_module() says EWOULDBLOCK (EAGAIN), rmmod "in use" */
	err = mod_unload(MOD_RTGUARD);
	ASSERT_EQ(err, -EWOULDBLOCK, "rmmod with a hooked program");
	ASSERT_TRUE(mod_loaded(MOD_RTGUARD), "module still there after a refused rmmod");
	ASSERT_EQ(run_prog(skel->progs.jit_prog), 0, "run after the refused rmmod");
	jitimage_bpf__destroy(skel);
unload:
	err = mod_unload_wait(MOD_RTGUARD, 5000);
	if (!ASSERT_OK(err, "rmmod after the program is freed"))
		return;

	/* not hooked: the program does not pin the module and outlives it */
	if (!ASSERT_OK(mod_load(MOD_RTGUARD, "hook_all=0"), "insmod hook_all=0"))
		return;
	skel = jitimage_bpf__open_and_load();
	ASSERT_OK_PTR(skel, "load");
	err = mod_unload(MOD_RTGUARD);
	ASSERT_OK(err, "rmmod with an unhooked program");
	if (skel)
		ASSERT_EQ(run_prog(skel->progs.jit_prog), 0, "unhooked program after rmmod");
	jitimage_bpf__destroy(skel);
	if (err)
		mod_unload_wait(MOD_RTGUARD, 5000);

	/* 20 load/unload cycles with programs loaded and freed in between */
	for (i = 0; i < 20; i++) {
		char params[32];

		snprintf(params, sizeof(params), "hook_all=%d", i & 1 ? 0 : 1);
		if (!ASSERT_OK(mod_load(MOD_RTGUARD, params), "insmod %d", i))
			break;
		skel = jitimage_bpf__open_and_load();
		if (ASSERT_OK_PTR(skel, "load %d", i)) {
			ASSERT_EQ(run_prog(skel->progs.jit_prog), 0, "run %d", i);
			jitimage_bpf__destroy(skel);
		}
		err = mod_unload_wait(MOD_RTGUARD, 5000);
		if (!ASSERT_OK(err, "rmmod %d", i))
			break;
		cycles++;
	}
	ASSERT_EQ(cycles, 20, "insmod/load/free/rmmod cycles");
	printf("  %d insmod/load/free/rmmod cycles\n", cycles);
}
