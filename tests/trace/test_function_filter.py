"""set_ftrace_filter & co: the token grammar, errnos and what stays applied, the parser that
takes one token per write(), and what each open file sees and commits, as the real Linux 6.1
answered (see the comments for the transcript each case comes from)."""

import errno

import pytest

from tracefs_sim.trace.ftrace_filter import (ALL_ENABLED, NONE_DISABLED, FunctionFilter, GraphFilter, TraceParser,
                                             compile_match)

FUNCTIONS = ["vfs_readv", "vfs_read", "vfs_readlink", "vfs_write", "do_sys_open", "mtrr_open", "ksys_read",
             "__do_sys_getuid", "seq_read_iter"]


ADDRESS = {name: 0xFFFFFFFF81000000 + 0x40 * i for i, name in enumerate(FUNCTIONS)}


@pytest.fixture
def changes():
    return []


@pytest.fixture
def ftrace_filter(changes):
    return FunctionFilter(FUNCTIONS, ALL_ENABLED, lambda: changes.append(1))


def names(f: FunctionFilter) -> list[str]:
    return f.read().decode().splitlines()


@pytest.mark.parametrize("pattern, expected", [
    ("vfs_rea*", ["vfs_readv", "vfs_read", "vfs_readlink"]),   # address order, as Linux lists them
    ("vfs_rea?", ["vfs_read"]),
    ("*_open", ["do_sys_open", "mtrr_open"]),
    ("*read*", ["vfs_readv", "vfs_read", "vfs_readlink", "ksys_read", "seq_read_iter"]),
    ("*", FUNCTIONS),
    ("v*_w*e", ["vfs_write"]),
    ("vfs_rea[dx]", ["vfs_read"]),
    ("vfs_read", ["vfs_read"]),
])
def test_globs(ftrace_filter, pattern, expected):
    ftrace_filter.write(pattern.encode() + b"\n")
    assert names(ftrace_filter) == expected


def test_empty_reads_the_banner(changes):
    assert FunctionFilter(FUNCTIONS, ALL_ENABLED, lambda: None).read() == b"#### all functions enabled ####\n"
    assert FunctionFilter(FUNCTIONS, NONE_DISABLED, lambda: None).read() == b"#### no functions disabled ####\n"


def test_append_remove_truncate(ftrace_filter, changes):
    # echo vfs_read > f; echo vfs_write >> f; echo '!vfs_read' >> f
    ftrace_filter.clear()
    ftrace_filter.write(b"vfs_read\n")
    ftrace_filter.write(b"vfs_write\n")
    assert names(ftrace_filter) == ["vfs_read", "vfs_write"]
    ftrace_filter.write(b"!vfs_read\n")
    assert names(ftrace_filter) == ["vfs_write"]
    ftrace_filter.write(b"!vfs_*\n")
    assert ftrace_filter.read() == ALL_ENABLED
    assert len(changes) == 4
    ftrace_filter.clear()          # already empty: nothing to tell the kernel
    assert len(changes) == 4


@pytest.mark.parametrize("token", [b"nosuch\n", b"!nosuch\n", b"nosuch*\n", b"vfs_read:nosuchcmd\n",
                                   b"vfs_read:traceoff\n", b"!:mod:ext4\n", b"99\n", b"x" * 600 + b"\n",
                                   b"*" * 670 + b"\n", b"vfs_read[\n"])
def test_bad_tokens_fail_and_keep_the_old_filter(ftrace_filter, changes, token):
    ftrace_filter.write(b"vfs_write\n")
    with pytest.raises(OSError) as failed:
        ftrace_filter.write(token)
    assert failed.value.errno == errno.EINVAL
    assert names(ftrace_filter) == ["vfs_write"]
    assert len(changes) == 1


def test_tokens_before_a_bad_one_stay_applied(ftrace_filter):
    # Linux: echo "vfs_read nosuch" > set_ftrace_filter fails, and the filter reads vfs_read
    with pytest.raises(OSError):
        ftrace_filter.write(b"vfs_read nosuch\n")
    assert names(ftrace_filter) == ["vfs_read"]


