// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: what each helper and kfunc does to what a run holds, and
 * the pairing tables. For every call that acquires something a program
 * must give back (a reference, an iterator, an RCU read section, a ring
 * buffer record, a lock), which call gives it back in the program, which
 * one the watchdog calls for a stopped run, and the acquiring kfuncs for
 * which no release is known.
 *
 * Facts come from, in this order:
 *  - rtg_fn_facts[], one entry per function, for what flags and types
 *    cannot tell: helpers (by id), kfuncs without KF_* flags, releases
 *    that need more than the object, the graph kfuncs, types with more
 *    than one release, functions that both release and acquire;
 *  - KF_ITER_NEW / KF_ITER_DESTROY kfuncs taking the same iterator type;
 *  - the one KF_RELEASE kfunc, not also KF_ACQUIRE, whose first argument
 *    has the type a KF_ACQUIRE kfunc returns. None, or more than one,
 *    leaves the acquiring kfunc unpaired, with the reason.
 *
 * The pairs are built from the registered kfunc sets of vmlinux and
 * module BTF (bpf_kfunc_walk()) when the module loads, and again whenever
 * a module finishes loading or goes away. rtg_fn_facts_of() answers for
 * one call site, at JIT time.
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
	u32 btf_id;
	u32 flags;
	u8 nr_args;
};

/**
 * struct rtg_pair - an acquiring call and the call that undoes it
 * @acquire: the acquiring helper or kfunc
 * @btf: where @acquire comes from: "helper", "vmlinux" or a module name
 * @what: what a successful call leaves the program holding
 * @release: the releasing call in the program's own code
 * @stop_release: the call the watchdog makes, or "" when there is none
 * @release_args: the arguments @release needs
 * @source: "explicit", "iterator" or "type": how the pair was found
 */
struct rtg_pair {
	char acquire[RTG_NAME_LEN];
	char btf[RTG_NAME_LEN];
	char what[RTG_NAME_LEN + 16];
	char release[RTG_NAME_LEN];
	char stop_release[RTG_NAME_LEN];
	const char *release_args;
	const char *source;
};

struct rtg_unpaired {
	char name[RTG_NAME_LEN];
	char btf[RTG_NAME_LEN];
	char why[3 * RTG_NAME_LEN + 32];
};

struct rtg_pairing {
	u32 nr_kfuncs, nr_pairs, nr_unpaired;
	struct rtg_kfunc *kfuncs;
	struct rtg_pair *pairs;
	struct rtg_unpaired *unpaired;
};

#define RTG_HELPER(id, ...) { .name = "bpf_" #id, .helper = BPF_FUNC_##id, .arg = 1, __VA_ARGS__ }
#define RTG_KFUNC(fn, ...) { .name = #fn, .arg = 1, __VA_ARGS__ }

/*
 * The facts that KF_* flags and BTF types do not tell, one entry per
 * function: helpers (which have no flags), sections, program-allocated
 * objects and the graph kfuncs that move them, a release that needs more
 * than the object, a type with more than one release, a function that
 * both releases and acquires.
 */
