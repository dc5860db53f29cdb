/*
 * Block I/O tracing (kernel/trace/blktrace.c of Linux 6.1), its ftrace side: a struct blk_trace
 * per request_queue, made and set by the attributes of /sys/block/DEV/trace/ (served to a
 * session by the host through its request mailbox: HOST_REQ_BLK_TRACE_ATTR), and probes on the
 * block tracepoints (include/trace/events/block.h's TRACE_EVENT_BLK: they run from the
 * tracepoint's kernel_key sites, which blk_register_tracepoints() turns on) that write a
 * TRACE_BLK entry into the top-level trace buffer while `blk` is the current tracer (the host
 * sets blk_tracer_enabled, as blk_tracer_init()/blk_tracer_reset() do).
 *
 * No relay channel and no debugfs: the BLKTRACESETUP ioctls are not served (ENOTTY), so
 * Blktrace_running never happens and records go only to the trace buffer.  Bios have no blkcg
 * here (no cgroups), so no record carries a cgroup id, whatever options/blk_cgroup says.  Nothing here is
 * traceable, as 6.1 builds kernel/trace/ without the ftrace flags (the Makefile's TRACE_SRC).
 * The tracepoints this kernel has are the probes' (rq_insert/issue/complete, bio_queue,
 * bio_complete, getrq, plug, unplug); it merges, requeues, splits, bounces and remaps nothing.
 */
#include "../include/kernel.h"
#include "../include/blkdev.h"
#include "../include/mutex.h"
#include "../include/slab.h"
#include "../include/jump_label.h"
#include "../include/trace/trace.h"
#include "../include/trace/ring.h"
#include "../include/uapi/blktrace_api.h"

#define TRACE_BLK	13	/* kernel/trace/trace.h: enum trace_type */

struct blk_trace {
	u16 act_mask;
	u64 start_lba;
	u64 end_lba;
	u32 pid;
	u32 dev;
	struct rcu_head rcu;
};

/* the blk tracer is current in the top-level trace array (host-written: blk_tracer_init/reset) */
bool blk_tracer_enabled;

static DEFINE_MUTEX(blk_probe_mutex);
static int blk_probes_ref;

/*
 * The tracepoints blktrace registers its probes on: their kernel_key, whose sites call
 * blk_add_trace_<probe>() (and perf's and BPF's probes, which find none of theirs).
 */
static struct tracepoint *const blk_tracepoints[] = {
	&__tracepoint_block_rq_insert, &__tracepoint_block_rq_issue, &__tracepoint_block_rq_complete,
	&__tracepoint_block_bio_complete, &__tracepoint_block_bio_queue, &__tracepoint_block_getrq,
	&__tracepoint_block_plug, &__tracepoint_block_unplug,
};

static notrace void blk_register_tracepoints(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(blk_tracepoints); i++)
		static_key_slow_inc(&blk_tracepoints[i]->kernel_key);
}

static notrace void blk_unregister_tracepoints(void)
{
	for (unsigned int i = ARRAY_SIZE(blk_tracepoints); i--; )
		static_key_slow_dec(&blk_tracepoints[i]->kernel_key);
}

static notrace void get_probe_ref(void)
{
	mutex_lock(&blk_probe_mutex);
	if (++blk_probes_ref == 1)
		blk_register_tracepoints();
	mutex_unlock(&blk_probe_mutex);
}

static notrace void put_probe_ref(void)
{
	mutex_lock(&blk_probe_mutex);
	if (!--blk_probes_ref)
		blk_unregister_tracepoints();
	mutex_unlock(&blk_probe_mutex);
}

static notrace int act_log_check(struct blk_trace *bt, u32 what, sector_t sector, pid_t pid)
{
	if (((bt->act_mask << BLK_TC_SHIFT) & what) == 0)
		return 1;
	if (sector && (sector < bt->start_lba || sector > bt->end_lba))
		return 1;
	if (bt->pid && pid != bt->pid)
		return 1;
	return 0;
}

/* Data direction bit lookup */
static const u32 ddir_act[2] = { BLK_TC_ACT(BLK_TC_READ), BLK_TC_ACT(BLK_TC_WRITE) };

/* a REQ_<flag> bit moved to its BLK_TC_<flag> action bit */
#define MASK_TC_BIT(rw, req, tc) ((u32)!!((rw) & (req)) << (__builtin_ctz(tc) + BLK_TC_SHIFT))

/*
 * The worker of the probes: a blk_io_trace of the action, in a TRACE_BLK entry of the
 * top-level buffer when the blk tracer is current (6.1's blk_tracer path; its relay path has
 * no channel here).
 */
