/* The text of `trace` and `trace_pipe` (print_trace_line over trace_find_next_entry): the
 * CPUs' buffers merged oldest first, and the default record line made without Python for
 * every record whose context prefix and event text are already cached.
 *
 * The merge (trace_find_next_entry): each CPU's records keep their order, and the next record
 * is the CPU head with the lowest stamp, ties to the lower CPU.  A CPU's stamps need not rise
 * (a trace_marker write is kept at once, guest records when the drain brings them); the rule
 * the Python sort followed, keying each record by the latest stamp of its CPU so far, orders
 * the same: a head stamped below its CPU's earlier record comes up only after that record
 * went, when every other head was at or above that record's key (ties to lower CPUs gone
 * first), so it goes next under either key.
 *
 * The caches are the trace array's own dicts (trace_array._formatter): prefixes maps
 * (pid & 0xffffffff) << 32 | cpu << 16 | flags << 8 | preempt to the context prefix,
 * texts maps an event id to (event, {record bytes after the common header: text}).  On a
 * miss the Python printer makes the line and fills them.
 *
 * The records are _entry's Entry objects (ring_buffer.Entry), read in place (entry.h). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#include "entry.h"

#define ENTRY_HEADER_SIZE 8   /* struct trace_entry: type u16, flags u8, preempt u8, pid s32 */
#define U64_DIGITS 20
/* Lines formatted before `trace` sizes its whole text from their mean length. */
#define SIZING_LINES 256

/* _entry.Entry, checked at import to have entry.h's layout */
static PyTypeObject *entry_type;

/* ---- the text being made: one bytes object, grown in place ---- */

typedef struct {
    PyObject *bytes;   /* owned; refcount 1 until out_finish, so it may be resized */
    Py_ssize_t len;
    Py_ssize_t cap;
} Out;

static int
out_init(Out *out, Py_ssize_t cap)
{
    if (cap < 256)
        cap = 256;
    out->bytes = PyBytes_FromStringAndSize(NULL, cap);
    out->len = 0;
    out->cap = cap;
    return out->bytes == NULL ? -1 : 0;
}

static int
out_resize(Out *out, Py_ssize_t cap)
{
    /* on failure _PyBytes_Resize frees the object and sets it NULL */
    if (_PyBytes_Resize(&out->bytes, cap) < 0)
        return -1;
    out->cap = cap;
    return 0;
}

/* Room for n more bytes; grows by half so that a big text is never twice its size. */
static int
out_reserve(Out *out, Py_ssize_t n)
{
    if (out->len + n <= out->cap)
        return 0;
    Py_ssize_t cap = out->cap + out->cap / 2;
    if (cap < out->len + n)
        cap = out->len + n;
    return out_resize(out, cap);
}

static inline char *
out_end(Out *out)
{
    return PyBytes_AS_STRING(out->bytes) + out->len;
}

static int
out_put(Out *out, const char *data, Py_ssize_t n)
{
    if (out_reserve(out, n) < 0)
        return -1;
    memcpy(out_end(out), data, n);
    out->len += n;
    return 0;
}

static PyObject *
out_finish(Out *out)
{
    if (out->len != out->cap && out_resize(out, out->len) < 0)
        return NULL;
    PyObject *text = out->bytes;
    out->bytes = NULL;
    return text;
}

/* Writes v in decimal, right-aligned in at least `width` characters padded with `pad`
 * (printf's %Nd / %0Nd); returns the characters written. */
