/* kernel/bpf/bpf_iter.c of 6.1: BPF iterators (below), and bpf_loop() and
 * bpf_for_each_map_elem(), helpers that call a function of the program, its callback, nr_loops
 * times or on each element of a map, until it returns 1.  The callback is the function's JITed
 * image (the verifier refuses callbacks to an interpreted program), called as C calls a helper. */
#include "../../include/bpf.h"
#include "../../include/btf.h"
#include "../../include/fs.h"
#include "../../include/mutex.h"

/* bpf_loop(nr_loops, callback_fn, callback_ctx, flags): the calls made (the last one's index +
 * 1 where it returned 1); -EINVAL for flags, -E2BIG past BPF_MAX_LOOPS */
BPF_CALL_x(bpf_loop)
{
	bpf_callback_t callback = (bpf_callback_t)r2;
	u32 nr_loops = r1, i;
	u64 flags = r4;

	if (flags)
		return -EINVAL;
	if (nr_loops > BPF_MAX_LOOPS)
		return -E2BIG;
	for (i = 0; i < nr_loops; i++) {
		/* return value: 0 - continue, 1 - stop and return */
		if (callback((u64)i, r3, 0, 0, 0))
			return i + 1;
	}
	return i;
}

const struct bpf_func_proto bpf_loop_proto = {
	.func = bpf_loop,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_ANYTHING, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING },
};

/* bpf_for_each_map_elem(map, callback_fn, callback_ctx, flags): the map type's walk (the JIT's
 * programs call it directly, do_misc_fixups()) */
BPF_CALL_x(bpf_for_each_map_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_for_each_callback(map, (bpf_callback_t)r2, (void *)r3, r4);
}

const struct bpf_func_proto bpf_for_each_map_elem_proto = {
	.func = bpf_for_each_map_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING },
};

/*
 * BPF iterators (the rest of 6.1's kernel/bpf/bpf_iter.c): a target ("task", "task_file":
 * task_iter.c) registers the seq_file operations that walk its objects and the function
 * bpf_iter_<target> whose BTF prototype is its programs' context.  A tracing program of attach
 * type BPF_TRACE_ITER names that function (attach_btf_id); BPF_LINK_CREATE links it to the
 * target, BPF_ITER_CREATE gives an fd on the link whose reads run it on each object, what it
 * writes with bpf_seq_printf()/bpf_seq_write() being what the read returns (bpf_seq_read()),
 * and once more with a NULL object when the walk ends (the seq's stop).
 */

struct bpf_iter_target_info {
	struct list_head list;
	const struct bpf_iter_reg *reg_info;
	u32 btf_id;	/* the target function's BTF id, once a program named it (cache_btf_id()) */
};

struct bpf_iter_link {
	struct bpf_link link;
	struct bpf_iter_aux_info aux;
	struct bpf_iter_target_info *tinfo;
};

/* an iterator fd's seq_file private data: the target's own part at its end */
struct bpf_iter_priv_data {
	struct bpf_iter_target_info *tinfo;
	const struct bpf_iter_seq_info *seq_info;
	struct bpf_prog *prog;
	u64 session_id;
	u64 seq_num;
	bool done_stop;
	struct mutex lock;	/* (6.1's seq->lock: one read at a time) */
	u8 target_private[] __aligned(8);
};

static LIST_HEAD(targets);
static DEFINE_MUTEX(targets_mutex);
static u64 session_id;

/* maximum visited objects before bailing out */
#define MAX_ITER_OBJECTS	1000000

static struct bpf_iter_priv_data *iter_priv(struct seq_file *seq)
{
	return container_of((u8 *)seq->private, struct bpf_iter_priv_data, target_private[0]);
}

static void bpf_iter_inc_seq_num(struct seq_file *seq)
{
	iter_priv(seq)->seq_num++;
}

static void bpf_iter_dec_seq_num(struct seq_file *seq)
{
	iter_priv(seq)->seq_num--;
}

static void bpf_iter_done_stop(struct seq_file *seq)
{
	iter_priv(seq)->done_stop = true;
}

/* bpf_seq_read(): as seq_read(), but each read runs the program on the objects from where the
 * last one stopped until the buffer holds what the reader asked for (the buffer, 8 pages, keeps
 * what did not fit for the next read); an object whose output overflows the buffer ends the
 * read before it (E2BIG when it is the first); the stop with a NULL object, once, at the end */
