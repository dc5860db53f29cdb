/* The drain's per-event work (module tracefs_sim.trace._drain): walking a guest ring-buffer
 * page's events, and turning the events an array keeps into records (_entry's Entry, entry.h).
 *
 * walk(page, point) -> (spans, point after): the host's one page reader (Linux 6.1's
 *   consuming reader, rb_update_read_stamp), from a walk point (off, ts) or from the page's
 *   start (None); a page that is not one raises this module's PageFormatError.  spans is
 *   opaque bytes (one struct span per data event) that only keep() reads.  Checked against
 *   the reference reader of the tests (tests/rb_page_reference.py).
 * keep(...) -> (entries, short): Drain._keep's loop over (page, spans) pairs; the stacks the
 *   stacktrace options wrote after an event go with it (follow: that state across calls). The common case
 *   (an event type kept as it is, the same pid as the event before) runs no Python; a plan or
 *   a task not known yet, an event to filter or learn from (sched_switch), a clock that is not
 *   the guest's own, and saving a run's task call back into the Python that knows them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "entry.h"
#include "ring_page.h"   /* kernel_model/include/uapi: the guest's too */

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pages are read in place as little-endian words"
#endif

/* The common fields every trace entry starts with: u16 type, u8 flags, u8 preempt, s32 pid. */
#define ENTRY_HEADER_SIZE 8
/* The smallest event is 8 bytes: no page holds more data events than this. */
#define MAX_SPANS (BUF_PAGE_SIZE / 8)

/* A data event as walk() found it: its time and its payload's bounds in the page. */
struct span {
    uint64_t ts;
    uint16_t start, end;
    uint32_t zero;   /* the padding, written, so that equal walks give equal bytes */
};

static const struct entry_api *entries;   /* _entry's */
static PyObject *page_format_error;   /* PageFormatError: the bytes are not a valid page */
static PyObject *plan_drop, *plan_keep;   /* DROP, KEEP: the plans keep() handles itself */

static uint32_t le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* rb_fix_abs_ts: restore the clock's top bits a TIME_STAMP event cannot store. */
static uint64_t fix_abs_ts(uint64_t abs_ts, uint64_t save_ts)
{
    if (save_ts & TS_MSB) {
        abs_ts |= save_ts & TS_MSB;
        if (abs_ts < save_ts)
            abs_ts += 1ULL << 59;
    }
    return abs_ts;
}

/* The events of a page from (*off, *ts) on into spans[]; *off, *ts end after the last one.
 * Returns the number of spans, or -1 with PageFormatError set. */
