"""mount(2) and umount2(2) (kernel_model/fs/namespace.c), driven by the guest program `mountop`
(kernel_model/user/mountop.c): a tmpfs mounted on a new directory, written, seen in
/proc/self/mounts; bind mounts, read-only remounts (EROFS, EBUSY with a file open for writing),
propagation types in /proc/self/mountinfo, a move, umounts (EBUSY with a file open or a mount on
it, MNT_DETACH, MNT_EXPIRE) and the errors.  The expected output is what the same static binary
printed on a real Linux 6.1 (shared/tools/real-tracefs, in its /tmp)."""
import pytest


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


EXPECTED = """\
mkdir D/a = 0
mount(tmpfs, D/a, tmpfs, MS_NOSUID, mode=750) = 0
D/a mode 488, another device than D: 1
write D/a/f = 5
mkdir D/a/sub = 0
write D/a/sub/g = 6
mounts after the tmpfs:
  tmpfs D/a tmpfs rw,nosuid,relatime,mode=750
mkdir D/b = 0
mount(D/a, D/b, MS_BIND) = 0
D/b/f: 'hello'
mkdir D/c = 0
mount(D/a/sub, D/c, MS_BIND) = 0
D/c/g: 'in sub'
mount(D/nonexistent, D/c, MS_BIND) = -2
mount("", D/c, MS_BIND) = -22
mount(D/b, MS_REMOUNT|MS_BIND|MS_RDONLY) = 0
write D/b/f2 = -30
write D/a/f2 = 1
open D/a/f2 for writing = 0
mount(D/a, MS_REMOUNT|MS_RDONLY) with a file open for writing = -16
mount(D/a, MS_REMOUNT|MS_RDONLY) = 0
write D/a/f3 = -30
mount(D/c, MS_REMOUNT|MS_BIND) (rw) = 0
write D/c/h (its file system read-only) = -30
mount(D/a, MS_REMOUNT, mode=700) = 0
write D/a/f3 = 1
mount(D/a/sub, MS_REMOUNT) (not a mount's root) = -22
mount(D/a, MS_REMOUNT, ro,sync) = 0
mounts after the remounts:
  tmpfs D/a tmpfs ro,sync,relatime,mode=750
  tmpfs D/b tmpfs ro,sync,relatime,mode=750
  tmpfs D/c tmpfs ro,sync,relatime,mode=750
mount(D/a, MS_REMOUNT|MS_STRICTATIME|MS_NOEXEC) = 0
mounts after the rw remount:
  tmpfs D/a tmpfs rw,noexec,mode=750
  tmpfs D/b tmpfs ro,relatime,mode=750
  tmpfs D/c tmpfs rw,relatime,mode=750
mount(D/a, MS_SHARED) = 0
mkdir D/d = 0
mount(D/a, D/d, MS_BIND) = 0
mount(D/d, MS_SLAVE) = 0
mount(D/c, MS_UNBINDABLE) = 0
mountinfo after the propagation types:
  / D/a rw,noexec shared - tmpfs tmpfs rw,mode=750
  / D/b ro,relatime - tmpfs tmpfs rw,mode=750
  /sub D/c rw,relatime unbindable - tmpfs tmpfs rw,mode=750
  / D/d rw,noexec master - tmpfs tmpfs rw,mode=750
mount(D/c, D/b, MS_BIND) (unbindable) = -22
mount(D/a, MS_SHARED|MS_PRIVATE) = -22
mount(D/a/sub, MS_PRIVATE) (not a mount's root) = -22
mount(D/a, MS_PRIVATE) = 0
mount(D/c, MS_PRIVATE) = 0
umount2(D/d) = 0
mountinfo after private:
  / D/a rw,noexec - tmpfs tmpfs rw,mode=750
  / D/b ro,relatime - tmpfs tmpfs rw,mode=750
  /sub D/c rw,relatime - tmpfs tmpfs rw,mode=750
mkdir D/m = 0
mount(D/b, D/m, MS_MOVE) = 0
D/m/f: 'hello'
D/b on D's device again: 1
mount(D/a/sub, D/b, MS_MOVE) (not a mount's root) = -22
mount(D/m, D/m/sub, MS_MOVE) (under itself) = -40
mount(D, D/b, MS_MOVE) (not a mount) = -22
umount2(D/c) with a file open = -16
umount2(D/c, MNT_FORCE) with a file open = -16
umount2(D/c) = 0
umount2(D/c) again = -22
D/c on D's device again: 1
umount2(D/m, MNT_EXPIRE) = -11
umount2(D/m, MNT_EXPIRE) again = 0
umount2(D/m, MNT_EXPIRE|MNT_DETACH) = -22
symlink D/l -> a = 0
umount2(D/l, UMOUNT_NOFOLLOW) = -22
mkdir D/a/sub2 = 0
mount(tmpfs, D/a/sub2, tmpfs) = 0
write D/a/sub2/i = 5
umount2(D/a) with a mount on it = -16
mounts before the lazy umount:
  tmpfs D/a tmpfs rw,noexec,mode=750
  inner D/a/sub2 tmpfs rw,relatime
umount2(D/a, MNT_DETACH) with a file open below = 0
mounts after the lazy umount:
read the open file after = 5
D/a on D's device again: 1
umount2(D/a) = -22
mount(x, D/a, nosuchfs) = -19
mount(x, D/a, NULL type) = -22
mount(x, D/nonexistent, tmpfs) = -2
write D/file = 1
mount(x, D/file, tmpfs) = -20
mount(x, D/a, tmpfs, bogus=1) = -22
mount(x, D/a, tmpfs, nosuid) (a flag as an option) = -22
mount(x, D/a, tmpfs, mode=9) = -22
mount(x, D/a, pipefs) = -22
mount(x, D/a, proc, hidepid=x) = -22
mount(x, D/a, tmpfs, bad address) = -14
umount2(D/a) (not a mount) = -22
umount2(D/nonexistent) = -2
umount2(D/a, 0x100) = -22
mount as uid 1000 = -1
umount2 as uid 1000 = -1
mount(t, D/a, tmpfs, MS_NOSYMFOLLOW) = 0
write D/a/f = 4
symlink D/a/l -> f = 0
D/a/l: -40
statfs(D/a) = 0
f_flags x
mkdir D/a/s = 0
mount(u, D/a/s, tmpfs, MS_RDONLY) = 0
mount(D/a, D/b, MS_BIND|MS_REC) = 0
mounts after the recursive bind:
  t D/a tmpfs rw,relatime,nosymfollow
  u D/a/s tmpfs ro,relatime
  t D/b tmpfs rw,relatime,nosymfollow
  u D/b/s tmpfs ro,relatime
write D/b/s/x (read-only there too) = -30
umount2(D/b) with a mount on it = -16
umount2(D/b, MNT_DETACH) = 0
umount2(D/a/s) = 0
umount2(D/a) = 0
mounts after their umounts:
mount(proc, D/a, proc, MS_NOSUID|MS_NOEXEC) = 0
D/a/self/mounts there: 1
mounts with proc:
  proc D/a proc rw,nosuid,noexec,relatime
umount2(D/a) = 0
mount(devtmpfs, D/a, devtmpfs) = 0
D/a/null is /dev's: 1
umount2(D/a) = 0
pivot_root(D, D) (the root attached nowhere) = -22
mkdir D/r = 0
write D/marker = 8
mount(D, D, MS_BIND) = 0
mount(r, D/r, tmpfs) = 0
mkdir D/r/old = 0
chdir D = 0
chroot . = 0
pivot_root(r/old, r) (not a mount) = -22
pivot_root(r, marker) (not a directory) = -20
pivot_root(r, r/old) = 0
/old/marker: 'old root'
/marker: -2
marker (the cwd moved too): -2
umount2(/old, MNT_DETACH) = 0
umount2(/) (the root) = 0
mounts after pivot_root:
umount2(D, MNT_DETACH) = 0
mounts at the end:
"""


