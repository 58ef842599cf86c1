// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pairing tables: every acquiring kfunc bpf_rtguard knows of is either
 * paired with its release or listed as unpaired, the pairs NOTES section 3
 * asks for are right, and module kfuncs come and go with their module.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtg_util.h"
#include "rtg_tests.h"

#define DBG "/sys/kernel/debug/" MOD_RTGUARD "/"
#define KF_ACQUIRE	(1 << 0)
#define KF_ITER_NEW	(1 << 8)

/* The line of a debugfs file whose first word is name (and second btf). */
static bool find_line(const char *file, const char *name, const char *btf,
		      char *out, size_t len)
{
	FILE *f = fopen(file, "r");
	char line[512], w1[128], w2[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %127[^: ]", w1, w2) != 2)
			continue;
		if (!strcmp(w1, name) && (!btf || !strcmp(w2, btf))) {
			found = true;
			snprintf(out, len, "%s", line);
			out[strcspn(out, "\n")] = 0;
		}
	}
	fclose(f);
	return found;
}

static void expect_pair(const char *acquire, const char *btf, const char *release)
{
	char line[512] = "";

	if (!CHECK(find_line(DBG "pairing", acquire, btf, line, sizeof(line)),
		   "%s (%s) not paired", acquire, btf))
		return;
	CHECK(strstr(line, release), "%s: %s, want %s", acquire, line, release);
}

void test_pairing_complete(void)
{
	char line[512], name[128], btf[128], out[512];
	unsigned int flags, acquiring = 0, paired = 0, unpaired = 0;
	FILE *f;

	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	f = fopen(DBG "kfuncs", "r");
	if (!CHECK(f, "kfuncs: %s", strerror(errno)))
		goto out;
	while (fgets(line, sizeof(line), f)) {
		bool p, u;

		if (line[0] == '#' ||
		    sscanf(line, "%127s %127s %x", name, btf, &flags) != 3 ||
		    !(flags & (KF_ACQUIRE | KF_ITER_NEW)))
			continue;
		acquiring++;
		p = find_line(DBG "pairing", name, btf, out, sizeof(out));
		u = find_line(DBG "unpaired", name, btf, out, sizeof(out));
		CHECK(p != u, "%s (%s): paired %d, unpaired %d", name, btf, p, u);
		paired += p;
		unpaired += u;
	}
	fclose(f);
	printf("  %u acquiring kfuncs: %u paired, %u unpaired\n", acquiring,
	       paired, unpaired);
	CHECK(acquiring >= 20, "only %u acquiring kfuncs registered", acquiring);

	expect_pair("bpf_task_from_pid", "vmlinux", "-> bpf_task_release(obj)");
	expect_pair("bpf_task_acquire", "vmlinux", "-> bpf_task_release(obj)");
	expect_pair("bpf_cgroup_acquire", "vmlinux", "-> bpf_cgroup_release(obj)");
	expect_pair("bpf_cgroup_from_id", "vmlinux", "-> bpf_cgroup_release(obj)");
	expect_pair("bpf_cpumask_create", "vmlinux", "-> bpf_cpumask_release(obj)");
	expect_pair("bpf_obj_new_impl", "vmlinux", "-> bpf_obj_drop_impl(obj, meta");
	expect_pair("bpf_percpu_obj_new_impl", "vmlinux", "-> bpf_percpu_obj_drop_impl(obj, meta");
	expect_pair("bpf_iter_num_new", "vmlinux", "-> bpf_iter_num_destroy(iter) iterator");
	expect_pair("bpf_rcu_read_lock", "vmlinux", "-> bpf_rcu_read_unlock");
	expect_pair("bpf_preempt_disable", "vmlinux", "-> bpf_preempt_enable");
	expect_pair("rtg_test_obj_get", "rtg_testmod", "-> rtg_test_obj_put(obj) type");
	expect_pair("bpf_sk_lookup_tcp", "helper", "-> bpf_sk_release(sk)");
	expect_pair("bpf_skc_lookup_tcp", "helper", "-> bpf_sk_release(sk)");
	expect_pair("bpf_ringbuf_reserve", "helper",
		    "-> bpf_ringbuf_submit/bpf_ringbuf_discard(record, flags)");
	expect_pair("bpf_spin_lock", "helper", "-> bpf_spin_unlock(lock)");
out:
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}

/* Wait up to 2 s for rtg_test_obj_get to be (or not be) in the table. */
static bool wait_listed(bool listed)
{
	char out[512];
	int i;

	for (i = 0; i < 200; i++) {
		if (find_line(DBG "pairing", "rtg_test_obj_get", "rtg_testmod",
			      out, sizeof(out)) == listed)
			return true;
		usleep(10000);
	}
	return false;
}

void test_pairing_follows_modules(void)
{
	int err;

	REQUIRE(!mod_load(MOD_RTGUARD, NULL), "insmod");
	CHECK(wait_listed(true), "rtg_testmod's kfuncs missing");
	err = mod_unload_wait(MOD_TESTMOD, 5000);
	if (CHECK(!err, "rmmod rtg_testmod: %s", strerror(-err))) {
		CHECK(wait_listed(false), "rtg_testmod's kfuncs stay after rmmod");
		err = mod_load(MOD_TESTMOD, NULL);
		CHECK(!err, "insmod rtg_testmod: %s", strerror(-err));
		CHECK(wait_listed(true), "rtg_testmod's kfuncs missing after insmod");
	}
	CHECK(!mod_unload_wait(MOD_RTGUARD, 5000), "rmmod");
}