static int
put_u64(char *dst, uint64_t v, int width, char pad)
{
    char digits[U64_DIGITS];
    int n = 0;
    do {
        digits[U64_DIGITS - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    int fill = width > n ? width - n : 0;
    memset(dst, pad, fill);
    memcpy(dst + fill, digits + U64_DIGITS - n, n);
    return fill + n;
}

/* ---- DefaultLine: the default line printer (context-info on, no latency/raw/hex/bin) ---- */

/* What recent lookups found, so that a record like a recent one costs no key object and no
 * dict lookup: a printer serves one read under one set of options, during which a prefix or
 * a text once found stays right (the dicts only gain entries, or start afresh with the same
 * values). Direct-mapped: a slot holds the latest of the keys that hash to it. */
#define PREFIX_SLOTS 256
#define TEXT_SLOTS 1024

typedef struct {
    uint64_t key;         /* the prefix dict's key */
    PyObject *prefix;     /* owned; NULL: empty slot */
} PrefixSlot;

typedef struct {
    uint64_t hash;
    unsigned event_type;
    PyObject *fields;     /* owned bytes: the record after its common header */
    PyObject *text;       /* owned; NULL: empty slot */
} TextSlot;

typedef struct {
    PyObject_HEAD
    PyObject *prefixes;   /* dict */
    PyObject *texts;      /* dict */
    PyObject *miss;       /* miss(cpu, entry, next_ts, idx) -> bytes: the Python printer */
    int in_ns;            /* the clock counts ns: seconds.micros, else raw counts */
    PrefixSlot *prefix_memo;   /* PREFIX_SLOTS, allocated on first use */
    TextSlot *text_memo;       /* TEXT_SLOTS, allocated on first use */
} DefaultLine;

static PyTypeObject DefaultLineType;

static int
call_printer(PyObject *printer, Out *out, long cpu, PyObject *entry, uint64_t next_ts, Py_ssize_t idx)
{
    PyObject *line = PyObject_CallFunction(printer, "lOKn", cpu, entry, (unsigned long long)next_ts, idx);
    if (line == NULL)
        return -1;
    if (!PyBytes_Check(line)) {
        PyErr_Format(PyExc_TypeError, "a line printer returned %.100s, not bytes", Py_TYPE(line)->tp_name);
        Py_DECREF(line);
        return -1;
    }
    int rc = out_put(out, PyBytes_AS_STRING(line), PyBytes_GET_SIZE(line));
    Py_DECREF(line);
    return rc;
}

static inline uint64_t
mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint64_t
hash_fields(unsigned event_type, const unsigned char *fields, Py_ssize_t size)
{
    uint64_t h = mix64(event_type ^ (uint64_t)size << 16);
    uint64_t word;
    for (; size >= 8; fields += 8, size -= 8) {
        memcpy(&word, fields, 8);
        h = mix64(h ^ word) * 0x9e3779b97f4a7c15ULL;
    }
    word = 0;
    memcpy(&word, fields, size);
    return mix64(h ^ word);
}

/* The cached prefix of a record (borrowed from the memo), NULL if not cached (or an error
 * is set). */
static PyObject *
cached_prefix(DefaultLine *self, uint64_t prefix_key)
{
    PrefixSlot *slot = &self->prefix_memo[mix64(prefix_key) % PREFIX_SLOTS];
    if (slot->prefix != NULL && slot->key == prefix_key)
        return slot->prefix;
    PyObject *key = PyLong_FromUnsignedLongLong(prefix_key);
    if (key == NULL)
        return NULL;
    PyObject *prefix = PyDict_GetItemWithError(self->prefixes, key);
    Py_DECREF(key);
    if (prefix == NULL || !PyBytes_Check(prefix))
        return NULL;
    Py_INCREF(prefix);
    Py_XSETREF(slot->prefix, prefix);   /* a bytes object's release runs no Python */
    slot->key = prefix_key;
    return prefix;
}

/* The cached text of a record (borrowed from the memo), NULL if not cached (or an error is
 * set). */
static PyObject *
cached_text(DefaultLine *self, unsigned event_type, const unsigned char *fields, Py_ssize_t size)
{
    uint64_t hash = hash_fields(event_type, fields, size);
    TextSlot *slot = &self->text_memo[hash % TEXT_SLOTS];
    if (slot->text != NULL && slot->hash == hash && slot->event_type == event_type
        && PyBytes_GET_SIZE(slot->fields) == size && memcmp(PyBytes_AS_STRING(slot->fields), fields, size) == 0)
        return slot->text;
    PyObject *id = PyLong_FromUnsignedLong(event_type);
    if (id == NULL)
        return NULL;
    PyObject *known = PyDict_GetItemWithError(self->texts, id);
    Py_DECREF(id);
    if (known == NULL || !PyTuple_Check(known) || PyTuple_GET_SIZE(known) < 2)
        return NULL;
    PyObject *by_fields = PyTuple_GET_ITEM(known, 1);
    if (!PyDict_Check(by_fields))
        return NULL;
    PyObject *key = PyBytes_FromStringAndSize((const char *)fields, size);
    if (key == NULL)
        return NULL;
    /* bytes keys compare in C: no Python runs while the text is only borrowed */
    PyObject *text = PyDict_GetItemWithError(by_fields, key);
    if (text == NULL || !PyBytes_Check(text)) {
        Py_DECREF(key);
        return NULL;
    }
    Py_INCREF(text);
    Py_XSETREF(slot->fields, key);
    Py_XSETREF(slot->text, text);
    slot->hash = hash;
    slot->event_type = event_type;
    return text;
}

static int
memo_alloc(DefaultLine *self)
{
    if (self->prefix_memo == NULL)
        self->prefix_memo = PyMem_Calloc(PREFIX_SLOTS, sizeof(PrefixSlot));
    if (self->text_memo == NULL)
        self->text_memo = PyMem_Calloc(TEXT_SLOTS, sizeof(TextSlot));
    if (self->prefix_memo == NULL || self->text_memo == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
memo_free(DefaultLine *self)
{
    if (self->prefix_memo != NULL) {
        for (int i = 0; i < PREFIX_SLOTS; i++)
            Py_XDECREF(self->prefix_memo[i].prefix);
        PyMem_Free(self->prefix_memo);
        self->prefix_memo = NULL;
    }
    if (self->text_memo != NULL) {
        for (int i = 0; i < TEXT_SLOTS; i++) {
            Py_XDECREF(self->text_memo[i].fields);
            Py_XDECREF(self->text_memo[i].text);
        }
        PyMem_Free(self->text_memo);
        self->text_memo = NULL;
    }
}

/* Appends the line of one record (an Entry); the Python printer makes it when a cache misses it. */
static int
default_line_put(DefaultLine *self, Out *out, long cpu, PyObject *entry, uint64_t next_ts, Py_ssize_t idx)
{
    const EntryObject *record = (const EntryObject *)entry;
    Py_ssize_t size = Py_SIZE(entry);
    if (size < ENTRY_HEADER_SIZE || cpu < 0 || cpu > 0xffff)
        goto miss;
    if (self->prefix_memo == NULL && memo_alloc(self) < 0)
        return -1;
    const unsigned char *p = record->payload;
    unsigned event_type = p[0] | (unsigned)p[1] << 8;
    uint32_t pid = p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    uint64_t prefix_key = (uint64_t)pid << 32 | (uint64_t)cpu << 16 | (uint64_t)p[2] << 8 | p[3];
    uint64_t ts = record->ts;

    /* both borrowed from the memo, which nothing changes until this line is made */
    PyObject *prefix = cached_prefix(self, prefix_key);
    if (prefix == NULL) {
        if (PyErr_Occurred())
            return -1;
        goto miss;
    }
    PyObject *text = cached_text(self, event_type, p + ENTRY_HEADER_SIZE, size - ENTRY_HEADER_SIZE);
    if (text == NULL) {
        if (PyErr_Occurred())
            return -1;
        goto miss;
    }
    Py_ssize_t prefix_len = PyBytes_GET_SIZE(prefix), text_len = PyBytes_GET_SIZE(text);
    /* " %5lu.%06lu: " or " %12llu: " at most 1 + 20 + 1 + 6 + 2 */
    if (out_reserve(out, prefix_len + 32 + text_len) < 0)
        return -1;
    char *dst = out_end(out);
    memcpy(dst, PyBytes_AS_STRING(prefix), prefix_len);
    dst += prefix_len;
    *dst++ = ' ';
    if (self->in_ns) {
        /* trace_print_time(): ns2usecs() rounds to the nearest microsecond */
        uint64_t usecs = ts / 1000 + (ts % 1000 >= 500);
        dst += put_u64(dst, usecs / 1000000, 5, ' ');
        *dst++ = '.';
        dst += put_u64(dst, usecs % 1000000, 6, '0');
    } else {
        dst += put_u64(dst, ts, 12, ' ');
    }
    *dst++ = ':';
    *dst++ = ' ';
    memcpy(dst, PyBytes_AS_STRING(text), text_len);
    dst += text_len;
    out->len = dst - PyBytes_AS_STRING(out->bytes);
    return 0;

miss:
    return call_printer(self->miss, out, cpu, entry, next_ts, idx);
}

static int
check_entry(PyObject *entry)
{
    if (!Py_IS_TYPE(entry, entry_type)) {
        PyErr_Format(PyExc_TypeError, "a record is an Entry, not %.100s", Py_TYPE(entry)->tp_name);
        return -1;
    }
    return 0;
}

/* Appends the line of one record with the given printer. */
static int
put_line(PyObject *printer, Out *out, long cpu, PyObject *entry, uint64_t next_ts, Py_ssize_t idx)
{
    if (Py_IS_TYPE(printer, &DefaultLineType))
        return default_line_put((DefaultLine *)printer, out, cpu, entry, next_ts, idx);
    return call_printer(printer, out, cpu, entry, next_ts, idx);
}

static int
DefaultLine_init(DefaultLine *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"prefixes", "texts", "in_ns", "miss", NULL};
    PyObject *prefixes, *texts, *miss;
    int in_ns;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!pO:DefaultLine", kwlist, &PyDict_Type, &prefixes,
                                     &PyDict_Type, &texts, &in_ns, &miss))
        return -1;
    if (!PyCallable_Check(miss)) {
        PyErr_SetString(PyExc_TypeError, "miss must be callable");
        return -1;
    }
    Py_INCREF(prefixes);
    Py_INCREF(texts);
    Py_INCREF(miss);
    Py_XSETREF(self->prefixes, prefixes);
    Py_XSETREF(self->texts, texts);
    Py_XSETREF(self->miss, miss);
    self->in_ns = in_ns;
    memo_free(self);   /* (re-initialised: what it found belongs to the old caches) */
    return 0;
}

static PyObject *
DefaultLine_call(DefaultLine *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cpu", "entry", "next_ts", "idx", NULL};
    long cpu;
    PyObject *entry, *next_ts_obj;
    Py_ssize_t idx;
    if (self->miss == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "DefaultLine not initialised");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "lOOn:DefaultLine", kwlist, &cpu, &entry, &next_ts_obj, &idx))
        return NULL;
    if (check_entry(entry) < 0)
        return NULL;
    if (!PyLong_Check(next_ts_obj)) {
        PyErr_Format(PyExc_TypeError, "next_ts is a stamp, not %.100s", Py_TYPE(next_ts_obj)->tp_name);
        return NULL;
    }
    uint64_t next_ts = PyLong_AsUnsignedLongLong(next_ts_obj);
    if (next_ts == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    Out out;
    if (out_init(&out, 256) < 0)
        return NULL;
    if (default_line_put(self, &out, cpu, entry, next_ts, idx) < 0) {
        Py_XDECREF(out.bytes);
        return NULL;
    }
    return out_finish(&out);
}

