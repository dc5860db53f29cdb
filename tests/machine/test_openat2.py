"""openat2's RESOLVE_* flags (fs/open.c build_open_flags, fs/namei.c path_init, nd_jump_root,
follow_dotdot, handle_mounts, pick_link, nd_jump_link): a static glibc program
(kernel_model/user/static/openat2.c) builds a scratch tree in a new directory on a tmpfs
(symlinks relative, absolute, to "/", to "..", to /proc; a loop) and prints, for a table of
(dirfd, path, open flags, resolve flags), what each openat2 opened or its errno.  The expected
lines are what the same binary printed on the reference Linux 6.1 (real-tracefs, after
`mount -t tmpfs tmpfs /tmp`), kept in tests/data/linux-6.1-openat2.txt."""
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1-openat2.txt"


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2, workload="none")


def test_openat2_resolve_flags_give_what_linux_6_1_gives(machine, run_program):
    status, out = run_program(machine, ["openat2", "/tmp/oa2"], timeout=60.0)
    assert status == 0, out
    assert out.decode().splitlines() == REFERENCE.read_text().splitlines()
