/* BPF_PROG_TEST_RUN (net/bpf/test_run.c): a raw tracepoint program run on arguments the
 * caller gives, on this cpu. */
#include "../../include/bpf.h"

#define ENXIO 6

int bpf_prog_test_run_raw_tp(struct bpf_prog *prog, const union bpf_attr *kattr, union bpf_attr *uattr)
{
	u32 ctx_size_in = kattr->test.ctx_size_in, retval;
	int cpu = kattr->test.cpu, err = 0;
	u64 ctx[MAX_BPF_FUNC_ARGS];
	unsigned long flags;

	if (kattr->test.data_in || kattr->test.data_out || kattr->test.ctx_out || kattr->test.duration ||
	    kattr->test.repeat || kattr->test.batch_size)
		return -EINVAL;
	if (ctx_size_in < prog->max_ctx_offset || ctx_size_in > MAX_BPF_FUNC_ARGS * sizeof(u64))
		return -EINVAL;
	if ((kattr->test.flags & BPF_F_TEST_RUN_ON_CPU) == 0 && cpu != 0)
		return -EINVAL;
	if (ctx_size_in && copy_from_user(ctx, (void *)kattr->test.ctx_in, ctx_size_in))
		return -EFAULT;
	flags = arch_local_irq_save();		/* get_cpu(): stay on this cpu */
	if ((kattr->test.flags & BPF_F_TEST_RUN_ON_CPU) == 0 || cpu == smp_processor_id())
		retval = bpf_prog_run(prog, ctx_size_in ? ctx : NULL);
	else if (cpu >= nr_cpu_ids || cpu < 0)
		err = -ENXIO;
	else
		err = -ENOTSUPP;	/* no cross-cpu function calls in this kernel yet */
	arch_local_irq_restore(flags);
	if (!err && copy_to_user(&uattr->test.retval, &retval, sizeof(u32)))
		err = -EFAULT;
	return err;
}
