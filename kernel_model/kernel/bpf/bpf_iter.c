/* bpf_loop() and bpf_for_each_map_elem() (kernel/bpf/bpf_iter.c of 6.1): helpers that call a
 * function of the program, its callback, nr_loops times or on each element of a map, until it
 * returns 1.  The callback is the function's JITed image (the verifier refuses callbacks to an
 * interpreted program), called as C calls a helper. */
#include "../../include/bpf.h"

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