static ssize_t bpf_seq_read(struct file *file, char *buf, size_t size, loff_t *ppos)
{
	struct seq_file *seq = file->private_data;
	struct bpf_iter_priv_data *priv = iter_priv(seq);
	size_t n, offs, copied = 0;
	int err = 0, num_objs = 0;
	void *p;

	mutex_lock(&priv->lock);
	if (!seq->buf) {
		seq->size = PAGE_SIZE << 3;
		seq->buf = kvmalloc(seq->size, GFP_KERNEL);
		if (!seq->buf) {
			err = -ENOMEM;
			goto done;
		}
	}
	if (seq->count) {
		n = min(seq->count, size);
		if (copy_to_user(buf, seq->buf + seq->from, n)) {
			err = -EFAULT;
			goto done;
		}
		seq->count -= n;
		seq->from += n;
		copied = n;
		goto done;
	}
	seq->from = 0;
	p = seq->op->start(seq, &seq->index);
	if (!p)
		goto stop;
	if (IS_ERR(p)) {
		err = PTR_ERR(p);
		seq->op->stop(seq, p);
		seq->count = 0;
		goto done;
	}
	err = seq->op->show(seq, p);
	if (err > 0) {
		/* object is skipped, decrease seq_num, so next valid object can reuse the same seq_num */
		bpf_iter_dec_seq_num(seq);
		seq->count = 0;
	} else if (err < 0 || seq_has_overflowed(seq)) {
		if (!err)
			err = -E2BIG;
		seq->op->stop(seq, p);
		seq->count = 0;
		goto done;
	}
	while (1) {
		loff_t pos = seq->index;

		num_objs++;
		offs = seq->count;
		p = seq->op->next(seq, p, &seq->index);
		if (pos == seq->index)
			seq->index++;	/* (a buggy next: 6.1 logs it) */
		if (!p || IS_ERR(p))
			break;
		/* got a valid next object, increase seq_num */
		bpf_iter_inc_seq_num(seq);
		if (seq->count >= size)
			break;
		if (num_objs >= MAX_ITER_OBJECTS) {
			if (offs == 0) {
				err = -EAGAIN;
				seq->op->stop(seq, p);
				goto done;
			}
			break;
		}
		err = seq->op->show(seq, p);
		if (err > 0) {
			bpf_iter_dec_seq_num(seq);
			seq->count = offs;
		} else if (err < 0 || seq_has_overflowed(seq)) {
			seq->count = offs;
			if (offs == 0) {
				if (!err)
					err = -E2BIG;
				seq->op->stop(seq, p);
				goto done;
			}
			break;
		}
	}
stop:
	offs = seq->count;
	if (IS_ERR(p)) {
		seq->op->stop(seq, NULL);
		err = PTR_ERR(p);
		goto done;
	}
	/* bpf program called if !p */
	seq->op->stop(seq, p);
	if (!p) {
		if (!seq_has_overflowed(seq)) {
			bpf_iter_done_stop(seq);
		} else {
			seq->count = offs;
			if (offs == 0) {
				err = -E2BIG;
				goto done;
			}
		}
	}
	n = min(seq->count, size);
	if (copy_to_user(buf, seq->buf, n)) {
		err = -EFAULT;
		goto done;
	}
	copied = n;
	seq->count -= n;
	seq->from = n;
done:
	if (!copied)
		copied = err;
	else
		*ppos += copied;
	mutex_unlock(&priv->lock);
	return copied;
}

static int iter_release(struct inode *inode, struct file *file)
{
	struct seq_file *seq = file->private_data;
	struct bpf_iter_priv_data *priv;

	if (!seq)
		return 0;
	priv = iter_priv(seq);
	if (priv->seq_info->fini_seq_private)
		priv->seq_info->fini_seq_private(priv->target_private);
	bpf_prog_put(priv->prog);
	kvfree(seq->buf);
	seq->buf = NULL;
	seq->private = priv;	/* (what seq_release_private() frees) */
	return seq_release_private(inode, file);
}

static const struct file_operations bpf_iter_fops = {
	.read = bpf_seq_read,
	.release = iter_release,
};

