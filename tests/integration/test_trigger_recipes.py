"""Event triggers and the snapshot buffer through the mount: echo/cat on the trigger and
snapshot files, against what Linux 6.1 answers, with the triggers firing in the emulated
kernel at the event when guest programs make the system calls they are filtered on."""

import os
import re

import pytest
from simtest import REPO, quiet, tracefs_sim  # noqa: F401 (quiet: a fixture)

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "
GETUID = 102      # getuid's number: the programs' calls the filters pick
ENTER = "events/raw_syscalls/sys_enter/trigger"


def test_triggers_fire_at_the_event(quiet):
    run, guest = quiet

    assert run(f"cat {ENTER}") == ("# Available triggers:\n"
                                   "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n")
    # stacktrace: a kernel_stack record of the syscall's path, once
    assert run(f"echo 'stacktrace:1 if id == {GETUID}' > {ENTER}; cat {ENTER}; "
               "cat events/raw_syscalls/sys_enter/enable") == f"stacktrace:count=1 if id == {GETUID}\n0*\n"
    guest("getuid-loop", "3")
    assert run(f"cat {ENTER}") == f"stacktrace:count=0 if id == {GETUID}\n"
    lines = run("cat trace").splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith("<stack trace>"))
    assert re.match(CONTEXT + "<stack trace>$", lines[at]), lines
    # 6.1's, but for the __traceiter_sys_enter frame 6.1 shows while another probe is on it
    assert lines[at + 1:at + 4] == [" => trace_event_raw_event_sys_enter", " => syscall_trace_enter.constprop.0",
                                    " => do_syscall_64"], lines
    assert run(f"echo '!stacktrace' > {ENTER}; cat {ENTER}; cat events/raw_syscalls/sys_enter/enable").endswith(
        "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n0\n")

    # enable_event: the target in soft mode (0*) until the trigger fires (1*)
    assert run(f"echo > trace; echo 'enable_event:sched:sched_switch:1 if id == {GETUID}' > {ENTER}; "
               "cat events/sched/sched_switch/enable") == "0*\n"
    guest("getuid-loop", "2")
    assert run("cat events/sched/sched_switch/enable") == "1*\n"
    assert run(f"cat {ENTER}") == f"enable_event:sched:sched_switch:count=0 if id == {GETUID}\n"
    assert ": sched_switch: " in run("cat trace")
    assert run(f"echo '!enable_event:sched:sched_switch' > {ENTER}; echo 0 > events/sched/sched_switch/enable; "
               "cat events/sched/sched_switch/enable") == "0\n"

    # traceoff on a condition, then what led to it is in the buffer
    assert run(f"echo > trace; echo 1 > events/raw_syscalls/enable; "
               f"echo 'traceoff:1 if id == {GETUID}' > {ENTER}; cat tracing_on") == "1\n"
    guest("getuid-loop", "3")
    assert run("cat tracing_on") == "0\n"
    last = run("cat trace").splitlines()[-1]
    # traceoff is a post trigger: the getuid entry that fired it is recorded, nothing after it
    assert re.match(CONTEXT + rf"sys_enter: NR {GETUID} ", last), last
    assert run(f"cat {ENTER}") == f"traceoff:count=0 if id == {GETUID}\n"

    # errors: errno as 6.1, state unchanged
    for command, error in (("traceon", "File exists"), ("bogus", "Invalid argument"),
                           ("traceon if nosuchfield == 1", "Invalid argument"),
                           ("enable_event:sched:nosuch", "Invalid argument")):
        assert error in run(f"echo '{command}' > {ENTER}"), command
    assert run(f"cat {ENTER}") == f"traceoff:count=0 if id == {GETUID}\n"
    run(f"echo '!traceoff' > {ENTER}; echo 0 > events/raw_syscalls/enable; echo 1 > tracing_on")


