// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: pairing tables. For every call that acquires something a
 * program must give back (a reference, an iterator, an RCU read section,
 * a ring buffer record, a lock), which call gives it back and with which
 * arguments; and the acquiring kfuncs for which no release is known.
 *
 * Built from the registered kfunc sets of vmlinux and module BTF
 * (bpf_kfunc_walk()) when the module loads, and again whenever a module
 * finishes loading or goes away. Pairs come from, in this order:
 *  - an explicit table, for what flags and types cannot tell: helpers,
 *    kfuncs without KF_* flags, releases that need more than the object,
 *    types with more than one release;
 *  - KF_ITER_NEW / KF_ITER_DESTROY kfuncs taking the same iterator type;
 *  - the one KF_RELEASE kfunc whose first argument has the type a
 *    KF_ACQUIRE kfunc returns. None, or more than one, leaves the
 *    acquiring kfunc unpaired, with the reason.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "rtguard.h"

#define RTG_NAME_LEN	64

/* one registered kfunc, once however many program types it serves */
struct rtg_kfunc {
	char btf[RTG_NAME_LEN];
	char name[RTG_NAME_LEN];
	char ret_type[RTG_NAME_LEN];
	char arg0_type[RTG_NAME_LEN];
	u32 flags;
	u8 nr_args;
};

/**
 * struct rtg_pair - an acquiring call and the call(s) that undo it
 * @acquire: the acquiring helper or kfunc
 * @btf: where @acquire comes from: "helper", "vmlinux" or a module name
 * @what: what a successful call leaves the program holding
 * @release: the releasing call
 * @release_alt: a second releasing call, or ""
 * @release_args: the arguments the release needs
 * @source: "explicit", "iterator" or "type": how the pair was found
 */
struct rtg_pair {
	char acquire[RTG_NAME_LEN];
	char btf[RTG_NAME_LEN];
	char what[RTG_NAME_LEN + 16];
	char release[RTG_NAME_LEN];
	char release_alt[RTG_NAME_LEN];
	const char *release_args;
	const char *source;
};

struct rtg_unpaired {
	char name[RTG_NAME_LEN];
	char btf[RTG_NAME_LEN];
	char why[2 * RTG_NAME_LEN + 32];
};

struct rtg_pairing {
	u32 nr_kfuncs, nr_pairs, nr_unpaired;
	struct rtg_kfunc *kfuncs;
	struct rtg_pair *pairs;
	struct rtg_unpaired *unpaired;
};

/*
 * What flags and BTF types cannot tell: a type with two releases, a release
 * that needs more than the object, pairs without KF_* flags, helpers.
 */
