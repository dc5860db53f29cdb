/*
 * printk (kernel/printk/printk.c): a message is stored as a record of the log
 * (vprintk_store, where printk:console records its text, as 6.1's
 * printk_sprint does), then whoever gets console_sem prints every record not
 * printed yet to the consoles (console_unlock): here the machine's serial
 * console, whose lines go to the host.  /dev/kmsg takes messages from user
 * space ("<facility*8+level>text"), as journald and cron log through it.
 */
#include "../include/fs.h"
#include "../include/semaphore.h"
#include "../include/trace/trace.h"
#include <stdarg.h>

#define KERN_SOH_ASCII		'\001'
#define LOGLEVEL_DEFAULT	-1
#define MESSAGE_LOGLEVEL_DEFAULT 4	/* KERN_WARNING, for a printk without a level */
#define CONSOLE_LOGLEVEL_DEFAULT 7	/* messages below KERN_DEBUG reach the console */
#define LOG_USER		1	/* the facility of a /dev/kmsg line without one */
#define PRINTK_RECORDS		256
#define PRINTK_TEXT_MAX		224	/* a record's text, cut there */
#define CONSOLE_LOG_MAX		(PRINTK_TEXT_MAX + 32)

struct printk_info {
	u64 seq;		/* sequence number of the record */
	u64 ts_nsec;		/* when it was stored */
	u16 text_len;
	u8 facility;
	u8 level;
};

struct printk_record {
	struct printk_info info;
	char text[PRINTK_TEXT_MAX];
};

/* the log: the last PRINTK_RECORDS records, by sequence number */
static struct printk_record log_records[PRINTK_RECORDS];
static raw_spinlock_t logbuf_lock;
static u64 log_next_seq;
static u64 console_seq;			/* the next record the consoles print; under console_sem */
static DEFINE_SEMAPHORE(console_sem);
static int console_loglevel = CONSOLE_LOGLEVEL_DEFAULT;
static bool printk_time = true;

struct console {
	char name[16];
	void (*write)(struct console *co, const char *s, unsigned int count);
	int index;
};

/* ---- the serial console: its output goes to the host ---- */
static void hostcon_write(struct console *co, const char *s, unsigned int count)
{
	unsigned long flags = arch_local_irq_save();	/* db_arg is per-CPU */
	struct percpu *pc = this_cpu();

	pc->h.db_arg[0] = (u64)s;
	pc->h.db_arg[1] = count;
	host_doorbell(PORT_CONSOLE, 0);
	arch_local_irq_restore(flags);
}

static struct console hostcon = { .name = "ttyS", .write = hostcon_write, .index = 0 };
static struct console *console_drivers = &hostcon;

/* The level of a KERN_<LEVEL> prefix, if the text starts with one: its length. */
noinline u16 printk_parse_prefix(const char *text, int *level)
{
	if (text[0] != KERN_SOH_ASCII || !text[1])
		return 0;
	if (text[1] >= '0' && text[1] <= '7' && level)
		*level = text[1] - '0';
	return 2;
}

static noinline u16 printk_sprint(char *text, u16 size, int facility, int *level, const char *fmt, va_list args)
{
	u16 text_len = vscnprintf(text, size, fmt, args);

	if (text_len && text[text_len - 1] == '\n')
		text_len--;
	if (facility == 0) {
		u16 prefix_len = printk_parse_prefix(text, level);

		if (prefix_len) {
			text_len -= prefix_len;
			for (u16 i = 0; i < text_len; i++)	/* down over the prefix */
				text[i] = text[i + prefix_len];
		}
	}
	text[text_len] = 0;
	trace_console(text, text_len);
	return text_len;
}

int vprintk_store(int facility, int level, const char *fmt, va_list args)
{
	char text[PRINTK_TEXT_MAX];
	struct printk_record *r;
	unsigned long flags;
	u16 text_len;

	text_len = printk_sprint(text, sizeof(text), facility, &level, fmt, args);
	if (level == LOGLEVEL_DEFAULT)
		level = MESSAGE_LOGLEVEL_DEFAULT;
	raw_spin_lock_irqsave(&logbuf_lock, flags);
	r = &log_records[log_next_seq % PRINTK_RECORDS];
	r->info.seq = log_next_seq++;
	r->info.ts_nsec = ktime_get();
	r->info.text_len = text_len;
	r->info.facility = facility;
	r->info.level = level;
	memcpy(r->text, text, text_len + 1);
	raw_spin_unlock_irqrestore(&logbuf_lock, flags);
	return text_len;
}

