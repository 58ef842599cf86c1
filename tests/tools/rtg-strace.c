// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtg-strace: print bpf_rtguard debug-mode records strace-style, one call
 * per line:
 *
 *   [   16.070604] test_debug_mode+26 debugmode.bpf.c:31 bpf_task_from_pid(pid=64) = (struct task_struct *)0xffff888000a62000 <16.0us>
 *
 * Usage: rtg-strace [-f] [-t SECONDS] [-p PROG_ID] [-n PROG_NAME]
 *                   [-e FUNC[,FUNC...]] [-c] [-j] [-o FILE]
 *        rtg-strace --enable | --disable | --clear
 *
 * Records are read the way trace-cmd reads them: binary, from each CPU's
 * tracefs per_cpu/cpuN/trace_pipe_raw (ring buffer pages, laid out as
 * events/header_page says), the fields found at the offsets the event's
 * format file gives. A record carries up to 8 calls of one CPU, each
 * only what changes per call (site number, arguments, result, end and
 * duration in TSC cycles, task): bpf_rtguard batches them, and writes
 * what waits when trace_flush is written, as rtg-strace does before it
 * reads, and on each watchdog tick (every 50 ms at most); what a site is
 * comes once from debugfs bpf_rtguard/sites, the names and types of
 * arguments and results from BTF (kfuncs: vmlinux or module BTF) or from
 * libbpf's bpf_helper_defs.h (helpers: a table made from it at build
 * time), the source line from the program's BTF line info.
 *
 * Reading consumes the records. Without -f, rtg-strace prints what the
 * buffer holds and exits; with -f it follows until interrupted or for -t
 * seconds. -c prints a summary per function instead of the calls, -j
 * one JSON object per call, -o writes to FILE. Lost records (dropped by
 * the trace buffer, or by bpf_rtguard when more calls than it keeps were
 * in flight on a CPU) are always reported on stderr:
 *
 *   rtg-strace: 17 calls, 0 records lost
 *
 * --enable turns the bpf_rtguard:rtg_call event on (and makes the buffer
 * 8 MiB per CPU), --disable turns it off, --clear empties the buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENT_DIR TRACEFS "/events/bpf_rtguard/rtg_call"
#define SITES "/sys/kernel/debug/bpf_rtguard/sites"
#define STATS "/sys/kernel/debug/bpf_rtguard/stats"
#define FLUSH "/sys/kernel/debug/bpf_rtguard/trace_flush"
#define MAX_ARGS 5
#define MAX_CPUS 256

/* ---- small utilities ---- */

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

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("rtg-strace");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		perror("rtg-strace");
		exit(1);
	}
	return p;
}

