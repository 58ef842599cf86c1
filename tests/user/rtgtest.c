// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtgtest: the guest tests of bpf_rtguard in one static binary.
 *
 *   rtgtest [-t SELECTION] [-T SECONDS]
 *	run the tests (all, or SELECTION: test[/subtest],... with shell
 *	wildcards), each in its own process with SECONDS (600) at most;
 *	prints each test's and subtest's verdict and time, the slowest five
 *	and "rtg-guest: N passed, N failed"; exit 1 on any failure
 *   rtgtest -l			the names of all tests
 *   rtgtest --demo NAME	demo_NAME, or test NAME[/subtest], in this process
 *   rtgtest --bench NAME	bench_NAME
 *
 * The tests are listed in rtg_list.h, generated from the
 * `void test_NAME(void)` lines of prog_tests/ (tests/Makefile).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "rtgtest.h"

struct rtg_entry {
	const char *kind;	/* test, bench or demo */
	const char *name;
	void (*fn)(void);
	const char *module;	/* WITH_MODULE() parameters, or NULL */
};

#define RTG_ENTRY(kind, name)						\
	void kind##_##name(void);					\
	extern const char kind##_##name##__module[] __attribute__((weak));
#include "rtg_list.h"
#undef RTG_ENTRY

#define RTG_ENTRY(kind, name) \
	{ #kind, #name, kind##_##name, kind##_##name##__module },
static const struct rtg_entry entries[] = {
#include "rtg_list.h"
};
#undef RTG_ENTRY

#define NR_ENTRIES (sizeof(entries) / sizeof(entries[0]))

/* Counters of the running test, in memory shared with the runner. */
struct rtg_counts {
	unsigned int asserts, fails;
	unsigned int sub_pass, sub_fail;
};
static struct rtg_counts *counts;

/* The selection: test and (NULL: all) subtest patterns. */
#define MAX_SEL 64
static struct {
	char *test, *sub;
	bool used;
} sel[MAX_SEL];
static int nsel;

/* The test running in this process. */
static struct {
	const char *test;
	bool in_sub;
	char sub[128];
	unsigned int asserts0, fails0;
	double t0;
	int subs_run;
} cur;

static void parse_selection(char *s)
{
	char *tok, *slash;

	for (tok = strtok(s, ", "); tok && nsel < MAX_SEL; tok = strtok(NULL, ", ")) {
		slash = strchr(tok, '/');
		if (slash)
			*slash++ = 0;
		sel[nsel].test = tok;
		sel[nsel++].sub = slash;
	}
}

static bool test_selected(const char *test)
{
	bool yes = !nsel;
	int i;

	for (i = 0; i < nsel; i++) {
		if (!fnmatch(sel[i].test, test, 0)) {
			sel[i].used = true;
			yes = true;
		}
	}
	return yes;
}

/* Whether the selection names subtests of test (and not the whole test). */
static bool subtests_filtered(const char *test)
{
	bool filtered = false;
	int i;

	for (i = 0; i < nsel; i++) {
		if (fnmatch(sel[i].test, test, 0))
			continue;
		if (!sel[i].sub)
			return false;
		filtered = true;
	}
	return filtered;
}

static bool subtest_selected(const char *test, const char *sub)
{
	int i;

	if (!nsel)
		return true;
	for (i = 0; i < nsel; i++)
		if (!fnmatch(sel[i].test, test, 0) &&
		    (!sel[i].sub || !fnmatch(sel[i].sub, sub, 0)))
			return true;
	return false;
}

void test__fail(void)
{
	__atomic_fetch_add(&counts->fails, 1, __ATOMIC_RELAXED);
}

void rtg_assert_count(void)
{
	__atomic_fetch_add(&counts->asserts, 1, __ATOMIC_RELAXED);
}

void rtg_assert_fail(const char *file, int line, const char *expr,
		     const char *actual, const char *op, const char *expected,
		     const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;

	flockfile(stdout);
	printf("  %s:%d: FAIL ", base ? base + 1 : file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (op)
		printf(": actual %s %s expected %s  [%s]\n", actual, op, expected, expr);
	else
		printf(": %s is %s%s%s\n", expr, actual, expected ? ": " : "",
		       expected ?: "");
	funlockfile(stdout);
	test__fail();
}

const char *rtg_val_s(char *buf, long long v)
{
	snprintf(buf, RTG_VAL_LEN, "%lld", v);
	return buf;
}

const char *rtg_val_u(char *buf, unsigned long long v)
{
	if (v > 0xffff)
		snprintf(buf, RTG_VAL_LEN, "%llu (%#llx)", v, v);
	else
		snprintf(buf, RTG_VAL_LEN, "%llu", v);
	return buf;
}

const char *rtg_val_f(char *buf, double v)
{
	snprintf(buf, RTG_VAL_LEN, "%g", v);
	return buf;
}

const char *rtg_val_p(char *buf, const void *v)
{
	snprintf(buf, RTG_VAL_LEN, "%p", v);
	return buf;
}

const char *rtg_val_strn(char *buf, size_t len, const char *v)
{
	if (!v)
		snprintf(buf, len, "NULL");
	else
		snprintf(buf, len, "\"%s\"", v);
	return buf;
}

const char *rtg_val_str(char *buf, const char *v)
{
	return rtg_val_strn(buf, RTG_VAL_LEN, v);
}

/* Print a verdict line; a verdict that asserted nothing is a failure. */
static bool verdict(const char *name, const char *sub, bool ok, double ms,
		    unsigned int asserts)
{
	if (ok && !asserts) {
		printf("  %s%s%s asserted nothing\n", name, sub ? "/" : "", sub ?: "");
		ok = false;
	}
	printf("%s %s%s%s (%.2f s, %u asserts)\n", ok ? "PASS" : "FAIL", name,
	       sub ? "/" : "", sub ?: "", ms / 1e3, asserts);
	return ok;
}

static void end_subtest(void)
{
	bool ok;

	if (!cur.in_sub)
		return;
	cur.in_sub = false;
	ok = verdict(cur.test, cur.sub, counts->fails == cur.fails0,
		     now_ms() - cur.t0, counts->asserts - cur.asserts0);
	if (!ok && counts->fails == cur.fails0)
		test__fail();	/* asserted nothing */
	if (ok)
		counts->sub_pass++;
	else
		counts->sub_fail++;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (!subtest_selected(cur.test, name))
		return false;
	snprintf(cur.sub, sizeof(cur.sub), "%s", name);
	cur.in_sub = true;
	cur.asserts0 = counts->asserts;
	cur.fails0 = counts->fails;
	cur.t0 = now_ms();
	cur.subs_run++;
	printf("--- %s/%s\n", cur.test, name);
	return true;
}

/*
 * Tests that track runs do it in checking mode (check_held=1), unless the
 * kernel command line says rtg.check_held=0: the verifier's description of
 * what a run holds is compared with the run's table at every call. With
 * rtg.check_held=0, the programs the verifier describes completely keep
 * no table (described mode); tests of the table itself ask for
 * check_held=1 in their parameters and are checked whatever the command
 * line says.
 */
static bool check_held_added(const char *params)
{
	return params && strstr(params, "track=1") && !strstr(params, "check_held") &&
	       !strstr(file_read("/proc/cmdline"), "rtg.check_held=0");
}

static bool check_held_wanted(const char *params)
{
	return check_held_added(params) || (params && strstr(params, "check_held=1"));
}

/* The checking mode found the description and the table to agree. */
static void check_held_report(void)
{
	static const char * const names[] = {
		"held_checked", "held_partly_checked", "held_unreadable",
		"held_ambiguous", "held_no_description", "held_differences",
		"held_table_incomplete", "held_differs_checked",
	};
	uint64_t v[8] = {};
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (!ASSERT_OK(stat_read(names[i], &v[i]), "stats %s", names[i]))
			return;
	printf("  check_held: %llu checked, %llu partly, %llu unreadable, %llu ambiguous, %llu undescribed, %llu differences, %llu incomplete tables, %llu where paths differ\n",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2], (unsigned long long)v[3],
	       (unsigned long long)v[4], (unsigned long long)v[5],
	       (unsigned long long)v[6], (unsigned long long)v[7]);
	ASSERT_EQ(v[5], 0, "check_held: descriptions that differ from the table (dmesg names them)");
	if (!stat_read("stops_described", &v[0]) && !stat_read("stops_from_table", &v[1]) &&
	    (v[0] || v[1]))
		printf("  stops that unwound: %llu by the description, %llu by the table\n",
		       (unsigned long long)v[0], (unsigned long long)v[1]);
}

/* Run one entry in this process: load bpf_rtguard if it asks, run, unload. */
static void run_entry(const struct rtg_entry *e)
{
	bool check = check_held_wanted(e->module);
	bool add = check_held_added(e->module);
	char params[512];
	int err;

	memset(&cur, 0, sizeof(cur));
	cur.test = e->name;
	if (e->module) {
		snprintf(params, sizeof(params), "%s%s", e->module,
			 add ? " check_held=1" : "");
		err = mod_load(MOD_RTGUARD, params);
		if (!ASSERT_OK(err, "insmod %s %s", MOD_RTGUARD, params))
			return;
	}
	e->fn();
	end_subtest();
	if (check)
		check_held_report();
	if (e->module) {
		err = mod_unload_wait(MOD_RTGUARD, 5000);
		ASSERT_OK(err, "rmmod %s", MOD_RTGUARD);
	}
	if (subtests_filtered(e->name) && !cur.subs_run) {
		printf("  no subtest of %s matches the selection\n", e->name);
		test__fail();
	}
}

static pid_t child;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	timed_out = 1;
	kill(-child, SIGKILL);
}

