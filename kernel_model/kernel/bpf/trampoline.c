// SPDX-License-Identifier: GPL-2.0
/*
 * BPF trampolines (kernel/bpf/trampoline.c and arch/x86/net/bpf_jit_comp.c's
 * arch_prepare_bpf_trampoline() of 6.1): the fentry/fexit programs of a function run from
 * machine code written at attach time into a page of its own (bpf_tramp_area,
 * arch/ftrace_64.S), which the function's ftrace site calls.  The code saves the argument
 * registers into a u64 ctx array on its stack, runs each fentry program between
 * __bpf_prog_enter() and __bpf_prog_exit() (the interpreter: there is no JIT), and, with fexit
 * programs, calls the function's body past the site, stores its return value after the
 * arguments, runs the fexit programs and returns to the function's caller.
 *
 * Every link or unlink writes a new image and asks the host to make the site call it
 * (register_ftrace_direct(): the host's probe engine owns the sites; where the function tracers
 * want the site too it calls ftrace_regs_caller, which goes on into the trampoline); the last
 * unlink gives the site back.  An old image is reused only after a grace period (a cpu may be
 * in it) and once no task is in the function through it (fexit: __bpf_tramp_enter/exit count
 * them, as 6.1's percpu_ref).
 */
#include "../../include/bpf.h"
#include "../../include/bpf_tramp.h"
#include "../../include/mutex.h"
#include "../../include/workqueue.h"
#include "../../include/perf_event.h"
#include "../../include/trace/ftrace_frame.h"

#define BPF_MAX_TRAMP_LINKS	38
#define BPF_TRAMP_FENTRY	0
#define BPF_TRAMP_FEXIT		1

struct bpf_tramp_image {
	long inflight;		/* tasks in the function's body through this image */
	bool used;		/* some trampoline's image, now or retired */
	bool retired;		/* no longer called: free after the grace period, with no task in it */
	bool rcu_done;
	struct rcu_head rcu;
	int nr_progs;		/* the programs it runs, a reference each until it is free */
	struct bpf_prog **progs;
	u64 key;		/* its kallsyms name's number (bpf_trampoline_<key>); 0: not told to perf */
};

struct bpf_trampoline {
	struct list_head node;
	u32 key;			/* the function's BTF id */
	unsigned long site;		/* its ftrace site */
	u32 nr_regs;			/* argument registers its programs see */
	int cnt[2];
	struct bpf_prog *progs[2][BPF_MAX_TRAMP_LINKS];
	int cur;			/* the image the site calls; -1: none */
};

extern char bpf_tramp_area[BPF_TRAMP_AREA_SIZE];
static struct bpf_tramp_image tramp_images[BPF_TRAMP_PAGES];

/* bpf_trampoline_compute_key() of a function of vmlinux: its BTF object id (1), its BTF id */
static u64 tramp_key(const struct bpf_trampoline *tr)
{
	return (1ULL << 32) | 0x80000000ULL | tr->key;
}
static LIST_HEAD(trampolines);
static DEFINE_MUTEX(trampoline_mutex);

/* the direct calls, for ftrace_regs_caller: which image a site calls (lock-free readers) */
static struct { unsigned long ip, addr; } direct_funcs[BPF_TRAMP_PAGES];

notrace unsigned long ftrace_find_rec_direct(unsigned long ip)
{
	int i;

	for (i = 0; i < BPF_TRAMP_PAGES; i++)
		if (READ_ONCE(direct_funcs[i].ip) == ip)
			return READ_ONCE(direct_funcs[i].addr);
	return 0;
}

static notrace void direct_set(unsigned long ip, unsigned long addr)
{
	int i, free = -1;

	for (i = 0; i < BPF_TRAMP_PAGES; i++) {
		if (direct_funcs[i].ip == ip) {
			if (!addr)
				WRITE_ONCE(direct_funcs[i].ip, 0);
			WRITE_ONCE(direct_funcs[i].addr, addr);
			return;
		}
		if (!direct_funcs[i].ip && free < 0)
			free = i;
	}
	if (addr && free >= 0) {
		WRITE_ONCE(direct_funcs[free].addr, addr);
		WRITE_ONCE(direct_funcs[free].ip, ip);
	}
}

/* ---- what the trampolines call (notrace: never a site of their own) ---- */

#define NO_START_TIME 1