def test_snapshot_file_and_trigger(quiet):
    run, guest = quiet

    assert run("cat snapshot") == (
        "# tracer: nop\n#\n#\n# * Snapshot is freed *\n#\n# Snapshot commands:\n"
        "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
        "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
        "#                      Takes a snapshot of the main buffer.\n"
        "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
        "#                      (Doesn't have to be '2' works with any number that\n"
        "#                       is not a '0' or '1')\n")
    assert "Invalid argument" in run("echo 1 > per_cpu/cpu0/snapshot")
    # echo 1 swaps: the snapshot holds what the trace held, the trace starts empty
    run("echo 1 > events/raw_syscalls/sys_enter/enable")
    guest("getuid-loop", "2")
    before = run("cat trace").count(f"NR {GETUID} ")
    assert before >= 2
    run("echo 1 > snapshot")
    assert run("cat snapshot").count(f"NR {GETUID} ") == before
    assert f"NR {GETUID} " not in run("cat trace")
    assert run("echo 2 > snapshot; cat snapshot").splitlines()[3] == "# * Snapshot is allocated *"

    # the snapshot trigger: the buffer as it was when the event happened, swapped at the event
    guest("getuid-loop", "1")                  # what the main buffer holds then: one getuid
    run(f"echo 'snapshot:1 if id == {GETUID}' > {ENTER}")
    guest("getuid-loop", "3")
    assert run(f"cat {ENTER}") == f"snapshot:count=0 if id == {GETUID}\n"
    # a filtered trigger runs on the record already reserved in the buffer it swaps out: the
    # snapshot ends with it (as real-tracefs shows for sched_switch), the rest go on in trace
    assert run("cat snapshot").count(f"NR {GETUID} ") == 2
    assert run("cat trace").count(f"NR {GETUID} ") == 2
    assert run("echo 0 > snapshot; cat snapshot").splitlines()[3] == "# * Snapshot is freed *"


def test_trigger_traceoff_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "trigger_traceoff.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[lines.index("== tracing_on after the first getuid:") + 1] == "0"
    fired = lines.index("== trigger after it fired:") + 1
    assert lines[fired] == 'traceoff:count=0 if id == 102 && comm == "getuid-loop"'
    last = lines[lines.index("== the last records:") + 1:]
    assert len(last) == 10, result.stdout
    # the getuid that turned tracing off (the filter picked the program's) is the last record of
    # its cpu; the other cpu's slice of the same moments may have run first, its records (with
    # later stamps) kept before tracing went off
    cpu_of = [re.match(r"^ *\S.*-\d+ +\[(\d{3})\]", line).group(1) for line in last]
    off = [i for i, line in enumerate(last) if re.match(CONTEXT + r"sys_enter: NR 102 ", line)]
    assert off and cpu_of[off[-1]] not in cpu_of[off[-1] + 1:], result.stdout


def test_snapshot_trigger_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "snapshot_sched_switch.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "# * Snapshot is allocated *" in lines[1:6], result.stdout
    assert lines[lines.index("== trigger:") + 1] == 'snapshot:count=0 if prev_state & 1 && prev_comm == "sleep"'
    # as on 6.1 (real-tracefs): the record that triggered the swap is the snapshot's last
    at = lines.index("== the snapshot ends with sleep's switch; the trace goes on after it:")
    assert int(lines[at + 1]) > 0, result.stdout
    assert re.match(CONTEXT + r"sched_switch: prev_comm=sleep .* prev_state=S ==>", lines[at + 2]), result.stdout


KPROBE = "events/kprobes/myuid/trigger"