/* "name: value" of bpf_rtguard/stats; 0 when absent. */
static unsigned long long stat_value(const char *name)
{
	unsigned long long v = 0;
	char line[128];
	size_t n = strlen(name);
	FILE *f = fopen(STATS, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* ---- the binary layout: header_page and the event's format file ---- */

struct field {
	int offset, size;
};

static struct {
	int id;
	struct field common_type, tsc, nr, recs;
} ev;

/*
 * One call in a record's recs (struct rtg_call_rec in kmod/rtguard.h):
 * a record carries up to RTG_TRACE_BATCH calls of one CPU.
 */
struct call_rec {
	uint64_t args[5];
	uint64_t ret;
	uint64_t end;		/* TSC right after the call */
	uint32_t cycles;
	uint32_t site;
	uint32_t pid;
	uint32_t pad;
};

static struct {
	struct field timestamp, commit, data;
} page;

/* Offsets and sizes of the named fields of a tracefs format file. */
static int read_format(const char *path, const char *const *names,
		       struct field *const *fields, int n, int *id)
{
	char line[512];
	int found = 0, i;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char decl[256], name[128], *p;
		struct field fl;

		if (id && sscanf(line, "ID: %d", id) == 1)
			continue;
		p = strstr(line, "field:");
		if (!p || sscanf(p + 6, "%255[^;]; offset:%d; size:%d;", decl,
				 &fl.offset, &fl.size) != 3)
			continue;
		/*
		 * the name is the last word of the declaration, without [N]
		 * ("u64 args[5]", "__data_loc u64[] recs")
		 */
		p = decl + strlen(decl);
		while (p > decl && p[-1] == ' ')
			*--p = 0;
		p = strrchr(decl, ' ');
		snprintf(name, sizeof(name), "%s", p ? p + 1 : decl);
		name[strcspn(name, "[")] = 0;
		for (i = 0; i < n; i++)
			if (!strcmp(name, names[i]) && fields[i]->size == 0) {
				*fields[i] = fl;
				found++;
			}
	}
	fclose(f);
	return found == n ? 0 : -ENOENT;
}

static int read_layout(void)
{
	static const char *const ev_names[] = { "common_type", "tsc", "nr", "recs" };
	struct field *const ev_fields[] = { &ev.common_type, &ev.tsc, &ev.nr, &ev.recs };
	static const char *const page_names[] = { "timestamp", "commit", "data" };
	struct field *const page_fields[] = {
		&page.timestamp, &page.commit, &page.data,
	};

	if (read_format(EVENT_DIR "/format", ev_names, ev_fields, 4, &ev.id) ||
	    read_format(TRACEFS "/events/header_page", page_names, page_fields,
			3, NULL)) {
		fprintf(stderr, "rtg-strace: cannot read the rtg_call event's format (is bpf_rtguard loaded?)\n");
		return -1;
	}
	/* recs is a __data_loc: 16-bit offset and length in the record */
	if (ev.recs.size != 4 || ev.tsc.size != 8) {
		fprintf(stderr, "rtg-strace: unexpected rtg_call layout\n");
		return -1;
	}
	return 0;
}

/* ---- types: BTF for kfuncs, libbpf's helper prototypes for helpers ---- */

struct value_type {
	char *name;		/* "struct task_struct *", "int", ... */
	bool ptr, is_signed, known;
	int size;		/* bytes; 0 for void */
};

struct helper_def {
	int id;
	const char *name, *ret, *params;
};

/* generated from libbpf's bpf_helper_defs.h (tests/Makefile) */
static const struct helper_def helper_defs[] = {
#define RTG_HELPER(id, name, ret, params) { id, name, ret, params },
#include "rtg_helper_defs.h"
#undef RTG_HELPER
};

static const struct helper_def *helper_by_id(int id)
{
	size_t i;

	for (i = 0; i < sizeof(helper_defs) / sizeof(helper_defs[0]); i++)
		if (helper_defs[i].id == id)
			return &helper_defs[i];
	return NULL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		*--e = 0;
	return s;
}

/* A C type as written in bpf_helper_defs.h. */
static void c_type(const char *decl, struct value_type *t)
{
	t->name = xstrdup(decl);
	t->known = true;
	t->ptr = strchr(decl, '*');
	t->size = 8;
	t->is_signed = false;
	if (t->ptr)
		return;
	if (!strcmp(decl, "void")) {
		t->size = 0;
		return;
	}
	if (strstr(decl, "32") || !strcmp(decl, "int") || !strcmp(decl, "unsigned int"))
		t->size = 4;
	else if (strstr(decl, "16") || strstr(decl, "short"))
		t->size = 2;
	else if (strstr(decl, "8") && !strstr(decl, "64"))
		t->size = 1;
	else if (strstr(decl, "char"))
		t->size = 1;
	t->is_signed = !strstr(decl, "unsigned") && !strstr(decl, "__u") &&
		       !strstr(decl, "bool");
}

static struct btf *vmlinux_btf;
static struct {
	char *name;
	struct btf *btf;
} mod_btfs[64];
static int nr_mod_btfs;

static struct btf *btf_of(const char *module)
{
	int i;

	if (!vmlinux_btf) {
		vmlinux_btf = btf__load_vmlinux_btf();
		if (!vmlinux_btf)
			return NULL;
	}
	if (!module || !strcmp(module, "-"))
		return vmlinux_btf;
	for (i = 0; i < nr_mod_btfs; i++)
		if (!strcmp(mod_btfs[i].name, module))
			return mod_btfs[i].btf;
	if (nr_mod_btfs == 64)
		return NULL;
	mod_btfs[nr_mod_btfs].name = xstrdup(module);
	mod_btfs[nr_mod_btfs].btf = btf__load_module_btf(module, vmlinux_btf);
	return mod_btfs[nr_mod_btfs++].btf;
}

static void btf_print(void *ctx, const char *fmt, va_list args)
{
	char *buf = ctx;
	size_t n = strlen(buf);

	vsnprintf(buf + n, 256 - n, fmt, args);
}

/* A BTF type: its C name, and whether it is a pointer, its sign and size. */
static void btf_value_type(struct btf *btf, int id, struct value_type *t)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	const struct btf_type *bt;
	char buf[256] = "";
	struct btf_dump *d;

	t->known = true;
	if (!id) {
		t->name = xstrdup("void");
		return;
	}
	d = btf_dump__new(btf, btf_print, buf, NULL);
	if (d) {
		btf_dump__emit_type_decl(d, id, &opts);
		btf_dump__free(d);
	}
	t->name = xstrdup(trim(buf));
	id = btf__resolve_type(btf, id);
	bt = id < 0 ? NULL : btf__type_by_id(btf, id);
	t->size = 8;
	if (!bt)
		return;
	t->ptr = btf_is_ptr(bt);
	if (btf_is_int(bt)) {
		t->size = bt->size;
		t->is_signed = btf_int_encoding(bt) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(bt)) {
		t->size = bt->size;
		t->is_signed = btf_kflag(bt);
	}
}