static noinline notrace void __blk_add_trace(struct blk_trace *bt, sector_t sector, int bytes, const blk_opf_t opf,
				    u32 what, int error, int pdu_len, const void *pdu_data)
{
	struct percpu *pc = this_cpu();
	const u32 op = opf & REQ_OP_MASK;
	struct blk_io_trace *t;
	pid_t pid;

	if (!READ_ONCE(blk_tracer_enabled))
		return;

	what |= ddir_act[op_is_write(op) ? 1 : 0];
	what |= MASK_TC_BIT(opf, REQ_SYNC, BLK_TC_SYNC);
	what |= MASK_TC_BIT(opf, REQ_RAHEAD, BLK_TC_AHEAD);
	what |= MASK_TC_BIT(opf, REQ_META, BLK_TC_META);
	what |= MASK_TC_BIT(opf, REQ_PREFLUSH, BLK_TC_FLUSH);
	what |= MASK_TC_BIT(opf, REQ_FUA, BLK_TC_FUA);
	if (op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE)
		what |= BLK_TC_ACT(BLK_TC_DISCARD);
	if (op == REQ_OP_FLUSH)
		what |= BLK_TC_ACT(BLK_TC_FLUSH);

	pid = trace_current_pid(pc);
	if (act_log_check(bt, what, sector, pid))
		return;

	/* trace_buffer_lock_reserve(TRACE_BLK) with tracing_gen_ctx_flags(0): irqs show off, and
	 * the depth is the tracepoint's preempt count itself (not less one) */
	t = trace_event_buffer_reserve_slot(0, sizeof(*t) + pdu_len, trace_clock_read(pc));
	if (!t)
		return;
	trace_entry_fill_count(pc, t, TRACE_BLK, 0, pid, pc->preempt_count + 1);
	t->time = 0;	/* (6.1 leaves it as the ring had it: the binary output makes its own) */
	t->cpu = pc->h.cpu;
	t->pid = pid;
	t->sector = sector;
	t->bytes = bytes;
	t->action = what;
	t->device = bt->dev;
	t->error = error;
	t->pdu_len = pdu_len;
	if (pdu_len)
		memcpy(t + 1, pdu_data, pdu_len);
	trace_event_commit(t, sizeof(*t) + pdu_len);
	/* trace_buffer_unlock_commit()'s ftrace_trace_stack() and ftrace_trace_userstack(): the
	 * stacks options/stacktrace and userstacktrace ask for, after the record and with its
	 * context.  STACK_SKIP counts an event's commit path (an event's stack starts at its
	 * trace_event_raw_event_<name>, the caller of trace_event_buffer_commit()); here the same
	 * count takes this function too ("they lose a function or two"): it starts at our caller. */
	if (unlikely(trace_stack_opt_slots() & 1))
		trace_event_opt_stacks(1, NULL, t, 0, (unsigned long)__builtin_frame_address(0));
}

/* blk_add_trace_rq(): a request's action, its sectors and bytes (every request here is an fs one) */
static notrace void blk_add_trace_rq(struct request *rq, blk_status_t error, unsigned int nr_bytes, u32 what)
{
	struct blk_trace *bt = READ_ONCE(rq->q->blk_trace);

	if (likely(!bt))
		return;
	what |= BLK_TC_ACT(BLK_TC_FS);
	__blk_add_trace(bt, blk_rq_trace_sector(rq), nr_bytes, rq->cmd_flags, what,
			blk_status_to_errno(error), 0, NULL);
}

notrace void blk_add_trace_rq_insert(struct request *rq)
{
	blk_add_trace_rq(rq, 0, blk_rq_bytes(rq), BLK_TA_INSERT);
}

notrace void blk_add_trace_rq_issue(struct request *rq)
{
	blk_add_trace_rq(rq, 0, blk_rq_bytes(rq), BLK_TA_ISSUE);
}

notrace void blk_add_trace_rq_complete(struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	blk_add_trace_rq(rq, error, nr_bytes, BLK_TA_COMPLETE);
}

/* blk_add_trace_bio(): a bio's action, its sector and size */
static notrace void blk_add_trace_bio(struct request_queue *q, struct bio *bio, u32 what, int error)
{
	struct blk_trace *bt = READ_ONCE(q->blk_trace);

	if (likely(!bt))
		return;
	__blk_add_trace(bt, bio->bi_iter.bi_sector, bio->bi_iter.bi_size, bio->bi_opf, what, error, 0, NULL);
}