/* bpf_iter_reg_target(): a target iterator programs may name */
int bpf_iter_reg_target(struct bpf_iter_reg *reg_info)
{
	struct bpf_iter_target_info *tinfo = kzalloc(sizeof(*tinfo), GFP_KERNEL);

	if (!tinfo)
		return -ENOMEM;
	tinfo->reg_info = reg_info;
	mutex_lock(&targets_mutex);
	list_add(&tinfo->list, &targets);
	mutex_unlock(&targets_mutex);
	return 0;
}

/* cache_btf_id(): the target's function, and the structs its context points to (6.1 resolves
 * those when it is built: BTF_ID) */
static void cache_btf_id(struct bpf_iter_target_info *tinfo, struct bpf_prog *prog)
{
	struct bpf_iter_reg *reg_info = (struct bpf_iter_reg *)tinfo->reg_info;
	u32 i;

	tinfo->btf_id = prog->attach_btf_id;
	for (i = 0; i < reg_info->ctx_arg_info_size; i++)
		if (!reg_info->ctx_arg_info[i].btf_id)
			reg_info->ctx_arg_info[i].btf_id = btf_vmlinux_struct_id(reg_info->ctx_arg_info[i].btf_struct);
}

/* bpf_iter_prog_supported(): the program's function is bpf_iter_<a target>: it gets that
 * target's context */
bool bpf_iter_prog_supported(struct bpf_prog *prog)
{
	const char *attach_fname = prog->attach_func_name;
	struct bpf_iter_target_info *tinfo = NULL, *iter;
	u32 prog_btf_id = prog->attach_btf_id;
	const char *prefix = BPF_ITER_FUNC_PREFIX;
	int prefix_len = strlen(prefix);

	if (strncmp(attach_fname, prefix, prefix_len))
		return false;
	mutex_lock(&targets_mutex);
	list_for_each_entry(iter, &targets, list) {
		if (iter->btf_id && iter->btf_id == prog_btf_id) {
			tinfo = iter;
			break;
		}
		if (!strcmp(attach_fname + prefix_len, iter->reg_info->target)) {
			cache_btf_id(iter, prog);
			tinfo = iter;
			break;
		}
	}
	mutex_unlock(&targets_mutex);
	if (tinfo) {
		prog->ctx_arg_info_size = tinfo->reg_info->ctx_arg_info_size;
		prog->ctx_arg_info = tinfo->reg_info->ctx_arg_info;
	}
	return tinfo != NULL;
}

static void bpf_iter_link_release(struct bpf_link *link)
{
	kfree(container_of(link, struct bpf_iter_link, link));
}

/* bpf_iter_link_fill_link_info(): the target's name, then what the target says of the link */
static int bpf_iter_link_fill_link_info(const struct bpf_link *link, struct bpf_link_info *info)
{
	const struct bpf_iter_link *iter_link = container_of(link, struct bpf_iter_link, link);
	const struct bpf_iter_reg *reg = iter_link->tinfo->reg_info;
	int err = bpf_link_info_name(info->iter.target_name, &info->iter.target_name_len, reg->target);

	if (err || !reg->fill_link_info)
		return err;
	return reg->fill_link_info(&iter_link->aux, info);
}

static const struct bpf_link_ops bpf_iter_link_lops = {
	.release = bpf_iter_link_release,
	.fill_link_info = bpf_iter_link_fill_link_info,
};

/* bpf_iter_link_attach(): BPF_LINK_CREATE of an iterator program: a link to its target (with
 * the target's say on iter_info, a union bpf_iter_link_info) */
int bpf_iter_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct bpf_iter_target_info *tinfo = NULL, *iter;
	union bpf_iter_link_info linfo;
	struct bpf_iter_link *link;
	u32 prog_btf_id, linfo_len;
	u64 ulinfo;
	int err, fd;

	if (attr->link_create.target_fd || attr->link_create.flags)
		return -EINVAL;
	memset(&linfo, 0, sizeof(union bpf_iter_link_info));
	ulinfo = attr->link_create.iter_info;
	linfo_len = attr->link_create.iter_info_len;
	if (!ulinfo ^ !linfo_len)
		return -EINVAL;
	if (ulinfo) {
		err = bpf_check_uarg_tail_zero(ulinfo, sizeof(linfo), linfo_len);
		if (err)
			return err;
		linfo_len = min(linfo_len, (u32)sizeof(linfo));
		if (copy_from_user(&linfo, (void *)ulinfo, linfo_len))
			return -EFAULT;
	}
	prog_btf_id = prog->attach_btf_id;
	mutex_lock(&targets_mutex);
	list_for_each_entry(iter, &targets, list) {
		if (iter->btf_id == prog_btf_id) {
			tinfo = iter;
			break;
		}
	}
	mutex_unlock(&targets_mutex);
	if (!tinfo)
		return -ENOENT;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	bpf_link_init(&link->link, BPF_LINK_TYPE_ITER, &bpf_iter_link_lops, prog);
	link->tinfo = tinfo;
	if (tinfo->reg_info->attach_target) {
		err = tinfo->reg_info->attach_target(prog, &linfo, &link->aux);
		if (err) {
			kfree(link);
			return err;
		}
	}
	fd = bpf_link_new_fd(&link->link);
	if (fd < 0)
		kfree(link);
	return fd;
}