/* ---- programs: line info, from the program's BTF ---- */

struct prog_lines {
	unsigned int id;
	int n;
	struct bpf_line_info *li;
	struct btf *btf;
};

static struct prog_lines *progs;
static int nr_progs;

static struct prog_lines *prog_lines(unsigned int id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct prog_lines *pl;
	int i, fd;

	for (i = 0; i < nr_progs; i++)
		if (progs[i].id == id)
			return &progs[i];
	progs = realloc(progs, (nr_progs + 1) * sizeof(*progs));
	if (!progs) {
		perror("rtg-strace");
		exit(1);
	}
	pl = &progs[nr_progs++];
	memset(pl, 0, sizeof(*pl));
	pl->id = id;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return pl;
	if (bpf_prog_get_info_by_fd(fd, &info, &len) || !info.nr_line_info ||
	    info.line_info_rec_size != sizeof(struct bpf_line_info))
		goto out;
	pl->n = info.nr_line_info;
	pl->li = xcalloc(pl->n, sizeof(*pl->li));
	memset(&info, 0, sizeof(info));
	info.nr_line_info = pl->n;
	info.line_info_rec_size = sizeof(struct bpf_line_info);
	info.line_info = (unsigned long)pl->li;
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len) || !info.btf_id) {
		pl->n = 0;
		goto out;
	}
	pl->btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!pl->btf)
		pl->n = 0;
out:
	close(fd);
	return pl;
}

/* "file.bpf.c:31" of instruction insn of program id; 0 or -1 */
static int source_line(unsigned int id, unsigned int insn, char *file,
		       size_t len, int *line)
{
	struct prog_lines *pl = prog_lines(id);
	const struct bpf_line_info *best = NULL;
	const char *name, *base;
	int i;

	for (i = 0; i < pl->n; i++)
		if (pl->li[i].insn_off <= insn &&
		    (!best || pl->li[i].insn_off >= best->insn_off))
			best = &pl->li[i];
	if (!best)
		return -1;
	name = btf__name_by_offset(pl->btf, best->file_name_off);
	if (!name)
		return -1;
	base = strrchr(name, '/');
	snprintf(file, len, "%s", base ? base + 1 : name);
	*line = BPF_LINE_INFO_LINE_NUM(best->line_col);
	return 0;
}

/* ---- sites: debugfs bpf_rtguard/sites, resolved once each ---- */

struct site {
	unsigned int id, prog, insn, nargs, ptr, sign, int32, ret_size, func_id;
	int ret_ptr, ret_signed, may_be_null;
	char prog_name[32], func[128], module[64], kind[16];
	/* resolved */
	bool resolved, helper;
	char *name;			/* what the program calls */
	char *arg_names[MAX_ARGS];
	struct value_type arg_types[MAX_ARGS], ret_type;
	char file[64];
	int line;
};

static struct site *sites;
static int nr_sites;

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void read_sites(void)
{
	char line[512];
	struct site s;
	FILE *f = fopen(SITES, "r");
	int i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		memset(&s, 0, sizeof(s));
		if (sscanf(line, "site=%u prog=%u name=%31s insn=%u func=%127s module=%63s kind=%15s id=%u nargs=%u ptr=%x signed=%x int32=%x ret_size=%u ret_ptr=%d ret_signed=%d may_be_null=%d",
			   &s.id, &s.prog, s.prog_name, &s.insn, s.func, s.module,
			   s.kind, &s.func_id, &s.nargs, &s.ptr, &s.sign, &s.int32,
			   &s.ret_size, &s.ret_ptr, &s.ret_signed, &s.may_be_null) != 16 ||
		    !s.prog)
			continue;
		for (i = 0; i < nr_sites; i++)
			if (sites[i].id == s.id)
				break;
		if (i < nr_sites)
			continue;
		sites = realloc(sites, (nr_sites + 1) * sizeof(*sites));
		if (!sites) {
			perror("rtg-strace");
			exit(1);
		}
		sites[nr_sites++] = s;
	}
	fclose(f);
	qsort(sites, nr_sites, sizeof(*sites), cmp_site);
}

