/* Guest->host doorbells (out to an I/O port; arguments in the per-CPU area): the machine's
 * glue, not traced (6.1 has none of it; its smp_send_reschedule is an inline in smp.h). */
#include "../include/kernel.h"

notrace void host_doorbell(int port, u64 al)
{
	asm volatile("outb %%al, %%dx" : : "a"(al), "d"(port) : "memory");
}

notrace void host_write(u64 id, int fd, const void *buf, size_t len)
{
	unsigned long flags = arch_local_irq_save();	/* db_arg is per-CPU */
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = id;
	pc->h.db_arg[1] = (u64)buf;
	pc->h.db_arg[2] = len;
	pc->h.db_arg[3] = fd;
	host_doorbell(PORT_WRITE, 0);
	arch_local_irq_restore(flags);
}

notrace void host_exit(u64 id, int status)
{
	unsigned long flags = arch_local_irq_save();
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = id;
	pc->h.db_arg[1] = (u64)(u32)status;
	host_doorbell(PORT_EXIT, 0);
	arch_local_irq_restore(flags);
}

notrace void host_spawned(u64 id, pid_t pid)
{
	unsigned long flags = arch_local_irq_save();
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = id;
	pc->h.db_arg[1] = pid;
	host_doorbell(PORT_SPAWNED, 0);
	arch_local_irq_restore(flags);
}

/*
 * A page was just filled with user code (exec, fork) through the direct map,
 * which is no-execute: no CPU noticed the stores as code being rewritten, so
 * any of them may still hold translations of the code the page held before.
 * The host drops them.
 */
notrace void host_code_page(const void *page)
{
	unsigned long flags = arch_local_irq_save();
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = __pa(page);
	host_doorbell(PORT_CODE, 0);
	arch_local_irq_restore(flags);
}

/* Wake an idle cpu; the host injects the reschedule vector there. */
notrace void smp_send_reschedule(int cpu)
{
	host_doorbell(PORT_IPI, cpu);
}

void __noreturn panic(const char *msg)
{
	struct percpu *pc = this_cpu();

	local_irq_disable();
	pc->h.db_arg[0] = (u64)msg;
	pc->h.db_arg[1] = strlen(msg);
	for (;;)
		host_doorbell(PORT_PANIC, 0);
}

/* Offsets the host needs (it has no debug info): tasks, per-CPU areas, and
 * the per-CPU flag of trace data committed since the last trace doorbell. */
struct host_task_layout {
	u64 tasks, pid, tgid, comm, state, exit_state, percpu_size, percpu_curr, percpu_idle, percpu_trace_pending,
	    percpu_trace_clock_step;
};
const struct host_task_layout host_task_layout __used = {
	offsetof(struct task_struct, tasks),
	offsetof(struct task_struct, pid),
	offsetof(struct task_struct, tgid),
	offsetof(struct task_struct, comm),
	offsetof(struct task_struct, __state),
	offsetof(struct task_struct, exit_state),
	sizeof(struct percpu),
	offsetof(struct percpu, curr_task),
	offsetof(struct percpu, rq) + offsetof(struct rq, idle),
	offsetof(struct percpu, trace_pending),
	offsetof(struct percpu, trace_clock_step),
};

/* A request to the host (kernel_request.h): answered later, by the host setting its `done` and
 * raising the call-function vector. */
notrace void host_post_kernel_request(void *req)
{
	unsigned long flags = arch_local_irq_save();
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = (u64)req;
	host_doorbell(PORT_KERNEL_REQ, 0);
	arch_local_irq_restore(flags);
}
