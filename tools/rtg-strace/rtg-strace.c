// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtg-strace: print bpf_rtguard debug-mode records strace-style, one call
 * per line:
 *
 *   [   16.070604] test_debug_mode+26 debugmode.bpf.c:31 bpf_task_from_pid(pid=64) = (struct task_struct *)0xffff888000a62000 <16.0us>
 *
 * Usage: rtg-strace [OPTIONS] [-f] [-t SECONDS]
 *        rtg-strace [OPTIONS] -- CMD [ARGS...]
 *        rtg-strace [OPTIONS] -P PID
 *        rtg-strace [-g] --enable | --disable | --clear | --help
 * OPTIONS: [-p PROG_ID] [-n PROG_NAME] [-e FUNC[,FUNC...]] [-c | -j | -g] [-o FILE]
 *
 * With a command, rtg-strace traces the programs that command and its
 * children load from now on (debugfs bpf_rtguard/trace_tasks: the
 * kernel loads them in debug mode, no flag in the loader needed), prints
 * their calls while it runs and exits with its status; with -P, those a
 * running process and its children load until it exits or rtg-strace is
 * interrupted.
 *
 * Records are read the way trace-cmd reads them: binary, from each CPU's
 * tracefs per_cpu/cpuN/trace_pipe_raw (ring buffer pages, laid out as
 * events/header_page says), the fields found at the offsets the event's
 * format file gives. A record carries up to 48 calls of one CPU, each
 * only what changes per call (site number, arguments, result, end and
 * duration in TSC cycles, task): bpf_rtguard batches them, and writes
 * what waits when trace_flush is written, as rtg-strace does before it
 * reads, at the CPU's next tick, and when a task exits; what a site is
 * comes once from debugfs bpf_rtguard/sites, the names and types of
 * arguments and results from BTF (kfuncs: vmlinux or module BTF) or from
 * the helper's prototype bpf_rtguard lists there (the kernel's UAPI
 * header documents it), the map a map helper is called with from the
 * same line, the source line from the program's BTF line info.
 *
 * With -- CMD or -P, records are read from a trace instance of
 * rtg-strace's own (instances/rtg-strace-PID, removed at exit), so that
 * other readers keep the top-level buffer, its events and its size;
 * otherwise from the top-level buffer, which --enable fills.
 *
 * Reading consumes the records. Without -f, rtg-strace prints what the
 * buffer holds and exits; with -f it follows until interrupted or for -t
 * seconds. -c prints a summary per function instead of the calls, -j
 * one JSON object per call, -o writes to FILE. Lost records (dropped by
 * the trace buffer) are always reported on stderr:
 *
 *   rtg-strace: 17 calls, 0 records lost
 *
 * --enable turns the bpf_rtguard:rtg_call event on (and makes the buffer
 * 8 MiB per CPU), --disable turns it off, --clear empties the buffer.
 *
 * -g needs the records of runs, which bpf_rtguard writes only while its
 * trace_runs parameter is set (--enable -g sets it) or its debugfs
 * trace_runs is open (-g with -- CMD or -P holds it open).
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
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "rtguard_rec.h"

#define TRACEFS "/sys/kernel/tracing"
#define EVENT_DIR TRACEFS "/events/bpf_rtguard/rtg_call"
#define SITES "/sys/kernel/debug/bpf_rtguard/sites"
#define STATS "/sys/kernel/debug/bpf_rtguard/stats"
#define PROGS "/sys/kernel/debug/bpf_rtguard/progs"
#define TRACE_TASKS "/sys/kernel/debug/bpf_rtguard/trace_tasks"
#define FLUSH "/sys/kernel/debug/bpf_rtguard/trace_flush"
#define TRACE_RUNS "/sys/module/bpf_rtguard/parameters/trace_runs"
#define TRACE_RUNS_HOLD "/sys/kernel/debug/bpf_rtguard/trace_runs"
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

/* one call in a record's recs: up to RTG_TRACE_BATCH of one CPU per record */
_Static_assert(sizeof(struct rtg_call_rec) == RTG_CALL_REC_SIZE,
	       "struct rtg_call_rec as the module writes it");

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