/* __bpf_prog_enter(): 0 if the program runs on this cpu already (not entered again; it counts
 * a miss), else a start: its sched_clock() while run-time statistics are on, else
 * NO_START_TIME (bpf_prog_start_time()) */
notrace u64 __bpf_prog_enter(struct bpf_prog *prog)
{
	u64 start = NO_START_TIME;

	preempt_disable();
	if (unlikely(++prog->active[smp_processor_id()] != 1)) {
		__atomic_add_fetch(&prog->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (static_key_enabled(&bpf_stats_enabled_key)) {
		start = perf_clock();	/* sched_clock() */
		if (unlikely(start <= NO_START_TIME))
			start = NO_START_TIME;
	}
	return start;
}

notrace void __bpf_prog_exit(struct bpf_prog *prog, u64 start)
{
	if (start > NO_START_TIME)	/* (update_prog_stats(): the key may have come on meanwhile) */
		bpf_prog_update_stats(prog, start);
	prog->active[smp_processor_id()]--;
	preempt_enable();
}

notrace void __bpf_tramp_enter(struct bpf_tramp_image *im)
{
	__atomic_add_fetch(&im->inflight, 1, __ATOMIC_ACQ_REL);
}

notrace void __bpf_tramp_exit(struct bpf_tramp_image *im)
{
	__atomic_sub_fetch(&im->inflight, 1, __ATOMIC_ACQ_REL);
}

/* ---- images ---- */

/* a retired image no cpu and no task is in any more: its programs' references go */
static bool tramp_image_reclaimable(const struct bpf_tramp_image *im)
{
	return im->retired && READ_ONCE(im->rcu_done) && !__atomic_load_n(&im->inflight, __ATOMIC_ACQUIRE);
}

/* bpf_image_ksym_add()/_del(): perf is told of an image's page as 6.1 tells it, named as
 * kallsyms names it (bpf_tramp_image_alloc(): the key of bpf_trampoline_compute_key(), vmlinux's
 * BTF object id, 1, and the function's BTF id) */
static notrace void tramp_image_ksym(struct bpf_tramp_image *im, bool unregister)
{
	char name[KSYM_NAME_LEN];

	scnprintf(name, sizeof(name), "bpf_trampoline_%llu", im->key);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_BPF,
			   (u64)(unsigned long)(bpf_tramp_area + (im - tramp_images) * PAGE_SIZE), PAGE_SIZE,
			   unregister, name);
}

/* bpf_tramp_image_free(): its programs' references go, its page's name too */
static notrace void tramp_image_free(struct bpf_tramp_image *im)
{
	int k;

	for (k = 0; k < im->nr_progs; k++)
		bpf_prog_put(im->progs[k]);
	kfree(im->progs);
	im->progs = NULL;
	im->nr_progs = 0;
	if (im->key)
		tramp_image_ksym(im, true);
	im->key = 0;
}

/* The reaper: the programs of the images that became free go (a task that slept in an fexit
 * function's body keeps its image until it returned: looked at again every 20 ms) */
static void tramp_reap(struct work_struct *work);
static struct delayed_work tramp_reaper;
static bool tramp_reaper_ready;

static notrace void tramp_reap(struct work_struct *work)
{
	bool again = false;
	int i;

	mutex_lock(&trampoline_mutex);
	for (i = 0; i < BPF_TRAMP_PAGES; i++) {
		struct bpf_tramp_image *im = &tramp_images[i];

		if (!im->used || !im->retired || !im->progs)
			continue;
		if (tramp_image_reclaimable(im))
			tramp_image_free(im);
		else
			again = true;
	}
	mutex_unlock(&trampoline_mutex);
	if (again)
		queue_delayed_work_on(WORK_CPU_UNBOUND, system_wq, &tramp_reaper, HZ / 50);
}

static notrace void tramp_image_rcu(struct rcu_head *rcu)
{
	struct bpf_tramp_image *im = container_of(rcu, struct bpf_tramp_image, rcu);

	WRITE_ONCE(im->rcu_done, true);
	queue_delayed_work_on(WORK_CPU_UNBOUND, system_wq, &tramp_reaper, 0);
}

/* bpf_jit_alloc_exec(PAGE_SIZE): a page no cpu and no task can be in; -1: none */
static int tramp_image_alloc(void)
{
	int i;

	for (i = 0; i < BPF_TRAMP_PAGES; i++) {
		struct bpf_tramp_image *im = &tramp_images[i];

		if (im->used && !tramp_image_reclaimable(im))
			continue;
		tramp_image_free(im);
		memset(im, 0, sizeof(*im));
		im->used = true;
		return i;
	}
	return -1;
}

static notrace void tramp_image_retire(int i)
{
	struct bpf_tramp_image *im = &tramp_images[i];

	if (!tramp_reaper_ready) {
		INIT_DELAYED_WORK(&tramp_reaper, tramp_reap);
		tramp_reaper_ready = true;
	}
	im->retired = true;
	call_rcu(&im->rcu, tramp_image_rcu);
}

/* ---- arch_prepare_bpf_trampoline(): x86-64 code ---- */

enum { RAX = 0, RCX = 1, RDX = 2, RBX = 3, RSP = 4, RBP = 5, RSI = 6, RDI = 7, R8 = 8, R9 = 9 };
static const u8 arg_regs[6] = { RDI, RSI, RDX, RCX, R8, R9 };

static u8 *emit(u8 *p, const u8 *bytes, int n)
{
	memcpy(p, bytes, n);
	return p + n;
}

static u8 *emit32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

/* mov [rbp + off], reg (store) or mov reg, [rbp + off] (load) */
static u8 *emit_rbp(u8 *p, bool load, int reg, int off)
{
	*p++ = 0x48 | (reg >= 8 ? 0x04 : 0);
	*p++ = load ? 0x8b : 0x89;
	*p++ = 0x80 | (reg & 7) << 3 | RBP;
	return emit32(p, (u32)off);
}

/* movabs reg, imm64 (inline: the JIT's emit_mov_imm64() is 6.1's traceable one) */
static __always_inline u8 *emit_movabs(u8 *p, int reg, u64 imm)
{
	*p++ = 0x48 | (reg >= 8 ? 0x01 : 0);
	*p++ = 0xb8 + (reg & 7);
	memcpy(p, &imm, 8);
	return p + 8;
}

static u8 *emit_call(u8 *p, const void *func)
{
	*p++ = 0xe8;
	return emit32(p, (u32)((unsigned long)func - (unsigned long)(p + 4)));
}

/* invoke_bpf_prog(): one program on the ctx at rbp - regs_off */
static u8 *invoke_bpf_prog(u8 *p, struct bpf_prog *prog, int regs_off)
{
	u8 *jump;

	p = emit_movabs(p, RDI, (u64)(unsigned long)prog);
	p = emit_call(p, __bpf_prog_enter);
	p = emit(p, (const u8[]){ 0x48, 0x89, 0xc3 }, 3);		/* mov rbx, rax */
	p = emit(p, (const u8[]){ 0x48, 0x85, 0xc0 }, 3);		/* test rax, rax */
	p = emit(p, (const u8[]){ 0x0f, 0x84 }, 2);			/* je skip */
	jump = p;
	p += 4;
	p = emit(p, (const u8[]){ 0x48, 0x8d, 0xbd }, 3);		/* lea rdi, [rbp - regs_off] */
	p = emit32(p, (u32)-regs_off);
	p = emit_movabs(p, RSI, (u64)(unsigned long)prog->insnsi);
	p = emit_call(p, prog->bpf_func);
	emit32(jump, (u32)(p - (jump + 4)));
	p = emit_movabs(p, RDI, (u64)(unsigned long)prog);	/* skip: */
	p = emit(p, (const u8[]){ 0x48, 0x89, 0xde }, 3);		/* mov rsi, rbx */
	return emit_call(p, __bpf_prog_exit);
}

/*
 * The stack, from rbp down: the return value (fexit), the ctx (one u64 an argument register),
 * rbx; the ctx is what each program gets in r1.  Called from the site, the trampoline returns
 * into the function (fentry only: the argument registers restored) or, having called the body
 * itself, past it to the function's caller (BPF_TRAMP_F_SKIP_FRAME).  The code's length.
 */
noinline long arch_prepare_bpf_trampoline(struct bpf_tramp_image *im, u8 *image, u32 size,
					struct bpf_trampoline *tr)
{
	int regs_off = 8 + 8 * tr->nr_regs, rbx_off = regs_off + 8;
	int stack_size = ALIGN(rbx_off, 16), i, k;
	bool call_orig = tr->cnt[BPF_TRAMP_FEXIT] > 0;
	u8 *p = image;

	memset(image, 0xcc, size);
	p = emit(p, (const u8[]){ 0x55, 0x48, 0x89, 0xe5 }, 4);	/* push rbp; mov rbp, rsp */
	p = emit(p, (const u8[]){ 0x48, 0x81, 0xec }, 3);		/* sub rsp, stack_size */
	p = emit32(p, stack_size);
	p = emit_rbp(p, false, RBX, -rbx_off);
	for (i = 0; i < (int)tr->nr_regs; i++)				/* save_regs() */
		p = emit_rbp(p, false, arg_regs[i], -regs_off + 8 * i);
	if (call_orig) {
		p = emit_movabs(p, RDI, (u64)(unsigned long)im);
		p = emit_call(p, __bpf_tramp_enter);
	}
	for (k = 0; k < tr->cnt[BPF_TRAMP_FENTRY]; k++)
		p = invoke_bpf_prog(p, tr->progs[BPF_TRAMP_FENTRY][k], regs_off);
	for (i = 0; i < (int)tr->nr_regs; i++)				/* restore_regs() */
		p = emit_rbp(p, true, arg_regs[i], -regs_off + 8 * i);
	if (call_orig) {
		/* the body, past the site's call */
		p = emit_call(p, (void *)(tr->site + MCOUNT_INSN_SIZE));
		p = emit_rbp(p, false, RAX, -8);
		for (k = 0; k < tr->cnt[BPF_TRAMP_FEXIT]; k++)
			p = invoke_bpf_prog(p, tr->progs[BPF_TRAMP_FEXIT][k], regs_off);
		p = emit_movabs(p, RDI, (u64)(unsigned long)im);
		p = emit_call(p, __bpf_tramp_exit);
		p = emit_rbp(p, true, RAX, -8);
	}
	p = emit_rbp(p, true, RBX, -rbx_off);
	*p++ = 0xc9;							/* leave */
	if (call_orig)
		p = emit(p, (const u8[]){ 0x48, 0x83, 0xc4, 0x08 }, 4);	/* add rsp, 8 */
	*p++ = 0xc3;							/* ret */
	*p++ = 0xcc;							/* int3 (CONFIG_SLS, as emit_return()) */
	return p - image;
}

/* ---- bpf_trampoline_update(): a new image for the programs now linked, or none ---- */
static int bpf_trampoline_update(struct bpf_trampoline *tr)
{
	char name[KSYM_NAME_LEN];
	int old = tr->cur, i, err;
	u8 *image;
	long len;

	if (!tr->cnt[BPF_TRAMP_FENTRY] && !tr->cnt[BPF_TRAMP_FEXIT]) {
		if (old < 0)
			return 0;
		err = ftrace_set_direct(tr->site, 0, 0, NULL);	/* unregister_fentry() */
		if (err)
			return err;
		direct_set(tr->site, 0);
		tr->cur = -1;
		tramp_image_retire(old);
		return 0;
	}
	i = tramp_image_alloc();
	if (i < 0)
		return -ENOMEM;
	{
		struct bpf_tramp_image *im = &tramp_images[i];
		int kind, k;

		im->progs = kmalloc(sizeof(*im->progs) * (tr->cnt[0] + tr->cnt[1]), GFP_KERNEL);
		if (!im->progs) {
			im->used = false;
			return -ENOMEM;
		}
		im->key = tramp_key(tr);
		tramp_image_ksym(im, false);
		for (kind = 0; kind < 2; kind++)
			for (k = 0; k < tr->cnt[kind]; k++) {
				bpf_prog_inc(tr->progs[kind][k]);
				im->progs[im->nr_progs++] = tr->progs[kind][k];
			}
	}
	image = (u8 *)bpf_tramp_area + (unsigned long)i * PAGE_SIZE;
	len = arch_prepare_bpf_trampoline(&tramp_images[i], image, PAGE_SIZE, tr);
	if (len > (long)PAGE_SIZE)
		panic("bpf trampoline larger than its page");
	/* the site's direct call first, then the site (register_fentry()/modify_fentry()); the
	 * image named as kallsyms names it */
	scnprintf(name, sizeof(name), "bpf_trampoline_%llu", tramp_images[i].key);
	direct_set(tr->site, (unsigned long)image);
	err = ftrace_set_direct(tr->site, (unsigned long)image, len, name);
	if (err) {
		direct_set(tr->site, old < 0 ? 0 : (unsigned long)bpf_tramp_area + (unsigned long)old * PAGE_SIZE);
		tramp_image_free(&tramp_images[i]);
		tramp_images[i].used = false;
		return err;
	}
	tr->cur = i;
	if (old >= 0)
		tramp_image_retire(old);
	return 0;
}

/* the argument registers of the function's prototype (a struct of 9-16 bytes takes two, as
 * btf_ctx_access() gives it two u64s of ctx) */
static u32 func_nr_regs(const struct bpf_prog *prog)
{
	return btf_func_nr_regs(prog->attach_func_proto);
}

noinline struct bpf_trampoline *bpf_trampoline_get(const struct bpf_prog *prog)
{
	struct bpf_trampoline *tr;

	list_for_each_entry(tr, &trampolines, node)
		if (tr->key == prog->attach_btf_id)
			return tr;
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (!tr)
		return NULL;
	tr->key = prog->attach_btf_id;
	tr->site = prog->attach_site;
	tr->nr_regs = func_nr_regs(prog);
	tr->cur = -1;
	list_add(&tr->node, &trampolines);
	return tr;
}

noinline void bpf_trampoline_put(struct bpf_trampoline *tr)
{
	if (!tr->cnt[BPF_TRAMP_FENTRY] && !tr->cnt[BPF_TRAMP_FEXIT] && tr->cur < 0) {
		list_del_init(&tr->node);
		kfree(tr);
	}
}

/* bpf_trampoline_link_prog(): the program on its function's trampoline.  EBUSY: the function
 * has no ftrace site (its first bytes are not the nop bpf_arch_text_poke() expects), or the
 * program is on it already; E2BIG: BPF_MAX_TRAMP_LINKS programs are; ENOTSUPP: arguments on
 * the stack, which 6.1's x86 trampoline does not pass either */
int bpf_trampoline_link_prog(struct bpf_prog *prog)
{
	int kind = prog->expected_attach_type == BPF_TRACE_FEXIT ? BPF_TRAMP_FEXIT : BPF_TRAMP_FENTRY;
	struct bpf_trampoline *tr;
	int err, i;

	if (!prog->attach_site)
		return -EBUSY;
	if (func_nr_regs(prog) > 6)
		return -ENOTSUPP;
	mutex_lock(&trampoline_mutex);
	tr = bpf_trampoline_get(prog);
	err = -ENOMEM;
	if (!tr)
		goto out;
	err = -EBUSY;
	for (i = 0; i < tr->cnt[kind]; i++)
		if (tr->progs[kind][i] == prog)
			goto put;
	err = -E2BIG;
	if (tr->cnt[BPF_TRAMP_FENTRY] + tr->cnt[BPF_TRAMP_FEXIT] >= BPF_MAX_TRAMP_LINKS)
		goto put;
	tr->progs[kind][tr->cnt[kind]++] = prog;
	err = bpf_trampoline_update(tr);
	if (err)
		tr->cnt[kind]--;
put:
	bpf_trampoline_put(tr);
out:
	mutex_unlock(&trampoline_mutex);
	return err;
}

/* bpf_trampoline_unlink_prog(): the link's fd closed */
void bpf_trampoline_unlink_prog(struct bpf_prog *prog)
{
	int kind = prog->expected_attach_type == BPF_TRACE_FEXIT ? BPF_TRAMP_FEXIT : BPF_TRAMP_FENTRY;
	struct bpf_trampoline *tr;
	int i;

	mutex_lock(&trampoline_mutex);
	list_for_each_entry(tr, &trampolines, node) {
		if (tr->key != prog->attach_btf_id)
			continue;
		for (i = 0; i < tr->cnt[kind]; i++) {
			if (tr->progs[kind][i] != prog)
				continue;
			for (; i + 1 < tr->cnt[kind]; i++)
				tr->progs[kind][i] = tr->progs[kind][i + 1];
			tr->cnt[kind]--;
			/* the host may fail only to find memory: the site keeps the old image, which
			 * still runs the program (it holds a reference: never freed while called) */
			if (bpf_trampoline_update(tr))
				tr->progs[kind][tr->cnt[kind]++] = prog;
			break;
		}
		bpf_trampoline_put(tr);
		break;
	}
	mutex_unlock(&trampoline_mutex);
}
