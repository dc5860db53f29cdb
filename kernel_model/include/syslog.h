/* include/linux/syslog.h of Linux 6.1: syslog(2)'s actions (kernel/printk.c's do_syslog) */
#ifndef _SYSLOG_H
#define _SYSLOG_H

#define SYSLOG_ACTION_CLOSE		0	/* close the log: nothing */
#define SYSLOG_ACTION_OPEN		1	/* open the log: nothing */
#define SYSLOG_ACTION_READ		2	/* read from the log, waiting for records */
#define SYSLOG_ACTION_READ_ALL		3	/* read the last records */
#define SYSLOG_ACTION_READ_CLEAR	4	/* ... and clear them */
#define SYSLOG_ACTION_CLEAR		5	/* clear the log */
#define SYSLOG_ACTION_CONSOLE_OFF	6	/* messages off the console */
#define SYSLOG_ACTION_CONSOLE_ON	7	/* ... on again */
#define SYSLOG_ACTION_CONSOLE_LEVEL	8	/* the console's level */
#define SYSLOG_ACTION_SIZE_UNREAD	9	/* bytes SYSLOG_ACTION_READ would give */
#define SYSLOG_ACTION_SIZE_BUFFER	10	/* the log's size */

#define SYSLOG_FROM_READER		0
#define SYSLOG_FROM_PROC		1

int do_syslog(int type, char *buf, int len, int source);
/* kernel/printk.c: the log's readers wait here; fs/proc/kmsg.c: /proc/kmsg's file */
extern struct wait_queue_head log_wait;
extern const struct file_operations proc_kmsg_operations;
#endif
