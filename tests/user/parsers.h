/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One parser per file the tests read: bpf_rtguard's debugfs files (calls,
 * progs, held, pairing, unpaired, kfuncs), its trace events, rtg-strace's
 * output and rtg_testmod's counters. When a format changes, this file and
 * parsers.c are the only places to change.
 */
#ifndef _RTG_PARSERS_H
#define _RTG_PARSERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* bpf_rtguard/calls: one line per hooked call site */
struct rtg_call_site {
	uint32_t prog_id;
	char prog[32];
	uint32_t insn;
	uint64_t count;
	int may_fail;	/* fast-execute may skip the call and return NULL */
	char func[64];	/* without a " [module]" suffix */
};

/* The sites, up to max; their number or -errno. */
int calls_read(struct rtg_call_site *sites, int max);

/* bpf_rtguard/progs: one line per hooked program image */
struct rtg_prog_line {
	uint32_t id, func_idx, sites, max_refs, held_bytes;
	int debug_mode;
	char name[32];
};

/* The line of program id (its first image); 0 or -ENOENT/-errno. */
int progs_find(uint32_t id, struct rtg_prog_line *pl);

/* bpf_rtguard/held: a tracked program's counters and its in-flight runs */
struct rtg_held {
	char name[32];
	unsigned int slots;
	long incomplete, unmatched, leftover, stray, stops, released, reported;
	int stoppable;
	long long stop_ret;
	int unwind;		/* the watchdog may unwind its runs */
	int described;		/* its runs keep no table: the verifier describes them */
	int partly;		/* a table only for the calls whose paths differ */
	int lazy;		/* runs made current only when needed */
	int bare;		/* calls its table does not need make no post hook */
	unsigned int run_area;	/* bytes of each run's frame kept for the module */
	int lazy_runs;		/* lazy runs of any program in flight, not adopted */
	int lazy_exits;		/* adopted ones in flight that keep nothing in their frames */
	int nruns;		/* "run pid=" lines under the program */
	char text[16384];	/* the indented lines under it, verbatim */
};

/* Program id's entry; 0 or -ENOENT/-errno. */
int held_find(uint32_t id, struct rtg_held *h);

/*
 * bpf_rtguard/pairing ("acquire btf ...") and unpaired ("acquire btf: why"):
 * the line for an acquiring function of a BTF (any BTF if btf is NULL).
 */
bool pairing_find(const char *acquire, const char *btf, char *line, size_t len);
bool unpaired_find(const char *acquire, const char *btf, char *line, size_t len);

/* bpf_rtguard/kfuncs: every registered kfunc with its flags */
struct rtg_kfunc {
	char name[64];
	char btf[64];
	unsigned int flags;
};

#define KF_ACQUIRE	(1 << 0)
#define KF_ITER_NEW	(1 << 8)

/* The kfuncs, up to max; their number or -errno. */
int kfuncs_read(struct rtg_kfunc *kf, int max);

/* Trace events bpf_rtguard:rtg_acquire and rtg_release */
struct track_event {
	bool acquire;
	uint32_t insn;
	uint64_t obj;
	int acq_insn;	/* releases: the acquiring site, -1 if none */
	char func[64];
};

/* Program id's events in the trace buffer, in order; their number or -errno. */
int track_events_read(uint32_t id, struct track_event *ev, int max);
/* How many rtg_release events name func (any program) */
int track_releases_of(const char *func);

/*
 * rtg-strace's output for one program: one line per call,
 * "[   time] name+insn file:line func(args) = ret <dur>". Returns the number of
 * lines (the array is reused by the next call), or -errno; *lost gets the
 * events lost (~0 when unknown) if lost is set.
 */
#define STRACE "/rtg/rtg-strace"
int strace_start(void);		/* empty the buffer, enable rtg_call */
int strace_start_graph(void);	/* the same, and runs recorded (-g --enable) */
void strace_stop(void);		/* disable rtg_call */
int strace_lines(uint32_t id, char ***lines, unsigned long long *lost);
/* The same with any arguments ("-p 5 -c", "-j -p 5 -e FUNC") */
int strace_run(const char *args, char ***lines, unsigned long long *lost);
/*
 * Run rtg-strace with args (stdout to /tmp/strace.out): its exit status,
 * and the first line it wrote to stderr in err
 */
int strace_status(const char *args, char *err, size_t len);
/*
 * The text of the rtg_call events in tracefs trace: one line per call of
 * the program named prog, "prog+insn func(args) = ret <dur> pid=N", the
 * first call of a record on the event's own line and the others on lines
 * of their own
 */
int trace_text_calls(const char *prog, char ***lines);
/* rtg-strace -c: the calls and errors of func's row; 0 or -ENOENT */
int strace_summary_row(char **lines, int n, const char *func,
		       unsigned long long *calls, unsigned long long *errors);
/*
 * rtg-strace -j: whether s is one whole JSON object (its top-level keys,
 * up to max, or -EINVAL), and the value of one of its keys, strings
 * without quotes (the first occurrence of "key": in s; 0 or -ENOENT)
 */
int json_object_keys(const char *s, char keys[][32], int max);
int json_get(const char *s, const char *key, char *val, size_t len);
/*
 * rtg-strace's line "[   time] name+insn file:line func(args) = ret <dur>":
 * the call, "func(args) = ret <dur>"; the source location (0 or -ENOENT)
 */
const char *strace_call(const char *line);
int strace_source(const char *line, char *file, size_t len, int *lineno);

/* rtg_testmod's debugfs counters and switches */
#define TESTMOD_DIR "/sys/kernel/debug/rtg_testmod/"
int testmod_live(uint64_t *live);	/* objects handed out, not put */
int testmod_waiting(uint64_t *n);	/* runs blocked in rtg_test_wait() */
int testmod_go(bool go);		/* let blocked runs go on, or not */
/* task_usage: write a pid, read its references from BPF task kfuncs (rcu_users) */
int testmod_task_usage(int pid, uint64_t *usage);

#endif
