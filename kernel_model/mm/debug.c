/*
 * mm/debug.c of Linux 6.1: the names of the gfp flags, as %pGg and the OOM report print them
 * and as a synthetic event's gfp_t field shows them (the host reads this table from the image:
 * each {mask, name}, up to the one without a name).
 */
#include "../include/kernel.h"
#include "../include/gfp.h"

const struct trace_print_flags gfpflag_names[] = {
	__def_gfpflag_names,
	{0, NULL}
};
