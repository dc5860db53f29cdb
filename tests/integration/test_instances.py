"""Trace instances through the mounted filesystem, with real mkdir/echo/cat/rmdir: many of
them at once, each recording its own events, and their buffers (the emulated kernel's memory,
allocated at mkdir and freed at rmdir) given back.  Linux 6.1 bounds instances by memory alone;
here by that and the 510 slots of the kernel's masks (TRACE_SLOTS less the top level's and
word 0's summary bit: the 511th mkdir is ENOMEM where memory has not run out first)."""
import re

from tests.integration.simtest import sh, tracefs_sim, wait_until

INSTANCES = 40
MANY = 300          # past word 0 of the kernel's masks (slots 64 and up)
CPUS = 2
RING_KB = 256       # a ring of TRACE_RING_PAGES (64) pages per online CPU


def mem_free_kb(mnt) -> int:
    """MemFree of the emulated kernel's /proc/meminfo, read by a program it runs."""
    result = tracefs_sim("exec", "--mount", str(mnt), "cat", "/proc/meminfo", timeout=60)
    assert result.returncode == 0, result.stderr
    return int(re.search(r"^MemFree:\s+(\d+) kB$", result.stdout, re.M).group(1))


def run(mnt, script: str, timeout: float = 120):
    result = sh(mnt, script, timeout=timeout)
    return result.returncode, result.stdout, result.stderr


def test_forty_instances_record_their_own_events_and_give_their_memory_back(mount_at):
    mnt = mount_at("--cpus", str(CPUS))
    free_before = mem_free_kb(mnt)
    code, _, err = run(mnt, f"for i in $(seq 1 {INSTANCES}); do mkdir instances/i$i || exit 1; done")
    assert code == 0, err
    code, out, _ = run(mnt, "ls instances")
    assert sorted(out.split()) == sorted(f"i{i}" for i in range(1, INSTANCES + 1))
    # each instance's rings are the kernel's memory now: some 0.5 MB each on 2 CPUs
    used = free_before - mem_free_kb(mnt)
    assert used >= INSTANCES * CPUS * RING_KB * 9 // 10, (free_before, used)

    # sched_switch in every odd instance, syscalls:sys_enter_getuid in every fourth (even: the
    # switches of the machine's workload do not push its few records out of a small buffer)
    odd = range(1, INSTANCES + 1, 2)
    fourth = range(4, INSTANCES + 1, 4)
    code, _, err = run(mnt, " && ".join(
        [f"echo 1 > instances/i{i}/events/sched/sched_switch/enable" for i in odd] +
        [f"echo 1 > instances/i{i}/events/syscalls/sys_enter_getuid/enable" for i in fourth]))
    assert code == 0, err
    result = tracefs_sim("exec", "--mount", str(mnt), "getuid-loop", "3", timeout=60)
    assert result.returncode == 0, result.stderr

    def traces() -> dict[str, str]:
        """Every instance's `trace` and the top level's, by cat."""
        code, out, err = run(mnt, f'cat trace; for i in $(seq 1 {INSTANCES}); do echo "== i$i"; '
                                  f'cat instances/i$i/trace || exit 1; done')
        assert code == 0, err
        parts = re.split(r"^== (i\d+)\n", out, flags=re.M)
        return {"top": parts[0], **dict(zip(parts[1::2], parts[2::2]))}

    assert wait_until(lambda: all("sched_switch:" in t for name, t in traces().items()
                                  if name != "top" and int(name[1:]) % 2), 30)
    assert wait_until(lambda: all("sys_getuid()" in traces()[f"i{i}"] for i in fourth), 30)
    got = traces()
    for i in range(1, INSTANCES + 1):
        assert ("sched_switch:" in got[f"i{i}"]) == (i % 2 == 1), i
        assert ("sys_getuid()" in got[f"i{i}"]) == (i % 4 == 0), i
    assert "sched_switch:" not in got["top"] and "sys_getuid" not in got["top"]   # the top level records neither

    code, _, err = run(mnt, f"for i in $(seq 1 {INSTANCES}); do rmdir instances/i$i || exit 1; done")
    assert code == 0, err
    assert run(mnt, "ls instances")[1] == ""
    # the kernel frees the buffers after a grace period
    assert wait_until(lambda: mem_free_kb(mnt) >= free_before - 4 * 1024, 30), (free_before, mem_free_kb(mnt))