/* Names and types of a site's arguments and result, its source line. */
static void resolve_site(struct site *s)
{
	const struct helper_def *h;
	unsigned int i;

	s->resolved = true;
	s->nargs = s->nargs > MAX_ARGS ? MAX_ARGS : s->nargs;
	if (source_line(s->prog, s->insn, s->file, sizeof(s->file), &s->line))
		s->line = 0;
	h = !strcmp(s->kind, "helper") ? helper_by_id(s->func_id) : NULL;
	if (h) {
		char params[512], *p, *save = NULL;

		s->helper = true;
		s->name = xstrdup(h->name);
		snprintf(params, sizeof(params), "%s", h->ret);
		c_type(trim(params), &s->ret_type);
		snprintf(params, sizeof(params), "%s", h->params);
		i = 0;
		for (p = strtok_r(params, ",", &save); p && i < MAX_ARGS;
		     p = strtok_r(NULL, ",", &save)) {
			char *decl = trim(p), *name;

			if (!strcmp(decl, "void"))
				break;
			name = decl + strlen(decl);
			while (name > decl && (name[-1] == '_' ||
					       (name[-1] >= 'a' && name[-1] <= 'z') ||
					       (name[-1] >= 'A' && name[-1] <= 'Z') ||
					       (name[-1] >= '0' && name[-1] <= '9')))
				name--;
			s->arg_names[i] = xstrdup(name);
			*name = 0;
			c_type(trim(decl), &s->arg_types[i]);
			i++;
		}
		return;
	}
	s->name = xstrdup(s->func);
	if (!strcmp(s->kind, "kfunc")) {
		struct btf *btf = btf_of(s->module);
		const struct btf_type *fn, *proto;
		const struct btf_param *pa;
		int id;

		id = btf ? btf__find_by_name_kind(btf, s->func, BTF_KIND_FUNC) : -1;
		fn = id > 0 ? btf__type_by_id(btf, id) : NULL;
		proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
		if (!proto || !btf_is_func_proto(proto))
			return;
		pa = btf_params(proto);
		for (i = 0; i < btf_vlen(proto) && i < MAX_ARGS; i++) {
			s->arg_names[i] = xstrdup(btf__name_by_offset(btf, pa[i].name_off) ?: "");
			btf_value_type(btf, pa[i].type, &s->arg_types[i]);
		}
		btf_value_type(btf, proto->type, &s->ret_type);
	}
}

static struct site *find_site(unsigned int id, bool reread)
{
	struct site key = { .id = id }, *s;

	s = bsearch(&key, sites, nr_sites, sizeof(*sites), cmp_site);
	if (!s && reread) {
		/* a program loaded since the last look */
		read_sites();
		s = bsearch(&key, sites, nr_sites, sizeof(*sites), cmp_site);
	}
	if (s && !s->resolved)
		resolve_site(s);
	return s;
}

/* ---- records ---- */

struct record {
	unsigned long long ts;	/* trace clock, ns, when the call had ended */
	unsigned long long end;	/* the CPU's TSC, when the call had ended */
	unsigned long long args[MAX_ARGS], ret, cycles;
	unsigned int site, cpu;
	int pid;
};

static struct record *recs;
static size_t nr_recs, max_recs;
static unsigned long long lost_rb, torn;
static bool lost_rb_unknown;

static unsigned long long get_uint(const unsigned char *data, struct field f)
{
	unsigned long long v = 0;

	memcpy(&v, data + f.offset, f.size < 8 ? f.size : 8);
	return v;
}

static unsigned long long cycles_ns(unsigned long long cycles);

/*
 * One rtg_call record: the calls it carries, each timed back from the
 * record's timestamp by the TSC cycles from the call's end to tsc.
 */
static void add_record(const unsigned char *data, unsigned int len,
		       unsigned long long ts, unsigned int cpu)
{
	unsigned int loc, off, size, i;
	unsigned long long tsc;

	if (len < (unsigned int)(ev.recs.offset + 4) ||
	    get_uint(data, ev.common_type) != (unsigned int)ev.id)
		return;
	loc = get_uint(data, ev.recs);
	off = loc & 0xffff;
	size = loc >> 16;
	tsc = get_uint(data, ev.tsc);
	if (off + size > len)
		return;
	for (i = 0; i + sizeof(struct call_rec) <= size; i += sizeof(struct call_rec)) {
		struct call_rec c;
		struct record *r;

		memcpy(&c, data + off + i, sizeof(c));
		if (nr_recs == max_recs) {
			max_recs = max_recs ? 2 * max_recs : 4096;
			recs = realloc(recs, max_recs * sizeof(*recs));
			if (!recs) {
				perror("rtg-strace");
				exit(1);
			}
		}
		r = &recs[nr_recs++];
		r->ts = ts - (tsc > c.end ? cycles_ns(tsc - c.end) : 0);
		r->end = c.end;
		r->cpu = cpu;
		r->pid = (int)c.pid;
		memcpy(r->args, c.args, sizeof(r->args));
		r->ret = c.ret;
		r->cycles = c.cycles;
		r->site = c.site;
	}
}

/*
 * One ring buffer page: a header (timestamp, commit with the missed-events
 * flags) and events, each a 32-bit header (type_len:5, time_delta:27).
 */
