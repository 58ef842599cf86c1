// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad input: a non-boolean hook_all is refused with EINVAL, and loading
 * with BPF_F_DEBUG_MODE needs CAP_PERFMON or CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>

#include "rtg_util.h"
#include "rtg_tests.h"

#ifndef BPF_F_DEBUG_MODE
#error "BPF_F_DEBUG_MODE missing from the uapi header: build against the patched tree"
#endif

void test_param_einval(void)
{
	char val[16];
	int err;

	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	err = param_write("hook_all", "maybe\n");
	CHECK(err == -EINVAL, "hook_all=maybe: %s, want EINVAL", strerror(-err));
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
