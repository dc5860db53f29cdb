"""Kprobe events on the LSM hooks (kernel_model/security/security.c), as one traces them on 6.1:
security_file_open's struct file names the file it opens (+0(+40(+24($arg1))): f_path.dentry's
d_name.name), security_inode_create's dentry (+0(+40($arg2))) the file mknod makes; an open(O_CREAT) creates
through the directory's ->create without security_inode_create, as 6.1's lookup_open does; and
the capability module's answer to an unprivileged task (cap_capable's return value)."""
import re

import pytest

LINE = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\] (\S+)\s+([\d.]+): (\w+): (.*)$")
EPERM = 1


@pytest.fixture
def sim(traced):
    return traced(2, "none", 13)


def probe_lines(core, tree, event: str) -> list[tuple[str, str]]:
    """(comm, the probe's text after its location) of each record of EVENT in `trace`"""
    core.drain.drain_once()
    out = []
    for line in tree.walk("trace").read().decode("latin-1").splitlines():
        found = LINE.match(line)
        if found and found.group(6) == event:
            out.append((found.group(1), found.group(7).split(") ", 1)[1]))
    return out


def test_file_open_and_inode_create_see_their_files(sim):
    m, core, tree = sim
    tree.walk("kprobe_events").write(b"p:lsm/fopen security_file_open name=+0(+40(+24($arg1))):string\n")
    tree.walk("kprobe_events").write(b"p:lsm/icreate security_inode_create name=+0(+40($arg2)):string mode=$arg3:x16\n")
    tree.walk("events/lsm/enable").write(b"1")
    out = []
    assert m.spawn(["fsop", "life", "/tmp/lsm-life"], out.append).wait(60) == 0, b"".join(out)
    tree.walk("events/lsm/enable").write(b"0")
    opens = probe_lines(core, tree, "fopen")
    creates = probe_lines(core, tree, "icreate")
    # the program's own open of the file it creates; none of "made" (mknod opens nothing)
    assert ("fsop", 'name="created"') in opens, opens
    assert not any('"made"' in text for _, text in opens), opens
    # mknod(S_IFREG) → vfs_create → security_inode_create, with the mode as the hook gets it
    # (S_IFREG | 0644 once the umask took its bits); open(O_CREAT) never reaches the hook
    assert creates == [("fsop", 'name="made" mode=0x81a4')], creates


def test_an_unprivileged_tasks_capability_check_fails(sim):
    """cap_capable's return value: 0 for root's checks; -EPERM for the child that became uid
    1000 and asks for CAP_FOWNER (a chmod of root's file) and CAP_KILL (a signal to init).  The
    mappings at 0 ask CAP_SYS_RAWIO in cap_mmap_addr, where Debian's 6.1 inlines cap_capable:
    no record of them, there as here."""
    m, core, tree = sim
    tree.walk("kprobe_events").write(b"p:lsm/capable cap_capable cap=$arg3:s32\n")
    tree.walk("kprobe_events").write(b"r:lsm/capret cap_capable ret=$retval:s32\n")
    tree.walk("events/lsm/enable").write(b"1")
    out = []
    assert m.spawn(["fsop", "cap", "/tmp/lsm-cap"], out.append).wait(60) == 0
    tree.walk("events/lsm/enable").write(b"0")
    text = b"".join(out).decode()
    assert "mmap(0, MAP_FIXED) as 1000 = -1" in text and "kill(1, 0) as 1000 = -1" in text, text
    asked = [text for comm, text in probe_lines(core, tree, "capable") if comm == "fsop"]
    answers = [text for comm, text in probe_lines(core, tree, "capret") if comm == "fsop"]
    assert len(asked) == len(answers), (asked, answers)
    pairs = list(zip(asked, answers))
    # root's setresuid (CAP_SETUID, 7) passes; the child's CAP_FOWNER (3) for root's file
    # fails, and so does its CAP_KILL (5) for init's pid
    assert ("cap=7", "ret=0") in pairs, pairs
    assert ("cap=3", f"ret={-EPERM}") in pairs, pairs
    assert ("cap=5", f"ret={-EPERM}") in pairs, pairs
    assert not any(cap == "cap=17" for cap, _ in pairs), pairs
