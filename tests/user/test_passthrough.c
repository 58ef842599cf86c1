// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pass-through hooks: the same programs (syscall, tc, fentry) give the
 * same results with hook_all off and on, and with it on bpf_rtguard's
 * per-site counts add up, per function, to the calls the programs counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "passthrough.h"
#include "passthrough.skel.h"

#define PT_NAME(f) #f,
static const char *const pt_names[PT_NR] = { PT_FUNCS(PT_NAME) };

struct pt_result {
	uint64_t calls[PT_NR];	/* counted by the programs */
	uint64_t seen[PT_NR];	/* counted by bpf_rtguard, from debugfs */
	int nsites;		/* debugfs lines of these programs */
	uint64_t sys[PT_NOUT], tc[PT_NOUT], fentry[PT_NOUT];
	uint32_t ids[3];
	int tc_retval;
	char user_buf[8];	/* what bpf_copy_from_user() copied */
};

static const char user_str[8] = "user!";

static bool pt_print;	/* demo: show the sites as they are counted */

static void pt_collect_sites(struct pt_result *r)
{
	static struct rtg_call_site sites[512];
	int n = read_call_sites(sites, 512), k, j;

	if (n == -ENOENT)
		return;		/* module not loaded */
	REQUIRE(n >= 0, "read calls: %s", strerror(-n));
	for (k = 0; k < n; k++) {
		if (sites[k].prog_id != r->ids[0] &&
		    sites[k].prog_id != r->ids[1] &&
		    sites[k].prog_id != r->ids[2])
			continue;
		r->nsites++;
		if (pt_print)
			printf("  prog %-3u %-12s insn %-3u calls %-3lu %s\n",
			       sites[k].prog_id, sites[k].prog, sites[k].insn,
			       sites[k].count, sites[k].func);
		for (j = 0; j < PT_NR; j++)
			if (!strcmp(sites[k].func, pt_names[j]))
				break;
		if (CHECK(j < PT_NR, "prog %u insn %u calls %s, which the program does not count",
			  sites[k].prog_id, sites[k].insn, sites[k].func))
			r->seen[j] += sites[k].count;
	}
}

static void pt_run(struct pt_result *r)
{
	/* Ethernet + IPv4 + TCP, enough for the flow dissector */
	uint8_t pkt[54] = {
		[12] = 0x08, [13] = 0x00,
		[14] = 0x45, [16] = 0, [17] = 40, [22] = 64, [23] = 6,
		[26] = 10, [29] = 1, [30] = 10, [33] = 2,
		[34] = 0x30, [35] = 0x39, [36] = 0x00, [37] = 0x50, [46] = 0x50,
	};
	LIBBPF_OPTS(bpf_test_run_opts, sys_opts);
	LIBBPF_OPTS(bpf_test_run_opts, tc_opts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);
	struct passthrough_bpf *skel;
	struct bpf_link *link;
	int i;

	memset(r, 0, sizeof(*r));
	skel = passthrough_bpf__open();
	REQUIRE(skel, "open: %s", strerror(errno));
	skel->bss->target_pid = getpid();
	skel->bss->out_sys[31] = (unsigned long)user_str;
	if (!CHECK(!passthrough_bpf__load(skel), "load: %s", strerror(errno)))
		goto out;
	r->ids[0] = prog_id(bpf_program__fd(skel->progs.pt_syscall));
	r->ids[1] = prog_id(bpf_program__fd(skel->progs.pt_tc));
	r->ids[2] = prog_id(bpf_program__fd(skel->progs.pt_fentry));

	CHECK(!bpf_prog_test_run_opts(bpf_program__fd(skel->progs.pt_syscall),
				      &sys_opts), "syscall run: %s", strerror(errno));
	CHECK(!bpf_prog_test_run_opts(bpf_program__fd(skel->progs.pt_tc),
				      &tc_opts), "tc run: %s", strerror(errno));
	r->tc_retval = tc_opts.retval;

	link = bpf_program__attach(skel->progs.pt_fentry);
	if (CHECK(link, "fentry attach: %s", strerror(errno))) {
		for (i = 0; i < 3; i++)
			syscall(SYS_getpgid, 0);
		bpf_link__destroy(link);
	}
	memcpy(r->calls, skel->bss->calls, sizeof(r->calls));
	memcpy(r->sys, skel->bss->out_sys, sizeof(r->sys));
	memcpy(r->tc, skel->bss->out_tc, sizeof(r->tc));
	memcpy(r->fentry, skel->bss->out_fentry, sizeof(r->fentry));
	memcpy(r->user_buf, skel->bss->user_buf, sizeof(r->user_buf));
	pt_collect_sites(r);
out:
	passthrough_bpf__destroy(skel);
}

