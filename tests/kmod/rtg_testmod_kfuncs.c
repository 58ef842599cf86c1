// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtg_testmod: kfuncs in module BTF for the bpf_rtguard tests.
 *
 * Calls of every shape a kfunc can have (0 to 5 arguments; void, int,
 * 64-bit and pointer results; sleepable; acquire/release with NULL
 * results), and an acquire/release pair whose live objects are counted
 * in debugfs (rtg_testmod/live) so that tests can see leaks; programs run
 * nested in the calling one, and from a caller that sees its callee-saved
 * registers come back.
 */
#include <linux/atomic.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/wait.h>

/**
 * struct rtg_test_obj - a counted object handed out by rtg_test_obj_get()
 * @ref: references held on the object
 * @id: the value it was created for
 */
struct rtg_test_obj {
	refcount_t ref;
	u64 id;
};

static atomic_t rtg_test_live = ATOMIC_INIT(0);
/* rtg_test_wait(): how many callers wait, and whether they may go on */
static atomic_t rtg_test_waiting = ATOMIC_INIT(0);
static bool rtg_test_go;
static DECLARE_WAIT_QUEUE_HEAD(rtg_test_wq);
static atomic64_t rtg_test_last = ATOMIC64_INIT(0);
static struct dentry *rtg_test_dir;

__bpf_kfunc_start_defs();

__bpf_kfunc u64 rtg_test_arg0(void)
{
	return 0x123456789abcdef0ULL;
}

__bpf_kfunc int rtg_test_arg1(int a)
{
	return -a;
}

__bpf_kfunc u32 rtg_test_arg2(u32 a, u32 b)
{
	return a * 1000 + b;
}

__bpf_kfunc void rtg_test_void3(u64 a, u64 b, u64 c)
{
	atomic64_set(&rtg_test_last, a + b * 10 + c * 100);
}

__bpf_kfunc u64 rtg_test_last_value(void)
{
	return atomic64_read(&rtg_test_last);
}

__bpf_kfunc u64 rtg_test_arg4(u64 a, u64 b, u64 c, u64 d)
{
	return (a << 48) ^ (b << 32) ^ (c << 16) ^ d;
}

__bpf_kfunc u64 rtg_test_arg5(u64 a, u64 b, u64 c, u64 d, u64 e)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e;
}

__bpf_kfunc void rtg_test_void0(void)
{
	atomic64_inc(&rtg_test_last);
}

__bpf_kfunc int rtg_test_sleep(u32 usecs)
{
	might_sleep();
	usleep_range(usecs, usecs + 10);
	return usecs;
}

/* Block a sleepable program until debugfs rtg_testmod/go is written (10 s at most). */
__bpf_kfunc int rtg_test_wait(void)
{
	long left;

	atomic_inc(&rtg_test_waiting);
	/* not interruptible: a signal to the loader must not end the wait */
	left = wait_event_timeout(rtg_test_wq, READ_ONCE(rtg_test_go), 10 * HZ);
	atomic_dec(&rtg_test_waiting);
	return left > 0 ? 0 : -ETIMEDOUT;
}

__bpf_kfunc struct rtg_test_obj *rtg_test_obj_get(u64 id)
{
	struct rtg_test_obj *obj;

	if (!id)
		return NULL;
	obj = kmalloc(sizeof(*obj), GFP_ATOMIC);
	if (!obj)
		return NULL;
	refcount_set(&obj->ref, 1);
	obj->id = id;
	atomic_inc(&rtg_test_live);
	return obj;
}

__bpf_kfunc void rtg_test_obj_put(struct rtg_test_obj *obj)
{
	if (refcount_dec_and_test(&obj->ref)) {
		atomic_dec(&rtg_test_live);
		kfree(obj);
	}
}

/*
 * Shaped like conntrack's bpf_skb_ct_alloc() and bpf_ct_insert_entry():
 * an entry is allocated as one type, and the only kfunc that takes that
 * type both gives it back and acquires the inserted object.
 */
struct rtg_test_entry___init {
	struct rtg_test_obj obj;
};

__bpf_kfunc struct rtg_test_entry___init *rtg_test_entry_alloc(u64 id)
{
	return (struct rtg_test_entry___init *)rtg_test_obj_get(id);
}

__bpf_kfunc struct rtg_test_obj *rtg_test_entry_insert(struct rtg_test_entry___init *entry)
{
	return &entry->obj;
}

/*
 * Run a syscall program, by a file descriptor of the calling process,
 * nested in the calling run: the same program in the same task and
 * context, as LSM and struct_ops programs, which skip the recursion
 * check, can be.
 */
__bpf_kfunc int rtg_test_run_nested(int prog_fd)
{
	struct bpf_prog *prog = bpf_prog_get_type_dev(prog_fd, BPF_PROG_TYPE_SYSCALL, false);
	int ret;

	if (IS_ERR(prog))
		return PTR_ERR(prog);
	ret = bpf_prog_run(prog, NULL);
	bpf_prog_put(prog);
	return ret;
}

/* rtg_testmod_regs.S */
u64 rtg_test_call_keeping(const void *ctx, const struct bpf_insn *insn,
			  bpf_func_t func, u64 *diff);

