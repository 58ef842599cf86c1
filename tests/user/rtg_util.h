/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the guest tests. */
#ifndef _RTG_UTIL_H
#define _RTG_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern int rtg_failures;

/* Record a failed expectation; evaluates to whether cond held. */
#define CHECK(cond, fmt, ...) ({					\
	bool __ok = (cond);						\
	if (!__ok) {							\
		rtg_failures++;						\
		fprintf(stderr, "  check failed %s:%d: %s: " fmt "\n",	\
			__FILE__, __LINE__, #cond, ##__VA_ARGS__);	\
	}								\
	__ok;								\
})

/* Stop the test here: what follows depends on cond. */
#define REQUIRE(cond, fmt, ...) do {					\
	if (!CHECK(cond, fmt, ##__VA_ARGS__))				\
		return;							\
} while (0)

#define MOD_RTGUARD "bpf_rtguard"
#define MOD_TESTMOD "rtg_testmod"

int mod_load(const char *name, const char *params);
int mod_unload(const char *name);
int mod_unload_wait(const char *name, int timeout_ms);
bool mod_loaded(const char *name);
int write_file(const char *path, const char *val);
int param_write(const char *param, const char *val);
int param_read(const char *param, char *buf, size_t len);
int read_u64(const char *path, uint64_t *val);
uint64_t kallsyms_addr(const char *name);

struct rtg_call_site {
	uint32_t prog_id;
	char prog[32];
	uint32_t insn;
	uint64_t count;
	char func[64];	/* without a " [module]" suffix */
};

/* Read bpf_rtguard/calls; returns the number of sites or -errno. */
int read_call_sites(struct rtg_call_site *sites, int max);

uint32_t prog_id(int prog_fd);

#endif