/* What the functions return, whether hooked or not. */
static void pt_check_values(const struct pt_result *r)
{
	static const uint64_t sys[20] = {
		0x123456789abcdef0ULL, (uint64_t)-7, 3004, 321,
		(1ULL << 48) ^ (2ULL << 32) ^ (3ULL << 16) ^ 4, 55, 322, 10,
		0, 77, 1, 42, 3004, 5, '7' | '-' << 8 | '4' << 16, 0,
		1, 1, 1, 10010,
	};
	int i;

	for (i = 0; i < 20; i++)
		CHECK(r->sys[i] == sys[i], "out_sys[%d] = %#lx, want %#lx",
		      i, r->sys[i], sys[i]);
	CHECK(!strcmp(r->user_buf, user_str), "copied '%.8s'", r->user_buf);
	CHECK(r->tc_retval == 3, "tc retval %d", r->tc_retval);
	CHECK(r->tc[0] == 0 && r->tc[1] == htons(0x0800), "skb_load_bytes %ld %#lx",
	      r->tc[0], r->tc[1]);
	CHECK(r->tc[4] == 35 && r->tc[5] == 1, "tc kfuncs %lu %lu", r->tc[4], r->tc[5]);
	CHECK(r->fentry[0] == 3, "fentry ran %lu times", r->fentry[0]);
	CHECK(r->fentry[1] == 0 && r->fentry[2] == 'r', "comm %ld %c",
	      r->fentry[1], (char)r->fentry[2]);
	CHECK(r->fentry[4] == ((4ULL << 48) ^ (3ULL << 32) ^ (2ULL << 16) ^ 1),
	      "fentry arg4 %#lx", r->fentry[4]);
	CHECK(r->fentry[5] == 3, "fentry objects %lu", r->fentry[5]);
}

void test_passthrough(void)
{
	struct pt_result off, on;
	int j;

	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=0"), "insmod");
	pt_run(&off);
	pt_check_values(&off);
	CHECK(off.nsites == 0, "%d sites hooked with hook_all off", off.nsites);

	REQUIRE(!param_write("hook_all", "1"), "hook_all=1");
	pt_run(&on);
	pt_check_values(&on);
	CHECK(on.nsites >= PT_NR - 1, "only %d sites hooked", on.nsites);
	CHECK(!memcmp(off.sys, on.sys, sizeof(on.sys)), "syscall results differ");
	CHECK(!memcmp(off.tc, on.tc, sizeof(on.tc)), "tc results differ");
	CHECK(!memcmp(off.fentry, on.fentry, sizeof(on.fentry)), "fentry results differ");
	for (j = 0; j < PT_NR; j++) {
		CHECK(on.calls[j] == off.calls[j], "%s called %lu times unhooked, %lu hooked",
		      pt_names[j], off.calls[j], on.calls[j]);
		CHECK(on.seen[j] == on.calls[j], "%s: program made %lu calls, debugfs counts %lu",
		      pt_names[j], on.calls[j], on.seen[j]);
	}
	printf("  %d hooked call sites, %lu calls counted by both sides\n", on.nsites,
	       ({ uint64_t t = 0; for (j = 0; j < PT_NR; j++) t += on.seen[j]; t; }));
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

void demo_calls(void)
{
	struct pt_result r;

	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=1"), "insmod");
	printf("bpf_rtguard hook_all=1: a syscall, a tc and an fentry program, every\n"
	       "helper and kfunc call counted per call site (debugfs bpf_rtguard/calls):\n");
	pt_print = true;
	pt_run(&r);
	pt_check_values(&r);
	printf("every result equals what the unhooked functions return: %s\n",
	       rtg_failures ? "NO" : "yes");
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