static const struct rtg_fn_facts rtg_fn_facts[] = {
	RTG_HELPER(sk_lookup_tcp, .role = RTG_ROLE_ACQUIRE, .what = "struct sock",
		   .release = "bpf_sk_release", .stop_release = "bpf_sk_release",
		   .release_args = "sk"),
	RTG_HELPER(sk_lookup_udp, .role = RTG_ROLE_ACQUIRE, .what = "struct sock",
		   .release = "bpf_sk_release", .stop_release = "bpf_sk_release",
		   .release_args = "sk"),
	RTG_HELPER(skc_lookup_tcp, .role = RTG_ROLE_ACQUIRE, .what = "struct sock_common",
		   .release = "bpf_sk_release", .stop_release = "bpf_sk_release",
		   .release_args = "sk"),
	RTG_HELPER(map_lookup_elem, .role = RTG_ROLE_ACQUIRE, .verifier_acquires = true,
		   .what = "struct sock (sockmap or sockhash element)",
		   .release = "bpf_sk_release", .stop_release = "bpf_sk_release",
		   .release_args = "sk"),
	RTG_HELPER(sk_release, .role = RTG_ROLE_RELEASE),
	RTG_HELPER(ringbuf_reserve, .role = RTG_ROLE_ACQUIRE, .what = "ring buffer record",
		   .release = "bpf_ringbuf_submit", .stop_release = "bpf_ringbuf_discard",
		   .stop_helper = BPF_FUNC_ringbuf_discard, .release_args = "record, flags"),
	RTG_HELPER(ringbuf_submit, .role = RTG_ROLE_RELEASE),
	RTG_HELPER(ringbuf_discard, .role = RTG_ROLE_RELEASE),
	/* the dynptr must be given back even when the reservation failed */
	RTG_HELPER(ringbuf_reserve_dynptr, .role = RTG_ROLE_HOLD_ARG, .arg = 4,
		   .what = "ring buffer dynptr", .release = "bpf_ringbuf_submit_dynptr",
		   .stop_release = "bpf_ringbuf_discard_dynptr",
		   .stop_helper = BPF_FUNC_ringbuf_discard_dynptr,
		   .release_args = "dynptr, flags"),
	RTG_HELPER(ringbuf_submit_dynptr, .role = RTG_ROLE_RELEASE_DYNPTR),
	RTG_HELPER(ringbuf_discard_dynptr, .role = RTG_ROLE_RELEASE_DYNPTR),
	/* the clone stands for the same record: submitting either gives it back */
	RTG_KFUNC(bpf_dynptr_clone, .role = RTG_ROLE_DYNPTR_CLONE),
	RTG_HELPER(spin_lock, .role = RTG_ROLE_HOLD_ARG, .what = "spin lock",
		   .release = "bpf_spin_unlock", .stop_release = "bpf_spin_unlock",
		   .release_args = "lock"),
	RTG_HELPER(spin_unlock, .role = RTG_ROLE_RELEASE),
	RTG_HELPER(kptr_xchg, .role = RTG_ROLE_KPTR_XCHG, .arg = 2,
		   .what = "referenced kptr", .release = "the kptr type's release",
		   .release_args = "kptr"),
	RTG_KFUNC(bpf_rcu_read_lock, .role = RTG_ROLE_HOLD_TOKEN,
		  .section = RTG_SECTION_RCU, .what = "RCU read section",
		  .release = "bpf_rcu_read_unlock", .stop_release = "bpf_rcu_read_unlock",
		  .release_args = "-"),
	RTG_KFUNC(bpf_rcu_read_unlock, .role = RTG_ROLE_RELEASE_TOKEN,
		  .section = RTG_SECTION_RCU),
	RTG_KFUNC(bpf_preempt_disable, .role = RTG_ROLE_HOLD_TOKEN,
		  .section = RTG_SECTION_PREEMPT, .what = "preemption disabled",
		  .release = "bpf_preempt_enable", .stop_release = "bpf_preempt_enable",
		  .release_args = "-"),
	RTG_KFUNC(bpf_preempt_enable, .role = RTG_ROLE_RELEASE_TOKEN,
		  .section = RTG_SECTION_PREEMPT),
	RTG_KFUNC(bpf_obj_new_impl, .role = RTG_ROLE_ACQUIRE,
		  .what = "program-allocated object", .release = "bpf_obj_drop_impl",
		  .release_args = "obj, meta (acquire's 2nd argument)"),
	RTG_KFUNC(bpf_percpu_obj_new_impl, .role = RTG_ROLE_ACQUIRE,
		  .what = "program-allocated per-CPU object",
		  .release = "bpf_percpu_obj_drop_impl",
		  .release_args = "obj, meta (acquire's 2nd argument)"),
	RTG_KFUNC(bpf_refcount_acquire_impl, .role = RTG_ROLE_ACQUIRE,
		  .what = "program-allocated object", .release = "bpf_obj_drop_impl",
		  .release_args = "obj, meta (acquire's 2nd argument)"),
	RTG_KFUNC(bpf_list_pop_front, .role = RTG_ROLE_MOVE_IN,
		  .what = "program-allocated object, out of a bpf_list",
		  .release = "bpf_obj_drop_impl", .release_args = "obj, meta of its type"),
	RTG_KFUNC(bpf_list_pop_back, .role = RTG_ROLE_MOVE_IN,
		  .what = "program-allocated object, out of a bpf_list",
		  .release = "bpf_obj_drop_impl", .release_args = "obj, meta of its type"),
	RTG_KFUNC(bpf_rbtree_remove, .role = RTG_ROLE_MOVE_IN,
		  .what = "program-allocated object, out of a bpf_rb_root",
		  .release = "bpf_obj_drop_impl", .release_args = "obj, meta of its type"),
	RTG_KFUNC(bpf_list_push_front_impl, .role = RTG_ROLE_MOVE_OUT, .arg = 2),
	RTG_KFUNC(bpf_list_push_back_impl, .role = RTG_ROLE_MOVE_OUT, .arg = 2),
	RTG_KFUNC(bpf_rbtree_add_impl, .role = RTG_ROLE_MOVE_OUT, .arg = 2),
	/* KF_ACQUIRE | KF_RELEASE: inserts the nf_conn___init it is given */
	RTG_KFUNC(bpf_ct_insert_entry, .role = RTG_ROLE_RELEASE_ACQUIRE,
		  .what = "struct nf_conn", .release = "bpf_ct_release",
		  .stop_release = "bpf_ct_release", .release_args = "ct"),
	RTG_KFUNC(scx_bpf_get_possible_cpumask, .role = RTG_ROLE_ACQUIRE,
		  .what = "struct cpumask", .release = "scx_bpf_put_cpumask",
		  .stop_release = "scx_bpf_put_cpumask", .release_args = "mask"),
	RTG_KFUNC(scx_bpf_get_online_cpumask, .role = RTG_ROLE_ACQUIRE,
		  .what = "struct cpumask", .release = "scx_bpf_put_cpumask",
		  .stop_release = "scx_bpf_put_cpumask", .release_args = "mask"),
	RTG_KFUNC(scx_bpf_get_idle_cpumask, .role = RTG_ROLE_ACQUIRE,
		  .what = "struct cpumask", .release = "scx_bpf_put_idle_cpumask",
		  .stop_release = "scx_bpf_put_idle_cpumask", .release_args = "mask"),
	RTG_KFUNC(scx_bpf_get_idle_smtmask, .role = RTG_ROLE_ACQUIRE,
		  .what = "struct cpumask", .release = "scx_bpf_put_idle_cpumask",
		  .stop_release = "scx_bpf_put_idle_cpumask", .release_args = "mask"),
};

