// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: what a stopped run returns, per program type, in one place.
 *
 * A stop never lets a run's caller see a value the program could not have
 * returned, and fails closed where the type expresses a decision: a packet
 * is dropped, an LSM hook or a cgroup hook denies. The value is checked,
 * when the program is verified, against the range the verifier holds the
 * program's own exits to (patch "tell the call hook owner what a run may
 * return"): an LSM hook that returns a bool has no room for -EPERM. When
 * that range allows a single value, the run returns it (a sock_addr
 * recvmsg hook must return 1: there is no decision to fail). A program
 * whose type has no safe value, or whose value is out of range, is not
 * stoppable: the watchdog reports that it would have stopped the run and
 * lets it go on, unless stop_unsafe is set.
 *
 * Fast-execute (a stop inside a callback, or of a run whose resources the
 * watchdog cannot give back itself) lets the program run to its end with
 * failing calls; what it returns is then replaced by the same value, so
 * its own NULL paths ("if (!t) return 0;") never decide for it. It is
 * allowed for every stoppable type.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_verifier.h>
#include <linux/netfilter.h>
#include <linux/pkt_cls.h>
#include <uapi/linux/bpf.h>

#include "rtguard.h"

/* Owner bits of bpf_prog_aux.call_hook_flags (BPF_CALL_HOOK_OWNER_MASK) */
#define RTG_POLICY_STOPPABLE	BIT(16)
#define RTG_POLICY_RET_SHIFT	24	/* the stop value, as an s8 */

/**
 * struct rtg_stop_policy - how a stop ends the runs of one program type
 * @ret: the value a stopped run returns
 * @stoppable: the type has a value that harms no one
 * @what: what @ret means to the caller, for the README and debugfs
 */
struct rtg_stop_policy {
	s32 ret;
	bool stoppable;
	const char *what;
};

#define RTG_STOP(r, w)	{ .ret = (r), .stoppable = true, .what = (w) }

static const struct rtg_stop_policy rtg_stop_policies[] = {
	[BPF_PROG_TYPE_SOCKET_FILTER] = RTG_STOP(0, "drop"),
	[BPF_PROG_TYPE_KPROBE] = RTG_STOP(0, "no sample"),
	[BPF_PROG_TYPE_SCHED_CLS] = RTG_STOP(TC_ACT_SHOT, "TC_ACT_SHOT"),
	[BPF_PROG_TYPE_SCHED_ACT] = RTG_STOP(TC_ACT_SHOT, "TC_ACT_SHOT"),
	[BPF_PROG_TYPE_TRACEPOINT] = RTG_STOP(0, "no sample"),
	[BPF_PROG_TYPE_XDP] = RTG_STOP(XDP_ABORTED, "XDP_ABORTED"),
	[BPF_PROG_TYPE_PERF_EVENT] = RTG_STOP(0, "no sample"),
	[BPF_PROG_TYPE_CGROUP_SKB] = RTG_STOP(0, "deny (drop)"),
	[BPF_PROG_TYPE_CGROUP_SOCK] = RTG_STOP(0, "deny (EPERM)"),
	[BPF_PROG_TYPE_LWT_IN] = RTG_STOP(BPF_DROP, "BPF_DROP"),
	[BPF_PROG_TYPE_LWT_OUT] = RTG_STOP(BPF_DROP, "BPF_DROP"),
	[BPF_PROG_TYPE_LWT_XMIT] = RTG_STOP(BPF_DROP, "BPF_DROP"),
	[BPF_PROG_TYPE_SOCK_OPS] = RTG_STOP(0, "deny"),
	[BPF_PROG_TYPE_SK_SKB] = RTG_STOP(SK_DROP, "SK_DROP"),
	[BPF_PROG_TYPE_CGROUP_DEVICE] = RTG_STOP(0, "deny (EPERM)"),
	[BPF_PROG_TYPE_SK_MSG] = RTG_STOP(SK_DROP, "SK_DROP"),
	[BPF_PROG_TYPE_RAW_TRACEPOINT] = RTG_STOP(0, "none"),
	[BPF_PROG_TYPE_CGROUP_SOCK_ADDR] = RTG_STOP(0, "deny (EPERM)"),
	[BPF_PROG_TYPE_LWT_SEG6LOCAL] = RTG_STOP(BPF_DROP, "BPF_DROP"),
	[BPF_PROG_TYPE_LIRC_MODE2] = RTG_STOP(0, "none"),
	[BPF_PROG_TYPE_SK_REUSEPORT] = RTG_STOP(SK_DROP, "SK_DROP"),
	[BPF_PROG_TYPE_FLOW_DISSECTOR] = RTG_STOP(BPF_DROP, "BPF_DROP"),
	[BPF_PROG_TYPE_CGROUP_SYSCTL] = RTG_STOP(0, "deny (EPERM)"),
	[BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE] = RTG_STOP(0, "none"),
	[BPF_PROG_TYPE_CGROUP_SOCKOPT] = RTG_STOP(0, "deny (EPERM)"),
	[BPF_PROG_TYPE_TRACING] = RTG_STOP(0, "none; fmod_ret: the function runs"),
	/* each struct_ops callback has its own contract */
	[BPF_PROG_TYPE_STRUCT_OPS] = { .what = "none: no value is safe for every callback" },
	/* what a replaced function returns depends on its caller */
	[BPF_PROG_TYPE_EXT] = { .what = "none: depends on the function replaced" },
	[BPF_PROG_TYPE_LSM] = RTG_STOP(-EPERM, "-EPERM (deny)"),
	[BPF_PROG_TYPE_SK_LOOKUP] = RTG_STOP(SK_DROP, "SK_DROP"),
	[BPF_PROG_TYPE_SYSCALL] = RTG_STOP(-ETIMEDOUT, "-ETIMEDOUT (test run's retval)"),
	[BPF_PROG_TYPE_NETFILTER] = RTG_STOP(NF_DROP, "NF_DROP"),
};

