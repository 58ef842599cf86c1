/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest test harness, in the spirit of the kernel's BPF selftests
 * (tools/testing/selftests/bpf/test_progs.h).
 *
 * A test is a function `void test_NAME(void)` at the start of a line in a
 * file of prog_tests/, named after the BPF program it drives; the list of
 * tests is generated from those lines at build time. A benchmark is
 * `void bench_NAME(void)`, a demo that is not a test `void demo_NAME(void)`.
 *
 *	WITH_MODULE(test_track_seeds, "track=1");
 *	void test_track_seeds(void)
 *	{
 *		if (test__start_subtest("simple"))
 *			...
 *		ASSERT_EQ(n, 4, "events of %s", name);
 *	}
 *
 * WITH_MODULE() makes the runner load bpf_rtguard.ko with those
 * parameters before the test (demo, benchmark) and unload it after; one
 * without it runs with bpf_rtguard unloaded and may load it by hand. A
 * WITH_MODULE() whose name is no function fails the build.
 *
 * Every ASSERT_*() evaluates to whether it held, prints both sides when it
 * did not, and marks the test (and its current subtest) failed; the last
 * argument is a printf format naming what is checked.
 */
#ifndef _RTGTEST_H
#define _RTGTEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "parsers.h"

/* a fixture of a name that no test, demo or benchmark has fails the link */
#define WITH_MODULE(fn, params)						\
	void fn(void);							\
	const char fn##__module[] = params;				\
	static void (*const fn##__fixture)(void) __attribute__((used)) = fn

/*
 * Start subtest name; false when the selection (TESTS=test/sub) leaves it
 * out. The previous subtest of the test ends here, with its own verdict.
 */
bool test__start_subtest(const char *name);

/* Mark the current test and subtest failed (after printing why). */
void test__fail(void);

/* Harness internals used by the macros below. */
void rtg_assert_count(void);
void rtg_assert_fail(const char *file, int line, const char *expr,
		     const char *actual, const char *op, const char *expected,
		     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

const char *rtg_val_s(char *buf, long long v);
const char *rtg_val_u(char *buf, unsigned long long v);
const char *rtg_val_f(char *buf, double v);
const char *rtg_val_p(char *buf, const void *v);
const char *rtg_val_str(char *buf, const char *v);	/* RTG_VAL_LEN */
const char *rtg_val_strn(char *buf, size_t len, const char *v);

#define RTG_VAL_LEN 96
#define RTG_STR_LEN 2048	/* strings are shown whole up to this */

/* Print any scalar without a hand-written format. */
#define RTG_VAL(buf, x) _Generic((x),					\
	_Bool: rtg_val_s, char: rtg_val_s, signed char: rtg_val_s,	\
	short: rtg_val_s, int: rtg_val_s, long: rtg_val_s,		\
	long long: rtg_val_s,						\
	unsigned char: rtg_val_u, unsigned short: rtg_val_u,		\
	unsigned int: rtg_val_u, unsigned long: rtg_val_u,		\
	unsigned long long: rtg_val_u,					\
	float: rtg_val_f, double: rtg_val_f,				\
	char *: rtg_val_str, const char *: rtg_val_str,			\
	default: rtg_val_p)(buf, x)

#define RTG_ASSERT_CMP(a, op, nop, b, fmt, ...) ({			\
	int ___errno = errno;						\
	__typeof__(a) ___a = (a);					\
	__typeof__(b) ___b = (b);					\
	bool ___ok = ___a op ___b;					\
	rtg_assert_count();						\
	if (!___ok) {							\
		char ___x[RTG_VAL_LEN], ___y[RTG_VAL_LEN];		\
		rtg_assert_fail(__FILE__, __LINE__, #a " " #op " " #b,	\
				RTG_VAL(___x, ___a), nop,		\
				RTG_VAL(___y, ___b), fmt, ##__VA_ARGS__); \
	}								\
	errno = ___errno;						\
	___ok;								\
})

#define ASSERT_EQ(a, b, fmt, ...) RTG_ASSERT_CMP(a, ==, "!=", b, fmt, ##__VA_ARGS__)
#define ASSERT_NE(a, b, fmt, ...) RTG_ASSERT_CMP(a, !=, "==", b, fmt, ##__VA_ARGS__)
#define ASSERT_LT(a, b, fmt, ...) RTG_ASSERT_CMP(a, <, ">=", b, fmt, ##__VA_ARGS__)
#define ASSERT_LE(a, b, fmt, ...) RTG_ASSERT_CMP(a, <=, ">", b, fmt, ##__VA_ARGS__)
#define ASSERT_GT(a, b, fmt, ...) RTG_ASSERT_CMP(a, >, "<=", b, fmt, ##__VA_ARGS__)
#define ASSERT_GE(a, b, fmt, ...) RTG_ASSERT_CMP(a, >=, "<", b, fmt, ##__VA_ARGS__)