def test_several_tokens_and_removal_of_absent(ftrace_filter):
    ftrace_filter.write(b"vfs_read vfs_write\n")
    assert names(ftrace_filter) == ["vfs_read", "vfs_write"]
    ftrace_filter.write(b"!do_sys_open\n")      # matches a function: fine even if not in the set
    assert names(ftrace_filter) == ["vfs_read", "vfs_write"]


def test_index_selects_a_line_of_available_filter_functions(ftrace_filter):
    ftrace_filter.write(b"2\n")
    assert names(ftrace_filter) == ["vfs_read"]
    graph = GraphFilter(FUNCTIONS, ADDRESS.__getitem__, ALL_ENABLED, lambda: None)
    with pytest.raises(OSError):
        graph.write(b"2\n")


def test_match_kinds():
    assert compile_match("*")("anything")
    assert compile_match("**")("anything")
    assert not compile_match("vfs_read")("vfs_readv")
    assert compile_match("*read")("ksys_read") and not compile_match("*read")("vfs_readv")
    assert compile_match("vfs\\_read")("vfs_read")               # a backslash escapes (lib/glob.c)
    assert compile_match("vfs_[!r]rite")("vfs_write") and not compile_match("vfs_[!w]rite")("vfs_write")
    assert compile_match("ksys_[q-s]ead")("ksys_read") and not compile_match("ksys_[s-z]ead")("ksys_read")
    assert not compile_match("vfs_read[")("vfs_read")           # a malformed class is a literal [


# ---- the parser: what one write() takes (Linux 6.1's return values, from a C writer) ----

def feeds(parser, *writes):
    """(returned count or errno, completed token) of each write."""
    out = []
    for data in writes:
        try:
            out.append((parser.feed(data), parser.take()))
        except OSError as failed:
            out.append((failed.errno, None))
    return out


def test_one_token_per_write():
    # write("vfs_read ksys_read\n") returned 9
    assert feeds(TraceParser(), b"vfs_read ksys_read\n") == [(9, "vfs_read")]
    # write("  \t vfs_read\t\n\n") returned 13, write("\n") 1, write("   ksys_write   ") 14
    assert feeds(TraceParser(), b"  \t vfs_read\t\n\n", b"\n", b"   ksys_write   ") == [
        (13, "vfs_read"), (1, None), (14, "ksys_write")]
    # a NUL ends the token and what the write takes: write("vfs_read\0ksys_write\n") returned 9
    assert feeds(TraceParser(), b"vfs_read\0ksys_write\n") == [(9, "vfs_read")]
    assert feeds(TraceParser(), b" \0", b"\0x") == [(2, None), (1, None)]


def test_a_token_split_over_writes():
    # write("vfs_") 4, write("read\n") 5: the filter reads vfs_read
    assert feeds(TraceParser(), b"vfs_", b"read\n") == [(4, None), (5, "vfs_read")]
    parser = TraceParser()
    assert feeds(parser, b"vfs_", b"wri", b"te") == [(4, None), (3, None), (2, None)]
    assert parser.take_rest() == "vfs_write"            # applied when the file is closed
    # a space at the start of the next write ends the token there: write(" read\n") EINVAL
    assert feeds(TraceParser(), b"vfs_", b" read\n") == [(4, None), (1, "vfs_")]


def test_a_token_too_long_fails_and_the_parser_takes_nothing_more():
    # 669 bytes fit (FTRACE_BUFF_MAX 670): write(661 '*' + "vfs_read\n") returned 670
    assert feeds(TraceParser(), b"*" * 661 + b"vfs_read\n") == [(670, "*" * 661 + "vfs_read")]
    # 670 do not: EINVAL, and the next write("ksys_read\n") returned 10 but applied nothing
    parser = TraceParser()
    assert feeds(parser, b"*" * 662 + b"vfs_read\n", b"ksys_read\n") == [(errno.EINVAL, None), (10, None)]
    assert parser.take_rest() is None


# ---- open files: the working copy, and when it becomes the filter ----

