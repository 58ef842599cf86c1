// SPDX-License-Identifier: GPL-2.0-only
/*
 * The target of freplace_ext.bpf.c: a tc program that calls a global
 * function of three arguments and checks its result. An extension
 * program that replaces the function enters with the arguments in
 * R1-R3 (not a context in R1 alone), which its run's entry must keep.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__noinline int fr_sum3(int a, struct __sk_buff *skb, int c)
{
	if (!skb)
		return 0;
	return a + skb->len + c;
}

int fr_result;

SEC("tc")
int fr_target(struct __sk_buff *skb)
{
	fr_result = fr_sum3(1000, skb, 20);
	return fr_result == 1000 + skb->len + 20 ? 0 : 1;
}
