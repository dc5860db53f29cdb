/*
 * Kprobe, eprobe and uprobe event records.  Two writers of the same records:
 * - the guest kprobe handlers (kprobe_guest_ftrace, kprobe_guest_slot) and
 *   kretprobe handlers (their entry there, kretprobe_guest_return at the
 *   return), eprobes' (eprobe_trigger_func) and uprobe events'
 *   (uprobe_guest_record, from kernel/events/uprobes.c): the fetch
 *   interpreter (Linux's process_fetch_insn / store_trace_args) over the
 *   tables the host compiled (include/trace/probe_stage.h);
 * - probe_stage_commit: the record a probe's host-side (Python) handler
 *   staged: the engines' API for a handler of the host's own.
 * Both as trace_event_buffer_reserve/commit do for a kprobe event in Linux:
 * common header from the probed context's flags, then the body.
 * tests/probes/test_kprobe_guest.py and test_uprobe_guest.py check the
 * records built here byte for byte against the tests' reference interpreter
 * (tests/probe_fetch_reference.py).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/probe_stage.h"
#include "../include/kprobes.h"
#include "../include/trace/trigger.h"
#include "../include/trace/synth.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/kprobe_perf.h"
#include "../include/kallsyms.h"

struct probe_stage probe_stage[NR_CPUS];

/* a kprobe event's file is its kg_probe's head (the trigger's enable_event target too) */
_Static_assert(offsetof(struct kg_probe, slots) == offsetof(struct trace_event_file, slots) &&
	       offsetof(struct kg_probe, triggers) == offsetof(struct trace_event_file, triggers) &&
	       offsetof(struct kg_probe, type) == offsetof(struct trace_event_file, type),
	       "kg_probe starts as a trace_event_file");

/*
 * kprobe_trace_func()'s trace_trigger_soft_disabled() for an event with
 * triggers (its file's `triggers`): rec, filled in this cpu's
 * event_trigger_scratch(), goes through the triggers and is committed in
 * the slots that record the event (its file's `slots`) by them.
 */
notrace void probe_trigger_commit(const struct trace_event_file *file, void *rec, u32 len, unsigned long irqflags)
{
	event_triggers_record(file, rec, len, trace_pid_filter_word0(this_cpu(), ~0ULL), NULL, irqflags,
			      (unsigned long)probe_trigger_commit, (unsigned long)__builtin_frame_address(0), (unsigned long)__builtin_frame_address(0));
}

/*
 * What a probe record's common fields show of the context the probe hit in: the flags
 * (the probed context's; an int3's handler passes its own, IF clear, which 6.1's
 * tracing_gen_ctx_dec() reads there) and how many preemption levels the record's writer
 * stands below this cpu's count less its own preempt_disable (the caller's preempt_disable
 * it stands for: optimized_callback()'s, kprobe_ftrace_handler()'s).  An int3's handler has
 * none: 1, and 6.1's count wraps, as here (trace_entry_fill_count(): `..Zff`).
 */
struct kg_ctx {
	unsigned long irqflags;
	unsigned int less;
};

static __always_inline void kg_fill(struct trace_entry *rec, u16 type, struct kg_ctx ctx)
{
	struct percpu *pc = this_cpu();

	trace_entry_fill_count(pc, rec, type, ctx.irqflags, trace_current_pid(pc), pc->preempt_count - ctx.less);
}

/* the record of a probe event with triggers, its body built elsewhere first */
static notrace void kg_record_triggered(const struct trace_event_file *file, const u8 *body, u32 len,
					struct kg_ctx ctx)
{
	struct trace_entry *rec = event_trigger_scratch(sizeof(*rec) + len);
	unsigned long irqflags = ctx.irqflags;

	if (!rec)
		return;
	preempt_disable();	/* the record shows the probed context's count */
	kg_fill(rec, file->type, ctx);
	memcpy(rec + 1, body, len);
	probe_trigger_commit(file, rec, sizeof(*rec) + len, irqflags);
	preempt_enable_no_resched();
}

/* The record the host staged on this cpu, written as a probe's writer with ctx writes it. */
static notrace void probe_stage_commit_ctx(struct probe_stage *st, struct kg_ctx ctx)
{
	u32 len = st->len;
	u64 slots = dyn_file_slots(st->slots, st->type), triggers = st->triggers;

	if (len <= PROBE_STAGE_MAX && triggers) {
		struct trace_event_file file = { .slots = slots, .triggers = triggers, .type = st->type };

		kg_record_triggered(&file, st->data, len, ctx);
	} else if (len <= PROBE_STAGE_MAX) {
		struct trace_event_file file = { .slots = slots, .type = st->type };
		struct trace_entry *rec;

		preempt_disable();	/* the record shows the probed context's count */
		rec = trace_event_buffer_reserve(&file, sizeof(*rec) + len);
		if (rec) {
			kg_fill(rec, file.type, ctx);
			memcpy(rec + 1, st->data, len);
			trace_event_commit(rec, sizeof(*rec) + len);
		}
		preempt_enable_no_resched();
	}
	st->len = 0;
}

notrace void probe_stage_commit(void)
{
	struct probe_stage *st = &probe_stage[this_cpu()->h.cpu];
	unsigned long flags = arch_local_irq_save();

	probe_stage_commit_ctx(st, (struct kg_ctx){ st->irqflags, 0 });
	arch_local_irq_restore(flags);
}