def test_the_filter_changes_when_the_file_is_closed(ftrace_filter, changes):
    ftrace_filter.write(b"vfs_read vfs_write\n")
    writer = ftrace_filter.open(readable=False, writable=True, truncate=True)
    assert writer.write(b"ksys_read\n") == 10
    assert names(ftrace_filter) == ["vfs_read", "vfs_write"]     # another reader: the old filter
    writer.release()
    assert names(ftrace_filter) == ["ksys_read"]


def test_reading_a_file_open_for_writing_shows_its_working_copy(ftrace_filter):
    ftrace_filter.write(b"vfs_write\n")
    session = ftrace_filter.open(readable=True, writable=True)
    session.write(b"vfs_read\n")
    assert session.read().decode().splitlines() == ["vfs_read", "vfs_write"]
    session.release()
    session = ftrace_filter.open(readable=True, writable=True, truncate=True)
    assert session.read() == ALL_ENABLED
    session.write(b"ksys_read\n")
    assert session.read() == b"ksys_read\n"
    session.release()
    reader = ftrace_filter.open()
    ftrace_filter.write(b"vfs_read\n")
    assert reader.read() == b"ksys_read\n"                  # read-only: the filter as it was at open


def test_a_failed_write_after_o_trunc_leaves_the_filter_empty(ftrace_filter):
    # echo vfs_read > f; echo nosuch > f: the write fails, the filter reads all functions
    ftrace_filter.write(b"vfs_read\n")
    with pytest.raises(OSError) as failed:
        session = ftrace_filter.open(readable=False, writable=True, truncate=True)
        try:
            session.write(b"nosuch\n")
        finally:
            session.release()
    assert failed.value.errno == errno.EINVAL
    assert ftrace_filter.read() == ALL_ENABLED


def test_an_o_trunc_open_with_no_write_empties_the_filter_when_closed(ftrace_filter, changes):
    # `: > set_ftrace_filter`, or an open(O_TRUNC) and close()
    ftrace_filter.write(b"vfs_read\n")
    count = len(changes)
    session = ftrace_filter.open(readable=False, writable=True, truncate=True)
    assert names(ftrace_filter) == ["vfs_read"] and len(changes) == count
    session.release()
    assert ftrace_filter.read() == ALL_ENABLED and len(changes) == count + 1


# ---- :mod: (no modules here: entries are kept for a module to come) ----

def test_mod_entries_are_kept_listed_and_removed(ftrace_filter):
    # echo ':mod:nosuch' > f; echo 'vfs_read:mod:nosuch' >> f; echo '*:mod:other' >> f
    ftrace_filter.clear()
    for token in (b":mod:nosuch\n", b"vfs_read:mod:nosuch\n", b"*:mod:other\n"):
        ftrace_filter.write(token)
    assert ftrace_filter.read() == b"*:mod:other\nvfs_read:mod:nosuch\n:mod:nosuch\n"
    assert not ftrace_filter.selects_all                       # it traces nothing
    ftrace_filter.write(b"vfs_read\n")
    assert ftrace_filter.read() == b"vfs_read\n*:mod:other\nvfs_read:mod:nosuch\n:mod:nosuch\n"
    # `!name:mod:!module` / `name:mod:!module`: every function here is outside the module
    ftrace_filter.write(b"ksys_read:mod:!nosuch\n")
    ftrace_filter.write(b"!vfs_read:mod:!nosuch\n")
    assert names(ftrace_filter)[0] == "ksys_read"
    ftrace_filter.write(b"!*:mod:nosuch\n")                     # all of the module's entries go
    assert ftrace_filter.read() == b"ksys_read\n*:mod:other\n"
    with pytest.raises(OSError) as failed:
        ftrace_filter.write(b"!:mod:nosuch\n")
    assert failed.value.errno == errno.EINVAL
    ftrace_filter.write(b"!*:mod:other\n")
    ftrace_filter.write(b"vfs_re*:mod:!\n")
    assert names(ftrace_filter) == ["vfs_readv", "vfs_read", "vfs_readlink", "ksys_read"]
    ftrace_filter.write(b"!*:mod:!\n")
    assert ftrace_filter.read() == ALL_ENABLED and ftrace_filter.selects_all


