/*
 * Probe staging: a host-side probe handler (a kprobe's, running in Python
 * at a code hook) never writes the ring itself: it stages one record in its
 * CPU's probe_stage and guest code commits it (probe_commit_stub, in
 * kernel/trace_probe.c), so each guest ring keeps a single writer.  The
 * static asserts pin the layout the host mirrors.
 */
#ifndef _TRACE_PROBE_STAGE_H
#define _TRACE_PROBE_STAGE_H
#include "../kernel.h"

#define PROBE_STAGE_MAX 3072		/* payload bytes */
#define PROBE_STAGE_SIZE 3104		/* sizeof(struct probe_stage), for asm */

struct probe_stage {			/* one per CPU, host-written */
	volatile u32 len;		/* payload bytes after struct trace_entry; 0: nothing staged */
	u16 type;			/* common_type (the event's id) */
	u16 pad;
	u32 irqflags;			/* eflags of the probed context (the IF bit gives 'd') */
	u32 pad2;
	u64 slots;			/* trace-array slots that record it (anded with recording) */
	u64 triggers;			/* the slots whose triggers it goes through */
	u8 data[PROBE_STAGE_MAX];	/* the record body: what follows the 8-byte common header */
};

_Static_assert(offsetof(struct probe_stage, type) == 4, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, irqflags) == 8, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, slots) == 16, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, triggers) == 24, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, data) == 32, "probe_stage layout");
_Static_assert(sizeof(struct probe_stage) == PROBE_STAGE_SIZE && PROBE_STAGE_SIZE == 32 + PROBE_STAGE_MAX,
	       "probe_stage layout");

extern struct probe_stage probe_stage[NR_CPUS];

/* Commits this CPU's staged record, if any; preserves every register and the flags. */
void probe_commit_stub(void);

/*
 * Guest kprobe and kretprobe handlers (kernel/trace_probe.c): the host
 * compiles each probe event's fetch arguments (trace/probe_args.py FetchInsn
 * programs) into these tables (probes/guest_fetch.py mirrors them); the guest
 * runs them at a hit (a kretprobe's: at the return) as Linux's
 * process_fetch_insn() does and writes the record itself.  A point is a
 * probed address; its probes (an aggregate) chain through `next`.  Counters
 * (kprobe_profile) and the kretprobes' instance pools live here; the host
 * reads the counters and hands out the pools.
 */
#define KG_MAX_POINTS 1024
#define KG_MAX_PROBES 512
#define KG_MAX_ARGS 2048		/* kg_arg entries, all probes together */
/* the most dereferences an argument has: Linux's FETCH_INSN_MAX (16) instructions less the
 * load, the store and the end */
#define KG_MAX_DEREF 13
#define KG_MAX_STRING 4096		/* MAX_STRING_SIZE */
#define KG_MAX_INSTS 8192		/* kretprobe instances, all pools together */
#define KG_INST_HASH 64			/* the tasks' instance chains (current->rethooks) */
#define KG_TASK_SIZE ((1UL << 47) - 4096)
/* the physical address of va through the current page tables, -1 if not mapped (no fault) */
long kg_translate(u64 va);
/* copy_from_{kernel,user}_nofault() of n bytes at va: 0, or -1 when a byte is not mapped */
int kg_read(void *dst, u64 va, u32 n, bool user);

/* KG_LOAD_DATA: an immediate string (\"text"), NUL-terminated in kg_arg.deref
 * (an argument is at most MAX_ARGSTR_LEN 63 characters, so its text fits) */
/* KG_LOAD_FIELD (eprobes): a field of the attached event's record at offset
 * param, as get_event_field() reads it: imm is its size | KG_FIELD_SIGNED, or a
 * KG_FIELD_*_STRING kind (the value: the string's address) */
/* KG_LOAD_USTACK (uprobes' $stackN): get_user_stack_nth(), word param of the user stack (0
 * where the copy faults); KG_LOAD_FOFFS (uprobes' @+OFFSET): translate_user_vaddr(), the probed
 * address plus imm (the file offset less the probe's: where the file is mapped, plus it) */
enum { KG_LOAD_REG, KG_LOAD_IP, KG_LOAD_STACK, KG_LOAD_IMM, KG_LOAD_COMM, KG_LOAD_DATA, KG_LOAD_FIELD,
       KG_LOAD_USTACK, KG_LOAD_FOFFS };
