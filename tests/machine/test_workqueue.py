"""Workqueues: vmstat's delayed works queued by their timers and run by the kworkers."""
from guest_events import EventCapture

WORK_CPU_UNBOUND = 8192  # Linux's NR_CPUS, what queue_work() without a cpu reports


def symbol(machine, addr):
    found = machine.image.kallsyms_lookup(addr)
    return found[0].name if found else hex(addr)


def test_delayed_works_queue_activate_and_run_in_the_kworker(make_machine):
    m = make_machine(cpus=2, workload="default")
    kworkers = {t.pid: t.comm for t in m.tasks() if t.comm.startswith("kworker/")}
    cap = EventCapture(m)
    cap.enable("workqueue:workqueue_queue_work", "workqueue:workqueue_activate_work",
               "workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end",
               "timer:timer_expire_entry")
    recs = cap.wait_for("workqueue:workqueue_execute_end", timeout=5,
                        where=lambda r: symbol(m, r.fields["function"]) == "vmstat_shepherd")
    queued = next(r for r in recs if r.event == "workqueue:workqueue_queue_work"
                  and symbol(m, r.fields["function"]) == "vmstat_shepherd")
    work = queued.fields["work"]
    assert queued.fields["workqueue"] == b"events"  # system_wq
    assert queued.fields["req_cpu"] == WORK_CPU_UNBOUND and queued.fields["cpu"] == queued.cpu
    # its timer queued it, then the cpu's kworker ran it
    timer = [r for r in recs if r.event == "timer:timer_expire_entry" and r.ts < queued.ts]
    assert timer and symbol(m, timer[-1].fields["function"]) == "delayed_work_timer_fn"
    mine = [r for r in recs if r.fields.get("work") == work and r.ts >= queued.ts]
    assert [r.event.split(":")[1] for r in mine[:4]] == [
        "workqueue_queue_work", "workqueue_activate_work", "workqueue_execute_start", "workqueue_execute_end"]
    start, end = mine[2], mine[3]
    assert kworkers[start.fields["common_pid"]] == f"kworker/{start.cpu}:1"
    assert symbol(m, end.fields["function"]) == "vmstat_shepherd"
    updates = {r.fields["workqueue"] for r in recs if r.event == "workqueue:workqueue_queue_work"
               and symbol(m, r.fields["function"]) == "vmstat_update"}
    assert updates <= {b"mm_percpu_wq"}
