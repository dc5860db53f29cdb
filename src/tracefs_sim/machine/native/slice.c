/*
 * Ends an emulation slice after a budget of guest code, from inside Unicorn.
 *
 * Unicorn's own instruction count (emu_start count=) single-steps its
 * accounting through a per-instruction hook and halves emulation speed;
 * emu_stop from another thread reports an already-executed PC.  A block hook
 * in C that calls uc_emu_stop before a block runs stops exactly at that
 * block's start, at the cost of one native call per block.  Unicorn reports a
 * block's size in bytes, not instructions, so the budget and the count of
 * code executed are in bytes.
 *
 * No Unicorn header or library is needed: the two entry points used are
 * stable API, and uc_emu_stop is passed in by the caller (the Python binding
 * loads libunicorn privately, so its symbols are not there to link against).
 */
#include <stdint.h>

typedef struct uc_struct uc_engine;
typedef int (*uc_emu_stop_fn)(uc_engine *uc);

struct slice {
	int64_t left;      /* bytes the slice may still start; set before each run */
	uint64_t executed; /* bytes of the blocks entered since the last reset */
	uc_emu_stop_fn emu_stop;
};

/* UC_HOOK_BLOCK callback: void (*)(uc_engine *, uint64_t address, uint32_t size, void *user_data) */
void slice_block_hook(uc_engine *uc, uint64_t address, uint32_t size, void *user_data)
{
	struct slice *s = user_data;

	(void)address;
	if (s->left <= 0) {
		/* the block is not executed: the next run starts with it */
		s->emu_stop(uc);
		return;
	}
	s->left -= size;
	s->executed += size;
}
