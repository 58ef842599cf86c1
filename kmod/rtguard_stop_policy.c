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
#include "rtguard_param.h"

static bool rtg_stop_unsafe;
module_param_cb(stop_unsafe, &rtg_bool_ops, &rtg_stop_unsafe, 0644);
MODULE_PARM_DESC(stop_unsafe,
		 "Also stop programs verified while set whose type has no safe stop value (struct_ops, freplace, an LSM hook returning bool): they return 0 or their one allowed value (default: off, such runs are reported, not stopped)");

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
	[BPF_PROG_TYPE_TRACING] = RTG_STOP(0, "none (fmod_ret: see below)"),
	/* each struct_ops callback has its own contract */
	[BPF_PROG_TYPE_STRUCT_OPS] = { .what = "none: no value is safe for every callback" },
	/* what a replaced function returns depends on its caller */
	[BPF_PROG_TYPE_EXT] = { .what = "none: depends on the function replaced" },
	[BPF_PROG_TYPE_LSM] = RTG_STOP(-EPERM, "-EPERM (deny)"),
	[BPF_PROG_TYPE_SK_LOOKUP] = RTG_STOP(SK_DROP, "SK_DROP"),
	[BPF_PROG_TYPE_SYSCALL] = RTG_STOP(-ETIMEDOUT, "-ETIMEDOUT (test run's retval)"),
	[BPF_PROG_TYPE_NETFILTER] = RTG_STOP(NF_DROP, "NF_DROP"),
};

/**
 * struct rtg_stop_rule - what the attach type changes of a type's policy
 * @type: the program type
 * @attach: its expected attach type
 * @func_prefix: when set, the rule holds for attach targets whose name
 *	starts with it; a later rule of the same type and attach type
 *	covers the others
 * @policy: the stop value there
 */
struct rtg_stop_rule {
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	const char *func_prefix;
	struct rtg_stop_policy policy;
};

static const struct rtg_stop_rule rtg_stop_rules[] = {
	/* the hook's result is the decision: a non-zero one denies */
	{ BPF_PROG_TYPE_TRACING, BPF_MODIFY_RETURN, "security_",
	  RTG_STOP(-EPERM, "fmod_ret on security_*: -EPERM (deny)") },
	/* elsewhere (error injection) any value changes what the call does */
	{ BPF_PROG_TYPE_TRACING, BPF_MODIFY_RETURN, NULL,
	  { .what = "fmod_ret elsewhere: none (0 runs the function, anything else fails it)" } },
	{ BPF_PROG_TYPE_LSM, BPF_LSM_CGROUP, NULL,
	  RTG_STOP(0, "lsm_cgroup: 0 (deny)") },
	/* a parser returns a message length: 0 waits for more data forever */
	{ BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_PARSER, NULL,
	  { .what = "sk_skb stream parser: none (returns a length; 0 stalls the stream)" } },
};

/*
 * Helpers whose call is the enforcement: a run stopped before it makes
 * the call lets through what it would have stopped, whatever it returns.
 */
static const enum bpf_func_id rtg_verdict_helpers[] = {
	BPF_FUNC_override_return,
	BPF_FUNC_send_signal,
	BPF_FUNC_send_signal_thread,
};

/* Whether @prog calls a helper that enforces (before its calls are rewritten). */
static bool rtg_calls_verdict_helper(const struct bpf_prog *prog)
{
	u32 i, j;

	for (i = 0; i < prog->len; i++) {
		const struct bpf_insn *insn = &prog->insnsi[i];

		if (insn->code != (BPF_JMP | BPF_CALL) || insn->src_reg)
			continue;
		for (j = 0; j < ARRAY_SIZE(rtg_verdict_helpers); j++)
			if (insn->imm == rtg_verdict_helpers[j])
				return true;
	}
	return false;
}

static const struct rtg_stop_policy *rtg_stop_policy_of(const struct bpf_prog *prog)
{
	const char *func = prog->aux->attach_func_name;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rtg_stop_rules); i++) {
		const struct rtg_stop_rule *r = &rtg_stop_rules[i];

		if (r->type != prog->type || r->attach != prog->expected_attach_type)
			continue;
		if (!r->func_prefix ||
		    (func && !strncmp(func, r->func_prefix, strlen(r->func_prefix))))
			return &r->policy;
	}
	return prog->type < ARRAY_SIZE(rtg_stop_policies) ?
	       &rtg_stop_policies[prog->type] : NULL;
}

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
	const struct rtg_stop_policy *p = rtg_stop_policy_of(prog);
	bool stoppable;
	s32 ret;

	stoppable = p && p->stoppable && !rtg_calls_verdict_helper(prog);
	ret = stoppable ? p->ret : 0;
	if (stoppable && !rtg_in_range(retval, ret)) {
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
 * rtg_stop_policy_stoppable() - whether the watchdog stops a program's runs
 * @tp: a tracked program
 *
 * Return: what was decided when it was verified, unless an attach point
 * since read its return as a value rather than a verdict (cls_bpf without
 * direct action, a reuseport socket filter), where no stop value denies.
 */
bool rtg_stop_policy_stoppable(const struct rtg_prog *tp)
{
	return tp->stoppable && !READ_ONCE(tp->main->ret_not_verdict);
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
	seq_puts(m, "# prog_type/expected_attach_type stop_ret: meaning\n");
	for (i = 0; i < ARRAY_SIZE(rtg_stop_rules); i++) {
		const struct rtg_stop_rule *r = &rtg_stop_rules[i];

		if (r->policy.stoppable)
			seq_printf(m, "%d/%d %d: %s\n", r->type, r->attach,
				   r->policy.ret, r->policy.what);
		else
			seq_printf(m, "%d/%d -: %s\n", r->type, r->attach,
				   r->policy.what);
	}
	seq_puts(m, "# any type calling bpf_override_return(), bpf_send_signal() or bpf_send_signal_thread(): not stoppable\n");
	seq_puts(m, "# attached to cls_bpf without direct action, or to a reuseport group as a socket filter: not stoppable\n");
}