/*
 * probe_commit_stub: called from the probe trampolines, which must not
 * change a register or a flag of the probed context.  Nothing staged (the
 * common case) costs a few instructions.
 */
asm(
"	.text\n"
"	.globl probe_commit_stub\n"
"	.type probe_commit_stub, @function\n"
"probe_commit_stub:\n"
"	pushfq\n"
"	pushq	%rax\n"
"	movq	%gs:8, %rax\n"			/* hostif_cpu.cpu */
"	imulq	$" __stringify(PROBE_STAGE_SIZE) ", %rax\n"
"	cmpl	$0, probe_stage(%rax)\n"
"	jne	1f\n"
"	popq	%rax\n"
"	popfq\n"
"	ret\n"
"1:	pushq	%rcx\n"
"	pushq	%rdx\n"
"	pushq	%rsi\n"
"	pushq	%rdi\n"
"	pushq	%r8\n"
"	pushq	%r9\n"
"	pushq	%r10\n"
"	pushq	%r11\n"
"	call	probe_stage_commit\n"
"	popq	%r11\n"
"	popq	%r10\n"
"	popq	%r9\n"
"	popq	%r8\n"
"	popq	%rdi\n"
"	popq	%rsi\n"
"	popq	%rdx\n"
"	popq	%rcx\n"
"	popq	%rax\n"
"	popfq\n"
"	ret\n"
"	.size probe_commit_stub, .-probe_commit_stub\n");

/* ---- guest kprobe handlers (include/trace/probe_stage.h) ---- */

struct kprobe_guest kprobe_guest;
/* the record being built, per CPU; 8 bytes of slack: a slot is written as one u64 */
u8 kg_body[NR_CPUS][PROBE_STAGE_MAX + 8];
static u8 kg_busy[NR_CPUS];

#define KG_PTE_P 0x001UL
#define KG_PTE_PS 0x080UL
#define KG_PTE_ADDR 0x000ffffffffff000UL

/* The physical address of va through the current CR3, as the host's
 * HookContext.translate(); -1: not mapped (never a fault). */
notrace long kg_translate(u64 va)
{
	u64 ram = boot_params.ram_size, table, e, pa;
	int shift;

	if (va >= __START_KERNEL_map)
		return va - __START_KERNEL_map < ram ? (long)(va - __START_KERNEL_map) : -1;
	if (va >= PAGE_OFFSET && va - PAGE_OFFSET < ram)
		return va - PAGE_OFFSET;
	if (va >> 47 && va >> 47 != 0x1ffff)	/* non-canonical; the kernel's other ranges
						 * (vmalloc, vmemmap) by the walk */
		return -1;
	asm volatile("movq %%cr3, %0" : "=r"(table));
	table &= KG_PTE_ADDR;
	for (shift = 39; shift >= 12; shift -= 9) {
		u64 epa = table + 8 * ((va >> shift) & 511);
		if (epa + 8 > ram)
			return -1;
		e = *(u64 *)__va(epa);
		if (!(e & KG_PTE_P))
			return -1;
		if (shift != 12 && (e & KG_PTE_PS)) {
			pa = (e & KG_PTE_ADDR & ~((1UL << shift) - 1)) | (va & ((1UL << shift) - 1));
			return pa < ram ? (long)pa : -1;
		}
		table = e & KG_PTE_ADDR;
	}
	pa = table | (va & 0xfff);
	return pa < ram ? (long)pa : -1;
}

/*
 * A uprobe's fetch runs where Linux's copy_from_user() may fault a page in: the first user
 * address a read met not mapped is noted (per cpu, while uprobe_guest_record() asks for it),
 * so that the page can be brought in and the fetch run again.
 */
static u64 kg_user_fault[NR_CPUS];
static bool kg_note_faults[NR_CPUS];

static notrace void kg_note_fault(u64 va)
{
	int cpu = this_cpu()->h.cpu;

	if (kg_note_faults[cpu] && !kg_user_fault[cpu])
		kg_user_fault[cpu] = va;
}

/* copy_from_{kernel,user}_nofault(): 0, or -1 when a byte is not mapped */
notrace int kg_read(void *dst, u64 va, u32 n, bool user)
{
	u8 *d = dst;

	if (user ? va + n > KG_TASK_SIZE || va + n < va : va < KG_TASK_SIZE)
		return -1;
	while (n) {
		long pa = kg_translate(va);
		u32 chunk = 4096 - (va & 4095);

		if (pa < 0) {
			if (user)
				kg_note_fault(va);
			return -1;
		}
		if (chunk > n)
			chunk = n;
		memcpy(d, __va(pa), chunk);
		d += chunk;
		va += chunk;
		n -= chunk;
	}
	return 0;
}

/* strncpy_from_{kernel,user}_nofault() into dst (room: max bytes, NUL
 * excluded): the length, or -1 on a fault before the NUL (also used by the
 * event triggers' filters, kernel/trace_events_trigger.c). */
notrace long kg_read_string(u8 *dst, u64 va, long max, bool user)
{
	long got = 0, limit = KG_MAX_STRING;

	if (user != (va < KG_TASK_SIZE))
		return -1;
	while (got < limit) {
		long pa = kg_translate(va);
		long chunk = 4096 - (va & 4095), i;
		const u8 *s;

		if (pa < 0) {
			if (user)
				kg_note_fault(va);
			return -1;
		}
		if (chunk > limit - got)
			chunk = limit - got;
		s = __va(pa);
		for (i = 0; i < chunk && s[i]; i++)
			if (got + i < max)
				dst[got + i] = s[i];
		got += i;
		if (i < chunk)
			break;
		va += chunk;
	}
	return got < KG_MAX_STRING - 1 ? got : KG_MAX_STRING - 1;
}

