// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helpers.h"
#include "parsers.h"

#define DBG "/sys/kernel/debug/" MOD_RTGUARD "/"
#define TRACE "/sys/kernel/tracing/trace"

/* "prog_id prog_name insn count function [module]" */
int calls_read(struct rtg_call_site *sites, int max)
{
	FILE *f = fopen(DBG "calls", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct rtg_call_site *s = &sites[n];

		if (line[0] == '#')
			continue;
		if (sscanf(line, "prog %u %31[^:]: insn=%u count=%lu may_fail=%d func=%63s",
			   &s->prog_id, s->prog, &s->insn, &s->count, &s->may_fail,
			   s->func) == 6)
			n++;
	}
	fclose(f);
	return n;
}

/* "prog ID NAME: func_idx=N sites=N max_refs=N debug_mode=0|1 held_bytes=N" */
int progs_find(uint32_t id, struct rtg_prog_line *pl)
{
	FILE *f = fopen(DBG "progs", "r");
	char line[256];
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "prog %u %31[^:]: func_idx=%u sites=%u max_refs=%u debug_mode=%d held_bytes=%u",
			   &pl->id, pl->name, &pl->func_idx, &pl->sites, &pl->max_refs,
			   &pl->debug_mode, &pl->held_bytes) == 7 && pl->id == id)
			found = 0;
	}
	fclose(f);
	return found;
}

/*
 * "prog ID NAME: slots=N incomplete=N unmatched=N leftover=N stray=N
 * stops=N released=N reported=N stoppable=0|1 stop_ret=N unwind=0|1
 * described=0|1 partly=0|1 lazy=0|1 bare=0|1 run_area=BYTES", then indented: "  run pid=..." per run in flight
 * and, under it, one line per held object.
 */
int held_find(uint32_t id, struct rtg_held *h)
{
	FILE *f = fopen(DBG "held", "r");
	char line[512];
	bool in = false;
	int found = -ENOENT;
	size_t off = 0;

	memset(h, 0, sizeof(*h));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct rtg_held t = {};
		unsigned int pid;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "lazy_runs: %d", &h->lazy_runs) == 1)
			continue;
		if (sscanf(line, "lazy_exits: %d", &h->lazy_exits) == 1)
			continue;
		if (line[0] != ' ') {
			in = sscanf(line, "prog %u %31[^:]: slots=%u incomplete=%ld unmatched=%ld leftover=%ld stray=%ld stops=%ld released=%ld reported=%ld stoppable=%d stop_ret=%lld unwind=%d described=%d partly=%d lazy=%d bare=%d run_area=%u",
				    &pid, t.name, &t.slots, &t.incomplete,
				    &t.unmatched, &t.leftover, &t.stray, &t.stops,
				    &t.released, &t.reported, &t.stoppable,
				    &t.stop_ret, &t.unwind, &t.described,
				    &t.partly, &t.lazy, &t.bare, &t.run_area) == 18 && pid == id;
			if (in) {
				t.lazy_runs = h->lazy_runs;
				t.lazy_exits = h->lazy_exits;
				memcpy(h, &t, sizeof(t));
				off = 0;
				found = 0;
			}
			continue;
		}
		if (!in)
			continue;
		if (!strncmp(line, "  run pid=", 10))
			h->nruns++;
		if (off + strlen(line) < sizeof(h->text)) {
			strcpy(h->text + off, line);
			off += strlen(line);
		}
	}
	fclose(f);
	return found;
}

/* The line of a file whose first word is name (and second, up to ':', btf). */
static bool find_line(const char *file, const char *name, const char *btf,
		      char *out, size_t len)
{
	FILE *f = fopen(file, "r");
	char line[512], w1[128], w2[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %127[^: ]", w1, w2) != 2)
			continue;
		if (!strcmp(w1, name) && (!btf || !strcmp(w2, btf))) {
			found = true;
			snprintf(out, len, "%s", line);
			out[strcspn(out, "\n")] = 0;
		}
	}
	fclose(f);
	return found;
}

/* "acquire source_btf \"what\" -> release(args) stop=watchdog_release how" */
bool pairing_find(const char *acquire, const char *btf, char *line, size_t len)
{
	return find_line(DBG "pairing", acquire, btf, line, len);
}

/* "acquire source_btf: why" */
bool unpaired_find(const char *acquire, const char *btf, char *line, size_t len)
{
	return find_line(DBG "unpaired", acquire, btf, line, len);
}