/* whether a call with this role leaves the run holding something */
static bool rtg_role_acquires(u8 role)
{
	return role == RTG_ROLE_ACQUIRE || role == RTG_ROLE_RELEASE_ACQUIRE ||
	       role == RTG_ROLE_HOLD_ARG || role == RTG_ROLE_HOLD_TOKEN ||
	       role == RTG_ROLE_MOVE_IN;
}

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
	k->btf_id = e->btf_id;
	k->flags = e->flags;
	k->nr_args = e->nr_args;
	return 0;
}

static const struct rtg_fn_facts *rtg_facts_find(u32 helper, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rtg_fn_facts); i++) {
		const struct rtg_fn_facts *f = &rtg_fn_facts[i];

		if (helper ? f->helper == helper : !f->helper && !strcmp(f->name, name))
			return f;
	}
	return NULL;
}

static bool rtg_is_acquiring(const struct rtg_kfunc *k)
{
	const struct rtg_fn_facts *f = rtg_facts_find(0, k->name);

	return f ? rtg_role_acquires(f->role) : k->flags & (KF_ACQUIRE | KF_ITER_NEW);
}

static void rtg_add_explicit(struct rtg_pair *p, const struct rtg_fn_facts *f,
			     const char *btf)
{
	strscpy(p->acquire, f->name);
	strscpy(p->btf, btf);
	strscpy(p->what, f->what ?: "-");
	strscpy(p->release, f->release ?: "-");
	strscpy(p->stop_release, f->stop_release ?: "");
	p->release_args = f->release_args ?: "-";
	p->source = "explicit";
}

/*
 * Pair one acquiring kfunc; false and a reason when it cannot be. A
 * function that acquires is never taken as a release: giving back what
 * bpf_skb_ct_alloc() returns through bpf_ct_insert_entry() would insert a
 * half-built entry and take a new reference.
 */
static bool rtg_pair_kfunc(const struct rtg_walk *w, const struct rtg_kfunc *k,
			   struct rtg_pair *p, struct rtg_unpaired *u)
{
	const struct rtg_fn_facts *x = rtg_facts_find(0, k->name);
	u32 want = k->flags & KF_ITER_NEW ? KF_ITER_DESTROY : KF_RELEASE;
	const char *type = k->flags & KF_ITER_NEW ? k->arg0_type : k->ret_type;
	const struct rtg_kfunc *found = NULL, *acquiring = NULL;
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
		if (w->kfuncs[i].flags & KF_ACQUIRE) {
			acquiring = &w->kfuncs[i];
			continue;
		}
		found = &w->kfuncs[i];
		n++;
	}
	if (n != 1) {
		snprintf(u->why, sizeof(u->why), "%s release for struct %s%s%s%s%s",
			 n ? "more than one" : "no", type, n ? ", e.g. " : "",
			 n ? found->name : "",
			 acquiring ? "; this one also acquires: " : "",
			 acquiring ? acquiring->name : "");
		return false;
	}
	strscpy(p->acquire, k->name);
	strscpy(p->btf, k->btf);
	snprintf(p->what, sizeof(p->what), "%s %s",
		 k->flags & KF_ITER_NEW ? "iterator" : "struct", type);
	strscpy(p->release, found->name);
	strscpy(p->stop_release, found->name);
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

	max = w.nr + ARRAY_SIZE(rtg_fn_facts);
	p->pairs = kvcalloc(max, sizeof(*p->pairs), GFP_KERNEL);
	p->unpaired = kvcalloc(max, sizeof(*p->unpaired), GFP_KERNEL);
	if (!p->pairs || !p->unpaired) {
		rtg_pairing_free(p);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < ARRAY_SIZE(rtg_fn_facts); i++)
		if (rtg_fn_facts[i].helper && rtg_role_acquires(rtg_fn_facts[i].role))
			rtg_add_explicit(&p->pairs[p->nr_pairs++],
					 &rtg_fn_facts[i], "helper");
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
 * rtg_pairing_vmlinux_kfunc() - the BTF id of a registered vmlinux kfunc
 * @name: the kfunc's name
 *
 * Return: the id a program's call of it carries before it is rewritten
 * (BPF_PSEUDO_KFUNC_CALL, off 0), or 0 when there is no such kfunc.
 */