static int walk_page(const uint8_t *page, Py_ssize_t size, uint64_t *off_io, uint64_t *ts_io,
                     struct span *spans)
{
    if (size != RB_PAGE_SIZE) {
        PyErr_Format(page_format_error, "a page is %d bytes, got %zd", RB_PAGE_SIZE, size);
        return -1;
    }
    uint64_t commit_word = le64(page + 8);
    uint64_t commit = commit_word & COMMIT_SIZE_MASK;
    if (commit > BUF_PAGE_SIZE) {
        PyErr_Format(page_format_error, "commit %llu exceeds the page's %d data bytes",
                     (unsigned long long)commit, BUF_PAGE_SIZE);
        return -1;
    }
    if ((commit_word & RB_MISSED_STORED) && commit + MISSED_COUNT_SIZE > BUF_PAGE_SIZE) {
        PyErr_SetString(page_format_error, "missed-events count flagged but no room after commit");
        return -1;
    }
    const uint8_t *data = page + BUF_PAGE_HDR_SIZE;
    uint64_t off = *off_io, ts = *ts_io;
    int n = 0;
    while (off < commit) {
        uint32_t word = off + RB_EVNT_HDR_SIZE <= commit ? le32(data + off) : 0;
        unsigned type_len = word & 0x1F;
        uint32_t delta = word >> 5, array0 = 0;
        uint64_t length, payload_off;
        if (type_len >= 1 && type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
            length = RB_EVNT_HDR_SIZE + type_len * RB_ALIGNMENT;
            payload_off = off + RB_EVNT_HDR_SIZE;
        } else {
            if (off + RB_EVNT_HDR_SIZE > commit) {
                PyErr_Format(page_format_error, "event header at data offset %llu crosses commit %llu",
                             (unsigned long long)off, (unsigned long long)commit);
                return -1;
            }
            if (off + 8 > commit) {
                PyErr_Format(page_format_error,
                             "event at data offset %llu (type_len %u) crosses commit %llu",
                             (unsigned long long)off, type_len, (unsigned long long)commit);
                return -1;
            }
            array0 = le32(data + off + 4);
            payload_off = off + 8;
            if (type_len == RINGBUF_TYPE_TIME_EXTEND || type_len == RINGBUF_TYPE_TIME_STAMP) {
                length = RB_LEN_TIME_EXTEND;
            } else {
                if (type_len == RINGBUF_TYPE_PADDING && delta == 0) {
                    /* rb_null_event(): only ever written past commit */
                    PyErr_Format(page_format_error, "null padding event inside commit at data offset %llu",
                                 (unsigned long long)off);
                    return -1;
                }
                /* type_len 0 (length in array[0], counting itself) or padding */
                if (array0 < 4 || array0 % RB_ALIGNMENT) {
                    PyErr_Format(page_format_error, "event at data offset %llu: bad length word %u",
                                 (unsigned long long)off, array0);
                    return -1;
                }
                length = RB_EVNT_HDR_SIZE + (uint64_t)array0;
            }
        }
        uint64_t end = off + length;
        if (end > commit) {
            PyErr_Format(page_format_error, "event at data offset %llu (%llu bytes) crosses commit %llu",
                         (unsigned long long)off, (unsigned long long)length, (unsigned long long)commit);
            return -1;
        }
        if (type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
            ts += delta;
            spans[n].ts = ts;
            spans[n].start = (uint16_t)(BUF_PAGE_HDR_SIZE + payload_off);
            spans[n].end = (uint16_t)(BUF_PAGE_HDR_SIZE + end);
            spans[n].zero = 0;
            n++;
        } else if (type_len == RINGBUF_TYPE_TIME_EXTEND) {
            ts += ((uint64_t)array0 << TS_SHIFT) + delta;
        } else if (type_len == RINGBUF_TYPE_TIME_STAMP) {
            ts = fix_abs_ts(((uint64_t)array0 << TS_SHIFT) + delta, ts);
        }
        /* else padding (a discarded event, the tail): skipped, the time does not move */
        off = end;
    }
    *off_io = off;
    *ts_io = ts;
    return n;
}

static PyObject *drain_walk(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *page_obj, *point;
    if (!PyArg_ParseTuple(args, "OO:walk", &page_obj, &point))
        return NULL;
    Py_buffer page;
    if (PyObject_GetBuffer(page_obj, &page, PyBUF_SIMPLE) < 0)
        return NULL;
    uint64_t off = 0, ts = 0;
    if (point == Py_None) {
        if (page.len >= 8)
            ts = le64(page.buf);   /* the page's time_stamp */
    } else {
        Py_ssize_t point_off;
        unsigned long long point_ts;
        if (!PyTuple_Check(point) || !PyArg_ParseTuple(point, "nK:walk point", &point_off, &point_ts)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "a walk point is (offset, time), got %R", point);
            PyBuffer_Release(&page);
            return NULL;
        }
        if (point_off < 0 || point_off % RB_ALIGNMENT) {
            PyBuffer_Release(&page);
            return PyErr_Format(PyExc_ValueError, "walk point offset %zd is not an event's", point_off);
        }
        off = (uint64_t)point_off;
        ts = point_ts;
    }
    struct span spans[MAX_SPANS];
    int n = walk_page(page.buf, page.len, &off, &ts, spans);
    PyBuffer_Release(&page);
    if (n < 0)
        return NULL;
    return Py_BuildValue("y#(KK)", (const char *)spans, (Py_ssize_t)(n * sizeof spans[0]),
                         (unsigned long long)off, (unsigned long long)ts);
}

/* rb_calculate_event_length (rb_page.event_length): the bytes a payload of `size` bytes (at
 * most a page) takes on a page. */
static uint32_t event_length(Py_ssize_t size)
{
    Py_ssize_t length = size > 0 ? size : 1;
    if (length > RB_MAX_SMALL_DATA)
        length += 4;
    length = (length + RB_EVNT_HDR_SIZE + RB_ALIGNMENT - 1) & ~(Py_ssize_t)(RB_ALIGNMENT - 1);
    if (length == RB_LEN_TIME_EXTEND + RB_ALIGNMENT)
        length += RB_ALIGNMENT;
    return (uint32_t)length;
}