/* A C type as the kernel's UAPI header writes it (debugfs sites: proto=). */
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
	int n, nfi;
	struct bpf_line_info *li;
	struct bpf_func_info *fi;
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
	/* the BPF functions, for the frames of -g */
	if (info.func_info_rec_size == sizeof(struct bpf_func_info))
		pl->nfi = info.nr_func_info;
	pl->fi = pl->nfi ? xcalloc(pl->nfi, sizeof(*pl->fi)) : NULL;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = pl->n;
	info.line_info_rec_size = sizeof(struct bpf_line_info);
	info.line_info = (unsigned long)pl->li;
	info.nr_func_info = pl->nfi;
	info.func_info_rec_size = sizeof(struct bpf_func_info);
	info.func_info = (unsigned long)pl->fi;
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len) || !info.btf_id) {
		pl->n = pl->nfi = 0;
		goto out;
	}
	pl->btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!pl->btf)
		pl->n = pl->nfi = 0;
out:
	close(fd);
	return pl;
}

/* The BPF function fidx (its func_info index) of program id, or NULL. */
static const char *frame_name(unsigned int id, unsigned int fidx)
{
	struct prog_lines *pl = prog_lines(id);
	const struct btf_type *t;

	if ((int)fidx >= pl->nfi)
		return NULL;
	t = btf__type_by_id(pl->btf, pl->fi[fidx].type_id);
	return t ? btf__name_by_offset(pl->btf, t->name_off) : NULL;
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
	unsigned int id, prog, insn, fidx, nargs, ptr, sign, int32, ret_size, func_id;
	int ret_ptr, ret_signed, may_be_null;
	char prog_name[32], func[128], module[64], kind[16];
	char call[128], map[32], map_type[32], proto[512];
	/* resolved */
	bool resolved, helper, bpf_func;	/* bpf_func: kind=func */
	char *name;			/* what the program calls */
	const char *frame;		/* the BPF function the call is in */
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
	char line[1024], *proto;
	struct site s;
	FILE *f = fopen(SITES, "r");
	int i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		memset(&s, 0, sizeof(s));
		if (sscanf(line, "site=%u prog=%u name=%31s insn=%u fidx=%u func=%127s module=%63s kind=%15s id=%u nargs=%u ptr=%x signed=%x int32=%x ret_size=%u ret_ptr=%d ret_signed=%d may_be_null=%d call=%127s map=%31s map_type=%31s",
			   &s.id, &s.prog, s.prog_name, &s.insn, &s.fidx, s.func, s.module,
			   s.kind, &s.func_id, &s.nargs, &s.ptr, &s.sign, &s.int32,
			   &s.ret_size, &s.ret_ptr, &s.ret_signed, &s.may_be_null,
			   s.call, s.map, s.map_type) != 20)
			continue;
		/* prog=0: a program freed lately, whose sites are still listed */
		/* the last field: a helper's prototype, "RESULT(PARAMETERS)" */
		proto = strstr(line, " proto=");
		if (proto && strcmp(proto, " proto=-\n")) {
			snprintf(s.proto, sizeof(s.proto), "%s", proto + 7);
			s.proto[strcspn(s.proto, "\n")] = 0;
		}
		if (!strcmp(s.map, "-"))
			s.map[0] = 0;
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
	unsigned int i;
	char *paren;

	s->resolved = true;
	s->nargs = s->nargs > MAX_ARGS ? MAX_ARGS : s->nargs;
	if (source_line(s->prog, s->insn, s->file, sizeof(s->file), &s->line))
		s->line = 0;
	s->frame = frame_name(s->prog, s->fidx);
	/* what the program called, as bpf_rtguard names it */
	s->name = xstrdup(strcmp(s->call, "-") ? s->call : s->func);
	paren = s->proto[0] ? strchr(s->proto, '(') : NULL;
	if (paren && !strcmp(s->kind, "helper")) {
		char params[512], *p, *save = NULL;

		s->helper = true;
		*paren = 0;
		snprintf(params, sizeof(params), "%s", s->proto);
		c_type(trim(params), &s->ret_type);
		snprintf(params, sizeof(params), "%s", paren + 1);
		params[strcspn(params, ")")] = 0;
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
	s->bpf_func = !strcmp(s->kind, "func");
	if (!strcmp(s->kind, "kfunc") || s->bpf_func) {
		/* a BPF function is typed by its program's BTF */
		struct btf *btf = s->bpf_func ? prog_lines(s->prog)->btf : btf_of(s->module);
		const struct btf_type *fn, *proto;
		const struct btf_param *pa;
		int id;

		if (s->bpf_func)
			id = btf && s->func_id ? (int)s->func_id : -1;
		else
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
	unsigned int site, cpu, kind;	/* kind: enum rtg_rec_kind */
	int pid;
};

static struct record *recs;
static size_t nr_recs, max_recs;
static unsigned long long lost_rb;
static bool lost_rb_unknown;

static unsigned long long get_uint(const unsigned char *data, struct field f)
{
	unsigned long long v = 0;

	memcpy(&v, data + f.offset, f.size < 8 ? f.size : 8);
	return v;
}

static unsigned long long cycles_ns(unsigned long long cycles);
static unsigned int tsc_khz;

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
	for (i = 0; i + sizeof(struct rtg_call_rec) <= size; i += sizeof(struct rtg_call_rec)) {
		struct rtg_call_rec c;
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
		r->kind = c.kind;
		/* a run's duration is in ns, in full */
		if (c.kind == RTG_REC_RUN && tsc_khz)
			r->cycles = c.args[2] * tsc_khz / 1000000;
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

/*
 * The buffer the records are read from: the top-level one, which
 * --enable fills, or, while tracing a command or a process, a trace
 * instance of rtg-strace's own, so that other readers of the top-level
 * buffer keep its events, its size and its event switch.
 */
static char buf_dir[64] = TRACEFS;

static int open_cpus(void)
{
	char path[128];
	int cpu, fd;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", buf_dir, cpu);
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
		fprintf(stderr, "rtg-strace: open %s/per_cpu/cpu0/trace_pipe_raw: %s\n",
			buf_dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void close_cpus(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_fds; cpu++)
		if (cpu_fds[cpu] >= 0)
			close(cpu_fds[cpu]);
	nr_cpu_fds = 0;
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

/* A duration: "<12ns>", "<3.4us>" */
static size_t dur_text(char *buf, size_t len, unsigned long long dur)
{
	if (dur < 1000)
		return snprintf(buf, len, " <%lluns>", dur);
	return snprintf(buf, len, " <%llu.%lluus>", dur / 1000, dur % 1000 / 100);
}

/* " = value ERRNO <duration>" of a call */
static size_t result_text(char *line, size_t len, const struct site *s,
			  const struct record *r)
{
	char val[256];
	size_t n = 0;
	int e;

#define ADD(...) (n += snprintf(line + n, n < len ? len - n : 0, __VA_ARGS__))
	if (s->ret_size) {
		format_value(val, sizeof(val), r->ret, &s->ret_type, s->ret_ptr,
			     s->ret_signed, s->ret_size, false);
		ADD(" = %s", val);
		e = helper_errno(s, r->ret);
		if (e)
			ADD(" %s", errno_name(e));
	}
#undef ADD
	n += dur_text(line + n, n < len ? len - n : 0, cycles_ns(r->cycles));
	return n;
}

/* "func(arg=value, ...)", and with @result " = value ERRNO <duration>" */
static size_t call_text(char *line, size_t len, const struct site *s,
			const struct record *r, bool result)
{
	char val[256];
	unsigned int i;
	size_t n = 0;

#define ADD(...) (n += snprintf(line + n, n < len ? len - n : 0, __VA_ARGS__))
	ADD("%s(", s->name);
	for (i = 0; i < s->nargs; i++) {
		if (!i && s->map[0])
			snprintf(val, sizeof(val), "%s <%s>", s->map, s->map_type);
		else
			format_value(val, sizeof(val), r->args[i], &s->arg_types[i],
				     s->ptr & 1 << i, s->sign & 1 << i,
				     s->int32 & 1 << i ? 4 : 8, false);
		if (s->arg_names[i] && s->arg_names[i][0])
			ADD("%s%s=%s", i ? ", " : "", s->arg_names[i], val);
		else
			ADD("%s%s", i ? ", " : "", val);
	}
	ADD(")");
	if (result)
		n += result_text(line + n, n < len ? len - n : 0, s, r);
#undef ADD
	return n;
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
			ADD("\"type\":%s,\"value\":%s", str, val);
			if (!i && s->map[0]) {
				json_string(str, sizeof(str), s->map);
				ADD(",\"map\":%s", str);
				json_string(str, sizeof(str), s->map_type);
				ADD(",\"map_type\":%s", str);
			}
			ADD("}");
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
	n += call_text(line + n, n < sizeof(line) ? sizeof(line) - n : 0, s, r, true);
#undef ADD
	fprintf(out, "%s\n", line);
}

/* ---- -g: runs, with their calls nested ---- */

static bool graph;
/* run records read, for -g's note when none came */
static unsigned long long runs_read;
static struct record *pend;	/* calls waiting for the record of their run */
static size_t nr_pend, max_pend;

struct gnode {
	const struct record *r;
	struct site *s;
	unsigned long long start, end;	/* TSC */
};

static int cmp_gnode(const void *a, const void *b)
{
	const struct gnode *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the enclosing one first */
	return x->end > y->end ? -1 : x->end < y->end;
}

static void gline(unsigned long long ts, int depth, const char *text)
{
	if (ts)
		fprintf(out, "[%5llu.%06llu] ", ts / 1000000000, ts % 1000000000 / 1000);
	else
		fprintf(out, "%15s", "");	/* "[%5llu.%06llu] " */
	fprintf(out, "%*s%s\n", 2 * depth, "", text);
}

/* The trace clock time at which node g started. */
static unsigned long long gstart_ts(const struct gnode *g)
{
	unsigned long long dur = cycles_ns(g->end - g->start);

	return g->r->ts > dur ? g->r->ts - dur : 1;
}

static size_t print_gnode(struct gnode *g, size_t i, size_t n, int depth);

/*
 * The nodes inside node i, at depth; those made in a BPF function other
 * than ctx (a callback the helper called, or a BPF function whose call was
 * made before the event was on) grouped under its name.
 */
static size_t print_inside(struct gnode *g, size_t i, size_t n, int depth,
			   const char *ctx)
{
	const char *open = NULL, *f;
	char text[256];
	size_t k = i + 1;

	while (k < n && g[k].end <= g[i].end) {
		f = g[k].r->kind == RTG_REC_RELEASE ? ctx : g[k].s->frame;
		if (open && (!f || strcmp(f, open))) {
			gline(0, depth, "}");
			open = NULL;
		}
		if (!open && f && ctx && strcmp(f, ctx)) {
			snprintf(text, sizeof(text), "%s() {", f);
			gline(gstart_ts(&g[k]), depth, text);
			open = f;
		}
		k = print_gnode(g, k, n, depth + !!open);
	}
	if (open)
		gline(0, depth, "}");
	return k;
}

static size_t print_gnode(struct gnode *g, size_t i, size_t n, int depth)
{
	const struct record *r = g[i].r;
	struct site *s = g[i].s;
	char text[2048];
	size_t k, m;

	if (r->kind == RTG_REC_RELEASE) {
		snprintf(text, sizeof(text), "stop gave back 0x%llx (acquired by %s, %s+%u)",
			 r->args[0], s->name, s->prog_name, s->insn);
		gline(r->ts, depth, text);
		return i + 1;
	}
	if (r->kind == RTG_REC_RUN) {
		const char *main = frame_name(s->prog, 0);

		snprintf(text, sizeof(text), "%s() {  /* prog %u, cpu %u, pid %d */",
			 main ?: s->prog_name, s->prog, r->cpu, r->pid);
		gline(gstart_ts(&g[i]), depth, text);
		k = print_inside(g, i, n, depth + 1, main);
		/* most programs return an int */
		m = snprintf(text, sizeof(text), "} = %lld", r->ret >> 32 ? (long long)r->ret :
			     (long long)(int)r->ret);
		m += dur_text(text + m, sizeof(text) - m, r->args[2]);
		if (r->args[0])
			snprintf(text + m, sizeof(text) - m,
				 " stopped by the watchdog (%s), %llu given back",
				 r->args[0] == 1 ? "watchdog_ms" : "hold_limit_us",
				 r->args[1]);
		gline(0, depth, text);
		return k;
	}
	if (i + 1 < n && g[i + 1].end <= g[i].end) {
		m = call_text(text, sizeof(text), s, r, false);
		snprintf(text + m, sizeof(text) - m, " {");
		gline(gstart_ts(&g[i]), depth, text);
		/* a BPF function's calls are made in it */
		k = print_inside(g, i, n, depth + 1, s->bpf_func ? s->name : s->frame);
		text[0] = '}';
		result_text(text + 1, sizeof(text) - 1, s, r);
		gline(0, depth, text);
		return k;
	}
	call_text(text, sizeof(text), s, r, true);
	gline(gstart_ts(&g[i]), depth, text);
	return i + 1;
}

/* Hold a call until its run's record comes. */
static void pend_add(const struct record *r)
{
	if (nr_pend == max_pend) {
		max_pend = max_pend ? 2 * max_pend : 1024;
		pend = realloc(pend, max_pend * sizeof(*pend));
		if (!pend) {
			perror("rtg-strace");
			exit(1);
		}
	}
	pend[nr_pend++] = *r;
}

/* A run returned: print it with the calls it made, which it takes. */
static void print_run(const struct record *run, struct site *rs)
{
	struct gnode *g = xcalloc(nr_pend + 1, sizeof(*g));
	unsigned long long start = run->end - run->cycles;
	size_t i, n = 1, kept = 0;

	g[0] = (struct gnode){ run, rs, start, run->end };
	for (i = 0; i < nr_pend; i++) {
		const struct record *r = &pend[i];

		if (r->cpu == run->cpu && r->pid == run->pid &&
		    r->end >= start && r->end <= run->end) {
			g[n].r = r;
			g[n].s = find_site(r->site, false);
			g[n].end = r->end;
			g[n].start = r->kind == RTG_REC_RELEASE ? r->end : r->end - r->cycles;
			if (g[n].start < start)
				g[n].start = start;
			n++;
		}
	}
	qsort(g + 1, n - 1, sizeof(*g), cmp_gnode);
	print_gnode(g, 0, n, 0);
	/* what the run took */
	for (i = 0; i < nr_pend; i++) {
		const struct record *r = &pend[i];

		if (!(r->cpu == run->cpu && r->pid == run->pid &&
		      r->end >= start && r->end <= run->end))
			pend[kept++] = *r;
	}
	nr_pend = kept;
	free(g);
}

/* At the end: calls no run record came for (a run not bracketed). */
static void print_pending(void)
{
	size_t i;

	for (i = 0; i < nr_pend; i++) {
		struct site *s = find_site(pend[i].site, false);

		if (s && pend[i].kind == RTG_REC_CALL)
			print_call(s, &pend[i]);
	}
	nr_pend = 0;
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

		s = find_site(r->site, reread);
		if (!s) {
			reread = false;	/* once per batch */
			if (want_prog < 0 && !want_name && !nr_want_funcs && !summary &&
			    r->kind == RTG_REC_CALL)
				fprintf(out, "site#%u(0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx) = 0x%llx (site of a freed program)\n",
					r->site, r->args[0], r->args[1], r->args[2],
					r->args[3], r->args[4], r->ret);
			continue;
		}
		if (graph) {
			if (r->kind == RTG_REC_RUN) {
				runs_read++;
				if ((want_prog < 0 || s->prog == want_prog) &&
				    (!want_name || !strcmp(s->prog_name, want_name)))
					print_run(r, s);
			} else if (r->kind == RTG_REC_RELEASE || selected(s)) {
				shown += r->kind == RTG_REC_CALL;
				pend_add(r);
			}
			continue;
		}
		/* runs and what stops gave back: -g only */
		if (r->kind != RTG_REC_CALL || !selected(s))
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

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    rtg-strace - trace the helper and kfunc calls of BPF programs\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    rtg-strace [OPTIONS] -- CMD [ARGS...]\n"
	      "    rtg-strace [OPTIONS] -P PID\n"
	      "    rtg-strace [OPTIONS] [-f] [-t SECONDS]\n"
	      "    rtg-strace [-g] --enable | --disable | --clear | --help\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Prints each call a BPF program in debug mode makes, one per line:\n"
	      "    time, program+instruction, source line, function(argument=value, ...)\n"
	      "    = result, duration. Programs are in debug mode when loaded with\n"
	      "    BPF_F_DEBUG_MODE, while bpf_rtguard's debug=all, or by a process\n"
	      "    rtg-strace traces (-- CMD, -P). Debug mode is chosen at load: a\n"
	      "    program loaded before cannot be traced. Needs bpf_rtguard loaded,\n"
	      "    tracefs and debugfs mounted, and root.\n"
	      "\n"
	      "    -- CMD   run CMD; trace the programs it and its descendants load\n"
	      "             (reparented ones too: rtg-strace is their subreaper); exit\n"
	      "             with its status\n"
	      "    -P PID   trace the programs process PID and its descendants load\n"
	      "             from now on, until it exits or rtg-strace is interrupted\n"
	      "    -f       follow: print calls as they come, until interrupted\n"
	      "    -t SEC   follow for SEC seconds\n"
	      "    -p ID    only the program with id ID (bpftool prog show)\n"
	      "    -n NAME  only programs named NAME\n"
	      "    -e FUNC[,FUNC...]  only calls of these helpers, kfuncs or functions\n"
	      "    -c       a summary per function instead of the calls\n"
	      "    -g       each run of a program, its calls nested inside (calls of\n"
	      "             callbacks under the call that made them and the callback's\n"
	      "             name, calls of a BPF function inside that call), its result\n"
	      "             and duration, and what a watchdog stop gave back; runs are\n"
	      "             recorded while bpf_rtguard's trace_runs is set, which\n"
	      "             --enable -g sets; -g with -- CMD or -P records them while\n"
	      "             it traces\n"
	      "    -j       one JSON object per call\n"
	      "    -o FILE  write to FILE\n"
	      "    --enable, --disable  turn the bpf_rtguard:rtg_call event on (8 MiB per\n"
	      "             CPU buffer; with -g, and runs recorded) or off; --clear\n"
	      "             empties the trace buffer\n"
	      "\n"
	      "    Without -- CMD, -P, -f or -t, rtg-strace prints what the trace buffer\n"
	      "    holds and exits; reading consumes it. Lost records are counted on\n"
	      "    stderr.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    With -- CMD, the command's (128+N when killed by signal N). Else 0;\n"
	      "    1 on an error (one line on stderr); 2 on bad usage; 3 when records\n"
	      "    were lost.\n", f);
}

/* ---- what must be there before anything is read ---- */

/* One line naming what is missing. */
static int check_setup(void)
{
	if (access("/sys/module/bpf_rtguard", F_OK)) {
		fprintf(stderr, "rtg-strace: bpf_rtguard is not loaded (insmod bpf_rtguard.ko)\n");
		return -1;
	}
	if (access(TRACEFS "/events", F_OK)) {
		fprintf(stderr, "rtg-strace: tracefs is not mounted on " TRACEFS
			" (mount -t tracefs nodev " TRACEFS ")\n");
		return -1;
	}
	if (access(SITES, F_OK)) {
		fprintf(stderr, "rtg-strace: debugfs is not mounted on /sys/kernel/debug"
			" (mount -t debugfs nodev /sys/kernel/debug)\n");
		return -1;
	}
	return 0;
}

/* debug_mode= of program @id in debugfs progs; -1 when it is not listed. */
static int prog_debug_mode(unsigned int id)
{
	unsigned int pid;
	char line[512], *p;
	int mode = -1;
	FILE *f = fopen(PROGS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " debug_mode=");
		if (p && sscanf(line, "prog %u ", &pid) == 1 && pid == id)
			mode = atoi(p + 12);
	}
	fclose(f);
	return mode;
}

/* -p ID: a program that exists and is traced. */
static int check_prog(unsigned int id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0) {
		fprintf(stderr, "rtg-strace: -p %u: no such program\n", id);
		return -1;
	}
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		info.name[0] = 0;
	close(fd);
	if (prog_debug_mode(id) == 1)
		return 0;
	fprintf(stderr, "rtg-strace: -p %u: program %s is not in debug mode; a loaded program cannot be re-JITed: load it again under rtg-strace -- CMD, with BPF_F_DEBUG_MODE, or while debug=all\n",
		id, info.name[0] ? info.name : "(no name)");
	return -1;
}

/* Whether /proc/kallsyms has a function named @name. */
static bool kallsyms_has(const char *name)
{
	char line[512], sym[256], type;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, name);
	fclose(f);
	return found;
}

/* -e FUNC: a helper (bpf_NAME, BPF_FUNC_NAME in BTF), a kfunc or a function. */
static bool known_function(const char *name)
{
	struct btf *btf = btf_of(NULL);
	char helper[160];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	if (!btf)
		return kallsyms_has(name);
	if (!strncmp(name, "bpf_", 4)) {
		snprintf(helper, sizeof(helper), "BPF_FUNC_%s", name + 4);
		if (btf__find_by_name(btf, helper) > 0)
			return true;
	}
	if (btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0)
		return true;
	dir = opendir("/sys/kernel/btf");
	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "vmlinux"))
			continue;
		btf = btf_of(d->d_name);
		found = btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
	}
	if (dir)
		closedir(dir);
	return found || kallsyms_has(name);
}

