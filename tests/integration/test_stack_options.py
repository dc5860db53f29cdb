"""options/stacktrace, userstacktrace and sym-userobj through the mount, with echo and cat, the
stacks taken in the emulated kernel by the events' writers as 6.1's
trace_buffer_unlock_commit_regs() takes them (real 6.1's outputs: the comments)."""

import os
import re
import subprocess

import pytest
from simtest import REPO, TRACEFS_SIM, quiet, tracefs_sim, wait_until  # noqa: F401 (quiet: a fixture)

pytestmark = [pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                 reason="needs /dev/fuse, root and mount namespaces"),
              pytest.mark.timeout(240)]

CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "
GETUID = 102


def records(trace: str) -> list[tuple[str, list[str]]]:
    """(a record's text after its context, the ` => ` lines after it) of a trace."""
    out: list[tuple[str, list[str]]] = []
    for line in trace.splitlines():
        if line.startswith("#"):
            continue
        if line.startswith(" => "):
            out[-1][1].append(line[4:])
            continue
        match = re.match(CONTEXT + "(.*)$", line)
        assert match, line
        out.append((match.group(1), []))
    return out


def test_options_listed_and_toggled(quiet):
    run, _ = quiet
    options = run("cat trace_options").split()
    # 6.1's order (trace_options[] of trace.c)
    assert options[options.index("annotate") + 1:options.index("annotate") + 3] == ["nouserstacktrace", "nosym-userobj"]
    assert options[options.index("nodisplay-graph") + 1] == "nostacktrace"
    assert run("echo stacktrace > trace_options; echo 1 > options/userstacktrace; echo sym-userobj > trace_options; "
               "cat options/stacktrace options/userstacktrace options/sym-userobj") == "1\n1\n1\n"
    assert "stacktrace\nnotest_nop_accept" in run("cat trace_options")
    # an instance takes the top level's options when made, and has their files
    assert run("mkdir instances/st; cat instances/st/options/stacktrace instances/st/options/userstacktrace") == "1\n1\n"
    assert run("echo nostacktrace > trace_options; echo nouserstacktrace > trace_options; "
               "echo nosym-userobj > trace_options; cat options/stacktrace options/userstacktrace "
               "options/sym-userobj instances/st/options/stacktrace; rmdir instances/st") == "0\n0\n0\n1\n"
    assert "Invalid argument" in run("echo 2 > options/stacktrace")
    # the blk tracer's options: the top level's (instances cannot select it)
    assert run("cat options/blk_classic; mkdir instances/bt; ls instances/bt/options | grep -c blk_; "
               "rmdir instances/bt") == "0\n0\n"