/* regs_get_kernel_stack_nth(): 0 outside the probed context's stack */
static notrace u64 kg_stack(struct pt_regs *regs, u32 n)
{
	u64 sp = regs->sp, addr = sp + 8 * (u64)n, v;

	if ((addr & ~(THREAD_SIZE - 1)) != (sp & ~(THREAD_SIZE - 1)))
		return 0;
	return kg_read(&v, addr, 8, addr < KG_TASK_SIZE) ? 0 : v;
}

/* A size-byte slot written with one unaligned u64 store, without a branch
 * (every branch ends an emulated block): the bytes after it are kept. */
static __always_inline void kg_put(u8 *slot, u64 val, u32 size)
{
	u64 m = ~0UL >> (64 - 8 * size), *q = (u64 *)slot;

	*q = (*q & ~m) | (val & m);
}

/* A string's data location in its slot, the string itself at *pos (fault:
 * length 0 there); -1 when the record would not fit. */
static notrace int kg_store_string(const struct kg_arg *a, u64 addr, bool fault, u8 *body,
				   u8 *slot, u32 *pos)
{
	long n = -1;

	if (!fault) {
		u32 room = *pos < PROBE_STAGE_MAX ? PROBE_STAGE_MAX - *pos : 0;

		n = kg_read_string(body + *pos, addr, room ? room - 1 : 0,
				   a->store == KG_ST_USTRING || addr < KG_TASK_SIZE);
	}
	if (n < 0) {		/* a fault's location: length 0 */
		*(u32 *)slot = (*pos + sizeof(struct trace_entry)) & 0xffff;
		return 0;
	}
	if (*pos + n + 1 > PROBE_STAGE_MAX)
		return -1;
	body[*pos + n] = 0;
	*(u32 *)slot = ((n + 1) << 16) | ((*pos + sizeof(struct trace_entry)) & 0xffff);
	*pos += n + 1;
	return 0;
}

/*
 * fetch_store_symstring(): the name of the symbol at addr (sprint_symbol()) at *pos, whose NUL
 * the next string overwrites.  Its data location's length is the room the record's strings
 * leave from there (6.1's: it keeps the maxlen store_trace_args() put there), known once they
 * are all stored: until then the slot holds KG_SYMSTR_PENDING with its offset
 * (kg_symstr_locs()).  A fault's location: length 0, as a string's.
 */
#define KG_SYMSTR_PENDING	0xffff0000u

static notrace int kg_store_symstr(u64 addr, bool fault, u8 *body, u8 *slot, u32 *pos)
{
	char name[KSYM_SYMBOL_LEN];
	u32 offs = (*pos + sizeof(struct trace_entry)) & 0xffff;
	int n;

	if (fault) {
		*(u32 *)slot = offs;
		return 0;
	}
	n = sprint_symbol(name, addr);
	if (*pos + n + 1 > PROBE_STAGE_MAX)
		return -1;
	memcpy(body + *pos, name, n + 1);
	*(u32 *)slot = KG_SYMSTR_PENDING | offs;
	*pos += n;
	return 0;
}

/* The pending symstr locations of args [a, end) (slots at body + arg_base): the room each
 * leaves is what __get_data_size() counted, every string with its NUL, from its own start;
 * the NULs the next strings overwrote come after the last (zero).  The record's length, or -1
 * when they do not fit. */
static notrace int kg_symstr_locs(const struct kg_arg *a, const struct kg_arg *end, u8 *body,
				  u32 arg_base, u32 pos)
{
	const struct kg_arg *first = a;
	u32 nsym = 0, room, i, *loc;

	for (; a < end; a++)
		for (i = 0; a->store == KG_ST_SYMSTR && i < (a->count ? a->count : 1); i++)
			nsym += (*(u32 *)(body + arg_base + a->offset + 4 * i) & KG_SYMSTR_PENDING) == KG_SYMSTR_PENDING;
	if (pos + nsym > PROBE_STAGE_MAX)
		return -1;
	room = pos + nsym + sizeof(struct trace_entry);		/* where the strings end, as offsets count */
	for (a = first; a < end; a++)
		for (i = 0; a->store == KG_ST_SYMSTR && i < (a->count ? a->count : 1); i++) {
			loc = (u32 *)(body + arg_base + a->offset + 4 * i);
			if ((*loc & KG_SYMSTR_PENDING) == KG_SYMSTR_PENDING)
				*loc = (room - (*loc & 0xffff)) << 16 | (*loc & 0xffff);
		}
	memset(body + pos, 0, nsym);
	return pos + nsym;
}

/*
 * process_fetch_insn() for one argument, writing it as store_trace_args()
 * does: a number into its slot (left zero on a fault), a string after the
 * fixed area with its __data_loc in the slot; an array element by element
 * (numbers: consecutive in memory; strings: each through the next pointer,
 * the last dereference redone 8 bytes further on).  *pos: where the next
 * string goes (body offset); returns -1 when the record would not fit.
 */
