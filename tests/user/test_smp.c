// SPDX-License-Identifier: GPL-2.0-only
/* The guest has as many online CPUs as QEMU was given (-smp, rtg.smp=). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtg_util.h"
#include "rtg_tests.h"

void test_smp(void)
{
	char cmdline[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	char *p;
	long want, have = sysconf(_SC_NPROCESSORS_ONLN);

	REQUIRE(f && fgets(cmdline, sizeof(cmdline), f), "/proc/cmdline");
	fclose(f);
	p = strstr(cmdline, "rtg.smp=");
	REQUIRE(p, "no rtg.smp= on the command line");
	want = strtol(p + 8, NULL, 10);
	CHECK(have == want, "%ld CPUs online, QEMU has %ld", have, want);
	printf("  %ld CPUs online\n", have);
}