/* Plans of recent event types, so that a kept type costs no dict lookup. */
#define PLAN_SLOTS 64
struct plan_slot {
    long type;   /* -1: empty */
    PyObject *plan;   /* strong */
};

/* The plan of an event type (borrowed from the cache): plans[type], or plan_of(type). */
static PyObject *plan_for(struct plan_slot *cache, long type, PyObject *plans, PyObject *plan_of)
{
    struct plan_slot *slot = &cache[type % PLAN_SLOTS];
    if (slot->type == type)
        return slot->plan;
    PyObject *key = PyLong_FromLong(type);
    if (key == NULL)
        return NULL;
    PyObject *plan = PyDict_GetItemWithError(plans, key);
    if (plan != NULL)
        Py_INCREF(plan);
    else if (!PyErr_Occurred())
        plan = PyObject_CallOneArg(plan_of, key);
    Py_DECREF(key);
    if (plan == NULL)
        return NULL;
    Py_XSETREF(slot->plan, plan);
    slot->type = type;
    return plan;
}

/* A task as the drain holds it: a (comm, tgid) tuple. */
static PyObject *checked_task(PyObject *task)
{
    if (task != NULL && !(PyTuple_Check(task) && PyTuple_GET_SIZE(task) == 2)) {
        PyErr_Format(PyExc_TypeError, "a task is a (comm, tgid) tuple, got %R", task);
        Py_DECREF(task);
        return NULL;
    }
    return task;
}

/* tasks[pid], or task_of(pid) for a pid not seen yet (new reference). */
static PyObject *task_for(PyObject *pid, PyObject *tasks, PyObject *task_of)
{
    PyObject *task = PyDict_GetItemWithError(tasks, pid);
    if (task != NULL)
        Py_INCREF(task);
    else if (!PyErr_Occurred())
        task = PyObject_CallOneArg(task_of, pid);
    return checked_task(task);
}

