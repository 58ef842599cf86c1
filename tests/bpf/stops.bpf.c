// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stops that must do no harm: fast-execute past a call the verifier
 * proved non-NULL, LSM, fmod_ret and cgroup hooks stopped (they must still
 * deny), a type with no safe stop value (reported, not stopped), a program
 * whose helper call is the enforcement (never stopped), a ring buffer
 * record the program only submits, a sockmap socket, objects moved into
 * and out of a bpf_list and an rbtree.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rtg_testmod.h"
#include "rtg_bpf.h"

char LICENSE[] SEC("license") = "GPL";

void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
void *bpf_refcount_acquire_impl(void *kptr, void *meta) __ksym;
int bpf_list_push_back_impl(struct bpf_list_head *head, struct bpf_list_node *node,
			    void *meta, __u64 off) __ksym;
struct bpf_list_node *bpf_list_pop_front(struct bpf_list_head *head) __ksym;
int bpf_rbtree_add_impl(struct bpf_rb_root *root, struct bpf_rb_node *node,
			bool (less)(struct bpf_rb_node *a, const struct bpf_rb_node *b),
			void *meta, __u64 off) __ksym;
struct bpf_rb_node *bpf_rbtree_first(struct bpf_rb_root *root) __ksym;
struct bpf_rb_node *bpf_rbtree_remove(struct bpf_rb_root *root,
				      struct bpf_rb_node *node) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define bpf_refcount_acquire(kptr) bpf_refcount_acquire_impl(kptr, NULL)
#define __contains(name, node) __attribute__((btf_decl_tag("contains:" #name ":" #node)))
#define private(name) SEC(".bss." #name) __hidden __attribute__((aligned(8)))
#define EPERM 1

int target_pid;
int outer = 1000000;	/* far beyond any budget */
int zero;		/* a bpf_loop flags argument the verifier can't see */
__u64 sum;

/* a loop of helper calls: each is a place where the run can be stopped */
static __always_inline void spin(int n)
{
	int i, j;

	bpf_for(i, 0, n)
		bpf_for(j, 0, 1000)
			sum += bpf_get_prandom_u32() & 1;
}

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_pid;
}

/* ---- fast-execute past bpf_refcount_acquire() ---- */

struct counted {
	long value;
	struct bpf_refcount ref;
};

static int cb_task(__u64 i, void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(target_pid);

	/* NULL once the run fast-executes: leave the loop */
	if (!t)
		return 1;
	sum += t->pid;
	bpf_task_release(t);
	return 0;
}

/*
 * The object needs its type's meta to be dropped, so the watchdog cannot
 * give it back itself: the stop inside the callback fast-executes. The
 * verifier proved bpf_refcount_acquire() on the owning reference non-NULL
 * and the program stores through it unchecked.
 */
SEC("syscall")
int stop_refcount(void *ctx)
{
	struct counted *obj = bpf_obj_new(typeof(*obj)), *ref;

	if (!obj)
		return 1;
	bpf_loop(outer, cb_task, NULL, zero);
	ref = bpf_refcount_acquire(obj);
	ref->value = 42;
	sum += obj->value;
	bpf_obj_drop(ref);
	bpf_obj_drop(obj);
	return 0;
}

/* ---- LSM: still denied when stopped ---- */

int lsm_outer = 1000000;
__u64 lsm_runs;

SEC("lsm/task_setnice")
int BPF_PROG(stop_lsm_setnice, struct task_struct *p, int nice)
{
	if (p->tgid != target_pid || !is_target())
		return 0;
	lsm_runs++;
	spin(lsm_outer);
	return -EPERM;
}

/* ---- cgroup: a stop denies, though the program would allow ---- */

int cg_outer = 1000000;
__u64 cg_runs;

SEC("cgroup/sock_create")
int stop_cg_sock_create(struct bpf_sock *sk)
{
	if (!is_target())
		return 1;
	cg_runs++;
	spin(cg_outer);
	return 1;
}

/* ---- no safe stop value: an LSM hook that returns a bool ---- */

__u64 skipcap_ms = 300;	/* past watchdog_ms, then return */
__u64 skipcap_done;

