// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtg-strace: print bpf_rtguard debug-mode records strace-style, one call
 * per line:
 *
 *   [  456.904849] test_debug_mode+12 bpf_task_from_pid(1) = 0xffff8bf4c1320000 <1.2us>
 *
 * Usage: rtg-strace [-f] [-t SECONDS] [-p PROG_ID] [-n PROG_NAME] [-l]
 *        rtg-strace --enable | --disable | --clear
 *
 * Without -f it prints what the trace buffer holds (tracefs "trace") and
 * exits; with -f it follows "trace_pipe" until interrupted or for -t
 * seconds. -l also prints the ring buffer's lost-event count on stderr.
 * --enable turns the bpf_rtguard:rtg_call event on (and makes the buffer
 * 8 MiB per CPU), --disable turns it off, --clear empties the buffer.
 *
 * Integers are shown as integers (signed where the function's type is),
 * pointers in hex, and so are 64-bit values in the kernel's half of the
 * address space: helpers take unsafe pointers as plain u64.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENT TRACEFS "/events/bpf_rtguard/rtg_call/enable"

struct rtg_record {
	unsigned long long t, dur, args[5], ret;
	unsigned int prog, insn, nargs, ptr, sign, int32, retsize, retptr, retsigned;
	char name[64], func[128];
};

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Parse the TP_printk() text of one rtg_call record. */
static bool parse_record(const char *line, struct rtg_record *r)
{
	const char *p = strstr(line, " rtg_call: ");
	char *mod;

	if (!p)
		return false;
	if (sscanf(p + 11,
		   "t=%llu dur=%llu prog=%u name=%63s insn=%u nargs=%u ptr=%x signed=%x int32=%x retsize=%u retptr=%u retsigned=%u args=%llx,%llx,%llx,%llx,%llx ret=%llx func=%127[^\n]",
		   &r->t, &r->dur, &r->prog, r->name, &r->insn, &r->nargs,
		   &r->ptr, &r->sign, &r->int32, &r->retsize, &r->retptr, &r->retsigned,
		   &r->args[0], &r->args[1], &r->args[2], &r->args[3],
		   &r->args[4], &r->ret, r->func) != 19)
		return false;
	mod = strstr(r->func, " [");	/* "%ps" of a module function */
	if (mod)
		*mod = 0;
	return true;
}

/* An integer of @size bytes, signed or not, or a pointer, as a string. */
static void format_value(char *buf, size_t len, unsigned long long v,
			 bool ptr, bool is_signed, unsigned int size)
{
	/* pointers, and 64-bit values that can only be kernel addresses
	 * (helpers take unsafe pointers as plain u64), in hex
	 */
	if (ptr || (!is_signed && size == 8 && v >= 0xffff800000000000ULL)) {
		snprintf(buf, len, "0x%llx", v);
		return;
	}
	if (size && size < 8) {
		unsigned int bits = size * 8;

		v &= (1ULL << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~((1ULL << bits) - 1);
	}
	if (is_signed)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%llu", v);
}

static void print_record(const struct rtg_record *r)
{
	char line[512], val[32];
	unsigned int i;
	int n;

	n = snprintf(line, sizeof(line), "[%5llu.%06llu] %s+%u %s(",
		     r->t / 1000000000, r->t % 1000000000 / 1000, r->name,
		     r->insn, r->func);
	for (i = 0; i < r->nargs && i < 5; i++) {
		format_value(val, sizeof(val), r->args[i], r->ptr & (1 << i),
			     r->sign & (1 << i), r->int32 & (1 << i) ? 4 : 8);
		n += snprintf(line + n, sizeof(line) - n, "%s%s", i ? ", " : "", val);
	}
	n += snprintf(line + n, sizeof(line) - n, ")");
	if (r->retsize) {
		format_value(val, sizeof(val), r->ret, r->retptr, r->retsigned,
			     r->retsize);
		n += snprintf(line + n, sizeof(line) - n, " = %s", val);
	}
	if (r->dur < 1000)
		snprintf(line + n, sizeof(line) - n, " <%lluns>", r->dur);
	else
		snprintf(line + n, sizeof(line) - n, " <%llu.%lluus>",
			 r->dur / 1000, r->dur % 1000 / 100);
	puts(line);
}

static unsigned long long lost_events(void)
{
	unsigned long long total = 0, v;
	char path[128], line[128];
	int cpu;

	for (cpu = 0; cpu < 1024; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				total += v;
		fclose(f);
	}
	return total;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "enable", no_argument, NULL, 'E' },
		{ "disable", no_argument, NULL, 'D' },
		{ "clear", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	long prog = -1, seconds = 0;
	bool follow = false, lost = false;
	struct rtg_record r;
	char line[1024];
	time_t end = 0;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "ft:p:n:l", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = true;
			break;
		case 't':
			seconds = strtol(optarg, NULL, 10);
			break;
		case 'p':
			prog = strtol(optarg, NULL, 10);
			break;
		case 'n':
			name = optarg;
			break;
		case 'l':
			lost = true;
			break;
		case 'E':
			write_file(TRACEFS "/buffer_size_kb", "8192");
			return write_file(EVENT, "1") ? 1 : 0;
		case 'D':
			return write_file(EVENT, "0") ? 1 : 0;
		case 'C':
			return write_file(TRACEFS "/trace", "") ? 1 : 0;
		default:
			fprintf(stderr, "usage: %s [-f] [-t SECONDS] [-p PROG_ID] [-n PROG_NAME] [-l] | --enable | --disable | --clear\n",
				argv[0]);
			return 2;
		}
	}

	f = fopen(follow ? TRACEFS "/trace_pipe" : TRACEFS "/trace", "r");
	if (!f) {
		perror("rtg-strace: open trace buffer");
		return 1;
	}
	/* unbuffered, so that poll() sees every line not yet read */
	if (follow)
		setvbuf(f, NULL, _IONBF, 0);
	if (seconds)
		end = time(NULL) + seconds;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		if (follow) {
			struct pollfd pfd = { .fd = fileno(f), .events = POLLIN };

			if (end && time(NULL) >= end)
				break;
			if (poll(&pfd, 1, 200) <= 0)
				continue;
		}
		if (!fgets(line, sizeof(line), f))
			break;
		if (!parse_record(line, &r))
			continue;
		if (prog >= 0 && r.prog != prog)
			continue;
		if (name && strcmp(r.name, name))
			continue;
		print_record(&r);
	}
	fclose(f);
	if (lost)
		fprintf(stderr, "rtg-strace: %llu events lost\n", lost_events());
	return 0;
}
