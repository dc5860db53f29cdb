/*
 * Trace-array slots: slot 0 the top level's, the others trace instances'.  A set of slots
 * is TRACE_SLOT_WORDS u64 words, slot s bit s % 64 of word s / 64, except word 0's top bit
 * (TRACE_SLOT_EXT), which says "some slot of the extension words (64 and up) is set": so
 * the u64 masks the writers' fast paths load (an event file's, tracing_on's, the cpumasks')
 * stay one word, word 0, and a set bit 63 sends the writer to its slow path, which reads
 * the extension words.  Slot 63 itself is no instance's (its ring is a sentinel that is
 * never writable: trace_control.rings[TRACE_SLOT_EXT]).
 */
#ifndef _TRACE_SLOTS_H
#define _TRACE_SLOTS_H

#define TRACE_SLOTS		512
#define TRACE_SLOT_WORDS	(TRACE_SLOTS / 64)
#define TRACE_EXT_WORDS		(TRACE_SLOT_WORDS - 1)	/* the words past word 0 */
#define TRACE_SLOT_EXT		63	/* word 0's summary bit of the extension words */
#define TRACE_WORD_SLOTS	64	/* word 0's bits: arrays indexed by one (slots 0..62, and 63) */
/* event types whose files may have extension slots (trace_event_ext[] is indexed by type) */
#define TRACE_EXT_TYPES		2048

_Static_assert(TRACE_SLOTS % 64 == 0 && TRACE_SLOTS > 64, "whole extension words");
#endif