static int
DefaultLine_traverse(DefaultLine *self, visitproc visit, void *arg)
{
    Py_VISIT(self->prefixes);
    Py_VISIT(self->texts);
    Py_VISIT(self->miss);
    return 0;
}

static int
DefaultLine_clear(DefaultLine *self)
{
    Py_CLEAR(self->prefixes);
    Py_CLEAR(self->texts);
    Py_CLEAR(self->miss);
    memo_free(self);
    return 0;
}

static void
DefaultLine_dealloc(DefaultLine *self)
{
    PyObject_GC_UnTrack(self);
    DefaultLine_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef DefaultLine_members[] = {
    {"miss", T_OBJECT, offsetof(DefaultLine, miss), READONLY, PyDoc_STR("the Python printer of a cache miss")},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject DefaultLineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tracefs_sim.trace._lines.DefaultLine",
    .tp_doc = PyDoc_STR(
        "DefaultLine(prefixes, texts, in_ns, miss)\n--\n\n"
        "The default record line, `comm-pid [cpu] flags stamp: text`, from the trace array's\n"
        "prefix and text caches; miss(cpu, entry, next_ts, idx) makes (and caches) a line they\n"
        "lack. Called as line(cpu, entry, next_ts, idx) -> bytes; pipe_text and trace_text use it\n"
        "without a Python call."),
    .tp_basicsize = sizeof(DefaultLine),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)DefaultLine_init,
    .tp_call = (ternaryfunc)DefaultLine_call,
    .tp_members = DefaultLine_members,
    .tp_traverse = (traverseproc)DefaultLine_traverse,
    .tp_clear = (inquiry)DefaultLine_clear,
    .tp_dealloc = (destructor)DefaultLine_dealloc,
};

