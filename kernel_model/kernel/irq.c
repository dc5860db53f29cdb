/*
 * x86 interrupt vectors (arch/x86/kernel/irq.c, apic/apic.c, smp.c): the
 * host-injected system vectors (local timer, reschedule and call-function
 * IPIs) and the external ones, which common_interrupt() hands to the irq
 * descriptor the vector is routed to on this cpu; the local APIC timers.
 */
#include "../include/kernel.h"
#include "../include/clockchips.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/trace/ftrace_dump.h"
#include "../include/kernel_request.h"

/* arch/x86/include/asm/irq_vectors.h */
#define FIRST_EXTERNAL_VECTOR	0x20
#define IRQ0_VECTOR		((FIRST_EXTERNAL_VECTOR + 16) & ~15)
#define ISA_IRQ_VECTOR(irq)	(IRQ0_VECTOR + (irq))
#define LOCAL_TIMER_VECTOR	0xec
#define CALL_FUNCTION_VECTOR	0xfc
#define RESCHEDULE_VECTOR	0xfd
#define NR_VECTORS		256

/* per cpu: the irq each external vector is routed to */
struct irq_desc *vector_irq[NR_CPUS][NR_VECTORS];

/* The IO-APIC entry of a legacy (ISA) line: its fixed vector, on cpu. */
unsigned int lapic_assign_legacy_vector(unsigned int irq, int cpu)
{
	unsigned int vector = ISA_IRQ_VECTOR(irq);

	vector_irq[cpu][vector] = irq_to_desc(irq);
	return vector;
}

/* A free vector for a device's (MSI) interrupt on cpu, past the legacy ones' block
 * (arch/x86/kernel/apic/vector.c's assign_irq_vector); 0: none left. */
notrace unsigned int assign_irq_vector(unsigned int irq, int cpu)
{
	unsigned int vector;

	for (vector = FIRST_EXTERNAL_VECTOR + 1; vector < LOCAL_TIMER_VECTOR; vector++) {
		if (vector >= IRQ0_VECTOR && vector < IRQ0_VECTOR + 16)
			continue;
		if (!vector_irq[cpu][vector]) {
			vector_irq[cpu][vector] = irq_to_desc(irq);
			return vector;
		}
	}
	return 0;
}

static __always_inline struct pt_regs *set_irq_regs(struct pt_regs *new_regs)
{
	struct pt_regs *old_regs = this_cpu()->irq_regs;

	this_cpu()->irq_regs = new_regs;
	return old_regs;
}

static noinline void __common_interrupt(struct pt_regs *regs, u32 vector)
{
	struct irq_desc *desc = vector_irq[smp_processor_id()][vector];

	if (desc)
		generic_handle_irq_desc(desc);
}

/* Every external vector's stub (irq_entries_start) comes here with its number. The entry
 * functions are noinstr in 6.1 (DEFINE_IDTENTRY_IRQ/_SYSVEC): the first traceable calls are
 * irq_enter_rcu() and the __-prefixed handler. */
notrace void common_interrupt(struct pt_regs *regs, unsigned long error_code)
{
	struct pt_regs *old_regs = set_irq_regs(regs);

	irq_enter_rcu();
	__common_interrupt(regs, (u8)error_code);
	irq_exit_rcu();
	set_irq_regs(old_regs);
}

/* ---- the local APIC timers, in TSC-deadline mode ---- */
struct clock_event_device lapic_events[NR_CPUS];

/* the deadline the host's timer for this cpu fires at */
static int lapic_next_deadline(u64 expires, struct clock_event_device *evt)
{
	WRITE_ONCE(cpu_data[evt->cpu].h.next_event_ns, expires);
	return 0;
}

/* apic->send_IPI_mask(mask, LOCAL_TIMER_VECTOR) */
static void lapic_timer_broadcast(unsigned long mask)
{
	for (; mask; mask &= mask - 1)
		host_doorbell(PORT_IPI_TIMER, __builtin_ctzl(mask));
}

noinline void setup_APIC_timer(int cpu)
{
	struct clock_event_device *evt = &lapic_events[cpu];

	evt->name = "lapic-deadline";
	evt->features = CLOCK_EVT_FEAT_ONESHOT | CLOCK_EVT_FEAT_C3STOP;
	evt->set_next_event = lapic_next_deadline;
	evt->broadcast = lapic_timer_broadcast;
	evt->event_handler = hrtimer_interrupt;
	evt->next_event = KTIME_MAX;
	evt->cpu = cpu;
}

static void local_apic_timer_interrupt(void)
{
	struct clock_event_device *evt = &lapic_events[smp_processor_id()];

	evt->event_handler(evt);
}

static noinline void __sysvec_apic_timer_interrupt(struct pt_regs *regs)
{
	trace_local_timer_entry(LOCAL_TIMER_VECTOR);
	local_apic_timer_interrupt();
	trace_local_timer_exit(LOCAL_TIMER_VECTOR);
}

notrace void sysvec_apic_timer_interrupt(struct pt_regs *regs)
{
	struct pt_regs *old_regs = set_irq_regs(regs);

	irq_enter_rcu();
	__sysvec_apic_timer_interrupt(regs);
	irq_exit_rcu();
	set_irq_regs(old_regs);
}

/* need_resched was already set by the sender: the exit to the task does the rest.
 * DEFINE_IDTENTRY_SYSVEC_SIMPLE: the raw hardirq count, nothing traceable. */
notrace void sysvec_reschedule_ipi(struct pt_regs *regs)
{
	__irq_enter_raw();
	trace_reschedule_entry(RESCHEDULE_VECTOR);
	trace_reschedule_exit(RESCHEDULE_VECTOR);
	__irq_exit_raw();
}

/* The host queued requests (spawn a program: kthreadd services them) or wrote the session
 * ring (session.c moves its records to their tasks). */
static noinline void __sysvec_call_function(struct pt_regs *regs)
{
	trace_call_function_entry(CALL_FUNCTION_VECTOR);
	session_ring_interrupt();
	kernel_request_interrupt();
	ftrace_dump_print();
	if (kthreadd_task && (READ_ONCE(host_requests.tail) != READ_ONCE(host_requests.head) ||
			      session_roots_pending()))
		wake_up_process(kthreadd_task);
	trace_call_function_exit(CALL_FUNCTION_VECTOR);
}

notrace void sysvec_call_function(struct pt_regs *regs)
{
	irq_enter_rcu();
	__sysvec_call_function(regs);
	irq_exit_rcu();
}

void irqentry_exit_to_user_mode(struct pt_regs *regs);

notrace void irqentry_exit(struct pt_regs *regs)
{
	if (user_mode(regs))
		irqentry_exit_to_user_mode(regs);
}

void __init init_IRQ(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		setup_APIC_timer(cpu);
	hpet_time_init();
}