#define RB_MISSED_EVENTS	(1U << 31)
#define RB_MISSED_STORED	(1U << 30)
#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31

static void parse_page(const unsigned char *buf, size_t len, unsigned int cpu)
{
	unsigned long long ts = get_uint(buf, page.timestamp);
	unsigned long long commit = get_uint(buf, page.commit);
	const unsigned char *data = buf + page.data.offset, *p = data, *end;
	unsigned long long size = commit & ~(unsigned long long)(RB_MISSED_EVENTS | RB_MISSED_STORED);

	if (size > len - page.data.offset)
		size = len - page.data.offset;
	end = data + size;
	if (commit & RB_MISSED_EVENTS) {
		if ((commit & RB_MISSED_STORED) && end + sizeof(long) <= buf + len) {
			unsigned long missed;

			memcpy(&missed, end, sizeof(missed));
			lost_rb += missed;
		} else {
			lost_rb_unknown = true;
		}
	}
	while (p + 4 <= end) {
		uint32_t hdr, a0;
		unsigned int type_len, delta, dlen;

		memcpy(&hdr, p, 4);
		type_len = hdr & 31;
		delta = hdr >> 5;
		a0 = 0;
		if (p + 8 <= end)
			memcpy(&a0, p + 4, 4);
		switch (type_len) {
		case TYPE_PADDING:
			if (!delta)
				return;		/* the rest of the page is empty */
			p += 4 + a0;
			continue;
		case TYPE_TIME_EXTEND:
			ts += ((unsigned long long)a0 << 27) + delta;
			p += 8;
			continue;
		case TYPE_TIME_STAMP:
			ts = (ts & ~((1ULL << 59) - 1)) |
			     (((unsigned long long)a0 << 27) + delta);
			p += 8;
			continue;
		case 0:
			ts += delta;
			dlen = a0 - 4;
			if (p + 8 + dlen > end)
				return;
			add_record(p + 8, dlen, ts, cpu);
			p += 8 + ((dlen + 3) & ~3U);
			continue;
		default:
			ts += delta;
			dlen = type_len * 4;
			if (p + 4 + dlen > end)
				return;
			add_record(p + 4, dlen, ts, cpu);
			p += 4 + dlen;
		}
	}
}

static int cpu_fds[MAX_CPUS], nr_cpu_fds;

static int open_cpus(void)
{
	char path[128];
	int cpu, fd;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/trace_pipe_raw", cpu);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			if (errno == ENOENT)
				break;
			cpu_fds[cpu] = -1;
			continue;
		}
		cpu_fds[cpu] = fd;
		nr_cpu_fds = cpu + 1;
	}
	if (!nr_cpu_fds) {
		perror("rtg-strace: open " TRACEFS "/per_cpu/cpu0/trace_pipe_raw");
		return -1;
	}
	return 0;
}

/* Every page each CPU's buffer holds now. */
static void drain(void)
{
	size_t psize = page.data.offset + page.data.size;
	unsigned char *buf = xcalloc(1, psize);
	int cpu;

	/* calls bpf_rtguard still holds, batched per CPU, go to the buffer */
	write_file(FLUSH, "1");
	for (cpu = 0; cpu < nr_cpu_fds; cpu++) {
		ssize_t n;

		if (cpu_fds[cpu] < 0)
			continue;
		while ((n = read(cpu_fds[cpu], buf, psize)) > 0) {
			parse_page(buf, n, cpu);
			memset(buf, 0, psize);
		}
	}
	free(buf);
}

/* ---- output ---- */

static FILE *out;
static bool json, summary;
static long want_prog = -1;
static const char *want_name;
static char **want_funcs;
static int nr_want_funcs;
static unsigned int tsc_khz;
static unsigned long long shown;

struct func_stats {
	char *name;
	unsigned long long calls, errors, ns;
};

static struct func_stats *stats;
static int nr_stats;

static unsigned long long cycles_ns(unsigned long long cycles)
{
	if (!tsc_khz)
		return cycles;
	return (unsigned long long)((__uint128_t)cycles * 1000000 / tsc_khz);
}

