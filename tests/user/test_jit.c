// SPDX-License-Identifier: GPL-2.0-only
/*
 * JIT images: a program for which no hook is chosen JITs to the same bytes
 * with and without bpf_rtguard, and a hooked call calls the hook's first
 * byte with the call site in %r9.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
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
	int n = read_call_sites(sites, 256), k;

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
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), total;
	struct jitimage_bpf *skel;
	int fd, err = -1;

	memset(im, 0, sizeof(*im));
	skel = jitimage_bpf__open_and_load();
	if (!CHECK(skel, "load: %s", strerror(errno)))
		return -1;
	fd = bpf_program__fd(skel->progs.jit_prog);
	if (!CHECK(!bpf_prog_test_run_opts(fd, &opts), "run: %s", strerror(errno)))
		goto out;
	im->retval = opts.retval;
	if (!CHECK(!bpf_prog_get_info_by_fd(fd, &info, &len), "info: %s", strerror(errno)))
		goto out;
	total = info.jited_prog_len;
	im->nfuncs = info.nr_jited_ksyms;
	im->id = info.id;
	if (!CHECK(im->nfuncs && im->nfuncs <= MAX_FUNCS &&
		   info.nr_jited_func_lens == im->nfuncs, "%u functions", im->nfuncs))
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
	if (CHECK(!bpf_prog_get_info_by_fd(fd, &info, &len), "info: %s", strerror(errno)))
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
 * is allowed when both calls reach the same function.
 */
static bool same_code(const struct jit_image *a, const struct jit_image *b,
		      uint32_t f, uint32_t off, uint32_t *where)
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
		if (j == i) {
			*where = i;
			return false;
		}
		i = j + 5;
	}
	return true;
}

static void jit_free(struct jit_image *im)
{
	free(im->bytes);
}

void test_jit_identity(void)
{
	struct jit_image stock, idle;
	uint32_t f, off = 0, where, same = 0;

	REQUIRE(!mod_loaded(MOD_RTGUARD), "bpf_rtguard already loaded");
	REQUIRE(!jit_load(&stock), "load without bpf_rtguard");
	CHECK(stock.retval == 0, "retval %d", stock.retval);
	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=0"), "insmod");
	if (!jit_load(&idle)) {
		CHECK(idle.retval == 0, "retval %d", idle.retval);
		CHECK(idle.nfuncs == stock.nfuncs, "%u vs %u functions",
		      idle.nfuncs, stock.nfuncs);
		for (f = 0; f < stock.nfuncs && f < idle.nfuncs; f++) {
			CHECK(idle.len[f] == stock.len[f], "func %u: %u vs %u bytes",
			      f, idle.len[f], stock.len[f]);
			if (idle.len[f] == stock.len[f] &&
			    CHECK(same_code(&stock, &idle, f, off, &where),
				  "func %u differs at byte %u", f, where))
				same++;
			off += stock.len[f];
		}
		CHECK(idle.nsites == 0, "%d sites hooked with hook_all=0", idle.nsites);
		printf("  %u of %u functions (%u bytes) identical with hook_all=0\n",
		       same, stock.nfuncs, off);
		jit_free(&idle);
	}
	jit_free(&stock);
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

void test_jit_hook_target(void)
{
	uint32_t f, off = 0, p, hooked = 0, pseudo = 0, bad = 0;
	struct jit_image im;
	uint64_t hook;

	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=1"), "insmod");
	hook = kallsyms_addr("rtg_passthrough_hook");
	if (!CHECK(hook, "no rtg_passthrough_hook in kallsyms"))
		goto out;
	if (jit_load(&im))
		goto out;
	CHECK(im.retval == 0, "retval %d", im.retval);
	CHECK(im.nfuncs == 2, "%u functions", im.nfuncs);
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
				fprintf(stderr, "  call at func %u +%u goes to hook%+ld\n",
					f, p + 10, (long)(target - hook));
		}
		off += im.len[f];
	}
	CHECK(im.sites_once == im.nsites, "%d of %d sites counted once",
	      im.sites_once, im.nsites);
	CHECK(bad == 0, "%u calls next to a site argument miss the hook", bad);
	CHECK(hooked == 5, "%u hooked calls, want 5", hooked);
	CHECK(im.nsites == (int)hooked, "%d sites in debugfs, %u hooked calls",
	      im.nsites, hooked);
	CHECK(pseudo == 1, "%u bpf-to-bpf calls left, want 1", pseudo);
	printf("  %u calls go to rtg_passthrough_hook at %#lx, %u bpf-to-bpf call untouched\n",
	       hooked, hook, pseudo);
	jit_free(&im);
out:
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