/* "name btf flags nr_args ret_type arg0_type" */
int kfuncs_read(struct rtg_kfunc *kf, int max)
{
	FILE *f = fopen(DBG "kfuncs", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %63s %x", kf[n].name, kf[n].btf,
			   &kf[n].flags) == 3)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * "... rtg_acquire: prog=ID insn=N obj=HEX func=NAME"
 * "... rtg_release: prog=ID insn=N obj=HEX acq_insn=N func=NAME"
 */
int track_events_read(uint32_t id, struct track_event *ev, int max)
{
	FILE *f = fopen(TRACE, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		const char *acq = strstr(line, " rtg_acquire: ");
		const char *rel = strstr(line, " rtg_release: ");
		struct track_event *e = &ev[n];
		unsigned int prog;

		if (acq) {
			e->acquire = true;
			e->acq_insn = -1;
			if (sscanf(acq + 14, "prog=%u insn=%u obj=%lx acq_insn=%*d func=%63s", &prog,
				   &e->insn, &e->obj, e->func) == 4 && prog == id)
				n++;
		} else if (rel) {
			e->acquire = false;
			if (sscanf(rel + 14, "prog=%u insn=%u obj=%lx acq_insn=%d func=%63s",
				   &prog, &e->insn, &e->obj, &e->acq_insn, e->func) == 5 &&
			    prog == id)
				n++;
		}
	}
	fclose(f);
	return n;
}

int track_releases_of(const char *func)
{
	FILE *f = fopen(TRACE, "r");
	char line[512], want[96];
	int n = 0;

	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "func=%s", func);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		n += strstr(line, " rtg_release: ") && strstr(line, want);
	}
	fclose(f);
	return n;
}

int strace_start(void)
{
	return system(STRACE " --clear && " STRACE " --enable") ? -EIO : 0;
}

int strace_start_graph(void)
{
	return system(STRACE " --clear && " STRACE " -g --enable") ? -EIO : 0;
}

void strace_stop(void)
{
	if (system(STRACE " --disable"))
		fprintf(stderr, "rtg-strace --disable failed\n");
}

#define MAX_STRACE_LINES 16384

int strace_run(const char *args, char ***lines, unsigned long long *lost)
{
	static char *buf[MAX_STRACE_LINES];
	char cmd[256], l[2048];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), STRACE " %s 2>/tmp/strace.err", args);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(l, sizeof(l), p)) {
		l[strcspn(l, "\n")] = 0;
		if (n < MAX_STRACE_LINES) {
			free(buf[n]);
			buf[n++] = strdup(l);
		}
	}
	pclose(p);
	*lines = buf;
	if (lost) {
		FILE *e = fopen("/tmp/strace.err", "r");

		*lost = ~0ULL;
		if (e) {
			if (fscanf(e, "rtg-strace: %*u calls, %llu records lost", lost) != 1)
				*lost = ~0ULL;
			fclose(e);
		}
	}
	return n;
}

/* "[   time] name+insn [file:line ]func(args)...": the part after "name+insn " */
static const char *strace_after_site(const char *line)
{
	const char *p = strchr(line, ']');

	p = p ? strchr(p + 2, ' ') : NULL;
	return p ? p + 1 : "";
}

