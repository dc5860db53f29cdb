"""set_ftrace_filter & co: the token grammar, errnos and what stays applied, as the real
Linux 6.1 answered (see the comments for the transcript each case comes from)."""

import errno

import pytest

from tracefs_sim.trace.ftrace_filter import ALL_ENABLED, NONE_DISABLED, FunctionFilter, compile_match

FUNCTIONS = ["vfs_readv", "vfs_read", "vfs_readlink", "vfs_write", "do_sys_open", "mtrr_open", "ksys_read",
             "__do_sys_getuid", "seq_read_iter"]


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
                                   b"vfs_read:traceoff\n", b":mod:ext4\n", b"99\n", b"x" * 600 + b"\n"])
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
    graph = FunctionFilter(FUNCTIONS, ALL_ENABLED, lambda: None, by_index=False)
    with pytest.raises(OSError):
        graph.write(b"2\n")


def test_match_kinds():
    assert compile_match("*")("anything")
    assert compile_match("**")("anything")
    assert not compile_match("vfs_read")("vfs_readv")
    assert compile_match("*read")("ksys_read") and not compile_match("*read")("vfs_readv")