static const struct rtg_explicit_pair {
	const char *acquire, *what, *release, *release_alt, *release_args;
	bool helper;
} rtg_explicit_pairs[] = {
	{ "bpf_sk_lookup_tcp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_sk_lookup_udp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_skc_lookup_tcp", "struct sock_common", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_tc_sk_lookup_tcp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_tc_sk_lookup_udp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_tc_skc_lookup_tcp", "struct sock_common", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_xdp_sk_lookup_tcp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_xdp_sk_lookup_udp", "struct sock", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_xdp_skc_lookup_tcp", "struct sock_common", "bpf_sk_release", NULL, "sk", true },
	{ "bpf_ringbuf_reserve", "ring buffer record", "bpf_ringbuf_submit",
	  "bpf_ringbuf_discard", "record, flags", true },
	{ "bpf_ringbuf_reserve_dynptr", "ring buffer dynptr", "bpf_ringbuf_submit_dynptr",
	  "bpf_ringbuf_discard_dynptr", "dynptr, flags", true },
	{ "bpf_spin_lock", "spin lock", "bpf_spin_unlock", NULL, "lock", true },
	{ "bpf_rcu_read_lock", "RCU read section", "bpf_rcu_read_unlock", NULL, "-" },
	{ "bpf_preempt_disable", "preemption disabled", "bpf_preempt_enable", NULL, "-" },
	{ "bpf_obj_new_impl", "program-allocated object", "bpf_obj_drop_impl", NULL,
	  "obj, meta (acquire's 2nd argument)" },
	{ "bpf_percpu_obj_new_impl", "program-allocated per-CPU object",
	  "bpf_percpu_obj_drop_impl", NULL, "obj, meta (acquire's 2nd argument)" },
	{ "bpf_refcount_acquire_impl", "program-allocated object", "bpf_obj_drop_impl",
	  NULL, "obj, meta (acquire's 2nd argument)" },
	{ "bpf_list_pop_front", "program-allocated list node", "bpf_obj_drop_impl", NULL,
	  "obj, meta of the node's type" },
	{ "bpf_list_pop_back", "program-allocated list node", "bpf_obj_drop_impl", NULL,
	  "obj, meta of the node's type" },
	{ "bpf_rbtree_remove", "program-allocated rbtree node", "bpf_obj_drop_impl", NULL,
	  "obj, meta of the node's type" },
	{ "bpf_ct_insert_entry", "struct nf_conn (releases its nf_conn___init)",
	  "bpf_ct_release", NULL, "ct" },
	{ "scx_bpf_get_possible_cpumask", "struct cpumask", "scx_bpf_put_cpumask", NULL, "mask" },
	{ "scx_bpf_get_online_cpumask", "struct cpumask", "scx_bpf_put_cpumask", NULL, "mask" },
	{ "scx_bpf_get_idle_cpumask", "struct cpumask", "scx_bpf_put_idle_cpumask", NULL, "mask" },
	{ "scx_bpf_get_idle_smtmask", "struct cpumask", "scx_bpf_put_idle_cpumask", NULL, "mask" },
};

static DEFINE_MUTEX(rtg_pairing_lock);	/* protects rtg_pairing */
static struct rtg_pairing *rtg_pairing;

static void rtg_pairing_free(struct rtg_pairing *p)
{
	if (!p)
		return;
	kvfree(p->kfuncs);
	kvfree(p->pairs);
	kvfree(p->unpaired);
	kfree(p);
}

struct rtg_walk {
	struct rtg_kfunc *kfuncs;
	u32 nr, max;
};

static int rtg_collect_kfunc(const struct bpf_kfunc_walk_entry *e, void *ctx)
{
	struct rtg_walk *w = ctx;
	struct rtg_kfunc *k;
	u32 i;

	for (i = 0; i < w->nr; i++)
		if (!strcmp(w->kfuncs[i].name, e->name) &&
		    !strcmp(w->kfuncs[i].btf, e->btf_name))
			return 0;
	if (w->nr == w->max) {
		u32 max = w->max ? 2 * w->max : 256;

		k = kvrealloc(w->kfuncs, max * sizeof(*k), GFP_KERNEL);
		if (!k)
			return -ENOMEM;
		w->kfuncs = k;
		w->max = max;
	}
	k = &w->kfuncs[w->nr++];
	strscpy(k->btf, e->btf_name);
	strscpy(k->name, e->name);
	strscpy(k->ret_type, e->ret_type);
	strscpy(k->arg0_type, e->arg0_type);
	k->flags = e->flags;
	k->nr_args = e->nr_args;
	return 0;
}

static const struct rtg_explicit_pair *rtg_explicit_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rtg_explicit_pairs); i++)
		if (!strcmp(rtg_explicit_pairs[i].acquire, name))
			return &rtg_explicit_pairs[i];
	return NULL;
}

static bool rtg_is_acquiring(const struct rtg_kfunc *k)
{
	return (k->flags & (KF_ACQUIRE | KF_ITER_NEW)) || rtg_explicit_find(k->name);
}

static void rtg_add_explicit(struct rtg_pair *p, const struct rtg_explicit_pair *x,
			     const char *btf)
{
	strscpy(p->acquire, x->acquire);
	strscpy(p->btf, btf);
	strscpy(p->what, x->what);
	strscpy(p->release, x->release);
	strscpy(p->release_alt, x->release_alt ?: "");
	p->release_args = x->release_args;
	p->source = "explicit";
}

