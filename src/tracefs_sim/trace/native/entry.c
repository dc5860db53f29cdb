/* The ring buffer's record type (module tracefs_sim.trace._entry): Entry, its layout in
 * entry.h. The trace core's other C modules make and read records through the API this module
 * exports (struct entry_api, a capsule): _drain makes them, _lines reads them in place.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "entry.h"
#include "ring_page.h"   /* kernel_model/include/uapi: the guest's too */

/* Entry lengths as ints, made once: an entry's length is a multiple of 4 up to a page. */
static PyObject *length_ints[RB_PAGE_SIZE / RB_ALIGNMENT + 1];

static PyTypeObject EntryType;

/* A length as an int; those of page records (a multiple of 4 up to a page) made once, so
 * that the ring buffer's sums over lengths allocate nothing. */
static PyObject *length_int(uint32_t length)
{
    if (length % RB_ALIGNMENT || length > RB_PAGE_SIZE)
        return PyLong_FromUnsignedLong(length);
    PyObject **cached = &length_ints[length / RB_ALIGNMENT];
    if (*cached == NULL && (*cached = PyLong_FromUnsignedLong(length)) == NULL)
        return NULL;
    return Py_NewRef(*cached);
}

/* tp_alloc: the header and `size` payload bytes in one malloc block. The record references
 * no object, so it is not GC-tracked and needs no GC header. */
static PyObject *entry_alloc(PyTypeObject *type, Py_ssize_t size)
{
    PyObject *entry = PyMem_RawMalloc(ENTRY_BASICSIZE + size);
    if (entry == NULL)
        return PyErr_NoMemory();
    return (PyObject *)PyObject_InitVar((PyVarObject *)entry, type, size);
}

/* A record of ts, length and the `size` bytes at payload. */
static PyObject *entry_new(uint64_t ts, uint32_t length, const void *payload, Py_ssize_t size)
{
    PyObject *entry = entry_alloc(&EntryType, size);
    if (entry == NULL)
        return NULL;
    EntryObject *e = (EntryObject *)entry;
    e->ts = ts;
    e->length = length;
    memcpy(e->payload, payload, size);
    return entry;
}

/* Bytes of records freed since malloc last gave free memory back (trim_freed). */
static size_t freed_since_trim;

static void Entry_dealloc(PyObject *self)
{
    freed_since_trim += ENTRY_BASICSIZE + Py_SIZE(self);
    Py_TYPE(self)->tp_free(self);
}

/* Records freed leave free chunks among those still held (a buffer not read, the head of one
 * being read), which malloc keeps resident: the high-water mark of every buffer's filling
 * would stay in the daemon's RSS. After TRIM_AFTER bytes of them, malloc_trim() hands the
 * free pages back (madvise), outside the GIL; the chunks stay malloc's to reuse. */
#define TRIM_AFTER (8u << 20)

static void trim_freed(void)
{
    if (freed_since_trim < TRIM_AFTER)
        return;
    freed_since_trim = 0;
    Py_BEGIN_ALLOW_THREADS
    malloc_trim(0);
    Py_END_ALLOW_THREADS
}

/* An int argument as an unsigned value of at most `max`. */
static int unsigned_arg(PyObject *obj, const char *name, uint64_t max, uint64_t *out)
{
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    unsigned long long value = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    int failed = value == (unsigned long long)-1 && PyErr_Occurred();
    if (failed && !PyErr_ExceptionMatches(PyExc_OverflowError))
        return -1;
    if (failed || value > max) {
        PyErr_Format(PyExc_OverflowError, "an entry's %s is %R, not 0 to %llu", name, obj, (unsigned long long)max);
        return -1;
    }
    *out = value;
    return 0;
}

static PyObject *Entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    static char *kwlist[] = {"ts", "payload", "length", NULL};
    PyObject *ts_obj, *length_obj;
    Py_buffer payload;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oy*O:Entry", kwlist, &ts_obj, &payload, &length_obj))
        return NULL;
    uint64_t ts, length;
    PyObject *entry = NULL;
    if (unsigned_arg(ts_obj, "ts", UINT64_MAX, &ts) == 0 &&
        unsigned_arg(length_obj, "length", UINT32_MAX, &length) == 0)
        entry = entry_new(ts, (uint32_t)length, payload.buf, payload.len);
    PyBuffer_Release(&payload);
    return entry;
}

static PyObject *Entry_get_ts(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((EntryObject *)self)->ts);
}

static PyObject *Entry_get_payload(PyObject *self, void *closure)
{
    (void)closure;
    return PyBytes_FromStringAndSize((const char *)((EntryObject *)self)->payload, Py_SIZE(self));
}

static PyObject *Entry_get_length(PyObject *self, void *closure)
{
    (void)closure;
    return length_int(((EntryObject *)self)->length);
}