def test_mount_calls_give_what_linux_6_1_gives(machine, run_program):
    status, out = run_program(machine, ["mountop", "/tmp/mt"], timeout=120)
    assert status == 0, out
    assert out.decode().splitlines() == EXPECTED.splitlines()


def test_the_boot_tree_is_whole_after_the_guest_left(machine, run_program):
    """What a guest mounted and unmounted leaves the mounts as they were: /proc/mounts the
    same before and after, the kernel's tmpfs still on /tmp."""
    status, before = run_program(machine, ["cat", "/proc/self/mounts"])
    assert status == 0
    status, out = run_program(machine, ["mountop", "/tmp/mt2"], timeout=120)
    assert status == 0, out
    status, after = run_program(machine, ["cat", "/proc/self/mounts"])
    assert status == 0
    assert after == before
    assert b" /tmp tmpfs " in after


def test_mountinfo_lists_the_tree_with_its_parents(machine, run_program):
    """/proc/self/mountinfo: each mount's id, its parent's, its device, its root and mount
    point, its options, " - ", type, source and super block options; the reader's "/" first
    and every other line's parent one listed before it."""
    status, out = run_program(machine, ["cat", "/proc/self/mountinfo"])
    assert status == 0
    lines = out.decode().splitlines()
    fields = [line.split() for line in lines]
    assert all(len(f) >= 10 and f[f.index("-") + 3] in ("ro", "rw") or
               f[f.index("-") + 3].startswith(("ro,", "rw,")) for f in fields), lines
    assert fields[0][4] == "/" and fields[0][0] == fields[0][1]
    seen = set()
    for f in fields:
        assert f[0] == f[1] or f[1] in seen, lines
        seen.add(f[0])
    assert any(f[4] == "/tmp" and f[f.index("-") + 1] == "tmpfs" for f in fields), lines