/* ---- the merge ---- */

static int
check_printer(PyObject *printer)
{
    if (Py_IS_TYPE(printer, &DefaultLineType) ? ((DefaultLine *)printer)->miss == NULL : !PyCallable_Check(printer)) {
        PyErr_SetString(PyExc_TypeError, "line must be a callable line printer (or an initialised DefaultLine)");
        return -1;
    }
    return 0;
}

typedef struct {
    long cpu;
    PyObject *pages;       /* iterator over the CPU's pages (lists of entries), owned */
    PyObject *page;        /* the page holding the head, owned */
    Py_ssize_t next;       /* index in page of the record after the head */
    Py_ssize_t position;   /* the head's position among the CPU's records */
    PyObject *head;        /* owned; NULL: no more records (or the look-ahead was passed) */
    uint64_t ts;           /* the head's stamp */
    long long lost;        /* records lost before the head, for a `LOST` line (0: none) */
    int started;           /* annotate: the CPU's first line was made */
} Cursor;

typedef struct {
    Cursor *cursors;
    Py_ssize_t count;
    Py_ssize_t window;     /* records a CPU may give (-1: all); the one at `window` is a look-ahead */
    int annotate;          /* mark where each CPU's records start (test_cpu_buff_start()) */
    int consuming;         /* a consuming read: the next entry it peeks is the record itself */
} Merge;