def test_three_hundred_instances_record_their_own_events_functions_and_probes(mount_at):
    """Instances past word 0 of the kernel's masks: the last ones each record what they enable
    (a syscall event, the function tracer, a kprobe event with a stacktrace trigger), in their
    own `trace` only; then rmdir takes them all down and they can all be made again."""
    mnt = mount_at("--cpus", str(CPUS), "--workload", "none")
    free_before = mem_free_kb(mnt)
    make = f"for i in $(seq 1 {MANY}); do mkdir instances/i$i || exit 1; done"
    code, _, err = run(mnt, make)
    assert code == 0, err
    event, function, probe = (f"instances/i{i}" for i in range(MANY - 2, MANY + 1))
    code, _, err = run(mnt, f"echo 1 > {event}/events/syscalls/sys_enter_getuid/enable"
                            f" && echo vfs_read > {function}/set_ftrace_filter && echo function > {function}/current_tracer"
                            f" && echo 'p:kprobes/inst_read vfs_read' >> kprobe_events"
                            f" && echo 1 > {probe}/events/kprobes/inst_read/enable"
                            f" && echo stacktrace > {probe}/events/kprobes/inst_read/trigger")
    assert code == 0, err
    for argv in (["getuid-loop", "3"], ["cat", "/etc/hostname"]):
        result = tracefs_sim("exec", "--mount", str(mnt), *argv, timeout=60)
        assert result.returncode == 0, result.stderr

    marks = {"event": "sys_getuid()", "function": "vfs_read <-", "probe": "inst_read: (vfs_read+0x0",
             "trigger": "<stack trace>"}
    where = {"event": event, "function": function, "probe": probe, "trigger": probe}

    def traces() -> dict[str, str]:
        names = list(dict.fromkeys(["trace", f"instances/i{MANY - 3}/trace", "instances/i1/trace",
                                    *(f"{d}/trace" for d in where.values())]))
        code, out, err = run(mnt, " ".join(f"cat {n}; echo '=='; " for n in names))
        assert code == 0, err
        return dict(zip(names, out.split("==\n")))

    assert wait_until(lambda: all(marks[k] in traces()[f"{d}/trace"] for k, d in where.items()), 30)
    got = traces()
    for name, text in got.items():
        for kind, mark in marks.items():
            assert (mark in text) == (name == f"{where[kind]}/trace"), (name, kind)

    # (the rmdir of the probe's instance takes its trigger: the event can go)
    code, out, err = run(mnt, f"for i in $(seq 1 {MANY}); do rmdir instances/i$i || exit 1; done"
                              f" && echo '-:kprobes/inst_read' >> kprobe_events && ls instances")
    assert (code, out) == (0, ""), err
    assert wait_until(lambda: mem_free_kb(mnt) >= free_before - 4 * 1024, 30), (free_before, mem_free_kb(mnt))
    code, _, err = run(mnt, make)   # every slot given back
    assert code == 0, err
    code, out, err = run(mnt, f"ls instances | wc -l; cat {function}/current_tracer {event}/events/syscalls/sys_enter_getuid/enable")
    assert (code, out) == (0, f"{MANY}\nnop\n0\n"), err


def test_instances_until_memory_runs_out_then_enomem_again_and_again(mount_at):
    """With little memory, instances past word 0 are made until the kernel cannot allocate the
    next one's buffers: ENOMEM, nothing made; the same number again once all are removed."""
    mnt = mount_at("--cpus", str(CPUS), "--workload", "none", "--mem", "96")
    made = []
    for _ in range(2):
        code, out, err = run(mnt, "i=0; while mkdir instances/n$((i + 1)) 2>/dev/null; do i=$((i + 1)); done;"
                                  " echo $i; mkdir instances/n$((i + 1))")
        assert code != 0 and "Cannot allocate memory" in err
        n = int(out)
        made.append(n)
        assert f"n{n + 1}" not in run(mnt, "ls instances")[1].split()
        # 6.1 (2 CPUs): each new instance at trace_buf_size, the top level still unexpanded
        code, out, err = run(mnt, f"cat instances/n1/buffer_size_kb instances/n{n}/buffer_total_size_kb"
                                  f" instances/n{n}/per_cpu/cpu1/buffer_size_kb buffer_size_kb")
        assert (code, out) == (0, "1410 (expanded: 1408)\n2820 (expanded: 2816)\n1410\n7 (expanded: 1408)\n"), err
        # what 6.1 says of an instance that exists, as before
        code, _, err = run(mnt, "mkdir instances/n1")
        assert code != 0 and "File exists" in err
        code, _, err = run(mnt, f"for i in $(seq 1 {n}); do rmdir instances/n$i || exit 1; done")
        assert code == 0, err
        # the buffers go back after a grace period
        assert wait_until(lambda: run(mnt, f"mkdir instances/n1 && rmdir instances/n1")[0] == 0, 30)
    assert made[0] > 62 and abs(made[1] - made[0]) <= 1, made
    code, out, err = run(mnt, "mkdir instances/last && echo 1 > instances/last/events/sched/sched_switch/enable"
                              " && cat instances/last/events/sched/sched_switch/enable && rmdir instances/last")
    assert (code, out) == (0, "1\n"), err