/*
 * Run a syscall program nested in the calling run, as rtg_test_run_nested()
 * does, from a caller that keeps values of its own in every callee-saved
 * register and in rbp (rtg_test_call_keeping()): @diff, of 6 words, says
 * how each of rbx, r12, r13, r14, r15 and rbp came back (xor its value
 * before), all 0 when the program gave them back.
 */
__bpf_kfunc int rtg_test_run_keeping(int prog_fd, u64 *diff, u32 diff__sz)
{
	struct bpf_prog *prog;
	int ret;

	if (diff__sz != 6 * sizeof(u64))
		return -EINVAL;
	prog = bpf_prog_get_type_dev(prog_fd, BPF_PROG_TYPE_SYSCALL, false);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	ret = rtg_test_call_keeping(NULL, prog->insnsi, prog->bpf_func, diff);
	bpf_prog_put(prog);
	return ret;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(rtg_test_kfunc_ids)
BTF_ID_FLAGS(func, rtg_test_arg0)
BTF_ID_FLAGS(func, rtg_test_arg1)
BTF_ID_FLAGS(func, rtg_test_arg2)
BTF_ID_FLAGS(func, rtg_test_void3)
BTF_ID_FLAGS(func, rtg_test_last_value)
BTF_ID_FLAGS(func, rtg_test_arg4)
BTF_ID_FLAGS(func, rtg_test_arg5)
BTF_ID_FLAGS(func, rtg_test_void0)
BTF_ID_FLAGS(func, rtg_test_sleep, KF_SLEEPABLE)
BTF_ID_FLAGS(func, rtg_test_wait, KF_SLEEPABLE)
BTF_ID_FLAGS(func, rtg_test_obj_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, rtg_test_obj_put, KF_RELEASE)
BTF_ID_FLAGS(func, rtg_test_entry_alloc, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, rtg_test_entry_insert, KF_ACQUIRE | KF_RELEASE | KF_RET_NULL)
BTF_ID_FLAGS(func, rtg_test_run_nested, KF_SLEEPABLE)
BTF_ID_FLAGS(func, rtg_test_run_keeping, KF_SLEEPABLE)
BTF_KFUNCS_END(rtg_test_kfunc_ids)

static const struct btf_kfunc_id_set rtg_test_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &rtg_test_kfunc_ids,
};

static int rtg_test_live_get(void *data, u64 *val)
{
	*val = atomic_read(&rtg_test_live);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_test_live_fops, rtg_test_live_get, NULL, "%llu\n");

static int rtg_test_waiting_get(void *data, u64 *val)
{
	*val = atomic_read(&rtg_test_waiting);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_test_waiting_fops, rtg_test_waiting_get, NULL, "%llu\n");

/*
 * References to the task whose pid was written, to see them leak: BPF's
 * task kfuncs (bpf_task_acquire(), bpf_task_from_pid()) count in
 * rcu_users, not in usage
 */
static pid_t rtg_test_task_pid;

static int rtg_test_task_usage_get(void *data, u64 *val)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_vpid(READ_ONCE(rtg_test_task_pid)), PIDTYPE_PID);
	*val = task ? refcount_read(&task->rcu_users) : 0;
	rcu_read_unlock();
	return task ? 0 : -ESRCH;
}

static int rtg_test_task_usage_set(void *data, u64 val)
{
	WRITE_ONCE(rtg_test_task_pid, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_test_task_usage_fops, rtg_test_task_usage_get,
			 rtg_test_task_usage_set, "%llu\n");

/* 1: waiters go on (and later ones do not wait); 0: later ones wait */
static int rtg_test_go_set(void *data, u64 val)
{
	WRITE_ONCE(rtg_test_go, !!val);
	wake_up_all(&rtg_test_wq);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rtg_test_go_fops, NULL, rtg_test_go_set, "%llu\n");

static int __init rtg_testmod_init(void)
{
	static const enum bpf_prog_type types[] = {
		BPF_PROG_TYPE_SYSCALL, BPF_PROG_TYPE_SCHED_CLS,
		BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_TRACING,
	};
	int i, err;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		err = register_btf_kfunc_id_set(types[i], &rtg_test_kfunc_set);
		if (err)
			return err;
	}
	rtg_test_dir = debugfs_create_dir("rtg_testmod", NULL);
	debugfs_create_file_unsafe("live", 0444, rtg_test_dir, NULL,
				   &rtg_test_live_fops);
	debugfs_create_file_unsafe("waiting", 0444, rtg_test_dir, NULL,
				   &rtg_test_waiting_fops);
	debugfs_create_file_unsafe("go", 0200, rtg_test_dir, NULL,
				   &rtg_test_go_fops);
	debugfs_create_file_unsafe("task_usage", 0600, rtg_test_dir, NULL,
				   &rtg_test_task_usage_fops);
	return 0;
}

static void __exit rtg_testmod_exit(void)
{
	debugfs_remove_recursive(rtg_test_dir);
}

module_init(rtg_testmod_init);
module_exit(rtg_testmod_exit);

MODULE_DESCRIPTION("kfuncs in module BTF for the bpf_rtguard tests");
MODULE_LICENSE("GPL");