static PyGetSetDef Entry_getset[] = {
    {"ts", Entry_get_ts, NULL, PyDoc_STR("the time stamp, in the trace clock's units"), NULL},
    {"payload", Entry_get_payload, NULL, PyDoc_STR("the trace entry (common header + fields), a bytes copy"), NULL},
    {"length", Entry_get_length, NULL, PyDoc_STR("the bytes the record takes on a ring-buffer page"), NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The sequence (ts, payload, length), as the NamedTuple it replaced: indexing (the ring
 * buffer's itemgetter(2) over lengths) and unpacking. */
static Py_ssize_t Entry_len(PyObject *self)
{
    (void)self;
    return 3;
}

static PyObject *Entry_item(PyObject *self, Py_ssize_t i)
{
    switch (i) {
    case 0:
        return Entry_get_ts(self, NULL);
    case 1:
        return Entry_get_payload(self, NULL);
    case 2:
        return Entry_get_length(self, NULL);
    default:
        PyErr_SetString(PyExc_IndexError, "Entry index out of range");
        return NULL;
    }
}

static PySequenceMethods Entry_as_sequence = {
    .sq_length = Entry_len,
    .sq_item = Entry_item,
};

/* Equal records: the same stamp, length and payload (what the tests compare C and Python by). */
static PyObject *Entry_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!Py_IS_TYPE(a, &EntryType) || !Py_IS_TYPE(b, &EntryType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    const EntryObject *x = (const EntryObject *)a, *y = (const EntryObject *)b;
    int equal = x->ts == y->ts && x->length == y->length && Py_SIZE(a) == Py_SIZE(b)
                && memcmp(x->payload, y->payload, Py_SIZE(a)) == 0;
    return PyBool_FromLong(equal == (op == Py_EQ));
}

static PyObject *Entry_repr(PyObject *self)
{
    PyObject *payload = Entry_get_payload(self, NULL);
    if (payload == NULL)
        return NULL;
    const EntryObject *e = (const EntryObject *)self;
    PyObject *repr = PyUnicode_FromFormat("Entry(ts=%llu, payload=%R, length=%lu)", (unsigned long long)e->ts,
                                          payload, (unsigned long)e->length);
    Py_DECREF(payload);
    return repr;
}

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = ENTRY_TYPE_NAME,
    .tp_doc = PyDoc_STR(
        "Entry(ts, payload, length)\n--\n\n"
        "One record: its time stamp (trace-clock units) and the trace entry (common header +\n"
        "fields) as the writer stored it; length is what it occupies on a page. Read-only; it\n"
        "indexes and unpacks as (ts, payload, length). One malloc block a record, not tracked\n"
        "by the garbage collector, that the trace core's C modules make and read in place."),
    .tp_basicsize = ENTRY_BASICSIZE,
    .tp_itemsize = ENTRY_ITEMSIZE,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Entry_new,
    .tp_alloc = entry_alloc,
    .tp_free = PyMem_RawFree,
    .tp_dealloc = Entry_dealloc,
    .tp_repr = Entry_repr,
    .tp_as_sequence = &Entry_as_sequence,
    .tp_richcompare = Entry_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_getset = Entry_getset,
};

/* uapi/ring_page.h, for the Python modules (ring_buffer.py, rb_page.py) */
static int add_ring_page(PyObject *module)
{
    static const struct { const char *name; unsigned long long value; } constants[] = {
#define RING_PAGE(name) {#name, name}
        {"PAGE_SIZE", RB_PAGE_SIZE}, RING_PAGE(PAGE_TIMESTAMP_OFFSET), RING_PAGE(PAGE_COMMIT_OFFSET),
        RING_PAGE(BUF_PAGE_HDR_SIZE), RING_PAGE(BUF_PAGE_SIZE), RING_PAGE(RB_MISSED_EVENTS),
        RING_PAGE(RB_MISSED_STORED), RING_PAGE(COMMIT_SIZE_MASK), RING_PAGE(MISSED_COUNT_SIZE),
        RING_PAGE(EVENT_TYPE_LEN_BITS), RING_PAGE(TS_SHIFT), RING_PAGE(RB_EVNT_HDR_SIZE), RING_PAGE(RB_ALIGNMENT),
        RING_PAGE(RB_EVNT_MIN_SIZE), RING_PAGE(RINGBUF_TYPE_DATA_TYPE_LEN_MAX), RING_PAGE(RINGBUF_TYPE_PADDING),
        RING_PAGE(RINGBUF_TYPE_TIME_EXTEND), RING_PAGE(RINGBUF_TYPE_TIME_STAMP), RING_PAGE(RB_LEN_TIME_EXTEND),
        RING_PAGE(RB_MAX_SMALL_DATA), RING_PAGE(TS_MSB), RING_PAGE(TS_MASK), RING_PAGE(BUF_MAX_DATA_SIZE),
#undef RING_PAGE
    };
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        PyObject *value = PyLong_FromUnsignedLongLong(constants[i].value);
        if (value == NULL || PyModule_AddObject(module, constants[i].name, value) < 0) {
            Py_XDECREF(value);
            return -1;
        }
    }
    return 0;
}

static const struct entry_api api = {
    .type = &EntryType,
    .new_entry = entry_new,
    .trim_freed = trim_freed,
};

static struct PyModuleDef entry_module = {
    PyModuleDef_HEAD_INIT, "_entry", "The ring buffer's record type (see ring_buffer.py).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__entry(void)
{
    if (PyType_Ready(&EntryType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&entry_module);
    if (module == NULL)
        return NULL;
    PyObject *capsule = PyCapsule_New((void *)&api, ENTRY_API_CAPSULE, NULL);
    if (capsule == NULL ||
        PyModule_AddObjectRef(module, "Entry", (PyObject *)&EntryType) < 0 || add_ring_page(module) < 0 ||
        PyModule_AddObject(module, ENTRY_API_NAME, capsule) < 0) {
        Py_XDECREF(capsule);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