/* save(pid, value) when value is true (a comm, a tgid): record-cmd / record-tgid. */
static int save_if(PyObject *save, PyObject *pid, PyObject *value)
{
    if (save == Py_None)
        return 0;
    int truth = PyObject_IsTrue(value);
    if (truth <= 0)
        return truth;
    PyObject *done = PyObject_CallFunctionObjArgs(save, pid, value, NULL);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

/* The state of one keep() call, released in one place whatever the way out. */
struct keeper {
    PyObject *plans, *plan_of, *tasks, *task_of, *special, *from_ns, *save_comm, *save_tgid;
    struct plan_slot cache[PLAN_SLOTS];
    PyObject *entries;
    PyObject *pid;    /* the current run's pid as an int, NULL before the first */
    int32_t last_pid;
    PyObject *task;   /* its (comm, tgid) */
    int saved;        /* its task saved already */
    Py_ssize_t short_events;
    int dropped;      /* the last event that is not a follower was not kept */
};

/* ftrace's record types the stacktrace options write right after an event's record, on the
 * same cpu with interrupts off (ftrace_trace_stack, ftrace_trace_userstack): a user_stack, and
 * a kernel_stack whose pad says so (STACK_FOLLOWS_EVENT; the stacktrace trigger's and the
 * function tracer's stand alone).  6.1 writes none after an event its filter discards. */
#define TRACE_STACK 4
#define TRACE_USER_STACK 12
#define STACK_FOLLOWS_EVENT 1

static int follows_event(const uint8_t *event, Py_ssize_t size)
{
    long type = (long)(event[0] | event[1] << 8);
    return type == TRACE_USER_STACK ||
           (type == TRACE_STACK && size >= 16 && (int32_t)le32(event + 12) == STACK_FOLLOWS_EVENT);
}

/* One event of a page: kept into k->entries or not; -1 on an error. */
static int keep_event(struct keeper *k, const uint8_t *data, const struct span *span)
{
    Py_ssize_t size = span->end - span->start;
    if (size < ENTRY_HEADER_SIZE) {
        k->short_events++;   /* the guest's error: no room for the common fields */
        return 0;
    }
    const uint8_t *event = data + span->start;
    long type = (long)(event[0] | event[1] << 8);
    int32_t pid = (int32_t)le32(event + 4);
    PyObject *plan = plan_for(k->cache, type, k->plans, k->plan_of);
    if (plan == NULL)
        return -1;
    if (plan == plan_drop)
        return 0;
    if (k->pid == NULL || pid != k->last_pid) {
        /* a new run of one pid's events: its task is looked up, and saved, once */
        Py_XSETREF(k->pid, PyLong_FromLong(pid));
        if (k->pid == NULL)
            return -1;
        Py_XSETREF(k->task, task_for(k->pid, k->tasks, k->task_of));
        if (k->task == NULL)
            return -1;
        k->last_pid = pid;
        k->saved = 0;
    }
    PyObject *payload = NULL;   /* the bytes special() is given */
    if (plan != plan_keep) {
        /* special(plan, payload, pid, task, ts) -> (task now, kept): filter, sched_switch; ts:
         * the event's stamp as the guest wrote it */
        payload = PyBytes_FromStringAndSize((const char *)event, size);
        if (payload == NULL)
            return -1;
        PyObject *stamp = PyLong_FromUnsignedLongLong(span->ts);
        if (stamp == NULL)
            goto fail;
        PyObject *result = PyObject_CallFunctionObjArgs(k->special, plan, payload, k->pid, k->task, stamp, NULL);
        Py_DECREF(stamp);
        if (result == NULL)
            goto fail;
        if (!(PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 2)) {
            PyErr_Format(PyExc_TypeError, "special() gives (task, kept), got %R", result);
            Py_DECREF(result);
            goto fail;
        }
        PyObject *task = PyTuple_GET_ITEM(result, 0);
        Py_INCREF(task);
        Py_XSETREF(k->task, checked_task(task));
        int kept = k->task == NULL ? -1 : PyObject_IsTrue(PyTuple_GET_ITEM(result, 1));
        Py_DECREF(result);
        if (kept <= 0) {
            Py_DECREF(payload);
            return kept;
        }
    }
    uint64_t ts = span->ts;
    if (k->from_ns != Py_None) {
        PyObject *ns = PyLong_FromUnsignedLongLong(ts);
        PyObject *clock_ts = ns == NULL ? NULL : PyObject_CallOneArg(k->from_ns, ns);
        Py_XDECREF(ns);
        if (clock_ts == NULL)
            goto fail;
        /* a u64 like the kernel's stamps: a conversion past 2^64 wraps as its arithmetic does */
        ts = PyLong_AsUnsignedLongLongMask(clock_ts);
        Py_DECREF(clock_ts);
        if (ts == (uint64_t)-1 && PyErr_Occurred())
            goto fail;
    }
    /* the bytes special() saw, if it saw them (a callback may have changed a bytearray page) */
    const void *bytes = payload != NULL ? (const void *)PyBytes_AS_STRING(payload) : (const void *)event;
    PyObject *entry = entries->new_entry(ts, event_length(size), bytes, size);
    Py_XDECREF(payload);
    if (entry == NULL)
        return -1;
    int appended = PyList_Append(k->entries, entry);
    Py_DECREF(entry);
    if (appended < 0)
        return -1;
    if (!k->saved) {
        k->saved = 1;
        if (save_if(k->save_comm, k->pid, PyTuple_GET_ITEM(k->task, 0)) < 0 ||
            save_if(k->save_tgid, k->pid, PyTuple_GET_ITEM(k->task, 1)) < 0)
            return -1;
    }
    return 0;
fail:
    Py_XDECREF(payload);
    return -1;
}

/* The events of one (page, spans) pair. */
static int keep_page(struct keeper *k, PyObject *pair)
{
    if (!(PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2)) {
        PyErr_Format(PyExc_TypeError, "pages holds (page, spans) pairs, got %R", pair);
        return -1;
    }
    PyObject *spans_obj = PyTuple_GET_ITEM(pair, 1);
    if (!PyBytes_Check(spans_obj) || PyBytes_GET_SIZE(spans_obj) % sizeof(struct span)) {
        PyErr_SetString(PyExc_TypeError, "spans are what walk() gives");
        return -1;
    }
    Py_buffer data;
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(pair, 0), &data, PyBUF_SIMPLE) < 0)
        return -1;
    /* spans is immutable bytes and the pair keeps it alive across the callbacks */
    const struct span *spans = (const struct span *)PyBytes_AS_STRING(spans_obj);
    Py_ssize_t count = PyBytes_GET_SIZE(spans_obj) / sizeof(struct span);
    int status = 0;
    for (Py_ssize_t i = 0; i < count && status == 0; i++) {
        struct span span;
        memcpy(&span, &spans[i], sizeof span);
        if (span.start > span.end || span.end > data.len) {
            PyErr_SetString(PyExc_ValueError, "spans are not of this page");
            status = -1;
        } else if (span.end - span.start >= ENTRY_HEADER_SIZE &&
                   follows_event((const uint8_t *)data.buf + span.start, span.end - span.start)) {
            status = k->dropped ? 0 : keep_event(k, data.buf, &span);
        } else {
            Py_ssize_t before = PyList_GET_SIZE(k->entries);
            status = keep_event(k, data.buf, &span);
            k->dropped = PyList_GET_SIZE(k->entries) == before;
        }
    }
    PyBuffer_Release(&data);
    return status;
}

