"""The supervisor's table of what is behind each system call's pointer arguments
(session/native/syscall_args.h) is what gen_syscall_args.py makes of the kernel's syscall table
and its OVERRIDES of 6.1's sources."""

import subprocess
import sys
from pathlib import Path

NATIVE = Path(__file__).resolve().parents[1] / "src" / "tracefs_sim" / "session" / "native"


def generate(*args: str) -> str:
    return subprocess.run([sys.executable, str(NATIVE / "gen_syscall_args.py"), *args], check=True,
                          capture_output=True, text=True, timeout=60).stdout


def test_the_committed_table_is_the_generated_one():
    assert generate() == (NATIVE / "syscall_args.h").read_text()


def test_the_overrides_say_what_the_declarations_do_not():
    review = {line.split()[1]: line for line in generate("--review").splitlines()}
    assert "vec (unsigned char *): OUT_PAGES[len]" in review["mincore"]
    assert "uattr (struct sched_attr *): SIZED_IN 48" in review["sched_setattr"]
    assert "uattr (struct sched_attr *): OUT[usize]" in review["sched_getattr"]
    assert "ufds (struct pollfd *): ARRAY_IN[nfds] 8" in review["poll"]
    assert "path (const char *): STR" in review["truncate"]          # not a buffer of `length`
    assert "head (struct robust_list_head *): NONE" in review["set_robust_list"]   # kept, not read
    assert "uservaddr (struct sockaddr *): BUF_IN[addrlen]" in review["connect"]
    assert "vec (const struct iovec *): IOV[vlen] 16" in review["writev"]
