/* exceptions: page faults (arch/x86/include/asm/trace/exceptions.h), from exc_page_fault. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM exceptions

/* DECLARE_EVENT_CLASS(x86_exceptions) */
#define X86_EXCEPTIONS_EVENT(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(unsigned long address, struct pt_regs *regs, unsigned long error_code), \
	TP_ARGS(address, regs, error_code), \
	TP_STRUCT__entry( \
		__field(		unsigned long, address	) \
		__field(		unsigned long, ip	) \
		__field(		unsigned long, error_code ) \
	), \
	TP_fast_assign( \
		__entry->address = address; \
		__entry->ip = regs->ip; \
		__entry->error_code = error_code; \
	), \
	TP_printk("address=%ps ip=%ps error_code=0x%lx", \
		  (void *)__entry->address, (void *)__entry->ip, \
		  __entry->error_code) )
X86_EXCEPTIONS_EVENT(page_fault_user)
X86_EXCEPTIONS_EVENT(page_fault_kernel)
#undef X86_EXCEPTIONS_EVENT