/* Moves a cursor to the CPU's next record, up to the look-ahead. */
static int
cursor_advance(Cursor *c, Py_ssize_t window)
{
    Py_CLEAR(c->head);
    c->position++;
    if (window >= 0 && c->position > window)
        return 0;
    while (c->page == NULL || c->next >= PyList_GET_SIZE(c->page)) {
        Py_CLEAR(c->page);
        if (c->pages == NULL)
            return 0;
        PyObject *page = PyIter_Next(c->pages);
        if (page == NULL) {
            Py_CLEAR(c->pages);
            return PyErr_Occurred() ? -1 : 0;
        }
        if (!PyList_Check(page)) {
            PyErr_Format(PyExc_TypeError, "a buffer page is a list, not %.100s", Py_TYPE(page)->tp_name);
            Py_DECREF(page);
            return -1;
        }
        c->page = page;
        c->next = 0;
    }
    PyObject *entry = PyList_GET_ITEM(c->page, c->next);
    if (check_entry(entry) < 0)
        return -1;
    Py_INCREF(entry);
    c->head = entry;
    c->ts = ((const EntryObject *)entry)->ts;
    c->next++;
    return 0;
}

/* The cursor whose head comes next, -1 when none has a record. */
static Py_ssize_t
merge_select(Merge *m)
{
    Py_ssize_t best = -1;
    for (Py_ssize_t i = 0; i < m->count; i++) {
        Cursor *c = &m->cursors[i];
        if (c->head == NULL)
            continue;
        if (best < 0 || c->ts < m->cursors[best].ts
            || (c->ts == m->cursors[best].ts && c->cpu < m->cursors[best].cpu))
            best = i;
    }
    return best;
}

static void
merge_free(Merge *m)
{
    for (Py_ssize_t i = 0; i < m->count; i++) {
        Py_XDECREF(m->cursors[i].pages);
        Py_XDECREF(m->cursors[i].page);
        Py_XDECREF(m->cursors[i].head);
    }
    PyMem_Free(m->cursors);
    m->cursors = NULL;
}

/* sources: a sequence of (cpu, pages); lost: None or a sequence of counts, one a source. */
static int
merge_init(Merge *m, PyObject *sources, PyObject *lost, Py_ssize_t window)
{
    m->cursors = NULL;
    m->count = 0;
    m->window = window;
    m->annotate = 0;
    m->consuming = 0;
    PyObject *seq = PySequence_Fast(sources, "sources must be a sequence of (cpu, pages)");
    if (seq == NULL)
        return -1;
    PyObject *lost_seq = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (lost != Py_None) {
        lost_seq = PySequence_Fast(lost, "lost must be a sequence of counts");
        if (lost_seq == NULL)
            goto fail;
        if (PySequence_Fast_GET_SIZE(lost_seq) != n) {
            PyErr_SetString(PyExc_ValueError, "lost needs one count a source");
            goto fail;
        }
    }
    m->cursors = PyMem_Calloc(n ? n : 1, sizeof(Cursor));
    if (m->cursors == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Cursor *c = &m->cursors[m->count++];
        PyObject *pages;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "lO;a source is (cpu, pages)", &c->cpu, &pages))
            goto fail;
        c->pages = PyObject_GetIter(pages);
        if (c->pages == NULL)
            goto fail;
        c->position = -1;
        if (lost_seq != NULL) {
            c->lost = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(lost_seq, i));
            if (c->lost == -1 && PyErr_Occurred())
                goto fail;
        }
        if (cursor_advance(c, window) < 0)
            goto fail;
    }
    Py_DECREF(seq);
    Py_XDECREF(lost_seq);
    return 0;