/* get_event_field() of trace_eprobe.c: a field of the attached event's record */
static notrace u64 kg_event_field(const struct kg_arg *a, const u8 *rec)
{
	const u8 *addr = rec + a->param;

	if (a->imm & KG_FIELD_DYN_STRING)
		return (u64)(rec + (*(const u32 *)addr & 0xffff));
	if (a->imm & KG_FIELD_STATIC_STRING)
		return (u64)addr;
	if (a->imm & KG_FIELD_PTR_STRING)
		return *(const u64 *)addr;
	switch (a->imm) {
	case 1: return *addr;
	case 1 | KG_FIELD_SIGNED: return *(const s8 *)addr;
	case 2: return *(const u16 *)addr;
	case 2 | KG_FIELD_SIGNED: return *(const s16 *)addr;
	case 4: return *(const u32 *)addr;
	case 4 | KG_FIELD_SIGNED: return *(const s32 *)addr;
	default: return *(const u64 *)addr;
	}
}

static notrace int kg_fetch(const struct kg_arg *a, struct pt_regs *regs, u64 ip, u64 bp_addr, u8 *body,
			    u32 arg_base, u32 *pos, const u8 *rec)
{
	u64 val, lval, addr, v;
	u8 *slot = body + arg_base + a->offset;
	u32 count = a->count ? a->count : 1, n;
	bool fault = false;
	int i;

	switch (a->load) {
	case KG_LOAD_REG:
		val = ((u64 *)regs)[a->param];
		break;
	case KG_LOAD_IP:
		val = ip;
		break;
	case KG_LOAD_STACK:
		val = kg_stack(regs, a->param);
		break;
	case KG_LOAD_USTACK:
		addr = regs->sp + 8 * (u64)a->param;
		val = kg_read(&v, addr, 8, true) ? 0 : v;
		break;
	case KG_LOAD_FOFFS:
		val = bp_addr + a->imm;
		break;
	case KG_LOAD_IMM:
		val = a->imm;
		break;
	case KG_LOAD_FIELD:
		val = kg_event_field(a, rec);
		break;
	case KG_LOAD_COMM:
		if (a->store < KG_ST_STRING || a->nderef) {	/* an eprobe's $comm: its address */
			struct task_struct *t = current;

			val = t ? (u64)t->comm : 0;
			break;
		}
		/* fallthrough */
	default: {		/* KG_LOAD_COMM, KG_LOAD_DATA: the string itself */
		const char *text = (const char *)a->deref;	/* an immediate string's bytes */
		u32 len = 0, max = sizeof(a->deref) - 1;

		if (a->load == KG_LOAD_COMM) {
			struct task_struct *t = current;

			text = t ? t->comm : "";
			max = TASK_COMM_LEN;
		}
		while (len < max && text[len])
			len++;
		if (*pos + len + 1 > PROBE_STAGE_MAX)
			return -1;
		if (len)
			memcpy(body + *pos, text, len);
		body[*pos + len] = 0;
		*(u32 *)slot = ((len + 1) << 16) | ((*pos + sizeof(struct trace_entry)) & 0xffff);
		*pos += len + 1;
		return 0;
	}
	}
	lval = val;
	for (i = 0; i < a->nderef && !fault; i++) {
		lval = val;
		addr = val + a->deref[i];
		fault = kg_read(&val, addr, 8, (a->user_mask >> i) & 1 || addr < KG_TASK_SIZE);
	}
	for (n = 0; n < count; n++, slot += a->size) {
		if (a->store >= KG_ST_STRING) {
			if (n && !fault && a->nderef) {	/* the next pointer */
				i = a->nderef - 1;
				addr = lval + 8 * n + a->deref[i];
				fault = kg_read(&val, addr, 8, (a->user_mask >> i) & 1 || addr < KG_TASK_SIZE);
			} else if (n && !fault) {
				val = lval + 8 * n;
			}
			if (a->store == KG_ST_SYMSTR ? kg_store_symstr(val + a->store_off, fault, body, slot, pos) :
			    kg_store_string(a, val + a->store_off, fault, body, slot, pos))
				return -1;
			continue;
		}
		if (fault) {		/* a number that faulted stays zero */
			kg_put(slot, 0, a->size);
			continue;
		}
		v = val + n * a->size;
		if (a->store != KG_ST_RAW) {	/* KG_ST_MEM, KG_ST_UMEM */
			addr = v + a->store_off;
			v = 0;
			if (kg_read(&v, addr, a->size, a->store == KG_ST_UMEM || addr < KG_TASK_SIZE)) {
				kg_put(slot, 0, a->size);
				continue;
			}
		}
		if (a->basesize) {
			v &= ~0UL >> (64 - 8 * a->size);
			v = ((v << a->lshift) & (~0UL >> (64 - 8 * a->basesize))) >> a->rshift;
		}
		kg_put(slot, v, a->size);
	}
	return 0;
}

/* The record's head: the probed address (a kretprobe: the function, then the
 * return address its instance found); the arguments follow it. */
static __always_inline u32 kg_head(const struct kg_probe *kp, u8 *body, u64 addr, u64 ret_ip)
{
	*(u64 *)body = addr;
	if (!kp->is_return)
		return 8;
	*(u64 *)(body + 8) = ret_ip;
	return 16;
}

/* One record of a probe whose arguments are all plain registers: its size is
 * known, so it is written straight into the ring (no staging copy). */