/* ---- tracing what a process tree loads ---- */

static int trace_tasks_fd = -1;

/* Programs @pid loads from now on, and its children's, are loaded in debug mode. */
static int trace_process(pid_t pid)
{
	char nr[16];

	if (trace_tasks_fd < 0)
		trace_tasks_fd = open(TRACE_TASKS, O_RDWR | O_CLOEXEC);
	if (trace_tasks_fd < 0) {
		fprintf(stderr, "rtg-strace: %s: %s\n", TRACE_TASKS, strerror(errno));
		return -1;
	}
	snprintf(nr, sizeof(nr), "%d", pid);
	if (write(trace_tasks_fd, nr, strlen(nr)) < 0) {
		fprintf(stderr, "rtg-strace: cannot trace process %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* -P PID: say, in one line, that what it already loaded is not traced. */
static void report_loaded(pid_t pid)
{
	char path[64], fpath[330], line[128];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		snprintf(fpath, sizeof(fpath), "%s/%s", path, d->d_name);
		f = fopen(fpath, "r");
		while (f && fgets(line, sizeof(line), f))
			n += !strncmp(line, "prog_id:", 8);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	if (n)
		fprintf(stderr, "rtg-strace: process %d already holds %d program%s, not traced: debug mode is chosen at load, a loaded program cannot be re-JITed\n",
			pid, n, n == 1 ? "" : "s");
}

/*
 * Run argv, its programs loaded in debug mode. The kernel traces the
 * descendants of rtg-strace itself, which loads no program, and
 * rtg-strace is their child subreaper: a process whose parent exits
 * (a daemon's double fork) is reparented to rtg-strace, not to init, and
 * stays traced. The child waits until the kernel knows before it runs
 * the command.
 */
static pid_t start_command(char **argv)
{
	int go[2];
	pid_t pid;
	char c;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("rtg-strace: PR_SET_CHILD_SUBREAPER");
		return -1;
	}
	if (pipe2(go, O_CLOEXEC)) {
		perror("rtg-strace: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("rtg-strace: fork");
		return -1;
	}
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "rtg-strace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (trace_process(getpid())) {
		close(go[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go[1], "x", 1) != 1) {
		perror("rtg-strace: start the command");
		close(go[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(go[1]);
	return pid;
}

/*
 * Reap what ended of rtg-strace's children: the command, and processes
 * reparented to rtg-strace. Returns whether the command ended (*status).
 */
static bool reap(pid_t child, int *status)
{
	bool ended = false;
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == child) {
			*status = st;
			ended = true;
		}
	}
	return ended;
}

/* Turn the event off in rtg-strace's own instance and remove it, at exit. */
static void remove_instance(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/events/bpf_rtguard/rtg_call/enable", buf_dir);
	write_file(path, "0");
	close_cpus();
	if (rmdir(buf_dir))
		fprintf(stderr, "rtg-strace: rmdir %s: %s\n", buf_dir, strerror(errno));
}

/*
 * Make rtg-strace's own trace instance (8 MiB per CPU) and turn the event
 * on in it; records are read from it from now on. Returns 0 or -1 after
 * saying why.
 */
static int make_instance(void)
{
	char path[128];

	snprintf(buf_dir, sizeof(buf_dir), TRACEFS "/instances/rtg-strace-%d", getpid());
	if (mkdir(buf_dir, 0750)) {
		fprintf(stderr, "rtg-strace: mkdir %s: %s\n", buf_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", buf_dir);
	write_file(path, "8192");
	snprintf(path, sizeof(path), "%s/events/bpf_rtguard/rtg_call/enable", buf_dir);
	if (write_file(path, "1")) {
		fprintf(stderr, "rtg-strace: cannot enable the bpf_rtguard:rtg_call event in %s\n",
			buf_dir);
		rmdir(buf_dir);
		return -1;
	}
	atexit(remove_instance);
	return 0;
}

/* --enable, --disable or --clear (@action 'E', 'D', 'C'): the exit status */
static int buffer_action(int action)
{
	if (check_setup())
		return 1;
	switch (action) {
	case 'E':
		write_file(TRACEFS "/buffer_size_kb", "8192");
		if (graph && write_file(TRACE_RUNS, "1")) {
			fprintf(stderr, "rtg-strace: cannot set " TRACE_RUNS "\n");
			return 1;
		}
		return write_file(EVENT_DIR "/enable", "1") ? 1 : 0;
	case 'D':
		/* the calls still waiting in bpf_rtguard first */
		write_file(FLUSH, "1");
		return write_file(EVENT_DIR "/enable", "0") ? 1 : 0;
	default:
		return write_file(TRACEFS "/trace", "") ? 1 : 0;
	}
}

/* Whether bpf_rtguard's trace_runs parameter is set. */
static bool runs_recorded(void)
{
	char v[8] = "";
	FILE *f = fopen(TRACE_RUNS, "r");

	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = 0;
		fclose(f);
	}
	return v[0] == 'Y';
}

/*
 * While tracing with -g: runs recorded for as long as rtg-strace holds
 * debugfs trace_runs open (until it exits, however it exits). Returns 0
 * or -1 after saying why.
 */
static bool runs_held;

static int record_runs(void)
{
	if (open(TRACE_RUNS_HOLD, O_RDONLY | O_CLOEXEC) < 0) {
		fprintf(stderr, "rtg-strace: " TRACE_RUNS_HOLD ": %s\n", strerror(errno));
		return -1;
	}
	runs_held = true;
	return 0;
}

/* The value of option -@opt, a positive number, or -1 after saying why. */
static long positive(int opt, const char *arg, const char *what)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v <= 0 || end == arg) {
		fprintf(stderr, "rtg-strace: -%c %s: not %s\n", opt, arg, what);
		return -1;
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "enable", no_argument, NULL, 'E' },
		{ "disable", no_argument, NULL, 'D' },
		{ "clear", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outfile = NULL;
	bool follow = false;
	pid_t child = 0, traced = 0;
	int c, action = 0, status = 0;
	long seconds = 0;
	time_t end = 0;
	char *p, *save = NULL;

	/* "+": options end at the command */
	while ((c = getopt_long(argc, argv, "+ft:p:n:e:co:jlP:hg", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = true;
			break;
		case 't':
			seconds = positive(c, optarg, "a number of seconds");
			if (seconds < 0)
				return 2;
			break;
		case 'p':
			want_prog = positive(c, optarg, "a program id");
			if (want_prog < 0)
				return 2;
			break;
		case 'P':
			traced = positive(c, optarg, "a process id");
			if (traced < 0)
				return 2;
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
		case 'g':
			graph = true;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'l':	/* lost records are always reported */
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'E':
		case 'D':
		case 'C':
			action = c;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (action)
		return buffer_action(action);
	if (json + summary + graph > 1 || (traced && optind < argc)) {
		fprintf(stderr, "rtg-strace: %s\n", traced && optind < argc ?
			"-P and a command do not go together" :
			"-j, -c and -g do not go together");
		return 2;
	}
	if (check_setup())
		return 1;
	libbpf_set_print(NULL);
	if (want_prog > 0 && check_prog(want_prog))
		return 1;
	for (c = 0; c < nr_want_funcs; c++) {
		if (!known_function(want_funcs[c])) {
			fprintf(stderr, "rtg-strace: -e %s: no helper, kfunc or kernel function of that name\n",
				want_funcs[c]);
			return 1;
		}
	}
	if (traced && kill(traced, 0) && errno == ESRCH) {
		fprintf(stderr, "rtg-strace: -P %d: no such process\n", traced);
		return 1;
	}
	out = outfile ? fopen(outfile, "w") : stdout;
	if (!out) {
		fprintf(stderr, "rtg-strace: %s: %s\n", outfile, strerror(errno));
		return 1;
	}
	if (read_layout() || ((traced || optind < argc) && make_instance()) || open_cpus())
		return 1;
	if (graph && (traced || optind < argc) && record_runs())
		return 1;
	tsc_khz = stat_value("tsc_khz");
	if (!tsc_khz)
		fprintf(stderr, "rtg-strace: no tsc_khz in " STATS ": durations in cycles\n");
	read_sites();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (traced) {
		if (trace_process(traced))
			return 1;
		report_loaded(traced);
		follow = true;
	}
	if (optind < argc) {
		child = start_command(argv + optind);
		if (child < 0)
			return 1;
		follow = true;
	}
	if (seconds)
		end = time(NULL) + seconds;
	for (;;) {
		drain();
		flush_records();
		if (child && reap(child, &status))
			break;
		if (traced && kill(traced, 0) && errno == ESRCH)
			break;
		if (!follow || (!child && stop) || (end && time(NULL) >= end))
			break;
		usleep(100000);
	}
	/* what arrived until the end */
	drain();
	flush_records();
	if (trace_tasks_fd >= 0)
		close(trace_tasks_fd);
	if (summary)
		print_summary();
	if (graph)
		print_pending();
	fflush(out);
	if (graph && shown && !runs_read && !runs_held && !runs_recorded())
		fprintf(stderr, "rtg-strace: no run was recorded: bpf_rtguard's trace_runs is off (rtg-strace --enable -g, or -g with -- CMD or -P, records runs)\n");
	fprintf(stderr, "rtg-strace: %llu calls, %llu%s records lost\n", shown,
		lost_rb, lost_rb_unknown ? "+" : "");
	if (lost_rb || lost_rb_unknown)
		fprintf(stderr, "rtg-strace: lost: dropped by the trace buffer (a larger buffer_size_kb keeps more)\n");
	if (child)
		return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	return lost_rb ? 3 : 0;
}