fail:
    Py_DECREF(seq);
    Py_XDECREF(lost_seq);
    merge_free(m);
    return -1;
}

/* Appends the merged records' lines to out, from index idx on; stops before a look-ahead
 * record, or before the line that would make the lines (after `start`) longer than max_bytes
 * (-1: no limit) unless it is the first. taken[i]: records of cursor i whose lines were
 * made. Returns the lines made, -1 on error. size_hint > 0: the records there are, to size
 * the text once from the first lines' length. */
static Py_ssize_t
merge_lines(Merge *m, PyObject *printer, Out *out, Py_ssize_t start, Py_ssize_t idx, Py_ssize_t max_bytes,
            Py_ssize_t *taken, Py_ssize_t size_hint)
{
    Py_ssize_t lines = 0;
    Py_ssize_t cur = merge_select(m);
    while (cur >= 0) {
        Cursor *c = &m->cursors[cur];
        if (m->window >= 0 && c->position == m->window)
            break;   /* what follows this CPU's look-ahead may come before its next records */
        PyObject *entry = c->head;   /* the cursor's reference, now ours */
        uint64_t ts = c->ts;
        c->head = NULL;
        Py_ssize_t position = c->position;
        if (cursor_advance(c, m->window) < 0) {
            Py_DECREF(entry);
            return -1;
        }
        Py_ssize_t next = merge_select(m);
        /* latency format shows the delay to the next record (the last: none); a consuming
         * read prints a record before it consumes it, so trace_find_next_entry() finds the
         * record itself there (no delay: 6.1's trace_pipe shows no marks) */
        uint64_t next_ts = next >= 0 && !m->consuming ? m->cursors[next].ts : ts;
        Py_ssize_t before = out->len;
        int rc = 0;
        if (c->lost) {   /* before the CPU's first line of this read */
            char lost_line[96];
            int n = PyOS_snprintf(lost_line, sizeof lost_line, "CPU:%ld [LOST %lld EVENTS]\n", c->cpu, c->lost);
            c->lost = 0;
            rc = out_put(out, lost_line, n);
        }
        if (rc == 0 && m->annotate && !c->started) {
            c->started = 1;
            /* (not before the trace's first two lines) */
            if (idx + lines > 1) {
                char mark[64];
                int n = PyOS_snprintf(mark, sizeof mark, "##### CPU %ld buffer started ####\n", c->cpu);
                rc = out_put(out, mark, n);
            }
        }
        if (rc == 0)
            rc = put_line(printer, out, c->cpu, entry, next_ts, idx + lines);
        Py_DECREF(entry);
        if (rc < 0)
            return -1;
        if (max_bytes >= 0 && out->len - start > max_bytes && before > start) {
            out->len = before;
            break;
        }
        taken[cur] = position + 1;
        lines++;
        if (lines == SIZING_LINES && size_hint > lines) {
            Py_ssize_t mean = (out->len - start) / lines + 1;
            Py_ssize_t want = out->len + (size_hint - lines) * mean + mean * 8;
            if (want > out->cap && out_resize(out, want) < 0)
                return -1;
        }
        cur = next;
    }
    return lines;
}