static __always_inline void kg_record_plain(const struct kg_probe *kp, u64 slots, u64 addr, u64 ret_ip,
					    struct pt_regs *regs, struct kg_ctx ctx)
{
	struct trace_event_file file = { .slots = slots, .type = kp->type };
	const struct kg_arg *a = &kprobe_guest.args[kp->first_arg], *end = a + kp->nargs;
	u32 head = kp->is_return ? 16 : 8;
	u32 len = sizeof(struct trace_entry) + head + kp->args_size;
	struct trace_entry *rec;
	u8 *body;

	preempt_disable();	/* the record shows the probed context's count */
	rec = trace_event_buffer_reserve(&file, len);
	if (rec) {
		kg_fill(rec, file.type, ctx);
		body = (u8 *)(rec + 1);
		kg_head(kp, body, addr, ret_ip);
		body += head;
		/* the slots follow each other: a u64 store spilling into the next
		 * slot is overwritten by the next argument's (no branch per size);
		 * the last one is stored at its size, nothing past the record */
		for (; a < end - 1; a++)
			*(u64 *)(body + a->offset) = ((u64 *)regs)[a->param];
		if (a < end) {
			u8 *slot = body + a->offset;
			u64 v = ((u64 *)regs)[a->param];

			switch (a->size) {
			case 1: *slot = v; break;
			case 2: *(u16 *)slot = v; break;
			case 4: *(u32 *)slot = v; break;
			default: *(u64 *)slot = v; break;
			}
		}
		trace_event_commit(rec, len);
	}
	preempt_enable_no_resched();
}

/* One record built in this CPU's kg_body first (strings: the size is known
 * once they are read), then copied into the ring.  ip: what %ip reads. */
/* The record's body after the common fields (store_trace_args() after the head): its length,
 * or -1 when larger than a record may be (a miss counted) */
notrace int kg_record_body(struct kg_probe *kp, u64 addr, u64 ret_ip, u64 ip, struct pt_regs *regs, u8 *body)
{
	const struct kg_arg *a = &kprobe_guest.args[kp->first_arg], *end = a + kp->nargs;
	u32 head = kg_head(kp, body, addr, ret_ip);
	u32 pos = head + kp->args_size, symstrs = 0;
	int len;

	for (; a < end; a++) {	/* every slot is written: no zeroing first */
		if (kg_fetch(a, regs, ip, addr, body, head, &pos, NULL))
			goto missed;
		symstrs |= a->store == KG_ST_SYMSTR;
	}
	if (!symstrs)
		return pos;
	len = kg_symstr_locs(end - kp->nargs, end, body, head, pos);
	if (len >= 0)
		return len;
missed:
	__atomic_add_fetch(&kp->nmissed, 1, __ATOMIC_RELAXED);
	return -1;
}

static notrace void kg_record(struct kg_probe *kp, u64 slots, u64 addr, u64 ret_ip, u64 ip,
			      struct pt_regs *regs, u8 *body, struct kg_ctx ctx)
{
	struct trace_event_file file = { .slots = slots, .type = kp->type };
	int len = kg_record_body(kp, addr, ret_ip, ip, regs, body);
	u32 pos = len;
	struct trace_entry *rec;

	if (len < 0)
		return;
	if (READ_ONCE(kp->triggers)) {	/* its file is kp's head */
		kg_record_triggered((const struct trace_event_file *)kp, body, pos, ctx);
		return;
	}
	preempt_disable();
	rec = trace_event_buffer_reserve(&file, sizeof(*rec) + pos);
	if (rec) {
		kg_fill(rec, file.type, ctx);
		memcpy(rec + 1, body, pos);
		trace_event_commit(rec, sizeof(*rec) + pos);
	}
	preempt_enable_no_resched();
}

/* ---- uprobe events (trace_uprobe.c's uprobe_trace_func(), its fetch in the guest) ---- */

notrace void uprobe_guest_record(u32 probe, struct pt_regs *regs, u64 func, bool is_ret, unsigned long *fault)
{
	struct kg_probe *kp = &kprobe_guest.probes[probe];
	int cpu = this_cpu()->h.cpu, len;
	struct probe_stage *st = &probe_stage[cpu];
	u64 slots = READ_ONCE(kp->slots), triggers = READ_ONCE(kp->triggers), ip = regs->ip;

	if (!(slots | triggers)) {	/* armed for no trace array: a hit all the same */
		__atomic_add_fetch(&kp->nhit, 1, __ATOMIC_RELAXED);
		return;
	}
	kg_note_faults[cpu] = fault != NULL;
	kg_user_fault[cpu] = 0;
	/* the record's vaddr[]: the probed address, or the function and where it returns to */
	len = kg_record_body(kp, is_ret ? func : ip, is_ret ? ip : 0, ip, regs, st->data);
	kg_note_faults[cpu] = false;
	if (fault && kg_user_fault[cpu]) {
		*fault = kg_user_fault[cpu];
		return;
	}
	__atomic_add_fetch(&kp->nhit, 1, __ATOMIC_RELAXED);
	if (len < 0)		/* larger than a record may be */
		return;
	st->type = kp->type;
	st->irqflags = regs->flags;
	st->slots = slots;
	st->triggers = triggers;
	WRITE_ONCE(st->len, len);
}

/* ---- kretprobes (kernel/kprobes.c + rethook, as x86 has them in 6.1) ---- */

static notrace_spinlock_t kg_inst_lock;	/* handlers run with interrupts off */

