// SPDX-License-Identifier: GPL-2.0-only
/* The guest has as many online CPUs as QEMU was given (-smp, rtg.smp=). */
#include <stdlib.h>
#include <unistd.h>

#include "rtgtest.h"

void test_smp(void)
{
	char cmdline[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	char *p;

	if (!ASSERT_OK_PTR(f, "/proc/cmdline"))
		return;
	ASSERT_OK_PTR(fgets(cmdline, sizeof(cmdline), f), "read /proc/cmdline");
	fclose(f);
	p = strstr(cmdline, "rtg.smp=");
	if (!ASSERT_OK_PTR(p, "rtg.smp= on the command line"))
		return;
	ASSERT_EQ(ncpus(), (int)strtol(p + 8, NULL, 10), "CPUs online vs QEMU's -smp");
	printf("  %d CPUs online\n", ncpus());
}