struct timing {
	const char *name;
	double ms;
};

static int cmp_timing(const void *a, const void *b)
{
	double x = ((const struct timing *)a)->ms, y = ((const struct timing *)b)->ms;

	return x > y ? -1 : x < y;
}

static int pass, fail;

static void count(bool ok)
{
	if (ok)
		pass++;
	else
		fail++;
}

/* Run one test in a child process; its verdict. */
static bool run_test(const struct rtg_entry *e, int timeout_s, double *ms)
{
	uint64_t live0 = 0, live1 = 0;
	bool have_live, ok;
	int status = 0, err;
	double t0;

	memset(counts, 0, sizeof(*counts));
	have_live = !testmod_live(&live0);
	printf("--- %s%s%s\n", e->name, e->module ? ", bpf_rtguard " : "",
	       e->module ?: "");
	fflush(stdout);
	t0 = now_ms();
	child = fork();
	if (child == 0) {
		setpgid(0, 0);
		run_entry(e);
		fflush(stdout);
		_exit(counts->fails ? 1 : 0);
	}
	setpgid(child, child);
	timed_out = 0;
	alarm(timeout_s);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	*ms = now_ms() - t0;
	ok = child > 0 && WIFEXITED(status) && !WEXITSTATUS(status) && !counts->fails;
	if (timed_out)
		printf("  %s: timeout after %d s\n", e->name, timeout_s);
	else if (WIFSIGNALED(status))
		printf("  %s: killed by signal %d\n", e->name, WTERMSIG(status));
	if (have_live && !testmod_live(&live1) && live1 != live0) {
		printf("  %s: %lu live rtg_testmod objects after, %lu before\n",
		       e->name, live1, live0);
		ok = false;
	}
	pass += counts->sub_pass;
	fail += counts->sub_fail;
	ok = verdict(e->name, NULL, ok, *ms, counts->asserts);
	count(ok);
	/* each test starts without bpf_rtguard; one that leaves it loaded fails */
	if (mod_loaded(MOD_RTGUARD)) {
		printf("FAIL %s-left-bpf_rtguard-loaded\n", e->name);
		fail++;
		err = mod_unload_wait(MOD_RTGUARD, 5000);
		if (err)
			printf("  rmmod: %s\n", strerror(-err));
	}
	return ok;
}

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/* Forget what kmemleak suspects from boot: only the tests' leaks count. */
static bool kmemleak_start(void)
{
	if (access(KMEMLEAK, F_OK))
		return false;
	write_file(KMEMLEAK, "scan");
	write_file(KMEMLEAK, "clear");
	return true;
}

