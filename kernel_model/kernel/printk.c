/*
 * printk (kernel/printk/printk.c): a message is stored as a record of the log
 * (vprintk_store, where printk:console records its text, as 6.1's
 * printk_sprint does), then whoever gets console_sem prints every record not
 * printed yet to the consoles (console_unlock): here the machine's serial
 * console, whose lines go to the host.  /dev/kmsg takes messages from user
 * space ("<facility*8+level>text"), as journald and cron log through it, and
 * gives each reader the records one a read ("prio,seq,usec,-;text"); syslog(2)
 * (do_syslog) gives them as dmesg prints them ("<prio>[ time] text"), to a
 * reader dmesg_restrict lets in.  A reader that waits for new records is woken
 * from the tick (6.1's klogd irq_work: printk may run with any lock held).
 */
#include "../include/security.h"
#include "../include/fs.h"
#include "../include/semaphore.h"
#include "../include/trace/trace.h"
#include "../include/syslog.h"
#include "../include/syscalls.h"
#include "../include/slab.h"
#include "../include/cred.h"
#include "../include/poll.h"
#include "../include/session.h"
#include "../include/uapi/session_ring.h"
#include "../include/ratelimit.h"
#include <stdarg.h>

#define KERN_SOH_ASCII		'\001'
#define LOGLEVEL_DEFAULT	-1
#define MESSAGE_LOGLEVEL_DEFAULT 4	/* KERN_WARNING, for a printk without a level */
#define CONSOLE_LOGLEVEL_DEFAULT 7	/* messages below KERN_DEBUG reach the console */
#define LOG_USER		1	/* the facility of a /dev/kmsg line without one */
#define PRINTK_RECORDS		256
#define PRINTK_TEXT_MAX		224	/* a record's text, cut there */
#define CONSOLE_LOG_MAX		(PRINTK_TEXT_MAX + 32)
#define LOG_BUF_LEN		(PRINTK_RECORDS * PRINTK_TEXT_MAX)	/* SYSLOG_ACTION_SIZE_BUFFER */
#define CONSOLE_LOGLEVEL_MIN	1
#define CAP_SYSLOG		34
#define PREFIX_MAX		32

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
static int saved_console_loglevel = LOGLEVEL_DEFAULT;
static bool printk_time = true;
static u64 clear_seq;			/* SYSLOG_ACTION_CLEAR's: dmesg -c, SEEK_DATA */
static u64 syslog_seq;			/* SYSLOG_ACTION_READ's next record... */
static size_t syslog_partial;		/* ... and how much of it was read */
int dmesg_restrict = 1;			/* Debian's CONFIG_SECURITY_DMESG_RESTRICT */
wait_queue_head_t log_wait;		/* readers waiting for a record (/proc/kmsg's poll too) */
static int klogd_pending[NR_CPUS];	/* a record came: wake them at the tick */

struct console {
	char name[16];
	void (*write)(struct console *co, const char *s, unsigned int count);
	int index;
};

/* ---- the serial console: its output goes to the host ---- */
static notrace void hostcon_write(struct console *co, const char *s, unsigned int count)
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
	/* a session's supervisor holds its /dev/kmsg readers until this passes theirs */
	__atomic_store_n(&session_ring.log_next_seq, log_next_seq, __ATOMIC_RELEASE);
	raw_spin_unlock_irqrestore(&logbuf_lock, flags);
	wake_up_klogd();
	return text_len;
}

/* wake_up_klogd(): the readers waiting for records are woken at this cpu's next tick */
noinline void wake_up_klogd(void)
{
	WRITE_ONCE(klogd_pending[smp_processor_id()], 1);
}

/* irq_work_needs_cpu(): a wake-up waits for this cpu's tick, which must not stop (idle) */
notrace bool irq_work_needs_cpu(void)
{
	return READ_ONCE(klogd_pending[smp_processor_id()]) || bpf_send_signal_pending();
}

/* the klogd irq_work's function, from the tick (update_process_times) */
noinline void wake_up_klogd_work_func(void)
{
	int cpu = smp_processor_id();

	if (!READ_ONCE(klogd_pending[cpu]))
		return;
	WRITE_ONCE(klogd_pending[cpu], 0);
	wake_up_interruptible(&log_wait);
}

/* info_print_prefix(): "<prio>" for syslog, "[    5.123456] " with the time */
static noinline size_t info_print_prefix(const struct printk_info *info, bool syslog, bool time, char *buf)
{
	size_t len = 0;

	if (syslog)
		len = scnprintf(buf, PREFIX_MAX, "<%u>", (info->facility << 3) | info->level);
	if (time)
		len += scnprintf(buf + len, PREFIX_MAX - len, "[%5lu.%06lu] ", info->ts_nsec / 1000000000UL,
				 (info->ts_nsec % 1000000000UL) / 1000);
	return len;
}

