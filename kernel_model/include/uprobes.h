/*
 * uprobes (include/linux/uprobes.h, kernel/events/uprobes.c): breakpoints in user programs,
 * per inode+offset.  The host's uprobe engine (probes/uprobes.py) fills uprobe_points: a point
 * is armed while some consumer (a uprobe event that is enabled) wants it.  The guest puts the
 * int3 in every page of the file it reads in for a mapping (uprobe_page_in: an exec or mmap
 * that comes later arms it), and handles its hits (uprobe_handle_swbp from exc_int3).  The
 * host installs and removes the int3 in the pages already mapped.
 */
#ifndef _UPROBES_H
#define _UPROBES_H
#include "types.h"

#define UPROBES_MAX		256
#define UPROBE_SWBP_INSN	0xcc

/* uprobe_point.flags */
#define UPROBE_ARMED		0x1	/* the int3 is wanted in the file's pages */
#define UPROBE_RET		0x2	/* a consumer wants the return (uretprobe) */
#define UPROBE_EMU_CALL		0x4	/* call rel32: emulated, not stepped */
#define UPROBE_EMU_JMP		0x8	/* jmp rel8/rel32: emulated */
#define UPROBE_EMU_JCC		0x10	/* jcc rel8/rel32: emulated (cc: its condition) */
#define UPROBE_XOL_BYTES	48
#define UPROBE_GUEST_CONSUMERS	16	/* consumers per point (each way) whose records the guest can make */

struct uprobe_point {			/* host-written */
	u64 ino;			/* the file's inode (hostfs: the host's st_ino) */
	u64 offset;			/* of the probed instruction in the file */
	u32 flags;
	u32 len;			/* bytes of the original instruction */
	s64 rel;			/* an emulated branch: its displacement */
	u32 n_entry;			/* consumers with a handler at the hit */
	u32 n_ret;			/* consumers with a handler at the return */
	u64 nhit;			/* guest-counted hits */
	u32 xol_len;			/* the out-of-line code (a jump back follows it) */
	u32 riprel_at;			/* 0, or where in it the original rip (bp + len) goes, 8 bytes:
					 * a RIP-relative operand rewritten to a scratch register */
	u32 cc;				/* an emulated jcc's condition (its opcode's low nibble) */
	u32 pad;
	u8 xol[UPROBE_XOL_BYTES];
	/* consumer k's record program (at the hit; at the return): its kprobe_guest.probes index
	 * + 1, which the guest runs (trace_probe.c uprobe_guest_record); UPROBE_PERF_CONSUMER | slot:
	 * a perf event's (trace/uprobe_perf.h); 0: the host's handler */
	u32 entry_probe[UPROBE_GUEST_CONSUMERS];
	u32 ret_probe[UPROBE_GUEST_CONSUMERS];
};

struct uprobe_points {
	u32 count;			/* entries in use: [0, count) */
	u32 pad;
	struct uprobe_point p[UPROBES_MAX];
};

extern struct uprobe_points uprobe_points;

struct pt_regs;
struct file;
struct mm_struct;
struct task_struct;

void uprobe_page_in(struct file *file, u64 pos, void *kaddr);
int uprobe_handle_swbp(struct pt_regs *regs);
void uprobe_clear_state(struct mm_struct *mm);
void uprobe_free_utask(struct task_struct *t);
void uprobe_copy_process(struct task_struct *t, struct mm_struct *oldmm);
/* the host's handlers run here (a code hook): consumer `k` of point `idx` */
/* What uprobe_dispatch() hands the host at its doorbell (PORT_UPROBE): consumer k of point idx
 * (at the hit, or at the return when is_ret) runs on regs; fault: see uprobe_dispatch(). */
struct uprobe_call {
	u64 regs, idx, k, func, is_ret, fault;
};
void uprobe_dispatch(struct pt_regs *regs, u64 idx, u64 k, u64 func, u64 is_ret, unsigned long *fault);
#endif