static __always_inline u32 *kg_chain(u64 task)
{
	return &kprobe_guest.chains[(task * 0x61C8864680B583EBUL) >> 58];	/* hash_ptr(task, 6) */
}

/* An instance back to its probe's pool; one whose probe went (unregistered
 * while the call was in flight) is only marked free, for the host to reuse
 * its pool.  Under kg_inst_lock. */
static notrace void kg_inst_put(u32 i)
{
	struct kg_inst *in = &kprobe_guest.insts[i];
	struct kg_probe *kp = &kprobe_guest.probes[in->probe % KG_MAX_PROBES];

	in->task = 0;
	if (kp->is_return && i - kp->first_inst < kp->ninst) {
		in->next = kp->free;
		kp->free = i + 1;
	}
}

/* Takes instance i off its task's chain; under kg_inst_lock. */
static notrace void kg_inst_unlink(u32 i)
{
	u32 *link = kg_chain(kprobe_guest.insts[i].task);

	while (*link && *link != i + 1)
		link = &kprobe_guest.insts[*link - 1].next;
	if (*link)
		*link = kprobe_guest.insts[i].next;
}

/* Instances whose task exited inside the probed function go back to the
 * pool (Linux recycles them when the task is freed, rethook_flush_task()).
 * Under kg_inst_lock. */
static notrace void kg_reclaim_dead(struct kg_probe *kp)
{
	u32 i;

	for (i = kp->first_inst; i < kp->first_inst + kp->ninst && i < KG_MAX_INSTS; i++) {
		struct kg_inst *in = &kprobe_guest.insts[i];
		struct task_struct *t = (struct task_struct *)in->task;

		if (t && (t->exit_state || t->pid != in->pid)) {
			kg_inst_unlink(i);
			kg_inst_put(i);
		}
	}
}

/*
 * pre_handler_kretprobe(): take an instance from kp's pool (none left: a
 * miss, the call is not traced) and hook the return.  The instance keeps the
 * return address it finds (rethook_hook()); one that is already the
 * trampoline belongs to another instance of this very call (another
 * kretprobe of the aggregate, or a caller that tail-called here): it stays,
 * and the call returns through the trampoline once per instance, newest
 * first, each restoring what it found.
 */
static notrace void kg_kret_entry(struct kg_probe *kp, u32 probe, u64 func, struct pt_regs *regs)
{
	u64 sp = regs->sp, task = (u64)current, found = *(u64 *)sp;
	bool hooked = found == (u64)arch_rethook_trampoline;
	pid_t pid = current->pid;
	u32 *link, i;

	notrace_spin_lock(&kg_inst_lock);
	/* this task's frames that never returned (their stack is reused): deeper
	 * ones, and one at this sp unless the trampoline there says it is this
	 * call's; and those of a task that died here before (its task_struct
	 * reused: another pid) */
	for (link = kg_chain(task); *link;) {
		struct kg_inst *in = &kprobe_guest.insts[*link - 1];

		if (in->task == task && (in->pid != pid || in->sp < sp || (in->sp == sp && !hooked))) {
			i = *link - 1;
			*link = in->next;
			kg_inst_put(i);
		} else {
			link = &in->next;
		}
	}
	if (!kp->free)
		kg_reclaim_dead(kp);
	i = kp->free;
	if (!i || i - 1 - kp->first_inst >= kp->ninst) {
		notrace_spin_unlock(&kg_inst_lock);
		__atomic_add_fetch(&kp->nmissed, 1, __ATOMIC_RELAXED);
		return;
	}
	i--;
	{
		struct kg_inst *in = &kprobe_guest.insts[i];
		u32 *chain = kg_chain(task);

		kp->free = in->next;
		in->task = task;
		in->sp = sp;
		in->ret_addr = found;
		in->func = func;
		in->probe = probe;
		in->pid = pid;
		in->next = *chain;
		*chain = i + 1;
	}
	notrace_spin_unlock(&kg_inst_lock);
	if (!hooked)
		*(u64 *)sp = (u64)arch_rethook_trampoline;
}

/*
 * rethook_trampoline_handler(): the call whose return address was at
 * regs->sp - 8 returned.  Its newest instance goes back to the pool, the
 * slot gets what the instance found, and the probe's record is written with
 * regs->ip the real return address (the caller: what the oldest instance of
 * this call found) and ret_ip the instance's own.
 */