/* record_print_text(): each line of the record's text after the prefix, "\n" ended; the length
 * (what fits in size) */
static noinline size_t record_print_text(const struct printk_record *r, bool syslog, bool time, char *buf,
					 size_t size)
{
	char prefix[PREFIX_MAX];
	const char *line = r->text;
	size_t len = 0;

	info_print_prefix(&r->info, syslog, time, prefix);
	for (;;) {
		len += scnprintf(buf + len, size - len, "%s", prefix);
		for (; *line && *line != '\n' && len + 2 < size; line++)
			buf[len++] = *line;
		buf[len++] = '\n';
		buf[len] = 0;
		if (*line != '\n' || !line[1])
			return len;
		line++;
	}
}

/* The record `seq` or the first after it still in the log, copied out; false: none yet. */
static notrace bool printk_get_record(u64 seq, struct printk_record *r)
{
	unsigned long flags;
	bool found;

	raw_spin_lock_irqsave(&logbuf_lock, flags);
	if (log_next_seq > PRINTK_RECORDS && seq < log_next_seq - PRINTK_RECORDS)
		seq = log_next_seq - PRINTK_RECORDS;	/* overwritten meanwhile */
	found = seq < log_next_seq;
	if (found)
		*r = log_records[seq % PRINTK_RECORDS];
	raw_spin_unlock_irqrestore(&logbuf_lock, flags);
	return found;
}

static noinline u64 prb_first_valid_seq(void)
{
	u64 next = READ_ONCE(log_next_seq);

	return next > PRINTK_RECORDS ? next - PRINTK_RECORDS : 0;
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
	len = record_print_text(&r, false, printk_time, text, CONSOLE_LOG_MAX);
	call_console_driver(con, text, len);
	return true;
}

noinline int console_trylock(void)
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

noinline int vprintk_emit(int facility, int level, const char *fmt, va_list args)
{
	int printed_len = vprintk_store(facility, level, fmt, args);

	/* the owner of console_sem prints this record too */
	preempt_disable();
	if (console_trylock())
		console_unlock();
	preempt_enable();
	return printed_len;
}

noinline int vprintk_default(const char *fmt, va_list args)
{
	return vprintk_emit(0, LOGLEVEL_DEFAULT, fmt, args);
}

noinline int vprintk(const char *fmt, va_list args)
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

static notrace int printk_emit(int facility, int level, const char *fmt, ...)
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
#define LOG_LINE_MAX		(1024 - PREFIX_MAX)	/* a longer write is refused (6.1's) */

/* a reader's place in the log, and a writer's rate limit (printk.devkmsg=ratelimit, 6.1's
 * default: ten records in five seconds an open file, the rest dropped and counted) */
struct devkmsg_user {
	u64 seq;
	struct ratelimit_state rs;
	char buf[PRINTK_TEXT_MAX * 4 + 64];	/* a record as read: every byte may become \xNN */
};

static ssize_t devkmsg_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	struct devkmsg_user *user = file->private_data;
	char line[DEVKMSG_LINE_MAX];
	int level = MESSAGE_LOGLEVEL_DEFAULT, facility = LOG_USER;
	size_t len = min(count, sizeof(line) - 1);
	char *text = line;

	if (!user || count > LOG_LINE_MAX)
		return -EINVAL;
	if (!___ratelimit(&user->rs, current->comm))
		return count;
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

static noinline int check_syslog_permissions(int type, int source);

static noinline int devkmsg_open(struct inode *inode, struct file *file)
{
	struct devkmsg_user *user;
	int err;

	if ((file->f_flags & O_ACCMODE) != O_WRONLY) {	/* a writer only needs no permission */
		err = check_syslog_permissions(SYSLOG_ACTION_READ_ALL, SYSLOG_FROM_READER);
		if (err)
			return err;
	}
	user = kzalloc(sizeof(*user), GFP_KERNEL);
	if (!user)
		return -ENOMEM;
	ratelimit_default_init(&user->rs);
	user->rs.flags = RATELIMIT_MSG_ON_RELEASE;
	user->seq = prb_first_valid_seq();
	file->private_data = user;
	return 0;
}

