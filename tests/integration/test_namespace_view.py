"""The generated files laid over /proc and /sys inside a session."""

from tracefs_sim.namespace import cpu_list, mounts_view

HOST = """\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/debug/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /tmp/other fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0,allow_other 0 0
tracefs /sys/kernel/tracing fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0,allow_other 0 0
tracefs-sim /sys/kernel/debug tmpfs rw,nosuid,nodev,noexec,relatime,mode=700 0 0
tracefs /sys/kernel/debug/tracing fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0
"""


def test_mounts_view_shows_only_the_simulator_as_tracefs():
    assert mounts_view(HOST) == """\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/debug/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
"""


def test_mounts_view_keeps_unrelated_nested_mounts():
    text = "a / ext4 rw 0 0\nb /sys/kernel/debugfoo tmpfs rw 0 0\nc /sys/kernel/debug tmpfs rw 0 0\n"
    assert mounts_view(text) == text


def test_cpu_list_format():
    assert [cpu_list(n) for n in (1, 2, 8)] == ["0\n", "0-1\n", "0-7\n"]
