// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad input: a non-boolean hook_all is refused with EINVAL, and loading
 * with BPF_F_DEBUG_MODE needs CAP_PERFMON or CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"
#include "maxrefs.skel.h"

#ifndef BPF_F_DEBUG_MODE
#error "BPF_F_DEBUG_MODE missing from the uapi header: build against the patched tree"
#endif

/* Whether the kernel log holds a line containing text. */
static bool dmesg_has(const char *text)
{
	static char buf[1 << 17];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, text);
}

void test_param_einval(void)
{
	char val[16];
	int err;

	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	err = param_write("hook_all", "maybe\n");
	CHECK(err == -EINVAL, "hook_all=maybe: %s, want EINVAL", strerror(-err));
	CHECK(dmesg_has("bpf_rtguard: hook_all: 'maybe' is not a boolean"),
	      "no dmesg line for the refused write");
	err = param_write("hook_all", "2");
	CHECK(err == -EINVAL, "hook_all=2: %s, want EINVAL", strerror(-err));
	CHECK(!param_read("hook_all", val, sizeof(val)) && !strcmp(val, "N"),
	      "hook_all changed to '%s' by a refused write", val);
	CHECK(!param_write("hook_all", "1\n"), "hook_all=1");
	CHECK(!param_read("hook_all", val, sizeof(val)) && !strcmp(val, "Y"),
	      "hook_all reads '%s' after writing 1", val);
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

static int load_syscall_prog(__u32 flags)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	/* syscall programs must be sleepable */
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .prog_flags = flags | BPF_F_SLEEPABLE);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "dbg_flag", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int set_effective(__u32 drop0, __u32 drop1)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[0].effective = data[0].permitted & ~drop0;
	data[1].effective = data[1].permitted & ~drop1;
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

void test_debug_mode_eperm(void)
{
	int err;

	err = load_syscall_prog(BPF_F_DEBUG_MODE);
	CHECK(err == 0, "privileged load with the flag: %s", strerror(-err));

	/* keep CAP_BPF, drop CAP_SYS_ADMIN (word 0) and CAP_PERFMON (word 1) */
	REQUIRE(!set_effective(1u << CAP_SYS_ADMIN, 1u << (CAP_PERFMON - 32)),
		"capset");
	err = load_syscall_prog(BPF_F_DEBUG_MODE);
	CHECK(err == -EPERM, "load with the flag, no CAP_PERFMON: %s, want EPERM",
	      strerror(-err));
	err = load_syscall_prog(0);
	CHECK(err == 0, "same load without the flag: %s", strerror(-err));

	/* CAP_PERFMON alone is enough */
	REQUIRE(!set_effective(1u << CAP_SYS_ADMIN, 0), "capset");
	err = load_syscall_prog(BPF_F_DEBUG_MODE);
	CHECK(err == 0, "load with the flag and CAP_PERFMON: %s", strerror(-err));
	set_effective(0, 0);
}

struct rtg_prog_line {
	uint32_t id, func_idx, sites, max_refs;
	int debug_mode;
	char name[32];
};

/* Find a program's line in bpf_rtguard/progs (its first image). */
static int read_prog_line(uint32_t id, struct rtg_prog_line *pl)
{
	FILE *f = fopen("/sys/kernel/debug/" MOD_RTGUARD "/progs", "r");
	char line[256];
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %31s %u %u %u %d", &pl->id, pl->name,
			   &pl->func_idx, &pl->sites, &pl->max_refs,
			   &pl->debug_mode) == 6 && pl->id == id)
			found = 0;
	}
	fclose(f);
	return found;
}

void test_verifier_max_refs(void)
{
	static const struct {
		const char *name;
		uint32_t want;
	} progs[] = { { "refs_one", 1 }, { "refs_three", 3 }, { "refs_iter", 2 } };
	struct maxrefs_bpf *skel;
	struct rtg_prog_line pl;
	size_t i;

	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=1"), "insmod");
	skel = maxrefs_bpf__open_and_load();
	if (CHECK(skel, "load: %s", strerror(errno))) {
		for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
			struct bpf_program *p;
			uint32_t id;

			p = bpf_object__find_program_by_name(skel->obj, progs[i].name);
			id = p ? prog_id(bpf_program__fd(p)) : 0;
			if (!CHECK(id && !read_prog_line(id, &pl), "%s not listed",
				   progs[i].name))
				continue;
			CHECK(pl.max_refs == progs[i].want, "%s: max_refs %u, want %u",
			      progs[i].name, pl.max_refs, progs[i].want);
			CHECK(pl.debug_mode == 0, "%s: debug_mode set", progs[i].name);
			printf("  %s: max_refs %u\n", progs[i].name, pl.max_refs);
		}
		maxrefs_bpf__destroy(skel);
	}
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

/* The flag reaches the program: bpf_rtguard sees it on a hooked program. */
void test_debug_mode_flag(void)
{
	struct maxrefs_bpf *skel;
	struct rtg_prog_line pl;
	uint32_t id;

	REQUIRE(!mod_load(MOD_RTGUARD, "hook_all=1"), "insmod");
	skel = maxrefs_bpf__open();
	if (CHECK(skel, "open")) {
		bpf_program__set_flags(skel->progs.refs_one,
				       bpf_program__flags(skel->progs.refs_one) |
				       BPF_F_DEBUG_MODE);
		if (CHECK(!maxrefs_bpf__load(skel), "load: %s", strerror(errno))) {
			id = prog_id(bpf_program__fd(skel->progs.refs_one));
			CHECK(!read_prog_line(id, &pl) && pl.debug_mode == 1,
			      "refs_one loaded with BPF_F_DEBUG_MODE: debug_mode %d",
			      pl.debug_mode);
			id = prog_id(bpf_program__fd(skel->progs.refs_three));
			CHECK(!read_prog_line(id, &pl) && pl.debug_mode == 0,
			      "refs_three loaded without it: debug_mode %d",
			      pl.debug_mode);
		}
		maxrefs_bpf__destroy(skel);
	}
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