static noinline int devkmsg_release(struct inode *inode, struct file *file)
{
	struct devkmsg_user *user = file->private_data;

	if (user && user->rs.missed)	/* ratelimit_state_exit() */
		pr_warn("printk: %s: %d output lines suppressed due to ratelimiting\n", current->comm, user->rs.missed);
	kfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

/* info_print_ext_header() and msg_print_ext_body(): "prio,seq,usec,-;text\n", the text's
 * unprintable bytes (and backslashes) as \xNN */
static size_t devkmsg_format(const struct printk_record *r, char *buf, size_t size)
{
	size_t len = scnprintf(buf, size, "%u,%llu,%llu,-;", (r->info.facility << 3) | r->info.level,
			       r->info.seq, r->info.ts_nsec / 1000);
	u16 i;

	for (i = 0; i < r->info.text_len && len + 5 < size; i++) {
		unsigned char c = r->text[i];

		if (c < ' ' || c >= 127 || c == '\\')
			len += scnprintf(buf + len, size - len, "\\x%02x", c);
		else
			buf[len++] = c;
	}
	buf[len++] = '\n';
	return len;
}

static noinline ssize_t devkmsg_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct devkmsg_user *user = file->private_data;
	struct printk_record r;
	size_t len;
	int ret;

	if (!user)
		return -EBADF;
	if (!printk_get_record(user->seq, &r)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(log_wait, READ_ONCE(log_next_seq) > user->seq);
		if (ret)
			return ret;
		if (!printk_get_record(user->seq, &r))
			return -EAGAIN;
	}
	if (r.info.seq != user->seq) {	/* the record this reader was at is gone: say so once */
		user->seq = r.info.seq;
		return -EPIPE;
	}
	user->seq = r.info.seq + 1;
	len = devkmsg_format(&r, user->buf, sizeof(user->buf));
	if (len > count)
		return -EINVAL;
	if (copy_to_user(buf, user->buf, len))
		return -EFAULT;
	return len;
}

static noinline loff_t devkmsg_llseek(struct file *file, loff_t offset, int whence)
{
	struct devkmsg_user *user = file->private_data;

	if (!user)
		return -EBADF;
	if (offset)
		return -ESPIPE;
	switch (whence) {
	case SEEK_SET:		/* the first record there is */
		user->seq = prb_first_valid_seq();
		return 0;
	case SEEK_DATA:		/* the first after the last "clear" (dmesg -c) */
		user->seq = max(READ_ONCE(clear_seq), prb_first_valid_seq());
		return 0;
	case SEEK_END:		/* after the last */
		user->seq = READ_ONCE(log_next_seq);
		return 0;
	default:
		return -EINVAL;
	}
}

static noinline unsigned int devkmsg_poll(struct file *file, struct poll_table_struct *wait)
{
	struct devkmsg_user *user = file->private_data;
	struct printk_record r;

	if (!user)
		return EPOLLERR | EPOLLNVAL;
	poll_wait(file, &log_wait, wait);
	if (!printk_get_record(user->seq, &r))
		return 0;
	if (r.info.seq != user->seq)	/* vanished underneath the reader */
		return EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLPRI;
	return EPOLLIN | EPOLLRDNORM;
}

/* A session's served call on a file (kernel/session.c): whether it is /dev/kmsg or /proc/kmsg,
 * and its reader's next record (a /dev/kmsg writer's: 0; /proc/kmsg's: SYSLOG_ACTION_READ's, the
 * one place of all its readers) */
notrace bool devkmsg_file_seq(struct file *file, u64 *seq)
{
	struct devkmsg_user *user;

	if (file && file->f_op == &proc_kmsg_operations) {
		*seq = READ_ONCE(syslog_seq);
		return true;
	}
	if (!file || file->f_op != &kmsg_fops)
		return false;
	user = file->private_data;
	*seq = user && (file->f_flags & O_ACCMODE) != O_WRONLY ? user->seq : 0;
	return true;
}

const struct file_operations kmsg_fops = {
	.open = devkmsg_open,
	.release = devkmsg_release,
	.read = devkmsg_read,
	.write = devkmsg_write,
	.llseek = devkmsg_llseek,
	.poll = devkmsg_poll,
};

/* ---- syslog(2) ---- */
static int syslog_action_restricted(int type)
{
	if (dmesg_restrict)
		return 1;
	/* unless restricted, reading the whole log and its size are for everyone */
	return type != SYSLOG_ACTION_READ_ALL && type != SYSLOG_ACTION_SIZE_BUFFER;
}