notrace unsigned long kretprobe_guest_return(struct pt_regs *regs)
{
	u64 slot = regs->sp - 8, task = (u64)current, ret_addr, func, caller;
	pid_t pid = current->pid;
	int cpu = this_cpu()->h.cpu;
	struct kg_inst *in = NULL;
	struct kprobe_perf_call *perf;
	struct kg_probe *kp;
	u32 *link, i = 0, p;
	u64 slots, trig;

	notrace_spin_lock(&kg_inst_lock);
	for (link = kg_chain(task); *link;) {
		i = *link - 1;
		in = &kprobe_guest.insts[i];
		if (in->task != task) {
			link = &in->next;
			continue;
		}
		if (in->pid == pid && in->sp >= slot)
			break;
		/* a frame left without returning, or a dead task's (its task_struct reused) */
		*link = in->next;
		kg_inst_put(i);
		in = NULL;
	}
	if (!*link || in->sp != slot) {
		notrace_spin_unlock(&kg_inst_lock);
		return 0;		/* not a guest instance: the host's */
	}
	*link = in->next;
	ret_addr = in->ret_addr;
	func = in->func;
	p = in->probe % KG_MAX_PROBES;
	kp = &kprobe_guest.probes[p];
	slots = kp->is_return && i - kp->first_inst < kp->ninst ? kp->slots : 0;
	trig = kp->is_return && i - kp->first_inst < kp->ninst ? kp->triggers : 0;
	perf = kp->is_return && i - kp->first_inst < kp->ninst ? __atomic_load_n(&kprobe_perf_calls[p], __ATOMIC_ACQUIRE) : NULL;
	caller = ret_addr;
	for (link = &in->next; *link; link = &kprobe_guest.insts[*link - 1].next) {
		struct kg_inst *o = &kprobe_guest.insts[*link - 1];

		if (o->task != task)
			continue;
		if (o->pid != pid || o->sp != slot)
			break;
		caller = o->ret_addr;
	}
	kg_inst_put(i);
	notrace_spin_unlock(&kg_inst_lock);
	*(u64 *)slot = ret_addr;
	if ((slots || trig || perf) && !kg_busy[cpu]) {	/* kretprobe_dispatcher() */
		kg_busy[cpu] = 1;
		regs->ip = caller;
		/* __kretprobe_trace_func()'s fbuffer.regs: a stack from the return into the caller */
		this_cpu()->trace_opt_regs = regs;
		this_cpu()->trace_opt_regs_ftrace = 0;
		__atomic_add_fetch(&kp->nhit, 1, __ATOMIC_RELAXED);
		slots = dyn_file_slots(slots, kp->type);	/* hit, if soft-disabled */
		if (!(slots | trig))
			;
		else if (likely(kp->plain && !trig))
			kg_record_plain(kp, slots, func, ret_addr, regs, (struct kg_ctx){ regs->flags, 0 });
		else
			kg_record(kp, slots, func, ret_addr, caller, regs, kg_body[cpu], (struct kg_ctx){ regs->flags, 0 });
		this_cpu()->trace_opt_regs = NULL;
		if (perf)	/* kretprobe_perf_func() */
			kprobe_perf_func(perf, kp, func, ret_addr, caller, regs);
		kg_busy[cpu] = 0;
	}
	return 1;
}

/* kprobe_dispatcher() for every enabled probe of a point: kprobe_trace_func() for the
 * slots that record it, kprobe_perf_func() for a probe with a perf call; %ip reads as after
 * the int3 (kprobe_ftrace_handler's too) */
static __always_inline void kg_hit(const struct kg_point *pt, struct pt_regs *regs, struct kg_ctx ctx)
{
	int cpu = this_cpu()->h.cpu;
	u32 p = pt->first;

	if (unlikely(kg_busy[cpu])) {	/* reentered: kprobes_inc_nmissed_count() */
		for (; p; p = kprobe_guest.probes[p - 1].next)
			if (kprobe_guest.probes[p - 1].slots || kprobe_guest.probes[p - 1].triggers ||
			    kprobe_perf_calls[p - 1])
				__atomic_add_fetch(&kprobe_guest.probes[p - 1].nmissed, 1, __ATOMIC_RELAXED);
		return;
	}
	kg_busy[cpu] = 1;
	for (; p; p = kprobe_guest.probes[p - 1].next) {
		struct kg_probe *kp = &kprobe_guest.probes[p - 1];
		struct kprobe_perf_call *perf;
		u64 slots = kp->slots, trig = kp->triggers;

		perf = __atomic_load_n(&kprobe_perf_calls[p - 1], __ATOMIC_ACQUIRE);
		if (!(slots | trig) && !perf)
			continue;
		if (kp->is_return) {	/* its hits count at the return */
			kg_kret_entry(kp, p - 1, pt->addr, regs);
			continue;
		}
		__atomic_add_fetch(&kp->nhit, 1, __ATOMIC_RELAXED);
		slots = dyn_file_slots(slots, kp->type);	/* hit, if soft-disabled */
		if (!(slots | trig))
			;
		else if (likely(kp->plain && !trig))
			kg_record_plain(kp, slots, pt->addr, 0, regs, ctx);
		else
			kg_record(kp, slots, pt->addr, 0, pt->addr + 1, regs, kg_body[cpu], ctx);
		if (perf) {
			u64 ip = regs->ip;

			regs->ip = pt->addr + 1;	/* as after the int3 */
			kprobe_perf_func(perf, kp, pt->addr, 0, pt->addr + 1, regs);
			regs->ip = ip;
		}
	}
	kg_busy[cpu] = 0;
}

/* The guest point at addr, if any (a binary search of the points by address). */
notrace const struct kg_point *kprobe_guest_point(unsigned long addr)
{
	u32 lo = 0, hi = READ_ONCE(kprobe_guest.norder);
	const struct kg_point *pt;

	if (hi > KG_MAX_POINTS)
		return NULL;
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		if (kprobe_guest.points[kprobe_guest.order[mid] % KG_MAX_POINTS].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == READ_ONCE(kprobe_guest.norder))
		return NULL;
	pt = &kprobe_guest.points[kprobe_guest.order[lo] % KG_MAX_POINTS];
	return pt->addr == addr && (pt->first || pt->host) ? pt : NULL;
}

