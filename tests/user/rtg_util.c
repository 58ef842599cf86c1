// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "rtg_util.h"

int rtg_failures;

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

/*
 * Programs are freed after an RCU grace period and a work item: give them
 * time. delete_module() reports a module in use as EWOULDBLOCK.
 */
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

static int param_path(char *path, size_t len, const char *param)
{
	return snprintf(path, len, "/sys/module/" MOD_RTGUARD "/parameters/%s", param);
}

int write_file(const char *path, const char *val)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int param_write(const char *param, const char *val)
{
	char path[160];

	param_path(path, sizeof(path), param);
	return write_file(path, val);
}

int param_read(const char *param, char *buf, size_t len)
{
	char path[160];
	ssize_t n;
	int fd;

	param_path(path, sizeof(path), param);
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

int read_call_sites(struct rtg_call_site *sites, int max)
{
	FILE *f = fopen("/sys/kernel/debug/" MOD_RTGUARD "/calls", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct rtg_call_site *s = &sites[n];

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%u %31s %u %lu %63s", &s->prog_id, s->prog,
			   &s->insn, &s->count, s->func) == 5)
			n++;
	}
	fclose(f);
	return n;
}

uint32_t prog_id(int prog_fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_prog_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.id;
}