notrace void blk_add_trace_bio_complete(struct request_queue *q, struct bio *bio)
{
	blk_add_trace_bio(q, bio, BLK_TA_COMPLETE, blk_status_to_errno(bio->bi_status));
}

notrace void blk_add_trace_bio_queue(struct bio *bio)
{
	blk_add_trace_bio(bio->bi_bdev->bd_disk->queue, bio, BLK_TA_QUEUE, 0);
}

notrace void blk_add_trace_getrq(struct bio *bio)
{
	blk_add_trace_bio(bio->bi_bdev->bd_disk->queue, bio, BLK_TA_GETRQ, 0);
}

notrace void blk_add_trace_plug(struct request_queue *q)
{
	struct blk_trace *bt = READ_ONCE(q->blk_trace);

	if (bt)
		__blk_add_trace(bt, 0, 0, 0, BLK_TA_PLUG, 0, 0, NULL);
}

notrace void blk_add_trace_unplug(struct request_queue *q, unsigned int depth, bool explicit)
{
	struct blk_trace *bt = READ_ONCE(q->blk_trace);

	if (bt) {
		u64 rpdu = __builtin_bswap64(depth);	/* cpu_to_be64 */

		__blk_add_trace(bt, 0, 0, 0, explicit ? BLK_TA_UNPLUG_IO : BLK_TA_UNPLUG_TIMER, 0,
				sizeof(rpdu), &rpdu);
	}
}

static notrace void blk_trace_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct blk_trace, rcu));
}

static notrace int blk_trace_remove_queue(struct request_queue *q)
{
	struct blk_trace *bt = q->blk_trace;

	if (bt == NULL)
		return -EINVAL;
	WRITE_ONCE(q->blk_trace, NULL);
	put_probe_ref();
	call_rcu(&bt->rcu, blk_trace_free_rcu);	/* (6.1: synchronize_rcu(), then the free) */
	return 0;
}

/* Setup everything required to start tracing */
static notrace int blk_trace_setup_queue(struct request_queue *q, struct block_device *bdev)
{
	struct blk_trace *bt = kzalloc(sizeof(*bt), GFP_KERNEL);

	if (!bt)
		return -ENOMEM;
	bt->dev = bdev->bd_dev;
	bt->act_mask = (u16)-1;
	/* blk_trace_setup_lba() */
	bt->start_lba = bdev->bd_start_sect;
	bt->end_lba = bdev->bd_start_sect + bdev->bd_nr_sectors;
	WRITE_ONCE(q->blk_trace, bt);
	get_probe_ref();
	return 0;
}

/* sysfs interface to enable and configure tracing: /sys/block/DEV/trace/'s files, in order */
enum { BLK_ATTR_ENABLE, BLK_ATTR_ACT_MASK, BLK_ATTR_PID, BLK_ATTR_START_LBA, BLK_ATTR_END_LBA };

static const struct {
	int mask;
	const char *str;
} mask_maps[] = {
	{ BLK_TC_READ,		"read"		},
	{ BLK_TC_WRITE,		"write"		},
	{ BLK_TC_FLUSH,		"flush"		},
	{ BLK_TC_SYNC,		"sync"		},
	{ BLK_TC_QUEUE,		"queue"		},
	{ BLK_TC_REQUEUE,	"requeue"	},
	{ BLK_TC_ISSUE,		"issue"		},
	{ BLK_TC_COMPLETE,	"complete"	},
	{ BLK_TC_FS,		"fs"		},
	{ BLK_TC_PC,		"pc"		},
	{ BLK_TC_NOTIFY,	"notify"	},
	{ BLK_TC_AHEAD,		"ahead"		},
	{ BLK_TC_META,		"meta"		},
	{ BLK_TC_DISCARD,	"discard"	},
	{ BLK_TC_DRV_DATA,	"drv_data"	},
	{ BLK_TC_FUA,		"fua"		},
};

/* str (NUL-terminated, modified) as a list of category names: the mask, or -EINVAL */
static notrace int blk_trace_str2mask(char *str)
{
	char *s = strstrip(str), *token;
	int mask = 0;
	unsigned int i;

	while ((token = strsep(&s, ",")) != NULL) {
		if (*token == '\0')
			continue;
		for (i = 0; i < ARRAY_SIZE(mask_maps); i++) {
			if (strcasecmp(token, mask_maps[i].str) == 0) {
				mask |= mask_maps[i].mask;
				break;
			}
		}
		if (i == ARRAY_SIZE(mask_maps))
			return -EINVAL;
	}
	return mask;
}