static noinline int check_syslog_permissions(int type, int source)
{
	/* a /proc/kmsg opened by someone allowed to reads on */
	if (source == SYSLOG_FROM_PROC && type != SYSLOG_ACTION_OPEN)
		goto ok;
	if (syslog_action_restricted(type) && !capable(CAP_SYSLOG) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
ok:
	return security_syslog(type);
}

/* syslog_print(): SYSLOG_ACTION_READ, what the log has that no such read took yet, waiting for
 * some; whole records, but a first one larger than the buffer goes in parts */
static noinline int syslog_print(char *buf, int size)
{
	char *text = kmalloc(CONSOLE_LOG_MAX * 2, GFP_KERNEL);
	struct printk_record r;
	int len = 0;

	if (!text)
		return -ENOMEM;
	if (wait_event_interruptible(log_wait, READ_ONCE(log_next_seq) > READ_ONCE(syslog_seq))) {
		kfree(text);
		return -ERESTARTSYS;
	}
	while (size > 0 && printk_get_record(syslog_seq, &r)) {
		size_t n = record_print_text(&r, true, printk_time, text, CONSOLE_LOG_MAX * 2), skip;

		if (r.info.seq != syslog_seq)
			syslog_partial = 0;	/* overwritten meanwhile */
		skip = syslog_partial;
		if (n - skip <= (size_t)size) {	/* it fits: the next record next */
			n -= skip;
			syslog_seq = r.info.seq + 1;
			syslog_partial = 0;
		} else if (!len) {		/* a part of it, the rest next time */
			n = size;
			syslog_seq = r.info.seq;
			syslog_partial += n;
		} else {
			break;
		}
		if (copy_to_user(buf + len, text + skip, n)) {
			len = len ? len : -EFAULT;
			break;
		}
		len += n;
		size -= n;
	}
	kfree(text);
	return len;
}

/* syslog_print_all(): the newest records that fit in size, oldest first, from clear_seq on */
static noinline int syslog_print_all(char *buf, int size, bool clear)
{
	char *text = kmalloc(CONSOLE_LOG_MAX * 2, GFP_KERNEL);
	u64 first = max(READ_ONCE(clear_seq), prb_first_valid_seq()), seq, end = READ_ONCE(log_next_seq);
	struct printk_record r;
	size_t total = 0;
	int len = 0;

	if (!text)
		return -ENOMEM;
	/* find_first_fitting_seq(): back from the end while the records still fit */
	for (seq = end; seq > first; seq--) {
		if (!printk_get_record(seq - 1, &r) || r.info.seq != seq - 1)
			break;
		total += record_print_text(&r, true, printk_time, text, CONSOLE_LOG_MAX * 2);
		if (total > (size_t)size)
			break;
	}
	for (; seq < end && printk_get_record(seq, &r); seq = r.info.seq + 1) {
		size_t n = record_print_text(&r, true, printk_time, text, CONSOLE_LOG_MAX * 2);

		if (len + n > (size_t)size)
			break;
		if (copy_to_user(buf + len, text, n)) {
			len = -EFAULT;
			break;
		}
		len += n;
	}
	if (clear && len >= 0)
		WRITE_ONCE(clear_seq, seq);
	kfree(text);
	return len;
}

/* SYSLOG_ACTION_SIZE_UNREAD: what SYSLOG_ACTION_READ would give now */
static notrace int syslog_size_unread(void)
{
	char text[CONSOLE_LOG_MAX * 2];
	struct printk_record r;
	u64 seq = READ_ONCE(syslog_seq);
	int size = 0;

	for (; printk_get_record(seq, &r); seq = r.info.seq + 1) {
		size += record_print_text(&r, true, printk_time, text, sizeof(text));
		if (r.info.seq == syslog_seq)
			size -= syslog_partial;
	}
	return size;
}

noinline int do_syslog(int type, char *buf, int len, int source)
{
	int error = check_syslog_permissions(type, source);

	if (error)
		return error;
	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
		return 0;
	case SYSLOG_ACTION_READ:
	case SYSLOG_ACTION_READ_CLEAR:
	case SYSLOG_ACTION_READ_ALL:
		if (!buf || len < 0)
			return -EINVAL;
		if (!len)
			return 0;
		if (!access_ok(buf, len))
			return -EFAULT;
		if (type == SYSLOG_ACTION_READ)
			return syslog_print(buf, len);
		return syslog_print_all(buf, len, type == SYSLOG_ACTION_READ_CLEAR);
	case SYSLOG_ACTION_CLEAR:
		WRITE_ONCE(clear_seq, READ_ONCE(log_next_seq));
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
		if (saved_console_loglevel == LOGLEVEL_DEFAULT)
			saved_console_loglevel = console_loglevel;
		console_loglevel = CONSOLE_LOGLEVEL_MIN;
		return 0;
	case SYSLOG_ACTION_CONSOLE_ON:
		if (saved_console_loglevel != LOGLEVEL_DEFAULT) {
			console_loglevel = saved_console_loglevel;
			saved_console_loglevel = LOGLEVEL_DEFAULT;
		}
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		if (len < 1 || len > 8)
			return -EINVAL;
		console_loglevel = max(len, CONSOLE_LOGLEVEL_MIN);
		saved_console_loglevel = LOGLEVEL_DEFAULT;
		return 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		return syslog_size_unread();
	case SYSLOG_ACTION_SIZE_BUFFER:
		return LOG_BUF_LEN;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE3(syslog, int, type, char *, buf, int, len)
{
	return do_syslog(type, buf, len, SYSLOG_FROM_READER);
}

void __init printk_init(void)
{
	init_waitqueue_head(&log_wait);
	pr_notice("%s", linux_banner);
}