/* prepare_seq_file(): the fd's seq_file, its private data holding a reference on the program */
static noinline int prepare_seq_file(struct file *file, struct bpf_iter_link *link, const struct bpf_iter_seq_info *seq_info)
{
	struct bpf_iter_priv_data *priv_data;
	struct bpf_prog *prog = link->link.prog;
	struct seq_file *seq;
	int err;

	bpf_prog_inc(prog);
	priv_data = __seq_open_private(file, seq_info->seq_ops,
				       offsetof(struct bpf_iter_priv_data, target_private) + seq_info->seq_priv_size);
	if (!priv_data) {
		bpf_prog_put(prog);
		return -ENOMEM;
	}
	seq = file->private_data;
	if (seq_info->init_seq_private) {
		err = seq_info->init_seq_private(priv_data->target_private, &link->aux);
		if (err) {
			seq_release_private(file->f_inode, file);
			file->private_data = NULL;
			bpf_prog_put(prog);
			return err;
		}
	}
	priv_data->tinfo = link->tinfo;
	priv_data->seq_info = seq_info;
	priv_data->prog = prog;
	priv_data->session_id = __atomic_add_fetch(&session_id, 1, __ATOMIC_RELAXED);
	priv_data->seq_num = 0;
	priv_data->done_stop = false;
	mutex_init(&priv_data->lock);
	seq->private = priv_data->target_private;
	return 0;
}

/* bpf_iter_new_fd(): BPF_ITER_CREATE's fd on an iterator link */
int bpf_iter_new_fd(struct bpf_link *link)
{
	struct bpf_iter_link *iter_link;
	struct file *file;
	unsigned int flags;
	int err, fd;

	if (link->ops != &bpf_iter_link_lops)
		return -EINVAL;
	flags = O_RDONLY | O_CLOEXEC;
	fd = get_unused_fd_flags(flags);
	if (fd < 0)
		return fd;
	file = anon_inode_getfile("bpf_iter", &bpf_iter_fops, NULL, flags);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto free_fd;
	}
	iter_link = container_of(link, struct bpf_iter_link, link);
	err = prepare_seq_file(file, iter_link, iter_link->tinfo->reg_info->seq_info);
	if (err)
		goto free_file;
	fd_install(fd, file);
	return fd;
free_file:
	fput(file);
free_fd:
	put_unused_fd(fd);
	return err;
}

/* bpf_iter_get_info(): the program to run on an object, meta filled in (NULL in the stop once
 * it ran there: a read after the end runs nothing) */
struct bpf_prog *bpf_iter_get_info(struct bpf_iter_meta *meta, bool in_stop)
{
	struct bpf_iter_priv_data *priv = iter_priv(meta->seq);

	if (in_stop && priv->done_stop)
		return NULL;
	meta->session_id = priv->session_id;
	meta->seq_num = priv->seq_num;
	return priv->prog;
}

/* bpf_iter_run_prog(): the program on one object (rcu_read_lock(), migrate_disable(): preemption
 * off here); its 1 asks to see the object again, which the read takes as an error (EAGAIN) */
int bpf_iter_run_prog(struct bpf_prog *prog, void *ctx)
{
	int ret;

	preempt_disable();
	ret = bpf_prog_run(prog, ctx);
	preempt_enable();
	/* bpf program can only return 0 or 1:
	 *  0 : okay
	 *  1 : retry the same object
	 * The bpf_iter_run_prog() return value
	 * will be seq_ops->show() return value.
	 */
	return ret == 0 ? 0 : -EAGAIN;
}