/* Objects are reported once older than 5 s and unreferenced in two scans. */
static void kmemleak_check(void)
{
	char line[256];
	int n = 0;
	FILE *f;

	sleep(6);
	write_file(KMEMLEAK, "scan");
	write_file(KMEMLEAK, "scan");
	f = fopen(KMEMLEAK, "r");
	while (f && fgets(line, sizeof(line), f)) {
		n += !strncmp(line, "unreferenced object", 19);
		printf("  %s", line);
	}
	if (f)
		fclose(f);
	printf("%s kmemleak%s\n", f && !n ? "PASS" : "FAIL",
	       f ? (n ? ": unreferenced objects" : "-no-leaks") : ": cannot read");
	count(f && !n);
}

static int run_all(int timeout_s)
{
	static struct timing times[NR_ENTRIES];
	uint64_t live = ~0ULL;
	int ntimes = 0, i;
	bool kmemleak;
	size_t k;

	kmemleak = kmemleak_start();
	signal(SIGALRM, on_alarm);
	for (k = 0; k < NR_ENTRIES; k++) {
		const struct rtg_entry *e = &entries[k];

		if (strcmp(e->kind, "test") || !test_selected(e->name))
			continue;
		run_test(e, timeout_s, &times[ntimes].ms);
		times[ntimes++].name = e->name;
	}
	for (i = 0; i < nsel; i++) {
		if (sel[i].used)
			continue;
		printf("FAIL selection '%s' matches no test\n", sel[i].test);
		fail++;
	}
	testmod_live(&live);
	if (live == 0)
		printf("PASS no-leaked-test-objects\n");
	else
		printf("FAIL no-leaked-test-objects (live=%ld)\n", (long)live);
	count(live == 0);
	if (kmemleak)
		kmemleak_check();
	qsort(times, ntimes, sizeof(times[0]), cmp_timing);
	for (i = 0; i < ntimes && i < 5; i++)
		printf("slowest %d: %7.2f s %s\n", i + 1, times[i].ms / 1e3, times[i].name);
	printf("rtg-guest: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}

/* --demo and --bench: one entry in this process. */
static int run_one(const char *kind, char *name)
{
	const char *test = name;
	size_t k;

	memset(counts, 0, sizeof(*counts));
	for (k = 0; k < NR_ENTRIES; k++) {
		if (strcmp(entries[k].name, name) || strcmp(entries[k].kind, kind))
			continue;
		run_entry(&entries[k]);
		return counts->fails ? 1 : 0;
	}
	/* a demo may be a test, or one of its subtests */
	if (!strcmp(kind, "demo")) {
		parse_selection(name);
		for (k = 0; k < NR_ENTRIES; k++) {
			if (strcmp(entries[k].kind, "test") || strcmp(entries[k].name, test))
				continue;
			run_entry(&entries[k]);
			return counts->fails ? 1 : 0;
		}
	}
	fprintf(stderr, "rtgtest: no %s '%s'\n", kind, name);
	return 2;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stdout, fmt, args);
}

int main(int argc, char **argv)
{
	int timeout_s = 600, opt;
	size_t k;

	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (k = 0; k < NR_ENTRIES; k++)
			if (!strcmp(entries[k].kind, "test"))
				puts(entries[k].name);
		return 0;
	}
	/* every test, demo and benchmark may call rtg_testmod's kfuncs */
	if (!mod_loaded(MOD_TESTMOD) && mod_load(MOD_TESTMOD, NULL)) {
		printf("FAIL insmod-rtg_testmod\n");
		fail++;
	}
	if (argc == 3 && !strcmp(argv[1], "--demo"))
		return run_one("demo", argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return run_one("bench", argv[2]);
	while ((opt = getopt(argc, argv, "t:T:")) != -1) {
		switch (opt) {
		case 't':
			parse_selection(optarg);
			break;
		case 'T':
			timeout_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-t test[/subtest],...] [-T seconds] | -l | --demo NAME | --bench NAME\n",
				argv[0]);
			return 2;
		}
	}
	return run_all(timeout_s);
}
