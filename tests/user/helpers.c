// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/klog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "helpers.h"

#define TRACEFS "/sys/kernel/tracing/"

int mod_load(const char *name, const char *params)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/rtg/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		err = -errno;
	close(fd);
	return err;
}

int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int mod_unload_wait(const char *name, int timeout_ms)
{
	int err;

	for (;;) {
		err = mod_unload(name);
		if (err != -EWOULDBLOCK || timeout_ms <= 0)
			return err;
		usleep(10000);
		timeout_ms -= 10;
	}
}

bool mod_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return stat(path, &st) == 0;
}

/* Write @val to @path opened with @flags (and O_WRONLY, O_CLOEXEC). */
static int write_flags(const char *path, const char *val, int flags)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int jit_harden_set(char *old, size_t len)
{
	snprintf(old, len, "%s", file_read(JIT_HARDEN));
	return write_file(JIT_HARDEN, "2");
}

int write_file(const char *path, const char *val)
{
	return write_flags(path, val, O_TRUNC);
}

int append_file(const char *path, const char *val)
{
	return write_flags(path, val, O_APPEND);
}

int read_u64(const char *path, uint64_t *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", val) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

#define PARAM_PATH "/sys/module/" MOD_RTGUARD "/parameters/"

int param_write(const char *param, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), PARAM_PATH "%s", param);
	return write_file(path, val);
}

int param_read(const char *param, char *buf, size_t len)
{
	char path[160];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), PARAM_PATH "%s", param);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

uint64_t kallsyms_addr(const char *name)
{
	char line[256], sym[128];
	unsigned long addr;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

uint32_t prog_id(int prog_fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_prog_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.id;
}

void prog_set_debug(struct bpf_program *prog)
{
	bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_DEBUG_MODE);
}

uint32_t prog_id_of(const struct bpf_program *prog)
{
	return prog ? prog_id(bpf_program__fd(prog)) : 0;
}

const uint8_t test_pkt[54] = {
	[12] = 0x08, [13] = 0x00,				/* IPv4 */
	[14] = 0x45, [16] = 0, [17] = 40, [22] = 64, [23] = 6,	/* TCP */
	[26] = 10, [29] = 1, [30] = 10, [33] = 2,		/* 10.0.0.1 -> 10.0.0.2 */
	[34] = 0x30, [35] = 0x39, [36] = 0x00, [37] = 0x50,	/* 12345 -> 80 */
	[46] = 0x50,
};

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int run_prog_timed(const struct bpf_program *prog, double *ms)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	double t0;
	int err;

	if (bpf_program__type(prog) == BPF_PROG_TYPE_SCHED_CLS) {
		opts.data_in = test_pkt;
		opts.data_size_in = sizeof(test_pkt);
		opts.repeat = 1;
	}
	t0 = now_ms();
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (ms)
		*ms = now_ms() - t0;
	return err ? -errno : (int)opts.retval;
}

int run_prog(const struct bpf_program *prog)
{
	return run_prog_timed(prog, NULL);
}

const char *file_read(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

int stat_read(const char *name, uint64_t *val)
{
	const char *p = file_read("/sys/kernel/debug/bpf_rtguard/stats");
	size_t len = strlen(name);

	for (; *p; p = strchrnul(p, '\n') + !!*strchrnul(p, '\n')) {
		if (!strncmp(p, name, len) && !strncmp(p + len, ": ", 2)) {
			*val = strtoull(p + len + 2, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

const char *dmesg_read(void)
{
	static char buf[1 << 18];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

bool dmesg_has(const char *text)
{
	return strstr(dmesg_read(), text);
}

const char *dmesg_last_line(const char *text)
{
	static char line[512];
	const char *buf = dmesg_read(), *p = buf, *last = NULL, *start, *end;

	for (; (p = strstr(p, text)); p++)
		last = p;
	if (!last)
		return NULL;
	for (start = last; start > buf && start[-1] != '\n'; start--)
		;
	end = strchrnul(last, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
	return line;
}

const char *stop_line(const struct bpf_program *prog)
{
	static char none[128];
	const char *name = bpf_program__name(prog), *line;
	char needle[128];

	snprintf(needle, sizeof(needle), "bpf_rtguard: stopped prog %u %s after",
		 prog_id_of(prog), name);
	line = dmesg_last_line(needle);
	if (line)
		return line;
	snprintf(none, sizeof(none), "(no stop of %s in dmesg)", name);
	return none;
}

int dmesg_count(const char *text)
{
	const char *p = dmesg_read();
	int n = 0;

	for (; (p = strstr(p, text)); p++)
		n++;
	return n;
}

int ncpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int listen_loopback(uint16_t *port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int fd, err;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (void *)&addr, sizeof(addr)) || listen(fd, 1) ||
	    getsockname(fd, (void *)&addr, &alen)) {
		err = -errno;
		close(fd);
		return err;
	}
	*port = ntohs(addr.sin_port);
	return fd;
}

int trace_event_enable(const char *event, bool on)
{
	char path[160];

	snprintf(path, sizeof(path), TRACEFS "events/%s/enable", event);
	return write_file(path, on ? "1" : "0");
}

int trace_clear(void)
{
	return write_file(TRACEFS "trace", "");
}

int ringbuf_count_record(void *ctx, void *data, size_t size)
{
	(*(long *)ctx)++;
	return 0;
}

struct tc_request {
	struct nlmsghdr n;
	struct tcmsg t;
	char attrs[256];
};

static struct rtattr *nl_put(struct tc_request *req, unsigned short type,
			     const void *data, size_t len)
{
	struct rtattr *a = (void *)((char *)req + NLMSG_ALIGN(req->n.nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	req->n.nlmsg_len = NLMSG_ALIGN(req->n.nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

int tc_attach_cls_bpf(int ifindex, int prog_fd, int prio, bool direct_action)
{
	struct tc_request req = {
		.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.n.nlmsg_type = RTM_NEWTFILTER,
		.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		.t.tcm_family = AF_UNSPEC,
		.t.tcm_ifindex = ifindex,
		.t.tcm_handle = 1,
		.t.tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		.t.tcm_info = TC_H_MAKE(prio << 16, htons(ETH_P_ALL)),
	};
	__u32 fd = prog_fd, flags = direct_action ? TCA_BPF_FLAG_ACT_DIRECT : 0;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct { struct nlmsghdr n; struct nlmsgerr e; } ack;
	struct rtattr *opts;
	int sk, err;

	nl_put(&req, TCA_KIND, "bpf", 4);
	opts = nl_put(&req, TCA_OPTIONS, NULL, 0);
	nl_put(&req, TCA_BPF_FD, &fd, sizeof(fd));
	nl_put(&req, TCA_BPF_NAME, "rtgtest", 8);
	nl_put(&req, TCA_BPF_FLAGS, &flags, sizeof(flags));
	opts->rta_len = (char *)&req + req.n.nlmsg_len - (char *)opts;

	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sk < 0)
		return -errno;
	if (sendto(sk, &req, req.n.nlmsg_len, 0, (void *)&sa, sizeof(sa)) < 0 ||
	    recv(sk, &ack, sizeof(ack), 0) < 0)
		err = -errno;
	else
		err = ack.n.nlmsg_type == NLMSG_ERROR ? ack.e.error : -EPROTO;
	close(sk);
	return err;
}