static PyObject *
pipe_text(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"sources", "line", "idx", "window", "max_bytes", "lost", NULL};
    PyObject *sources, *printer, *lost;
    Py_ssize_t idx, window, max_bytes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOnnnO:pipe_text", kwlist, &sources, &printer, &idx, &window,
                                     &max_bytes, &lost))
        return NULL;
    if (window < 0 || max_bytes < 0) {
        PyErr_SetString(PyExc_ValueError, "window and max_bytes must not be negative");
        return NULL;
    }
    if (check_printer(printer) < 0)
        return NULL;
    Merge m;
    if (merge_init(&m, sources, lost, window) < 0)
        return NULL;
    m.consuming = 1;
    PyObject *result = NULL, *taken_list = NULL;
    Out out = {NULL, 0, 0};
    Py_ssize_t *taken = PyMem_Calloc(m.count ? m.count : 1, sizeof(Py_ssize_t));
    if (taken == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (out_init(&out, max_bytes + 256) < 0)
        goto done;
    if (merge_lines(&m, printer, &out, 0, idx, max_bytes, taken, 0) < 0)
        goto done;
    taken_list = PyList_New(m.count);
    if (taken_list == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < m.count; i++) {
        PyObject *count = PyLong_FromSsize_t(taken[i]);
        if (count == NULL)
            goto done;
        PyList_SET_ITEM(taken_list, i, count);
    }
    PyObject *text = out_finish(&out);
    if (text == NULL)
        goto done;
    result = PyTuple_Pack(2, text, taken_list);
    Py_DECREF(text);
done:
    Py_XDECREF(out.bytes);
    Py_XDECREF(taken_list);
    PyMem_Free(taken);
    merge_free(&m);
    return result;
}

static PyObject *
trace_text(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"head", "sources", "line", "records", "annotate", NULL};
    PyObject *sources, *printer;
    const char *head;
    Py_ssize_t head_len, records;
    int annotate = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y#OOn|p:trace_text", kwlist, &head, &head_len, &sources, &printer,
                                     &records, &annotate))
        return NULL;
    if (check_printer(printer) < 0)
        return NULL;
    Merge m;
    if (merge_init(&m, sources, Py_None, -1) < 0)
        return NULL;
    m.annotate = annotate;
    PyObject *text = NULL;
    Out out = {NULL, 0, 0};
    Py_ssize_t *taken = PyMem_Calloc(m.count ? m.count : 1, sizeof(Py_ssize_t));
    if (taken == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* until the first lines tell their mean length */
    if (out_init(&out, head_len + (records < SIZING_LINES ? records : SIZING_LINES) * 128) < 0)
        goto done;
    memcpy(out_end(&out), head, head_len);
    out.len = head_len;
    if (merge_lines(&m, printer, &out, head_len, 0, -1, taken, records) < 0)
        goto done;
    text = out_finish(&out);
done:
    Py_XDECREF(out.bytes);
    PyMem_Free(taken);
    merge_free(&m);
    return text;
}

static PyMethodDef lines_methods[] = {
    {"pipe_text", (PyCFunction)(void (*)(void))pipe_text, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("pipe_text(sources, line, idx, window, max_bytes, lost) -> (text, taken)\n--\n\n"
               "trace_pipe's read: the lines of the merged records of sources [(cpu, pages)],\n"
               "line(cpu, entry, next_ts, idx) printing each (idx counting on from idx), up to\n"
               "max_bytes of text (at least one line), and no further than the `window`th record\n"
               "of any CPU (the record at position `window` is a look-ahead: the read ends there).\n"
               "lost: records each source lost, told in a `CPU:N [LOST M EVENTS]` line before its\n"
               "first line (0: nothing). taken: the records of each source the text holds.")},
    {"trace_text", (PyCFunction)(void (*)(void))trace_text, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("trace_text(head, sources, line, records, annotate=False) -> bytes\n--\n\n"
               "`trace`'s text: head, then the lines of all the merged records of sources\n"
               "[(cpu, pages)] as pipe_text makes them; records: how many there are (sizes the text).\n"
               "annotate: a `##### CPU N buffer started ####` line before each CPU's first line\n"
               "but on the text's first two lines (the annotate option, after overruns).")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef lines_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tracefs_sim.trace._lines",
    .m_doc = PyDoc_STR("The text of trace and trace_pipe: the CPUs' records merged, lines made in C."),
    .m_size = -1,
    .m_methods = lines_methods,
};

PyMODINIT_FUNC
PyInit__lines(void)
{
    if (entry_type == NULL) {
        const struct entry_api *api = import_entry_api();
        if (api == NULL)
            return NULL;
        entry_type = api->type;
    }
    if (PyType_Ready(&DefaultLineType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&lines_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&DefaultLineType);
    if (PyModule_AddObject(module, "DefaultLine", (PyObject *)&DefaultLineType) < 0) {
        Py_DECREF(&DefaultLineType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