#define KG_FIELD_SIGNED		0x100
#define KG_FIELD_DYN_STRING	0x200	/* __data_loc char[] */
#define KG_FIELD_STATIC_STRING	0x400	/* char[N] */
#define KG_FIELD_PTR_STRING	0x800	/* char * */
/* KG_ST_SYMSTR: sprint_symbol() of the value (kernel/kallsyms.c), stored as a string */
enum { KG_ST_RAW, KG_ST_MEM, KG_ST_UMEM, KG_ST_STRING, KG_ST_USTRING, KG_ST_SYMSTR };

struct kg_arg {				/* one argument's fetch program */
	u8 load;			/* KG_LOAD_* */
	u8 store;			/* KG_ST_* */
	u8 size;			/* the stored value's bytes (string: 4, its data location) */
	u8 nderef;			/* dereferences between load and store */
	u8 basesize, lshift, rshift;	/* bitfield (basesize 0: none) */
	u8 pad;
	u16 offset;			/* its slot in the argument area */
	u16 param;			/* KG_LOAD_REG: pt_regs index; KG_LOAD_STACK: n */
	u16 plain;			/* 1: KG_LOAD_REG stored as is, the commonest (few branches) */
	u16 count;			/* an array's elements (TYPE[N]); 0: a scalar */
	u64 imm;			/* KG_LOAD_IMM */
	s64 store_off;
	u32 user_mask;			/* bit i: dereference i is a uderef */
	u32 pad2;
	s64 deref[KG_MAX_DEREF];	/* KG_LOAD_DATA: the string */
};

struct kg_probe {
	volatile u64 slots;		/* trace-array slots of its event; 0: disabled */
	volatile u64 triggers;		/* the slots with triggers on its event */
	u16 type;			/* the event's id */
	u16 nargs;
	u32 first_arg;			/* index in kg_args */
	u32 args_size;			/* the fixed argument area's bytes */
	u32 next;			/* the point's next probe + 1; 0: the last */
	u8 plain;			/* 1: every argument plain (no string: its size is known) */
	u8 is_return;			/* a kretprobe: records at the return, through its instances */
	u16 pad;
	u64 nhit, nmissed;
	u32 first_inst, ninst;		/* a kretprobe's pool (MAXACTIVE): kg_insts[first_inst..+ninst) */
	u32 free;			/* its first free instance + 1; 0: the pool is empty */
	u32 pad2;
};

/*
 * A kretprobe instance (struct kretprobe_instance + rethook_node): one call
 * in flight.  Taken from its probe's pool at the entry, it keeps the return
 * address it found and sits on its task's chain (newest first) until the
 * call returns through arch_rethook_trampoline.
 */
struct kg_inst {
	u64 task;			/* the task that made the call; 0: free */
	u64 sp;				/* the entry rsp: where the return address is */
	u64 ret_addr;			/* what was there (the trampoline: another instance's) */
	u64 func;			/* the probed function (the record's ip) */
	u32 probe;			/* its probe's index */
	u32 next;			/* + 1: the next on its free list or its task's chain */
	s32 pid;			/* the task's pid then (a freed task's struct is reused) */
	u32 pad;
};
/* How an int3 point's instruction is emulated (prepare_emulation()'s emulate_op); 0: its copy
 * is single-stepped */
#define KG_EMULATE_IFMODIFIERS	1
#define KG_EMULATE_RET		2
#define KG_EMULATE_CALL		3
#define KG_EMULATE_JMP		4
#define KG_EMULATE_JCC		5
#define KG_EMULATE_LOOP		6
#define KG_EMULATE_CALL_INDIRECT 7
#define KG_EMULATE_JMP_INDIRECT	8

struct kg_point {			/* its index is fixed while armed: slot code pushes it */
	u64 addr;
	u32 first;			/* its first probe + 1; 0: none (not a guest point) */
	u32 insn;			/* an int3 point's copy: its offset in kprobe_insn_slots + 1 */
	/* an int3 point's struct arch_specific_insn, for an emulated instruction: */
	u8 emulate;			/* KG_EMULATE_* */
	u8 size;			/* the instruction's length */
	u8 type;			/* the opcode (IF modifiers), jcc.type, loop.type, indirect.reg */
	u8 asize;			/* loop.asize */
	s32 rel32;
	u32 host;			/* an int3 point whose probes' handlers are the host's */
	u32 pad;
};

