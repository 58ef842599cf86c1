// SPDX-License-Identifier: GPL-2.0-only
/*
 * The documents' reference tables against the module as it runs: the
 * README's parameters and their defaults; the design document's debugfs
 * files, the names stats prints, the fields of the sites lines, and the
 * trace events. Each way round: what the module has is documented, and
 * what is documented is there. Both are in the initramfs, under
 * /rtg/src/.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtgtest.h"

#define README		"/rtg/src/README.md"
#define DESIGN		"/rtg/src/bpf_rtguard.rst"
#define DEBUGFS		"/sys/kernel/debug/bpf_rtguard"
#define PARAMS		"/sys/module/" MOD_RTGUARD "/parameters"
#define EVENTS		"/sys/kernel/tracing/events/bpf_rtguard"

static char readme[1 << 16], design[1 << 18];

/* The text of @doc from @start up to (not including) @end, or to the end; "" if none. */
static char *section(const char *doc, const char *start, const char *end)
{
	static char buf[1 << 16];
	const char *a = strstr(doc, start), *b;

	if (!a)
		return strcpy(buf, "");
	b = strstr(a + strlen(start), end);
	snprintf(buf, sizeof(buf), "%.*s", (int)(b ? b - a : (long)strlen(a)), a);
	return buf;
}

/*
 * The bullet list of @doc under the line @start: from its first bullet to
 * the first blank line that no indented line or bullet follows.
 */
static char *bullets(const char *doc, const char *start)
{
	static char buf[1 << 16];
	const char *a = strstr(doc, start), *b;

	if (!a || !(a = strstr(a, "\n- ")))
		return strcpy(buf, "");
	for (b = strstr(a + 1, "\n\n"); b && (b[2] == ' ' || b[2] == '-');
	     b = strstr(b + 2, "\n\n"))
		;
	snprintf(buf, sizeof(buf), "%.*s", (int)(b ? b - a : (long)strlen(a)), a);
	return buf;
}

/*
 * Whether @word is in @text with no letter, digit or _ right before it
 * (nor, with @end, right after it).
 */
static bool has_word(const char *text, const char *word, bool end)
{
	size_t len = strlen(word);
	const char *p;

	for (p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = end && (isalnum((unsigned char)p[len]) || p[len] == '_');

		if (!before && !after)
			return true;
	}
	return false;
}

/* Whether "`name`" (or, with @suffix, "`name" + suffix) is in @text. */
static bool names(const char *text, const char *name, const char *suffix)
{
	char want[160];

	snprintf(want, sizeof(want), "`%.100s%.20s", name, suffix);
	return strstr(text, want);
}

/* Each entry of directory @dir but "enable" and "filter". */
static int entries(const char *dir, char out[][64], int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "enable") ||
		    !strcmp(e->d_name, "filter"))
			continue;
		snprintf(out[n++], 64, "%.63s", e->d_name);
	}
	closedir(d);
	return n;
}

static void check_params(void)
{
	char *table = section(readme, "## Module parameters", "\n## ");
	char have[32][64], *row, *save = NULL, val[64], name[64], def[64];
	int n = entries(PARAMS, have, 32), rows = 0, i;

	ASSERT_GT(n, 0, "parameters in " PARAMS);
	for (i = 0; i < n; i++)
		ASSERT_TRUE(names(table, have[i], "` |"), "parameter %s in the README's table",
			    have[i]);
	for (row = strtok_r(table, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
		if (sscanf(row, "| `%63[^`]` | `%63[^`]` |", name, def) != 2)
			continue;
		rows++;
		if (!ASSERT_OK(param_read(name, val, sizeof(val)), "documented parameter %s exists",
			       name))
			continue;
		val[strcspn(val, "\n")] = 0;
		ASSERT_STREQ(val, def, "default of %s as documented", name);
	}
	ASSERT_EQ(rows, n, "rows of the parameters table");
}

static void check_debugfs(void)
{
	char *list = bullets(design, "debugfs (``" DEBUGFS "/``):");
	char have[32][64], *line, *save = NULL, name[64], path[128];
	int n = entries(DEBUGFS, have, 32), bullets = 0, i;

	ASSERT_GT(n, 0, "files in " DEBUGFS);
	for (i = 0; i < n; i++)
		ASSERT_TRUE(names(list, have[i], "`"), "debugfs %s in the design's list", have[i]);
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "- ``%63[^`]``", name) != 1)
			continue;
		bullets++;
		snprintf(path, sizeof(path), DEBUGFS "/%s", name);
		ASSERT_OK(access(path, F_OK), "documented debugfs file %s exists", name);
	}
	ASSERT_EQ(bullets, n, "entries of the debugfs list");
}

static void check_stats(void)
{
	char *text = section(design, "- ``stats``:", "\n- ``");
	char stats[8192], *line, *save = NULL;
	int n = 0;

	snprintf(stats, sizeof(stats), "%s", file_read(DEBUGFS "/stats"));
	for (line = strtok_r(stats, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, ":")] = 0;
		ASSERT_TRUE(names(text, line, "`"), "stats line %s in the design", line);
		n++;
	}
	ASSERT_GT(n, 0, "lines of stats");
}

/* Every field of the sites lines, as the file's first line gives them. */
static void check_sites(void)
{
	char *text = section(design, "- ``sites``:", "\n- ``");
	char head[1024], *field, *save = NULL, want[80];

	snprintf(head, sizeof(head), "%s", file_read(DEBUGFS "/sites"));
	head[strcspn(head, "\n")] = 0;
	if (!ASSERT_PREFIX(head, "# site=", "the sites file's first line"))
		return;
	for (field = strtok_r(head + 2, " ", &save); field; field = strtok_r(NULL, " ", &save)) {
		snprintf(want, sizeof(want), "%.*s=", (int)strcspn(field, "="), field);
		ASSERT_TRUE(has_word(text, want, false), "sites field %s in the design", want);
	}
}

static void check_events(void)
{
	char have[16][64], want[96];
	int n = entries(EVENTS, have, 16), i;

	ASSERT_GT(n, 0, "events in " EVENTS);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "bpf_rtguard:%.63s", have[i]);
		ASSERT_TRUE(has_word(design, want, true) || names(design, have[i], "`"),
			    "event %s in the design", have[i]);
	}
}

/* Read @path whole into @buf of @size bytes; whether it was. */
static bool doc_read(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len = f ? fread(buf, 1, size - 1, f) : 0;

	if (f)
		fclose(f);
	buf[len] = 0;
	return ASSERT_GT(len, 1000, "%s", path) &&
	       ASSERT_LT(len, size - 1, "the whole of %s read", path);
}

WITH_MODULE(test_docs_reference, "");
void test_docs_reference(void)
{
	if (!doc_read(README, readme, sizeof(readme)) ||
	    !doc_read(DESIGN, design, sizeof(design)))
		return;
	if (test__start_subtest("params"))
		check_params();
	if (test__start_subtest("debugfs"))
		check_debugfs();
	if (test__start_subtest("stats"))
		check_stats();
	if (test__start_subtest("sites"))
		check_sites();
	if (test__start_subtest("events"))
		check_events();
}
