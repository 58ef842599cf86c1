/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What several tests do: load and unload modules, write parameters, run a
 * program once, read dmesg, pin a thread to a CPU. They return 0 or a
 * negative errno and assert nothing: the tests do.
 */
#ifndef _RTG_HELPERS_H
#define _RTG_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_program;

#define MOD_RTGUARD "bpf_rtguard"
#define MOD_TESTMOD "rtg_testmod"

/* Modules live in /rtg/NAME.ko in the guest. */
int mod_load(const char *name, const char *params);
int mod_unload(const char *name);
/*
 * Programs are freed after an RCU grace period and a work item: retry
 * while delete_module() says in use (EWOULDBLOCK), up to timeout_ms.
 */
int mod_unload_wait(const char *name, int timeout_ms);
bool mod_loaded(const char *name);

int write_file(const char *path, const char *val);
/* appends, where truncating would clear (kprobe_events, set_ftrace_filter) */
int append_file(const char *path, const char *val);
/* The whole of a (small) file, in a static buffer; "" when unreadable. */
const char *file_read(const char *path);
#define JIT_HARDEN "/proc/sys/net/core/bpf_jit_harden"
/* JIT_HARDEN set to 2, its value before kept in old: write_file()'s result */
int jit_harden_set(char *old, size_t len);
int read_u64(const char *path, uint64_t *val);
/* One "name: value" line of bpf_rtguard/stats: 0 or -ENOENT. */
int stat_read(const char *name, uint64_t *val);
/* bpf_rtguard's module parameters, read without the newline */
int param_write(const char *param, const char *val);
int param_read(const char *param, char *buf, size_t len);

uint64_t kallsyms_addr(const char *name);
uint32_t prog_id(int prog_fd);
uint32_t prog_id_of(const struct bpf_program *prog);
/* Load prog with BPF_F_DEBUG_MODE (before the skeleton's load) */
void prog_set_debug(struct bpf_program *prog);

/* Ethernet + IPv4 + TCP, enough for the flow dissector and skb helpers */
extern const uint8_t test_pkt[54];

/*
 * Run a program once with BPF_PROG_TEST_RUN (tc programs on test_pkt):
 * its return value, or -errno when the run itself failed.
 */
int run_prog(const struct bpf_program *prog);
/* The same, and how long the run took, in ms. */
int run_prog_timed(const struct bpf_program *prog, double *ms);
double now_ms(void);

/* The kernel log (the whole ring buffer; a static buffer) */
const char *dmesg_read(void);
bool dmesg_has(const char *text);
/* The last line of dmesg with text in it (a static buffer), or NULL. */
const char *dmesg_last_line(const char *text);
int dmesg_count(const char *text);
/*
 * The module's last "stopped prog" line for prog (a static buffer), or
 * "(no stop of NAME in dmesg)".
 */
const char *stop_line(const struct bpf_program *prog);

int ncpus(void);
/* Pin the calling thread to one CPU. */
int pin_cpu(int cpu);

/* A TCP listener on 127.0.0.1 and its port; the fd or -errno. */
int listen_loopback(uint16_t *port);

/* tracefs: enable or disable an event ("bpf_rtguard/rtg_acquire"), empty the buffer */
int trace_event_enable(const char *event, bool on);
int trace_clear(void);

/*
 * A cls_bpf filter of @prog_fd at @prio on @ifindex's clsact ingress
 * (which must exist), with or without direct action: 0 or -errno.
 */
int tc_attach_cls_bpf(int ifindex, int prog_fd, int prio, bool direct_action);

/* A ring_buffer__new() callback that counts records in the long at ctx. */
int ringbuf_count_record(void *ctx, void *data, size_t size);

#endif