/* "[    5.123456] text\n" */
static noinline size_t record_print_text(const struct printk_record *r, char *buf, size_t size)
{
	size_t len = 0;

	if (printk_time)
		len = scnprintf(buf, size, "[%5lu.%06lu] ", r->info.ts_nsec / 1000000000UL,
				(r->info.ts_nsec % 1000000000UL) / 1000);
	len += scnprintf(buf + len, size - len, "%s\n", r->text);
	return len;
}

static void call_console_driver(struct console *con, const char *text, size_t len)
{
	con->write(con, text, len);
}

/* The next record for the consoles, copied out; false when they are up to date. */
static bool console_emit_next_record(struct console *con, char *text)
{
	struct printk_record r;
	unsigned long flags;
	size_t len;

	raw_spin_lock_irqsave(&logbuf_lock, flags);
	if (console_seq == log_next_seq) {
		raw_spin_unlock_irqrestore(&logbuf_lock, flags);
		return false;
	}
	if (log_next_seq - console_seq > PRINTK_RECORDS)	/* overwritten meanwhile */
		console_seq = log_next_seq - PRINTK_RECORDS;
	r = log_records[console_seq % PRINTK_RECORDS];
	console_seq++;
	raw_spin_unlock_irqrestore(&logbuf_lock, flags);
	if (r.info.level >= console_loglevel)
		return true;
	len = record_print_text(&r, text, CONSOLE_LOG_MAX);
	call_console_driver(con, text, len);
	return true;
}

int console_trylock(void)
{
	return !down_trylock(&console_sem);
}

void console_lock(void)
{
	down(&console_sem);
}

/* Print what the consoles have not printed, then let console_sem go. */
void console_unlock(void)
{
	static char text[CONSOLE_LOG_MAX];	/* under console_sem */

	while (console_emit_next_record(console_drivers, text))
		;
	up(&console_sem);
}

int vprintk_emit(int facility, int level, const char *fmt, va_list args)
{
	int printed_len = vprintk_store(facility, level, fmt, args);

	/* the owner of console_sem prints this record too */
	preempt_disable();
	if (console_trylock())
		console_unlock();
	preempt_enable();
	return printed_len;
}

int vprintk_default(const char *fmt, va_list args)
{
	return vprintk_emit(0, LOGLEVEL_DEFAULT, fmt, args);
}

int vprintk(const char *fmt, va_list args)
{
	return vprintk_default(fmt, args);
}

int _printk(const char *fmt, ...)
{
	va_list args;
	int r;

	va_start(args, fmt);
	r = vprintk(fmt, args);
	va_end(args);
	return r;
}

static int printk_emit(int facility, int level, const char *fmt, ...)
{
	va_list args;
	int r;

	va_start(args, fmt);
	r = vprintk_emit(facility, level, fmt, args);
	va_end(args);
	return r;
}

/* ---- /dev/kmsg ---- */
#define DEVKMSG_LINE_MAX 192

static ssize_t devkmsg_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	char line[DEVKMSG_LINE_MAX];
	int level = MESSAGE_LOGLEVEL_DEFAULT, facility = LOG_USER;
	size_t len = min(count, sizeof(line) - 1);
	char *text = line;

	if (copy_from_user(line, buf, len))
		return -EFAULT;
	line[len] = 0;
	/* "<N>": N is facility * 8 + level */
	if (line[0] == '<') {
		char *endp = line + 1;
		unsigned int u = 0;

		while (*endp >= '0' && *endp <= '9')
			u = u * 10 + (*endp++ - '0');
		if (endp > line + 1 && *endp == '>') {
			level = u & 7;
			if (u >> 3)
				facility = u >> 3;
			text = endp + 1;
		}
	}
	printk_emit(facility, level, "%s", text);
	return count;
}

const struct file_operations kmsg_fops = { .write = devkmsg_write };

void __init printk_init(void)
{
	pr_notice("%s", linux_banner);
}
