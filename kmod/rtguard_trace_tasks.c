// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: debug mode for the programs a process tree loads, as
 * strace follows a command. A reader (rtg-strace -- CMD, rtg-strace -P
 * PID) opens debugfs bpf_rtguard/trace_tasks and writes a process id to
 * it; while that file stays open, every program the process or one of
 * its descendants loads is loaded in debug mode, as with
 * BPF_F_DEBUG_MODE (&bpf_call_hook_ops.prog_debug). Other processes'
 * programs are not. Debug mode is chosen at load, before the verifier
 * runs: a program loaded earlier stays as it is.
 *
 * A descendant is found by following real_parent from the loading task:
 * a process whose parent exited is reparented (to init or a subreaper)
 * and counts only when that is in the tree (rtg-strace -- CMD traces
 * itself and is the subreaper of what it runs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "rtguard.h"
#include "rtguard_param.h"

#define RTG_TRACE_TASKS	16

/* a process tree being traced, for as long as @file is open */
struct rtg_trace_task {
	struct pid *pid;
	const struct file *file;
};

static DEFINE_SPINLOCK(rtg_trace_tasks_lock);

static int rtg_debug = RTG_DEBUG_FLAG;

static const char * const rtg_debug_names[] = {
	[RTG_DEBUG_OFF] = "off",
	[RTG_DEBUG_FLAG] = "flag",
	[RTG_DEBUG_ALL] = "all",
};

static int rtg_param_set_debug(const char *val, const struct kernel_param *kp)
{
	int mode = val ? sysfs_match_string(rtg_debug_names, val) : -EINVAL;

	if (mode >= 0) {
		WRITE_ONCE(*(int *)kp->arg, mode);
		return 0;
	}
	if (!val)
		return min(rtg_param_refuse(kp, "needs a value: off, flag or all"), 0);
	return min(rtg_param_refuse(kp, "'%.*s' is not one of off, flag, all",
				    (int)strcspn(val, "\n"), val), 0);
}

static int rtg_param_get_debug(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rtg_debug_names[READ_ONCE(*(int *)kp->arg)]);
}

/* NOARG: a bare "debug" reaches the setter, which says what it takes */
static const struct kernel_param_ops rtg_debug_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = rtg_param_set_debug,
	.get = rtg_param_get_debug,
};

module_param_cb(debug, &rtg_debug_ops, &rtg_debug, 0644);
MODULE_PARM_DESC(debug,
		 "Trace every helper and kfunc call (trace event bpf_rtguard:rtg_call) of: flag = programs loaded with BPF_F_DEBUG_MODE or by a process tree written to debugfs trace_tasks (default), all = every program loaded while set, off = none");
static struct rtg_trace_task rtg_trace_tasks[RTG_TRACE_TASKS];
static unsigned int rtg_nr_trace_tasks;

/* Whether @task or an ancestor is a traced process. Lock held, under RCU. */
static bool rtg_task_traced(struct task_struct *task)
{
	struct task_struct *t = task, *parent;
	unsigned int i;

	for (;;) {
		for (i = 0; i < RTG_TRACE_TASKS; i++) {
			struct pid *pid = rtg_trace_tasks[i].pid;

			if (pid && (pid == task_tgid(t) || pid == task_pid(t)))
				return true;
		}
		parent = rcu_dereference(t->real_parent);
		if (parent == t)
			return false;
		t = parent;
	}
}

/**
 * rtg_debug_traced() - whether the calls of a program are traced
 * @main: aux data of the main program
 *
 * Return: true while debug=all, or while debug=flag for a program loaded
 * in debug mode.
 */
bool rtg_debug_traced(const struct bpf_prog_aux *main)
{
	switch (READ_ONCE(rtg_debug)) {
	case RTG_DEBUG_ALL:
		return true;
	case RTG_DEBUG_FLAG:
		return main->debug_mode;
	default:
		return false;
	}
}

/**
 * rtg_prog_debug() - whether a program being loaded is traced
 * @prog: the program, not yet verified; current is its loader
 *
 * &bpf_call_hook_ops.prog_debug: every program while debug=all, the
 * programs of traced process trees while debug=flag, none while off.
 *
 * Return: true to load @prog in debug mode.
 */