@pytest.mark.parametrize("fetch", ["regs=%di", "nr=+120(%di):u64"])   # plain; a record the guest builds first
def test_triggers_on_a_kprobe_event(quiet, fetch):
    """kprobe_trace_func()'s triggers: in soft mode from the first trigger (0*), run by the
    guest's kprobe handler at the hit, with filters on the probe's own fields."""
    run, guest = quiet
    run(f"echo 'p:myuid __x64_sys_getuid {fetch}' > kprobe_events")
    assert run(f"cat {KPROBE}").startswith("# Available triggers:\n# traceon traceoff snapshot")

    # hist: one entry per task, the program's three calls
    assert run(f"echo 'hist:keys=common_pid.execname' > {KPROBE}; cat {KPROBE}; "
               "cat events/kprobes/myuid/enable") == \
        "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 [active]\n0*\n"
    guest("getuid-loop", "3")
    hist = run("cat events/kprobes/myuid/hist")
    assert hist.startswith("# event histogram\n#\n# trigger info: hist:keys=common_pid.execname:vals=hitcount:"
                           "sort=hitcount:size=2048 [active]\n#\n\n"), hist
    entry = [line for line in hist.splitlines() if "getuid-loop" in line]
    assert len(entry) == 1 and re.fullmatch(r"\{ common_pid: getuid-loop +\[ +\d+\] \} hitcount: +3", entry[0]), hist
    # soft mode: the event records nothing while only triggers hold it
    assert "myuid:" not in run("cat trace")

    # stacktrace and traceoff, filtered on the comm; the record itself once enabled
    # (the newest trigger runs first: the stack trace before tracing goes off)
    run(f"echo '!hist:keys=common_pid.execname' > {KPROBE}; echo 'traceoff:1 if comm == \"getuid-loop\"' > {KPROBE}; "
        f"echo 'stacktrace:1 if comm == \"getuid-loop\"' > {KPROBE}; echo 1 > events/kprobes/myuid/enable")
    assert run(f"cat {KPROBE}") == ('stacktrace:count=1 if comm == "getuid-loop"\n'
                                    'traceoff:count=1 if comm == "getuid-loop"\n')
    guest("getuid-loop", "3")
    assert run(f"cat {KPROBE}; cat tracing_on") == ('stacktrace:count=0 if comm == "getuid-loop"\n'
                                                  'traceoff:count=0 if comm == "getuid-loop"\n0\n')
    lines = run("cat trace").splitlines()
    mine = [i for i, line in enumerate(lines) if line.lstrip().startswith("getuid-loop-")]
    # the first call's record, its stack trace (post triggers: after the record); then nothing
    assert len(mine) == 2, lines
    assert re.match(CONTEXT + r"myuid: \(__(x64|do)_sys_getuid\+0x0/0x[0-9a-f]+\) ", lines[mine[0]]), lines
    assert re.match(CONTEXT + "<stack trace>$", lines[mine[1]]), lines
    assert " => entry_SYSCALL_64_after_hwframe" in lines[mine[1] + 1:], lines[mine[1]:]

    # enable_event from a kprobe event: the target soft-enabled until the probe fires
    run(f"echo '!traceoff' > {KPROBE}; echo '!stacktrace' > {KPROBE}; echo 1 > tracing_on; echo > trace; "
        f"echo 'enable_event:raw_syscalls:sys_exit:1 if comm == \"getuid-loop\"' > {KPROBE}")
    assert run("cat events/raw_syscalls/sys_exit/enable") == "0*\n"
    guest("getuid-loop", "2")
    assert run("cat events/raw_syscalls/sys_exit/enable") == "1*\n"
    assert re.search(r"getuid-loop-\d+ .* sys_exit: NR 102 = 0", run("cat trace")), run("cat trace")
    # the event in use by a trigger and enabled: EBUSY, as 6.1; then it goes
    assert "busy" in run("echo 0 > events/kprobes/myuid/enable; echo '-:myuid' >> kprobe_events").lower()
    run(f"echo '!enable_event:raw_syscalls:sys_exit' > {KPROBE}; echo 0 > events/raw_syscalls/sys_exit/enable")
    assert run("echo '-:myuid' >> kprobe_events; cat kprobe_events") == ""


def test_hist_stacktrace_key(quiet):
    """hist:keys=stacktrace: the stack of the event's caller, walked in the emulated kernel at
    the event, one entry per distinct stack."""
    run, guest = quiet
    assert run(f"echo 'hist:keys=stacktrace if id == {GETUID}' > {ENTER}; cat {ENTER}") == \
        f"hist:keys=stacktrace:vals=hitcount:sort=hitcount:size=2048 if id == {GETUID} [active]\n"
    guest("getuid-loop", "3")
    hist = run("cat events/raw_syscalls/sys_enter/hist")
    entries = hist.split("\n\n")[1].split("\n{ ")
    assert len(entries) == 1, hist
    lines = entries[0].splitlines()
    assert lines[0] == "{ stacktrace:", hist
    assert re.fullmatch(r"         do_syscall_64\+0x[0-9a-f]+/0x[0-9a-f]+", lines[1]), hist
    assert re.fullmatch(r"         entry_SYSCALL_64_after_hwframe\+0x[0-9a-f]+/0x[0-9a-f]+", lines[-2]), hist
    assert lines[-1] == "} hitcount:          3", hist
    assert "Invalid argument" in run(f"echo 'hist:keys=stacktrace.hex' > {ENTER}")
    run(f"echo '!hist:keys=stacktrace if id == {GETUID}' > {ENTER}")


def test_hist_on_a_kretprobe_event(quiet):
    """kretprobe_trace_func()'s triggers run at the return: a hist on $retval."""
    run, guest = quiet
    run("echo 'r:myret __x64_sys_getuid ret=$retval' > kprobe_events; "
        "echo 'hist:keys=ret:vals=hitcount if comm == \"getuid-loop\"' > events/kprobes/myret/trigger")
    guest("getuid-loop", "3")
    hist = run("cat events/kprobes/myret/hist")
    assert "\n{ ret:          0 } hitcount:          3\n" in hist, hist
    run("echo '!hist:keys=ret:vals=hitcount if comm == \"getuid-loop\"' > events/kprobes/myret/trigger; "
        "echo '-:myret' >> kprobe_events")
    assert run("cat kprobe_events") == ""


