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
	char site_func[16][64];	/* the function each site calls */
};

/* Count the program's sites in bpf_rtguard/calls while it is loaded. */
static void jit_sites(struct jit_image *im)
{
	static struct rtg_call_site sites[256];
	int n = calls_read(sites, 256), k;

	for (k = 0; k < n; k++) {
		if (sites[k].prog_id != im->id)
			continue;
		if (im->nsites < 16)
			strcpy(im->site_func[im->nsites], sites[k].func);
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

/* Symbols of bpf_rtguard's text, from /proc/kallsyms. */
static int module_symbols(uint64_t *addr, int max)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], type, name[128], mod[64];
	unsigned long long a;
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s [%63[^]]]", &a, &type, name, mod) == 4 &&
		    (type == 't' || type == 'T') && !strcmp(mod, MOD_RTGUARD))
			addr[n++] = a;
	fclose(f);
	return n;
}

struct decoded {
	uint32_t to_func[64];	/* per site: direct calls of its function */
	uint32_t to_thunk[64];	/* per site: ENDBR + jmp entries to its function */
	uint32_t to_module;	/* direct calls of bpf_rtguard's entry points */
	uint32_t to_module_off;	/* ... that miss the start of a function */
	uint32_t subprog;	/* bpf-to-bpf calls */
	uint32_t saves;		/* arguments saved for a post hook, in line */
};

/* push rdi ; rdtsc ; shl rdx, 32 ; or rax, rdx ; push rax ; mov rdx, [rsp + 24] */
static const uint8_t save_args_seq[] = {
	0x57, 0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0x50,
	0x48, 0x8b, 0x54, 0x24, 0x18,
};

/*
 * Decode the direct calls (e8 rel32) and the ENDBR+jmp entries
 * (f3 0f 1e fa e9 rel32) of every function of the image, and sort their
 * targets: a site's own function, an entry point of bpf_rtguard, another
 * function of the image.
 */
static void decode(const struct jit_image *im, const uint64_t *func, int nsites,
		   struct decoded *d)
{
	static uint64_t msym[4096];
	int nsym = module_symbols(msym, 4096), k;
	uint64_t lo = ~0ULL, hi = 0;
	uint32_t f, off = 0, p;

	memset(d, 0, sizeof(*d));
	/* bpf_rtguard's text lies between its first and last function */
	for (k = 0; k < nsym; k++) {
		lo = msym[k] < lo ? msym[k] : lo;
		hi = msym[k] > hi ? msym[k] : hi;
	}
	for (f = 0; f < im->nfuncs; f++) {
		const uint8_t *b = im->bytes + off;

		for (p = 0; p + 5 <= im->len[f]; p++) {
			if (p + sizeof(save_args_seq) <= im->len[f] &&
			    !memcmp(b + p, save_args_seq, sizeof(save_args_seq)))
				d->saves++;
		}
		for (p = 0; p + 5 <= im->len[f]; p++) {
			bool thunk = p + 9 <= im->len[f] && b[p] == 0xf3 && b[p + 1] == 0x0f &&
				     b[p + 2] == 0x1e && b[p + 3] == 0xfa && b[p + 4] == 0xe9;
			uint32_t at = thunk ? p + 4 : p;
			uint64_t t;

			if (!thunk && b[p] != 0xe8)
				continue;
			t = im->addr[f] + at + 5 + rel32(b + at + 1);
			for (k = 0; k < nsites; k++) {
				if (t != func[k])
					continue;
				if (thunk)
					d->to_thunk[k]++;
				else
					d->to_func[k]++;
			}
			for (k = 0; k < (int)im->nfuncs; k++)
				d->subprog += !thunk && t == im->addr[k];
			if (thunk)
				continue;
			for (k = 0; k < nsym && msym[k] != t; k++)
				;
			if (k < nsym)
				d->to_module++;
			else if (t >= lo && t < hi)
				d->to_module_off++;
		}
		off += im->len[f];
	}
}

/*
 * Every hooked call reaches its function by a direct call from the image
 * and the owner's hooks by direct calls to the start of a function; the
 * only other way to a function, for the watchdog's releases, is an entry
 * in the image that starts with ENDBR and jumps directly to it. With IBT
 * an indirect call to a sealed function faults; TCG does not emulate CET,
 * so this is shown by decoding, and the module's own code is checked on
 * the host (scripts/check-indirect.sh).
 */
static void hooked_image(const char *params, bool tracked, int hooks_per_site,
			 bool saves_args, int bare_sites)
{
	uint64_t func[16];
	struct decoded d;
	struct jit_image im;
	int n, k, thunks = 0, bpf_funcs = 0;

	if (!ASSERT_OK(mod_load(MOD_RTGUARD, params), "insmod %s", params))
		return;
	if (jit_load(&im))
		goto out;
	ASSERT_EQ(im.retval, 0, "retval");
	n = im.nsites < 16 ? im.nsites : 16;
	/* debug mode records the call of jit_subprog too (kernel patch 23) */
	ASSERT_EQ(n, saves_args ? 6 : 5, "hooked sites");
	for (k = 0; k < n; k++) {
		bpf_funcs += !strcmp(im.site_func[k], "jit_subprog");
		func[k] = kallsyms_addr(im.site_func[k]);
	}
	ASSERT_EQ(bpf_funcs, saves_args ? 1 : 0, "sites calling a BPF function");
	decode(&im, func, n, &d);
	for (k = 0; k < n; k++) {
		/* called directly, as the bpf-to-bpf calls counted below */
		if (!strcmp(im.site_func[k], "jit_subprog"))
			continue;
		ASSERT_NE(func[k], 0, "%s in kallsyms", im.site_func[k]);
		ASSERT_GE(d.to_func[k], 1, "direct calls of %s", im.site_func[k]);
		thunks += d.to_thunk[k];
		if (d.to_thunk[k])
			ASSERT_STREQ(im.site_func[k], "bpf_task_release", "function with an ENDBR entry");
	}
	/* a bracketed image also calls run_arm and run_exit; a bare site nothing */
	ASSERT_GE(d.to_module, (uint32_t)(hooks_per_site * (n - bare_sites) +
					  (tracked || saves_args ? 2 : 0)),
		  "direct calls of bpf_rtguard entry points");
	/* a traced call's arguments are saved in line, for its post hook */
	ASSERT_EQ(d.saves, saves_args ? (uint32_t)n : 0, "sites saving their arguments in line");
	ASSERT_EQ(d.to_module_off, 0, "calls into bpf_rtguard that miss a function's start");
	ASSERT_EQ(thunks, tracked ? 1 : 0, "ENDBR entries (releases the watchdog may call)");
	ASSERT_GE(d.subprog, 1, "bpf-to-bpf calls left");
	printf("  %s: %d sites, each function called directly; %u direct calls of bpf_rtguard entry points; %u argument saves; %d ENDBR entries\n",
	       params, n, d.to_module, d.saves, thunks);
	free(im.bytes);
out:
	ASSERT_OK(mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

void test_jit_direct_calls(void)
{
	if (test__start_subtest("passthrough"))
		hooked_image("hook_all=1", false, 1, false, 0);	/* post */
	if (test__start_subtest("debug"))
		hooked_image("debug=all", false, 1, true, 0);	/* post, arguments saved */
	/* described and bare: pre hooks, and bpf_task_release() a plain call */
	if (test__start_subtest("tracked"))
		hooked_image("track=1", true, 1, false, 1);
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