/* Pair one acquiring kfunc; false and a reason when it cannot be. */
static bool rtg_pair_kfunc(const struct rtg_walk *w, const struct rtg_kfunc *k,
			   struct rtg_pair *p, struct rtg_unpaired *u)
{
	const struct rtg_explicit_pair *x = rtg_explicit_find(k->name);
	u32 want = k->flags & KF_ITER_NEW ? KF_ITER_DESTROY : KF_RELEASE;
	const char *type = k->flags & KF_ITER_NEW ? k->arg0_type : k->ret_type;
	const struct rtg_kfunc *found = NULL;
	u32 i, n = 0;

	if (x) {
		rtg_add_explicit(p, x, k->btf);
		return true;
	}
	strscpy(u->name, k->name);
	strscpy(u->btf, k->btf);
	if (!type[0]) {
		snprintf(u->why, sizeof(u->why), "returns no struct pointer to pair by");
		return false;
	}
	for (i = 0; i < w->nr; i++) {
		if (!(w->kfuncs[i].flags & want) ||
		    strcmp(w->kfuncs[i].arg0_type, type))
			continue;
		found = &w->kfuncs[i];
		n++;
	}
	if (n != 1) {
		snprintf(u->why, sizeof(u->why), "%s release for struct %s%s%s",
			 n ? "more than one" : "no", type, n ? ", e.g. " : "",
			 n ? found->name : "");
		return false;
	}
	strscpy(p->acquire, k->name);
	strscpy(p->btf, k->btf);
	snprintf(p->what, sizeof(p->what), "%s %s",
		 k->flags & KF_ITER_NEW ? "iterator" : "struct", type);
	strscpy(p->release, found->name);
	p->release_alt[0] = 0;
	p->release_args = k->flags & KF_ITER_NEW ? "iter" : "obj";
	p->source = k->flags & KF_ITER_NEW ? "iterator" : "type";
	return true;
}

static struct rtg_pairing *rtg_pairing_build(void)
{
	struct rtg_walk w = {};
	struct rtg_pairing *p;
	size_t i, max;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	err = bpf_kfunc_walk(rtg_collect_kfunc, &w);
	if (err) {
		kvfree(w.kfuncs);
		kfree(p);
		return ERR_PTR(err);
	}
	p->kfuncs = w.kfuncs;
	p->nr_kfuncs = w.nr;

	max = w.nr + ARRAY_SIZE(rtg_explicit_pairs);
	p->pairs = kvcalloc(max, sizeof(*p->pairs), GFP_KERNEL);
	p->unpaired = kvcalloc(max, sizeof(*p->unpaired), GFP_KERNEL);
	if (!p->pairs || !p->unpaired) {
		rtg_pairing_free(p);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < ARRAY_SIZE(rtg_explicit_pairs); i++)
		if (rtg_explicit_pairs[i].helper)
			rtg_add_explicit(&p->pairs[p->nr_pairs++],
					 &rtg_explicit_pairs[i], "helper");
	for (i = 0; i < w.nr; i++) {
		if (!rtg_is_acquiring(&w.kfuncs[i]))
			continue;
		if (rtg_pair_kfunc(&w, &w.kfuncs[i], &p->pairs[p->nr_pairs],
				   &p->unpaired[p->nr_unpaired]))
			p->nr_pairs++;
		else
			p->nr_unpaired++;
	}
	return p;
}

/**
 * rtg_pairing_rebuild() - rebuild the pairing tables from the kfuncs now registered
 *
 * Return: 0 or a negative errno; the old tables stay on failure.
 */
int rtg_pairing_rebuild(void)
{
	struct rtg_pairing *p = rtg_pairing_build(), *old;

	if (IS_ERR(p)) {
		pr_warn_ratelimited("cannot build the pairing tables: %ld\n",
				    PTR_ERR(p));
		return PTR_ERR(p);
	}
	mutex_lock(&rtg_pairing_lock);
	old = rtg_pairing;
	rtg_pairing = p;
	mutex_unlock(&rtg_pairing_lock);
	rtg_pairing_free(old);
	return 0;
}

/**
 * rtg_pairing_release_of() - the call(s) that give back what a call acquires
 * @acquire: name of the acquiring helper or kfunc
 * @release: filled with "release" or "release/alternative"
 * @len: size of @release
 *
 * Return: whether @acquire is paired.
 */
