/*
 * ftrace_dump() of kernel/trace/trace.c, for the `dump` and `cpudump` function commands:
 * tracing goes off (and stays off, as 6.1's: `echo 1 > tracing_on` turns it back on) and
 * the top-level buffer is printed into the kernel's log at KERN_EMERG, in the latency
 * format, consumed.  The buffer and its printers are the host's: the kernel asks the host
 * for the text a part at a time (include/trace/ftrace_dump.h) and prints each line itself,
 * from the call-function interrupt the host raises when a part is written.
 */
#include "../include/kernel.h"
#include "../include/spinlock.h"
#include "../include/hostif.h"
#include "../include/trace/ring.h"
#include "../include/trace/ftrace_dump.h"

struct ftrace_dump_state ftrace_dump_state;

#define TOP_SLOT 1U	/* global_trace: trace array slot 0 */

/* host_doorbell(PORT_TRACE): the host's drain, which answers for text */
static notrace void ftrace_dump_ask(void)
{
	WRITE_ONCE(ftrace_dump_state.asked, 1);
	host_doorbell(PORT_TRACE, 0);
}

notrace void ftrace_dump(enum ftrace_dump_mode oops_dump_mode)
{
	/* only one dump user at a time */
	if (__atomic_exchange_n(&ftrace_dump_state.running, 1, __ATOMIC_ACQ_REL))
		return;
	/* always turn off tracing when we dump (tracing_off(): global_trace's recording) */
	__atomic_fetch_and(&trace_control.recording, ~TOP_SLOT, __ATOMIC_SEQ_CST);
	printk(KERN_EMERG "Dumping ftrace buffer:\n");
	ftrace_dump_state.cpu = oops_dump_mode == DUMP_ORIG ? this_cpu()->h.cpu : -1;
	ftrace_dump_ask();
}

/* The text the host wrote, a line a printk (trace_printk_seq()). */
notrace void ftrace_dump_print(void)
{
	struct ftrace_dump_state *d = &ftrace_dump_state;
	char line[FTRACE_DUMP_TEXT_SIZE < 512 ? FTRACE_DUMP_TEXT_SIZE : 512];
	u32 len, at = 0;

	/* (any call-function interrupt comes here: only an answer of the host's is taken) */
	if (!__atomic_exchange_n(&d->ready, 0, __ATOMIC_ACQ_REL))
		return;
	len = min(READ_ONCE(d->len), (u32)FTRACE_DUMP_TEXT_SIZE);
	while (at < len) {
		u32 n = 0;

		while (at < len && d->text[at] != '\n' && n < sizeof(line) - 2)
			line[n++] = d->text[at++];
		if (at < len && d->text[at] == '\n')
			at++;
		line[n++] = '\n';
		line[n] = '\0';
		printk(KERN_EMERG "%s", line);
	}
	if (READ_ONCE(d->last))
		__atomic_store_n(&d->running, 0, __ATOMIC_RELEASE);
	else
		ftrace_dump_ask();
}