u32 rtg_pairing_vmlinux_kfunc(const char *name)
{
	u32 i, id = 0;

	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_kfuncs; i++) {
		const struct rtg_kfunc *k = &rtg_pairing->kfuncs[i];

		if (!strcmp(k->name, name) && !strcmp(k->btf, "vmlinux")) {
			id = k->btf_id;
			break;
		}
	}
	mutex_unlock(&rtg_pairing_lock);
	return id;
}

/* The derived pair of an acquiring kfunc: its watchdog release, if any. */
static void rtg_pairing_stop_release(const char *acquire, char *stop_release,
				     size_t len)
{
	u32 i;

	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_pairs; i++) {
		if (!strcmp(rtg_pairing->pairs[i].acquire, acquire)) {
			strscpy(stop_release, rtg_pairing->pairs[i].stop_release, len);
			break;
		}
	}
	mutex_unlock(&rtg_pairing_lock);
}

/* What KF_* flags say a kfunc without explicit facts does. */
static u8 rtg_kfunc_role(u32 flags)
{
	if ((flags & KF_ACQUIRE) && (flags & KF_RELEASE))
		return RTG_ROLE_RELEASE_ACQUIRE;
	if (flags & KF_ACQUIRE)
		return RTG_ROLE_ACQUIRE;
	if (flags & (KF_RELEASE | KF_ITER_DESTROY))
		return RTG_ROLE_RELEASE;
	if (flags & KF_ITER_NEW)
		return RTG_ROLE_HOLD_ARG;
	if (flags & KF_ITER_NEXT)
		return RTG_ROLE_ITER_NEXT;
	return RTG_ROLE_GUARD;
}

/**
 * rtg_fn_facts_of() - what one call does to what the run holds
 * @info: the verifier's description of the call, or NULL
 * @name: the name of the function called
 * @facts: filled with the facts (role, argument, section, ...)
 * @stop_release: filled with the call the watchdog makes to give back
 *	what the call acquires, or "" when there is none
 * @len: size of @stop_release
 *
 * The explicit facts of rtguard_pairing.c first (helpers by id, so that
 * every program type's variant of one is covered), then those that KF_*
 * flags and the type pairing give.
 *
 * Return: whether the call does something to what the run holds.
 */
bool rtg_fn_facts_of(const struct bpf_call_info *info, const char *name,
		     struct rtg_fn_facts *facts, char *stop_release, size_t len)
{
	const struct rtg_fn_facts *f = NULL;

	stop_release[0] = 0;
	*facts = (struct rtg_fn_facts){ .name = name, .role = RTG_ROLE_GUARD, .arg = 1 };
	if (!info)
		return false;
	if (!info->btf) {
		if (info->id)
			f = rtg_facts_find(info->id, "");
		if (!f || (f->verifier_acquires && !info->ret_acquired))
			return false;
	} else {
		f = rtg_facts_find(0, name);
	}
	if (f) {
		*facts = *f;
		strscpy(stop_release, f->stop_release ?: "", len);
	} else {
		facts->role = rtg_kfunc_role(info->kfunc_flags);
		if (rtg_role_acquires(facts->role))
			rtg_pairing_stop_release(name, stop_release, len);
	}
	return facts->role != RTG_ROLE_GUARD;
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

	seq_puts(m, "# acquire source_btf what -> release(args) stop=watchdog_release how\n");
	mutex_lock(&rtg_pairing_lock);
	for (i = 0; rtg_pairing && i < rtg_pairing->nr_pairs; i++) {
		const struct rtg_pair *p = &rtg_pairing->pairs[i];

		seq_printf(m, "%s %s \"%s\" -> %s(%s) stop=%s %s\n", p->acquire, p->btf,
			   p->what, p->release, p->release_args,
			   p->stop_release[0] ? p->stop_release : "-", p->source);
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
