/* A record as the host's ring buffers hold it (ring_buffer.Entry): the type lives in _drain
 * (drain.c), which makes them; _lines (lines.c) reads them in place through this layout, and
 * checks at import that the type _drain gives it has this layout.
 *
 * One block per record, from the raw allocator and not GC-tracked: the buffers hold millions
 * of records that come and go, and three pymalloc objects a record (a tuple, its payload bytes,
 * its stamp int) left arenas pinned by the few long-lived ones among them. */
#ifndef TRACEFS_SIM_ENTRY_H
#define TRACEFS_SIM_ENTRY_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    PyObject_VAR_HEAD          /* ob_size: the payload's bytes */
    uint64_t ts;               /* the stamp, in the trace clock's units */
    uint32_t length;           /* the bytes the record takes on a ring-buffer page */
    unsigned char payload[];   /* the trace entry: common header, then the event's fields */
} EntryObject;

#define ENTRY_MODULE "tracefs_sim.trace._drain"
#define ENTRY_TYPE_NAME ENTRY_MODULE ".Entry"
/* tp_basicsize / tp_itemsize of the type: the payload is the variable part */
#define ENTRY_BASICSIZE ((Py_ssize_t)offsetof(EntryObject, payload))
#define ENTRY_ITEMSIZE 1

#endif
