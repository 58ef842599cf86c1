// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* "prog ID NAME: func_idx=N sites=N max_refs=N debug_mode=0|1" */
int progs_find(uint32_t id, struct rtg_prog_line *pl)
{
	FILE *f = fopen(DBG "progs", "r");
	char line[256];
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "prog %u %31[^:]: func_idx=%u sites=%u max_refs=%u debug_mode=%d", &pl->id, pl->name,
			   &pl->func_idx, &pl->sites, &pl->max_refs,
			   &pl->debug_mode) == 6 && pl->id == id)
			found = 0;
	}
	fclose(f);
	return found;
}

/*
 * "prog ID NAME: slots=N incomplete=N unmatched=N leftover=N stray=N
 * stops=N released=N reported=N stoppable=0|1 stop_ret=N", then indented: "  run pid=..." per run in flight
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
		if (line[0] != ' ') {
			in = sscanf(line, "prog %u %31[^:]: slots=%u incomplete=%ld unmatched=%ld leftover=%ld stray=%ld stops=%ld released=%ld reported=%ld stoppable=%d stop_ret=%lld",
				    &pid, t.name, &t.slots, &t.incomplete,
				    &t.unmatched, &t.leftover, &t.stray, &t.stops,
				    &t.released, &t.reported, &t.stoppable,
				    &t.stop_ret) == 12 && pid == id;
			if (in) {
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

void strace_stop(void)
{
	if (system(STRACE " --disable"))
		fprintf(stderr, "rtg-strace --disable failed\n");
}

#define MAX_STRACE_LINES 8192

int strace_lines(uint32_t id, char ***lines, unsigned long long *lost)
{
	static char *buf[MAX_STRACE_LINES];
	char cmd[128], l[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), STRACE " -l -p %u 2>/tmp/strace.err", id);
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
			if (fscanf(e, "rtg-strace: %llu events lost", lost) != 1)
				*lost = ~0ULL;
			fclose(e);
		}
	}
	return n;
}

const char *strace_call(const char *line)
{
	const char *p = strchr(line, ']');

	p = p ? strchr(p + 2, ' ') : NULL;
	return p ? p + 1 : "";
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
