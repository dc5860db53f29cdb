/*
 * Static keys the kernel flips itself (kernel/jump_label.c, as Linux's static_key_slow_inc/dec):
 * the perf_events keys.  The tracing keys (a tracepoint's `key`, trace_cmdline_key) stay the
 * host's: the probe engine patches their sites (src/tracefs_sim/machine/tracing.py) and never
 * touches a key it does not own, so each key has one owner.  `enabled` counts the users.
 */
#ifndef _JUMP_LABEL_H
#define _JUMP_LABEL_H
#include "trace/trace.h"

void static_key_slow_inc(struct static_key *key);
void static_key_slow_dec(struct static_key *key);
static __always_inline bool static_key_enabled(struct static_key *key)
{
	return READ_ONCE(key->enabled) > 0;
}
#endif
