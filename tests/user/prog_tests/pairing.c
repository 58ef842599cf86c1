// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pairing tables (no BPF object): every acquiring kfunc bpf_rtguard knows
 * of is either paired with its release or listed as unpaired, the pairs
 * (task, cgroup, cpumask, obj_new, iterators, RCU, sockets, ring buffer,
 * spin lock) are right, and module kfuncs come and go with
 * their module.
 */
#include <unistd.h>

#include "rtgtest.h"

static void expect_pair(const char *acquire, const char *btf, const char *release)
{
	char line[512] = "";

	if (ASSERT_TRUE(pairing_find(acquire, btf, line, sizeof(line)),
			"%s (%s) paired", acquire, btf))
		ASSERT_HAS_STR(line, release, "release of %s", acquire);
}

WITH_MODULE(test_pairing_complete, "");
void test_pairing_complete(void)
{
	static struct rtg_kfunc kf[4096];
	unsigned int acquiring = 0, paired = 0, unpaired = 0;
	char out[512];
	int n, i;

	if (test__start_subtest("every_acquire_listed")) {
		n = kfuncs_read(kf, 4096);
		ASSERT_GT(n, 0, "kfuncs in debugfs");
		for (i = 0; i < n; i++) {
			bool p, u;

			if (!(kf[i].flags & (KF_ACQUIRE | KF_ITER_NEW)))
				continue;
			acquiring++;
			p = pairing_find(kf[i].name, kf[i].btf, out, sizeof(out));
			u = unpaired_find(kf[i].name, kf[i].btf, out, sizeof(out));
			ASSERT_NE(p, u, "%s (%s) paired, or else unpaired", kf[i].name,
				  kf[i].btf);
			paired += p;
			unpaired += u;
		}
		printf("  %u acquiring kfuncs: %u paired, %u unpaired\n", acquiring,
		       paired, unpaired);
		ASSERT_GE(acquiring, 20, "acquiring kfuncs registered");
	}
	if (test__start_subtest("known_pairs")) {
		expect_pair("bpf_task_from_pid", "vmlinux", "-> bpf_task_release(obj)");
		expect_pair("bpf_task_acquire", "vmlinux", "-> bpf_task_release(obj)");
		expect_pair("bpf_cgroup_acquire", "vmlinux", "-> bpf_cgroup_release(obj)");
		expect_pair("bpf_cgroup_from_id", "vmlinux", "-> bpf_cgroup_release(obj)");
		expect_pair("bpf_cpumask_create", "vmlinux", "-> bpf_cpumask_release(obj)");
		expect_pair("bpf_obj_new_impl", "vmlinux", "-> bpf_obj_drop_impl(obj, meta");
		expect_pair("bpf_percpu_obj_new_impl", "vmlinux",
			    "-> bpf_percpu_obj_drop_impl(obj, meta");
		expect_pair("bpf_iter_num_new", "vmlinux",
			    "-> bpf_iter_num_destroy(iter) stop=bpf_iter_num_destroy iterator");
		expect_pair("bpf_rcu_read_lock", "vmlinux", "-> bpf_rcu_read_unlock");
		expect_pair("bpf_preempt_disable", "vmlinux", "-> bpf_preempt_enable");
		expect_pair("rtg_test_obj_get", "rtg_testmod", "-> rtg_test_obj_put(obj) stop=rtg_test_obj_put type");
		expect_pair("bpf_sk_lookup_tcp", "helper", "-> bpf_sk_release(sk)");
		expect_pair("bpf_skc_lookup_tcp", "helper", "-> bpf_sk_release(sk)");
		expect_pair("bpf_ringbuf_reserve", "helper",
			    "-> bpf_ringbuf_submit(record, flags) stop=bpf_ringbuf_discard");
		expect_pair("bpf_ringbuf_reserve_dynptr", "helper",
			    "stop=bpf_ringbuf_discard_dynptr");
		expect_pair("bpf_map_lookup_elem", "helper",
			    "sockmap or sockhash element)\" -> bpf_sk_release(sk) stop=bpf_sk_release");
		expect_pair("bpf_spin_lock", "helper", "-> bpf_spin_unlock(lock)");
		/* the watchdog cannot drop what needs the type's meta */
		expect_pair("bpf_obj_new_impl", "vmlinux", "stop=- explicit");
		expect_pair("bpf_list_pop_front", "vmlinux", "-> bpf_obj_drop_impl");
		expect_pair("bpf_rbtree_remove", "vmlinux", "-> bpf_obj_drop_impl");
	}
	/* shaped like conntrack: the only release of the allocation acquires */
	if (test__start_subtest("acquire_never_a_release")) {
		char line[512] = "";

		if (ASSERT_TRUE(unpaired_find("rtg_test_entry_alloc", "rtg_testmod", line,
					      sizeof(line)), "rtg_test_entry_alloc unpaired"))
			ASSERT_HAS_STR(line, "also acquires: rtg_test_entry_insert",
				       "why rtg_test_entry_alloc is unpaired");
		expect_pair("rtg_test_entry_insert", "rtg_testmod",
			    "-> rtg_test_obj_put(obj) stop=rtg_test_obj_put type");
		n = kfuncs_read(kf, 4096);
		for (i = 0; i < n; i++) {
			char *r;
			int j;

			if (!pairing_find(kf[i].name, kf[i].btf, line, sizeof(line)))
				continue;
			r = strstr(line, "-> ");
			if (!r)
				continue;
			r += 3;
			r[strcspn(r, "(")] = 0;
			for (j = 0; j < n; j++)
				if (!strcmp(kf[j].name, r))
					ASSERT_FALSE(kf[j].flags & KF_ACQUIRE,
						     "%s: release %s does not acquire",
						     kf[i].name, r);
		}
	}
}

/* Wait up to 2 s for rtg_test_obj_get to be (or not be) in the table. */
static bool wait_listed(bool listed)
{
	char out[512];
	int i;

	for (i = 0; i < 200; i++) {
		if (pairing_find("rtg_test_obj_get", "rtg_testmod", out,
				 sizeof(out)) == listed)
			return true;
		usleep(10000);
	}
	return false;
}

WITH_MODULE(test_pairing_follows_modules, "");
void test_pairing_follows_modules(void)
{
	ASSERT_TRUE(wait_listed(true), "rtg_testmod's kfuncs listed");
	if (!ASSERT_OK(mod_unload_wait(MOD_TESTMOD, 5000), "rmmod rtg_testmod"))
		return;
	ASSERT_TRUE(wait_listed(false), "rtg_testmod's kfuncs gone after rmmod");
	ASSERT_OK(mod_load(MOD_TESTMOD, NULL), "insmod rtg_testmod");
	ASSERT_TRUE(wait_listed(true), "rtg_testmod's kfuncs back after insmod");
}