def test_mod_without_a_module_and_a_blank_module():
    f = FunctionFilter(FUNCTIONS, ALL_ENABLED, lambda: None)
    f.write(b"vfs_read:mod\n")                                   # no module: a plain match
    assert f.names == {"vfs_read"}
    with pytest.raises(OSError) as failed:
        f.write(b"nosuch:mod\n")
    assert failed.value.errno == errno.ENOMEM
    f.write(b"vfs_read:mod:\n")                                   # a blank module is kept
    assert f.read() == b"vfs_read\nvfs_read:mod:\n"


def test_truncating_drops_the_mod_entries_at_open_and_the_working_copy_shows_the_banner():
    f = FunctionFilter(FUNCTIONS, ALL_ENABLED, lambda: None)
    f.write(b"vfs_read:mod:x\n")
    session = f.open(readable=True, writable=True, truncate=True)
    assert f.read() == b""                                        # no banner: it holds entries
    assert session.read() == ALL_ENABLED                          # they went at open
    session.write(b"vfs_read:mod:y\n")
    assert session.read() == ALL_ENABLED + b"vfs_read:mod:y\n"
    session.release()
    assert f.read() == b"vfs_read:mod:y\n"


def test_notrace_mod_entries_disable_nothing():
    f = FunctionFilter(FUNCTIONS, NONE_DISABLED, lambda: None, enable=False)
    f.write(b":mod:nosuch\n")
    assert f.read() == NONE_DISABLED + b":mod:nosuch\n" and f.names == frozenset()
    f.clear()
    assert f.read() == NONE_DISABLED


# ---- the graph files ----

def graph_names(f):
    return f.read().decode().splitlines()


def test_graph_removal_of_an_absent_function_fails():
    # echo '!ksys_write' >> set_graph_function with ksys_write not in it: EINVAL
    graph = GraphFilter(FUNCTIONS, ADDRESS.__getitem__, ALL_ENABLED, lambda: None)
    graph.write(b"vfs_read ksys_read\n")
    with pytest.raises(OSError) as failed:
        graph.write(b"!vfs_write\n")
    assert failed.value.errno == errno.EINVAL
    graph.write(b"!vfs_*\n")
    assert graph_names(graph) == ["ksys_read"]
    with pytest.raises(OSError):
        graph.write(b":mod:nosuch\n")                            # no commands in these files


def test_graph_reads_show_the_set_not_the_working_copy():
    graph = GraphFilter(FUNCTIONS, ADDRESS.__getitem__, ALL_ENABLED, lambda: None)
    graph.write(b"vfs_read\n")
    session = graph.open(readable=True, writable=True, truncate=True)
    session.write(b"ksys_read\n")
    assert session.read() == b"vfs_read\n"
    session.release()
    assert graph_names(graph) == ["ksys_read"]


# Linux 6.1 (Debian 6.1.0-56, no KASLR): the sites of these functions (/proc/kallsyms; the
# site is the function's first byte), and set_graph_function's listing after
# echo 'vfs_read vfs_write ksys_read ksys_write schedule kfree' > set_graph_function
LINUX_SITES = {"kfree": 0xFFFFFFFF812B8F60, "vfs_read": 0xFFFFFFFF813669E0, "vfs_write": 0xFFFFFFFF81367160,
               "ksys_read": 0xFFFFFFFF81367550, "ksys_write": 0xFFFFFFFF81367680, "schedule": 0xFFFFFFFF81A52DD0}
LINUX_GRAPH_ORDER = ["vfs_read", "schedule", "kfree", "ksys_write", "ksys_read", "vfs_write"]


def test_graph_listing_follows_the_hash_as_linux_does():
    names_by_address = sorted(LINUX_SITES, key=LINUX_SITES.__getitem__)
    graph = GraphFilter(names_by_address, LINUX_SITES.__getitem__, ALL_ENABLED, lambda: None)
    graph.write(" ".join(LINUX_SITES).encode() + b"\n")
    assert graph_names(graph) == LINUX_GRAPH_ORDER