bool rtg_pairing_release_of(const char *acquire, char *release, size_t len)
{
	bool found = false;
	u32 i;

	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_pairs; i++) {
		const struct rtg_pair *p = &rtg_pairing->pairs[i];

		if (strcmp(p->acquire, acquire))
			continue;
		snprintf(release, len, "%s%s%s", p->release,
			 p->release_alt[0] ? "/" : "", p->release_alt);
		found = true;
		break;
	}
	mutex_unlock(&rtg_pairing_lock);
	return found;
}

static void rtg_pairing_work_fn(struct work_struct *work)
{
	rtg_pairing_rebuild();
}

static DECLARE_WORK(rtg_pairing_work, rtg_pairing_work_fn);

/*
 * A module with kfuncs registers them in its init and BTF drops them when
 * it goes: rebuild once the module notifiers are all done.
 */
static int rtg_module_notify(struct notifier_block *nb, unsigned long state,
			     void *data)
{
	if (state == MODULE_STATE_LIVE || state == MODULE_STATE_GOING)
		schedule_work(&rtg_pairing_work);
	return NOTIFY_DONE;
}

static struct notifier_block rtg_module_nb = {
	.notifier_call = rtg_module_notify,
};

static int rtg_pairing_show(struct seq_file *m, void *v)
{
	u32 i;

	seq_puts(m, "# acquire source_btf what -> release[/alt](args) how\n");
	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_pairs; i++) {
		const struct rtg_pair *p = &rtg_pairing->pairs[i];

		seq_printf(m, "%s %s \"%s\" -> %s%s%s(%s) %s\n", p->acquire, p->btf,
			   p->what, p->release, p->release_alt[0] ? "/" : "",
			   p->release_alt, p->release_args, p->source);
	}
	mutex_unlock(&rtg_pairing_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_pairing);

static int rtg_unpaired_show(struct seq_file *m, void *v)
{
	u32 i;

	seq_puts(m, "# acquire source_btf: why\n");
	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_unpaired; i++) {
		const struct rtg_unpaired *u = &rtg_pairing->unpaired[i];

		seq_printf(m, "%s %s: %s\n", u->name, u->btf, u->why);
	}
	mutex_unlock(&rtg_pairing_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_unpaired);

static int rtg_kfuncs_show(struct seq_file *m, void *v)
{
	u32 i;

	seq_puts(m, "# name btf flags nr_args ret_type arg0_type\n");
	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_kfuncs; i++) {
		const struct rtg_kfunc *k = &rtg_pairing->kfuncs[i];

		seq_printf(m, "%s %s %#x %u %s %s\n", k->name, k->btf, k->flags,
			   k->nr_args, k->ret_type[0] ? k->ret_type : "-",
			   k->arg0_type[0] ? k->arg0_type : "-");
	}
	mutex_unlock(&rtg_pairing_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtg_kfuncs);

/**
 * rtg_pairing_init() - build the pairing tables and keep them current
 * @dir: the module's debugfs directory, for pairing, unpaired and kfuncs
 *
 * Return: 0 or a negative errno.
 */
int rtg_pairing_init(struct dentry *dir)
{
	int err = rtg_pairing_rebuild();

	if (err)
		return err;
	err = register_module_notifier(&rtg_module_nb);
	if (err) {
		rtg_pairing_free(rtg_pairing);
		rtg_pairing = NULL;
		return err;
	}
	debugfs_create_file("pairing", 0400, dir, NULL, &rtg_pairing_fops);
	debugfs_create_file("unpaired", 0400, dir, NULL, &rtg_unpaired_fops);
	debugfs_create_file("kfuncs", 0400, dir, NULL, &rtg_kfuncs_fops);
	return 0;
}

/**
 * rtg_pairing_exit() - stop following module loads and free the tables
 */
void rtg_pairing_exit(void)
{
	unregister_module_notifier(&rtg_module_nb);
	cancel_work_sync(&rtg_pairing_work);
	rtg_pairing_free(rtg_pairing);
	rtg_pairing = NULL;
}