struct kprobe_guest {
	u32 norder;			/* the ftrace path's search: */
	u32 pad;
	u16 order[KG_MAX_POINTS];	/* the points' indexes, by address */
	struct kg_point points[KG_MAX_POINTS];
	struct kg_probe probes[KG_MAX_PROBES];
	struct kg_arg args[KG_MAX_ARGS];
	u32 chains[KG_INST_HASH];	/* by task: its newest instance + 1 */
	struct kg_inst insts[KG_MAX_INSTS];
};

_Static_assert(sizeof(struct kg_arg) == 40 + 8 * KG_MAX_DEREF, "kg_arg layout");
_Static_assert(offsetof(struct kg_arg, imm) == 16, "kg_arg layout");
_Static_assert(sizeof(struct kg_probe) == 72, "kg_probe layout");
_Static_assert(offsetof(struct kg_probe, first_inst) == 56, "kg_probe layout");
_Static_assert(sizeof(struct kg_inst) == 48, "kg_inst layout");
_Static_assert(offsetof(struct kg_probe, nhit) == 40, "kg_probe layout");
_Static_assert(sizeof(struct kg_point) == 32, "kg_point layout");
_Static_assert(offsetof(struct kprobe_guest, order) == 8, "kprobe_guest layout");
_Static_assert(offsetof(struct kprobe_guest, points) == 8 + 2 * KG_MAX_POINTS, "kprobe_guest layout");
_Static_assert(offsetof(struct kprobe_guest, probes) == 8 + 34 * KG_MAX_POINTS, "kprobe_guest layout");
_Static_assert(offsetof(struct kprobe_guest, args) == 8 + 34 * KG_MAX_POINTS + 72 * KG_MAX_PROBES,
	       "kprobe_guest layout");
_Static_assert(offsetof(struct kprobe_guest, chains) ==
	       8 + 34 * KG_MAX_POINTS + 72 * KG_MAX_PROBES + sizeof(struct kg_arg) * KG_MAX_ARGS, "kprobe_guest layout");
_Static_assert(offsetof(struct kprobe_guest, insts) ==
	       8 + 34 * KG_MAX_POINTS + 72 * KG_MAX_PROBES + sizeof(struct kg_arg) * KG_MAX_ARGS + 4 * KG_INST_HASH,
	       "kprobe_guest layout");

extern struct kprobe_guest kprobe_guest;
struct pt_regs;
/* ftrace-based kprobes: the point at regs->ip, if the guest handles it */
void kprobe_guest_ftrace(struct pt_regs *regs);
/* arch/kprobes.S kprobe_guest_stub: slot code `push $point; call kprobe_guest_stub` */
void kprobe_guest_slot(unsigned long point, struct pt_regs *regs);
/* the guest point at addr (NULL: none) */
const struct kg_point *kprobe_guest_point(unsigned long addr);
/* A uprobe event's record program (probe: its index) at a hit or, is_ret, at the return of
 * func: the record staged in this cpu's probe_stage as a host handler stages one (the caller
 * commits it).  fault not NULL: a user page the fetch met not mapped in yet goes in *fault and
 * nothing is staged (the caller faults it in and asks again). */
void uprobe_guest_record(u32 probe, struct pt_regs *regs, u64 func, bool is_ret, unsigned long *fault);
/* kprobe_int3_handler()'s pre-handler of a point */
void kprobe_dispatcher(const struct kg_point *pt, struct pt_regs *regs);
/* PORT_KPROBE_HIT's db_arg[1]: the host runs a host point's handlers (db_arg[0]: the pt_regs,
 * db_arg[2]: the point's address), stages an aggregate's next record, or counts a miss */
#define KPROBE_HOST_HIT		0
#define KPROBE_HOST_NEXT	1
#define KPROBE_HOST_MISSED	2	/* a hit whose handlers did not run (reentered) */
/* arch/kprobes.S arch_rethook_trampoline: a guest instance's return (regs->sp: as after the
 * function's ret); 0: the slot below regs->sp is no guest instance's (the host's hook next) */
unsigned long kretprobe_guest_return(struct pt_regs *regs);
#endif
