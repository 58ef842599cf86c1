/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest tests, one function each; see rtgtest.c for the table. */
#ifndef _RTG_TESTS_H
#define _RTG_TESTS_H

void test_smp(void);
void test_passthrough(void);
void test_jit_identity(void);
void test_jit_hook_target(void);
void test_lifetime(void);
void test_param_einval(void);
void test_debug_mode_eperm(void);
void test_debug_mode_flag(void);
void test_verifier_max_refs(void);
void test_debug_seed_trace(void);
void test_debug_selection(void);
void test_debug_arg_counts(void);
void test_debug_two_cpus(void);
void test_debug_param_einval(void);
void test_pairing_complete(void);
void test_pairing_follows_modules(void);
void test_track_seeds(void);
void test_track_snapshot(void);
void test_track_scenarios(void);
void test_track_nesting(void);
void test_track_concurrency(void);
void test_track_pool_exhausted(void);
void test_watchdog_runtime(void);
void test_watchdog_subprog(void);
void test_watchdog_sections(void);
void test_watchdog_callback(void);
void test_watchdog_hold_limit(void);
void test_watchdog_all_cpus(void);
void test_watchdog_off(void);
void test_watchdog_tc_socket(void);
void test_watchdog_nested(void);
void test_watchdog_preempt(void);
void test_watchdog_spin_lock(void);


void demo_calls(void);
void bench_calls(void);
void bench_track(void);
void bench_watchdog(void);

#endif