static notrace ssize_t blk_trace_mask2str(char *buf, int mask)
{
	char *p = buf;

	for (unsigned int i = 0; i < ARRAY_SIZE(mask_maps); i++) {
		if (mask & mask_maps[i].mask)
			p += scnprintf(p, PAGE_SIZE - (p - buf), "%s%s", (p == buf) ? "" : ",", mask_maps[i].str);
	}
	*p++ = '\n';
	return p - buf;
}

/* what the host reads and writes the attributes through (a page, as sysfs's buffer) */
char blk_trace_attr_buf[PAGE_SIZE];

static notrace ssize_t sysfs_blk_trace_attr_show(struct block_device *bdev, int attr, char *buf)
{
	struct request_queue *q = bdev_get_queue(bdev);
	struct blk_trace *bt;
	ssize_t ret = -ENXIO;

	mutex_lock(&q->debugfs_mutex);
	bt = q->blk_trace;
	if (attr == BLK_ATTR_ENABLE)
		ret = scnprintf(buf, PAGE_SIZE, "%u\n", !!bt);
	else if (bt == NULL)
		ret = scnprintf(buf, PAGE_SIZE, "disabled\n");
	else if (attr == BLK_ATTR_ACT_MASK)
		ret = blk_trace_mask2str(buf, bt->act_mask);
	else if (attr == BLK_ATTR_PID)
		ret = scnprintf(buf, PAGE_SIZE, "%u\n", bt->pid);
	else if (attr == BLK_ATTR_START_LBA)
		ret = scnprintf(buf, PAGE_SIZE, "%llu\n", (unsigned long long)bt->start_lba);
	else if (attr == BLK_ATTR_END_LBA)
		ret = scnprintf(buf, PAGE_SIZE, "%llu\n", (unsigned long long)bt->end_lba);
	mutex_unlock(&q->debugfs_mutex);
	return ret;
}

static notrace ssize_t sysfs_blk_trace_attr_store(struct block_device *bdev, int attr, char *buf, size_t count)
{
	struct request_queue *q = bdev_get_queue(bdev);
	unsigned long long value;
	struct blk_trace *bt;
	ssize_t ret = -EINVAL;

	if (count == 0)
		goto out;

	if (attr == BLK_ATTR_ACT_MASK) {
		if (kstrtoull(buf, 0, &value)) {
			/* Assume it is a list of trace category names */
			ret = blk_trace_str2mask(buf);
			if (ret < 0)
				goto out;
			value = ret;
		}
	} else {
		if (kstrtoull(buf, 0, &value))
			goto out;
	}

	mutex_lock(&q->debugfs_mutex);
	bt = q->blk_trace;
	if (attr == BLK_ATTR_ENABLE) {
		if (!!value == !!bt) {
			ret = 0;
			goto out_unlock_bdev;
		}
		if (value)
			ret = blk_trace_setup_queue(q, bdev);
		else
			ret = blk_trace_remove_queue(q);
		goto out_unlock_bdev;
	}

	ret = 0;
	if (bt == NULL) {
		ret = blk_trace_setup_queue(q, bdev);
		bt = q->blk_trace;
	}
	if (ret == 0) {
		if (attr == BLK_ATTR_ACT_MASK)
			bt->act_mask = value;
		else if (attr == BLK_ATTR_PID)
			bt->pid = value;
		else if (attr == BLK_ATTR_START_LBA)
			bt->start_lba = value;
		else if (attr == BLK_ATTR_END_LBA)
			bt->end_lba = value;
	}

out_unlock_bdev:
	mutex_unlock(&q->debugfs_mutex);
out:
	return ret ? ret : (ssize_t)count;
}

/*
 * HOST_REQ_BLK_TRACE_ATTR (run by kthreadd, as a reader's or writer's sysfs call runs): the
 * attribute `attr` of the disk `dev`, shown into blk_trace_attr_buf (the length), or stored
 * from its first count bytes (count, or -errno).  -ENODEV: no such disk.
 */
notrace long blk_trace_attr_request(u32 dev, u32 attr, bool store, u32 count)
{
	struct block_device *bdev = disk_bdev_by_devt(dev);

	if (!bdev || attr > BLK_ATTR_END_LBA || count >= PAGE_SIZE)
		return -ENODEV;
	if (!store)
		return sysfs_blk_trace_attr_show(bdev, attr, blk_trace_attr_buf);
	blk_trace_attr_buf[count] = '\0';	/* as kernfs terminates what it passes */
	return sysfs_blk_trace_attr_store(bdev, attr, blk_trace_attr_buf, count);
}