int strace_status(const char *args, char *err, size_t len)
{
	char cmd[512];
	FILE *e;
	int st;

	snprintf(cmd, sizeof(cmd), STRACE " %s >/tmp/strace.out 2>/tmp/strace.err", args);
	st = system(cmd);
	err[0] = 0;
	e = fopen("/tmp/strace.err", "r");
	if (e) {
		if (!fgets(err, len, e))
			err[0] = 0;
		err[strcspn(err, "\n")] = 0;
		fclose(e);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int trace_text_calls(const char *prog, char ***lines)
{
	static char *buf[MAX_STRACE_LINES];
	size_t plen = strlen(prog);
	bool in_event = false;
	char l[2048], *text;
	int n = 0;
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");

	if (!f)
		return -errno;
	while (fgets(l, sizeof(l), f)) {
		l[strcspn(l, "\n")] = 0;
		text = strstr(l, " rtg_call: ");
		if (text)
			text += strlen(" rtg_call: ");
		else if (in_event && !strncmp(l, "  ", 2))
			text = l + 2;
		in_event = text;
		if (!text || strncmp(text, prog, plen) || text[plen] != '+' ||
		    n == MAX_STRACE_LINES)
			continue;
		free(buf[n]);
		buf[n++] = strdup(text);
	}
	fclose(f);
	*lines = buf;
	return n;
}

int strace_lines(uint32_t id, char ***lines, unsigned long long *lost)
{
	char args[32];

	snprintf(args, sizeof(args), "-p %u", id);
	return strace_run(args, lines, lost);
}

int strace_summary_row(char **lines, int n, const char *func,
		       unsigned long long *calls, unsigned long long *errors)
{
	char name[128];
	double pct, secs;
	unsigned long long us;
	int i;

	for (i = 0; i < n; i++)
		if (sscanf(lines[i], "%lf %lf %llu %llu %llu %127s", &pct, &secs, &us,
			   calls, errors, name) == 6 && !strcmp(name, func))
			return 0;
	return -ENOENT;
}

/* A small JSON reader: whether s is one value, and where it ends. */
static const char *json_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *json_string(const char *s, char *out, size_t len)
{
	size_t n = 0;

	if (*s++ != '"')
		return NULL;
	for (; *s && *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s == '\\' && !*++s)
			return NULL;
		if (out && n + 1 < len)
			out[n++] = *s;
	}
	if (out)
		out[n] = 0;
	return *s == '"' ? s + 1 : NULL;
}

static const char *json_value(const char *s, int depth)
{
	s = json_skip_ws(s);
	if (depth > 16)
		return NULL;
	if (*s == '"')
		return json_string(s, NULL, 0);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = json_skip_ws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = json_string(json_skip_ws(s), NULL, 0);
				if (!s)
					return NULL;
				s = json_skip_ws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = json_value(s, depth + 1);
			if (!s)
				return NULL;
			s = json_skip_ws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (*s == '-' || (*s >= '0' && *s <= '9')) {
		char *end;

		strtod(s, &end);
		return end > s ? end : NULL;
	}
	return NULL;
}

int json_object_keys(const char *s, char keys[][32], int max)
{
	const char *end = json_value(s, 0);
	int n = 0;

	s = json_skip_ws(s);
	if (!end || *json_skip_ws(end) || *s != '{')
		return -EINVAL;
	/* the top-level keys: values were checked above */
	s = json_skip_ws(s + 1);
	while (*s == '"' && n < max) {
		s = json_string(s, keys[n++], 32);
		s = json_skip_ws(s);
		s = json_value(s + 1, 1);
		s = json_skip_ws(s);
		if (*s == ',')
			s = json_skip_ws(s + 1);
	}
	return n;
}

int json_get(const char *s, const char *key, char *val, size_t len)
{
	char want[64];
	const char *p, *end;

	snprintf(want, sizeof(want), "\"%s\":", key);
	p = strstr(s, want);
	if (!p)
		return -ENOENT;
	p += strlen(want);
	end = json_value(p, 1);
	if (!end)
		return -EINVAL;
	if (*p == '"')
		json_string(p, val, len);
	else
		snprintf(val, len, "%.*s", (int)(end - p), p);
	return 0;
}

const char *strace_call(const char *line)
{
	const char *p = strace_after_site(line);
	size_t tok = strcspn(p, " (");

	/* the source location, when the program has line info */
	if (p[tok] == ' ' && memchr(p, ':', tok))
		p += tok + 1;
	return p;
}

int strace_source(const char *line, char *file, size_t len, int *lineno)
{
	const char *p = strace_after_site(line);
	size_t tok = strcspn(p, " (");
	const char *colon = memchr(p, ':', tok);

	if (p[tok] != ' ' || !colon || (size_t)(colon - p) >= len)
		return -ENOENT;
	memcpy(file, p, colon - p);
	file[colon - p] = 0;
	*lineno = atoi(colon + 1);
	return 0;
}

int testmod_live(uint64_t *live)
{
	return read_u64(TESTMOD_DIR "live", live);
}

int testmod_waiting(uint64_t *n)
{
	return read_u64(TESTMOD_DIR "waiting", n);
}

int testmod_go(bool go)
{
	return write_file(TESTMOD_DIR "go", go ? "1" : "0");
}

int testmod_task_usage(int pid, uint64_t *usage)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", pid);
	return write_file(TESTMOD_DIR "task_usage", buf) ?:
	       read_u64(TESTMOD_DIR "task_usage", usage);
}
