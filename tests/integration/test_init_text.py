"""The kernel's __init functions after the boot, as 6.1's: kallsyms names them, but they are
not traceable (their ftrace records went with the boot) nor probeable (init text is no
kernel text any more)."""

import os

import pytest
from simtest import section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse and root")

T = "/sys/kernel/tracing"


def test_an_init_function_is_named_but_neither_traced_nor_probed():
    script = (f"echo '== kallsyms'; grep -w start_kernel /proc/kallsyms | cut -d' ' -f2-;"
              f"echo '== filter functions'; grep -cw start_kernel {T}/available_filter_functions;"
              f"echo '== ftrace filter'; echo start_kernel > {T}/set_ftrace_filter 2>/dev/null; echo $?;"
              f"echo '== kprobe'; echo 'p:x start_kernel' >> {T}/kprobe_events 2>/dev/null; echo $?;"
              f"echo '== error_log'; sed 's/^\\[ *[0-9.]*\\] //' {T}/error_log; echo '== kprobe_events';"
              f"cat {T}/kprobe_events; echo '== end'")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=120)
    out = result.stdout
    assert section(out, "kallsyms") == ["T start_kernel"], out
    assert section(out, "filter functions") == ["0"]
    assert section(out, "ftrace filter") == ["1"]       # EINVAL, as 6.1 answers
    assert section(out, "kprobe") == ["1"]
    # as 6.1 logs it (register_kprobe's EINVAL: "Failed to register probe event" at the symbol)
    assert section(out, "error_log") == ["trace_kprobe: error: Failed to register probe event",
                                         "  Command: p:x start_kernel", "               ^"], out
    assert section(out, "kprobe_events") == []


def test_kallsyms_brackets_the_init_functions_with_init_begin_and_end():
    """/proc/kallsyms has __init_begin before the first init function and __init_end after the
    last, as 6.1's: BCC's get_kprobe_functions skips what lies between (vfscount's `vfs_*`)."""
    script = "awk '{print $3}' /proc/kallsyms"
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=120)
    names = result.stdout.split()
    begin, end = names.index("__init_begin"), names.index("__init_end")
    assert begin < names.index("start_kernel") < end, result.stdout[-2000:]
    assert begin < names.index("vfs_caches_init") < end
    assert not begin < names.index("vfs_read") < end