SEC("lsm/inode_xattr_skipcap")
int BPF_PROG(stop_skipcap, const char *name)
{
	__u64 t0 = bpf_ktime_get_ns();
	int i;

	if (!is_target())
		return 0;
	bpf_for(i, 0, 1 << 23)	/* BPF_MAX_LOOPS */
		if (bpf_ktime_get_ns() - t0 > skipcap_ms * 1000000)
			break;
	skipcap_done++;
	return 0;
}

/* ---- fmod_ret on a security hook: a stop denies as the program would ---- */

__u64 fmod_runs;

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(stop_fmod_setnice, struct task_struct *p, int nice, int ret)
{
	if (!is_target())
		return ret;
	fmod_runs++;
	spin(lsm_outer);
	return -EPERM;
}

/* only loaded: its call is the enforcement, so it is never stopped */
SEC("kprobe/rtg_test_arg2")
int stop_send_signal(struct pt_regs *regs)
{
	if (is_target())
		bpf_send_signal(9);
	return 0;
}

/* only loaded: its one allowed return value is 1 */
SEC("cgroup/recvmsg4")
int stop_recvmsg4(struct bpf_sock_addr *ctx)
{
	sum += bpf_get_prandom_u32();
	return 1;
}

/* ---- a ring buffer record the program only submits ---- */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

SEC("syscall")
int stop_rb_submit(void *ctx)
{
	__u64 *r = bpf_ringbuf_reserve(&rb, 2048, 0);

	if (!r)
		return 1;
	r[0] = 1;		/* half written when the stop comes */
	spin(outer);
	r[1] = 2;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/* the same through a dynptr, which must be given back even if empty */
SEC("syscall")
int stop_rb_dynptr(void *ctx)
{
	struct bpf_dynptr ptr;
	__u64 one = 1;

	bpf_ringbuf_reserve_dynptr(&rb, 2048, 0, &ptr);
	bpf_dynptr_write(&ptr, 0, &one, sizeof(one), 0);
	spin(outer);
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	return 0;
}

RINGBUF_FITS_PROG(stop_rb_check, rb)

/* ---- a socket out of a sockmap ---- */

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

int sock_outer = 1000000;

SEC("tc")
int stop_sockmap(struct __sk_buff *skb)
{
	struct bpf_sock *sk;
	__u32 key = 0;

	sk = bpf_map_lookup_elem(&socks, &key);
	if (!sk)
		return 1;
	spin(sock_outer);
	bpf_sk_release(sk);
	return 0;
}

/* ---- objects moved into and out of a bpf_list and an rbtree ---- */

struct elem {
	long key;
	struct bpf_list_node lnode;
	struct bpf_rb_node rnode;
	struct bpf_refcount ref;
};

private(A) struct bpf_spin_lock glock;
private(A) struct bpf_list_head ghead __contains(elem, lnode);
private(A) struct bpf_rb_root groot __contains(elem, rnode);

int graph_outer;	/* 0: no loop while an object is held */
__u64 graph_runs;

static bool less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	return container_of(a, struct elem, rnode)->key <
	       container_of(b, struct elem, rnode)->key;
}

/*
 * Push a new object into the list and another into the tree, take the
 * oldest one out of each and drop it (a loop first, when graph_outer is
 * set, so that a stop finds an object out of the list in the run's hands).
 */
SEC("syscall")
int stop_graph(void *ctx)
{
	struct bpf_list_node *ln;
	struct bpf_rb_node *rn;
	struct elem *e, *f;

	e = bpf_obj_new(typeof(*e));
	if (!e)
		return 1;
	f = bpf_obj_new(typeof(*f));
	if (!f) {
		bpf_obj_drop(e);
		return 1;
	}
	e->key = graph_runs;
	f->key = graph_runs;
	bpf_spin_lock(&glock);
	bpf_list_push_back_impl(&ghead, &e->lnode, NULL, 0);
	bpf_rbtree_add_impl(&groot, &f->rnode, less, NULL, 0);
	ln = bpf_list_pop_front(&ghead);
	rn = bpf_rbtree_first(&groot);
	if (rn)
		rn = bpf_rbtree_remove(&groot, rn);
	bpf_spin_unlock(&glock);
	graph_runs++;
	if (ln) {
		spin(graph_outer);
		bpf_obj_drop(container_of(ln, struct elem, lnode));
	}
	if (rn)
		bpf_obj_drop(container_of(rn, struct elem, rnode));
	return 0;
}