static bool rtg_in_range(const struct bpf_retval_range *r, s32 v)
{
	return !r || (v >= r->minval && v <= r->maxval);
}

/**
 * rtg_stop_policy_verified() - decide how a stop ends a program's runs
 * @prog: a program being verified, which will be tracked
 * @retval: the range the verifier holds its return value to, or NULL
 *
 * Return: the decision, as owner bits of the BPF_CALL_HOOK_* flags, which
 * rtg_stop_policy_decode() reads back for every image of the program.
 */
u32 rtg_stop_policy_verified(struct bpf_prog *prog,
			     const struct bpf_retval_range *retval)
{
	const struct rtg_stop_policy *p = NULL;
	bool stoppable;
	s32 ret;

	if (prog->type < ARRAY_SIZE(rtg_stop_policies))
		p = &rtg_stop_policies[prog->type];
	stoppable = p && p->stoppable;
	ret = stoppable ? p->ret : 0;
	/* BPF_LSM_CGROUP hooks deny with 0, as cgroup programs do */
	if (prog->type == BPF_PROG_TYPE_LSM &&
	    prog->expected_attach_type == BPF_LSM_CGROUP)
		ret = 0;
	if (!rtg_in_range(retval, ret)) {
		/* one allowed value: returning it decides nothing */
		if (retval->minval == retval->maxval)
			ret = retval->minval;
		else
			stoppable = false;
	}
	if (!stoppable && READ_ONCE(rtg_stop_unsafe)) {
		ret = rtg_in_range(retval, 0) ? 0 : retval->minval;
		stoppable = true;
	}
	/* every value above is a small verdict or errno */
	if (ret != (s8)ret)
		return 0;
	return (stoppable ? RTG_POLICY_STOPPABLE : 0) |
	       ((u32)(u8)ret << RTG_POLICY_RET_SHIFT);
}

/**
 * rtg_stop_policy_decode() - read back rtg_stop_policy_verified()'s decision
 * @main: aux data of a tracked program
 * @ret: set to the value a stopped run returns
 *
 * Return: whether the watchdog stops the program's runs (else it reports).
 */
bool rtg_stop_policy_decode(const struct bpf_prog_aux *main, u64 *ret)
{
	u32 flags = main->call_hook_flags;

	*ret = (u64)(s64)(s8)(flags >> RTG_POLICY_RET_SHIFT);
	/* a 32-bit value in R0, as the verifier checks it */
	if ((s64)*ret < 0)
		*ret = (u32)*ret;
	return flags & RTG_POLICY_STOPPABLE;
}

/**
 * rtg_stop_policy_show() - the policy table, for debugfs
 * @m: the seq_file
 */
void rtg_stop_policy_show(struct seq_file *m)
{
	size_t i;

	seq_puts(m, "# prog_type stop_ret: meaning\n");
	for (i = 1; i < ARRAY_SIZE(rtg_stop_policies); i++) {
		const struct rtg_stop_policy *p = &rtg_stop_policies[i];

		if (!p->what)
			continue;
		if (p->stoppable)
			seq_printf(m, "%zu %d: %s\n", i, p->ret, p->what);
		else
			seq_printf(m, "%zu -: %s\n", i, p->what);
	}
}
