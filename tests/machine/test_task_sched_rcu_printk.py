"""Tasks (task_newtask, task_rename), the scheduler's further events, RCU and printk, each from
its real cause in the guest."""
import time

from guest_events import EventCapture

KTHREAD_CLONE_FLAGS = 0x00800000 | 0x100 | 0x200 | 0x400  # CLONE_UNTRACED|VM|FS|FILES


def test_a_program_is_made_renamed_waited_for_and_freed(make_machine, run_program):
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable("task:task_newtask", "task:task_rename", "sched:sched_process_wait", "sched:sched_process_free")
    run_program(m, ["true"])
    new = next(r for r in cap.wait_for("task:task_newtask") if r.event == "task:task_newtask")
    pid = new.fields["pid"]
    # kthreadd forks a kernel thread for it, which names itself, then execs the program
    assert new.fields["comm"] == b"kthreadd" and new.fields["clone_flags"] == KTHREAD_CLONE_FLAGS
    recs = cap.wait_for("sched:sched_process_free", where=lambda r: r.fields["pid"] == pid)
    renames = [(r.fields["oldcomm"], r.fields["newcomm"]) for r in recs
               if r.event == "task:task_rename" and r.fields["pid"] == pid]
    assert renames[-1] == (b"kthreadd", b"true")
    assert any(r.fields["comm"] == b"kthreadd" for r in recs if r.event == "sched:sched_process_wait")
    free = next(r for r in recs if r.event == "sched:sched_process_free" and r.fields["pid"] == pid)
    assert free.fields["comm"] == b"true"  # after a grace period, from the RCU softirq
    assert free.fields["common_flags"] & 0x10


def test_the_scheduler_accounts_runtime_and_moves_tasks(make_machine, run_program):
    m = make_machine(cpus=2, workload="default")
    cap = EventCapture(m)
    cap.enable("sched:sched_stat_runtime", "sched:sched_migrate_task")
    run_program(m, ["getuid-loop", "300000"])
    recs = cap.wait_for("sched:sched_migrate_task", timeout=10)
    runtime = [r for r in recs if r.event == "sched:sched_stat_runtime" and r.fields["comm"] == b"getuid-loop"]
    assert runtime and all(r.fields["runtime"] > 0 for r in runtime)
    assert all(a.fields["vruntime"] < b.fields["vruntime"] for a, b in zip(runtime, runtime[1:]))
    moved = [r for r in recs if r.event == "sched:sched_migrate_task"]
    assert moved and all(r.fields["orig_cpu"] != r.fields["dest_cpu"] for r in moved)


def test_rcu_utilization_marks_ticks_switches_and_the_core(make_machine, run_program):
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable("rcu:rcu_utilization")
    # a program that runs for some ticks; its task_struct goes after a grace period: the RCU
    # core runs (the first core seen may be one a tick raised before the capture began)
    run_program(m, ["getuid-loop", "30000"])
    strings = m.image.tracepoint_strings
    wanted = {"Start scheduler-tick", "End scheduler-tick", "Start context switch", "End context switch",
              "Start RCU core", "End RCU core"}
    seen: set[str] = set()
    deadline = time.monotonic() + 10
    while not wanted <= seen and time.monotonic() < deadline:
        seen |= {strings[r.fields["s"]] for r in cap.records()}
        time.sleep(0.05)
    assert wanted <= seen


def test_printk_logs_to_the_console_and_the_console_event(make_machine):
    """The boot banner, and cron's lines written to /dev/kmsg: printk:console has the text
    (no level prefix, no newline), the console prints it with its time."""
    m = make_machine(cpus=2, workload="default")
    assert m.console_output().split(b"] ", 1)[1].startswith(b"Linux version 6.1.0")
    cap = EventCapture(m)
    cap.enable("printk:console")
    # (cron's first line may take a while on a loaded box)
    recs = cap.wait_for("printk:console", timeout=30, where=lambda r: r.fields["msg"].startswith(b"CRON["))
    line = next(r.fields["msg"] for r in recs if r.event == "printk:console" and r.fields["msg"].startswith(b"CRON["))
    assert line.startswith(b"CRON[") and line.endswith(b"]: (root) CMD (true)")
    # the console prints it once the event's printk reaches it (a moment after the event)
    deadline = time.monotonic() + 10
    while b"] " + line + b"\n" not in m.console_output() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert b"] " + line + b"\n" in m.console_output()
