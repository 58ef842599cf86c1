// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad input: module parameters that are refused with EINVAL (at insmod
 * time and when written), loading with BPF_F_DEBUG_MODE, which needs
 * CAP_PERFMON or CAP_SYS_ADMIN, and a CPU without a TSC (make check boots
 * one: QEMU -cpu qemu64,-tsc), on which bpf_rtguard refuses to load. No
 * BPF object: the programs are two instructions built here.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"

#ifndef BPF_F_DEBUG_MODE
#error "BPF_F_DEBUG_MODE missing from the uapi header: build against the patched tree"
#endif

/* Whether the CPU has a TSC (the "tsc" flag of /proc/cpuinfo). */
static bool cpu_has_tsc(void)
{
	const char *info = file_read("/proc/cpuinfo");
	const char *flags = strstr(info, "\nflags");
	size_t len = flags ? strcspn(flags + 1, "\n") : 0;

	return flags && (memmem(flags, len + 1, " tsc ", 5) ||
			 (len > 4 && !memcmp(flags + 1 + len - 4, " tsc", 4)));
}

/*
 * Runs and calls are timed with the TSC: with one, bpf_rtguard loads and
 * knows its frequency; without (the kernel's tsc_khz 0), it refuses to
 * load, with ENODEV and one line (a watchdog tick would divide by 0).
 */
void test_module_tsc(void)
{
	uint64_t khz = 0;
	int said = dmesg_count("bpf_rtguard: no TSC of known frequency");

	if (cpu_has_tsc()) {
		if (!ASSERT_OK(mod_load(MOD_RTGUARD, "watchdog_ms=100"), "insmod"))
			return;
		ASSERT_OK(stat_read("tsc_khz", &khz), "stats: tsc_khz");
		ASSERT_GT(khz, 0, "a TSC of known frequency");
		ASSERT_OK(mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
		return;
	}
	printf("  no TSC: insmod must fail\n");
	ASSERT_EQ(mod_load(MOD_RTGUARD, "watchdog_ms=100"), -ENODEV, "insmod without a TSC");
	ASSERT_EQ(dmesg_count("bpf_rtguard: no TSC of known frequency (tsc_khz 0): runs and calls cannot be timed"),
		  said + 1, "one dmesg line saying why");
	ASSERT_FALSE(mod_loaded(MOD_RTGUARD), "bpf_rtguard not loaded");
}

WITH_MODULE(test_param_einval, "");
void test_param_einval(void)
{
	char val[16];

	ASSERT_EQ(param_write("hook_all", "maybe\n"), -EINVAL, "hook_all=maybe");
	ASSERT_TRUE(dmesg_has("bpf_rtguard: hook_all: 'maybe' is not a boolean"),
		    "dmesg line for the refused write");
	ASSERT_EQ(param_write("hook_all", "2"), -EINVAL, "hook_all=2");
	ASSERT_OK(param_read("hook_all", val, sizeof(val)), "read hook_all");
	ASSERT_STREQ(val, "N", "hook_all after refused writes");
	ASSERT_OK(param_write("hook_all", "1\n"), "hook_all=1");
	ASSERT_OK(param_read("hook_all", val, sizeof(val)), "read hook_all");
	ASSERT_STREQ(val, "Y", "hook_all after writing 1");
}

/* The test loads bpf_rtguard itself: first with values it must refuse. */
void test_debug_param_einval(void)
{
	char val[16];

	int before = dmesg_count("'verbose' invalid for parameter");
	int said = dmesg_count("bpf_rtguard: debug: 'verbose' is not one of off, flag, all");

	ASSERT_EQ(mod_load(MOD_RTGUARD, "debug=verbose"), -EINVAL, "insmod debug=verbose");
	/* one line: the module's, naming the values; not the kernel's too */
	ASSERT_EQ(dmesg_count("bpf_rtguard: debug: 'verbose' is not one of off, flag, all"),
		  said + 1, "one dmesg line naming the parameter and its values");
	ASSERT_EQ(dmesg_count("'verbose' invalid for parameter"), before,
		  "no second line from the kernel's parser");
	ASSERT_EQ(mod_load(MOD_RTGUARD, "debug"), -EINVAL, "insmod debug (no value)");
	ASSERT_TRUE(dmesg_has("bpf_rtguard: debug: needs a value: off, flag or all"),
		    "the line for a missing value");
	ASSERT_EQ(mod_load(MOD_RTGUARD, "watchdog_ms=soon"), -EINVAL, "insmod watchdog_ms=soon");
	ASSERT_TRUE(dmesg_has("bpf_rtguard: watchdog_ms: 'soon' is not a number (0: off)"),
		    "the line for a limit that is not a number");
	if (!ASSERT_OK(mod_load(MOD_RTGUARD, NULL), "insmod"))
		return;
	ASSERT_OK(param_read("debug", val, sizeof(val)), "read debug");
	ASSERT_STREQ(val, "flag", "default debug mode");
	ASSERT_EQ(param_write("debug", "verbose\n"), -EINVAL, "debug=verbose");
	ASSERT_TRUE(dmesg_has("bpf_rtguard: debug: 'verbose' is not one of off, flag, all"),
		    "dmesg line for the refused value");
	ASSERT_OK(param_read("debug", val, sizeof(val)), "read debug");
	ASSERT_STREQ(val, "flag", "debug after a refused write");
	ASSERT_OK(param_write("debug", "all"), "debug=all");
	ASSERT_OK(param_read("debug", val, sizeof(val)), "read debug");
	ASSERT_STREQ(val, "all", "debug after writing all");
	ASSERT_OK(mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
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

/* Needs no module: the flag is the kernel's (patch 3). */
void test_debug_mode_eperm(void)
{
	ASSERT_OK(load_syscall_prog(BPF_F_DEBUG_MODE), "privileged load with the flag");

	/* keep CAP_BPF, drop CAP_SYS_ADMIN (word 0) and CAP_PERFMON (word 1) */
	if (!ASSERT_OK(set_effective(1u << CAP_SYS_ADMIN, 1u << (CAP_PERFMON - 32)),
		       "capset"))
		return;
	ASSERT_EQ(load_syscall_prog(BPF_F_DEBUG_MODE), -EPERM,
		  "load with the flag, without CAP_PERFMON");
	ASSERT_OK(load_syscall_prog(0), "the same load without the flag");

	/* CAP_PERFMON alone is enough */
	if (!ASSERT_OK(set_effective(1u << CAP_SYS_ADMIN, 0), "capset"))
		return;
	ASSERT_OK(load_syscall_prog(BPF_F_DEBUG_MODE), "load with the flag and CAP_PERFMON");
	set_effective(0, 0);
}