def test_enable_event_whose_target_is_a_kprobe_event(quiet):
    """6.1's event_enable_trigger() on a kprobe event: in soft mode (0*) until the trigger fires
    at the syscall's entry in the emulated kernel, then its probe records (1*) -- the same
    call's hit first, as the trigger runs before the probed function."""
    run, guest = quiet
    run("echo 'p:myuid __x64_sys_getuid' > kprobe_events; echo > trace; "
        f"echo 'enable_event:kprobes:myuid:1 if id == {GETUID}' > {ENTER}")
    assert run(f"cat {ENTER}; cat events/kprobes/myuid/enable") == \
        f"enable_event:kprobes:myuid:count=1 if id == {GETUID}\n0*\n"
    assert "myuid:" not in run("cat trace")
    guest("getuid-loop", "2")
    assert run(f"cat {ENTER}; cat events/kprobes/myuid/enable") == \
        f"enable_event:kprobes:myuid:count=0 if id == {GETUID}\n1*\n"
    mine = [line for line in run("cat trace").splitlines() if re.match(CONTEXT + "myuid: ", line)
            and line.lstrip().startswith("getuid-loop-")]
    assert len(mine) == 2, run("cat trace")
    # held by the trigger: EBUSY; the trigger gone, the event stays on (it fired) until echo 0
    assert "busy" in run("echo '-:myuid' >> kprobe_events").lower()
    assert run(f"echo '!enable_event:kprobes:myuid' > {ENTER}; cat events/kprobes/myuid/enable") == "1\n"
    assert run("echo 0 > events/kprobes/myuid/enable; echo '-:myuid' >> kprobe_events; cat kprobe_events") == ""


EPROBE = "events/eprobes/myep/trigger"


def test_triggers_on_an_eprobe_event(quiet):
    """An eprobe's record runs its own triggers in the emulated kernel (6.1's
    __eprobe_trace_func() goes through trace_trigger_soft_disabled()): the first trigger holds
    it in soft mode (0*, the attached event too), a hist on its fetched field counts the
    program's calls, traceoff and stacktrace fire on its filter; the eprobe as the target of
    an enable_event trigger on another event."""
    run, guest = quiet
    run("echo 'e:myep raw_syscalls.sys_enter nr=$id:u64' >> dynamic_events")
    assert run(f"cat {EPROBE}").startswith("# Available triggers:\n# traceon traceoff snapshot")
    assert run(f"echo 'hist:keys=nr:vals=hitcount if nr == {GETUID}' >> {EPROBE}; cat {EPROBE}; "
               "cat events/eprobes/myep/enable; cat events/raw_syscalls/sys_enter/enable") == \
        f"hist:keys=nr:vals=hitcount:sort=hitcount:size=2048 if nr == {GETUID} [active]\n0*\n0*\n"
    guest("getuid-loop", "3")
    hist = run("cat events/eprobes/myep/hist")
    assert f"\n{{ nr:        {GETUID} }} hitcount:          3\n" in hist, hist
    assert "myep:" not in run("cat trace")      # soft mode: no record of its own

    run(f"echo '!hist:keys=nr:vals=hitcount if nr == {GETUID}' >> {EPROBE}; "
        f"echo 'traceoff:1 if nr == {GETUID}' >> {EPROBE}; echo 'stacktrace:1 if nr == {GETUID}' >> {EPROBE}; "
        "echo 1 > events/eprobes/myep/enable")
    guest("getuid-loop", "3")
    assert run(f"cat {EPROBE}; cat tracing_on") == (f"stacktrace:count=0 if nr == {GETUID}\n"
                                                    f"traceoff:count=0 if nr == {GETUID}\n0\n")
    lines = run("cat trace").splitlines()
    at = next(i for i, line in enumerate(lines) if re.match(CONTEXT + rf"myep: \(raw_syscalls.sys_enter\) nr={GETUID}$", line))
    # the record, then its stack trace (post triggers); nothing after them
    assert re.match(CONTEXT + "<stack trace>$", lines[at + 1]), lines[at:]
    assert not any(": myep: " in line for line in lines[at + 1:]), lines[at:]
    run(f"echo '!traceoff' >> {EPROBE}; echo '!stacktrace' >> {EPROBE}; echo 0 > events/eprobes/myep/enable; "
        "echo 1 > tracing_on; echo > trace")
    assert run("cat events/eprobes/myep/enable; cat events/raw_syscalls/sys_enter/enable") == "0\n0\n"

    # the target of enable_event from a kprobe event: soft mode, then it records
    run("echo 'p:myuid __x64_sys_getuid' >> kprobe_events; "
        "echo 'enable_event:eprobes:myep:1 if comm == \"getuid-loop\"' > events/kprobes/myuid/trigger")
    assert run("cat events/eprobes/myep/enable") == "0*\n"
    guest("getuid-loop", "2")
    assert run("cat events/eprobes/myep/enable") == "1*\n"
    mine = [line for line in run("cat trace").splitlines() if re.match(CONTEXT + rf"myep: .* nr={GETUID}$", line)
            and line.lstrip().startswith("getuid-loop-")]
    assert len(mine) == 1, run("cat trace")     # the second call's: the first fired it after its entry
    run("echo '!enable_event:eprobes:myep' > events/kprobes/myuid/trigger; echo 0 > events/eprobes/myep/enable; "
        "echo '-:myuid' >> kprobe_events; echo '-:eprobes/myep' >> dynamic_events")
    assert run("cat dynamic_events") == ""