static PyObject *drain_keep(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"pages", "plans", "plan_of", "tasks", "task_of", "special",
                             "from_ns", "save_comm", "save_tgid", "follow", NULL};
    PyObject *follow = Py_None;   /* a bytearray(1): k.dropped before the pages, and after */
    entries->trim_freed();   /* the drain thread runs often, holding no lock a reader waits for */
    struct keeper k = {0};
    PyObject *pages;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!OO!OOOOO|O:keep", kwlist, &PyList_Type, &pages,
                                     &PyDict_Type, &k.plans, &k.plan_of, &PyDict_Type, &k.tasks,
                                     &k.task_of, &k.special, &k.from_ns, &k.save_comm, &k.save_tgid,
                                     &follow))
        return NULL;
    if (follow != Py_None && !(PyByteArray_Check(follow) && PyByteArray_GET_SIZE(follow) == 1)) {
        PyErr_SetString(PyExc_TypeError, "follow is a bytearray of one byte, or None");
        return NULL;
    }
    if (follow != Py_None)
        k.dropped = PyByteArray_AS_STRING(follow)[0] != 0;
    for (int i = 0; i < PLAN_SLOTS; i++)
        k.cache[i].type = -1;
    PyObject *result = NULL;
    k.entries = PyList_New(0);
    if (k.entries == NULL)
        goto out;
    /* pages is the caller's list: indexed afresh each time, in case a callback changes it */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pages); i++) {
        PyObject *pair = PyList_GET_ITEM(pages, i);
        Py_INCREF(pair);
        int status = keep_page(&k, pair);
        Py_DECREF(pair);
        if (status < 0)
            goto out;
    }
    if (follow != Py_None)
        PyByteArray_AS_STRING(follow)[0] = (char)k.dropped;
    result = Py_BuildValue("On", k.entries, k.short_events);
out:
    for (int i = 0; i < PLAN_SLOTS; i++)
        Py_XDECREF(k.cache[i].plan);
    Py_XDECREF(k.entries);
    Py_XDECREF(k.pid);
    Py_XDECREF(k.task);
    return result;
}

static PyMethodDef drain_methods[] = {
    {"walk", drain_walk, METH_VARARGS,
     "walk(page, point) -> (spans, point after): a page's events after point (None: all)"},
    {"keep", (PyCFunction)(void (*)(void))drain_keep, METH_VARARGS | METH_KEYWORDS,
     "keep(pages, plans, plan_of, tasks, task_of, special, from_ns, save_comm, save_tgid)"
     " -> (entries, events shorter than their header)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef drain_module = {
    PyModuleDef_HEAD_INIT, "_drain", "The drain's per-event loop (see drain.py).", -1, drain_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__drain(void)
{
    if ((entries == NULL && (entries = import_entry_api()) == NULL) ||
        (page_format_error == NULL &&
         (page_format_error = PyErr_NewExceptionWithDoc("tracefs_sim.trace._drain.PageFormatError",
                                                        "The bytes are not a valid ring-buffer data page.",
                                                        PyExc_ValueError, NULL)) == NULL))
        return NULL;
    PyObject *module = PyModule_Create(&drain_module);
    if (module == NULL)
        return NULL;
    plan_drop = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    plan_keep = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    if (plan_drop == NULL || plan_keep == NULL ||
        PyModule_AddObjectRef(module, "DROP", plan_drop) < 0 ||
        PyModule_AddObjectRef(module, "KEEP", plan_keep) < 0 ||
        PyModule_AddObjectRef(module, "PageFormatError", page_format_error) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