def test_stacktrace_after_each_event(quiet):
    run, guest = quiet
    run("echo 1 > options/stacktrace; echo 1 > events/sched/sched_switch/enable")
    guest("getuid-loop", "3")
    run("echo 0 > events/sched/sched_switch/enable")
    recs = records(run("cat trace"))
    switches = [i for i, (text, _) in enumerate(recs) if text.startswith("sched_switch: ")]
    assert switches
    for i in switches:
        # 6.1:  => trace_event_raw_event_sched_switch / => __traceiter_sched_switch / => __schedule ...
        # (this kernel calls the writer from __schedule directly: no __traceiter_ frame)
        text, frames = recs[i + 1]
        assert text == "<stack trace>" and frames[:2] == ["trace_event_raw_event_sched_switch", "__schedule"], recs[i:i + 2]
    assert sum(text == "<stack trace>" for text, _ in recs) == len(switches)
    # the context of the stack is the event's (trace_ctx)
    lines = [line for line in run("cat trace").splitlines() if not line.startswith(("#", " =>"))]
    assert lines[1].split()[:3] == lines[0].split()[:3]
    # raw: 6.1 has no raw printer for kernel_stack (trace_nop_print)
    assert re.search(r"^\d+ \d+ \d+ type: 4$", run("echo 1 > options/raw; cat trace; echo 0 > options/raw"), re.M)
    run("echo 0 > options/stacktrace; echo > trace")

    # an instance's option: its buffer gets the stacks, the top level's (the same event on) none
    run("mkdir instances/st; echo 1 > instances/st/options/stacktrace; "
        "echo 1 > instances/st/events/sched/sched_switch/enable; echo 1 > events/sched/sched_switch/enable")
    guest("getuid-loop", "2")
    run("echo 0 > instances/st/events/sched/sched_switch/enable; echo 0 > events/sched/sched_switch/enable")
    mine, top = records(run("cat instances/st/trace")), records(run("cat trace"))
    assert top and all(text.startswith("sched_switch: ") for text, _ in top)
    assert [text == "<stack trace>" for text, _ in mine] == [False, True] * (len(mine) // 2) and mine
    run("rmdir instances/st; echo > trace")


def test_stacktrace_with_filters(quiet):
    run, guest = quiet
    # an event filter: the stacks of the events it discards are gone with them
    run(f"echo 1 > options/stacktrace; echo 'id == {GETUID}' > events/raw_syscalls/sys_enter/filter; "
        "echo 1 > events/raw_syscalls/sys_enter/enable")
    guest("getuid-loop", "3")
    run("echo 0 > events/raw_syscalls/sys_enter/enable; echo 0 > events/raw_syscalls/sys_enter/filter")
    recs = records(run("cat trace"))
    assert [text.split("(")[0] for text, _ in recs] == ["sys_enter: NR 102 ", "<stack trace>"] * 3, recs
    assert recs[1][1][:3] == ["trace_event_raw_event_sys_enter", "syscall_trace_enter.constprop.0", "do_syscall_64"]
    # the function tracer, filtered to one function: 6.1's trace_function() takes no stack for
    # the option (func_stack_trace is the function tracer's); a kprobe event's record does
    fn = "__do_sys_getuid"
    assert "Invalid" not in run(f"echo > trace; echo {fn} > set_ftrace_filter; echo function > current_tracer")
    guest("getuid-loop", "2")
    run("echo 0 > tracing_on")
    recs = records(run("cat trace"))
    assert [text for text, _ in recs] == [f"{fn} <-do_syscall_64"] * 2, recs
    run("echo nop > current_tracer; echo > set_ftrace_filter; echo 1 > tracing_on")
    run(f"echo 'p:mygetuid {fn}' > kprobe_events; echo 1 > events/kprobes/mygetuid/enable")
    guest("getuid-loop", "1")
    run("echo 0 > events/kprobes/mygetuid/enable")
    recs = records(run("cat trace"))     # (read before the event goes: its removal resets the buffers)
    assert [text.split("+")[0] for text, _ in recs] == [f"mygetuid: ({fn}", "<stack trace>"], recs
    # 6.1 walks from the probe's regs ( => __do_sys_getuid / => do_syscall_64 / => entry_SYSCALL_64...)
    assert recs[1][1] == [fn, "do_syscall_64", "entry_SYSCALL_64_after_hwframe"], recs
    # a kretprobe's from the return into the caller (6.1: `myr: (do_syscall_64+0x5d/0xb0 <-
    # ksys_read)` then ` => do_syscall_64` / ` => entry_SYSCALL_64_after_hwframe`)
    run(f"echo > kprobe_events; echo 'r:myret {fn}' > kprobe_events; echo 1 > events/kprobes/myret/enable")
    guest("getuid-loop", "1")
    run("echo 0 > events/kprobes/myret/enable")
    recs = records(run("cat trace"))
    assert [text.split(" (")[0] for text, _ in recs] == ["myret:", "<stack trace>"], recs
    assert recs[1][1] == ["do_syscall_64", "entry_SYSCALL_64_after_hwframe"], recs
    run("echo > kprobe_events; echo 0 > options/stacktrace")


def test_a_probes_stacktrace_trigger_crosses_into_the_probed_context(quiet):
    """The stacktrace trigger of a kprobe event walks from where it runs: the tracer's own frames,
    then, past the registers the probe's entry saved, the probed function and its callers. Real
    6.1: ` => kprobe_trace_func / kprobe_dispatcher / kprobe_ftrace_handler / 0xffffffffc02010c8 /
    vfs_read / ksys_read / do_syscall_64 / entry_SYSCALL_64_after_hwframe`."""
    run, guest = quiet
    run("echo 'p:ptw vfs_read' > kprobe_events; echo stacktrace > events/kprobes/ptw/trigger; "
        "echo 1 > events/kprobes/ptw/enable")
    guest("cat", "/etc/hostname")
    run("echo 0 > events/kprobes/ptw/enable")
    recs = records(run("cat trace"))
    stacks = [frames for text, frames in recs if text == "<stack trace>"]
    assert stacks, recs
    for frames in stacks:
        assert "ftrace_regs_caller" in frames, frames
        assert frames[frames.index("ftrace_regs_caller") + 1:] == [
            "vfs_read", "ksys_read", "__x64_sys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"], frames
    run("echo '!stacktrace' > events/kprobes/ptw/trigger; echo > kprobe_events")


def test_userstacktrace_of_an_emulated_program(quiet, tmp_path):
    run, guest = quiet
    run("echo 1 > options/userstacktrace; echo 1 > events/syscalls/sys_enter_getuid/enable")
    guest("getuid-loop", "2")
    run("echo 0 > events/syscalls/sys_enter_getuid/enable")
    recs = records(run("cat trace"))
    assert [text for text, _ in recs] == ["sys_getuid()", "<user stack trace>"] * 2, recs
    # the user ip, then the program's frame-pointer chain (6.1 prints ` => ` then ` <%016lx>`)
    frames = recs[1][1]
    assert len(frames) >= 2 and all(re.fullmatch(r" <0000000000[4-5][0-9a-f]{5}>", f) for f in frames), frames
    # sym-userobj names the object once the task is gone? No: its mm is gone, addresses stay
    assert records(run("echo 1 > options/sym-userobj; cat trace"))[1][1] == frames

    # while the task lives, sym-userobj prints its mappings' file and the offset in them
    run("echo > trace; echo 1 > events/syscalls/sys_enter_nanosleep/enable")
    mount = run("pwd").strip()
    sleeper = subprocess.Popen([TRACEFS_SIM, "exec", "--mount", mount, "sleep", "4"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: "<user stack trace>" in run("cat trace"), timeout=60)
        recs = records(run("cat trace"))
        at = next(i for i, (text, _) in enumerate(recs) if text == "<user stack trace>")
        assert recs[at - 1][0].startswith("sys_nanosleep(")
        assert recs[at][1] and all(re.fullmatch(r"/sleep\[\+0x[0-9a-f]+\]", f) for f in recs[at][1]), recs[at]
        # sym-addr adds the address
        with_addr = records(run("echo 1 > options/sym-addr; cat trace; echo 0 > options/sym-addr"))[at][1]
        assert all(re.fullmatch(r"/sleep\[\+0x[0-9a-f]+\] <0000000000[0-9a-f]{6}>", f) for f in with_addr), with_addr
    finally:
        sleeper.wait(timeout=60)
    run("echo 0 > events/syscalls/sys_enter_nanosleep/enable; echo 0 > options/userstacktrace; "
        "echo 0 > options/sym-userobj")


def test_stack_options_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "stack_options.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    shown = lines[lines.index("== the emulated sleep's nanosleep, with its kernel and user stacks:") + 1:]
    assert re.match(CONTEXT + r"sys_nanosleep\(rqtp: ", shown[0]) and shown[0].lstrip().startswith("sleep-"), shown
    assert re.match(CONTEXT + "<stack trace>$", shown[1]), shown
    # 6.1: ftrace_syscall_enter, __traceiter_sys_enter (not here: see the README), syscall_trace_enter...
    assert shown[2:6] == [" => ftrace_syscall_enter", " => syscall_trace_enter.constprop.0", " => do_syscall_64",
                          " => entry_SYSCALL_64_after_hwframe"], shown
    assert re.match(CONTEXT + "<user stack trace>$", shown[6]), shown
    assert shown[7:] and all(re.fullmatch(r" => /sleep\[\+0x[0-9a-f]+\]", line) for line in shown[7:]), shown


def test_session_task_has_no_user_stack():
    # a session's process runs on the host: the emulated kernel has neither its user registers
    # nor its memory, so its user_stack record names no frame (README)
    script = ("T=/sys/kernel/tracing; echo 1 > $T/options/userstacktrace; "
              "echo 1 > $T/events/syscalls/sys_enter_getuid/enable; id -ru > /dev/null; "
              "echo 0 > $T/events/syscalls/sys_enter_getuid/enable; grep -v '^#' $T/trace")
    result = tracefs_sim("run", "-c", script, timeout=180)
    assert result.returncode == 0, result.stderr
    recs = records(result.stdout)
    at = next(i for i, (text, _) in enumerate(recs) if text == "sys_getuid()")
    assert recs[at + 1] == ("<user stack trace>", []), recs
