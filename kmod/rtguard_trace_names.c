// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_rtguard: what a traced call is called, for whoever reads the trace
 * buffer. When the JIT selects a traced call site, the site gets the
 * names the program was written with (struct rtg_call_names): the
 * helper's and its parameters' as the kernel's UAPI header documents
 * them (rtguard_helpers.h, made from it at build time), the kfunc's and
 * its arguments' from its BTF, the map a map helper is called with. The
 * rtg_call event prints each call of a record with them
 * (rtg_trace_print(): trace, trace_pipe), and debugfs sites lists them
 * for rtg-strace.
 *
 * A record may be read long after its program is gone: sites are found
 * by number under RCU (rtg_trace_sites), and an image with traced sites
 * is kept for a while after its program is freed (rtguard_image.c), so
 * that a reader that polls still finds its sites; then they are taken
 * out of reach (rtg_trace_forget()) and freed after a grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_call_hook.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/trace_seq.h>
#include <linux/xarray.h>

#include "rtguard.h"

/* every documented helper: "bpf_NAME", result type, parameters */
static const struct rtg_helper_proto rtg_helper_protos[__BPF_FUNC_MAX_ID] = {
#define RTG_HELPER(name, ret, params) \
	[BPF_FUNC_##name] = { "bpf_" #name, ret, params },
#include "rtguard_helpers.h"
#undef RTG_HELPER
};

/* "HASH": every map type of the UAPI header */
static const char * const rtg_map_types[] = {
#define RTG_MAP_TYPE(type) \
	[BPF_MAP_TYPE_##type] = #type,
#include "rtguard_map_types.h"
#undef RTG_MAP_TYPE
};

/*
 * The most bytes rtg_print_call() and rtg_trace_print() print for parts
 * of a call's line: a value ("%llu", "%lld", "%#llx": 20), a result (a
 * value, " (", an errno's name, ")"), the "+%u" of an instruction, the
 * line's end (" <%llu.%03lluus> pid=%u" of a 32-bit cycle count) and the
 * "\n  " before it.
 */
#define RTG_TEXT_VALUE		20
#define RTG_TEXT_RESULT		(RTG_TEXT_VALUE + 32)
#define RTG_TEXT_INSN		11
#define RTG_TEXT_TAIL		48
#define RTG_TEXT_SEP		3
/*
 * A call read after its program is gone and its site's names forgotten
 * prints as "site %u (program unloaded)" and six "%#llx" (18 bytes at
 * most) in "(, , , , ) = ": every site's bound is at least that long.
 */
#define RTG_TEXT_HEX		18
#define RTG_TEXT_UNLOADED_MAX	(sizeof("site 4294967295 (program unloaded)") - 1 + \
				 6 * RTG_TEXT_HEX + sizeof("(, , , , ) = ") - 1 + \
				 RTG_TEXT_TAIL + RTG_TEXT_SEP)
static_assert(RTG_TEXT_UNLOADED_MAX <= RTG_TRACE_LINE_MAX);

/* The most bytes a call of @site takes in an event's text. */
static u16 rtg_trace_line_max(const struct rtg_site *site)
{
	const struct rtg_call_names *n = site->names;
	size_t len;
	int i;

	len = strlen(n->prog) + RTG_TEXT_INSN + 1 + strlen(n->func) + 1;
	for (i = 0; i < site->nr_args; i++) {
		len += 2 + strlen(n->arg[i]) + 1;
		if (!i && n->map[0])
			len += strlen(n->map) + 3 + strlen(n->map_type);
		else
			len += RTG_TEXT_VALUE;
	}
	len += 1 + 3 + RTG_TEXT_RESULT + RTG_TEXT_TAIL + RTG_TEXT_SEP;
	return clamp_t(size_t, len, RTG_TEXT_UNLOADED_MAX, RTG_TRACE_LINE_MAX);
}

/*
 * traced sites by number (&rtg_site.trace_id), and the main images of
 * programs whose runs are recorded (&rtg_image.run_id, tagged), for
 * rtg_trace_print()
 */
static DEFINE_XARRAY(rtg_trace_sites);
#define RTG_TRACE_RUN_TAG	1

static atomic_t rtg_trace_ids = ATOMIC_INIT(0);

/*
 * A number for a new traced call site or run: not given to another since
 * the module was loaded, never 0 (a run not named).
 */
static u32 rtg_trace_new_id(void)
{
	u32 id;

	do
		id = atomic_inc_return(&rtg_trace_ids);
	while (!id);
	return id;
}

/**
 * rtg_helper_proto_of() - a helper's documented prototype
 * @id: &enum bpf_func_id
 *
 * Return: the prototype, or NULL for a helper the header does not document.
 */
const struct rtg_helper_proto *rtg_helper_proto_of(u32 id)
{
	if (id >= ARRAY_SIZE(rtg_helper_protos) || !rtg_helper_protos[id].name)
		return NULL;
	return &rtg_helper_protos[id];
}

/* The names of a helper's parameters: the last word of each declaration. */
static void rtg_names_of_params(struct rtg_call_names *n, const char *params)
{
	const char *p = params, *end, *word;
	int i;

	for (i = 0; i < MAX_BPF_FUNC_REG_ARGS && *p; i++) {
		end = strchrnul(p, ',');
		word = end;
		while (word > p && (isalnum(word[-1]) || word[-1] == '_'))
			word--;
		if (end - word && strncmp(word, "void", end - word))
			strscpy(n->arg[i], word,
				min_t(size_t, end - word + 1, sizeof(n->arg[i])));
		p = *end ? end + 1 : end;
	}
}

/* "hash" for BPF_MAP_TYPE_HASH */
static void rtg_map_type_name(char *buf, size_t len, u32 type)
{
	const char *s = type < ARRAY_SIZE(rtg_map_types) ? rtg_map_types[type] : NULL;
	size_t i;

	if (!s) {
		snprintf(buf, len, "type %u", type);
		return;
	}
	for (i = 0; i + 1 < len && s[i]; i++)
		buf[i] = tolower(s[i]);
	buf[i] = 0;
}

/**
 * rtg_trace_name_site() - give a traced site its names and a number
 * @site: the site, being selected, with its function and image set
 * @info: what the verifier knows of the call, or NULL
 *
 * A site without names (no memory) is printed by its function's symbol.
 */
void rtg_trace_name_site(struct rtg_site *site, const struct bpf_call_info *info)
{
	const struct bpf_prog_aux *main = site->main;
	const struct rtg_helper_proto *h;
	struct rtg_call_names *n;
	int i;

	site->trace_id = rtg_trace_new_id();
	/* printed by the function's symbol */
	site->line_max = RTG_TRACE_LINE_MAX;
	n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	if (!n)
		return;
	strscpy(n->prog, main->name[0] ? main->name : "-");
	h = info && !info->btf && !info->bpf_func ? rtg_helper_proto_of(info->id) : NULL;
	if (h) {
		strscpy(n->func, h->name);
		n->proto = h;
		rtg_names_of_params(n, h->params);
	} else if (info && info->name) {
		strscpy(n->func, info->name);
		for (i = 0; i < MAX_BPF_FUNC_REG_ARGS; i++)
			strscpy(n->arg[i], info->arg_name[i] ?: "");
	} else if (site->flags & RTG_SITE_BPF_FUNC) {
		/* a program loaded without BTF */
		strscpy(n->func, "bpf_function");
	} else {
		snprintf(n->func, sizeof(n->func), "%ps", site->func);
		n->func[strcspn(n->func, " ")] = 0;
	}
	if (info && info->map) {
		strscpy(n->map, info->map->name[0] ? info->map->name : "-");
		rtg_map_type_name(n->map_type, sizeof(n->map_type),
				  info->map->map_type);
	}
	site->names = n;
	site->line_max = rtg_trace_line_max(site);
	if (xa_err(xa_store(&rtg_trace_sites, site->trace_id, site,
			    GFP_KERNEL_ACCOUNT)))
		pr_warn_once("calls of site %u print without names: no memory\n",
			     site->trace_id);
}

/**
 * rtg_trace_name_run() - give a program's runs a number and a name
 * @image: the main image of a program whose runs are recorded
 *
 * The number is found like a site's; the entry is the image, tagged.
 */
void rtg_trace_name_run(struct rtg_image *image)
{
	image->run_id = rtg_trace_new_id();
	if (xa_err(xa_store(&rtg_trace_sites, image->run_id,
			    xa_tag_pointer(image, RTG_TRACE_RUN_TAG),
			    GFP_KERNEL_ACCOUNT)))
		pr_warn_once("runs of program %s print without names: no memory\n",
			     image->prog_name);
}

/**
 * rtg_trace_names_free() - free the names of an image's calls
 * @image: an image out of every reader's reach
 */
void rtg_trace_names_free(struct rtg_image *image)
{
	u32 i;

	for (i = 0; i < image->nr_sites; i++)
		kfree(image->sites[i].names);
}

/**
 * rtg_trace_traced() - whether readers of the trace may name an image's calls
 * @image: a hooked image
 *
 * Return: true when it has traced sites or recorded runs.
 */
bool rtg_trace_traced(const struct rtg_image *image)
{
	u32 i;

	for (i = 0; i < image->nr_sites; i++)
		if (image->sites[i].trace_id)
			return true;
	return image->run_id;
}

/**
 * rtg_trace_forget() - take an image's traced sites and runs out of reach
 * @image: an image whose program is gone
 *
 * Readers that found them keep them until a grace period ends.
 */
void rtg_trace_forget(struct rtg_image *image)
{
	u32 i;

	if (image->run_id)
		xa_erase(&rtg_trace_sites, image->run_id);
	for (i = 0; i < image->nr_sites; i++)
		if (image->sites[i].trace_id)
			xa_erase(&rtg_trace_sites, image->sites[i].trace_id);
}

/**
 * rtg_trace_names_exit() - free the names, at module exit
 *
 * After rtg_image_exit().
 */
void rtg_trace_names_exit(void)
{
	/* the frees of retired images (rtg_image_exit()) */
	rcu_barrier();
	xa_destroy(&rtg_trace_sites);
}

/*
 * A value of @size bytes, @ptr a pointer, @sign signed; @err: a negative
 * value may be an errno (a helper's result).
 */
static void rtg_print_value(struct trace_seq *p, u64 v, bool ptr, bool sign,
			    u8 size, bool err)
{
	if (ptr) {
		if (v)
			trace_seq_printf(p, "%#llx", v);
		else
			trace_seq_puts(p, "NULL");
		return;
	}
	if (size && size < sizeof(u64)) {
		v &= GENMASK_ULL(size * BITS_PER_BYTE - 1, 0);
		if (sign && (v & BIT_ULL(size * BITS_PER_BYTE - 1)))
			v |= ~GENMASK_ULL(size * BITS_PER_BYTE - 1, 0);
	}
	if (!sign)
		trace_seq_printf(p, "%llu", v);
	else if (IS_ENABLED(CONFIG_SYMBOLIC_ERRNAME) && err &&
		 IS_ERR_VALUE((unsigned long)v))
		trace_seq_printf(p, "%lld (%pe)", (s64)v, ERR_PTR((long)v));
	else
		trace_seq_printf(p, "%lld", (s64)v);
}

/* The end of a run: its result, whether it was stopped and what it gave back. */
static void rtg_print_run(struct trace_seq *p, const struct rtg_call_rec *r,
			  const struct rtg_image *image)
{
	u64 ns = r->args[2];

	/* most programs return an int */
	trace_seq_printf(p, "%s run = %lld", image ? image->prog_name : "(unloaded)",
			 r->ret >> 32 ? (s64)r->ret : (s64)(s32)r->ret);
	if (r->args[0])
		trace_seq_printf(p, ", stopped (%s): gave back %llu",
				 rtg_stop_reason_name(r->args[0]), r->args[1]);
	trace_seq_printf(p, " <%llu.%03lluus> pid=%u", ns / NSEC_PER_USEC,
			 ns % NSEC_PER_USEC, r->pid);
}

static void rtg_print_call(struct trace_seq *p, const struct rtg_call_rec *r)
{
	void *entry = xa_load(&rtg_trace_sites, r->site);
	const struct rtg_site *site = xa_pointer_tag(entry) ? NULL : entry;
	const struct rtg_call_names *n = site ? site->names : NULL;
	u64 ns = rtg_clock_ns(r->cycles);
	int i;

	if (r->kind == RTG_REC_RUN) {
		rtg_print_run(p, r, xa_pointer_tag(entry) ? xa_untag_pointer(entry) : NULL);
		return;
	}
	if (r->kind == RTG_REC_RELEASE) {
		trace_seq_printf(p, "stop gave back %#llx (acquired by %s+%u %s) pid=%u",
				 r->args[0], n ? n->prog : "-",
				 site ? site->insn_idx : 0, n ? n->func : "-", r->pid);
		return;
	}
	if (!site) {
		trace_seq_printf(p, "site %u (program unloaded)", r->site);
		trace_seq_printf(p, "(%#llx, %#llx, %#llx, %#llx, %#llx) = %#llx",
				 r->args[0], r->args[1], r->args[2], r->args[3],
				 r->args[4], r->ret);
		goto tail;
	}
	if (n)
		trace_seq_printf(p, "%s+%u %s(", n->prog, site->insn_idx, n->func);
	else
		trace_seq_printf(p, "+%u %ps(", site->insn_idx, site->func);
	for (i = 0; i < site->nr_args; i++) {
		if (i)
			trace_seq_puts(p, ", ");
		if (n && n->arg[i][0])
			trace_seq_printf(p, "%s=", n->arg[i]);
		if (!i && n && n->map[0])
			trace_seq_printf(p, "%s <%s>", n->map, n->map_type);
		else
			rtg_print_value(p, r->args[i], site->arg_is_ptr & BIT(i),
					site->arg_is_signed & BIT(i),
					site->arg_is_32bit & BIT(i) ? sizeof(u32) :
								      sizeof(u64),
					false);
	}
	trace_seq_putc(p, ')');
	if (site->ret_size) {
		trace_seq_puts(p, " = ");
		rtg_print_value(p, r->ret, site->flags & RTG_SITE_RET_PTR,
				site->flags & RTG_SITE_RET_SIGNED, site->ret_size,
				n && n->proto);
	}
tail:
	trace_seq_printf(p, " <%llu.%03lluus> pid=%u", ns / NSEC_PER_USEC,
			 ns % NSEC_PER_USEC, r->pid);
}

/**
 * rtg_trace_print() - the text of a rtg_call record, for trace and trace_pipe
 * @p: the event's scratch sequence (TP_printk()'s p)
 * @recs: the record's calls
 * @nr: how many
 *
 * One line per call, the first on the event's own line: program+insn,
 * function(argument=value, ...) = result, duration, task. An event's text
 * must fit in the trace_seq trace_pipe prints an event into, after its
 * header ("[LINE TOO BIG]" for one that does not): rtg_trace_write() ends
 * an event once the sum of its records' line bounds (&rtg_call_rec.text)
 * passes RTG_TRACE_TEXT_MAX - RTG_TRACE_LINE_MAX, and no line here starts past
 * that (a line is shorter than RTG_TRACE_LINE_MAX), so the calls left, if
 * ever, are counted instead.
 *
 * Return: the text, in @p.
 */
const char *rtg_trace_print(struct trace_seq *p, const void *recs, u32 nr)
{
	const struct rtg_call_rec *r = recs;
	const char *ret = trace_seq_buffer_ptr(p);
	unsigned int start = trace_seq_used(p);
	u32 i;

	rcu_read_lock();
	for (i = 0; i < nr; i++) {
		if (i && trace_seq_used(p) - start > RTG_TRACE_TEXT_MAX - RTG_TRACE_LINE_MAX) {
			trace_seq_printf(p, "\n  (%u more calls: rtg-strace shows them)", nr - i);
			break;
		}
		if (i)
			trace_seq_puts(p, "\n  ");
		rtg_print_call(p, &r[i]);
	}
	rcu_read_unlock();
	trace_seq_putc(p, 0);
	return ret;
}
