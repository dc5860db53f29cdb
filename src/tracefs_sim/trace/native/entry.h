/* A record as the host's ring buffers hold it (ring_buffer.Entry): the type lives in _entry
 * (entry.c); _drain (drain.c) makes records and _lines (lines.c) reads them in place, both
 * through the API _entry exports (struct entry_api, a capsule), which import_entry_api()
 * checks has this layout.
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

#define ENTRY_MODULE "tracefs_sim.trace._entry"
#define ENTRY_TYPE_NAME ENTRY_MODULE ".Entry"
#define ENTRY_API_NAME "api"
#define ENTRY_API_CAPSULE ENTRY_MODULE "." ENTRY_API_NAME
/* tp_basicsize / tp_itemsize of the type: the payload is the variable part */
#define ENTRY_BASICSIZE ((Py_ssize_t)offsetof(EntryObject, payload))
#define ENTRY_ITEMSIZE 1

struct entry_api {
    PyTypeObject *type;
    /* A record of ts, length and the `size` bytes at payload (NULL: an exception is set). */
    PyObject *(*new_entry)(uint64_t ts, uint32_t length, const void *payload, Py_ssize_t size);
    /* Records freed leave free chunks malloc keeps resident: once enough were freed, hand the
     * free pages back (outside the GIL). For a thread that runs often holding no lock. */
    void (*trim_freed)(void);
};

/* _entry's API, if its record type is the one this header describes (NULL: ImportError set).
 * (Not PyCapsule_Import: it walks the dotted name by attributes, which a package still being
 * initialised, as tracefs_sim.trace is while its modules load, does not have yet.) */
static inline const struct entry_api *import_entry_api(void)
{
    PyObject *module = PyImport_ImportModule(ENTRY_MODULE);
    if (module == NULL)
        return NULL;
    PyObject *capsule = PyObject_GetAttrString(module, ENTRY_API_NAME);
    Py_DECREF(module);
    if (capsule == NULL)
        return NULL;
    const struct entry_api *api = PyCapsule_GetPointer(capsule, ENTRY_API_CAPSULE);
    Py_DECREF(capsule);   /* (the module keeps it, and the API is static data) */
    if (api == NULL)
        return NULL;
    PyTypeObject *type = api->type;
    if (strcmp(type->tp_name, ENTRY_TYPE_NAME) != 0 || type->tp_basicsize != ENTRY_BASICSIZE
        || type->tp_itemsize != ENTRY_ITEMSIZE) {
        PyErr_Format(PyExc_ImportError, "%s.Entry is not the record type of entry.h (rebuild the modules)",
                     ENTRY_MODULE);
        return NULL;
    }
    return api;
}

#endif
