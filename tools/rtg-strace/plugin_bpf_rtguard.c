// SPDX-License-Identifier: GPL-2.0-only
/*
 * plugin_bpf_rtguard: a libtraceevent plugin that prints the calls of
 * bpf_rtguard's rtg_call events, for the tools that read the trace
 * buffer raw and print it through libtraceevent (trace-cmd report, and
 * perf when built with it). The kernel prints the text of the trace and
 * trace_pipe files itself (rtg_trace_print()); an event's print format
 * names that function, which such tools cannot call, so without this
 * plugin they show only the event's raw fields.
 *
 * One line per call, as the kernel prints it: program+insn, the function
 * under the name the program called it by, argument=value, the result,
 * the duration and the task. Names come from debugfs bpf_rtguard/sites,
 * read when the plugin is loaded and again for a site not yet seen: the
 * report is read on the machine that recorded it, while the programs (or
 * the last 64 freed in the last 10 seconds) are still there. A site no
 * longer listed is printed by number, with its raw values.
 *
 * Installed with the module (make install) into libtraceevent's plugin
 * directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "rtguard_rec.h"

#define DEBUGFS		"/sys/kernel/debug/bpf_rtguard/"
#define MAX_ARGS	RTG_REC_ARGS

struct rtg_site {
	unsigned int id, insn, nargs, ptr, sign, int32, ret_size;
	int ret_ptr, ret_signed, helper;
	char prog[32], call[128], map[32], map_type[32];
	char arg[MAX_ARGS][32];
};

static struct rtg_site *sites;
static unsigned int nr_sites;
static unsigned long long tsc_khz;

/* "a,b,-": the names of a site's arguments, "" for one not known */
static void parse_args(struct rtg_site *s, const char *line)
{
	const char *p = strstr(line, " args=");
	unsigned int i;
	size_t n;

	if (!p)
		return;
	p += 6;
	for (i = 0; i < MAX_ARGS && *p && *p != ' ' && *p != '\n'; i++) {
		n = strcspn(p, ", \n");
		if (n < sizeof(s->arg[i]) && strncmp(p, "-", n))
			snprintf(s->arg[i], sizeof(s->arg[i]), "%.*s", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
}

static void read_sites(void)
{
	char line[1024], kind[16], func[128], module[64];
	struct rtg_site s, *grown;
	FILE *f = fopen(DEBUGFS "sites", "r");

	if (!f)
		return;
	free(sites);
	sites = NULL;
	nr_sites = 0;
	while (fgets(line, sizeof(line), f)) {
		memset(&s, 0, sizeof(s));
		if (sscanf(line, "site=%u prog=%*u name=%31s insn=%u fidx=%*u func=%127s module=%63s kind=%15s id=%*u nargs=%u ptr=%x signed=%x int32=%x ret_size=%u ret_ptr=%d ret_signed=%d may_be_null=%*d call=%127s map=%31s map_type=%31s",
			   &s.id, s.prog, &s.insn, func, module, kind, &s.nargs,
			   &s.ptr, &s.sign, &s.int32, &s.ret_size, &s.ret_ptr,
			   &s.ret_signed, s.call, s.map, s.map_type) != 16)
			continue;
		if (!strcmp(s.call, "-"))
			snprintf(s.call, sizeof(s.call), "%s", func);
		s.helper = !strcmp(kind, "helper");
		if (!strcmp(kind, "run"))
			s.nargs = 0;
		if (s.nargs > MAX_ARGS)
			s.nargs = MAX_ARGS;
		parse_args(&s, line);
		grown = realloc(sites, (nr_sites + 1) * sizeof(*sites));
		if (!grown)
			break;
		sites = grown;
		sites[nr_sites++] = s;
	}
	fclose(f);

	f = fopen(DEBUGFS "stats", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "tsc_khz: %llu", &tsc_khz) == 1)
			break;
	fclose(f);
}

static const struct rtg_site *find_site(unsigned int id)
{
	static unsigned int reread_for;
	unsigned int i;

	for (i = 0; i < nr_sites; i++)
		if (sites[i].id == id)
			return &sites[i];
	/* a program loaded after the plugin: read the list again, once a site */
	if (reread_for == id)
		return NULL;
	reread_for = id;
	read_sites();
	for (i = 0; i < nr_sites; i++)
		if (sites[i].id == id)
			return &sites[i];
	return NULL;
}

static void print_value(struct trace_seq *s, unsigned long long v, int ptr, int sign,
			unsigned int size, int err)
{
	const char *name;

	if (ptr) {
		if (v)
			trace_seq_printf(s, "%#llx", v);
		else
			trace_seq_puts(s, "NULL");
		return;
	}
	if (size && size < 8) {
		v &= (1ULL << (size * 8)) - 1;
		if (sign && (v & (1ULL << (size * 8 - 1))))
			v |= ~((1ULL << (size * 8)) - 1);
	}
	if (!sign) {
		trace_seq_printf(s, "%llu", v);
		return;
	}
	name = err && (long long)v < 0 && (long long)v >= -4095 ?
	       strerrorname_np(-(int)(long long)v) : NULL;
	if (name)
		trace_seq_printf(s, "%lld (-%s)", (long long)v, name);
	else
		trace_seq_printf(s, "%lld", (long long)v);
}

static void print_dur(struct trace_seq *s, unsigned long long ns, unsigned int pid)
{
	trace_seq_printf(s, " <%llu.%03lluus> pid=%u", ns / 1000, ns % 1000, pid);
}

static unsigned long long cycles_ns(unsigned long long cycles)
{
	return tsc_khz ? cycles * 1000000 / tsc_khz : 0;
}

static void print_call(struct trace_seq *s, const struct rtg_call_rec *r)
{
	const struct rtg_site *site = find_site(r->site);
	unsigned int i;

	if (r->kind == RTG_REC_RUN) {
		trace_seq_printf(s, "%s run = %lld", site ? site->prog : "(unloaded)",
				 r->ret >> 32 ? (long long)r->ret : (long long)(int)r->ret);
		if (r->args[0])
			trace_seq_printf(s, ", stopped (%s): gave back %llu",
					 r->args[0] == 1 ? "watchdog_ms" : "hold_limit_us",
					 (unsigned long long)r->args[1]);
		print_dur(s, r->args[2], r->pid);
		return;
	}
	if (r->kind == RTG_REC_RELEASE) {
		trace_seq_printf(s, "stop gave back %#llx (acquired by %s+%u %s) pid=%u",
				 (unsigned long long)r->args[0], site ? site->prog : "-",
				 site ? site->insn : 0, site ? site->call : "-", r->pid);
		return;
	}
	if (!site) {
		trace_seq_printf(s, "site %u (program unloaded)(%#llx, %#llx, %#llx, %#llx, %#llx) = %#llx",
				 r->site, (unsigned long long)r->args[0],
				 (unsigned long long)r->args[1], (unsigned long long)r->args[2],
				 (unsigned long long)r->args[3], (unsigned long long)r->args[4],
				 (unsigned long long)r->ret);
		print_dur(s, cycles_ns(r->cycles), r->pid);
		return;
	}
	trace_seq_printf(s, "%s+%u %s(", site->prog, site->insn, site->call);
	for (i = 0; i < site->nargs; i++) {
		if (i)
			trace_seq_puts(s, ", ");
		if (site->arg[i][0])
			trace_seq_printf(s, "%s=", site->arg[i]);
		if (!i && strcmp(site->map, "-"))
			trace_seq_printf(s, "%s <%s>", site->map, site->map_type);
		else
			print_value(s, r->args[i], site->ptr & (1U << i), site->sign & (1U << i),
				    site->int32 & (1U << i) ? 4 : 8, 0);
	}
	trace_seq_putc(s, ')');
	if (site->ret_size) {
		trace_seq_puts(s, " = ");
		print_value(s, r->ret, site->ret_ptr, site->ret_signed, site->ret_size,
			    site->helper);
	}
	print_dur(s, cycles_ns(r->cycles), r->pid);
}

static int rtg_call_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	const struct rtg_call_rec *r;
	unsigned long long nr, i;
	int len;

	if (tep_get_field_val(s, event, "nr", record, &nr, 1))
		return 0;
	r = tep_get_field_raw(s, event, "recs", record, &len, 1);
	if (!r)
		return 0;
	if (len < 0 || nr > (unsigned long long)len / sizeof(*r))
		nr = len < 0 ? 0 : len / sizeof(*r);
	for (i = 0; i < nr; i++) {
		if (i)
			trace_seq_puts(s, "\n  ");
		print_call(s, &r[i]);
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	read_sites();
	tep_register_event_handler(tep, -1, "bpf_rtguard", "rtg_call",
				   rtg_call_handler, NULL);
	return 0;
}

int TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "bpf_rtguard", "rtg_call",
				     rtg_call_handler, NULL);
	free(sites);
	sites = NULL;
	nr_sites = 0;
	return 0;
}