/* An integer of its type's size and sign. */
static long long as_integer(unsigned long long v, int size, bool is_signed)
{
	if (size > 0 && size < 8) {
		unsigned int bits = size * 8;

		v &= (1ULL << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~((1ULL << bits) - 1);
	}
	return (long long)v;
}

/* A helper's result that is a negative errno, or 0. */
static int helper_errno(const struct site *s, unsigned long long v)
{
	long long x = (long long)v;

	if (!s->helper || s->ret_type.ptr || !s->ret_type.is_signed)
		return 0;
	return x < 0 && x >= -4095 ? (int)-x : 0;
}

static const char *errno_name(int e)
{
	const char *n = e ? strerrorname_np(e) : NULL;

	return n ? n : "";
}

/*
 * One value: a pointer in hex with its type (NULL for 0), an integer of
 * its type. Without a type: as the verifier described it (pointer,
 * signed, 32-bit), else in hex.
 */
static void format_value(char *buf, size_t len, unsigned long long v,
			 const struct value_type *t, bool ptr, bool is_signed,
			 int size, bool for_json)
{
	if (t && t->known) {
		ptr = t->ptr;
		is_signed = t->is_signed;
		size = t->size;
	}
	if (ptr) {
		if (!v)
			snprintf(buf, len, for_json ? "null" : "NULL");
		else if (for_json)
			snprintf(buf, len, "\"0x%llx\"", v);
		else if (t && t->known)
			snprintf(buf, len, "(%s)0x%llx", t->name, v);
		else
			snprintf(buf, len, "0x%llx", v);
		return;
	}
	/* unsafe pointers given to helpers as plain u64: in hex */
	if (!is_signed && size == 8 && v >= 0xffff800000000000ULL) {
		snprintf(buf, len, for_json ? "\"0x%llx\"" : "0x%llx", v);
		return;
	}
	if (is_signed)
		snprintf(buf, len, "%lld", as_integer(v, size, true));
	else
		snprintf(buf, len, "%llu", (unsigned long long)as_integer(v, size, false));
}

static void json_string(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	buf[n++] = '"';
	for (; *s && n + 8 < len; s++) {
		if (*s == '"' || *s == '\\')
			buf[n++] = '\\';
		if ((unsigned char)*s < 0x20)
			continue;
		buf[n++] = *s;
	}
	buf[n++] = '"';
	buf[n] = 0;
}

static bool selected(const struct site *s)
{
	int i;

	if (want_prog >= 0 && s->prog != want_prog)
		return false;
	if (want_name && strcmp(s->prog_name, want_name))
		return false;
	if (!nr_want_funcs)
		return true;
	for (i = 0; i < nr_want_funcs; i++)
		if (!strcmp(want_funcs[i], s->name) || !strcmp(want_funcs[i], s->func))
			return true;
	return false;
}

static void count_call(const struct site *s, const struct record *r)
{
	struct func_stats *fs = NULL;
	int i;

	for (i = 0; i < nr_stats; i++)
		if (!strcmp(stats[i].name, s->name))
			fs = &stats[i];
	if (!fs) {
		stats = realloc(stats, (nr_stats + 1) * sizeof(*stats));
		if (!stats) {
			perror("rtg-strace");
			exit(1);
		}
		fs = &stats[nr_stats++];
		memset(fs, 0, sizeof(*fs));
		fs->name = s->name;
	}
	fs->calls++;
	fs->errors += helper_errno(s, r->ret) != 0;
	fs->ns += cycles_ns(r->cycles);
}

static void print_call(const struct site *s, const struct record *r)
{
	unsigned long long dur = cycles_ns(r->cycles);
	unsigned long long start = r->ts > dur ? r->ts - dur : 0;
	char line[2048], val[256], str[256];
	unsigned int i, nargs = s->nargs;
	size_t n = 0;
	int e;

#define ADD(...) (n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0, __VA_ARGS__))
	if (json) {
		ADD("{\"time\":%llu.%06llu,\"cpu\":%u,\"pid\":%d,\"prog_id\":%u,",
		    start / 1000000000, start % 1000000000 / 1000, r->cpu, r->pid, s->prog);
		json_string(str, sizeof(str), s->prog_name);
		ADD("\"prog\":%s,\"insn\":%u,", str, s->insn);
		json_string(str, sizeof(str), s->line ? s->file : "");
		ADD("\"file\":%s,\"line\":%d,", str, s->line);
		json_string(str, sizeof(str), s->name);
		ADD("\"func\":%s,\"kind\":\"%s\",\"args\":[", str, s->kind);
		for (i = 0; i < nargs; i++) {
			const struct value_type *t = &s->arg_types[i];

			format_value(val, sizeof(val), r->args[i], t, s->ptr & 1 << i,
				     s->sign & 1 << i, s->int32 & 1 << i ? 4 : 8, true);
			json_string(str, sizeof(str), s->arg_names[i] ?: "");
			ADD("%s{\"name\":%s,", i ? "," : "", str);
			json_string(str, sizeof(str), t->known ? t->name : "");
			ADD("\"type\":%s,\"value\":%s}", str, val);
		}
		ADD("]");
		if (s->ret_size) {
			format_value(val, sizeof(val), r->ret, &s->ret_type, s->ret_ptr,
				     s->ret_signed, s->ret_size, true);
			json_string(str, sizeof(str), s->ret_type.known ? s->ret_type.name : "");
			ADD(",\"ret\":%s,\"ret_type\":%s", val, str);
			e = helper_errno(s, r->ret);
			if (e)
				ADD(",\"errno\":\"%s\"", errno_name(e));
		}
		ADD(",\"dur_ns\":%llu}", dur);
		fprintf(out, "%s\n", line);
		return;
	}
	ADD("[%5llu.%06llu] %s+%u ", start / 1000000000, start % 1000000000 / 1000,
	    s->prog_name, s->insn);
	if (s->line)
		ADD("%s:%d ", s->file, s->line);
	ADD("%s(", s->name);
	for (i = 0; i < nargs; i++) {
		format_value(val, sizeof(val), r->args[i], &s->arg_types[i],
			     s->ptr & 1 << i, s->sign & 1 << i,
			     s->int32 & 1 << i ? 4 : 8, false);
		if (s->arg_names[i] && s->arg_names[i][0])
			ADD("%s%s=%s", i ? ", " : "", s->arg_names[i], val);
		else
			ADD("%s%s", i ? ", " : "", val);
	}
	ADD(")");
	if (s->ret_size) {
		format_value(val, sizeof(val), r->ret, &s->ret_type, s->ret_ptr,
			     s->ret_signed, s->ret_size, false);
		ADD(" = %s", val);
		e = helper_errno(s, r->ret);
		if (e)
			ADD(" %s", errno_name(e));
	}
	if (dur < 1000)
		ADD(" <%lluns>", dur);
	else
		ADD(" <%llu.%lluus>", dur / 1000, dur % 1000 / 100);
#undef ADD
	fprintf(out, "%s\n", line);
}

static int cmp_record(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static const struct record *by_tsc_recs;

static int cmp_cpu_tsc(const void *a, const void *b)
{
	const struct record *x = &by_tsc_recs[*(const size_t *)a];
	const struct record *y = &by_tsc_recs[*(const size_t *)b];

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/*
 * Put the records of each CPU in the order of that CPU's TSC, in the
 * places the time order gave them. A record's time is its batch's trace
 * time less the TSC cycles since the call ended, converted with tsc_khz:
 * the error of that grows with the time between a call's end and its
 * batch's write (up to a tick for a batch the lazy irq_work writes), so
 * two calls of one CPU that ended close together, written in two
 * batches, could come out swapped. Between CPUs the time order stands.
 */
static void order_cpus_by_tsc(void)
{
	static struct record *tmp;
	static size_t *ord, cap;
	size_t i, j, *next = NULL;
	unsigned int max_cpu = 0;

	if (nr_recs < 2)
		return;
	if (cap < nr_recs) {
		free(tmp);
		free(ord);
		cap = nr_recs;
		tmp = malloc(cap * sizeof(*tmp));
		ord = malloc(cap * sizeof(*ord));
		if (!tmp || !ord) {
			perror("rtg-strace");
			exit(1);
		}
	}
	memcpy(tmp, recs, nr_recs * sizeof(*recs));
	for (i = 0; i < nr_recs; i++) {
		ord[i] = i;
		if (tmp[i].cpu > max_cpu)
			max_cpu = tmp[i].cpu;
	}
	by_tsc_recs = tmp;
	qsort(ord, nr_recs, sizeof(*ord), cmp_cpu_tsc);
	/* where each CPU's records begin in ord */
	next = calloc(max_cpu + 1, sizeof(*next));
	if (!next) {
		perror("rtg-strace");
		exit(1);
	}
	for (i = nr_recs; i-- > 0;)
		next[tmp[ord[i]].cpu] = i;
	for (i = 0; i < nr_recs; i++) {
		j = next[tmp[i].cpu]++;
		recs[i] = tmp[ord[j]];
	}
	free(next);
}

/* Print (or count) the records read so far, in time order. */
static void flush_records(void)
{
	bool reread = true;
	size_t i;

	qsort(recs, nr_recs, sizeof(*recs), cmp_record);
	order_cpus_by_tsc();
	for (i = 0; i < nr_recs; i++) {
		const struct record *r = &recs[i];
		struct site *s;

		if (!r->site) {
			torn++;	/* its arguments were overwritten: lost */
			continue;
		}
		s = find_site(r->site, reread);
		if (!s) {
			reread = false;	/* once per batch */
			if (want_prog < 0 && !want_name && !nr_want_funcs && !summary)
				fprintf(out, "site#%u(0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx) = 0x%llx (site of a freed program)\n",
					r->site, r->args[0], r->args[1], r->args[2],
					r->args[3], r->args[4], r->ret);
			continue;
		}
		if (!selected(s))
			continue;
		shown++;
		if (summary)
			count_call(s, r);
		else
			print_call(s, r);
	}
	nr_recs = 0;
	fflush(out);
}

static int cmp_stats(const void *a, const void *b)
{
	const struct func_stats *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* strace -c: per function, share of the time, time, calls, errors. */
static void print_summary(void)
{
	unsigned long long ns = 0, calls = 0, errors = 0;
	static const char *const dash =
		"------ ----------- ----------- --------- --------- ----------------";
	int i;

	qsort(stats, nr_stats, sizeof(*stats), cmp_stats);
	for (i = 0; i < nr_stats; i++) {
		ns += stats[i].ns;
		calls += stats[i].calls;
		errors += stats[i].errors;
	}
	fprintf(out, "%6s %11s %11s %9s %9s %s\n", "% time", "seconds",
		"usecs/call", "calls", "errors", "function");
	fprintf(out, "%s\n", dash);
	for (i = 0; i < nr_stats; i++) {
		const struct func_stats *fs = &stats[i];

		fprintf(out, "%6.2f %11.6f %11llu %9llu %9llu %s\n",
			ns ? 100.0 * fs->ns / ns : 0.0, fs->ns / 1e9,
			fs->ns / 1000 / fs->calls, fs->calls, fs->errors, fs->name);
	}
	fprintf(out, "%s\n", dash);
	fprintf(out, "%6.2f %11.6f %11llu %9llu %9llu total\n", 100.0, ns / 1e9,
		calls ? ns / 1000 / calls : 0, calls, errors);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-f] [-t SECONDS] [-p PROG_ID] [-n PROG_NAME] [-e FUNC[,FUNC...]]\n"
		"       %*s [-c] [-j] [-o FILE]\n"
		"       %s --enable | --disable | --clear\n"
		"  -f  follow until interrupted (or -t SECONDS)   -c  summary per function\n"
		"  -e  only these functions                      -j  one JSON object per call\n"
		"  -p  only program PROG_ID, -n  only programs named PROG_NAME, -o  write to FILE\n",
		prog, (int)strlen(prog), "", prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "enable", no_argument, NULL, 'E' },
		{ "disable", no_argument, NULL, 'D' },
		{ "clear", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long lost_module;
	const char *outfile = NULL;
	bool follow = false;
	long seconds = 0;
	time_t end = 0;
	char *p, *save = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "ft:p:n:e:co:jl", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = true;
			break;
		case 't':
			seconds = strtol(optarg, NULL, 10);
			break;
		case 'p':
			want_prog = strtol(optarg, NULL, 10);
			break;
		case 'n':
			want_name = optarg;
			break;
		case 'e':
			if (!strncmp(optarg, "trace=", 6))
				optarg += 6;
			for (p = strtok_r(optarg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
				want_funcs = realloc(want_funcs, (nr_want_funcs + 1) * sizeof(char *));
				if (!want_funcs)
					return 1;
				want_funcs[nr_want_funcs++] = p;
			}
			break;
		case 'c':
			summary = true;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'l':	/* lost records are always reported */
			break;
		case 'E':
			write_file(TRACEFS "/buffer_size_kb", "8192");
			return write_file(EVENT_DIR "/enable", "1") ? 1 : 0;
		case 'D':
			/* the calls still waiting in bpf_rtguard first */
			write_file(FLUSH, "1");
			return write_file(EVENT_DIR "/enable", "0") ? 1 : 0;
		case 'C':
			return write_file(TRACEFS "/trace", "") ? 1 : 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind < argc || (json && summary)) {
		usage(argv[0]);
		return 2;
	}
	out = outfile ? fopen(outfile, "w") : stdout;
	if (!out) {
		perror(outfile);
		return 1;
	}
	libbpf_set_print(NULL);
	if (read_layout() || open_cpus())
		return 1;
	tsc_khz = stat_value("tsc_khz");
	if (!tsc_khz)
		fprintf(stderr, "rtg-strace: no tsc_khz in " STATS ": durations in cycles\n");
	read_sites();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (seconds)
		end = time(NULL) + seconds;
	for (;;) {
		drain();
		flush_records();
		if (!follow || stop || (end && time(NULL) >= end))
			break;
		usleep(100000);
	}
	/* what arrived until the end */
	drain();
	flush_records();
	if (summary)
		print_summary();
	fflush(out);
	lost_module = stat_value("trace_lost");
	fprintf(stderr, "rtg-strace: %llu calls, %llu%s records lost\n", shown,
		lost_rb + torn + lost_module, lost_rb_unknown ? "+" : "");
	if (lost_rb + torn + lost_module || lost_rb_unknown)
		fprintf(stderr, "rtg-strace: lost: %llu%s dropped by the trace buffer, %llu overwritten in flight, %llu not recorded by bpf_rtguard\n",
			lost_rb, lost_rb_unknown ? "+" : "", torn, lost_module);
	return 0;
}