bool rtg_prog_debug(const struct bpf_prog *prog)
{
	bool traced;

	switch (READ_ONCE(rtg_debug)) {
	case RTG_DEBUG_ALL:
		return true;
	case RTG_DEBUG_OFF:
		return false;
	}
	if (!READ_ONCE(rtg_nr_trace_tasks))
		return false;
	rcu_read_lock();
	spin_lock(&rtg_trace_tasks_lock);
	traced = rtg_task_traced(current);
	spin_unlock(&rtg_trace_tasks_lock);
	rcu_read_unlock();
	return traced;
}

/* Trace the process @nr (in the writer's pid namespace) while @file is open. */
static int rtg_trace_task_add(const struct file *file, int nr)
{
	struct pid *pid = find_get_pid(nr);
	bool alive;
	int i, err = -ENOSPC;

	if (!pid)
		return -ESRCH;
	rcu_read_lock();
	alive = pid_task(pid, PIDTYPE_PID);
	rcu_read_unlock();
	if (!alive) {
		put_pid(pid);
		return -ESRCH;
	}
	spin_lock(&rtg_trace_tasks_lock);
	for (i = 0; i < RTG_TRACE_TASKS; i++) {
		if (rtg_trace_tasks[i].pid)
			continue;
		rtg_trace_tasks[i].pid = pid;
		rtg_trace_tasks[i].file = file;
		WRITE_ONCE(rtg_nr_trace_tasks, rtg_nr_trace_tasks + 1);
		err = 0;
		break;
	}
	spin_unlock(&rtg_trace_tasks_lock);
	if (err) {
		put_pid(pid);
		pr_warn_ratelimited("trace_tasks: already %d process trees traced\n",
				    RTG_TRACE_TASKS);
	}
	return err;
}

static ssize_t rtg_trace_tasks_write(struct file *file, const char __user *buf,
				     size_t count, loff_t *ppos)
{
	int nr, err;

	err = kstrtoint_from_user(buf, count, 10, &nr);
	if (err)
		return err;
	if (nr <= 0)
		return -EINVAL;
	err = rtg_trace_task_add(file, nr);
	return err ?: count;
}

/* The traced processes, one pid per line (in the reader's namespace). */
static ssize_t rtg_trace_tasks_read(struct file *file, char __user *buf,
				    size_t count, loff_t *ppos)
{
	char text[RTG_TRACE_TASKS * 12 + 1];
	size_t len = 0;
	int i;

	spin_lock(&rtg_trace_tasks_lock);
	for (i = 0; i < RTG_TRACE_TASKS; i++)
		if (rtg_trace_tasks[i].pid)
			len += scnprintf(text + len, sizeof(text) - len, "%d\n",
					 pid_vnr(rtg_trace_tasks[i].pid));
	spin_unlock(&rtg_trace_tasks_lock);
	return simple_read_from_buffer(buf, count, ppos, text, len);
}

/* Closing the file ends the tracing of the trees it named. */
static int rtg_trace_tasks_release(struct inode *inode, struct file *file)
{
	struct pid *gone[RTG_TRACE_TASKS];
	int i, n = 0;

	spin_lock(&rtg_trace_tasks_lock);
	for (i = 0; i < RTG_TRACE_TASKS; i++) {
		if (rtg_trace_tasks[i].file != file || !rtg_trace_tasks[i].pid)
			continue;
		gone[n++] = rtg_trace_tasks[i].pid;
		rtg_trace_tasks[i].pid = NULL;
		rtg_trace_tasks[i].file = NULL;
		WRITE_ONCE(rtg_nr_trace_tasks, rtg_nr_trace_tasks - 1);
	}
	spin_unlock(&rtg_trace_tasks_lock);
	while (n--)
		put_pid(gone[n]);
	return 0;
}

static const struct file_operations rtg_trace_tasks_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rtg_trace_tasks_read,
	.write = rtg_trace_tasks_write,
	.release = rtg_trace_tasks_release,
	.llseek = default_llseek,
};

/**
 * rtg_trace_tasks_init() - create debugfs trace_tasks
 * @dir: the module's debugfs directory
 */
void rtg_trace_tasks_init(struct dentry *dir)
{
	debugfs_create_file("trace_tasks", 0600, dir, NULL, &rtg_trace_tasks_fops);
}
