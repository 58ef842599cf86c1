// SPDX-License-Identifier: GPL-2.0-only
/*
 * passthrough.bpf.c: the same programs (syscall, tc, fentry) give the
 * same results with hook_all off and on, and with it on bpf_rtguard's
 * per-site counts add up, per function, to the calls the programs counted.
 * In debug mode, every call shape is traced with its arguments and result.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"
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
	int n = calls_read(sites, 512), k, j;

	if (!ASSERT_GE(n, 0, "read bpf_rtguard/calls"))
		return;
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
		if (ASSERT_LT(j, PT_NR, "prog %u insn %u calls %s, which the program counts",
			      sites[k].prog_id, sites[k].insn, sites[k].func))
			r->seen[j] += sites[k].count;
	}
}

static void pt_run(struct pt_result *r)
{
	struct passthrough_bpf *skel;
	struct bpf_link *link;
	int i;

	memset(r, 0, sizeof(*r));
	skel = passthrough_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open passthrough"))
		return;
	skel->bss->target_pid = getpid();
	skel->bss->out_sys[31] = (unsigned long)user_str;
	if (!ASSERT_OK(passthrough_bpf__load(skel), "load passthrough"))
		goto out;
	r->ids[0] = prog_id_of(skel->progs.pt_syscall);
	r->ids[1] = prog_id_of(skel->progs.pt_tc);
	r->ids[2] = prog_id_of(skel->progs.pt_fentry);

	ASSERT_GE(run_prog(skel->progs.pt_syscall), 0, "syscall run");
	r->tc_retval = run_prog(skel->progs.pt_tc);
	ASSERT_GE(r->tc_retval, 0, "tc run");

	link = bpf_program__attach(skel->progs.pt_fentry);
	if (ASSERT_OK_PTR(link, "fentry attach")) {
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

/* What the functions return, whether hooked or not; whether all held. */
static bool pt_check_values(const struct pt_result *r)
{
	static const uint64_t sys[20] = {
		0x123456789abcdef0ULL, (uint64_t)-7, 3004, 321,
		(1ULL << 48) ^ (2ULL << 32) ^ (3ULL << 16) ^ 4, 55, 322, 10,
		0, 77, 1, 42, 3004, 5, '7' | '-' << 8 | '4' << 16, 0,
		1, 1, 1, 10010,
	};
	bool ok = true;
	int i;

	for (i = 0; i < 20; i++)
		ok &= ASSERT_EQ(r->sys[i], sys[i], "out_sys[%d]", i);
	ok &= ASSERT_STREQ(r->user_buf, user_str, "what bpf_copy_from_user() copied");
	ok &= ASSERT_EQ(r->tc_retval, 3, "tc retval");
	ok &= ASSERT_EQ(r->tc[0], 0, "tc: bpf_skb_load_bytes result");
	ok &= ASSERT_EQ(r->tc[1], htons(0x0800), "tc: ethertype loaded");
	ok &= ASSERT_EQ(r->tc[4], 35, "tc kfunc result 4");
	ok &= ASSERT_EQ(r->tc[5], 1, "tc kfunc result 5");
	ok &= ASSERT_EQ(r->fentry[0], 3, "fentry runs");
	ok &= ASSERT_EQ(r->fentry[1], 0, "fentry: bpf_get_current_comm result");
	ok &= ASSERT_EQ((char)r->fentry[2], 'r', "fentry: comm[0]");
	ok &= ASSERT_EQ(r->fentry[4], (4ULL << 48) ^ (3ULL << 32) ^ (2ULL << 16) ^ 1,
			"fentry arg4");
	ok &= ASSERT_EQ(r->fentry[5], 3, "fentry objects");
	return ok;
}