notrace void kprobe_guest_ftrace(struct pt_regs *regs)
{
	const struct kg_point *pt = kprobe_guest_point(regs->ip);

	if (pt) {
		/* kprobe_trace_func()'s fbuffer.regs: the stacktrace options walk from the probed context */
		struct percpu *pc = this_cpu();

		pc->trace_opt_regs = regs;
		pc->trace_opt_regs_ftrace = 1;
		kg_hit(pt, regs, (struct kg_ctx){ regs->flags, 0 });
		pc->trace_opt_regs = NULL;
	}
}

notrace void kprobe_guest_slot(unsigned long point, struct pt_regs *regs)
{
	if (point < KG_MAX_POINTS && kprobe_guest.points[point].first) {
		struct percpu *pc = this_cpu();

		regs->ip = kprobe_guest.points[point].addr + 1;	/* as after the int3 */
		pc->trace_opt_regs = regs;
		pc->trace_opt_regs_ftrace = 0;
		kg_hit(&kprobe_guest.points[point], regs, (struct kg_ctx){ regs->flags, 0 });
		pc->trace_opt_regs = NULL;
	}
}

/*
 * A point whose probes' handlers are the host's (a fetch the guest does not run, symstr): the
 * host runs them on the probed registers at a doorbell and stages their records in this cpu's
 * probe_stage, an aggregate's first one, then each next one at a further ring; each is
 * committed here as this handler's record.
 */
static notrace void kprobe_host_dispatch(const struct kg_point *pt, struct pt_regs *regs, struct kg_ctx ctx)
{
	struct percpu *pc = this_cpu();
	struct probe_stage *st = &probe_stage[pc->h.cpu];
	u64 kind = KPROBE_HOST_HIT;

	for (;;) {
		pc->h.db_arg[0] = (u64)regs;
		pc->h.db_arg[1] = kind;
		pc->h.db_arg[2] = pt->addr;
		host_doorbell(PORT_KPROBE_HIT, 0);
		if (!READ_ONCE(st->len))
			return;
		probe_stage_commit_ctx(st, ctx);
		kind = KPROBE_HOST_NEXT;
	}
}

/* The pre-handler of a point hit through its int3 (kprobe_int3_handler(), regs->ip past the
 * int3): it runs with the handler's flags, IF clear, and no preempt_disable of its own */
notrace void kprobe_dispatcher(const struct kg_point *pt, struct pt_regs *regs)
{
	struct percpu *pc = this_cpu();
	struct kg_ctx ctx = { arch_local_save_flags(), 1 };

	pc->trace_opt_regs = regs;
	pc->trace_opt_regs_ftrace = 0;
	if (pt->host)
		kprobe_host_dispatch(pt, regs, ctx);
	else
		kg_hit(pt, regs, ctx);
	pc->trace_opt_regs = NULL;
}

/*
 * eprobe_trigger_func() and __eprobe_trace_func() of trace_eprobe.c: the
 * record of an eprobe (kprobe_guest.probes[probe]: its event's slots, id
 * and fetch arguments) from the record of the event it is attached to, as
 * that event fires.  The record has no head: the arguments follow the
 * common fields, which show the attached event's context with one more
 * preemption level (Linux writes it from inside the attached event's
 * commit).
 */
notrace void eprobe_trigger_func(u32 probe, const void *rec, unsigned long irqflags)
{
	struct kg_probe *kp = &kprobe_guest.probes[probe % KG_MAX_PROBES];
	int cpu = this_cpu()->h.cpu;
	u64 slots = READ_ONCE(kp->slots), trig = READ_ONCE(kp->triggers);
	u32 pos = kp->args_size, symstrs = 0;
	int len;
	const struct kg_arg *a = &kprobe_guest.args[kp->first_arg % KG_MAX_ARGS], *end = a + kp->nargs;
	struct trace_event_file file;
	struct trace_entry *out;
	u8 *body = kg_body[cpu];

	if (!(slots | trig))
		return;
	if (kg_busy[cpu]) {
		__atomic_add_fetch(&kp->nmissed, 1, __ATOMIC_RELAXED);
		return;
	}
	kg_busy[cpu] = 1;
	__atomic_add_fetch(&kp->nhit, 1, __ATOMIC_RELAXED);
	for (; a < end; a++) {
		if (kg_fetch(a, NULL, 0, 0, body, 0, &pos, rec))
			goto missed;
		symstrs |= a->store == KG_ST_SYMSTR;
	}
	if (symstrs) {
		len = kg_symstr_locs(end - kp->nargs, end, body, 0, pos);
		if (len < 0)
			goto missed;
		pos = len;
	}
	slots = dyn_file_slots(slots, kp->type);
	if (trig) {	/* the eprobe's own triggers: its file is kp's head */
		kg_record_triggered((const struct trace_event_file *)kp, body, pos, (struct kg_ctx){ irqflags, 0 });
		kg_busy[cpu] = 0;
		return;
	}
	if (!slots) {		/* soft-disabled */
		kg_busy[cpu] = 0;
		return;
	}
	file = (struct trace_event_file){ .slots = slots, .type = kp->type };
	preempt_disable();
	out = trace_event_buffer_reserve(&file, sizeof(*out) + pos);
	if (out) {
		tracing_generic_entry_update(out, &file, irqflags);
		memcpy(out + 1, body, pos);
		trace_event_commit(out, sizeof(*out) + pos);
	}
	preempt_enable_no_resched();
	kg_busy[cpu] = 0;
	return;
missed:
	__atomic_add_fetch(&kp->nmissed, 1, __ATOMIC_RELAXED);
	kg_busy[cpu] = 0;
}