/* A condition that has no two sides to show. */
#define ASSERT_TRUE(c, fmt, ...) ({					\
	int ___errno = errno;						\
	bool ___ok = (c);						\
	rtg_assert_count();						\
	if (!___ok)							\
		rtg_assert_fail(__FILE__, __LINE__, #c, "false", NULL,	\
				NULL, fmt, ##__VA_ARGS__);		\
	errno = ___errno;						\
	___ok;								\
})
#define ASSERT_FALSE(c, fmt, ...) ({					\
	int ___errno = errno;						\
	bool ___ok = !(c);						\
	rtg_assert_count();						\
	if (!___ok)							\
		rtg_assert_fail(__FILE__, __LINE__, "!(" #c ")", "true",	\
				NULL, NULL, fmt, ##__VA_ARGS__);	\
	errno = ___errno;						\
	___ok;								\
})

/*
 * A result that is 0 on success and a negative errno on failure (the
 * helpers', libbpf's), or -1 with errno set (a syscall's).
 */
#define ASSERT_OK(res, fmt, ...) ({					\
	int ___errno = errno;						\
	long ___r = (res);						\
	bool ___ok = ___r == 0;						\
	rtg_assert_count();						\
	if (!___ok) {							\
		char ___x[RTG_VAL_LEN];					\
		snprintf(___x, sizeof(___x), "%ld (%s)", ___r, ___r >= 0 ? \
			 "not an error code" :				\
			 strerror(___r == -1 ? ___errno : (int)-___r));	\
		rtg_assert_fail(__FILE__, __LINE__, #res, ___x, "!=", "0", \
				fmt, ##__VA_ARGS__);			\
	}								\
	errno = ___errno;						\
	___ok;								\
})
/* A negative result: the errno it carries is checked with ASSERT_EQ. */
#define ASSERT_ERR(res, fmt, ...) RTG_ASSERT_CMP((long)(res), <, ">=", 0L, fmt, ##__VA_ARGS__)

/* A pointer that must be set (libbpf sets errno when it returns NULL). */
#define ASSERT_OK_PTR(p, fmt, ...) ({					\
	int ___errno = errno;						\
	const void *___p = (p);						\
	bool ___ok = ___p != NULL;					\
	rtg_assert_count();						\
	if (!___ok)							\
		rtg_assert_fail(__FILE__, __LINE__, #p, "NULL", NULL,	\
				strerror(___errno), fmt, ##__VA_ARGS__); \
	errno = ___errno;						\
	___ok;								\
})
#define ASSERT_NULL(p, fmt, ...) RTG_ASSERT_CMP((const void *)(p), ==, "!=", (const void *)NULL, fmt, ##__VA_ARGS__)

#define RTG_ASSERT_STR(a, b, test, nop, fmt, ...) ({			\
	int ___errno = errno;						\
	const char *___a = (a), *___b = (b);				\
	bool ___ok = ___a && ___b && (test);				\
	rtg_assert_count();						\
	if (!___ok) {							\
		char ___x[RTG_STR_LEN], ___y[RTG_STR_LEN];		\
		rtg_assert_fail(__FILE__, __LINE__, #a " vs " #b,	\
				rtg_val_strn(___x, sizeof(___x), ___a), nop, \
				rtg_val_strn(___y, sizeof(___y), ___b), fmt, ##__VA_ARGS__); \
	}								\
	errno = ___errno;						\
	___ok;								\
})
#define ASSERT_STREQ(a, b, fmt, ...) \
	RTG_ASSERT_STR(a, b, !strcmp(___a, ___b), "!=", fmt, ##__VA_ARGS__)
#define ASSERT_STRNE(a, b, fmt, ...) \
	RTG_ASSERT_STR(a, b, strcmp(___a, ___b), "==", fmt, ##__VA_ARGS__)
/* a contains b */
#define ASSERT_HAS_STR(a, b, fmt, ...) \
	RTG_ASSERT_STR(a, b, strstr(___a, ___b) != NULL, "does not contain", fmt, ##__VA_ARGS__)
/* a does not contain b */
#define ASSERT_NO_STR(a, b, fmt, ...) \
	RTG_ASSERT_STR(a, b, !strstr(___a, ___b), "contains", fmt, ##__VA_ARGS__)
/* a starts with b */
#define ASSERT_PREFIX(a, b, fmt, ...) \
	RTG_ASSERT_STR(a, b, !strncmp(___a, ___b, strlen(___b)), "does not start with", fmt, ##__VA_ARGS__)

#endif