WITH_MODULE(test_passthrough, "hook_all=0");
void test_passthrough(void)
{
	struct pt_result off, on;
	uint64_t total = 0;
	int j;

	pt_run(&off);
	pt_check_values(&off);
	ASSERT_EQ(off.nsites, 0, "sites hooked with hook_all off");

	if (!ASSERT_OK(param_write("hook_all", "1"), "hook_all=1"))
		return;
	pt_run(&on);
	pt_check_values(&on);
	ASSERT_GE(on.nsites, PT_NR - 1, "sites hooked");
	ASSERT_EQ(memcmp(off.sys, on.sys, sizeof(on.sys)), 0, "syscall results, off vs on");
	ASSERT_EQ(memcmp(off.tc, on.tc, sizeof(on.tc)), 0, "tc results, off vs on");
	ASSERT_EQ(memcmp(off.fentry, on.fentry, sizeof(on.fentry)), 0,
		  "fentry results, off vs on");
	for (j = 0; j < PT_NR; j++) {
		ASSERT_EQ(on.calls[j], off.calls[j], "%s calls, hooked vs unhooked",
			  pt_names[j]);
		ASSERT_EQ(on.seen[j], on.calls[j], "%s calls, debugfs vs the program's count",
			  pt_names[j]);
		total += on.seen[j];
	}
	printf("  %d hooked call sites, %lu calls counted by both sides\n", on.nsites,
	       total);
}

WITH_MODULE(demo_calls, "hook_all=1");
void demo_calls(void)
{
	struct pt_result r;
	bool same;

	printf("bpf_rtguard hook_all=1: a syscall, a tc and an fentry program, every\n"
	       "helper and kfunc call counted per call site (debugfs bpf_rtguard/calls):\n");
	pt_print = true;
	pt_run(&r);
	same = pt_check_values(&r);
	printf("every result equals what the unhooked functions return: %s\n",
	       same ? "yes" : "NO");
}

/* Debug mode traces every call shape with its arguments and result. */
static const char *find_call(char **lines, int n, const char *call)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(strace_call(lines[i]), call, strlen(call)))
			return lines[i];
	return NULL;
}

WITH_MODULE(test_debug_arg_counts, "debug=all");
void test_debug_arg_counts(void)
{
	static const char *const want[] = {
		"rtg_test_arg0() = 1311768467463790320 <",
		"rtg_test_arg1(a=7) = -7 <",
		"rtg_test_arg2(a=3, b=4) = 3004 <",
		"rtg_test_void3(a=1, b=2, c=3) <",
		"rtg_test_arg4(a=1, b=2, c=3, d=4) = 281483566841860 <",
		"rtg_test_arg5(a=1, b=2, c=3, d=4, e=5) = 55 <",
		"rtg_test_void0() <",
		"rtg_test_sleep(usecs=10) = 10 <",
		"rtg_test_obj_get(id=0) = NULL <",
		"bpf_ktime_get_ns() = ",
		"bpf_snprintf(str=(char *)0x",
		"bpf_map_update_elem(map=hmap <hash>, key=(const void *)0x",
		"bpf_cpumask_set_cpu(cpu=1, cpumask=(struct bpf_cpumask *)0x",
		"bpf_cpumask_test_cpu(cpu=1, cpumask=(const struct cpumask *)0x",
	};
	struct passthrough_bpf *skel;
	const char *l;
	char **lines;
	size_t i;
	int n;

	skel = passthrough_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load passthrough"))
		return;
	if (!ASSERT_OK(strace_start(), "enable the trace event"))
		goto out;
	ASSERT_EQ(run_prog(skel->progs.pt_syscall), 0, "run");
	n = strace_lines(prog_id_of(skel->progs.pt_syscall), &lines, NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		l = find_call(lines, n, want[i]);
		if (ASSERT_OK_PTR(l, "a traced call starting with '%s'", want[i]))
			printf("  %s\n", l);
	}
	l = find_call(lines, n, "bpf_snprintf(");
	if (ASSERT_OK_PTR(l, "bpf_snprintf traced")) {
		ASSERT_HAS_STR(l, ", str_size=16, fmt=(const char *)0x", "bpf_snprintf arguments");
		ASSERT_HAS_STR(l, ", data_len=16) = 5 <", "bpf_snprintf result");
	}
	/* the program's helper, though the call goes to htab_map_update_elem */
	l = find_call(lines, n, "bpf_map_update_elem(");
	if (ASSERT_OK_PTR(l, "bpf_map_update_elem traced"))
		ASSERT_HAS_STR(l, ", flags=0) = 0 <", "bpf_map_update_elem flags and result");
out:
	strace_stop();
	passthrough_bpf__destroy(skel);
}