def test_records_triggers_write_follow_the_triggering_record(quiet):
    """6.1 runs a record's hist and eprobe triggers with the record reserved, so what they write
    follows it in the buffer: each of the program's sys_enter records, then its eprobe's."""
    run, guest = quiet
    run("echo 'e:myep raw_syscalls.sys_enter nr=$id:u64' >> dynamic_events; "
        "echo 1 > events/raw_syscalls/sys_enter/enable; echo 1 > events/eprobes/myep/enable")
    guest("getuid-loop", "3")
    run("echo 0 > events/eprobes/myep/enable; echo 0 > events/raw_syscalls/sys_enter/enable")
    lines = [line for line in run("cat trace").splitlines() if re.match(r"^ *getuid-loop-\d+ ", line)]
    getuid = [i for i, line in enumerate(lines) if re.search(rf" sys_enter: NR {GETUID} ", line)]
    assert len(getuid) == 3, lines
    assert all(re.search(rf": myep: \(raw_syscalls.sys_enter\) nr={GETUID}$", lines[i + 1]) for i in getuid), lines
    run("echo '-:eprobes/myep' >> dynamic_events")
    assert run("cat dynamic_events") == ""


def test_hist_stacktrace_starts_where_61s_does(quiet):
    """6.1's stacktrace key skips HIST_STACKTRACE_SKIP frames: past the event's host when its
    tracepoint has one probe (a static call from the host), at the host when it has more (the
    probes run from __traceiter_*: sched_switch while the saved-cmdlines probe is on it). So
    kmem:kmalloc's stacktrace trigger shows its writer, the host and the host's callers (a
    6-argument event, whose writer calls its slow path: no frame twice, none missing), and the
    hist key of the same allocations starts at the host's caller."""
    run, guest = quiet
    run("echo stacktrace > events/kmem/kmalloc/trigger; "
        "echo 'hist:keys=stacktrace' > events/kmem/kmalloc/trigger; "
        "echo 'hist:keys=stacktrace' > events/sched/sched_switch/trigger")
    guest("true")
    run("echo 0 > tracing_on")
    stacks = []
    for block in run("cat trace").split("<stack trace>\n")[1:]:
        lines = block.splitlines()
        stacks.append([line[4:] for line in lines[:next((i for i, line in enumerate(lines)
                                                          if not line.startswith(" => ")), len(lines))]])
    assert stacks and all(s[0] == "trace_event_raw_event_kmalloc" and s[1] != s[0] for s in stacks), stacks

    def keys(event):
        entries = run(f"cat events/{event}/hist").split("{ stacktrace:\n")[1:]
        return [[line.split("+")[0].strip() for line in entry.split("}")[0].splitlines()] for entry in entries]
    kmalloc = keys("kmem/kmalloc")
    assert kmalloc and all(any(key[:len(s) - 2] == s[2:len(key) + 2] for s in stacks) for key in kmalloc), \
        (kmalloc, stacks)
    switch = keys("sched/sched_switch")
    assert switch and all(key[0] == "__schedule" for key in switch), switch
